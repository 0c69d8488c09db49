//! XML logs: a streaming reader of Valgrind's `--xml=yes` output, protocols 4, 5 and 6
//! (valgrind-semantics.md §3, §4).
//!
//! [`XmlReader`] tokenizes any [`BufRead`] (`lexer`: tags, text, references, CDATA) and
//! yields [`LogItem`]s in log order (`reader`: the event loop; `events` and `documents`: what
//! each element does; `fast`: frames read in one go). It never builds a tree: memory is
//! bounded by one `<error>` (plus caps on text, tokens and nesting), whatever the size of
//! the log.
//!
//! Besides errors, preambles and summaries, it reads Helgrind's `<announcethread>`s (the
//! [`ErrorRecord::context`](super::record::ErrorRecord::context) of the next `<error>`,
//! worded as the text log words them) and `<errorcounts>` (a [`LogItem::ContextCount`] per
//! pair, with the line of the non-leak `<error>` of its `<unique>`).
//!
//! Real logs are not always well-formed XML, so the reader tolerates:
//! - several `<valgrindoutput>` documents in one file, each with its own `<?xml …?>`;
//! - a document cut anywhere (Valgrind killed, a suppression-file FATAL): everything
//!   complete is returned, then a [`LogItem::Warning`] naming the line where it stops. An
//!   `<error>` cut short (there, by malformed XML, or by a new document or `<error>`) is
//!   kept when its `<kind>` and a frame of its own `<stack>` were read, marked
//!   `truncated` when that `<stack>` had not ended;
//! - an excerpt that starts inside an `<error>` (at `<kind>` or `<unique>`, maybe after a
//!   Markdown fence): read as that error;
//! - bytes that are not UTF-8 (Valgrind prints names and paths as they are): they are kept
//!   byte for byte in the `Vec<u8>` fields (names, paths, suppressions), and replaced by
//!   U+FFFD only in `String` fields (`what`, options);
//! - malformed XML (mismatched tags, garbage, binary): a warning, then reading resumes at the
//!   next `<error>` (or another element that follows errors) or the next document;
//! - the copy of each `<suppression>` that `--gen-suppressions=all` prints again after
//!   `</error>` (§3): only the copy inside the `<error>` is read.

use std::io::BufRead;

use super::record::{LogItem, ReadError};
use lexer::BufInput;
use reader::{Core, Flow};

mod documents;
mod elements;
mod events;
mod fast;
mod kinds;
mod lexer;
#[cfg(unix)]
pub mod parallel;
mod reader;
mod resume;
mod resync;
mod state;
#[cfg(test)]
mod tests;

/// Text of one element is cut (with a warning) beyond this many bytes.
const TEXT_CAP: usize = 1 << 20;
/// One XML token (a tag, a text run, a CDATA section) larger than this is refused.
const EVENT_CAP: u64 = 16 << 20;
/// One `<error>` larger than this (in log bytes) is skipped.
const ERROR_CAP: u64 = 64 << 20;
/// Elements nested deeper than this are refused (Valgrind nests at most 5 deep).
const MAX_DEPTH: usize = 64;
/// At most this many warnings are reported per log; then one that says more were dropped.
const MAX_WARNINGS: u64 = 100;
const NOT_SKIPPING: usize = usize::MAX;

/// Counters kept while reading, for cross-checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XmlStats {
    /// `<valgrindoutput>` documents started.
    pub documents: u64,
    /// `<error>` elements returned as [`LogItem::Error`].
    pub errors: u64,
    /// `<suppression>` elements inside `<error>`s.
    pub suppressions: u64,
    /// Top-level `<suppression>` elements (the `--gen-suppressions=all` duplicates), skipped.
    pub duplicate_suppressions: u64,
    /// Warnings produced (including any not returned beyond the cap).
    pub warnings: u64,
}

/// A streaming reader of Valgrind XML logs: an iterator of [`LogItem`]s.
///
/// Problems in the log are [`LogItem::Warning`]s; only an I/O error of the underlying
/// reader is an `Err`, after which the iterator ends.
pub struct XmlReader<R: BufRead> {
    core: Core,
    input: BufInput<R>,
}

impl<R: BufRead> XmlReader<R> {
    /// A reader of the XML log `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            core: Core::new("<xml log>"),
            input: BufInput(reader),
        }
    }

    /// Names the log in [`ReadError::Io`] (default `<xml log>`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.core.b.name = name.into();
        self
    }

    /// Reads every frame token by token, as the reader does for frames it cannot read in
    /// one go (for tests that compare both).
    #[doc(hidden)]
    #[must_use]
    pub fn token_by_token(mut self) -> Self {
        self.core.fast = false;
        self
    }

    /// What has been read so far.
    #[must_use]
    pub const fn stats(&self) -> &XmlStats {
        &self.core.b.stats
    }
}

impl<R: BufRead> Iterator for XmlReader<R> {
    type Item = Result<LogItem, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.core.b.out.pop_front() {
                return Some(Ok(item));
            }
            if self.core.step(&mut self.input) == Flow::Done && self.core.b.out.is_empty() {
                return self.core.b.failed.take().map(Err);
            }
        }
    }
}

impl<R: BufRead> std::fmt::Debug for XmlReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XmlReader")
            .field("name", &self.core.b.name)
            .field("stats", &self.core.b.stats)
            .finish_non_exhaustive()
    }
}
