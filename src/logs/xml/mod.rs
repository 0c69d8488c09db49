//! XML logs: a streaming reader of Valgrind's `--xml=yes` output, protocols 4, 5 and 6
//! (valgrind-semantics.md §3, §4).
//!
//! [`XmlReader`] drives quick-xml's pull parser over any [`BufRead`] and yields
//! [`LogItem`]s in log order. It never builds a tree: memory is bounded by one `<error>`
//! (plus caps on text, events and nesting), whatever the size of the log.
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

use std::collections::VecDeque;
use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::Event;

use super::record::{LogItem, ReadError};
use elements::El;
use source::{Resync, Source};
use state::{Announce, Doc, ErrBuild, FatalBuild};

mod documents;
mod elements;
mod events;
mod kinds;
mod source;
mod state;
#[cfg(test)]
mod tests;

/// Text of one element is cut (with a warning) beyond this many bytes.
const TEXT_CAP: usize = 1 << 20;
/// One XML event (a tag, a text run, a CDATA section) larger than this is refused.
const EVENT_CAP: u64 = 16 << 20;
/// One `<error>` larger than this (in log bytes) is skipped.
const ERROR_CAP: u64 = 64 << 20;
/// Elements nested deeper than this are refused (Valgrind nests at most 5 deep).
const MAX_DEPTH: usize = 64;
/// At most this many warnings are reported per log; then one that says more were dropped.
const MAX_WARNINGS: u64 = 100;
/// Entity name standing for a byte that is not UTF-8 (`&vgsupp-raw-e9;`): Valgrind escapes
/// every `&` it prints, so no Valgrind log contains such a reference.
const RAW_REF: &[u8] = b"vgsupp-raw-";
const NOT_SKIPPING: usize = usize::MAX;
/// The most input bytes taken from the underlying reader at once.
const MAX_CHUNK: usize = 256 << 10;

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
    xml: Option<Reader<Source<R>>>,
    name: String,
    buf: Vec<u8>,
    out: VecDeque<LogItem>,
    failed: Option<ReadError>,
    done: bool,
    resync_pending: bool,
    /// Elements quick-xml has open since it was (re)built: while positive, quick-xml has
    /// checked that an end tag matches its start tag.
    qx_depth: usize,
    stack: Vec<El>,
    skip_from: usize,
    text: Vec<u8>,
    collecting: bool,
    text_truncated: bool,
    other_name: Vec<u8>,
    doc: Option<Doc>,
    err: Option<Box<ErrBuild>>,
    fatal: Option<FatalBuild>,
    announce: Option<Box<Announce>>,
    /// The `<pair>` being read: `<count>`, and `<name>` (`<suppcounts>`) or `<unique>`
    /// (`<errorcounts>`).
    pair: (Option<u64>, Option<Vec<u8>>, Option<u64>),
    summary: [Option<u64>; 4],
    stats: XmlStats,
}

impl<R: BufRead> XmlReader<R> {
    /// A reader of the XML log `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            xml: Some(make_reader(Source::new(reader))),
            name: "<xml log>".to_owned(),
            buf: Vec::with_capacity(4096),
            out: VecDeque::new(),
            failed: None,
            done: false,
            resync_pending: false,
            qx_depth: 0,
            stack: Vec::new(),
            skip_from: NOT_SKIPPING,
            text: Vec::new(),
            collecting: false,
            text_truncated: false,
            other_name: Vec::new(),
            doc: None,
            err: None,
            fatal: None,
            announce: None,
            pair: (None, None, None),
            summary: [None; 4],
            stats: XmlStats::default(),
        }
    }

    /// Names the log in [`ReadError::Io`] (default `<xml log>`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// What has been read so far.
    #[must_use]
    pub const fn stats(&self) -> &XmlStats {
        &self.stats
    }

    // ----- low-level helpers -------------------------------------------------------------

    fn src(&mut self) -> Option<&mut Source<R>> {
        self.xml.as_mut().map(|r| r.get_mut())
    }

    /// The 1-based line of the read position.
    fn line(&mut self) -> u64 {
        self.src().map_or(1, Source::line)
    }

    /// The 1-based line of the last byte read (where a cut log stops).
    fn last_line(&mut self) -> u64 {
        self.src().map_or(1, Source::last_line)
    }

    fn offset(&mut self) -> u64 {
        self.src().map_or(0, |s| s.consumed)
    }

    fn warn(&mut self, line: u64, message: String) {
        self.stats.warnings += 1;
        if self.stats.warnings <= MAX_WARNINGS {
            self.out.push_back(LogItem::Warning { line, message });
        } else if self.stats.warnings == MAX_WARNINGS + 1 {
            self.out.push_back(LogItem::Warning {
                line,
                message: format!("more than {MAX_WARNINGS} warnings: the rest are not shown"),
            });
        }
    }

    /// Malformed XML: warn, drop what is half-read, and resume at the next resync point.
    fn malformed(&mut self, what: &str) {
        let line = self.line();
        let mut message = format!("malformed XML at line {line}: {what}");
        if let Some(err) = self.err.take() {
            let outcome = self.keep_cut_error(err);
            message.push_str(&format!("; the <error> it cuts short: {outcome}"));
        }
        message.push_str("; reading resumes at the next <error> or document");
        self.warn(line, message);
        self.resync_pending = true;
    }

    /// An `<error>` too large to be one: dropped, then as [`Self::malformed`].
    fn oversized_error(&mut self) {
        if let Some(err) = self.err.take() {
            let line = err.rec.line;
            self.warn(
                line,
                format!(
                    "the <error> at line {line} is longer than {} MiB: skipped",
                    ERROR_CAP >> 20
                ),
            );
        }
        self.malformed(&format!("an <error> longer than {} MiB", ERROR_CAP >> 20));
    }

    // ----- the event loop ----------------------------------------------------------------

    fn step(&mut self) {
        if self.resync_pending {
            self.resync();
            return;
        }
        let Some(reader) = self.xml.as_mut() else {
            self.done = true;
            return;
        };
        reader.get_mut().mark();
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                self.qx_depth += 1;
                self.on_start(e.name().as_ref().as_bytes());
            }
            Ok(Event::Empty(e)) => {
                // Not produced with `expand_empty_elements`; handled for completeness.
                self.on_start(e.name().as_ref().as_bytes());
                if !self.resync_pending {
                    self.on_end(e.name().as_ref().as_bytes(), true);
                }
            }
            Ok(Event::End(e)) => {
                let verified = self.qx_depth > 0;
                self.qx_depth = self.qx_depth.saturating_sub(1);
                self.on_end(e.name().as_ref().as_bytes(), verified);
            }
            Ok(Event::Text(t)) => self.on_text(t.as_bytes()),
            Ok(Event::GeneralRef(r)) => self.on_ref(r.as_bytes()),
            Ok(Event::CData(c)) => self.on_cdata(c.as_bytes()),
            Ok(Event::Decl(_)) => self.on_decl(),
            Ok(Event::Comment(_) | Event::PI(_) | Event::DocType(_)) => {}
            Ok(Event::Eof) => self.finish(),
            Err(e) => self.on_xml_error(&e),
        }
        if buf.capacity() > 1 << 20 {
            // Do not keep a buffer sized for one exceptionally large event.
            buf = Vec::with_capacity(4096);
        }
        self.buf = buf;
    }

    fn on_xml_error(&mut self, e: &quick_xml::Error) {
        let Some(src) = self.src() else {
            self.done = true;
            return;
        };
        if let Some(source) = src.inner_error.take() {
            self.failed = Some(ReadError::Io {
                path: self.name.clone(),
                source,
            });
            self.done = true;
        } else if src.oversize {
            src.oversize = false;
            self.malformed(&format!(
                "a tag or text longer than {} MiB",
                EVENT_CAP >> 20
            ));
        } else if src.exhausted() {
            // Cut inside a tag, a comment or a CDATA section.
            self.finish();
        } else {
            self.malformed(&e.to_string());
        }
    }

    /// Skips to the next place where reading can resume, and rebuilds quick-xml there.
    fn resync(&mut self) {
        self.resync_pending = false;
        self.err = None;
        self.fatal = None;
        self.collecting = false;
        self.text.clear();
        self.skip_from = NOT_SKIPPING;
        let Some(reader) = self.xml.take() else {
            self.done = true;
            return;
        };
        let mut src = reader.into_inner();
        let found = src.skip_to_resync_point();
        if let Some(source) = src.inner_error.take() {
            self.failed = Some(ReadError::Io {
                path: self.name.clone(),
                source,
            });
            self.done = true;
            return;
        }
        self.xml = Some(make_reader(src));
        self.qx_depth = 0;
        match found {
            None => self.finish(),
            Some(Resync::Document) => {
                self.close_doc();
                self.stack.clear();
            }
            Some(Resync::InDocument) => {
                if self.doc.is_none() {
                    let line = self.line();
                    self.doc = Some(Doc::implicit(line));
                }
                self.stack.clear();
                self.stack.push(El::Doc);
            }
            Some(Resync::Fragment) => self.begin_fragment(),
        }
    }

    /// Rebuilds quick-xml at the current position (its stack of open elements is emptied).
    fn rebuild(&mut self) {
        if let Some(reader) = self.xml.take() {
            self.xml = Some(make_reader(reader.into_inner()));
        }
        self.qx_depth = 0;
    }

    /// End of input: flush what is pending and say where a cut log stops.
    fn finish(&mut self) {
        self.done = true;
        let line = self.last_line();
        self.ensure_preamble();
        if let Some(err) = self.err.take() {
            let start = err.rec.line;
            let outcome = self.keep_cut_error(err);
            self.warn(
                line,
                format!(
                    "log ends at line {line} inside the <error> that starts at line {start} \
                     (truncated log: Valgrind killed?): {outcome}"
                ),
            );
            self.doc = None;
        }
        if let Some(doc) = self.doc.take() {
            let message = if doc.implicit {
                format!(
                    "log ends at line {line}; what was read from line {} on is not inside a \
                     <valgrindoutput> document",
                    doc.line
                )
            } else {
                format!(
                    "log ends at line {line} before </valgrindoutput> of the document that \
                     starts at line {} (truncated log: Valgrind killed, or still running?)",
                    doc.line
                )
            };
            self.warn(line, message);
        }
        if self.stats.documents == 0 && self.stats.errors == 0 && self.stats.warnings == 0 {
            self.warn(
                line,
                "no <valgrindoutput> element: not a Valgrind XML log, or empty".to_owned(),
            );
        }
    }
}

impl<R: BufRead> Iterator for XmlReader<R> {
    type Item = Result<LogItem, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.out.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return self.failed.take().map(Err);
            }
            self.step();
        }
    }
}

impl<R: BufRead> std::fmt::Debug for XmlReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XmlReader")
            .field("name", &self.name)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

fn make_reader<R: BufRead>(src: Source<R>) -> Reader<Source<R>> {
    let mut reader = Reader::from_reader(src);
    let config = reader.config_mut();
    config.check_end_names = true;
    config.allow_unmatched_ends = true;
    config.expand_empty_elements = true;
    config.allow_dangling_amp = true;
    config.trim_text(false);
    reader
}
