//! What the matcher compares a rule with: an error's kind data and its frame sequence, built
//! from what a log shows (valgrind-semantics.md §2.4, §7.3).
//!
//! Valgrind matches mangled names, full resolved object paths and source file names. A
//! `--gen-suppressions` block gives exactly the names Valgrind matches; XML written with
//! `--demangle=no` gives them too; a plain text log shows demangled names and objects only
//! for frames without line info. Whatever the log does not show is [`Known::Unknown`], and a
//! verdict that depends on it is approximate.

use std::sync::Arc;

use crate::logs::record::{ErrorRecord, GenFrame};
use crate::matcher::objects::ObjectMap;
use crate::supp::model::LeakKind;

/// A fact about a frame that the log may or may not show.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Known<T> {
    /// Shown.
    Yes(T),
    /// Objects only: one of these, the log does not show which (at least two, sorted,
    /// distinct). Inferred by [`ObjectMap`](crate::matcher::objects::ObjectMap).
    OneOf(Arc<[T]>),
    /// Function names only: the log shows the name as Valgrind displays it, C++/Rust
    /// demangled; the name Valgrind matches is one whose display this is
    /// ([`demangle`](crate::matcher::demangle)).
    Demangled {
        /// The name as shown.
        shown: T,
        /// The next frame has the same IP: this frame may be inlined, and then Valgrind
        /// matches the shown name itself.
        maybe_inlined: bool,
    },
    /// Not shown by this log.
    Unknown,
}

/// The source location Valgrind's `src:` lookup finds for a frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SrcInfo {
    /// File name (no directory) and line.
    At(Vec<u8>, u32),
    /// The frame has no line info: `src:` never matches it (§2.5, U5).
    None,
}

/// One frame of the matcher's input.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InputFrame {
    /// The function name as Valgrind's matcher sees it (`???` when unknown).
    pub fun: Known<Vec<u8>>,
    /// The object's full path (`???` when unknown).
    pub obj: Known<Vec<u8>>,
    /// Where `src:` looks.
    pub src: Known<SrcInfo>,
}

/// The kind data a rule's kind check needs (§2.6).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorKind {
    /// The suppression kind name (`Addr4`, `Leak`, `Race`, …).
    pub kind: String,
    /// Leak kind of a loss record.
    pub leak: Option<LeakKind>,
    /// Param string.
    pub param: Option<Vec<u8>>,
    /// FishyValue function and argument.
    pub fishy: Option<(Vec<u8>, Vec<u8>)>,
}

/// An error prepared for matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchInput {
    /// Kind data.
    pub kind: ErrorKind,
    /// Frames, top first.
    pub frames: Vec<InputFrame>,
    /// Valgrind's input continues past the last frame shown (the log cuts stacks after
    /// `main`/`(below main)`, or ends inside the error), so a rule needing more frames is
    /// undecided, not unmatched.
    pub open_ended: bool,
    /// The frames the log hides are those below `main` (§2.4: the start-up code, named
    /// `(below main)`, `__libc_start_main…`, `_start…` or `???`), not arbitrary ones: a
    /// `fun:` pattern no such name can match does not match them.
    pub hidden_below_main: bool,
    /// Function names come from a demangled display (no gen block, no `--demangle=no`).
    pub demangled_names: bool,
}

/// A name that Valgrind would print the same mangled or demangled: a plain C identifier
/// (or `???`, `(below main)`).
fn c_like(name: &[u8]) -> bool {
    name == b"???"
        || name == b"(below main)"
        || name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'@')
}

fn basename(path: &[u8]) -> Vec<u8> {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path).to_vec()
}

impl MatchInput {
    /// Prepare `err`. `names_mangled` says whether the stack's function names are the
    /// matcher's (XML with `--demangle=no`); the gen block's names always are.
    #[must_use]
    pub fn from_record(err: &ErrorRecord, names_mangled: bool) -> Self {
        Self::from_record_with(err, names_mangled, None)
    }

    /// [`MatchInput::from_record`], with the objects of frames that a text log prints with
    /// a source line inferred from `objects` (the error's process's map, which has already
    /// observed `err`: [`ObjectMap::observe`]).
    #[must_use]
    pub fn from_record_with(
        err: &ErrorRecord,
        names_mangled: bool,
        objects: Option<&ObjectMap>,
    ) -> Self {
        let kind = ErrorKind {
            kind: err.kind.clone(),
            leak: err.leak.map(|l| l.kind),
            param: err.param.clone(),
            fishy: err.fishy.clone(),
        };
        // Valgrind's `src:` lookup indexes the raw IP array with the inline-expanded frame
        // index (§2.5, a bug present in 3.19 and 3.27.1): expanded frame `i` is compared with
        // the location of the `i`-th distinct IP, i.e. the first frame printed for it.
        // Inlined frames repeat their IP; so does recursion from one call site. A frame that
        // repeats its IP group's first frame exactly could be either (a function inlined into
        // itself at the same line, or a recursive call): from there on the raw index of a
        // frame is not known, and `src:` verdicts there are undecided.
        let mut raw_ips: Vec<usize> = Vec::new();
        let mut ambiguous_from = usize::MAX;
        let mut prev_ip = None;
        for (i, f) in err.stack.iter().enumerate() {
            let same_ip = i > 0 && f.ip.is_some() && prev_ip == f.ip;
            prev_ip = f.ip;
            let group_start = raw_ips.last().and_then(|&g| err.stack.get(g));
            let repeats =
                group_start.is_some_and(|g| (g.fun, g.file, g.line) == (f.fun, f.file, f.line));
            if same_ip && repeats {
                ambiguous_from = ambiguous_from.min(raw_ips.len());
            }
            if !same_ip || repeats {
                raw_ips.push(i);
            }
        }
        let src_of = |i: usize| -> Known<SrcInfo> {
            if i >= ambiguous_from {
                return Known::Unknown;
            }
            match raw_ips.get(i).and_then(|&first| err.stack.get(first)) {
                Some(f) => match (f.file, f.line) {
                    (Some(file), Some(line)) => Known::Yes(SrcInfo::At(basename(file), line)),
                    _ => Known::Yes(SrcInfo::None),
                },
                // Beyond the IPs shown: hidden frames, or memory past the recorded stack.
                None => Known::Unknown,
            }
        };
        // Text logs hide the object of a frame with a source line: infer it only when some
        // frame needs it.
        let hidden = err.xml_kind.is_none()
            && err
                .stack
                .iter()
                .any(|f| f.obj.is_none() && f.file.is_some());
        let inferred = match objects {
            Some(map) if hidden => map.infer(&err.stack),
            _ => Vec::new(),
        };
        let obj_of = |i: usize| -> Known<Vec<u8>> {
            match err.stack.get(i) {
                Some(f) => match f.obj {
                    Some(o) => Known::Yes(o.to_vec()),
                    // XML prints the object whenever it is known; text only without line info.
                    None if err.xml_kind.is_some() => Known::Yes(b"???".to_vec()),
                    None if f.file.is_none() => Known::Yes(b"???".to_vec()),
                    None => inferred.get(i).cloned().unwrap_or(Known::Unknown),
                },
                None => Known::Unknown,
            }
        };
        let mut demangled_names = false;
        let frames: Vec<InputFrame> = match &err.suppression {
            Some(block) if !block.frames.is_empty() => {
                let aligned = block.frames.len() == err.stack.len();
                block
                    .frames
                    .iter()
                    .enumerate()
                    .map(|(i, g)| match g {
                        GenFrame::Fun(name) => InputFrame {
                            fun: Known::Yes(name.to_vec()),
                            obj: if aligned { obj_of(i) } else { Known::Unknown },
                            src: if aligned { src_of(i) } else { Known::Unknown },
                        },
                        GenFrame::Obj(path) => InputFrame {
                            fun: Known::Yes(b"???".to_vec()),
                            obj: Known::Yes(if path == b"*" {
                                b"???".to_vec()
                            } else {
                                path.to_vec()
                            }),
                            src: if aligned { src_of(i) } else { Known::Unknown },
                        },
                    })
                    .collect()
            }
            _ => err
                .stack
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let fun = match f.fun {
                        None => Known::Yes(b"???".to_vec()),
                        Some(n) if names_mangled || c_like(n) => Known::Yes(n.to_vec()),
                        Some(n) => {
                            demangled_names = true;
                            // Inlined frames come before the frame of their IP's function.
                            let next_ip = err.stack.get(i + 1).and_then(|g| g.ip);
                            Known::Demangled {
                                shown: n.to_vec(),
                                maybe_inlined: f.ip.is_some() && next_ip == f.ip,
                            }
                        }
                    };
                    InputFrame {
                        fun,
                        obj: obj_of(i),
                        src: src_of(i),
                    }
                })
                .collect(),
        };
        let below_main = match (&err.suppression, err.stack.last()) {
            (Some(block), _) if !block.frames.is_empty() => {
                matches!(
                    block.frames.last(),
                    Some(GenFrame::Fun(b"main" | b"(below main)"))
                )
            }
            (_, Some(f)) => matches!(f.fun, Some(b"main" | b"(below main)")),
            _ => false,
        };
        // Frames after the last one read may be missing, and be anything.
        let open_ended = below_main || err.truncated;
        Self {
            kind,
            frames,
            open_ended,
            hidden_below_main: below_main && !err.truncated,
            demangled_names,
        }
    }
}
