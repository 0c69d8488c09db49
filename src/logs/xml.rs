//! XML logs: a streaming reader of Valgrind's `--xml=yes` output, protocols 4, 5 and 6
//! (valgrind-semantics.md §3, §4).
//!
//! [`XmlReader`] drives quick-xml's pull parser over any [`BufRead`] and yields
//! [`LogItem`]s in log order. It never builds a tree: memory is bounded by one `<error>`
//! (plus caps on text, events and nesting), whatever the size of the log.
//!
//! Real logs are not always well-formed XML, so the reader tolerates:
//! - several `<valgrindoutput>` documents in one file, each with its own `<?xml …?>`;
//! - a document cut anywhere (Valgrind killed, a suppression-file FATAL): everything
//!   complete is returned, then a [`LogItem::Warning`] naming the line where it stops;
//! - bytes that are not UTF-8 (Valgrind prints names and paths as they are): they are kept
//!   byte for byte in the `Vec<u8>` fields (names, paths, suppressions), and replaced by
//!   U+FFFD only in `String` fields (`what`, options);
//! - malformed XML (mismatched tags, garbage, binary): a warning, then reading resumes at the
//!   next `<error>` (or another element that follows errors) or the next document;
//! - the copy of each `<suppression>` that `--gen-suppressions=all` prints again after
//!   `</error>` (§3): only the copy inside the `<error>` is read.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

use memchr::memmem;
use quick_xml::Reader;
use quick_xml::events::Event;

use super::record::{
    AuxStack, ErrorRecord, ErrorSummary, Frame, GenFrame, GenSuppression, LogItem, LossRecord,
    Preamble, ReadError, Stack, UsedSuppression,
};
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

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
    pair: (Option<u64>, Option<Vec<u8>>),
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
            pair: (None, None),
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
            message.push_str(&format!(
                "; the <error> at line {} is skipped",
                err.rec.line
            ));
        }
        message.push_str("; reading resumes at the next <error> or document");
        self.warn(line, message);
        self.resync_pending = true;
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
            self.warn(
                line,
                format!(
                    "log ends at line {line} inside the <error> that starts at line {} \
                     (truncated log: Valgrind killed?); that error is skipped",
                    err.rec.line
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

    // ----- events ------------------------------------------------------------------------

    fn on_decl(&mut self) {
        if !self.stack.is_empty() || self.doc.is_some() {
            self.cut_by_new_document();
            self.rebuild();
        }
    }

    /// A new document starts before the current one ended.
    fn cut_by_new_document(&mut self) {
        let line = self.line();
        self.ensure_preamble();
        if let Some(err) = self.err.take() {
            self.warn(
                err.rec.line,
                format!(
                    "the <error> at line {} is cut by a new document at line {line}; it is \
                     skipped",
                    err.rec.line
                ),
            );
        }
        if let Some(doc) = self.doc.take() {
            self.warn(
                line,
                format!(
                    "the document that starts at line {} is cut at line {line}, where a new \
                     document starts (a truncated log concatenated with another?)",
                    doc.line
                ),
            );
        }
        self.fatal = None;
        self.stack.clear();
        self.skip_from = NOT_SKIPPING;
        self.collecting = false;
    }

    fn on_start(&mut self, name: &[u8]) {
        if self.stack.len() >= MAX_DEPTH {
            self.malformed(&format!("elements nested deeper than {MAX_DEPTH}"));
            return;
        }
        if name == b"valgrindoutput" && !self.stack.is_empty() {
            self.cut_by_new_document();
            self.rebuild();
        } else if name == b"error" && self.err.is_some() {
            self.error_in_error();
        }
        if self.skip_from != NOT_SKIPPING {
            self.stack.push(El::Skip);
            return;
        }
        let el = classify(name);
        if let Some(err) = &self.err {
            let start = err.start;
            if self.offset().saturating_sub(start) > ERROR_CAP {
                self.malformed(&format!("an <error> longer than {} MiB", ERROR_CAP >> 20));
                return;
            }
        }
        let parent = self.stack.last().copied();
        let role = match (parent, el) {
            (None, El::Doc) => {
                self.begin_doc();
                Role::Container
            }
            (None | Some(El::Doc), El::Error) => {
                if parent.is_none() {
                    // An <error> outside any document (a fragment): read it anyway.
                    let line = self.line();
                    self.doc.get_or_insert_with(|| Doc::implicit(line));
                    self.stack.push(El::Doc);
                }
                self.begin_error();
                Role::Container
            }
            (None, _) => {
                let shown = String::from_utf8_lossy(&name[..name.len().min(64)]).into_owned();
                self.malformed(&format!("<{shown}> outside <valgrindoutput>"));
                return;
            }
            (
                Some(El::Doc),
                El::ProtocolVersion | El::ProtocolTool | El::Pid | El::Ppid | El::Tool,
            )
            | (Some(El::Preamble), El::Line)
            | (Some(El::Vargv | El::Argv), El::Exe | El::Arg)
            | (Some(El::Status), El::State)
            | (Some(El::Error), El::Unique | El::Tid | El::Kind | El::What | El::AuxWhat)
            | (Some(El::XWhat), El::Text | El::LeakedBytes | El::LeakedBlocks)
            | (Some(El::XAuxWhat), El::Text)
            | (Some(El::Frame), El::Ip | El::Obj | El::Fn | El::Dir | El::File | El::Line)
            | (Some(El::Suppression), El::SKind | El::SKaux)
            | (Some(El::SFrame), El::Fun | El::Obj)
            | (Some(El::Pair), El::Count | El::Name)
            | (
                Some(El::ErrorSummary),
                El::Errors | El::ErrorContexts | El::Suppressed | El::SuppressedContexts,
            )
            | (Some(El::FatalSignal), El::Tid | El::Signo | El::Signame | El::Event | El::Siaddr) => {
                Role::Leaf
            }
            (Some(El::Doc), El::Preamble | El::Args | El::Status)
            | (Some(El::Args), El::Vargv | El::Argv) => Role::Container,
            (Some(El::Doc), El::SuppCounts | El::ErrorSummary) => {
                self.ensure_preamble();
                self.summary = [None; 4];
                Role::Container
            }
            (Some(El::Doc), El::FatalSignal) => {
                self.ensure_preamble();
                let line = self.line();
                self.fatal = Some(FatalBuild {
                    line,
                    ..FatalBuild::default()
                });
                Role::Container
            }
            (Some(El::Doc), El::Suppression) => {
                self.stats.duplicate_suppressions += 1;
                Role::Skip
            }
            (Some(El::Error), El::XWhat) => Role::Container,
            (Some(El::Error), El::XAuxWhat) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.push_aux(String::new());
                }
                Role::Container
            }
            (Some(El::Error), El::Stack) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.begin_stack(None);
                }
                Role::Container
            }
            (Some(El::ErrOther), El::Stack) => {
                let what = String::from_utf8_lossy(&self.other_name).into_owned();
                if let Some(err) = self.err.as_deref_mut() {
                    err.begin_stack(Some(what));
                }
                Role::Container
            }
            (Some(El::Error), El::Suppression) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.supp = Some(GenSuppression::default());
                }
                Role::Container
            }
            (Some(El::Error), El::Other) => {
                self.other_name.clear();
                self.other_name
                    .extend_from_slice(&name[..name.len().min(256)]);
                Role::ErrOther
            }
            (Some(El::Stack), El::Frame) if self.err.is_some() => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.frame = FrameBuf::default();
                }
                Role::Container
            }
            (Some(El::Suppression), El::SFrame) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.sframe = None;
                }
                Role::Container
            }
            (Some(El::SuppCounts), El::Pair) => {
                self.pair = (None, None);
                Role::Container
            }
            _ => Role::Skip,
        };
        match role {
            Role::Container => self.stack.push(el),
            Role::Leaf => {
                self.stack.push(el);
                self.collecting = true;
                self.text_truncated = false;
                self.text.clear();
            }
            Role::ErrOther => self.stack.push(El::ErrOther),
            Role::Skip => {
                self.skip_from = self.stack.len();
                self.stack.push(El::Skip);
                if FAST_SKIP.contains(&name) {
                    self.fast_skip(name);
                }
            }
        }
    }

    /// Skips the content of a skipped element without tokenizing it, up to its end tag
    /// (which quick-xml then reads). Stops early at a resync point: a new document is then
    /// read as usual, anything else means the element is not closed.
    fn fast_skip(&mut self, name: &[u8]) {
        let Some(src) = self.src() else {
            return;
        };
        if let Some(Resync::InDocument) = src.skip_to_end_tag(name) {
            let shown = String::from_utf8_lossy(name).into_owned();
            self.malformed(&format!("<{shown}> is not closed"));
        }
    }

    /// An `<error>` starts inside another (output of two processes interleaved, or an error
    /// cut short): the outer one is dropped.
    fn error_in_error(&mut self) {
        let line = self.line();
        if let Some(err) = self.err.take() {
            self.warn(
                line,
                format!(
                    "an <error> starts at line {line} inside the <error> at line {}, which is                      skipped (output of several processes interleaved, or cut short?)",
                    err.rec.line
                ),
            );
        }
        self.rebuild();
        self.collecting = false;
        self.skip_from = NOT_SKIPPING;
        self.stack.clear();
        self.stack.push(El::Doc);
    }

    fn on_end(&mut self, name: &[u8], verified: bool) {
        let Some(&top) = self.stack.last() else {
            let shown = String::from_utf8_lossy(&name[..name.len().min(64)]).into_owned();
            self.malformed(&format!("</{shown}> without a start tag"));
            return;
        };
        if !verified && top != El::Skip {
            let el = classify(name);
            let same = el == top || (el == El::Other && top == El::ErrOther);
            if !same {
                let shown = String::from_utf8_lossy(&name[..name.len().min(64)]).into_owned();
                self.malformed(&format!("</{shown}> does not close the open element"));
                return;
            }
        }
        self.stack.pop();
        if self.skip_from != NOT_SKIPPING {
            if self.stack.len() <= self.skip_from {
                self.skip_from = NOT_SKIPPING;
            }
            return;
        }
        if self.collecting {
            self.collecting = false;
            if self.text_truncated {
                let line = self.line();
                self.warn(
                    line,
                    format!(
                        "text of an element ending at line {line} is longer than {} MiB: cut",
                        TEXT_CAP >> 20
                    ),
                );
            }
            self.leaf_end(top);
        } else {
            self.container_end(top);
        }
    }

    fn on_text(&mut self, text: &[u8]) {
        if self.skip_from != NOT_SKIPPING {
            return;
        }
        if self.collecting {
            self.push_text(text);
        } else {
            if !is_blank(text) {
                self.stray_text();
            }
        }
    }

    fn on_ref(&mut self, name: &[u8]) {
        if self.skip_from != NOT_SKIPPING {
            return;
        }
        if !self.collecting {
            self.stray_text();
            return;
        }
        match name {
            b"lt" => self.push_text(b"<"),
            b"gt" => self.push_text(b">"),
            b"amp" => self.push_text(b"&"),
            b"quot" => self.push_text(b"\""),
            b"apos" => self.push_text(b"'"),
            _ => {
                if let Some(b) = raw_ref_byte(name) {
                    self.push_text(&[b]);
                } else if let Some(c) = char_ref(name) {
                    let mut tmp = [0u8; 4];
                    self.push_text(c.encode_utf8(&mut tmp).as_bytes());
                } else {
                    // Unknown entity: keep it as written.
                    self.push_text(b"&");
                    self.push_text(name);
                    self.push_text(b";");
                }
            }
        }
    }

    fn on_cdata(&mut self, data: &[u8]) {
        if self.skip_from != NOT_SKIPPING || !self.collecting {
            return;
        }
        // CDATA content is not parsed for references, so restore raw bytes here.
        let mut rest = data;
        while let Some(i) = memmem::find(rest, b"&vgsupp-raw-") {
            self.push_text(&rest[..i]);
            let tail = &rest[i + 1..];
            match memchr::memchr(b';', tail).and_then(|j| raw_ref_byte(&tail[..j]).map(|b| (j, b)))
            {
                Some((j, b)) => {
                    self.push_text(&[b]);
                    rest = &tail[j + 1..];
                }
                None => {
                    self.push_text(b"&");
                    rest = tail;
                }
            }
        }
        self.push_text(rest);
    }

    fn stray_text(&mut self) {
        match self.stack.last() {
            Some(El::ErrOther) => {}
            None => self.malformed("text outside <valgrindoutput>"),
            Some(el) => {
                let el = *el;
                self.malformed(&format!("unexpected text in <{}>", el.name()));
            }
        }
    }

    fn push_text(&mut self, bytes: &[u8]) {
        let room = TEXT_CAP.saturating_sub(self.text.len());
        if bytes.len() > room {
            self.text.extend_from_slice(&bytes[..room]);
            self.text_truncated = true;
        } else {
            self.text.extend_from_slice(bytes);
        }
    }

    // ----- documents ---------------------------------------------------------------------

    fn begin_doc(&mut self) {
        let line = self.line();
        self.doc = Some(Doc::new(line));
        self.stats.documents += 1;
    }

    /// Emits the pending preamble of the current document and its suppression files.
    fn ensure_preamble(&mut self) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if doc.preamble_sent {
            return;
        }
        doc.preamble_sent = true;
        let pid = doc.pid;
        self.out.push_back(LogItem::Preamble(Preamble {
            pid,
            ppid: doc.ppid,
            tool: doc.tool,
            valgrind_version: doc.version.clone(),
            command: doc.command.take(),
            options: std::mem::take(&mut doc.options),
        }));
        for path in std::mem::take(&mut doc.supp_files) {
            self.out.push_back(LogItem::SuppressionFile { pid, path });
        }
    }

    /// `</valgrindoutput>`.
    fn end_doc(&mut self) {
        self.ensure_preamble();
        let line = self.line();
        if let Some(doc) = self.doc.take()
            && !doc.finished
        {
            let when = if doc.running {
                "before the client finished"
            } else {
                "before the client ran"
            };
            self.warn(
                line,
                format!(
                    "</valgrindoutput> at line {line} without <status> FINISHED: Valgrind \
                     stopped {when} (e.g. a FATAL error in a suppression file; see its stderr)"
                ),
            );
        }
    }

    /// A document abandoned by a resync.
    fn close_doc(&mut self) {
        self.ensure_preamble();
        self.doc = None;
    }

    fn begin_error(&mut self) {
        self.ensure_preamble();
        let line = self.line();
        let start = self.offset();
        let (pid, tool) = self.doc.as_ref().map_or((None, None), |d| (d.pid, d.tool));
        self.err = Some(Box::new(ErrBuild::new(line, start, pid, tool)));
    }

    fn take_text(&mut self) -> Vec<u8> {
        self.text.clone()
    }

    fn leaf_end(&mut self, el: El) {
        let parent = self.stack.last().copied();
        match parent {
            Some(El::Frame) => {
                let text = self.take_text();
                if let Some(err) = self.err.as_deref_mut() {
                    let f = &mut err.frame;
                    match el {
                        El::Ip => f.ip = parse_hex(&text),
                        El::Obj => f.obj = Some(text),
                        El::Fn => f.fun = Some(text),
                        El::Dir => f.dir = Some(text),
                        El::File => f.file = Some(text),
                        El::Line => f.line = parse_num(&text).and_then(|n| u32::try_from(n).ok()),
                        _ => {}
                    }
                }
            }
            Some(El::SFrame) => {
                let text = self.take_text();
                if let Some(err) = self.err.as_deref_mut() {
                    err.sframe = Some((el == El::Obj, text));
                }
            }
            Some(El::Error | El::XWhat | El::XAuxWhat | El::Suppression) => {
                let text = self.take_text();
                if let Some(err) = self.err.as_deref_mut() {
                    err.leaf(parent, el, text);
                }
            }
            Some(El::Doc | El::Preamble | El::Vargv | El::Status) => self.doc_leaf(el),
            Some(El::Pair) => match el {
                El::Count => self.pair.0 = parse_num(&self.text),
                _ => self.pair.1 = Some(self.text.clone()),
            },
            Some(El::ErrorSummary) => {
                let i = match el {
                    El::Errors => 0,
                    El::ErrorContexts => 1,
                    El::Suppressed => 2,
                    _ => 3,
                };
                self.summary[i] = parse_num(&self.text);
            }
            Some(El::FatalSignal) => {
                let text = lossy_trim(&self.text);
                if let Some(f) = self.fatal.as_mut() {
                    match el {
                        El::Tid => f.tid = parse_num(text.as_bytes()),
                        El::Signo => f.signo = Some(text),
                        El::Signame => f.signame = Some(text),
                        El::Event => f.event = Some(text),
                        _ => f.siaddr = Some(text),
                    }
                }
            }
            _ => {}
        }
    }

    fn doc_leaf(&mut self, el: El) {
        let parent = self.stack.last().copied();
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let text = &self.text;
        match (parent, el) {
            (Some(El::Doc), El::ProtocolVersion) => doc.protocol = parse_num(text),
            (Some(El::Doc), El::ProtocolTool) if doc.tool.is_none() => {
                doc.tool = parse_tool(text);
            }
            (Some(El::Doc), El::Tool) => doc.tool = parse_tool(text).or(doc.tool),
            (Some(El::Doc), El::Pid) => doc.pid = parse_num(text).and_then(|n| n.try_into().ok()),
            (Some(El::Doc), El::Ppid) => {
                doc.ppid = parse_num(text).and_then(|n| n.try_into().ok());
            }
            (Some(El::Preamble), El::Line) => {
                if let Some(rest) = find_after(text, b"Using Valgrind-") {
                    let token = rest.split(u8::is_ascii_whitespace).next().unwrap_or(rest);
                    let version = token.split(|&b| b == b'-').next().unwrap_or(token);
                    doc.version = Some(String::from_utf8_lossy(version).into_owned());
                } else if let Some(rest) = text.strip_prefix(b"Command: ") {
                    doc.command = Some(String::from_utf8_lossy(rest).into_owned());
                }
            }
            (Some(El::Vargv), El::Arg) => {
                if let Some(path) = text.strip_prefix(b"--suppressions=") {
                    doc.supp_files.push(path.to_vec());
                }
                doc.options.push(String::from_utf8_lossy(text).into_owned());
            }
            (Some(El::Status), El::State) => {
                doc.state = trim(text).to_vec();
            }
            _ => {}
        }
    }

    fn container_end(&mut self, el: El) {
        match el {
            El::Doc => self.end_doc(),
            El::Status => {
                if let Some(doc) = self.doc.as_mut() {
                    match doc.state.as_slice() {
                        b"RUNNING" => {
                            doc.running = true;
                            self.ensure_preamble();
                        }
                        b"FINISHED" => doc.finished = true,
                        _ => {}
                    }
                }
            }
            El::Error => {
                if let Some(err) = self.err.take() {
                    let new_names = self.doc.as_ref().is_some_and(Doc::names_3_26);
                    let rec = err.finish(new_names);
                    self.stats.errors += 1;
                    if rec.suppression.is_some() {
                        self.stats.suppressions += 1;
                    }
                    self.out.push_back(LogItem::Error(rec));
                }
            }
            El::Frame => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.end_frame();
                }
            }
            El::Stack => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.target = None;
                }
            }
            El::SFrame => {
                if let Some(err) = self.err.as_deref_mut()
                    && let (Some((obj, name)), Some(supp)) = (err.sframe.take(), err.supp.as_mut())
                {
                    let frame = if obj {
                        GenFrame::Obj(&name)
                    } else {
                        GenFrame::Fun(&name)
                    };
                    // Cannot fail: `ERROR_CAP` keeps an error's text far below 4 GiB.
                    let _full = supp.frames.push(frame);
                }
            }
            El::Suppression => {
                if let Some(err) = self.err.as_deref_mut()
                    && let Some(supp) = err.supp.take()
                {
                    err.rec.suppression = Some(supp);
                }
            }
            El::Pair => {
                if let (count, Some(name)) = std::mem::take(&mut self.pair) {
                    let pid = self.doc.as_ref().and_then(|d| d.pid);
                    self.out.push_back(LogItem::Used(UsedSuppression {
                        pid,
                        count: count.unwrap_or(0),
                        name,
                        file: None,
                        line: None,
                        leak: None,
                    }));
                }
            }
            El::ErrorSummary => {
                let [e, c, s, sc] = self.summary;
                let pid = self.doc.as_ref().and_then(|d| d.pid);
                self.out.push_back(LogItem::Summary(ErrorSummary {
                    pid,
                    errors: e.unwrap_or(0),
                    contexts: c.unwrap_or(0),
                    suppressed: s.unwrap_or(0),
                    suppressed_contexts: sc.unwrap_or(0),
                }));
            }
            El::FatalSignal => {
                if let Some(f) = self.fatal.take() {
                    let pid = self.doc.as_ref().and_then(|d| d.pid);
                    self.out.push_back(LogItem::Fatal {
                        pid,
                        line: f.line,
                        message: f.message(),
                    });
                }
            }
            _ => {}
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

// ----- state ---------------------------------------------------------------------------------

/// What the reader knows about the current `<valgrindoutput>` document.
#[derive(Debug, Default)]
struct Doc {
    line: u64,
    pid: Option<u32>,
    ppid: Option<u32>,
    tool: Option<Tool>,
    protocol: Option<u64>,
    version: Option<String>,
    command: Option<String>,
    options: Vec<String>,
    supp_files: Vec<Vec<u8>>,
    state: Vec<u8>,
    preamble_sent: bool,
    running: bool,
    finished: bool,
    /// Made up for errors read outside any document (after a resync, or a fragment).
    implicit: bool,
}

impl Doc {
    fn new(line: u64) -> Self {
        Self {
            line,
            ..Self::default()
        }
    }

    /// A document whose start was not read: it has no preamble.
    fn implicit(line: u64) -> Self {
        Self {
            line,
            preamble_sent: true,
            implicit: true,
            ..Self::default()
        }
    }

    /// Whether Memcheck names kinds as 3.26+ does (`UnsafeZeroSize`).
    fn names_3_26(&self) -> bool {
        let minor = self
            .version
            .as_deref()
            .and_then(|v| v.split('.').nth(1))
            .and_then(|m| m.parse::<u32>().ok());
        match minor {
            Some(m) => m >= 26,
            None => self.protocol.is_some_and(|p| p >= 6),
        }
    }
}

/// Where an error's `<stack>` goes.
#[derive(Debug, Clone, Copy)]
enum Target {
    Main,
    Aux(usize),
}

/// An `<error>` being read.
#[derive(Debug)]
struct ErrBuild {
    rec: ErrorRecord,
    start: u64,
    what: Option<Vec<u8>>,
    leaked_bytes: Option<u64>,
    leaked_blocks: Option<u64>,
    main_seen: bool,
    /// The last aux entry was opened by `<auxwhat>`/`<xauxwhat>` and still waits for its stack.
    aux_open: bool,
    target: Option<Target>,
    frame: FrameBuf,
    supp: Option<GenSuppression>,
    /// The `<sframe>` being read: whether it is an `<obj>`, and its text.
    sframe: Option<(bool, Vec<u8>)>,
}

/// A `<frame>` being read.
#[derive(Debug, Default)]
struct FrameBuf {
    ip: Option<u64>,
    fun: Option<Vec<u8>>,
    obj: Option<Vec<u8>>,
    dir: Option<Vec<u8>>,
    file: Option<Vec<u8>>,
    line: Option<u32>,
}

impl FrameBuf {
    fn as_frame(&self) -> Frame<'_> {
        Frame {
            ip: self.ip,
            fun: self.fun.as_deref(),
            obj: self.obj.as_deref(),
            dir: self.dir.as_deref(),
            file: self.file.as_deref(),
            line: self.line,
        }
    }
}

impl ErrBuild {
    fn new(line: u64, start: u64, pid: Option<u32>, tool: Option<Tool>) -> Self {
        Self {
            rec: ErrorRecord {
                line,
                pid,
                tool,
                ..ErrorRecord::default()
            },
            start,
            what: None,
            leaked_bytes: None,
            leaked_blocks: None,
            main_seen: false,
            aux_open: false,
            target: None,
            frame: FrameBuf::default(),
            supp: None,
            sframe: None,
        }
    }

    fn push_aux(&mut self, what: String) {
        let origin = what.starts_with("Uninitialised value was created");
        self.rec.aux.push(AuxStack {
            what,
            stack: Stack::new(),
            origin,
        });
        self.aux_open = self.main_seen;
    }

    fn begin_stack(&mut self, what: Option<String>) {
        self.target = Some(if let Some(what) = what {
            self.rec.aux.push(AuxStack {
                what,
                ..AuxStack::default()
            });
            self.aux_open = false;
            Target::Aux(self.rec.aux.len() - 1)
        } else if !self.main_seen {
            self.main_seen = true;
            Target::Main
        } else if self.aux_open && !self.rec.aux.is_empty() {
            self.aux_open = false;
            Target::Aux(self.rec.aux.len() - 1)
        } else {
            self.rec.aux.push(AuxStack::default());
            Target::Aux(self.rec.aux.len() - 1)
        });
    }

    fn end_frame(&mut self) {
        let frame = self.frame.as_frame();
        // Pushing cannot fail: `ERROR_CAP` keeps an error's text far below 4 GiB.
        let _full = match self.target {
            Some(Target::Main) => self.rec.stack.push(frame),
            Some(Target::Aux(i)) => match self.rec.aux.get_mut(i) {
                Some(aux) => aux.stack.push(frame),
                None => Ok(()),
            },
            None => Ok(()),
        };
    }

    fn leaf(&mut self, parent: Option<El>, el: El, text: Vec<u8>) {
        match (parent, el) {
            (Some(El::Error), El::Unique) => self.rec.unique = parse_hex(&text),
            (Some(El::Error), El::Tid) => {
                self.rec.tid = parse_num(&text).and_then(|n| n.try_into().ok());
            }
            (Some(El::Error), El::Kind) => {
                self.rec.xml_kind = Some(String::from_utf8_lossy(trim(&text)).into_owned());
            }
            (Some(El::Error), El::What) | (Some(El::XWhat), El::Text) => {
                if self.what.is_none() {
                    self.what = Some(text);
                } else {
                    // A second line of primary description (protocol 4 allows one).
                    self.push_aux(lossy_trim(&text));
                    self.aux_open = false;
                }
            }
            (Some(El::Error), El::AuxWhat) => self.push_aux(lossy_trim(&text)),
            (Some(El::XAuxWhat), El::Text) => {
                if let Some(aux) = self.rec.aux.last_mut() {
                    aux.what = lossy_trim(&text);
                    aux.origin = aux.what.starts_with("Uninitialised value was created");
                }
            }
            (Some(El::XWhat), El::LeakedBytes) => self.leaked_bytes = parse_num(&text),
            (Some(El::XWhat), El::LeakedBlocks) => self.leaked_blocks = parse_num(&text),
            (Some(El::Suppression), El::SKind) => {
                if let Some(s) = self.supp.as_mut() {
                    s.kind_line = text;
                }
            }
            (Some(El::Suppression), El::SKaux) => {
                if let Some(s) = self.supp.as_mut() {
                    s.extra = Some(text);
                }
            }
            _ => {}
        }
    }

    /// Completes the record: the suppression kind and its parameters (`MC_(get_error_name)`).
    fn finish(self, new_names: bool) -> ErrorRecord {
        let mut rec = self.rec;
        let what = self.what.unwrap_or_default();
        rec.what = lossy_trim(&what);
        let xml_kind = rec.xml_kind.clone().unwrap_or_default();
        let extra = rec.suppression.as_ref().and_then(|s| s.extra.as_deref());
        let kind = error_kind(
            &xml_kind,
            &what,
            extra,
            (self.leaked_bytes, self.leaked_blocks),
            new_names,
        );
        rec.size = kind.size;
        rec.param = kind.param;
        rec.fishy = kind.fishy;
        rec.leak = kind.leak;
        rec.kind = kind.name;
        // The generated suppression names the kind exactly as Valgrind's matcher does.
        if let Some(s) = &rec.suppression
            && let Some(colon) = memchr::memchr(b':', &s.kind_line)
        {
            let k = trim(&s.kind_line[colon + 1..]);
            if !k.is_empty() {
                rec.kind = String::from_utf8_lossy(k).into_owned();
            }
        }
        rec
    }
}

#[derive(Debug, Default)]
struct FatalBuild {
    line: u64,
    tid: Option<u64>,
    signo: Option<String>,
    signame: Option<String>,
    event: Option<String>,
    siaddr: Option<String>,
}

impl FatalBuild {
    /// The message as text logs print it.
    fn message(&self) -> String {
        let mut m = String::from("Process terminating with default action of signal");
        if let Some(n) = &self.signo {
            m.push(' ');
            m.push_str(n);
        }
        if let Some(name) = &self.signame {
            m.push_str(&format!(" ({name})"));
        }
        if let Some(event) = &self.event {
            m.push_str(": ");
            m.push_str(event);
            if let Some(addr) = &self.siaddr {
                m.push_str(&format!(" at address {addr}"));
            }
        }
        if let Some(tid) = self.tid {
            m.push_str(&format!(" (thread {tid})"));
        }
        m
    }
}

// ----- kinds -------------------------------------------------------------------------------

/// The suppression kind of an error and the facts that come with it.
#[derive(Debug, Default, PartialEq, Eq)]
struct KindInfo {
    name: String,
    size: Option<u32>,
    param: Option<Vec<u8>>,
    fishy: Option<(Vec<u8>, Vec<u8>)>,
    leak: Option<LossRecord>,
}

/// Maps an XML `<kind>` to the suppression kind, as `MC_(get_error_name)` names Memcheck's;
/// Helgrind's, DRD's and core kinds are their own names. `what` is the raw `<what>` text,
/// `extra` the generated suppression's extra line if any.
fn error_kind(
    xml_kind: &str,
    what: &[u8],
    extra: Option<&[u8]>,
    leaked: (Option<u64>, Option<u64>),
    new_names: bool,
) -> KindInfo {
    let mut info = KindInfo::default();
    let name: String = match xml_kind {
        "InvalidRead" | "InvalidWrite" => {
            info.size = size_after(what, b"of size ");
            info.size
                .map_or_else(|| "Addr".to_owned(), |n| format!("Addr{n}"))
        }
        "UninitValue" => {
            info.size = size_after(what, b"of size ");
            info.size
                .map_or_else(|| "Value".to_owned(), |n| format!("Value{n}"))
        }
        "UninitCondition" => "Cond".to_owned(),
        "SyscallParam" => {
            info.param = syscall_param(what).or_else(|| extra.map(|e| trim(e).to_vec()));
            "Param".to_owned()
        }
        "ClientCheck" => "User".to_owned(),
        "InvalidFree" | "MismatchedFree" => "Free".to_owned(),
        "InvalidJump" => "Jump".to_owned(),
        "Overlap" => "Overlap".to_owned(),
        "InvalidMemPool" => "Mempool".to_owned(),
        "CoreMemError" => "CoreMem".to_owned(),
        "FishyValue" => {
            info.fishy = fishy_value(what).or_else(|| extra.and_then(fishy_extra));
            "FishyValue".to_owned()
        }
        "ReallocSizeZero" => "ReallocZero".to_owned(),
        "InvalidSizeAndAlignment" | "InvalidAlignment" => "BadAlign".to_owned(),
        "InvalidSize" => if new_names {
            "UnsafeZeroSize"
        } else {
            "BadSize"
        }
        .to_owned(),
        "MismatchedAllocateDeallocateSize" => "SizeMismatch".to_owned(),
        "MismatchedAllocateDeallocateAlignment" => "AlignMismatch".to_owned(),
        k if k.starts_with("Leak_") => {
            info.leak = Some(loss_record(k, what, leaked));
            "Leak".to_owned()
        }
        // Helgrind, DRD and core errors: `<kind>` is the suppression kind.
        k => k.to_owned(),
    };
    info.name = name;
    info
}

/// `N` in `… of size N`.
fn size_after(what: &[u8], needle: &[u8]) -> Option<u32> {
    find_after(what, needle)
        .and_then(leading_number)
        .and_then(|n| u32::try_from(n).ok())
}

/// `write(buf)` in `Syscall param write(buf) points to uninitialised byte(s)`.
fn syscall_param(what: &[u8]) -> Option<Vec<u8>> {
    let rest = what.strip_prefix(b"Syscall param ")?;
    let end = [&b" points to "[..], b" contains "]
        .iter()
        .filter_map(|n| memmem::rfind(rest, n))
        .max()?;
    Some(rest[..end].to_vec())
}

/// `(malloc, size)` in `Argument 'size' of function malloc has a fishy (possibly negative)
/// value: -1`.
fn fishy_value(what: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let rest = what.strip_prefix(b"Argument '")?;
    let q = memchr::memchr(b'\'', rest)?;
    let arg = &rest[..q];
    let after = find_after(&rest[q..], b" of function ")?;
    let end = memmem::find(after, b" has a fishy")?;
    Some((after[..end].to_vec(), arg.to_vec()))
}

/// `(malloc, size)` from the extra line `malloc(size)`.
fn fishy_extra(extra: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let open = memchr::memchr(b'(', extra)?;
    let close = open + memchr::memchr(b')', &extra[open..])?;
    Some((
        trim(&extra[..open]).to_vec(),
        extra[open + 1..close].to_vec(),
    ))
}

fn loss_record(kind: &str, what: &[u8], leaked: (Option<u64>, Option<u64>)) -> LossRecord {
    let leak_kind = match kind {
        "Leak_DefinitelyLost" => LeakKind::Definite,
        "Leak_IndirectlyLost" => LeakKind::Indirect,
        "Leak_PossiblyLost" => LeakKind::Possible,
        "Leak_StillReachable" => LeakKind::Reachable,
        _ if memmem::find(what, b"indirectly lost").is_some() => LeakKind::Indirect,
        _ if memmem::find(what, b"possibly lost").is_some() => LeakKind::Possible,
        _ if memmem::find(what, b"still reachable").is_some() => LeakKind::Reachable,
        _ => LeakKind::Definite,
    };
    let bytes = leaked.0.or_else(|| leading_number(what)).unwrap_or(0);
    let blocks = leaked
        .1
        .or_else(|| find_after(what, b" bytes in ").and_then(leading_number))
        .unwrap_or(0);
    let (index, total) = find_after(what, b"loss record ")
        .map(|rest| {
            let index = leading_number(rest);
            let total = find_after(rest, b" of ").and_then(leading_number);
            (index.unwrap_or(0), total.unwrap_or(0))
        })
        .unwrap_or((0, 0));
    LossRecord {
        kind: leak_kind,
        bytes,
        blocks,
        index,
        total,
    }
}

// ----- small parsers -----------------------------------------------------------------------

/// Known element names. Meaning depends on the parent (`<line>` in a frame or a preamble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum El {
    Doc,
    ProtocolVersion,
    ProtocolTool,
    Preamble,
    Line,
    Pid,
    Ppid,
    Tool,
    Args,
    Vargv,
    Argv,
    Exe,
    Arg,
    Status,
    State,
    Error,
    Unique,
    Tid,
    Kind,
    What,
    XWhat,
    Text,
    LeakedBytes,
    LeakedBlocks,
    AuxWhat,
    XAuxWhat,
    Stack,
    Frame,
    Ip,
    Obj,
    Fn,
    Dir,
    File,
    Suppression,
    SKind,
    SKaux,
    SFrame,
    Fun,
    SuppCounts,
    Pair,
    Count,
    Name,
    ErrorSummary,
    Errors,
    ErrorContexts,
    Suppressed,
    SuppressedContexts,
    FatalSignal,
    Signo,
    Signame,
    Event,
    Siaddr,
    /// An element this reader does not use.
    Other,
    /// An unknown element directly in `<error>` (DRD's `<other_segment_start>`): a `<stack>`
    /// in it is an aux stack.
    ErrOther,
    /// Inside a skipped subtree.
    Skip,
}

/// What an element is to the reader.
#[derive(Debug, Clone, Copy)]
enum Role {
    Container,
    Leaf,
    ErrOther,
    Skip,
}

impl El {
    const fn name(self) -> &'static str {
        match self {
            Self::Doc => "valgrindoutput",
            Self::Preamble => "preamble",
            Self::Args => "args",
            Self::Vargv => "vargv",
            Self::Argv => "argv",
            Self::Status => "status",
            Self::Error => "error",
            Self::XWhat => "xwhat",
            Self::XAuxWhat => "xauxwhat",
            Self::Stack => "stack",
            Self::Frame => "frame",
            Self::Suppression => "suppression",
            Self::SFrame => "sframe",
            Self::SuppCounts => "suppcounts",
            Self::Pair => "pair",
            Self::ErrorSummary => "error_summary",
            Self::FatalSignal => "fatal_signal",
            _ => "element",
        }
    }
}

fn classify(name: &[u8]) -> El {
    match name {
        b"frame" => El::Frame,
        b"ip" => El::Ip,
        b"obj" => El::Obj,
        b"fn" => El::Fn,
        b"dir" => El::Dir,
        b"file" => El::File,
        b"line" => El::Line,
        b"stack" => El::Stack,
        b"sframe" => El::SFrame,
        b"fun" => El::Fun,
        b"error" => El::Error,
        b"unique" => El::Unique,
        b"tid" => El::Tid,
        b"kind" => El::Kind,
        b"what" => El::What,
        b"xwhat" => El::XWhat,
        b"text" => El::Text,
        b"leakedbytes" => El::LeakedBytes,
        b"leakedblocks" => El::LeakedBlocks,
        b"auxwhat" => El::AuxWhat,
        b"xauxwhat" => El::XAuxWhat,
        b"suppression" => El::Suppression,
        b"skind" => El::SKind,
        b"skaux" => El::SKaux,
        b"valgrindoutput" => El::Doc,
        b"protocolversion" => El::ProtocolVersion,
        b"protocoltool" => El::ProtocolTool,
        b"preamble" => El::Preamble,
        b"pid" => El::Pid,
        b"ppid" => El::Ppid,
        b"tool" => El::Tool,
        b"args" => El::Args,
        b"vargv" => El::Vargv,
        b"argv" => El::Argv,
        b"exe" => El::Exe,
        b"arg" => El::Arg,
        b"status" => El::Status,
        b"state" => El::State,
        b"suppcounts" => El::SuppCounts,
        b"pair" => El::Pair,
        b"count" => El::Count,
        b"name" => El::Name,
        b"error_summary" => El::ErrorSummary,
        b"errors" => El::Errors,
        b"error_contexts" => El::ErrorContexts,
        b"suppressed" => El::Suppressed,
        b"suppressed_contexts" => El::SuppressedContexts,
        b"fatal_signal" => El::FatalSignal,
        b"signo" => El::Signo,
        b"signame" => El::Signame,
        b"event" => El::Event,
        b"siaddr" => El::Siaddr,
        _ => El::Other,
    }
}

/// Whitespace only, allowing byte-order marks (one may start each document of a
/// concatenation).
fn is_blank(mut text: &[u8]) -> bool {
    const BOM: &[u8] = "\u{feff}".as_bytes();
    loop {
        text = text.trim_ascii_start();
        match text.strip_prefix(BOM) {
            Some(rest) => text = rest,
            None => return text.is_empty(),
        }
    }
}

fn parse_tool(text: &[u8]) -> Option<Tool> {
    std::str::from_utf8(trim(text)).ok()?.parse().ok()
}

fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// The text with invalid UTF-8 replaced and surrounding whitespace removed.
fn lossy_trim(b: &[u8]) -> String {
    String::from_utf8_lossy(trim(b)).into_owned()
}

fn find_after<'a>(hay: &'a [u8], needle: &[u8]) -> Option<&'a [u8]> {
    memmem::find(hay, needle).map(|i| &hay[i + needle.len()..])
}

/// A decimal number, possibly with thousands separators (`1,024`), surrounded by
/// whitespace.
fn parse_num(b: &[u8]) -> Option<u64> {
    let b = trim(b);
    if b.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &c in b {
        match c {
            b'0'..=b'9' => n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?,
            b',' => {}
            _ => return None,
        }
    }
    Some(n)
}

/// The decimal number (with optional `,` separators) at the start of `b`.
fn leading_number(b: &[u8]) -> Option<u64> {
    let b = b.trim_ascii_start();
    let end = b
        .iter()
        .position(|c| !(c.is_ascii_digit() || *c == b','))
        .unwrap_or(b.len());
    if end == 0 || !b[0].is_ascii_digit() {
        return None;
    }
    parse_num(&b[..end])
}

/// `0xHEX` (or plain hex).
fn parse_hex(b: &[u8]) -> Option<u64> {
    let b = trim(b);
    let digits = b
        .strip_prefix(b"0x")
        .or_else(|| b.strip_prefix(b"0X"))
        .unwrap_or(b);
    if digits.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &c in digits {
        let d = char::from(c).to_digit(16)?;
        n = n.checked_mul(16)?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// The byte a `vgsupp-raw-XX` reference stands for.
fn raw_ref_byte(name: &[u8]) -> Option<u8> {
    let hex = name.strip_prefix(RAW_REF)?;
    if hex.len() != 2 {
        return None;
    }
    u8::try_from(parse_hex(hex)?).ok()
}

/// `#NN` / `#xHH` character references.
fn char_ref(name: &[u8]) -> Option<char> {
    let num = name.strip_prefix(b"#")?;
    let n = match num.strip_prefix(b"x") {
        Some(hex) => parse_hex(hex)?,
        None => parse_num(num)?,
    };
    char::from_u32(u32::try_from(n).ok()?).filter(|&c| c != '\0')
}

// ----- the byte source -----------------------------------------------------------------------

/// Where reading resumes after malformed XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resync {
    /// `<valgrindoutput` or `<?xml`.
    Document,
    /// An element that appears directly in a document after errors.
    InDocument,
}

/// Resync points: the bytes after `<`.
const RESYNC_POINTS: [(&[u8], Resync); 9] = [
    (b"error>", Resync::InDocument),
    (b"error ", Resync::InDocument),
    (b"valgrindoutput>", Resync::Document),
    (b"valgrindoutput ", Resync::Document),
    (b"?xml", Resync::Document),
    (b"status>", Resync::InDocument),
    (b"fatal_signal>", Resync::InDocument),
    (b"suppcounts>", Resync::InDocument),
    (b"error_summary>", Resync::InDocument),
];
const RESYNC_LOOKAHEAD: usize = 16;

/// Skipped elements whose content is passed over without tokenizing (they never nest).
const FAST_SKIP: [&[u8]; 5] = [
    b"suppression",
    b"rawtext",
    b"announcethread",
    b"errorcounts",
    b"clientmsg",
];

/// A [`BufRead`] between the log and quick-xml that
/// - replaces each byte that is not UTF-8 by `&vgsupp-raw-XX;` (quick-xml requires UTF-8;
///   the reader turns the reference back into the byte);
/// - counts lines;
/// - refuses an event larger than [`EVENT_CAP`];
/// - finds resync points.
struct Source<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    /// Newlines in `buf[..counted]` are included in `newlines`.
    counted: usize,
    newlines: u64,
    consumed: u64,
    limit: u64,
    /// An incomplete UTF-8 sequence at the end of the last chunk.
    carry: Vec<u8>,
    eof: bool,
    last: u8,
    oversize: bool,
    inner_error: Option<io::Error>,
}

impl<R: BufRead> Source<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(64 * 1024),
            pos: 0,
            counted: 0,
            newlines: 0,
            consumed: 0,
            limit: EVENT_CAP,
            carry: Vec::new(),
            eof: false,
            last: b'\n',
            oversize: false,
            inner_error: None,
        }
    }

    /// Starts a new event: it may read at most [`EVENT_CAP`] bytes.
    fn mark(&mut self) {
        self.limit = self.consumed + EVENT_CAP;
    }

    fn sync_lines(&mut self) {
        if self.pos > self.counted {
            let n = self.buf[self.counted..self.pos]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.newlines += n as u64;
            self.counted = self.pos;
        }
    }

    /// The 1-based line of the read position.
    fn line(&mut self) -> u64 {
        self.sync_lines();
        self.newlines + 1
    }

    /// The 1-based line of the last byte read.
    fn last_line(&mut self) -> u64 {
        self.sync_lines();
        if self.last == b'\n' && self.consumed > 0 {
            self.newlines
        } else {
            self.newlines + 1
        }
    }

    /// All input has been read and consumed.
    fn exhausted(&self) -> bool {
        self.eof && self.pos >= self.buf.len()
    }

    /// Drops consumed bytes from the buffer.
    fn compact(&mut self) {
        self.sync_lines();
        self.buf.drain(..self.pos);
        self.pos = 0;
        self.counted = 0;
    }

    /// Appends the next chunk of input, transcoded. At EOF sets `eof`.
    fn read_more(&mut self) -> io::Result<()> {
        if self.inner_error.is_some() {
            return Err(io::Error::other("input error"));
        }
        let chunk = loop {
            match self.inner.fill_buf() {
                Ok(c) => break c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let msg = e.to_string();
                    self.inner_error = Some(e);
                    return Err(io::Error::other(msg));
                }
            }
        };
        if chunk.is_empty() {
            self.eof = true;
            for b in std::mem::take(&mut self.carry) {
                push_raw_ref(&mut self.buf, b);
            }
            return Ok(());
        }
        let n = chunk.len().min(MAX_CHUNK);
        let chunk = &chunk[..n];
        if self.carry.is_empty() {
            let tail = transcode(&mut self.buf, chunk);
            self.carry.extend_from_slice(&chunk[n - tail..]);
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(chunk);
            let tail = transcode(&mut self.buf, &joined);
            self.carry = joined[joined.len() - tail..].to_vec();
        }
        self.inner.consume(n);
        Ok(())
    }

    fn advance(&mut self, n: usize) {
        if n > 0 {
            self.pos += n;
            self.consumed += n as u64;
            self.last = self.buf[self.pos - 1];
        }
    }

    /// Advances to the next `<` and reads until more than `need` bytes follow it (or end of
    /// file). `None` at end of file or on an I/O error (left in `inner_error`).
    fn seek_tag(&mut self, need: usize) -> Option<()> {
        loop {
            if self.pos >= self.buf.len() {
                if self.eof {
                    return None;
                }
                self.compact();
                self.read_more().ok()?;
                continue;
            }
            let Some(i) = memchr::memchr(b'<', &self.buf[self.pos..]) else {
                self.advance(self.buf.len() - self.pos);
                continue;
            };
            self.advance(i);
            while self.buf.len() - self.pos <= need && !self.eof {
                self.compact();
                self.read_more().ok()?;
            }
            return Some(());
        }
    }

    /// Skips to just before the next resync point; `None` at EOF (or on an I/O error,
    /// left in `inner_error`).
    fn skip_to_resync_point(&mut self) -> Option<Resync> {
        loop {
            self.seek_tag(RESYNC_LOOKAHEAD)?;
            let after = &self.buf[self.pos + 1..];
            if let Some((_, point)) = RESYNC_POINTS.iter().find(|(p, _)| after.starts_with(p)) {
                return Some(*point);
            }
            self.advance(1);
        }
    }

    /// Skips to just before `</name>`; stops early before a resync point, which it
    /// returns. `None` also at EOF and on an I/O error (left in `inner_error`).
    fn skip_to_end_tag(&mut self, name: &[u8]) -> Option<Resync> {
        let need = RESYNC_LOOKAHEAD.max(name.len() + 3);
        loop {
            self.seek_tag(need)?;
            let after = &self.buf[self.pos + 1..];
            if let Some(rest) = after.strip_prefix(b"/")
                && let Some(rest) = rest.strip_prefix(name)
                && rest
                    .first()
                    .is_none_or(|&b| b == b'>' || b.is_ascii_whitespace())
            {
                return None;
            }
            if let Some((_, point)) = RESYNC_POINTS.iter().find(|(p, _)| after.starts_with(p)) {
                return Some(*point);
            }
            self.advance(1);
        }
    }
}

impl<R: BufRead> Read for Source<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let allowed = self.limit.saturating_sub(self.consumed);
        if allowed == 0 {
            self.oversize = true;
            return Err(io::Error::other("event too large"));
        }
        if self.pos >= self.buf.len() {
            self.sync_lines();
            self.buf.clear();
            self.pos = 0;
            self.counted = 0;
            while self.buf.is_empty() && !self.eof {
                self.read_more()?;
            }
        }
        // Hand out no more than the event may still read, so that passing the cap makes
        // quick-xml ask again.
        let end = self.buf.len().min(
            self.pos
                .saturating_add(usize::try_from(allowed).unwrap_or(usize::MAX)),
        );
        Ok(&self.buf[self.pos..end])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.buf.len() - self.pos);
        self.advance(amt);
    }
}

/// Appends `input` to `out`, each byte that is not UTF-8 replaced by a raw reference.
/// Returns the length of an incomplete sequence at the end, which is not appended.
fn transcode(out: &mut Vec<u8>, mut input: &[u8]) -> usize {
    loop {
        match std::str::from_utf8(input) {
            Ok(_) => {
                out.extend_from_slice(input);
                return 0;
            }
            Err(e) => {
                let valid = e.valid_up_to();
                out.extend_from_slice(&input[..valid]);
                match e.error_len() {
                    Some(len) => {
                        for &b in &input[valid..valid + len] {
                            push_raw_ref(out, b);
                        }
                        input = &input[valid + len..];
                    }
                    None => return input.len() - valid,
                }
            }
        }
    }
}

fn push_raw_ref(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'&');
    out.extend_from_slice(RAW_REF);
    out.push(HEX[usize::from(b >> 4)]);
    out.push(HEX[usize::from(b & 15)]);
    out.push(b';');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::record::GenFrames;
    use std::fmt::Write as _;

    fn read(input: &[u8]) -> Vec<LogItem> {
        XmlReader::new(input)
            .map(|r| r.expect("no I/O error"))
            .collect()
    }

    fn errors(items: &[LogItem]) -> Vec<&ErrorRecord> {
        items.iter().filter_map(LogItem::as_error).collect()
    }

    fn warnings(items: &[LogItem]) -> Vec<(u64, &str)> {
        items.iter().filter_map(LogItem::as_warning).collect()
    }

    const HEAD: &str = r#"<?xml version="1.0"?>

<valgrindoutput>

<protocolversion>4</protocolversion>
<protocoltool>memcheck</protocoltool>

<preamble>
  <line>Memcheck, a memory error detector</line>
  <line>Using Valgrind-3.19.0-8d3c8034b8-20220411 and LibVEX; rerun with -h for copyright info</line>
  <line>Command: ./errs arg</line>
</preamble>

<pid>4242</pid>
<ppid>4241</ppid>
<tool>memcheck</tool>

<args>
  <vargv>
    <exe>/usr/bin/valgrind.bin</exe>
    <arg>--xml=yes</arg>
    <arg>--gen-suppressions=all</arg>
    <arg>--suppressions=my &amp; co.supp</arg>
    <arg>--demangle=no</arg>
  </vargv>
  <argv>
    <exe>./errs</exe>
    <arg>arg</arg>
  </argv>
</args>

<status>
  <state>RUNNING</state>
  <time>00:00:00:00.020 </time>
</status>

"#;

    const READ_ERROR: &str = r#"<error>
  <unique>0x1a</unique>
  <tid>1</tid>
  <kind>InvalidRead</kind>
  <what>Invalid read of size 4</what>
  <stack>
    <frame>
      <ip>0x109171</ip>
      <obj>/src/demo/errs</obj>
      <fn>tget&lt;int&gt;</fn>
      <dir>/src/demo</dir>
      <file>errs.c</file>
      <line>11</line>
    </frame>
    <frame>
      <ip>0x1091A0</ip>
      <obj>/src/demo/errs</obj>
      <fn>main</fn>
    </frame>
  </stack>
  <auxwhat>Address 0x4a8c068 is 0 bytes after a block of size 40 alloc'd</auxwhat>
  <stack>
    <frame>
      <ip>0x48437B4</ip>
      <obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj>
      <fn>malloc</fn>
    </frame>
  </stack>
  <suppression>
    <sname>insert_a_suppression_name_here</sname>
    <skind>Memcheck:Addr4</skind>
    <sframe> <fun>tget&lt;int&gt;</fun> </sframe>
    <sframe> <obj>*</obj> </sframe>
    <rawtext>
<![CDATA[
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:tget<int>
   obj:*
}
]]>
    </rawtext>
  </suppression>
</error>

  <suppression>
    <sname>insert_a_suppression_name_here</sname>
    <skind>Memcheck:Addr4</skind>
    <sframe> <fun>tget&lt;int&gt;</fun> </sframe>
    <sframe> <obj>*</obj> </sframe>
    <rawtext>
<![CDATA[
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:tget<int>
   obj:*
}
]]>
    </rawtext>
  </suppression>
"#;

    const LEAK_ERROR: &str = r#"<error>
  <unique>0x2</unique>
  <tid>1</tid>
  <kind>Leak_DefinitelyLost</kind>
  <xwhat>
    <text>1,064 (40 direct, 1,024 indirect) bytes in 1 blocks are definitely lost in loss record 3 of 7</text>
    <leakedbytes>1064</leakedbytes>
    <leakedblocks>1</leakedblocks>
  </xwhat>
  <stack>
    <frame>
      <ip>0x48437B4</ip>
      <obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj>
      <fn>malloc</fn>
    </frame>
  </stack>
</error>

"#;

    const TAIL: &str = r#"<status>
  <state>FINISHED</state>
  <time>00:00:00:00.520 </time>
</status>

<errorcounts>
  <pair>
    <count>1</count>
    <unique>0x1a</unique>
  </pair>
</errorcounts>

<suppcounts>
  <pair>
    <count>3</count>
    <name>rule &lt;1&gt; &amp; more</name>
  </pair>
</suppcounts>

</valgrindoutput>

"#;

    fn doc() -> String {
        format!("{HEAD}{READ_ERROR}{LEAK_ERROR}{TAIL}")
    }

    #[test]
    fn reads_a_memcheck_document() {
        let items = read(doc().as_bytes());
        assert!(warnings(&items).is_empty(), "{items:#?}");
        let LogItem::Preamble(p) = &items[0] else {
            panic!("{items:#?}")
        };
        assert_eq!(p.pid, Some(4242));
        assert_eq!(p.ppid, Some(4241));
        assert_eq!(p.tool, Some(Tool::Memcheck));
        assert_eq!(p.valgrind_version.as_deref(), Some("3.19.0"));
        assert_eq!(p.command.as_deref(), Some("./errs arg"));
        assert_eq!(
            p.options,
            [
                "--xml=yes",
                "--gen-suppressions=all",
                "--suppressions=my & co.supp",
                "--demangle=no"
            ]
        );
        assert_eq!(
            items[1],
            LogItem::SuppressionFile {
                pid: Some(4242),
                path: b"my & co.supp".to_vec()
            }
        );
        let errs = errors(&items);
        assert_eq!(errs.len(), 2);
        let e = errs[0];
        assert_eq!(e.line, 37);
        assert_eq!(e.pid, Some(4242));
        assert_eq!(e.tool, Some(Tool::Memcheck));
        assert_eq!(e.unique, Some(0x1a));
        assert_eq!(e.tid, Some(1));
        assert_eq!(e.kind, "Addr4");
        assert_eq!(e.xml_kind.as_deref(), Some("InvalidRead"));
        assert_eq!(e.what, "Invalid read of size 4");
        assert_eq!(e.size, Some(4));
        assert_eq!(e.stack.len(), 2);
        assert_eq!(
            e.stack.get(0).expect("frame"),
            Frame {
                ip: Some(0x109171),
                fun: Some(&b"tget<int>"[..]),
                obj: Some(&b"/src/demo/errs"[..]),
                dir: Some(&b"/src/demo"[..]),
                file: Some(&b"errs.c"[..]),
                line: Some(11),
            }
        );
        assert_eq!(e.stack.get(1).expect("frame").file, None);
        assert_eq!(e.aux.len(), 1);
        assert_eq!(
            e.aux[0].what,
            "Address 0x4a8c068 is 0 bytes after a block of size 40 alloc'd"
        );
        assert!(!e.aux[0].origin);
        assert_eq!(
            e.aux[0].stack.get(0).expect("frame").fun,
            Some(&b"malloc"[..])
        );
        assert_eq!(
            e.suppression,
            Some(GenSuppression {
                kind_line: b"Memcheck:Addr4".to_vec(),
                extra: None,
                frames: [GenFrame::Fun(b"tget<int>"), GenFrame::Obj(b"*")]
                    .into_iter()
                    .try_fold(GenFrames::new(), |mut g, f| g.push(f).map(|()| g))
                    .expect("fits"),
            })
        );
        let leak = errs[1];
        assert_eq!(leak.kind, "Leak");
        assert_eq!(
            leak.leak,
            Some(LossRecord {
                kind: LeakKind::Definite,
                bytes: 1064,
                blocks: 1,
                index: 3,
                total: 7
            })
        );
        assert_eq!(leak.suppression, None);
        assert_eq!(
            items.last(),
            Some(&LogItem::Used(UsedSuppression {
                pid: Some(4242),
                count: 3,
                name: b"rule <1> & more".to_vec(),
                file: None,
                line: None,
                leak: None,
            }))
        );
        assert_eq!(items.len(), 5);
    }

    #[test]
    fn the_duplicate_suppression_is_counted_once() {
        let input = doc();
        let mut r = XmlReader::new(input.as_bytes());
        let n = r.by_ref().count();
        assert_eq!(n, 5);
        assert_eq!(
            *r.stats(),
            XmlStats {
                documents: 1,
                errors: 2,
                suppressions: 1,
                duplicate_suppressions: 1,
                warnings: 0
            }
        );
    }

    #[test]
    fn kinds_map_like_mc_get_error_name() {
        let k = |xml: &str, what: &str| error_kind(xml, what.as_bytes(), None, (None, None), false);
        assert_eq!(k("InvalidWrite", "Invalid write of size 1").name, "Addr1");
        assert_eq!(k("InvalidRead", "Invalid read of size 32").size, Some(32));
        assert_eq!(
            k("UninitValue", "Use of uninitialised value of size 8").name,
            "Value8"
        );
        assert_eq!(k("UninitCondition", "Conditional jump …").name, "Cond");
        let p = k(
            "SyscallParam",
            "Syscall param write(buf) points to uninitialised byte(s)",
        );
        assert_eq!(
            (p.name.as_str(), p.param.as_deref()),
            ("Param", Some(&b"write(buf)"[..]))
        );
        let p = k(
            "SyscallParam",
            "Syscall param sendmsg(msg.msg_iov[0]) points to unaddressable byte(s)",
        );
        assert_eq!(p.param.as_deref(), Some(&b"sendmsg(msg.msg_iov[0])"[..]));
        let p = k(
            "SyscallParam",
            "Syscall param exit_group(status) contains uninitialised byte(s)",
        );
        assert_eq!(p.param.as_deref(), Some(&b"exit_group(status)"[..]));
        for (xml, name) in [
            ("ClientCheck", "User"),
            ("InvalidFree", "Free"),
            ("MismatchedFree", "Free"),
            ("InvalidJump", "Jump"),
            ("Overlap", "Overlap"),
            ("InvalidMemPool", "Mempool"),
            ("CoreMemError", "CoreMem"),
            ("ReallocSizeZero", "ReallocZero"),
            ("InvalidSizeAndAlignment", "BadAlign"),
            ("InvalidAlignment", "BadAlign"),
            ("InvalidSize", "BadSize"),
            ("MismatchedAllocateDeallocateSize", "SizeMismatch"),
            ("MismatchedAllocateDeallocateAlignment", "AlignMismatch"),
            ("Race", "Race"),
            ("UnlockBogus", "UnlockBogus"),
            ("ConflictingAccess", "ConflictingAccess"),
            ("FdNotClosed", "FdNotClosed"),
        ] {
            assert_eq!(k(xml, "").name, name, "{xml}");
        }
        let new = error_kind("InvalidSize", b"", None, (None, None), true);
        assert_eq!(new.name, "UnsafeZeroSize");
        let f = k(
            "FishyValue",
            "Argument 'size' of function malloc has a fishy (possibly negative) value: -1",
        );
        assert_eq!(f.fishy, Some((b"malloc".to_vec(), b"size".to_vec())));
        let f = error_kind(
            "FishyValue",
            b"?",
            Some(b"calloc(nmemb)"),
            (None, None),
            false,
        );
        assert_eq!(f.fishy, Some((b"calloc".to_vec(), b"nmemb".to_vec())));
        let l = k(
            "Leak_StillReachable",
            "1,024 bytes in 2 blocks are still reachable in loss record 12 of 3,456",
        );
        assert_eq!(
            l.leak,
            Some(LossRecord {
                kind: LeakKind::Reachable,
                bytes: 1024,
                blocks: 2,
                index: 12,
                total: 3456
            })
        );
        let l = k(
            "Leak_IndirectlyLost",
            "8 bytes in 1 blocks are indirectly lost in new loss record 2 of 9",
        );
        assert_eq!(
            l.leak.map(|r| (r.kind, r.index)),
            Some((LeakKind::Indirect, 2))
        );
    }

    #[test]
    fn the_generated_kind_wins() {
        let input = format!(
            "{HEAD}<error><unique>0x1</unique><tid>1</tid><kind>InvalidSize</kind>\
             <what>x</what><stack><frame><ip>0x1</ip></frame></stack><suppression>\
             <sname>n</sname><skind>Memcheck:UnsafeZeroSize</skind><sframe><obj>*</obj>\
             </sframe></suppression></error>{TAIL}"
        );
        let items = read(input.as_bytes());
        assert_eq!(errors(&items)[0].kind, "UnsafeZeroSize");
    }

    #[test]
    fn raw_bytes_survive() {
        let mut input = format!("{HEAD}<error><unique>0x1</unique><tid>1</tid>").into_bytes();
        input.extend_from_slice(
            b"<kind>InvalidRead</kind><what>Invalid read of size 4 in caf\xe9</what><stack>\
              <frame><ip>0x1</ip><obj>/tmp/caf\xe9/x</obj><fn>f\xff\xfe&amp;\xe9</fn>\
              <dir>/tmp/caf\xc3\xa9</dir><file>\xe9.c</file><line>3</line></frame></stack>\
              <suppression><sname>n</sname><skind>Memcheck:Addr4</skind>\
              <sframe><fun>f\xff\xfe&amp;\xe9</fun></sframe><rawtext><![CDATA[\xe9]]></rawtext>\
              </suppression></error>",
        );
        input.extend_from_slice(TAIL.as_bytes());
        let items = read(&input);
        assert!(warnings(&items).is_empty(), "{items:#?}");
        let e = errors(&items)[0];
        let f = &e.stack.get(0).expect("frame");
        assert_eq!(f.obj, Some(&b"/tmp/caf\xe9/x"[..]));
        assert_eq!(f.fun, Some(&b"f\xff\xfe&\xe9"[..]));
        assert_eq!(f.dir, Some("/tmp/café".as_bytes()));
        assert_eq!(f.file, Some(&b"\xe9.c"[..]));
        assert_eq!(e.what, "Invalid read of size 4 in caf\u{fffd}");
        assert_eq!(
            e.suppression.as_ref().map(|s| s.frames.to_vec()),
            Some(vec![GenFrame::Fun(b"f\xff\xfe&\xe9")])
        );
    }

    /// Hands out its input `n` bytes at a time, to split tokens and UTF-8 sequences.
    struct Chunked<'a> {
        data: &'a [u8],
        n: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.n.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let mut input = doc().into_bytes();
        let at = memmem::find(&input, b"<fn>main").expect("fn main") + 4;
        input.splice(at..at, b"caf\xc3\xa9\xe9\xe9".iter().copied());
        let whole = read(&input);
        for n in [1, 2, 3, 7, 64] {
            let chunked = io::BufReader::with_capacity(n, Chunked { data: &input, n });
            let items: Vec<_> = XmlReader::new(chunked).map(Result::unwrap).collect();
            assert_eq!(items, whole, "chunks of {n}");
        }
        let e = errors(&whole)[0];
        assert_eq!(
            e.stack.get(1).expect("frame").fun,
            Some(&b"caf\xc3\xa9\xe9\xe9main"[..])
        );
    }

    #[test]
    fn concatenated_documents() {
        let second = doc().replace("<pid>4242</pid>", "<pid>77</pid>");
        let input = format!("{}{second}", doc());
        let items = read(input.as_bytes());
        assert!(warnings(&items).is_empty(), "{items:#?}");
        let pids: Vec<_> = errors(&items).iter().map(|e| e.pid).collect();
        assert_eq!(pids, [Some(4242), Some(4242), Some(77), Some(77)]);
        let preambles = items
            .iter()
            .filter(|i| matches!(i, LogItem::Preamble(_)))
            .count();
        assert_eq!(preambles, 2);
        let lines: Vec<_> = errors(&items).iter().map(|e| e.line).collect();
        let offset = doc().lines().count() as u64;
        assert_eq!(lines, [37, 99, 37 + offset, 99 + offset]);
    }

    #[test]
    fn error_lines_are_those_of_the_start_tags() {
        let input = doc();
        let expected: Vec<u64> = input
            .lines()
            .enumerate()
            .filter(|(_, l)| *l == "<error>")
            .map(|(i, _)| i as u64 + 1)
            .collect();
        let items = read(input.as_bytes());
        let lines: Vec<_> = errors(&items).iter().map(|e| e.line).collect();
        assert_eq!(lines, expected);
    }

    #[test]
    fn byte_order_marks_between_documents() {
        let input = format!("\u{feff}{}\u{feff}{}", doc(), doc());
        let items = read(input.as_bytes());
        assert!(warnings(&items).is_empty(), "{items:#?}");
        assert_eq!(errors(&items).len(), 4);
    }

    #[test]
    fn cut_inside_an_error() {
        let full = doc();
        let cut = &full[..full.find("<leakedbytes>").expect("leak")];
        let items = read(cut.as_bytes());
        assert_eq!(errors(&items).len(), 1);
        let w = warnings(&items);
        assert_eq!(w.len(), 1, "{items:#?}");
        let last = cut.lines().count() as u64;
        assert_eq!(w[0].0, last);
        assert!(
            w[0].1.contains("inside the <error> that starts at line 99"),
            "{}",
            w[0].1
        );
        assert!(matches!(items.last(), Some(LogItem::Warning { .. })));
    }

    #[test]
    fn cut_anywhere_never_panics_and_warns() {
        let full = doc();
        let bytes = full.as_bytes();
        for end in (0..bytes.len()).step_by(7) {
            let items = read(&bytes[..end]);
            let complete = memmem::find_iter(&bytes[..end], b"</error>").count();
            assert_eq!(errors(&items).len(), complete, "cut at {end}");
            assert!(!warnings(&items).is_empty(), "cut at {end}: {items:#?}");
        }
    }

    #[test]
    fn cut_inside_a_tag() {
        let full = doc();
        let cut = &full[..full.find("<leakedbytes>").expect("leak") + 5];
        let items = read(cut.as_bytes());
        assert_eq!(errors(&items).len(), 1);
        assert_eq!(warnings(&items).len(), 1);
    }

    #[test]
    fn cut_then_another_document() {
        let full = doc();
        let cut = &full[..full.find("<leakedbytes>").expect("leak") + 5];
        let input = format!("{cut}{full}");
        let items = read(input.as_bytes());
        assert_eq!(errors(&items).len(), 3, "{items:#?}");
        let w = warnings(&items);
        assert_eq!(w.len(), 2, "{w:#?}");
        assert!(w[0].1.contains("<error> at line 99 is cut"), "{}", w[0].1);
        // The cut tag swallows the `<?xml …?>`: the cut shows where `<valgrindoutput>` starts.
        assert_eq!(w[1].0, cut.lines().count() as u64 + 2);
        // Cut between tags, and in the duplicate suppression.
        for marker in ["<leakedbytes>", "  <suppression>\n    <sname>"] {
            let at = full.rfind(marker).expect("marker");
            let input = format!("{}{full}", &full[..at]);
            let items = read(input.as_bytes());
            assert_eq!(errors(&items).len(), 3, "{marker}");
            assert!(!warnings(&items).is_empty());
            let docs = items
                .iter()
                .filter(|i| matches!(i, LogItem::Preamble(_)))
                .count();
            assert_eq!(docs, 2);
        }
    }

    #[test]
    fn a_document_stopped_by_a_fatal_error() {
        let input = format!("{HEAD}</valgrindoutput>");
        let items = read(input.as_bytes());
        assert!(matches!(items[0], LogItem::Preamble(_)));
        assert!(matches!(items[1], LogItem::SuppressionFile { .. }));
        let w = warnings(&items);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, HEAD.lines().count() as u64 + 1);
        assert!(w[0].1.contains("without <status> FINISHED"), "{}", w[0].1);
    }

    #[test]
    fn mismatched_tags_skip_to_the_next_error() {
        let bad = READ_ERROR.replace("<file>errs.c</file>", "<file>errs.c</fn>");
        let input = format!("{HEAD}{bad}{LEAK_ERROR}{TAIL}");
        let items = read(input.as_bytes());
        let errs = errors(&items);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].kind, "Leak");
        let w = warnings(&items);
        assert_eq!(w.len(), 1, "{w:#?}");
        assert!(
            w[0].1.contains("the <error> at line 37 is skipped"),
            "{}",
            w[0].1
        );
        assert!(matches!(items.last(), Some(LogItem::Used(_))));
    }

    #[test]
    fn an_error_inside_an_error() {
        let cut = &READ_ERROR[..READ_ERROR.find("<line>11").expect("line")];
        let input = format!("{HEAD}{cut}{READ_ERROR}{LEAK_ERROR}{TAIL}");
        let items = read(input.as_bytes());
        assert_eq!(errors(&items).len(), 2, "{items:#?}");
        let w = warnings(&items);
        assert_eq!(w.len(), 1, "{w:#?}");
        assert!(
            w[0].1.contains("inside the <error> at line 37"),
            "{}",
            w[0].1
        );
        assert!(matches!(items.last(), Some(LogItem::Used(_))));
        // Also from inside a skipped element.
        let cut = &READ_ERROR[..READ_ERROR.find("<sname>").expect("sname") + 9];
        let input = format!("{HEAD}{cut}{READ_ERROR}{LEAK_ERROR}{TAIL}");
        let items = read(input.as_bytes());
        assert_eq!(errors(&items).len(), 2, "{items:#?}");
        assert_eq!(warnings(&items).len(), 1);
    }

    #[test]
    fn a_fragment_without_document() {
        let items = read(format!("{READ_ERROR}{LEAK_ERROR}").as_bytes());
        assert_eq!(errors(&items).len(), 2);
        assert!(!items.iter().any(|i| matches!(i, LogItem::Preamble(_))));
        let w = warnings(&items);
        assert_eq!(w.len(), 1, "{w:#?}");
        assert!(
            w[0].1.contains("not inside a <valgrindoutput>"),
            "{}",
            w[0].1
        );
    }

    #[test]
    fn garbage_between_errors() {
        let mut input = format!("{HEAD}{READ_ERROR}").into_bytes();
        input.extend_from_slice(b"==123== some stderr line\n\x00\x01\xff<<</ >\x7f<!x ]]>\n");
        input.extend_from_slice(format!("{LEAK_ERROR}{TAIL}").as_bytes());
        let items = read(&input);
        assert_eq!(errors(&items).len(), 2, "{items:#?}");
        assert_eq!(warnings(&items).len(), 1, "{items:#?}");
        assert!(matches!(items.last(), Some(LogItem::Used(_))));
    }

    #[test]
    fn binary_input_is_not_a_log() {
        let input: Vec<u8> = (0..20_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let items = read(&input);
        assert!(errors(&items).is_empty());
        assert!(!warnings(&items).is_empty());
        assert!(
            read(b"")
                .iter()
                .all(|i| matches!(i, LogItem::Warning { .. }))
        );
        assert_eq!(read(b"").len(), 1);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut input = format!("{HEAD}<error><unique>0x1</unique>");
        input.push_str(&"<a>".repeat(100_000));
        input.push_str(&"</a>".repeat(100_000));
        input.push_str(&format!("</error>{LEAK_ERROR}{TAIL}"));
        let items = read(input.as_bytes());
        assert_eq!(errors(&items).len(), 1);
        let w = warnings(&items);
        assert!(w[0].1.contains("nested deeper"), "{w:#?}");
    }

    #[test]
    fn huge_text_is_cut_or_skipped() {
        let big = "x".repeat(TEXT_CAP + 10);
        let input = READ_ERROR.replace("<fn>main</fn>", &format!("<fn>{big}</fn>"));
        let items = read(format!("{HEAD}{input}{TAIL}").as_bytes());
        let e = errors(&items)[0];
        assert_eq!(
            e.stack.get(1).expect("frame").fun.map(<[u8]>::len),
            Some(TEXT_CAP)
        );
        assert_eq!(warnings(&items).len(), 1, "{:#?}", warnings(&items));

        // The cap is checked per chunk read, so it may be passed by up to one chunk.
        let huge = "y".repeat(usize::try_from(EVENT_CAP).expect("fits") + (1 << 20));
        let input = READ_ERROR.replace("<fn>main</fn>", &format!("<fn>{huge}</fn>"));
        let items = read(format!("{HEAD}{input}{LEAK_ERROR}{TAIL}").as_bytes());
        let errs = errors(&items);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].kind, "Leak");
        let w = warnings(&items);
        assert!(w[0].1.contains("longer than 16 MiB"), "{w:#?}");
    }

    #[test]
    fn protocol_6_summaries() {
        let input = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>6</protocolversion>
<protocoltool>memcheck</protocoltool>
<preamble>
  <line>Using Valgrind-3.26.0 and LibVEX; rerun with -h for copyright info</line>
</preamble>
<pid>9</pid>
<ppid>1</ppid>
<tool>memcheck</tool>
<status><state>RUNNING</state><time>00:00:00:00.020 </time></status>
<error>
  <unique>0x0</unique>
  <tid>1</tid>
  <kind>ReallocSizeZero</kind>
  <what>realloc() with size 0</what>
  <stack><frame><ip>0x1</ip></frame></stack>
</error>
<error>
  <unique>0x1</unique>
  <tid>1</tid>
  <kind>InvalidSize</kind>
  <what>Unsafe allocation with size of zero is implementation-defined</what>
  <stack><frame><ip>0x1</ip></frame></stack>
</error>
<status><state>FINISHED</state><time>00:00:00:00.120 </time></status>
<heap_summary>
  <memory_in_use_at_exit><bytes>1,024</bytes><blocks>5</blocks></memory_in_use_at_exit>
  <total_heap_usage><allocs>5</allocs><frees>0</frees><bytes_allocated>1,720</bytes_allocated></total_heap_usage>
</heap_summary>
<all_heap_blocks_freed>false</all_heap_blocks_freed>
<leak_summary>
  <definitely_lost><bytes>48</bytes><in_blocks>3</in_blocks></definitely_lost>
  <suppressed><bytes>0</bytes><in_blocks>0</in_blocks></suppressed>
</leak_summary>
<errorcounts>
</errorcounts>
<suppcounts>
</suppcounts>
<error_summary>
 <errors>1,234</errors>
 <error_contexts>2</error_contexts>
 <suppressed>3</suppressed>
 <suppressed_contexts>3</suppressed_contexts>
</error_summary>
</valgrindoutput>
"#;
        let items = read(input.as_bytes());
        assert!(warnings(&items).is_empty(), "{items:#?}");
        let kinds: Vec<_> = errors(&items).iter().map(|e| e.kind.clone()).collect();
        assert_eq!(kinds, ["ReallocZero", "UnsafeZeroSize"]);
        assert_eq!(
            items.last(),
            Some(&LogItem::Summary(ErrorSummary {
                pid: Some(9),
                errors: 1234,
                contexts: 2,
                suppressed: 3,
                suppressed_contexts: 3
            }))
        );
    }

    #[test]
    fn helgrind_and_drd_errors() {
        let hg = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>4</protocolversion>
<protocoltool>helgrind</protocoltool>
<pid>5</pid><ppid>1</ppid><tool>helgrind</tool>
<status><state>RUNNING</state></status>
<announcethread><hthreadid>2</hthreadid><stack><frame><ip>0x1</ip></frame></stack></announcethread>
<error>
  <unique>0x0</unique>
  <tid>2</tid>
  <kind>Race</kind>
  <xwhat><text>Possible data race during read of size 4 at 0x10C060 by thread #3</text><hthreadid>3</hthreadid></xwhat>
  <stack><frame><ip>0x2</ip><fn>worker</fn></frame></stack>
  <xauxwhat><text>This conflicts with a previous write of size 4 by thread #2</text><hthreadid>2</hthreadid></xauxwhat>
  <stack><frame><ip>0x3</ip><fn>worker</fn></frame></stack>
  <auxwhat>Address 0x10c060 is 0 bytes inside data symbol "counter"</auxwhat>
</error>
<error>
  <unique>0x4</unique>
  <tid>2</tid>
  <kind>ConflictingAccess</kind>
  <what>Conflicting load by thread 3 at 0x0010c060 size 4</what>
  <stack><frame><ip>0x2</ip></frame></stack>
  <auxwhat>Allocation context: BSS section of /tmp/race</auxwhat>
  <other_segment_start><stack><frame><ip>0x9</ip></frame></stack></other_segment_start>
  <other_segment_end></other_segment_end>
</error>
<clientmsg><tid>1</tid><text>hello</text></clientmsg>
<fatal_signal>
  <tid>1</tid>
  <signo>11</signo>
  <signame>SIGSEGV</signame>
  <sicode>2</sicode>
  <event>Bad permissions for mapped region</event>
  <siaddr>0x1234</siaddr>
  <stack><frame><ip>0x1234</ip></frame></stack>
</fatal_signal>
<status><state>FINISHED</state></status>
</valgrindoutput>
"#;
        let items = read(hg.as_bytes());
        assert!(warnings(&items).is_empty(), "{items:#?}");
        let errs = errors(&items);
        assert_eq!(errs[0].kind, "Race");
        assert_eq!(errs[0].tool, Some(Tool::Helgrind));
        assert_eq!(
            errs[0].what,
            "Possible data race during read of size 4 at 0x10C060 by thread #3"
        );
        let aux: Vec<_> = errs[0]
            .aux
            .iter()
            .map(|a| (a.what.as_str(), a.stack.len()))
            .collect();
        assert_eq!(
            aux,
            [
                (
                    "This conflicts with a previous write of size 4 by thread #2",
                    1
                ),
                (
                    "Address 0x10c060 is 0 bytes inside data symbol \"counter\"",
                    0
                )
            ]
        );
        assert_eq!(errs[1].kind, "ConflictingAccess");
        let aux: Vec<_> = errs[1]
            .aux
            .iter()
            .map(|a| (a.what.as_str(), a.stack.len()))
            .collect();
        assert_eq!(
            aux,
            [
                ("Allocation context: BSS section of /tmp/race", 0),
                ("other_segment_start", 1)
            ]
        );
        let fatal = items.iter().find_map(|i| match i {
            LogItem::Fatal { pid, line, message } => Some((*pid, *line, message.as_str())),
            _ => None,
        });
        assert_eq!(
            fatal,
            Some((
                Some(5),
                29,
                "Process terminating with default action of signal 11 (SIGSEGV): Bad \
                 permissions for mapped region at address 0x1234 (thread 1)"
            ))
        );
    }

    #[test]
    fn origins_are_marked() {
        let input = READ_ERROR.replace(
            "Address 0x4a8c068 is 0 bytes after a block of size 40 alloc'd",
            "Uninitialised value was created by a heap allocation",
        );
        let items = read(format!("{HEAD}{input}{TAIL}").as_bytes());
        assert!(errors(&items)[0].aux[0].origin);
    }

    #[test]
    fn an_io_error_ends_the_iteration() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let d = doc();
                let d = d.as_bytes();
                if self.0 >= 600 {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = out.len().min(600 - self.0);
                out[..n].copy_from_slice(&d[self.0..self.0 + n]);
                self.0 += n;
                Ok(n)
            }
        }
        let items: Vec<_> = XmlReader::new(io::BufReader::new(Failing(0)))
            .with_name("log.xml")
            .collect();
        let last = items.last().expect("items");
        let Err(ReadError::Io { path, source }) = last else {
            panic!("{items:?}")
        };
        assert_eq!(path, "log.xml");
        assert_eq!(source.to_string(), "disk on fire");
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_num(b" 1,024 "), Some(1024));
        assert_eq!(parse_num(b"x"), None);
        assert_eq!(parse_num(b""), None);
        assert_eq!(parse_num(b"99999999999999999999999"), None);
        assert_eq!(parse_hex(b"0x1A"), Some(26));
        assert_eq!(parse_hex(b"0x"), None);
        assert_eq!(leading_number(b"12 bytes"), Some(12));
        assert_eq!(char_ref(b"#x41"), Some('A'));
        assert_eq!(char_ref(b"#65"), Some('A'));
        assert_eq!(char_ref(b"#0"), None);
        assert_eq!(raw_ref_byte(b"vgsupp-raw-e9"), Some(0xe9));
    }

    #[test]
    fn many_warnings_are_capped() {
        let mut input = String::from(HEAD);
        for _ in 0..300 {
            let _ = writeln!(input, "{}junk", READ_ERROR.replace("</fn>", "</fx>"));
        }
        let items = read(input.as_bytes());
        assert_eq!(
            warnings(&items).len(),
            usize::try_from(MAX_WARNINGS).expect("fits") + 1
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Random edits of a valid log never panic, and every error returned is complete.
        #[test]
        fn mutated_logs_never_panic(
            edits in proptest::collection::vec((0usize..4000, proptest::prelude::any::<u8>()), 1..12),
            cut in 0usize..5000,
        ) {
            let mut input = doc().into_bytes();
            for (at, b) in edits {
                let at = at % input.len();
                match b % 3 {
                    0 => input[at] = b,
                    1 => { input.remove(at); }
                    _ => input.insert(at, b),
                }
            }
            input.truncate(cut.max(1));
            let n = XmlReader::new(&input[..]).count();
            proptest::prop_assert!(n > 0);
        }
    }
}
