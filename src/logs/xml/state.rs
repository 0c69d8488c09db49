//! What the reader keeps while reading: the current document, the `<error>` being built,
//! a `<fatal_signal>`.

use rustc_hash::FxHashMap;

use super::elements::El;
use super::kinds::error_kind;
use crate::logs::bytes::{hex_number, lossy_trim, parse_num, trim};
use crate::logs::record::{AuxStack, ErrorRecord, Frame, GenSuppression, Stack};
use crate::supp::kinds::Tool;

/// What the reader knows about the current `<valgrindoutput>` document.
#[derive(Debug, Default, Clone)]
pub(super) struct Doc {
    pub(super) line: u64,
    pub(super) pid: Option<u32>,
    pub(super) ppid: Option<u32>,
    pub(super) tool: Option<Tool>,
    pub(super) protocol: Option<u64>,
    pub(super) version: Option<String>,
    pub(super) command: Option<String>,
    pub(super) options: Vec<String>,
    pub(super) supp_files: Vec<Vec<u8>>,
    pub(super) state: Vec<u8>,
    pub(super) preamble_sent: bool,
    pub(super) running: bool,
    pub(super) finished: bool,
    /// Made up for errors read outside any document (after a resync, or a fragment).
    pub(super) implicit: bool,
    /// `<announcethread>`s read for the next `<error>` (`ErrorRecord::context`).
    pub(super) context: Vec<AuxStack>,
    /// The line of each non-leak `<error>` by its `<unique>`, for `<errorcounts>`.
    pub(super) by_unique: FxHashMap<u64, u64>,
    /// More than [`MAX_UNIQUES`] were seen: later ones are not remembered.
    pub(super) uniques_full: bool,
    /// Parallel reading: a guess (`resume`), whose `by_unique` holds only the errors this
    /// reader read.
    pub(super) guessed: bool,
}

/// At most this many `<unique>`s of non-leak errors are remembered per document (XML has no
/// limit on the errors shown).
pub(super) const MAX_UNIQUES: usize = 100_000;

/// A `<announcethread>` being read: Helgrind's announcement of a thread, context of the next
/// error.
#[derive(Debug, Default)]
pub(super) struct Announce {
    pub(super) tid: Option<u64>,
    pub(super) root: bool,
    pub(super) stack: Stack,
    pub(super) frame: FrameBuf,
}

impl Announce {
    /// The announcement as the text log prints it.
    pub(super) fn into_context(self) -> AuxStack {
        let tid = self.tid.map_or_else(|| "?".to_owned(), |t| t.to_string());
        let what = if self.root {
            format!("Thread #{tid} is the program's root thread")
        } else {
            format!("Thread #{tid} was created")
        };
        AuxStack {
            what,
            stack: self.stack,
            origin: false,
        }
    }
}

impl Doc {
    pub(super) fn new(line: u64) -> Self {
        Self {
            line,
            ..Self::default()
        }
    }

    /// A document whose start was not read: it has no preamble.
    pub(super) fn implicit(line: u64) -> Self {
        Self {
            line,
            preamble_sent: true,
            implicit: true,
            ..Self::default()
        }
    }

    /// Whether Memcheck names kinds as 3.26+ does (`UnsafeZeroSize`).
    pub(super) fn names_3_26(&self) -> bool {
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
pub(super) enum Target {
    Main,
    Aux(usize),
}

/// An `<error>` being read.
#[derive(Debug)]
pub(super) struct ErrBuild {
    pub(super) rec: ErrorRecord,
    pub(super) start: u64,
    pub(super) what: Option<Vec<u8>>,
    pub(super) leaked_bytes: Option<u64>,
    pub(super) leaked_blocks: Option<u64>,
    pub(super) main_seen: bool,
    /// The last aux entry was opened by `<auxwhat>`/`<xauxwhat>` and still waits for its stack.
    pub(super) aux_open: bool,
    pub(super) target: Option<Target>,
    pub(super) frame: FrameBuf,
    pub(super) supp: Option<GenSuppression>,
    /// The `<sframe>` being read: whether it is an `<obj>` (its text is `sframe_text`).
    pub(super) sframe: Option<bool>,
    pub(super) sframe_text: Vec<u8>,
}

/// A `<frame>` being read. Its texts keep their storage from frame to frame.
#[derive(Debug, Default)]
pub(super) struct FrameBuf {
    pub(super) ip: Option<u64>,
    pub(super) line: Option<u32>,
    /// `<fn>`, `<obj>`, `<dir>`, `<file>`: their text, and whether the frame has them.
    texts: [Vec<u8>; 4],
    has: [bool; 4],
}

/// A text of a frame ([`FrameBuf::set`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum FrameText {
    Fn = 0,
    Obj = 1,
    Dir = 2,
    File = 3,
}

impl FrameBuf {
    /// Empties it for the next frame.
    pub(super) fn reset(&mut self) {
        self.ip = None;
        self.line = None;
        self.has = [false; 4];
    }

    pub(super) fn set(&mut self, which: FrameText, text: &[u8]) {
        let i = which as usize;
        self.texts[i].clear();
        self.texts[i].extend_from_slice(text);
        self.has[i] = true;
    }

    fn text(&self, which: FrameText) -> Option<&[u8]> {
        let i = which as usize;
        self.has[i].then(|| self.texts[i].as_slice())
    }

    pub(super) fn as_frame(&self) -> Frame<'_> {
        Frame {
            ip: self.ip,
            fun: self.text(FrameText::Fn),
            obj: self.text(FrameText::Obj),
            dir: self.text(FrameText::Dir),
            file: self.text(FrameText::File),
            line: self.line,
        }
    }
}

impl ErrBuild {
    pub(super) fn new(line: u64, start: u64, pid: Option<u32>, tool: Option<Tool>) -> Self {
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
            sframe_text: Vec::new(),
        }
    }

    pub(super) fn push_aux(&mut self, what: String) {
        let origin = what.starts_with("Uninitialised value was created");
        self.rec.aux.push(AuxStack {
            what,
            stack: Stack::new(),
            origin,
        });
        self.aux_open = self.main_seen;
    }

    pub(super) fn begin_stack(&mut self, what: Option<String>) {
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

    /// Whether the error's own `<stack>` was read to its end.
    pub(super) fn stack_closed(&self) -> bool {
        self.main_seen && !matches!(self.target, Some(Target::Main))
    }

    pub(super) fn end_frame(&mut self) {
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

    pub(super) fn leaf(&mut self, parent: Option<El>, el: El, text: Vec<u8>) {
        match (parent, el) {
            (Some(El::Error), El::Unique) => self.rec.unique = hex_number(&text),
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
    pub(super) fn finish(self, new_names: bool) -> ErrorRecord {
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
pub(super) struct FatalBuild {
    pub(super) line: u64,
    pub(super) tid: Option<u64>,
    pub(super) signo: Option<String>,
    pub(super) signame: Option<String>,
    pub(super) event: Option<String>,
    pub(super) siaddr: Option<String>,
}

impl FatalBuild {
    /// The message as text logs print it.
    pub(super) fn message(&self) -> String {
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
