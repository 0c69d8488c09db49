//! Rules as Valgrind holds them after loading, and the kind check that runs before the stack
//! check (valgrind-semantics.md §1.5, §2.6).

use crate::matcher::input::ErrorKind;
use crate::matcher::wildcard::Glob;
use crate::supp::kinds::Tool;
use crate::supp::loader::{LoadedExtra, LoadedRecord};
use crate::supp::model::{Frame, LeakKinds, Span};

/// A compiled frame pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// `fun:`.
    Fun(Glob),
    /// `obj:`.
    Obj(Glob),
    /// `src:FILE[:LINE]` (line 0: any).
    Src(Glob, u32),
    /// `...`.
    Ellipsis,
}

/// The extra data a rule compares.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleExtra {
    /// None.
    None,
    /// `Param` string (exact).
    Param(Vec<u8>),
    /// Leak kinds.
    Leak(LeakKinds),
    /// `FishyValue` function and argument (exact); `None`: Valgrind crashes comparing it.
    Fishy(Option<(Vec<u8>, Vec<u8>)>),
}

/// One loaded rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Index of its file in the rule set.
    pub file: usize,
    /// Which record of its file it is ([`LoadedRecord::index`]).
    pub record: u32,
    /// The record's bytes in its file.
    pub span: Span,
    /// Its name.
    pub name: Vec<u8>,
    /// The line of its name (what `used_suppression` prints).
    pub line: u32,
    /// The tool it was loaded for.
    pub tool: Tool,
    /// The kind text.
    pub kind: Vec<u8>,
    /// Extra data.
    pub extra: RuleExtra,
    /// Frames after `--num-callers` truncation.
    pub frames: Vec<Pattern>,
}

impl Rule {
    /// Compile a loaded record of `src`.
    #[must_use]
    pub fn from_loaded(file: usize, tool: Tool, rec: &LoadedRecord, src: &[u8]) -> Self {
        let b = |s: Span| s.slice(src).to_vec();
        let extra = match rec.extra {
            LoadedExtra::None => RuleExtra::None,
            LoadedExtra::Param(s) => RuleExtra::Param(b(s)),
            LoadedExtra::Leak(k) => RuleExtra::Leak(k),
            LoadedExtra::Fishy(f) => RuleExtra::Fishy(f.map(|f| (b(f.function), b(f.argument)))),
        };
        let frames = rec
            .frames
            .iter()
            .map(|f| match *f {
                Frame::Fun(s) => Pattern::Fun(Glob::new(s.slice(src))),
                Frame::Obj(s) => Pattern::Obj(Glob::new(s.slice(src))),
                Frame::Src { file, line } => Pattern::Src(Glob::new(file.slice(src)), line),
                Frame::Ellipsis => Pattern::Ellipsis,
            })
            .collect();
        Self {
            file,
            record: rec.index,
            span: rec.span,
            name: b(rec.name),
            line: rec.name_line,
            tool,
            kind: b(rec.kind),
            extra,
            frames,
        }
    }

    /// The tool-specific kind check (`supp_matches_error`).
    #[must_use]
    pub fn kind_matches(&self, err: &ErrorKind) -> bool {
        let e = err.kind.as_bytes();
        match self.tool {
            Tool::Memcheck => memcheck_kind_matches(&self.kind, &self.extra, e, err),
            Tool::Helgrind => self.kind != b"FreeMemLock" && self.kind == e,
            Tool::Drd => self.kind == e,
        }
    }
}

fn memcheck_kind_matches(rule: &[u8], extra: &RuleExtra, e: &[u8], err: &ErrorKind) -> bool {
    match rule {
        // `Value0` is an alias of `Cond`; sizes are part of the kind name.
        b"Cond" | b"Value0" => e == b"Cond",
        b"Param" => {
            e == b"Param" && matches!((extra, &err.param), (RuleExtra::Param(p), Some(q)) if p == q)
        }
        b"Leak" => match (extra, err.leak) {
            (RuleExtra::Leak(set), Some(k)) => e == b"Leak" && set.contains(k),
            _ => false,
        },
        b"FishyValue" => {
            e == b"FishyValue"
                && matches!((extra, &err.fishy), (RuleExtra::Fishy(Some(a)), Some(b)) if a == b)
        }
        // Accepted but never matches (§1.5).
        b"CoreMem" => false,
        // Renamed in 3.26; the old name is still accepted.
        b"BadSize" | b"UnsafeZeroSize" => e == b"BadSize" || e == b"UnsafeZeroSize",
        _ => rule == e,
    }
}
