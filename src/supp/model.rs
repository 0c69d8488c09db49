//! The lossless model of a suppression file.
//!
//! Every byte of the source is kept ([`SuppFile::source`]); items refer to it by [`Span`], so a
//! record can be removed or rewritten later without touching any other byte. Names, patterns
//! and paths are bytes: Valgrind does not assume UTF-8 and neither do we.

use crate::supp::lines::PhysLine;

/// A half-open byte range `start..end` into a file's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    #[must_use]
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// Whether the span covers no byte.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// Its length in bytes.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// The span starting where this one starts, `len` bytes long.
    #[must_use]
    pub const fn with_len(&self, len: usize) -> Self {
        Self {
            start: self.start,
            end: self.start + len,
        }
    }

    /// The bytes it covers in `src`.
    #[must_use]
    pub fn slice<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.start..self.end]
    }
}

/// A parsed suppression file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuppFile {
    /// The file's bytes, exactly as read.
    pub source: Vec<u8>,
    /// Top-level items in file order.
    pub items: Vec<Item>,
}

/// A top-level item of a suppression file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A line holding only whitespace.
    Blank(PhysLine),
    /// A comment line (first non-blank character `#`).
    Comment(PhysLine),
    /// A `{ … }` record (possibly malformed or unterminated).
    Record(Record),
    /// A non-blank, non-comment line outside any record: Valgrind refuses it
    /// (`expected '{' or end-of-file`).
    Stray(PhysLine),
}

/// One `{ … }` record with every line it spans, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The lines of the record, from `{` to `}` (or to the end of file when unterminated).
    pub lines: Vec<RecordLine>,
}

/// One line inside a record and the role it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordLine {
    /// The physical line.
    pub line: PhysLine,
    /// What it is.
    pub role: Role,
}

/// The role of a line inside a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// The opening `{`.
    Open,
    /// The name line.
    Name,
    /// The `TOOLS:KIND` line.
    Tool(ToolLine),
    /// The kind-dependent extra line (`Param`, `Leak`, `FishyValue`; Memcheck only).
    Extra(Extra),
    /// A frame line.
    Frame(Frame),
    /// A comment line inside the record.
    Comment,
    /// A blank line inside the record.
    Blank,
    /// The closing `}`.
    Close,
    /// Any other line: a bad location line, or the unvalidated body of a record for another
    /// tool, or lines beyond `--num-callers`.
    Junk,
}

/// The tool/kind line, split at its **first** `:` (§1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolLine {
    /// `TOOLS:KIND`.
    Split {
        /// The comma-separated tool list (may be empty or contain spaces).
        tools: Span,
        /// Everything after the first `:`.
        kind: Span,
    },
    /// A line without any `:` (`malformed 'tool1,tool2,...:supp' line`).
    Malformed,
}

/// The extra line of a Memcheck record (§1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    /// `Param`: the syscall parameter string, compared exactly.
    Param(Span),
    /// `Leak`: a `match-leak-kinds:` line.
    LeakKinds(LeakKindsLine),
    /// `FishyValue`: `FUNC(ARG)`; `None` when `(` or `)` is missing (fatal in Valgrind).
    Fishy(Option<FishyExtra>),
}

/// A `match-leak-kinds:` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeakKindsLine {
    /// The list after `match-leak-kinds:` and any whitespace.
    pub list: Span,
    /// The parsed set; `None` when Valgrind's `VG_(parse_enum_set)` refuses it (or when the
    /// line does not start with exactly `match-leak-kinds:`).
    pub set: Option<LeakKinds>,
}

/// The function and argument of a `FishyValue` extra line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FishyExtra {
    /// Text before the first `(`.
    pub function: Span,
    /// Text between that `(` and the next `)`.
    pub argument: Span,
}

/// A set of Memcheck leak kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LeakKinds {
    /// Bit set over [`LeakKind`].
    pub bits: u8,
    /// Written as `all`.
    pub all: bool,
    /// Written as `none` (never matches anything).
    pub none: bool,
}

/// One Memcheck leak kind (`Reachedness`), ordered worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LeakKind {
    /// "definitely lost".
    Definite,
    /// "indirectly lost".
    Indirect,
    /// "possibly lost".
    Possible,
    /// "still reachable".
    Reachable,
}

impl LeakKind {
    /// All kinds in canonical (severity) order.
    pub const ALL: [Self; 4] = [
        Self::Definite,
        Self::Indirect,
        Self::Possible,
        Self::Reachable,
    ];

    /// The token used in `match-leak-kinds:`.
    #[must_use]
    pub const fn token(self) -> &'static str {
        match self {
            Self::Definite => "definite",
            Self::Indirect => "indirect",
            Self::Possible => "possible",
            Self::Reachable => "reachable",
        }
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl LeakKinds {
    /// Whether the set contains `kind`.
    #[must_use]
    pub const fn contains(&self, kind: LeakKind) -> bool {
        self.bits & kind.bit() != 0
    }

    /// Add `kind`.
    pub const fn insert(&mut self, kind: LeakKind) {
        self.bits |= kind.bit();
    }

    /// Every kind.
    #[must_use]
    pub const fn everything() -> Self {
        Self {
            bits: 0b1111,
            all: false,
            none: false,
        }
    }

    /// The canonical spelling: `all`, `none`, or the kinds in severity order.
    #[must_use]
    pub fn canonical(&self) -> String {
        if self.all {
            return "all".to_owned();
        }
        if self.none {
            return "none".to_owned();
        }
        LeakKind::ALL
            .iter()
            .filter(|k| self.contains(**k))
            .map(|k| k.token())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// A frame line (§1.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// `fun:PATTERN`.
    Fun(Span),
    /// `obj:PATTERN`.
    Obj(Span),
    /// `src:PATTERN[:LINE]`; `line` 0 means any line.
    Src {
        /// The file-name pattern.
        file: Span,
        /// The line, 0 for any (parsed like `VG_(strtoll10)`, stored as an unsigned int).
        line: u32,
    },
    /// `...`.
    Ellipsis,
}

impl Record {
    fn find(&self, pred: impl Fn(&Role) -> bool) -> Option<&RecordLine> {
        self.lines.iter().find(|l| pred(&l.role))
    }

    /// The name line, if present.
    #[must_use]
    pub fn name_line(&self) -> Option<&RecordLine> {
        self.find(|r| matches!(r, Role::Name))
    }

    /// The record's name (trimmed), if present.
    #[must_use]
    pub fn name<'a>(&self, src: &'a [u8]) -> Option<&'a [u8]> {
        self.name_line().map(|l| l.line.text.slice(src))
    }

    /// The tool line, if present.
    #[must_use]
    pub fn tool_line(&self) -> Option<(&RecordLine, ToolLine)> {
        self.lines.iter().find_map(|l| match l.role {
            Role::Tool(t) => Some((l, t)),
            _ => None,
        })
    }

    /// The tool list and the kind, when the tool line has a `:`.
    #[must_use]
    pub fn tools_and_kind<'a>(&self, src: &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
        match self.tool_line()? {
            (_, ToolLine::Split { tools, kind }) => Some((tools.slice(src), kind.slice(src))),
            (_, ToolLine::Malformed) => None,
        }
    }

    /// The extra line, if present.
    #[must_use]
    pub fn extra(&self) -> Option<(&RecordLine, Extra)> {
        self.lines.iter().find_map(|l| match l.role {
            Role::Extra(e) => Some((l, e)),
            _ => None,
        })
    }

    /// The frame lines in order.
    pub fn frames(&self) -> impl Iterator<Item = (&RecordLine, Frame)> {
        self.lines.iter().filter_map(|l| match l.role {
            Role::Frame(f) => Some((l, f)),
            _ => None,
        })
    }

    /// Whether the record ends with `}`.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        matches!(self.lines.last().map(|l| &l.role), Some(Role::Close))
    }

    /// The first physical line (`{`).
    #[must_use]
    pub fn first_line(&self) -> u32 {
        self.lines.first().map_or(0, |l| l.line.number)
    }

    /// The byte span from the start of `{`'s line to the end of the last line.
    #[must_use]
    pub fn span(&self) -> Span {
        match (self.lines.first(), self.lines.last()) {
            (Some(a), Some(b)) => Span::new(a.line.span.start, b.line.span.end),
            _ => Span::default(),
        }
    }
}

impl SuppFile {
    /// The records in file order.
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.items.iter().filter_map(|i| match i {
            Item::Record(r) => Some(r),
            _ => None,
        })
    }
}
