//! A candidate rule for one error, in one of three styles (PRODUCT.md §4):
//!
//! * `exact` — every frame as Valgrind's own gen block has it, objects made version-free;
//! * `object` — the allocator frames, then the first frame below them pinned to its
//!   object (`obj:*/libtorch_cpu.so*`) or, where the log hides the object, to its name;
//! * `anchored` (the default) — the `object` rule, continued with `...` down to the first
//!   stable exported API frame below (`fun:cuInit`, `fun:PyUnicode_New`,
//!   `fun:_ZN2at6native9empty_cpu*`) and cut there (Valgrind matches prefixes); when the
//!   first frame is itself such an API frame, the rule names it and stops.
//!
//! Runs of frames Valgrind knows nothing of (`???`: stripped code of an unloaded library,
//! the cudart12 recordings) and frames a demangled-only log cannot name collapse into one
//! `...`; the rule is pinned at the next frame it can name. The first frame below the
//! allocator is always pinned to third-party code (or skipped only when it is known not
//! to be first-party), so that a rule cannot take a first-party allocation or access.

use super::anchor::is_api;
use super::frames::{FrameFacts, Obj};
use super::generalise::{anchor_glob, demangled_operator, fun_glob, object_glob};
use crate::logs::record::ErrorRecord;
use crate::matcher::Truth;
use crate::matcher::rule::Pattern;
use crate::matcher::wildcard::Glob;
use crate::origin::{Classifier, OriginId, THIRD_PARTY_ID};
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

/// How general the rules are (`--style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Every frame, as Valgrind's gen block has it (objects version-free).
    Exact,
    /// Pinned at the first frame below the allocator, continued to a stable API frame.
    #[default]
    Anchored,
    /// Pinned at the first frame below the allocator by its object.
    Object,
}

/// One frame line of a rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pat {
    /// `fun:PATTERN`.
    Fun(Vec<u8>),
    /// `obj:PATTERN` (`obj:*` for a frame Valgrind knows nothing of).
    Obj(Vec<u8>),
    /// `...`.
    Ellipsis,
}

impl Pat {
    /// The pattern of a line as [`Pat::line`] writes it.
    #[must_use]
    pub fn from_line(line: &[u8]) -> Self {
        match line {
            b"..." => Self::Ellipsis,
            l if l.starts_with(b"fun:") => Self::Fun(l[4..].to_vec()),
            l => Self::Obj(l.get(4..).unwrap_or_default().to_vec()),
        }
    }

    /// The line as written in a suppression file.
    #[must_use]
    pub fn line(&self) -> Vec<u8> {
        match self {
            Self::Fun(p) => [b"fun:", &p[..]].concat(),
            Self::Obj(p) => [b"obj:", &p[..]].concat(),
            Self::Ellipsis => b"...".to_vec(),
        }
    }

    /// The matcher's pattern.
    #[must_use]
    pub fn compile(&self) -> Pattern {
        match self {
            Self::Fun(p) => Pattern::Fun(Glob::new(p)),
            Self::Obj(p) => Pattern::Obj(Glob::new(p)),
            Self::Ellipsis => Pattern::Ellipsis,
        }
    }
}

/// What a rule's kind check compares, and its frames: two errors with the same shape get
/// one rule (their leak kinds are merged).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// The tool (its name starts the kind line: `Memcheck`).
    pub tool: Tool,
    /// The kind (`Leak`, `Cond`, `Addr4`, `Param`).
    pub kind: String,
    /// The extra line other than `match-leak-kinds:` (`write(buf)`, `f(a)`).
    pub extra: Option<Vec<u8>>,
    /// The frame lines.
    pub frames: Vec<Pat>,
}

/// The leak kinds of a rule, as a bit set over [`LeakKind`] (bit `kind as u8`).
pub type Kinds = u8;

/// The bit of a leak kind.
#[must_use]
pub const fn kind_bit(k: LeakKind) -> Kinds {
    1 << (k as u8)
}

/// A rule built for an error.
#[derive(Debug, Clone)]
pub struct Built {
    /// Its shape in the chosen style.
    pub shape: Shape,
    /// The `object`-style shape of the same error (what many rules sharing it are
    /// coarsened to), when it differs.
    pub coarse: Option<Shape>,
    /// For an `object` rule, the `anchored` one: what it is narrowed to first when it
    /// would hide a kept error.
    pub finer: Option<Shape>,
    /// Whose code it hides.
    pub origin: OriginId,
    /// What names it: the anchor or pinned frame (`cuInit`, `libtorch_cpu`).
    pub label: String,
    /// The pinned frame's label, when the rule is named after an anchor below it (what
    /// tells apart rules anchored at the same function).
    pub pin: Option<String>,
}

/// Why no rule can be written for an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRule {
    /// No frame below the allocator can be named (no object, no matcher name) before
    /// first-party code or the end of the stack.
    NoPin,
    /// The first frame below the allocator may be first-party.
    FirstParty,
}

impl NoRule {
    /// Why, for reports.
    #[must_use]
    pub const fn why(self) -> &'static str {
        match self {
            Self::NoPin => {
                "no frame of its stack can be named by a rule (the log shows neither its object nor its mangled name) before first-party code"
            }
            Self::FirstParty => "its first frame may be first-party code",
        }
    }
}

/// Frames an anchor is looked for in, below the pinned frame.
const ANCHOR_WINDOW: usize = 24;

/// The kind line's parts and the extra line of `err` (the leak kind is separate).
#[must_use]
pub fn kind_of(err: &ErrorRecord, tool: Tool) -> (Tool, String, Option<Vec<u8>>) {
    let extra = match (err.kind.as_str(), &err.param, &err.fishy) {
        ("Param", Some(p), _) => Some(p.clone()),
        ("FishyValue", _, Some((f, a))) => Some([&f[..], b"(", &a[..], b")"].concat()),
        _ => None,
    };
    (tool, err.kind.clone(), extra)
}

/// The pattern naming an allocator frame.
fn allocator_pat(f: &FrameFacts<'_>, exact: bool) -> Pat {
    if let Some(name) = f.fun {
        return Pat::Fun(if exact { name.to_vec() } else { fun_glob(name) });
    }
    if let Some(op) = f.shown.and_then(demangled_operator) {
        return Pat::Fun(op.to_vec());
    }
    match f.obj {
        Obj::Shown(p) => Pat::Obj(object_glob(p)),
        _ => Pat::Obj(b"*".to_vec()),
    }
}

/// How a frame is named in an `exact` rule.
fn exact_pat(f: &FrameFacts<'_>) -> Pat {
    match (f.fun, f.obj) {
        (Some(name), _) => Pat::Fun(name.to_vec()),
        (None, Obj::Shown(p)) => Pat::Obj(object_glob(p)),
        _ => Pat::Obj(b"*".to_vec()),
    }
}

/// How a frame is pinned in an `object`/`anchored` rule, if it can be.
fn pin_pat(f: &FrameFacts<'_>) -> Option<Pat> {
    match (f.obj, f.fun) {
        (Obj::Shown(p), _) => Some(Pat::Obj(object_glob(p))),
        (Obj::Hidden, Some(name)) => Some(Pat::Fun(anchor_glob(name))),
        _ => None,
    }
}

/// The index of the first frame below the allocator frames.
#[must_use]
pub fn first_frame(frames: &[FrameFacts<'_>]) -> Option<usize> {
    frames.iter().position(|f| !f.allocates())
}

/// A short label for a frame: its function's name without namespaces, parameters and
/// templates, or its object's file name.
fn label_of(f: &FrameFacts<'_>) -> String {
    if let Some(name) = f.shown.or(f.fun) {
        // Without a symbol version or a clone suffix (` [clone .isra.0]` when demangled).
        let name = &name[..super::generalise::suffix(name).unwrap_or(name.len())];
        return super::names::short(&display(name));
    }
    match f.obj {
        Obj::Shown(p) | Obj::Missing(Some(p)) => object_label(p),
        _ => "unknown".to_owned(),
    }
}

/// An object's file name without its suffixes (`libtorch_cpu`, `_multiarray_umath`).
#[must_use]
pub fn object_label(path: &[u8]) -> String {
    let base = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let s = String::from_utf8_lossy(base);
    let s = s.split(".so").next().unwrap_or(&s);
    let s = s.split(".cpython").next().unwrap_or(s);
    s.trim_end_matches('*').trim_end_matches('-').to_owned()
}

/// A name as Valgrind displays it (demangled), for labels.
fn display(name: &[u8]) -> String {
    use crate::matcher::demangle::{Display, display as show};
    match show(name) {
        Display::Demangled(s) => s,
        _ => String::from_utf8_lossy(name).into_owned(),
    }
}

/// The rule for an error in `style`, from its frames (see the module documentation).
///
/// # Errors
/// [`NoRule`] when no rule that pins third-party code can be written.
pub fn build(
    err: &ErrorRecord,
    tool: Tool,
    frames: &[FrameFacts<'_>],
    style: Style,
    classifier: &Classifier,
) -> Result<Built, NoRule> {
    let (tool_name, kind, extra) = kind_of(err, tool);
    let exact = style == Style::Exact;
    let f0 = first_frame(frames);
    let mut pats: Vec<Pat> = frames[..f0.unwrap_or(frames.len())]
        .iter()
        .map(|f| allocator_pat(f, exact))
        .collect();
    let shape = |frames: Vec<Pat>| Shape {
        tool: tool_name,
        kind: kind.clone(),
        extra: extra.clone(),
        frames,
    };
    let Some(f0) = f0 else {
        // Nothing but allocator frames (e.g. a bad `free` at the program's entry).
        let label = frames
            .first()
            .map_or_else(|| "unknown".to_owned(), label_of);
        return Ok(Built {
            shape: shape(pats),
            coarse: None,
            finer: None,
            origin: THIRD_PARTY_ID,
            label,
            pin: None,
        });
    };
    if frames[f0].first_party != Truth::No {
        return Err(NoRule::FirstParty);
    }
    if exact {
        pats.extend(frames[f0..].iter().map(exact_pat));
        return Ok(Built {
            shape: shape(pats),
            coarse: None,
            finer: None,
            origin: origin_of(frames, f0),
            label: label_of(&frames[f0]),
            pin: None,
        });
    }
    // Pin: the first frame that can be named; frames before it collapse into `...`.
    let mut pin = None;
    for (i, f) in frames.iter().enumerate().skip(f0) {
        if f.first_party != Truth::No {
            break;
        }
        if let Some(p) = pin_pat(f) {
            pin = Some((i, p));
            break;
        }
    }
    let Some((p, pin_pat)) = pin else {
        return Err(NoRule::NoPin);
    };
    if p > f0 {
        pats.push(Pat::Ellipsis);
    }
    let origin = origin_of(frames, f0);
    let mut object = pats.clone();
    object.push(pin_pat.clone());
    let anchored = anchor(frames, p, pats, object, &shape, origin, classifier);
    if style == Style::Object {
        // The object rule; the anchored one to fall back on.
        return Ok(match anchored.coarse {
            Some(object) => Built {
                finer: Some(anchored.shape),
                shape: object,
                coarse: None,
                origin,
                label: label_of(&frames[p]),
                pin: None,
            },
            None => anchored,
        });
    }
    Ok(anchored)
}

/// The anchored rule for an error whose rule so far is `pats` + the object pin at frame
/// `p` (`object`).
fn anchor(
    frames: &[FrameFacts<'_>],
    p: usize,
    pats: Vec<Pat>,
    object: Vec<Pat>,
    shape: &dyn Fn(Vec<Pat>) -> Shape,
    origin: OriginId,
    classifier: &Classifier,
) -> Built {
    let pinned = &frames[p];
    // The pinned frame is itself an API frame: name it and stop.
    if let Some(name) = pinned.fun
        && is_api(classifier, pinned.origin, name)
    {
        let mut anchored = pats;
        anchored.push(Pat::Fun(anchor_glob(name)));
        let coarse = (anchored != object).then(|| shape(object));
        return Built {
            shape: shape(anchored),
            coarse,
            finer: None,
            origin,
            label: label_of(pinned),
            pin: None,
        };
    }
    let anchor = frames
        .iter()
        .enumerate()
        .skip(p + 1)
        .take(ANCHOR_WINDOW)
        .take_while(|(_, f)| f.first_party == Truth::No && !f.is_entry())
        .find_map(|(j, f)| {
            let name = f.fun?;
            is_api(classifier, f.origin, name).then_some((j, name))
        });
    match anchor {
        Some((j, name)) => {
            let mut anchored = object.clone();
            anchored.push(Pat::Ellipsis);
            anchored.push(Pat::Fun(anchor_glob(name)));
            Built {
                shape: shape(anchored),
                coarse: Some(shape(object)),
                finer: None,
                origin,
                label: label_of(&frames[j]),
                pin: Some(label_of(pinned)),
            }
        }
        None => Built {
            shape: shape(object),
            coarse: None,
            finer: None,
            origin,
            label: label_of(pinned),
            pin: None,
        },
    }
}

/// An error's whole stack as an `exact` rule has it, its names generalised only where
/// that costs nothing (`_Znw*`, clone suffixes, symbol versions): what a rule is made
/// narrower with when a more general one would hide a kept error.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExactStack {
    /// How many of the frames are allocator frames.
    pub alloc: usize,
    /// The frame lines.
    pub frames: Vec<Pat>,
}

/// Where a frame's line of an [`ExactStack`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactLine<'a> {
    /// `fun:` and this name, generalised ([`fun_glob`]).
    Fun(&'a [u8]),
    /// `fun:` and this pattern as it is.
    Pattern(&'static [u8]),
    /// `obj:` and this object's version-free glob ([`object_glob`]).
    Obj(&'a [u8]),
    /// `obj:*`.
    Any,
}

/// The [`ExactLine`]s of an error's frames, and how many are allocator frames.
#[must_use]
pub fn exact_lines<'a>(frames: &[FrameFacts<'a>]) -> (usize, Vec<ExactLine<'a>>) {
    let f0 = first_frame(frames).unwrap_or(frames.len());
    let lines = frames
        .iter()
        .enumerate()
        .map(|(i, f)| match (f.fun, f.obj) {
            (Some(name), _) => ExactLine::Fun(name),
            (None, _) if i < f0 && f.shown.and_then(demangled_operator).is_some() => {
                ExactLine::Pattern(f.shown.and_then(demangled_operator).unwrap_or(b"*"))
            }
            (None, Obj::Shown(p)) => ExactLine::Obj(p),
            _ => ExactLine::Any,
        })
        .collect();
    (f0, lines)
}

/// Append the line of an [`ExactLine`] to `out`.
pub fn write_exact_line(line: ExactLine<'_>, out: &mut Vec<u8>) {
    match line {
        ExactLine::Fun(name) => {
            out.extend_from_slice(b"fun:");
            crate::r#gen::generalise::write_fun_glob(name, out);
        }
        ExactLine::Pattern(p) => {
            out.extend_from_slice(b"fun:");
            out.extend_from_slice(p);
        }
        ExactLine::Obj(path) => {
            out.extend_from_slice(b"obj:");
            out.extend_from_slice(&object_glob(path));
        }
        ExactLine::Any => out.extend_from_slice(b"obj:*"),
    }
}

/// The [`ExactStack`] of an error.
#[must_use]
pub fn exact_frames(frames: &[FrameFacts<'_>]) -> ExactStack {
    let (alloc, lines) = exact_lines(frames);
    let mut buf = Vec::new();
    ExactStack {
        alloc,
        frames: lines
            .into_iter()
            .map(|l| {
                buf.clear();
                write_exact_line(l, &mut buf);
                Pat::from_line(&buf)
            })
            .collect(),
    }
}

/// The origin a rule is named after: that of its first frame below the allocator (`p`).
/// Code no profile claims (only written with `--unknown suppress`) is named after the
/// catch-all `third-party`, never after a library further down: those frames are not
/// that library's.
const fn origin_of(frames: &[FrameFacts<'_>], p: usize) -> OriginId {
    frames[p].origin
}

/// The rule's record, named `name`, with leak kinds `kinds` for a `Leak` rule.
#[must_use]
pub fn record(name: &str, shape: &Shape, kinds: Kinds) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + shape.frames.len() * 48);
    out.extend_from_slice(b"{\n   ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\n   ");
    out.extend_from_slice(shape.tool.supp_name().as_bytes());
    out.push(b':');
    out.extend_from_slice(shape.kind.as_bytes());
    out.push(b'\n');
    if shape.kind == "Leak" && shape.tool == Tool::Memcheck {
        out.extend_from_slice(b"   match-leak-kinds: ");
        out.extend_from_slice(kinds_text(kinds).as_bytes());
        out.push(b'\n');
    } else if let Some(x) = &shape.extra {
        out.extend_from_slice(b"   ");
        out.extend_from_slice(x);
        out.push(b'\n');
    }
    for p in &shape.frames {
        out.extend_from_slice(b"   ");
        out.extend_from_slice(&p.line());
        out.push(b'\n');
    }
    out.extend_from_slice(b"}\n");
    out
}

/// `definite,possible`: the kinds in canonical order.
#[must_use]
pub fn kinds_text(kinds: Kinds) -> String {
    LeakKind::ALL
        .iter()
        .filter(|k| kinds & kind_bit(**k) != 0)
        .map(|k| k.token())
        .collect::<Vec<_>>()
        .join(",")
}

/// The shape's frames as the matcher's patterns.
#[must_use]
pub fn compile(shape: &Shape) -> Vec<Pattern> {
    shape.frames.iter().map(Pat::compile).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r#gen::frames::{Cache, ProcessObjects, of_error};
    use crate::logs::text::TextReader;
    use crate::matcher::MatchInput;
    use crate::matcher::stack::stack_matches;

    fn first_error(log: &str) -> ErrorRecord {
        TextReader::new(log.as_bytes())
            .find_map(|i| i.ok()?.as_error().cloned())
            .expect("an error")
    }

    fn lines(shape: &Shape) -> Vec<String> {
        shape
            .frames
            .iter()
            .map(|p| String::from_utf8_lossy(&p.line()).into_owned())
            .collect()
    }

    /// The cudart12 recording's first loss record: `calloc` in the unloaded driver,
    /// reached from `cudaGetErrorString`.
    const CUDART: &str = "==12215== Memcheck, a memory error detector\n==12215== Command: ./probe\n==12215== \n\
==12215== 56 bytes in 1 blocks are definitely lost in loss record 1 of 7\n\
==12215==    at 0x48465EF: calloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n\
==12215==    by 0x54E3A0B: ???\n\
==12215==    by 0x5560274: ???\n\
==12215==    by 0x4A36771: ??? (in /home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12)\n\
==12215==    by 0x4A3B407: ??? (in /home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12)\n\
==12215==    by 0x4D45056: __pthread_once_slow (pthread_once.c:116)\n\
==12215==    by 0x4A8C258: ??? (in /home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12)\n\
==12215==    by 0x4A3742E: ??? (in /home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12)\n\
==12215==    by 0x4A4F8E6: cudaGetErrorString (in /home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12)\n\
==12215==    by 0x1091ED: main (cudart_probe.c:24)\n\
==12215== \n\
{\n   <insert_a_suppression_name_here>\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:calloc\n   obj:*\n   obj:*\n   obj:/home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12\n   obj:/home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12\n   fun:__pthread_once_slow\n   obj:/home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12\n   obj:/home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12\n   fun:cudaGetErrorString\n   fun:main\n}\n";

    /// The rule `build` makes, unknown code opted in as third-party (`--unknown suppress`):
    /// by default an error whose first frame cannot be placed gets no rule at all.
    fn built(log: &str, style: Style, fp: &[&str]) -> (Result<Built, NoRule>, MatchInput) {
        built_with(log, style, fp, crate::origin::UnknownCode::Suppress)
    }

    fn built_with(
        log: &str,
        style: Style,
        fp: &[&str],
        unknown: crate::origin::UnknownCode,
    ) -> (Result<Built, NoRule>, MatchInput) {
        let err = first_error(log);
        let input = MatchInput::from_record(&err, false);
        let c = crate::origin::classify::test_classifier_with(fp, unknown);
        let procs = ProcessObjects::default();
        let frames = of_error(&err, &input, &procs, &c, &mut Cache::default());
        let built = build(&err, Tool::Memcheck, &frames, style, &c);
        (built, input)
    }

    #[test]
    fn unloaded_driver_frames_collapse_and_the_rule_stops_at_the_runtime_api() {
        let (b, input) = built(CUDART, Style::Anchored, &["leaky_ext*"]);
        let b = b.expect("a rule");
        assert_eq!(
            lines(&b.shape),
            [
                "fun:calloc",
                "...",
                "obj:*/libcudart.so*",
                "...",
                "fun:cudaGetErrorString"
            ]
        );
        assert_eq!(b.label, "cudaGetErrorString");
        assert_eq!(
            lines(b.coarse.as_ref().expect("coarse")),
            ["fun:calloc", "...", "obj:*/libcudart.so*"]
        );
        assert_eq!(stack_matches(&compile(&b.shape), &input), Truth::Yes);
        let (o, _) = built(CUDART, Style::Object, &[]);
        let o = o.expect("rule");
        assert_eq!(
            lines(&o.shape),
            ["fun:calloc", "...", "obj:*/libcudart.so*"]
        );
        // What an object rule is narrowed to first: the anchored one.
        assert_eq!(o.finer.as_ref().map(lines), Some(lines(&b.shape)));
        let (e, _) = built(CUDART, Style::Exact, &[]);
        let e = e.expect("rule");
        assert_eq!(
            lines(&e.shape)[..4],
            ["fun:calloc", "obj:*", "obj:*", "obj:*/libcudart.so*"]
        );
        assert_eq!(lines(&e.shape).last().map(String::as_str), Some("fun:main"));
        assert_eq!(stack_matches(&compile(&e.shape), &input), Truth::Yes);
    }

    const TORCH: &str = "==1== Memcheck, a memory error detector\n==1== Command: python t.py\n==1== \n\
==1== 8 bytes in 1 blocks are definitely lost in loss record 1 of 2\n\
==1==    at 0x4841F2F: operator new(unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n\
==1==    by 0x8961942D: _GLOBAL__sub_I_CPUGuardImpl.cpp (in /home/dev/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so)\n\
==1==    by 0x4004A1D: call_init (dl-init.c:74)\n\
==1==    by 0x4004A1D: _dl_init (dl-init.c:121)\n\
==1== \n\
{\n   <insert_a_suppression_name_here>\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:_Znwm\n   fun:_GLOBAL__sub_I_CPUGuardImpl.cpp\n   fun:call_init\n   fun:_dl_init\n}\n";

    #[test]
    fn static_initialisers_are_pinned_by_object_and_anchored_below() {
        let (b, input) = built(TORCH, Style::Anchored, &[]);
        let b = b.expect("a rule");
        assert_eq!(
            lines(&b.shape),
            [
                "fun:_Znw*",
                "obj:*/libtorch_cpu.so*",
                "...",
                "fun:call_init"
            ]
        );
        assert_eq!(b.shape.kind, "Leak");
        assert_eq!(stack_matches(&compile(&b.shape), &input), Truth::Yes);
        let r = String::from_utf8(record(
            "libtorch.Leak.call_init",
            &b.shape,
            kind_bit(LeakKind::Definite) | kind_bit(LeakKind::Reachable),
        ))
        .expect("utf-8");
        assert_eq!(
            r,
            "{\n   libtorch.Leak.call_init\n   Memcheck:Leak\n   match-leak-kinds: definite,reachable\n   fun:_Znw*\n   obj:*/libtorch_cpu.so*\n   ...\n   fun:call_init\n}\n"
        );
    }

    #[test]
    fn first_party_first_frames_get_no_rule() {
        let log = "==1== Memcheck, a memory error detector\n==1== Command: ./t\n==1== \n\
==1== 4,000 bytes in 1 blocks are definitely lost in loss record 1 of 1\n\
==1==    at 0x4843: operator new[](unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n\
==1==    by 0xCB5A: dangerous_function() (leaky_ext.cpp:11)\n\
==1== \n";
        assert_eq!(
            built(log, Style::Anchored, &["leaky_ext*"]).0.err(),
            Some(NoRule::FirstParty)
        );
        // Not declared first-party, but a frame no profile claims: possibly the user's.
        assert_eq!(
            built_with(
                log,
                Style::Anchored,
                &[],
                crate::origin::UnknownCode::Review
            )
            .0
            .err(),
            Some(NoRule::FirstParty)
        );
        // Opted in: a demangled-only frame with a hidden object and nothing below it:
        // nothing can be named.
        assert_eq!(
            built(log, Style::Anchored, &[]).0.err(),
            Some(NoRule::NoPin)
        );
        // Unknown code is never pinned by default: a `???` first frame gets no rule.
        assert_eq!(
            built_with(
                CUDART,
                Style::Anchored,
                &[],
                crate::origin::UnknownCode::Review
            )
            .0
            .err(),
            Some(NoRule::FirstParty)
        );
    }

    #[test]
    fn demangled_operators_and_api_first_frames() {
        let log = "==1== Memcheck, a memory error detector\n==1== Command: ./t\n==1== \n\
==1== 16 bytes in 1 blocks are still reachable in loss record 1 of 1\n\
==1==    at 0x4843: operator new(unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n\
==1==    by 0x8961: c10::alloc_cpu(unsigned long) (in /x/torch/lib/libc10.so)\n\
==1==    by 0x8962: PyObject_Malloc (obmalloc.c:1)\n\
==1== \n";
        let (b, input) = built(log, Style::Anchored, &[]);
        let b = b.expect("a rule");
        // Demangled only: the allocator's mangled name comes from the operator's display,
        // and the C++ frame is pinned by its object (no mangled name to anchor on).
        assert_eq!(
            lines(&b.shape),
            [
                "fun:_Znw*",
                "obj:*/libc10.so*",
                "...",
                "fun:PyObject_Malloc"
            ]
        );
        assert_eq!(stack_matches(&compile(&b.shape), &input), Truth::Yes);
    }
}
