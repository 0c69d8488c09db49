//! Documents, errors and the elements between them: what completed elements emit.

use super::elements::{El, parse_tool};
use super::lexer::Lexer;
use super::reader::Builder;
use super::state::{Doc, ErrBuild, FrameText, MAX_UNIQUES};
use crate::logs::bytes::{after, hex_number, lossy_trim, parse_num, trim};
use crate::logs::record::{
    ErrorRecord, ErrorSummary, Gap, GenFrame, LogItem, Preamble, UsedSuppression,
};

/// Announcements kept for the next `<error>`; older ones give way.
const MAX_CONTEXT: usize = 64;

impl Builder {
    /// An `<errorcounts>` pair: the `<error>` of that `<unique>` occurred `count` times.
    fn error_count(&mut self, lex: &Lexer, count: u64, unique: u64) {
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        let pid = doc.pid;
        let full = doc.uniques_full;
        let found = doc.by_unique.get(&unique).copied();
        if found.is_none() && doc.guessed {
            self.consulted_guess = true;
        }
        match found {
            Some(error_line) => self.out.push_back(LogItem::ContextCount {
                pid,
                count,
                error_line,
            }),
            None => {
                let line = lex.line();
                let why = if full {
                    "not among those remembered"
                } else {
                    "not in this document (cut short, or an excerpt?)"
                };
                self.warn(
                    line,
                    format!(
                        "<errorcounts> counts {count} for <unique>{unique:#x}, whose <error> is \
                         {why}: not used"
                    ),
                );
            }
        }
    }

    pub(super) fn begin_doc(&mut self, lex: &Lexer) {
        let line = lex.line();
        self.doc = Some(Doc::new(line));
        self.stats.documents += 1;
    }

    /// Emits the pending preamble of the current document and its suppression files.
    pub(super) fn ensure_preamble(&mut self) {
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
    pub(super) fn end_doc(&mut self, lex: &Lexer) {
        self.ensure_preamble();
        let line = lex.line();
        if let Some(doc) = self.doc.take()
            && !doc.finished
        {
            let when = if doc.running {
                "before the client finished"
            } else {
                "before the client ran"
            };
            self.warn_gap(
                line,
                Gap::Unfinished,
                format!(
                    "</valgrindoutput> at line {line} without <status> FINISHED: Valgrind \
                     stopped {when} (e.g. a FATAL error in a suppression file; see its stderr)"
                ),
            );
        }
    }

    /// A document abandoned by a resync.
    pub(super) fn close_doc(&mut self) {
        self.ensure_preamble();
        self.doc = None;
    }

    pub(super) fn begin_error(&mut self, lex: &Lexer) {
        self.ensure_preamble();
        let line = lex.line();
        let start = lex.offset();
        let (pid, tool) = self.doc.as_ref().map_or((None, None), |d| (d.pid, d.tool));
        let mut err = Box::new(ErrBuild::new(line, start, pid, tool));
        if let Some(doc) = self.doc.as_mut() {
            err.rec.context = std::mem::take(&mut doc.context);
        }
        self.err = Some(err);
    }

    /// Emits an `<error>` that ended, remembering where a non-leak one is for
    /// `<errorcounts>`.
    fn emit_error(&mut self, rec: ErrorRecord) {
        self.stats.errors += 1;
        if rec.suppression.is_some() {
            self.stats.suppressions += 1;
        }
        if rec.leak.is_none()
            && let Some(unique) = rec.unique
            && let Some(doc) = self.doc.as_mut()
        {
            if doc.by_unique.len() < MAX_UNIQUES {
                doc.by_unique.insert(unique, rec.line);
                if doc.guessed {
                    self.guess_uniques += 1;
                }
            } else if !doc.uniques_full {
                doc.uniques_full = true;
                let line = rec.line;
                self.warn(
                    line,
                    format!(
                        "more than {MAX_UNIQUES} errors in this document: later ones are not \
                         remembered for <errorcounts>"
                    ),
                );
            }
        }
        self.out.push_back(LogItem::Error(rec));
    }

    /// An `<error>` cut short (the log ends, malformed XML, a new document or error starts
    /// inside it): kept when its `<kind>` and a frame of its own stack were read, marked
    /// truncated when that `<stack>` did not end (a `<frame>` not closed, and a
    /// `<suppression>` not closed, are left out); else dropped. What became of it, for a
    /// warning.
    pub(super) fn keep_cut_error(&mut self, err: Box<ErrBuild>) -> String {
        if err.rec.xml_kind.is_none() || err.rec.stack.is_empty() {
            return "it is skipped (no frame of its stack was read)".to_owned();
        }
        let truncated = !err.stack_closed();
        let frames = err.rec.stack.len();
        let new_names = self.doc.as_ref().is_some_and(Doc::names_3_26);
        let mut rec = err.finish(new_names);
        rec.truncated = truncated;
        rec.cut = true;
        self.emit_error(rec);
        if truncated {
            format!("it is kept with the {frames} frames read, marked truncated")
        } else {
            "it is kept (its stack was complete)".to_owned()
        }
    }

    pub(super) fn take_text(&mut self) -> Vec<u8> {
        self.text.clone()
    }

    pub(super) fn leaf_end(&mut self, el: El) {
        let parent = self.stack.last().copied();
        match parent {
            Some(El::Frame) => {
                let text = &self.text;
                let frame = match (self.err.as_deref_mut(), self.announce.as_deref_mut()) {
                    (Some(err), _) => Some(&mut err.frame),
                    (None, Some(a)) => Some(&mut a.frame),
                    (None, None) => None,
                };
                if let Some(f) = frame {
                    match el {
                        El::Ip => f.ip = hex_number(text),
                        El::Obj => f.set(FrameText::Obj, text),
                        El::Fn => f.set(FrameText::Fn, text),
                        El::Dir => f.set(FrameText::Dir, text),
                        El::File => f.set(FrameText::File, text),
                        El::Line => f.line = parse_num(text).and_then(|n| u32::try_from(n).ok()),
                        _ => {}
                    }
                }
            }
            Some(El::SFrame) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.sframe = Some(el == El::Obj);
                    err.sframe_text.clear();
                    err.sframe_text.extend_from_slice(&self.text);
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
                El::Unique => self.pair.2 = hex_number(&self.text),
                _ => self.pair.1 = Some(self.text.clone()),
            },
            Some(El::AnnounceThread) => {
                if let Some(a) = self.announce.as_deref_mut() {
                    match el {
                        El::HThreadId => a.tid = parse_num(&self.text),
                        _ => a.root = true,
                    }
                }
            }
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

    pub(super) fn doc_leaf(&mut self, el: El) {
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
                if let Some(rest) = after(text, b"Using Valgrind-") {
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

    pub(super) fn container_end(&mut self, lex: &Lexer, el: El) {
        match el {
            El::Doc => self.end_doc(lex),
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
                    self.emit_error(rec);
                }
            }
            El::Frame => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.end_frame();
                } else if let Some(a) = self.announce.as_deref_mut() {
                    // Cannot fail: `EVENT_CAP` and `TEXT_CAP` keep a frame far below 4 GiB.
                    let _full = a.stack.push(a.frame.as_frame());
                }
            }
            El::AnnounceThread => {
                if let Some(a) = self.announce.take()
                    && let Some(doc) = self.doc.as_mut()
                {
                    // Bounded like the text reader's: older announcements give way.
                    if doc.context.len() >= MAX_CONTEXT {
                        doc.context.remove(0);
                    }
                    doc.context.push(a.into_context());
                }
            }
            El::Stack => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.target = None;
                }
            }
            El::SFrame => {
                if let Some(err) = self.err.as_deref_mut()
                    && let (Some(obj), Some(supp)) = (err.sframe.take(), err.supp.as_mut())
                {
                    let name = &err.sframe_text;
                    let frame = if obj {
                        GenFrame::Obj(name)
                    } else {
                        GenFrame::Fun(name)
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
            El::Pair => match std::mem::take(&mut self.pair) {
                (count, Some(name), _) => {
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
                (Some(count), None, Some(unique)) => self.error_count(lex, count, unique),
                _ => {}
            },
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
