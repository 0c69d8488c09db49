//! The reader's state and its event loop: tokens from the [`Lexer`] turned into items by
//! the [`Builder`] (the handlers are in `events` and `documents`).

use std::collections::VecDeque;
use std::io;

use super::elements::El;
use super::lexer::{Input, Lexer, Tok};
use super::resync::{FAST_SKIP, Resync, Skipped};
use super::state::{Announce, Doc, ErrBuild, FatalBuild};
use super::{ERROR_CAP, EVENT_CAP, MAX_WARNINGS, NOT_SKIPPING, XmlStats};
use crate::logs::record::{Gap, LogItem, ReadError};

/// What the reader knows and builds: everything but the bytes.
#[derive(Debug)]
pub(crate) struct Builder {
    pub(super) name: String,
    pub(super) out: VecDeque<LogItem>,
    pub(super) failed: Option<ReadError>,
    pub(super) done: bool,
    pub(super) resync_pending: bool,
    /// The content of `FAST_SKIP[i]` is to be skipped next.
    pub(super) skip_request: Option<usize>,
    /// The names of the elements open since the tokenizer was last (re)started, as
    /// quick-xml kept them: while there are any, an end tag must close the last one.
    pub(super) open: Vec<u8>,
    pub(super) open_starts: Vec<usize>,
    /// The tokenizer was (re)started: a byte-order mark where it goes on is skipped.
    pub(super) fresh: bool,
    pub(super) stack: Vec<El>,
    pub(super) skip_from: usize,
    pub(super) text: Vec<u8>,
    pub(super) collecting: bool,
    pub(super) text_truncated: bool,
    pub(super) other_name: Vec<u8>,
    pub(super) doc: Option<Doc>,
    pub(super) err: Option<Box<ErrBuild>>,
    pub(super) fatal: Option<FatalBuild>,
    pub(super) announce: Option<Box<Announce>>,
    pub(super) pair: Pair,
    pub(super) summary: [Option<u64>; 4],
    pub(super) stats: XmlStats,
    /// Parallel reading: an `<errorcounts>` pair looked for a `<unique>` this reader did
    /// not see, in a guessed document (`resume`).
    pub(super) consulted_guess: bool,
    /// Parallel reading: `<unique>`s this reader added to a guessed document.
    pub(super) guess_uniques: usize,
    /// The kinds of gap warned about so far (each is given past the warnings' cap).
    pub(super) gaps_seen: Vec<Gap>,
}

/// The `<pair>` being read: `<count>`, and `<name>` (`<suppcounts>`) or `<unique>`
/// (`<errorcounts>`).
pub(super) type Pair = (Option<u64>, Option<Vec<u8>>, Option<u64>);

/// What [`Core::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// It read on; call again.
    More,
    /// The input paused (see [`Input::is_final`]).
    Paused,
    /// The log ended, or an I/O error stopped reading.
    Done,
}

/// The reader: tokenizer and builder.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) lex: Lexer,
    pub(crate) b: Builder,
    /// Frames are read by `fast` where they can be (tests turn it off to compare).
    pub(crate) fast: bool,
}

impl Core {
    /// A reader of the log named `name` from its start.
    pub(crate) fn new(name: &str) -> Self {
        Self {
            lex: Lexer::new(0, 0),
            b: Builder::new(name),
            fast: true,
        }
    }

    /// Reads one token (or does one skip).
    pub(crate) fn step(&mut self, input: &mut dyn Input) -> Flow {
        let (lex, b) = (&mut self.lex, &mut self.b);
        if b.done {
            return Flow::Done;
        }
        if b.resync_pending {
            return self.resync(input);
        }
        if let Some(skip) = b.skip_request.take() {
            match lex.skip_to_end_tag(input, skip) {
                Ok(Skipped::At(Resync::InDocument | Resync::Fragment)) => {
                    let shown = String::from_utf8_lossy(FAST_SKIP[skip]).into_owned();
                    b.malformed(lex, &format!("<{shown}> is not closed"));
                }
                Ok(Skipped::InputEnd) if !input.is_final() => {
                    b.skip_request = Some(skip);
                    return Flow::Paused;
                }
                Ok(_) => {}
                Err(e) => b.io_failed(e),
            }
            return Flow::More;
        }
        let fresh = std::mem::take(&mut b.fresh);
        let tok = match lex.next(input, fresh) {
            Ok(tok) => tok,
            Err(e) => {
                b.io_failed(e);
                return Flow::Done;
            }
        };
        let bytes = lex.bytes();
        match tok {
            Tok::Start { name, empty } => {
                let name = &bytes[name];
                b.open_starts.push(b.open.len());
                b.open.extend_from_slice(name);
                b.on_start(lex, name);
                if !empty && self.fast && (name == b"frame" || name == b"sframe") {
                    let sframe = name.len() == 6;
                    self.fast_frame(sframe);
                    return if self.b.done { Flow::Done } else { Flow::More };
                }
                if empty {
                    // quick-xml's expanded empty element: its end follows, unless reading
                    // resyncs or starts over first.
                    b.skip_request = None;
                    if !b.resync_pending && !b.fresh {
                        if let Some(start) = b.open_starts.pop() {
                            b.open.truncate(start);
                        }
                        b.on_end(lex, name, true);
                    }
                }
            }
            Tok::End { name } => {
                let name = &bytes[name];
                let verified = match b.open_starts.pop() {
                    Some(start) => {
                        if b.open[start..] != *name {
                            let expected = String::from_utf8_lossy(&b.open[start..]).into_owned();
                            b.open.truncate(start);
                            let found = String::from_utf8_lossy(name).into_owned();
                            b.malformed(
                                lex,
                                &format!(
                                    "ill-formed document: expected `</{expected}>`, but \
                                     `</{found}>` was found"
                                ),
                            );
                            return Flow::More;
                        }
                        b.open.truncate(start);
                        true
                    }
                    None => false,
                };
                b.on_end(lex, name, verified);
            }
            Tok::Text(r) => b.on_text(lex, &bytes[r]),
            Tok::Ref(r) => b.on_ref(lex, &bytes[r]),
            Tok::CData(r) => b.on_cdata(&bytes[r]),
            Tok::Decl => b.on_decl(lex),
            Tok::Other => {}
            Tok::Bad(what) => b.malformed(lex, &format!("syntax error: {what}")),
            Tok::Oversize => b.malformed(
                lex,
                &format!("a tag or text longer than {} MiB", EVENT_CAP >> 20),
            ),
            Tok::Eof => b.finish(lex),
            Tok::Pause => return Flow::Paused,
        }
        if b.done { Flow::Done } else { Flow::More }
    }

    /// Skips to the next place where reading can resume, and restarts the tokenizer there.
    fn resync(&mut self, input: &mut dyn Input) -> Flow {
        let (lex, b) = (&mut self.lex, &mut self.b);
        b.resync_pending = false;
        b.err = None;
        b.fatal = None;
        b.collecting = false;
        b.text.clear();
        b.skip_from = NOT_SKIPPING;
        b.skip_request = None;
        let found = match lex.skip_to_resync_point(input) {
            Ok(found) => found,
            Err(e) => {
                b.io_failed(e);
                return Flow::Done;
            }
        };
        match found {
            Skipped::InputEnd if !input.is_final() => {
                b.resync_pending = true;
                return Flow::Paused;
            }
            Skipped::InputEnd | Skipped::EndTag => {
                b.rebuild();
                b.finish(lex);
            }
            Skipped::At(Resync::Document) => {
                b.rebuild();
                b.close_doc();
                b.stack.clear();
            }
            Skipped::At(Resync::InDocument) => {
                b.rebuild();
                if b.doc.is_none() {
                    let line = lex.line();
                    b.doc = Some(Doc::implicit(line));
                }
                b.stack.clear();
                b.stack.push(El::Doc);
            }
            Skipped::At(Resync::Fragment) => {
                b.rebuild();
                b.begin_fragment(lex);
            }
        }
        if b.done { Flow::Done } else { Flow::More }
    }
}

impl Builder {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            out: VecDeque::new(),
            failed: None,
            done: false,
            resync_pending: false,
            skip_request: None,
            open: Vec::new(),
            open_starts: Vec::new(),
            fresh: true,
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
            consulted_guess: false,
            guess_uniques: 0,
            gaps_seen: Vec::new(),
        }
    }

    /// An I/O error of the input: reading stops (what is pending is not flushed).
    pub(super) fn io_failed(&mut self, source: io::Error) {
        self.failed = Some(ReadError::Io {
            path: self.name.clone(),
            source,
        });
        self.done = true;
    }

    pub(super) fn warn(&mut self, line: u64, message: String) {
        self.stats.warnings += 1;
        if self.stats.warnings <= MAX_WARNINGS {
            self.out.push_back(LogItem::Warning {
                line,
                message,
                gap: None,
            });
        } else if self.stats.warnings == MAX_WARNINGS + 1 {
            self.out.push_back(LogItem::Warning {
                line,
                message: format!("more than {MAX_WARNINGS} warnings: the rest are not shown"),
                gap: None,
            });
        }
    }

    /// A warning that says the log misses evidence here. The first of each kind of gap
    /// is always given, past the cap on warnings: a reader of the items must learn that
    /// evidence is missing.
    pub(super) fn warn_gap(&mut self, line: u64, gap: Gap, message: String) {
        self.stats.warnings += 1;
        let first = !self.gaps_seen.contains(&gap);
        if self.stats.warnings <= MAX_WARNINGS || first {
            if first {
                self.gaps_seen.push(gap);
            }
            self.out.push_back(LogItem::Warning {
                line,
                message,
                gap: Some(gap),
            });
        }
    }

    /// Malformed XML: warn, drop what is half-read, and resume at the next resync point.
    pub(super) fn malformed(&mut self, lex: &Lexer, what: &str) {
        let line = lex.line();
        let mut message = format!("malformed XML at line {line}: {what}");
        if let Some(err) = self.err.take() {
            let outcome = self.keep_cut_error(err);
            message.push_str(&format!("; the <error> it cuts short: {outcome}"));
        }
        message.push_str("; reading resumes at the next <error> or document");
        self.warn_gap(line, Gap::Dropped, message);
        self.resync_pending = true;
    }

    /// An `<error>` too large to be one: dropped, then as [`Self::malformed`].
    pub(super) fn oversized_error(&mut self, lex: &Lexer) {
        if let Some(err) = self.err.take() {
            let line = err.rec.line;
            self.warn_gap(
                line,
                Gap::Dropped,
                format!(
                    "the <error> at line {line} is longer than {} MiB: skipped",
                    ERROR_CAP >> 20
                ),
            );
        }
        self.malformed(
            lex,
            &format!("an <error> longer than {} MiB", ERROR_CAP >> 20),
        );
    }

    /// The tokenizer starts over here: it no longer knows the open elements.
    pub(super) fn rebuild(&mut self) {
        self.open.clear();
        self.open_starts.clear();
        self.fresh = true;
    }

    /// End of input: flush what is pending and say where a cut log stops.
    pub(super) fn finish(&mut self, lex: &Lexer) {
        self.done = true;
        let line = lex.last_line();
        self.ensure_preamble();
        if let Some(err) = self.err.take() {
            let start = err.rec.line;
            let outcome = self.keep_cut_error(err);
            self.warn_gap(
                line,
                Gap::Truncated,
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
            self.warn_gap(line, Gap::Truncated, message);
        }
        if self.stats.documents == 0 && self.stats.errors == 0 && self.stats.warnings == 0 {
            self.warn(
                line,
                "no <valgrindoutput> element: not a Valgrind XML log, or empty".to_owned(),
            );
        }
    }
}
