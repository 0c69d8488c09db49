//! `--gen-suppressions` blocks: unprefixed `{ … }` lines, attached to the error they follow.

use memchr::memchr;

use super::MAX_BLOCK_LINES;
use super::state::{Block, State};
use crate::logs::bytes::{lossy, set_lossy, trim};
use crate::logs::record::{ErrorRecord, GenFrame, GenSuppression};
use crate::supp::kinds::Tool;

impl State {
    pub(super) fn start_block(&mut self) {
        // The latest error that reached its blank line and still waits for a block.
        let mut target = None;
        while let Some(&(pid, serial)) = self.after_blank.last() {
            if self.waits_for_block(pid, serial) {
                target = self.find_proc(pid).map(|i| (i, serial));
                break;
            }
            self.after_blank.pop();
        }
        let (depth, bytes) = target
            .and_then(|(i, _)| self.procs[i].cur.as_ref())
            .map_or((16, 1024), |c| {
                (c.rec.stack.len() + 1, c.rec.stack.names_len().max(64))
            });
        let target = target.map(|(i, serial)| (self.procs[i].pid, serial));
        self.block = Some(Block {
            start_line: self.line_no,
            target,
            stage: 0,
            lines: 0,
            sup: GenSuppression {
                frames: self.spares.frames(depth, bytes),
                ..GenSuppression::default()
            },
        });
    }

    /// Feeds one unprefixed line to the open block; false when the line cannot be part
    /// of a block (the block is then abandoned: it was program output).
    pub(super) fn block_line(&mut self, s: &[u8]) -> bool {
        let Some(b) = self.block.as_mut() else {
            return false;
        };
        b.lines += 1;
        let t = trim(s);
        if t.is_empty() {
            return true;
        }
        if t == b"}" {
            self.end_block();
            return true;
        }
        if b.lines > MAX_BLOCK_LINES {
            let n = b.start_line;
            self.block = None;
            self.warn(
                n,
                format!("suppression block longer than {MAX_BLOCK_LINES} lines; ignored"),
            );
            return true;
        }
        let indented = s.first().is_some_and(|c| *c == b' ' || *c == b'\t');
        match b.stage {
            0 => {
                if !indented {
                    return false;
                }
                b.stage = 1;
            }
            1 => {
                let colon = memchr(b':', t);
                let ok = indented
                    && colon.is_some_and(|c| c > 0 && c + 1 < t.len())
                    && !t.iter().any(|c| c.is_ascii_whitespace());
                if !ok {
                    return false;
                }
                b.sup.kind_line = t.to_vec();
                b.stage = 2;
            }
            _ => {
                let frame = if let Some(f) = t.strip_prefix(b"fun:") {
                    Some(GenFrame::Fun(f))
                } else {
                    t.strip_prefix(b"obj:").map(GenFrame::Obj)
                };
                let after_kind = b.stage == 2;
                b.stage = 3;
                if let Some(frame) = frame {
                    if b.sup.frames.push(frame).is_err() {
                        let n = b.start_line;
                        self.block = None;
                        self.warn(
                            n,
                            "suppression block names exceed 4 GiB; ignored".to_owned(),
                        );
                    }
                } else if after_kind && indented {
                    b.sup.extra = Some(t.to_vec());
                }
                // Anything else inside a block is interleaved output: skipped.
            }
        }
        true
    }

    pub(super) fn end_block(&mut self) {
        let Some(b) = self.block.take() else { return };
        if b.stage < 2 {
            return; // `{` … `}` without a kind line: not a suppression block
        }
        let target = b
            .target
            .filter(|&(pid, serial)| self.waits_for_block(pid, serial))
            .and_then(|(pid, _)| self.find_proc(pid));
        let Some(i) = target else {
            let kind = lossy(&b.sup.kind_line);
            self.warn(
                b.start_line,
                format!("suppression block ({kind}) follows no error that could own it; ignored"),
            );
            return;
        };
        if let Some(cur) = self.procs[i].cur.as_mut() {
            apply_block(&mut cur.rec, b.sup);
        }
        self.procs[i].blocks_seen = true;
        self.finalize(i);
    }
}

/// Copies a suppression block's facts into its error.
pub(super) fn apply_block(rec: &mut ErrorRecord, sup: GenSuppression) {
    if let Some(c) = memchr(b':', &sup.kind_line) {
        let (tool, kind) = (&sup.kind_line[..c], &sup.kind_line[c + 1..]);
        if !kind.is_empty() && rec.kind.as_bytes() != kind {
            set_lossy(&mut rec.kind, kind);
        }
        if rec.tool.is_none() {
            rec.tool = match tool {
                b"Memcheck" => Some(Tool::Memcheck),
                b"Helgrind" => Some(Tool::Helgrind),
                b"drd" => Some(Tool::Drd),
                _ => None,
            };
        }
        if let Some(extra) = &sup.extra {
            match kind {
                b"Param" if rec.param.is_none() => rec.param = Some(extra.clone()),
                b"FishyValue" if rec.fishy.is_none() => {
                    if let Some(o) = memchr(b'(', extra) {
                        let arg = &extra[o + 1..];
                        let arg = memchr(b')', arg).map_or(arg, |c| &arg[..c]);
                        rec.fishy = Some((extra[..o].to_vec(), arg.to_vec()));
                    }
                }
                _ => {}
            }
        }
    }
    rec.suppression = Some(sup);
}
