//! One error's frames as `gen` needs them: what the matcher sees of each frame (the names
//! a rule can use), what the log prints (for reports), and each frame's origin and whether
//! it is first-party (three-valued: a text log may hide the object of a frame).

use rustc_hash::FxHashMap;

use super::classify::{ALLOCATOR_ID, Classifier, FIRST_PARTY_ID, OriginId, THIRD_PARTY_ID};
use crate::logs::record::ErrorRecord;
use crate::matcher::input::{InputFrame, Known};
use crate::matcher::{MatchInput, Truth};

/// What the log shows of a frame's object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obj<'a> {
    /// Shown (or inferred for certain): the full path Valgrind's `obj:` compares with.
    Shown(&'a [u8]),
    /// The frame has a source line and the log hides its object.
    Hidden,
    /// Valgrind knows no object (`???`): the IP lies in no object loaded when the stack was
    /// printed. `Some` names the object that the log says held the IP before it was
    /// unloaded (`Discarding syms at A-B in PATH`, `-v`).
    Missing(Option<&'a [u8]>),
}

/// One frame.
#[derive(Debug, Clone, Copy)]
pub struct FrameFacts<'a> {
    /// The name Valgrind's `fun:` compares with (mangled, or a C name), when the log shows
    /// it; `None` for `???` and for names shown only demangled.
    pub fun: Option<&'a [u8]>,
    /// The name as printed (demangled), for reports.
    pub shown: Option<&'a [u8]>,
    /// The object.
    pub obj: Obj<'a>,
    /// The instruction pointer.
    pub ip: Option<u64>,
    /// Source directory (XML), file and line.
    pub dir: Option<&'a [u8]>,
    /// Source file as printed.
    pub file: Option<&'a [u8]>,
    /// Source line.
    pub line: Option<u32>,
    /// Its origin.
    pub origin: OriginId,
    /// Whether it is first-party.
    pub first_party: Truth,
    /// A third-party function that allocates for its caller (`strdup`, ld.so's `calloc`):
    /// see [`FrameFacts::allocates`].
    pub wrapper: bool,
    /// For a first-party frame: whether its source file is first-party too (`No` for a
    /// library's header compiled into first-party code: pybind11's `cast.h`). What a
    /// report points at is the user's own line.
    pub own_source: Truth,
}

/// C library functions that allocate for their caller: a leak through them is the
/// caller's (`char *s = strdup(x)` never freed), so they count with the allocator frames.
/// ld.so has its own `malloc`/`calloc` (`rtld-malloc.h`), and a `operator new` that
/// Valgrind did not replace is libstdc++'s.
const WRAPPERS: &[&[u8]] = &[
    b"malloc",
    b"calloc",
    b"realloc",
    b"reallocarray",
    b"memalign",
    b"aligned_alloc",
    b"posix_memalign",
    b"valloc",
    b"pvalloc",
    b"__libc_malloc",
    b"__libc_calloc",
    b"__libc_realloc",
    b"__libc_memalign",
    b"__libc_reallocarray",
    b"strdup",
    b"strndup",
    b"__strdup",
    b"__strndup",
    b"wcsdup",
    b"asprintf",
    b"__asprintf",
    b"vasprintf",
    b"__vasprintf",
    b"__vasprintf_internal",
    b"getline",
    b"getdelim",
    b"__getdelim",
    b"realpath",
    b"__realpath",
    b"canonicalize_file_name",
    b"tempnam",
    b"get_current_dir_name",
    b"open_memstream",
    b"scandir",
    b"backtrace_symbols",
];

/// Whether a function name is one of [`WRAPPERS`] (a versioned symbol too) or a C++
/// allocation operator.
fn is_wrapper(name: &[u8]) -> bool {
    let base = &name[..name.iter().position(|&b| b == b'@').unwrap_or(name.len())];
    WRAPPERS.contains(&base)
        || base.starts_with(b"_Znw")
        || base.starts_with(b"_Zna")
        || base.starts_with(b"operator new")
}

impl FrameFacts<'_> {
    /// Valgrind's allocator or interceptor replacement (`vgpreload_*`).
    #[must_use]
    pub fn is_allocator(&self) -> bool {
        self.origin == ALLOCATOR_ID
    }

    /// An allocator frame, or a third-party function that allocates for its caller: the
    /// frames a leak's "first frame" is looked for below.
    #[must_use]
    pub fn allocates(&self) -> bool {
        self.is_allocator() || self.wrapper
    }

    /// `main` or a below-main frame: every stack of a program passes through them.
    #[must_use]
    pub fn is_entry(&self) -> bool {
        matches!(
            self.fun.or(self.shown),
            Some(b"main" | b"(below main)" | b"_start" | b"__libc_start_main")
        )
    }

    /// `file:line`, when the frame has a source line.
    #[must_use]
    pub fn location(&self) -> Option<String> {
        let file = self.file?;
        let name = file.rsplit(|&b| b == b'/').next().unwrap_or(file);
        Some(format!("{}:{}", String::from_utf8_lossy(name), self.line?))
    }
}

/// What one process of a log says about the objects it loaded.
#[derive(Debug, Default, Clone)]
pub struct ProcessObjects {
    /// The log lists every load and unload (text `-v`, `--keep-debuginfo=no`).
    pub loads_listed: bool,
    /// A first-party object was loaded.
    pub first_party_loaded: bool,
    /// Code ranges of unloaded objects, with their paths.
    pub unloaded: Vec<(u64, u64, Box<[u8]>)>,
}

impl ProcessObjects {
    fn unloaded_at(&self, ip: u64) -> Option<&[u8]> {
        // The latest unload holding the IP: an address range is reused after an unload.
        self.unloaded
            .iter()
            .rev()
            .find(|(s, e, _)| (*s..*e).contains(&ip))
            .map(|(_, _, p)| &p[..])
    }
}

/// Classification results by name, kept across the errors of a log (a log names the same
/// few hundred objects and source files millions of times).
#[derive(Default)]
pub struct Cache {
    objects: FxHashMap<Box<[u8]>, OriginId>,
    /// By directory, a NUL and the file (no path holds a NUL).
    sources: FxHashMap<Box<[u8]>, super::classify::SourceClass>,
    key: Vec<u8>,
    functions: FxHashMap<Box<[u8]>, Option<OriginId>>,
}

impl Cache {
    fn object(&mut self, c: &Classifier, path: &[u8]) -> OriginId {
        if let Some(o) = self.objects.get(path) {
            return *o;
        }
        let o = c.object(path);
        self.objects.insert(path.into(), o);
        o
    }

    fn source(
        &mut self,
        c: &Classifier,
        dir: Option<&[u8]>,
        file: &[u8],
    ) -> super::classify::SourceClass {
        self.key.clear();
        self.key.extend_from_slice(dir.unwrap_or_default());
        self.key.push(0);
        self.key.extend_from_slice(file);
        if let Some(s) = self.sources.get(&self.key[..]) {
            return *s;
        }
        let s = c.source(dir, file);
        self.sources.insert(self.key.as_slice().into(), s);
        s
    }

    fn function(&mut self, c: &Classifier, name: &[u8]) -> Option<OriginId> {
        if let Some(o) = self.functions.get(name) {
            return *o;
        }
        let o = c.function(name);
        self.functions.insert(name.into(), o);
        o
    }
}

/// The frames of a stack (the error's own, or an aux/origin stack printed with it) as the
/// matcher input `input` and the printed `stack` show them.
#[must_use]
pub fn of_error<'a>(
    err: &'a ErrorRecord,
    input: &'a MatchInput,
    procs: &'a ProcessObjects,
    classifier: &Classifier,
    cache: &mut Cache,
) -> Vec<FrameFacts<'a>> {
    let aligned = input.frames.len() == err.stack.len();
    input
        .frames
        .iter()
        .enumerate()
        .map(|(i, inf)| {
            let printed = if aligned { err.stack.get(i) } else { None };
            facts(inf, printed, procs, classifier, cache)
        })
        .collect()
}

/// The frames of a printed stack alone (aux and origin stacks have no matcher input): the
/// names are those printed, objects as printed.
#[must_use]
pub fn of_stack<'a>(
    stack: &'a crate::logs::record::Stack,
    xml: bool,
    procs: &'a ProcessObjects,
    classifier: &Classifier,
    cache: &mut Cache,
) -> Vec<FrameFacts<'a>> {
    stack
        .iter()
        .map(|f| {
            let obj = match f.obj {
                Some(o) if o != b"???" => Obj::Shown(o),
                // XML prints the object whenever it is known; text only without a line.
                _ if xml || f.file.is_none() => {
                    Obj::Missing(f.ip.and_then(|ip| procs.unloaded_at(ip)))
                }
                _ => Obj::Hidden,
            };
            let (origin, first_party) =
                classify(obj, None, f.dir, f.file, f.fun, procs, classifier, cache);
            FrameFacts {
                fun: None,
                shown: f.fun,
                obj,
                ip: f.ip,
                dir: f.dir,
                file: f.file,
                line: f.line,
                origin,
                first_party,
                wrapper: first_party == Truth::No && f.fun.is_some_and(is_wrapper),
                own_source: own_source(first_party, obj, f.dir, f.file, classifier, cache),
            }
        })
        .collect()
}

fn facts<'a>(
    inf: &'a InputFrame,
    printed: Option<crate::logs::record::Frame<'a>>,
    procs: &'a ProcessObjects,
    classifier: &Classifier,
    cache: &mut Cache,
) -> FrameFacts<'a> {
    let fun = match &inf.fun {
        Known::Yes(n) if n != b"???" => Some(&n[..]),
        _ => None,
    };
    let shown = printed.and_then(|f| f.fun).or(match &inf.fun {
        Known::Demangled { shown, .. } => Some(&shown[..]),
        _ => fun,
    });
    let ip = printed.and_then(|f| f.ip);
    let (obj, one_of) = match &inf.obj {
        Known::Yes(o) if o == b"???" => {
            (Obj::Missing(ip.and_then(|ip| procs.unloaded_at(ip))), None)
        }
        Known::Yes(o) => (Obj::Shown(&o[..]), None),
        Known::OneOf(set) => (Obj::Hidden, Some(&set[..])),
        Known::Demangled { .. } | Known::Unknown => (Obj::Hidden, None),
    };
    let (dir, file, line) = printed.map_or((None, None, None), |f| (f.dir, f.file, f.line));
    let (origin, first_party) = classify(
        obj,
        one_of,
        dir,
        file,
        fun.or(shown),
        procs,
        classifier,
        cache,
    );
    FrameFacts {
        fun,
        shown,
        obj,
        ip,
        dir,
        file,
        line,
        origin,
        first_party,
        wrapper: first_party == Truth::No && fun.or(shown).is_some_and(is_wrapper),
        own_source: own_source(first_party, obj, dir, file, classifier, cache),
    }
}

/// [`FrameFacts::own_source`].
fn own_source(
    first_party: Truth,
    obj: Obj<'_>,
    dir: Option<&[u8]>,
    file: Option<&[u8]>,
    classifier: &Classifier,
    cache: &mut Cache,
) -> Truth {
    match (first_party, obj, file) {
        (Truth::No, ..) => Truth::No,
        // Decided by its source already.
        (_, Obj::Hidden, _) => first_party,
        (_, _, Some(f)) => cache.source(classifier, dir, f).first_party,
        _ => Truth::Unknown,
    }
}

#[allow(clippy::too_many_arguments)]
fn classify(
    obj: Obj<'_>,
    one_of: Option<&[Vec<u8>]>,
    dir: Option<&[u8]>,
    file: Option<&[u8]>,
    name: Option<&[u8]>,
    procs: &ProcessObjects,
    classifier: &Classifier,
    cache: &mut Cache,
) -> (OriginId, Truth) {
    let by_name = |cache: &mut Cache| {
        name.and_then(|n| cache.function(classifier, n))
            .unwrap_or(THIRD_PARTY_ID)
    };
    match obj {
        Obj::Shown(path) | Obj::Missing(Some(path)) => {
            let o = cache.object(classifier, path);
            (o, Truth::of(o == FIRST_PARTY_ID))
        }
        // No object at all: no evidence of first-party code (an extension is never
        // unloaded by CPython; code outside every object is JIT or a stub).
        Obj::Missing(None) => (by_name(cache), Truth::No),
        Obj::Hidden => {
            let src = file.map(|f| cache.source(classifier, dir, f));
            if src.is_some_and(|s| s.first_party == Truth::Yes) {
                return (FIRST_PARTY_ID, Truth::Yes);
            }
            let first_party = match src.map(|s| s.first_party) {
                Some(Truth::No) => Truth::No,
                // Every object loaded is listed and none is first-party.
                _ if procs.loads_listed && !procs.first_party_loaded => Truth::No,
                // The objects it may be in, when the log narrows them down.
                _ => match one_of {
                    Some(set)
                        if set
                            .iter()
                            .all(|p| cache.object(classifier, p) != FIRST_PARTY_ID) =>
                    {
                        Truth::No
                    }
                    _ => Truth::Unknown,
                },
            };
            // A few candidate objects of one origin name it (a large set never agrees, and
            // classifying it costs more than it tells).
            let agreed = one_of.filter(|set| set.len() <= 8).and_then(|set| {
                let first = cache.object(classifier, set.first()?);
                set.iter()
                    .all(|p| cache.object(classifier, p) == first)
                    .then_some(first)
            });
            let origin = src
                .and_then(|s| s.origin)
                .or(agreed)
                .unwrap_or_else(|| by_name(cache));
            (origin, first_party)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::text::TextReader;

    fn errors(log: &str) -> Vec<ErrorRecord> {
        TextReader::new(log.as_bytes())
            .filter_map(|i| i.ok()?.as_error().cloned())
            .collect()
    }

    const LOG: &str = "==1== Memcheck, a memory error detector\n==1== Command: ./t\n==1== \n\
==1== 4,000 bytes in 1 blocks are definitely lost in loss record 1 of 1\n\
==1==    at 0x4843: operator new[](unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n\
==1==    by 0xCB5A: dangerous_function() (leaky_ext.cpp:11)\n\
==1==    by 0xCB5E: pybind11::cpp_function::dispatcher(_object*, _object* const*, unsigned long, _object*) (pybind11.h:1236)\n\
==1==    by 0x49F9: cfunction_vectorcall_FASTCALL_KEYWORDS (methodobject.c:443)\n\
==1==    by 0x8A00: ??? (in /home/dev/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so)\n\
==1==    by 0x5000: ???\n\
==1==    by 0x6000: ???\n\
==1== \n";

    #[test]
    fn objects_sources_and_names() {
        let err = &errors(LOG)[0];
        let input = MatchInput::from_record(err, false);
        let c = Classifier::new(&["*/leaky_ext*".into()], &[]).expect("compiles");
        let mut procs = ProcessObjects::default();
        procs.unloaded.push((
            0x5000,
            0x5800,
            b"/usr/lib/x86_64-linux-gnu/libcuda.so.535.1"
                .as_slice()
                .into(),
        ));
        let f = of_error(err, &input, &procs, &c, &mut Cache::default());
        let o = |i: usize| c.origin_name(f[i].origin).to_owned();
        assert!(f[0].is_allocator());
        assert_eq!(
            f[0].fun, None,
            "demangled only: the matcher's name is not shown"
        );
        assert_eq!(f[1].first_party, Truth::Yes);
        assert_eq!(f[1].location().as_deref(), Some("leaky_ext.cpp:11"));
        assert_eq!(f[1].obj, Obj::Hidden);
        // pybind11's header compiled into the extension: the name glob decides it is not
        // first-party; the function name does not suggest a built-in origin.
        assert_eq!(
            (f[2].first_party, o(2).as_str()),
            (Truth::No, "third-party")
        );
        assert_eq!(
            f[3].fun,
            Some(&b"cfunction_vectorcall_FASTCALL_KEYWORDS"[..])
        );
        assert_eq!(o(4), "libtorch");
        assert_eq!(f[4].first_party, Truth::No);
        assert_eq!(
            (o(5).as_str(), f[5].first_party),
            ("cuda-driver", Truth::No),
            "a ??? frame inside an unloaded object's range"
        );
        assert_eq!(
            f[5].obj,
            Obj::Missing(Some(&b"/usr/lib/x86_64-linux-gnu/libcuda.so.535.1"[..]))
        );
        assert_eq!(
            (o(6).as_str(), f[6].first_party),
            ("third-party", Truth::No)
        );
    }

    #[test]
    fn undecidable_sources_are_unknown_unless_no_first_party_object_was_loaded() {
        let err = &errors(LOG)[0];
        let input = MatchInput::from_record(err, false);
        let c = Classifier::new(&["/home/dev/leaky_ext/*".into()], &[]).expect("compiles");
        let mut procs = ProcessObjects::default();
        let f = of_error(err, &input, &procs, &c, &mut Cache::default());
        assert_eq!(f[1].first_party, Truth::Unknown);
        assert_eq!(f[3].first_party, Truth::Unknown);
        procs.loads_listed = true;
        let f = of_error(err, &input, &procs, &c, &mut Cache::default());
        assert_eq!(
            f[1].first_party,
            Truth::No,
            "nothing first-party was loaded"
        );
        procs.first_party_loaded = true;
        let f = of_error(err, &input, &procs, &c, &mut Cache::default());
        assert_eq!(f[1].first_party, Truth::Unknown);
    }
}
