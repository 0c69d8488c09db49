//! Errors: started by a header, grown by frames and aux lines, emitted or dropped.

use super::MAX_ERROR_LINES;
use super::classify::Header;
use super::fields::{frame_text, push_described};
use super::state::{Pending, Phase, State};
use crate::logs::bytes::{lossy, trim_start};
use crate::logs::record::{AuxStack, ErrorRecord, LogItem, Stack};
use crate::supp::kinds::Tool;

impl State {
    pub(super) fn start_error(&mut self, i: usize, line: u64, text: &[u8], h: Header) {
        self.flush_preamble(i);
        self.serial += 1;
        let serial = self.serial;
        let p = &mut self.procs[i];
        let rec = ErrorRecord {
            line,
            pid: Some(p.pid),
            tool: p.tool,
            kind: h.kind,
            what: lossy(text),
            size: h.size,
            param: h.param,
            fishy: h.fishy,
            leak: h.leak,
            tid: h.tid.or(p.last_tid),
            stack: self.spares.stack(p.depth_hint, p.names_hint),
            ..ErrorRecord::default()
        };
        p.cur = Some(Pending {
            rec,
            repeat: std::mem::take(&mut p.repeat_next),
            serial,
            stamp: 0,
            lines: 1,
            neutral: false,
        });
        p.phase = Phase::Body;
        p.has_cand = false;
    }

    /// The candidate line becomes the header of an error whose first frame is `frame`.
    pub(super) fn start_generic(&mut self, i: usize, frame: &[u8]) {
        let p = &mut self.procs[i];
        let kind = match p.tool {
            Some(Tool::Drd) => "GenericErr",
            Some(Tool::Helgrind) => "Misc",
            _ => "",
        };
        let text = std::mem::take(&mut p.cand);
        let line = p.cand_line;
        let h = Header::new(kind);
        self.start_error(i, line, &text, h);
        self.procs[i].cand = text;
        if let Some((ip, what)) = frame_text(frame) {
            self.push_frame(i, ip, what);
        }
    }

    /// Counts one more line of the process's error; false (and the error dropped) when
    /// it has become too long to be one.
    pub(super) fn grow(&mut self, i: usize) -> bool {
        let Some(cur) = self.procs[i].cur.as_mut() else {
            return true;
        };
        cur.lines += 1;
        if cur.lines <= MAX_ERROR_LINES {
            return true;
        }
        self.drop_incomplete(i, &format!("longer than {MAX_ERROR_LINES} lines"));
        self.procs[i].phase = Phase::SkipStack;
        false
    }

    /// Reads `t` into the process's error if it is a frame line.
    pub(super) fn frame_line(&mut self, i: usize, t: &[u8]) -> bool {
        let Some((ip, what)) = frame_text(t) else {
            return false;
        };
        self.push_frame(i, ip, what);
        true
    }

    /// Adds a frame to the stack the process's error is reading (its own, or the last aux
    /// stack once its own has frames).
    pub(super) fn push_frame(&mut self, i: usize, ip: Option<u64>, what: &[u8]) {
        let Some(cur) = self.procs[i].cur.as_mut() else {
            return;
        };
        let rec = &mut cur.rec;
        let stack = match rec.aux.last_mut() {
            Some(a) if !rec.stack.is_empty() => &mut a.stack,
            _ => &mut rec.stack,
        };
        let pushed = push_described(stack, ip, what);
        if pushed.is_err() {
            self.drop_incomplete(i, "its names exceed 4 GiB");
            self.procs[i].phase = Phase::SkipStack;
        }
    }

    pub(super) fn add_aux(&mut self, i: usize, t: &[u8]) {
        let Some(cur) = self.procs[i].cur.as_mut() else {
            return;
        };
        let rest = trim_start(t);
        let indent = t.len() - rest.len();
        if rest.is_empty() {
            return;
        }
        let aux = &mut cur.rec.aux;
        let fold = (indent >= 2 || rest.starts_with(b"Locks held:"))
            && aux.last().is_some_and(|a| a.stack.is_empty());
        if fold && let Some(a) = aux.last_mut() {
            a.what.push('\n');
            a.what.push_str(&lossy(rest));
            return;
        }
        aux.push(AuxStack {
            what: lossy(rest),
            stack: Stack::new(),
            origin: rest.starts_with(b"Uninitialised value was created"),
        });
    }

    /// Emits the process's pending error (repeats are dropped).
    pub(super) fn finalize(&mut self, i: usize) {
        let p = &mut self.procs[i];
        p.phase = Phase::Idle;
        let Some(cur) = p.cur.take() else { return };
        p.depth_hint = cur.rec.stack.len().clamp(4, 256);
        p.names_hint = cur.rec.stack.names_len().clamp(256, 64 << 10);
        // The next error's vectors, allocated now rather than when it starts: by then the
        // consumer has usually freed this error's many small allocations, and in glibc a
        // large request first consolidates all of them (measured: 12% of the reading time
        // on a leak-heavy log).
        let (depth, bytes) = (p.depth_hint, p.names_hint);
        self.spares.prepare(depth, bytes);
        if cur.repeat {
            return;
        }
        let rec = cur.rec;
        if rec.kind.is_empty() {
            self.warn(
                rec.line,
                format!(
                    "unrecognised error header `{}`: its kind is left empty",
                    rec.what
                ),
            );
        }
        self.out.push_back(LogItem::Error(rec));
    }

    /// Drops an error whose end is missing.
    pub(super) fn drop_incomplete(&mut self, i: usize, why: &str) {
        let p = &mut self.procs[i];
        p.phase = Phase::Idle;
        let Some(cur) = p.cur.take() else { return };
        let pid = p.pid;
        if cur.repeat {
            return;
        }
        self.warn(
            cur.rec.line,
            format!(
                "the log stops being valid here: error `{}` of process {pid} is incomplete \
                 ({why}); dropped",
                cur.rec.what
            ),
        );
    }

    /// End of input: emits what is complete and says what is not.
    pub(crate) fn finish(&mut self) {
        if let Some(b) = self.block.take() {
            let n = b.start_line;
            self.warn(
                n,
                "the log ends inside this suppression block; block dropped".to_owned(),
            );
        }
        self.flush_vfatal();
        for i in 0..self.procs.len() {
            self.flush_fatal(i);
            let p = &self.procs[i];
            match p.phase {
                Phase::Body => self.drop_incomplete(i, "the log ends"),
                Phase::AfterBlank if p.blocks_seen => {
                    // The process prints suppression blocks, and this error has none:
                    // the log was cut after its blank line. A Helgrind error may even
                    // continue after a blank line, so it may be cut short too.
                    if matches!(p.tool, Some(Tool::Memcheck | Tool::Drd)) {
                        let line = p.cur.as_ref().map_or(0, |c| c.rec.line);
                        self.warn(
                            line,
                            "the log ends before this error's suppression block".to_owned(),
                        );
                        self.finalize(i);
                    } else {
                        self.drop_incomplete(i, "the log ends after a blank line inside it");
                    }
                }
                Phase::AfterBlank => self.finalize(i),
                _ => {}
            }
            self.flush_preamble(i);
        }
    }
}
