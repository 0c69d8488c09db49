//! What vgsupp reads from a Valgrind log: errors and loss records with their stacks, the
//! `--gen-suppressions` block attached to each, and the run's facts (preamble, suppression
//! files, `used_suppression` counts, summaries). Text and XML readers produce the same
//! items (valgrind-semantics.md §3–§5).
//!
//! Names, paths and strings are bytes: Valgrind prints raw bytes.

pub use super::stack::{Frame, GenFrame, GenFrames, Stack};
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

/// Which format a log is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogFormat {
    /// Valgrind's text output (`==PID==` lines).
    Text,
    /// `--xml=yes` output (protocol 4, 5 or 6).
    Xml,
}

/// The `--gen-suppressions=all` block printed for an error (§3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct GenSuppression {
    /// `Tool:Kind`, e.g. `Memcheck:Leak`.
    pub kind_line: Vec<u8>,
    /// The extra line (`write(buf)`, `match-leak-kinds: definite`, `malloc(size)`), if any.
    pub extra: Option<Vec<u8>>,
    /// The frames, top first.
    pub frames: GenFrames,
}

/// A loss record's facts (`N bytes in M blocks are definitely lost in loss record i of n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LossRecord {
    /// The leak kind.
    pub kind: LeakKind,
    /// Bytes, direct + indirect.
    pub bytes: u64,
    /// Blocks.
    pub blocks: u64,
    /// `i` of "loss record i of n".
    pub index: u64,
    /// `n` of "loss record i of n".
    pub total: u64,
}

/// A secondary stack: aux (`Address … is … alloc'd`, `Block was alloc'd at`) or origin
/// (`Uninitialised value was created by …`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct AuxStack {
    /// The line introducing it, without prefix and leading space.
    pub what: String,
    /// Its frames (may be empty, e.g. `Address 0x… is not stack'd, malloc'd or free'd`).
    pub stack: Stack,
    /// Whether this is the origin of an uninitialised value (`--track-origins=yes`).
    pub origin: bool,
}

/// One error or loss record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorRecord {
    /// 1-based line of the error's first line (text), or of its `<error>` element (XML).
    pub line: u64,
    /// The process that reported it.
    pub pid: Option<u32>,
    /// The tool that reported it (from the preamble or `<protocoltool>`).
    pub tool: Option<Tool>,
    /// The suppression kind that matches it (`Addr4`, `Leak`, `Param`, `Race`,
    /// `ConflictingAccess`, `FdNotClosed`, …); for Memcheck as in `MC_(get_error_name)`.
    pub kind: String,
    /// XML `<kind>` (`InvalidRead`, `Leak_DefinitelyLost`, …), when read from XML.
    pub xml_kind: Option<String>,
    /// The header text (`Invalid read of size 4`) or XML `<what>`/`<xwhat><text>`.
    pub what: String,
    /// Access size for `AddrN`/`ValueN`.
    pub size: Option<u32>,
    /// The `Param` string (`write(buf)`).
    pub param: Option<Vec<u8>>,
    /// `FishyValue` function and argument.
    pub fishy: Option<(Vec<u8>, Vec<u8>)>,
    /// Loss-record facts for leaks.
    pub leak: Option<LossRecord>,
    /// Thread id (XML `<tid>`, text `Thread N:`), when known.
    pub tid: Option<u32>,
    /// The error's stack as printed (top first).
    pub stack: Stack,
    /// Aux and origin stacks, in order.
    pub aux: Vec<AuxStack>,
    /// The `--gen-suppressions` block printed for it, if any.
    pub suppression: Option<GenSuppression>,
    /// XML `<unique>`.
    pub unique: Option<u64>,
    /// Frames of the error's own stack may be missing after the last one read: the log
    /// ended inside the error while that stack was being read (text: no closing `==PID== `
    /// line; XML: no `</stack>`), or an unrelated line, an `exec`, malformed XML or a new
    /// `<error>` cut it there, or one of its frame lines was cut short, or (text) frame
    /// lines followed its blank line. An error cut short after its own stack ended (in an
    /// aux stack, before its suppression block) is kept with `truncated: false`; a warning
    /// says where it was cut either way.
    pub truncated: bool,
    /// The error did not end where Valgrind ends it: the log ended inside it, or an
    /// unrelated line, an `exec`, malformed XML or a new `<error>` cut it short (whether or
    /// not its own stack was complete: see `truncated`).
    pub cut: bool,
    /// Context printed before the error that belongs to it and is never matched: Helgrind's
    /// thread announcements (`---Thread-Announcement---`, `Thread #N was created`; XML
    /// `<announcethread>`) and `Lock at 0x… was first observed` paragraphs, each with its
    /// stack (possibly empty) and its text (the `Address … inside data symbol …` line
    /// after a `\n`). DRD prints none.
    pub context: Vec<AuxStack>,
}

/// A `used_suppression` line (`-v`/`-s` text logs) or a `<suppcounts>` pair (XML).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsedSuppression {
    /// The process.
    pub pid: Option<u32>,
    /// How often it was the first match.
    pub count: u64,
    /// The rule name (raw; may contain spaces, `:` and `#`).
    pub name: Vec<u8>,
    /// The suppression file, as given to `--suppressions` (text 3.9+ only).
    pub file: Option<Vec<u8>>,
    /// The line of the rule's name in that file (text 3.9+ only).
    pub line: Option<u32>,
    /// For leak rules in text logs: ` suppressed: B bytes in K blocks`.
    pub leak: Option<(u64, u64)>,
}

/// `ERROR SUMMARY: E errors from C contexts (suppressed: S from SC)` (or XML 3.26+
/// `<error_summary>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorSummary {
    /// The process.
    pub pid: Option<u32>,
    /// E.
    pub errors: u64,
    /// C.
    pub contexts: u64,
    /// S.
    pub suppressed: u64,
    /// SC.
    pub suppressed_contexts: u64,
}

/// The facts of a process's preamble.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preamble {
    /// The process.
    pub pid: Option<u32>,
    /// Parent PID.
    pub ppid: Option<u32>,
    /// The tool.
    pub tool: Option<Tool>,
    /// Valgrind's version string (`3.19.0`), from `Using Valgrind-3.19.0…`.
    pub valgrind_version: Option<String>,
    /// `Command: …`.
    pub command: Option<String>,
    /// Command-line options to Valgrind, when printed (`-v` text logs, XML `<vargv>`).
    pub options: Vec<String>,
}

/// Something read from a log, in log order.
// Errors are nearly every item a log yields: boxing them would add an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogItem {
    /// A process's preamble (text: once its `Command:` line has been read).
    Preamble(Preamble),
    /// `Reading suppressions file: PATH` (text `-v`) or an XML `--suppressions=` argument.
    SuppressionFile {
        /// The process.
        pid: Option<u32>,
        /// The path as given.
        path: Vec<u8>,
    },
    /// An error or a loss record.
    Error(ErrorRecord),
    /// A used-suppression count.
    Used(UsedSuppression),
    /// An error summary.
    Summary(ErrorSummary),
    /// Valgrind stopped: `FATAL: …`, `valgrind: … Assertion … failed`, or a fatal signal.
    Fatal {
        /// The process.
        pid: Option<u32>,
        /// 1-based line.
        line: u64,
        /// The message.
        message: String,
    },
    /// `Reading syms from PATH` (`-v` text logs): an object was loaded into the process.
    ObjectLoaded {
        /// The process.
        pid: Option<u32>,
        /// The object's path as printed (resolved, absolute).
        path: Vec<u8>,
    },
    /// `Discarding syms at 0xA-0xB in PATH` (`-v` text logs; `Archiving syms at …` with
    /// `--keep-debuginfo=yes`): an object was unloaded; its code (text section) occupied
    /// `start..end` until then.
    ObjectUnloaded {
        /// The process.
        pid: Option<u32>,
        /// The object's path as printed.
        path: Vec<u8>,
        /// First address of its code.
        start: u64,
        /// The address after its code (Valgrind prints the text section's start plus its
        /// size: exclusive).
        end: u64,
    },
    /// How often an error context printed earlier occurred: a text log's `N errors in
    /// context i of C:` entry (`-v`/`-s`), matched to the error it repeats (by header and
    /// frame IPs), or an XML `<errorcounts>` pair. Comes after the summary, once per listed
    /// context; leak contexts are never listed. A forked child also lists the contexts it
    /// inherited from its parent: those entries give no item (the error is its parent's).
    ContextCount {
        /// The process.
        pid: Option<u32>,
        /// Occurrences of the context (N).
        count: u64,
        /// The line of the earlier error that the entry repeats
        /// ([`ErrorRecord::line`]).
        error_line: u64,
    },
    /// A process's output is complete: its last summary was read (the second with
    /// `-s`/`-v`, or the only one when the log says no listing follows), it `exec`ed (a new
    /// preamble with its PID), or the log ended. No more items of this run follow; a later
    /// line of the PID starts a new one. Readers release the process's state here.
    ProcessEnd {
        /// The process.
        pid: Option<u32>,
    },
    /// Something in the log was not understood or stops early (truncated log); never fatal.
    Warning {
        /// 1-based line.
        line: u64,
        /// What happened.
        message: String,
        /// Whether the log misses evidence here, and how: `None` for a warning about
        /// something read (an unknown header, a count that names nothing).
        gap: Option<Gap>,
    },
}

/// How a log misses evidence: what a verdict that needs the whole run (a gate that
/// passes, a rule called stale) must not be made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Gap {
    /// The log stops inside an error, a document or a block: the file was cut.
    Truncated,
    /// The log ends before Valgrind's final summary: the run crashed, was killed, or is
    /// still running.
    Unfinished,
    /// Part of the log is not read: malformed, oversized or binary input, skipped.
    Dropped,
    /// Valgrind itself stopped showing errors (`--error-limit`): later errors are
    /// counted, not shown.
    Capped,
}

impl Gap {
    /// A short name (`truncated`, `unfinished`, `dropped`, `capped`), for reports.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Truncated => "truncated",
            Self::Unfinished => "unfinished",
            Self::Dropped => "dropped",
            Self::Capped => "capped",
        }
    }
}

impl LogItem {
    /// The error or loss record, if this is one.
    #[must_use]
    pub const fn as_error(&self) -> Option<&ErrorRecord> {
        match self {
            Self::Error(e) => Some(e),
            _ => None,
        }
    }

    /// The process the item belongs to (`Some(None)` when the log names none), or `None`
    /// for a warning, which belongs to the log.
    #[must_use]
    pub const fn pid(&self) -> Option<Option<u32>> {
        match self {
            Self::Preamble(p) => Some(p.pid),
            Self::Error(e) => Some(e.pid),
            Self::Used(u) => Some(u.pid),
            Self::Summary(s) => Some(s.pid),
            Self::SuppressionFile { pid, .. }
            | Self::ObjectLoaded { pid, .. }
            | Self::ObjectUnloaded { pid, .. }
            | Self::ContextCount { pid, .. }
            | Self::ProcessEnd { pid }
            | Self::Fatal { pid, .. } => Some(*pid),
            Self::Warning { .. } => None,
        }
    }

    /// How the log misses evidence, if this is a warning that says so.
    #[must_use]
    pub const fn gap(&self) -> Option<Gap> {
        match self {
            Self::Warning { gap, .. } => *gap,
            _ => None,
        }
    }

    /// The line and message, if this is a warning.
    #[must_use]
    pub fn as_warning(&self) -> Option<(u64, &str)> {
        match self {
            Self::Warning { line, message, .. } => Some((*line, message.as_str())),
            _ => None,
        }
    }
}

/// Why a log could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file holds nothing Valgrind writes: no preamble, error, summary or other line
    /// of Valgrind's (a text log's `==PID==`/`--PID--`/`**PID**` lines, an XML log's
    /// `<valgrindoutput>` document), plain or gzip-compressed. Reported at its end: a
    /// text log may begin with any amount of program output.
    #[error("{path}: not a Valgrind log ({})", if *empty { "the file is empty" } else {
        "no Valgrind preamble, error or summary in it: a text log has `==PID==` lines, an XML \
         log a <valgrindoutput> document"
    })]
    NotALog {
        /// The file.
        path: String,
        /// Whether it holds no bytes at all (after decompression).
        empty: bool,
    },
    /// An I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The log.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}
