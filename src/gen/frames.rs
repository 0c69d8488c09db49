//! One error's frames as `gen` needs them: what the matcher sees of each frame (the names
//! a rule can use), what the log prints (for reports), and whose code each frame is
//! ([`crate::origin`]: first-party, claimed by a profile, or unknown).

use crate::logs::record::ErrorRecord;
use crate::matcher::input::{InputFrame, Known};
use crate::matcher::{MatchInput, Truth};
pub use crate::origin::Cache;
use crate::origin::{ALLOCATOR_ID, Classifier, FrameSeen, ObjectSeen, OriginId, Party};

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
    /// Whose code it is.
    pub party: Party,
    /// Its origin ([`Party::origin`]).
    pub origin: OriginId,
    /// Whether it is first-party ([`Party::first_party`]: `No` only for code a profile
    /// claims).
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
    // Most names are longer than any of WRAPPERS: only the operator prefixes can match.
    if name.len() > 32 && !name.contains(&b'@') {
        return name.starts_with(b"_Znw")
            || name.starts_with(b"_Zna")
            || name.starts_with(b"operator new");
    }
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

    /// A frame every stack of the process passes through whoever's code is above it: the
    /// start-up code below `main`, and a `main` a profile claims (CPython's). A first-party
    /// `main`, or one nothing places, is code like any other: a library it calls directly
    /// may be allocating for it.
    #[must_use]
    pub fn is_shared_entry(&self) -> bool {
        match self.fun.or(self.shown) {
            Some(b"main") => self.first_party == Truth::No,
            Some(n) => {
                n == b"(below main)" || n.starts_with(b"_start") || n.starts_with(b"__libc_start")
            }
            None => false,
        }
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
    let mut frames: Vec<FrameFacts<'a>> = input
        .frames
        .iter()
        .enumerate()
        .map(|(i, inf)| {
            let printed = if aligned { err.stack.get(i) } else { None };
            facts(inf, printed, procs, classifier, cache)
        })
        .collect();
    // A bad system-call argument is raised in the C library's stub for that call: the code
    // whose argument it is lies below, so the stub counts with the allocator frames.
    if err.kind == "Param"
        && let Some(param) = &err.param
    {
        let call = &param[..param.iter().position(|&b| b == b'(').unwrap_or(param.len())];
        for f in frames.iter_mut() {
            if !is_syscall_stub(f, call) {
                break;
            }
            f.wrapper = true;
        }
    }
    frames
}

/// Whether a frame is the C library's stub for the system call `call` (`ioctl`,
/// `__GI___ioctl`, `syscall`, the cancellation wrappers, or code of `syscall-template.S`).
fn is_syscall_stub(f: &FrameFacts<'_>, call: &[u8]) -> bool {
    let name = f.fun.or(f.shown).map(|n| {
        let n = &n[..n.iter().position(|&b| b == b'@').unwrap_or(n.len())];
        let n = n.strip_prefix(b"__GI_").unwrap_or(n);
        let n = n.strip_prefix(b"__libc_").unwrap_or(n);
        n.strip_prefix(b"__").unwrap_or(n)
    });
    let by_name = name.is_some_and(|n| {
        !call.is_empty() && n == call
            || matches!(
                n,
                b"syscall"
                    | b"syscall_cancel"
                    | b"syscall_cancel_arch"
                    | b"internal_syscall_cancel"
            )
    });
    let by_source = f.file.is_some_and(|file| {
        let base = file.rsplit(|&b| b == b'/').next().unwrap_or(file);
        matches!(
            base,
            b"syscall-template.S" | b"syscall_cancel.S" | b"syscall.S"
        )
    });
    // A first-party function of that name is the user's code, not the stub.
    (by_name || by_source) && f.first_party != Truth::Yes
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
            let party = place(obj, None, f.dir, f.file, f.fun, classifier, cache);
            let first_party = party.first_party();
            FrameFacts {
                fun: None,
                shown: f.fun,
                obj,
                ip: f.ip,
                dir: f.dir,
                file: f.file,
                line: f.line,
                party,
                origin: party.origin(),
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
        Known::OneOf(set) => {
            cache.pin_set(classifier, set);
            (Obj::Hidden, Some(&set[..]))
        }
        Known::Demangled { .. } | Known::Unknown => (Obj::Hidden, None),
    };
    let (dir, file, line) = printed.map_or((None, None, None), |f| (f.dir, f.file, f.line));
    let party = place(obj, one_of, dir, file, fun.or(shown), classifier, cache);
    let first_party = party.first_party();
    FrameFacts {
        fun,
        shown,
        obj,
        ip,
        dir,
        file,
        line,
        party,
        origin: party.origin(),
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

/// [`Classifier::place`] on what the log shows of a frame.
fn place(
    obj: Obj<'_>,
    one_of: Option<&[Vec<u8>]>,
    dir: Option<&[u8]>,
    file: Option<&[u8]>,
    function: Option<&[u8]>,
    classifier: &Classifier,
    cache: &mut Cache,
) -> Party {
    let object = match obj {
        Obj::Shown(p) => ObjectSeen::Shown(p),
        Obj::Hidden => ObjectSeen::Hidden(one_of),
        Obj::Missing(p) => ObjectSeen::Missing(p),
    };
    classifier.place(
        &FrameSeen {
            object,
            dir,
            file,
            function,
        },
        cache,
    )
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

    use crate::origin::classify::test_classifier as classifier;

    #[test]
    fn objects_sources_and_names() {
        let err = &errors(LOG)[0];
        let input = MatchInput::from_record(err, false);
        let c = classifier(&["leaky_ext*"]);
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
        // pybind11's header compiled into the extension: its object is hidden, and neither
        // its source nor its function is claimed by a profile: unknown.
        assert_eq!(
            f[2].party,
            Party::Unknown(crate::origin::Unplaced::HiddenObject)
        );
        assert_eq!(
            f[3].fun,
            Some(&b"cfunction_vectorcall_FASTCALL_KEYWORDS"[..])
        );
        assert_eq!((o(3).as_str(), f[3].first_party), ("python", Truth::No));
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
            f[6].party,
            Party::Unknown(crate::origin::Unplaced::NoObject),
            "a ??? frame no unload explains"
        );
    }

    #[test]
    fn sources_that_fail_the_globs_are_unknown() {
        let err = &errors(LOG)[0];
        let input = MatchInput::from_record(err, false);
        let c = classifier(&["/home/dev/leaky_ext/**"]);
        let mut procs = ProcessObjects::default();
        let f = of_error(err, &input, &procs, &c, &mut Cache::default());
        assert_eq!(f[1].first_party, Truth::Unknown);
        assert_eq!(f[2].first_party, Truth::Unknown);
        // Even when every load is listed and none is first-party: a source that fails a
        // glob is no claim.
        procs.loads_listed = true;
        let f = of_error(err, &input, &procs, &c, &mut Cache::default());
        assert_eq!(f[1].first_party, Truth::Unknown);
    }
}
