//! The reader's state: per-process progress, the suppression block being read, and the
//! line dispatch (prefixed, unprefixed, the fast paths for frame lines).

use std::collections::VecDeque;
use std::sync::Arc;

use memchr::memchr;
use rustc_hash::FxHashMap;

use super::classify::loose_header;
use super::contexts::ShownErrors;
use super::fields::{find_prefix, frame_text, is_frame, starts_with_short};
use super::{MAX_BLOCK_LINES, MAX_ERROR_LINES, MAX_LINE, MAX_MESSAGE};
use crate::logs::bytes::{lossy, trim, trim_end, trim_start, trim_start_byte};
use crate::logs::record::{
    AuxStack, ErrorRecord, Gap, GenFrame, GenFrames, GenSuppression, LogItem, Preamble, Stack,
};
use crate::supp::kinds::Tool;

/// How far a process's preamble has been read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PreState {
    /// Reading it (or nothing seen yet).
    Open,
    /// Inside the `-v` `Valgrind options:` list.
    Options,
    /// Emitted, or there was none.
    Done,
}

/// Where a process is in its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Between errors.
    Idle,
    /// Inside an error: header read, closing blank line not yet.
    Body,
    /// After an error's blank line: it may continue (Helgrind), or get a suppression
    /// block; it is emitted at the next line of this process that is neither.
    AfterBlank,
    /// Inside a Helgrind `---Thread-Announcement---` block: its paragraphs are context of
    /// the next error.
    Announce,
    /// Inside an announcement outside such a block (` Lock at 0x… was first observed`, a
    /// `Thread #N was created` whose block line is not in the log): context of the next
    /// error, until a blank line.
    Context,
    /// After a message that is followed by a stack that belongs to no error
    /// (`Warning: …`, pre-3.23 `Open file descriptor …`).
    SkipStack,
}

/// The error being read for a process.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub(super) rec: ErrorRecord,
    /// The entry of the `N errors in context i of C:` listing it was printed in.
    pub(super) repeat: Option<Repeat>,
    /// Identifies this error for a suppression block aimed at it.
    pub(super) serial: u64,
    /// When it reached [`Phase::AfterBlank`]; the most recent one gets the next block.
    pub(super) stamp: u64,
    /// Lines read into it.
    pub(super) lines: u32,
    /// An unrecognised line followed its blank line: no continuation any more, and the
    /// next unrecognised line ends it.
    pub(super) neutral: bool,
    /// A line other than a frame followed its own stack's frames: that stack is complete
    /// (later frames go to aux stacks).
    pub(super) stack_done: bool,
    /// A frame line of its own stack could not be read: the frames after it are not added
    /// (their place in the stack is unknown), and the stack is marked truncated.
    pub(super) gap: bool,
}

/// An entry of the listing that `-s`/`-v` print after the first summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
    /// `N errors in context i of C:`: an error shown earlier, which occurred N times.
    Shown(u64),
    /// 3.23+ `N errors (suppressed by NAME) in context i of C:`: never shown before.
    Suppressed,
}

/// One process's state.
#[derive(Debug, Clone)]
pub(super) struct Proc {
    /// `None` for the lines of an excerpt whose prefixes were lost (see
    /// `State::loose_header`).
    pub(super) pid: Option<u32>,
    /// When it was first seen: the end of the log ends processes in this order.
    pub(super) opened: u64,
    pub(super) tool: Option<Tool>,
    /// The Valgrind release's minor version (3.x).
    pub(super) minor: Option<u8>,
    pub(super) pre: Preamble,
    pub(super) pre_seen: bool,
    pub(super) pre_state: PreState,
    pub(super) supp_files: Vec<Vec<u8>>,
    /// `Valgrind options:` was printed: verbosity above 1 (`-v`).
    pub(super) verbose: bool,
    /// `For lists of detected and suppressed errors, rerun with: -s` (or the older `For
    /// counts … -v`) was printed: no listing follows the summary, which is the last.
    pub(super) no_list: bool,
    /// `ERROR SUMMARY:` lines read.
    pub(super) summaries: u8,
    pub(super) phase: Phase,
    pub(super) cur: Option<Pending>,
    pub(super) repeat_next: Option<Repeat>,
    /// The thread of the last `Thread N:` line (Memcheck and DRD start at 1).
    pub(super) last_tid: Option<u32>,
    /// The last line of this process when it was an unrecognised message, which becomes
    /// an error header if a stack follows directly; valid while `cand_epoch` is the
    /// state's.
    pub(super) cand: Vec<u8>,
    pub(super) cand_line: u64,
    pub(super) has_cand: bool,
    pub(super) cand_epoch: u64,
    /// A `FATAL:` or fatal-signal message still collecting its indented lines.
    pub(super) fatal: Option<(u64, String)>,
    /// Whether a suppression block was attached to an error of this process.
    pub(super) blocks_seen: bool,
    /// Announcements read for the next error (`ErrorRecord::context`), and their lines.
    pub(super) context: Vec<AuxStack>,
    pub(super) context_lines: u32,
    /// The non-leak errors it has shown, for its listing.
    pub(super) shown: Arc<ShownErrors>,
    /// In a state guessed for a later part of the log (`State::seed`): the guess of
    /// `shown` it started from, which may lack errors shown since the guess was made. What
    /// depends on it is checked when the chunk is accepted (`State::verify_shown`).
    pub(super) shown_base: Option<Arc<ShownErrors>>,
    /// Inside a run of frame lines that belong to no error (warned once per run).
    pub(super) orphan: bool,
    /// The object of the last `Reading syms from` line, and whether that read failed
    /// (`ELF section outside all mapped regions`): Valgrind reads the same object again
    /// when its next segment is mapped, which is not a second load.
    pub(super) syms_read: Option<Vec<u8>>,
    pub(super) syms_failed: bool,
    /// A `FATAL:` or fatal-signal message of this process was emitted: Valgrind said why it
    /// stopped, so a missing summary needs no warning.
    pub(super) fatal_seen: bool,
    /// The length of this process's last error stack and the bytes of its names: the
    /// next one is likely as deep.
    pub(super) depth_hint: usize,
    pub(super) names_hint: usize,
}

impl Proc {
    pub(super) fn new(pid: Option<u32>, opened: u64) -> Self {
        Self {
            pid,
            opened,
            tool: None,
            minor: None,
            pre: Preamble::default(),
            pre_seen: false,
            pre_state: PreState::Open,
            supp_files: Vec::new(),
            verbose: false,
            no_list: false,
            summaries: 0,
            phase: Phase::Idle,
            cur: None,
            repeat_next: None,
            last_tid: None,
            cand: Vec::new(),
            cand_line: 0,
            has_cand: false,
            cand_epoch: 0,
            fatal: None,
            blocks_seen: false,
            context: Vec::new(),
            context_lines: 0,
            shown: Arc::default(),
            shown_base: None,
            orphan: false,
            syms_read: None,
            syms_failed: false,
            fatal_seen: false,
            depth_hint: 16,
            names_hint: 1024,
        }
    }
}

/// A `--gen-suppressions` block being read.
#[derive(Debug, Clone)]
pub(super) struct Block {
    pub(super) start_line: u64,
    /// The error it belongs to: process and error serial.
    pub(super) target: Option<(Option<u32>, u64)>,
    /// 0: name expected; 1: `Tool:Kind` expected; 2: extra line or frame; 3: frames.
    pub(super) stage: u8,
    pub(super) lines: usize,
    pub(super) sup: GenSuppression,
}

/// Everything but the input.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub(super) name: String,
    pub(super) line_no: u64,
    pub(super) out: VecDeque<LogItem>,
    /// The processes whose output is not complete, in no particular order (a finished one
    /// is swapped out), and where each is.
    pub(super) procs: Vec<Proc>,
    pub(super) by_pid: FxHashMap<Option<u32>, usize>,
    /// Processes opened so far (`Proc::opened`).
    pub(super) opened: u64,
    /// Index of the last process seen (most logs have one).
    pub(super) last: usize,
    /// Text before the prefix on the last prefixed line (CI time stamps, `>`…).
    pub(super) lead: Vec<u8>,
    pub(super) block: Option<Block>,
    /// Consecutive `valgrind: ` lines.
    pub(super) vfatal: Option<(u64, String)>,
    pub(super) garbage_run: bool,
    pub(super) stamp: u64,
    pub(super) serial: u64,
    /// Errors that reached their blank line, oldest first, as (process, serial): the
    /// latest one still waiting without a block gets the next block. Entries of errors
    /// emitted since are dropped when met (a cache of what the processes' stamps say).
    pub(super) after_blank: Vec<(Option<u32>, u64)>,
    /// Bumped by a `valgrind:` line: candidate headers of every process are void.
    pub(super) cand_epoch: u64,
    /// An error header on the line before, without its `==PID==` prefix (lost in an
    /// excerpt): the header of the error whose frames follow.
    pub(super) loose: Option<Loose>,
    /// Guesses of processes' shown errors (`Proc::shown_base`) that something read depended
    /// on: the chunk is right only if they were right.
    pub(super) verify_shown: Vec<(Option<u32>, Arc<ShownErrors>)>,
    /// Storage for the stacks of errors and blocks to come.
    pub(super) spares: Spares,
    /// The last prefix found at the start of a line, with its space (`==31893== `), and
    /// what it says: most lines start with the same bytes as the one before.
    pub(super) last_prefix: Vec<u8>,
    pub(super) last_prefix_kind: u8,
    pub(super) last_prefix_pid: u32,
}

/// An error header whose prefix was lost (`Invalid read of size 4` alone, or
/// `=123== Invalid …`), waiting for the frame line that makes it one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Loose {
    pub(super) line: u64,
    /// The PID of a damaged prefix, if it still shows one.
    pub(super) pid: Option<u32>,
    pub(super) text: Vec<u8>,
}

/// Storage for the stacks of errors and blocks to come: the next error's, allocated when
/// the previous one is handed out (see [`State::finalize`]), and those of handed-out errors
/// given back ([`Spares::recycle`], by the parallel reader). Not part of the reading state:
/// a clone has none.
#[derive(Debug, Default)]
pub(crate) struct Spares {
    pub(super) stacks: Vec<Stack>,
    pub(super) frames: Vec<GenFrames>,
}

impl Clone for Spares {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Spares {
    /// At most this many stacks (and as many blocks' frames) are kept: more than the
    /// errors of one chunk of the parallel reader (about 150 per MiB of a leak log).
    pub(super) const MAX_KEPT: usize = 256;
    /// Larger ones (a rare huge error) are not kept.
    pub(super) const MAX_KEPT_FRAMES: usize = 4096;
    const MAX_KEPT_BYTES: usize = 256 << 10;

    /// A stack for an error expected to be `depth` frames deep with `bytes` of names.
    pub(super) fn stack(&mut self, depth: usize, bytes: usize) -> Stack {
        self.stacks
            .pop()
            .unwrap_or_else(|| Stack::with_capacity(depth, bytes))
    }

    /// Frames for a block of about `depth` frames with `bytes` of names.
    pub(super) fn frames(&mut self, depth: usize, bytes: usize) -> GenFrames {
        self.frames
            .pop()
            .unwrap_or_else(|| GenFrames::with_capacity(depth, bytes))
    }

    /// Makes sure the next error and block find storage without allocating then.
    pub(super) fn prepare(&mut self, depth: usize, bytes: usize) {
        if self.stacks.is_empty() {
            self.stacks.push(Stack::with_capacity(depth, bytes));
        }
        if self.frames.is_empty() {
            self.frames.push(GenFrames::with_capacity(depth + 1, bytes));
        }
    }

    /// Takes the stacks of the errors in `items` for errors to come, and frees the rest;
    /// `items` is left empty, with its capacity.
    pub(crate) fn recycle(&mut self, items: &mut Vec<LogItem>) {
        let fits = |(frames, bytes): (usize, usize)| {
            frames <= Self::MAX_KEPT_FRAMES && bytes <= Self::MAX_KEPT_BYTES
        };
        for item in items.drain(..) {
            let LogItem::Error(rec) = item else { continue };
            let ErrorRecord {
                mut stack,
                suppression,
                ..
            } = rec;
            if self.stacks.len() < Self::MAX_KEPT && fits(stack.capacity()) {
                stack.clear();
                self.stacks.push(stack);
            }
            if let Some(GenSuppression { mut frames, .. }) = suppression
                && self.frames.len() < Self::MAX_KEPT
                && fits(frames.capacity())
            {
                frames.clear();
                self.frames.push(frames);
            }
        }
    }
}

/// What a line's prefix says.
pub(super) struct Prefix {
    /// Where the prefix starts (text before it is the lead).
    pub(super) start: usize,
    /// `=`, `-`, `*` or `+`.
    pub(super) kind: u8,
    pub(super) pid: u32,
    /// Where the message starts.
    pub(super) body: usize,
}

impl State {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            line_no: 0,
            out: VecDeque::new(),
            procs: Vec::new(),
            by_pid: FxHashMap::default(),
            opened: 0,
            last: 0,
            lead: Vec::new(),
            block: None,
            vfatal: None,
            garbage_run: false,
            stamp: 0,
            serial: 0,
            after_blank: Vec::new(),
            cand_epoch: 0,
            loose: None,
            verify_shown: Vec::new(),
            spares: Spares::default(),
            last_prefix: Vec::new(),
            last_prefix_kind: 0,
            last_prefix_pid: 0,
        }
    }

    pub(super) fn warn(&mut self, line: u64, message: String) {
        self.out.push_back(LogItem::Warning {
            line,
            message,
            gap: None,
        });
    }

    /// A warning that says the log misses evidence here.
    pub(super) fn warn_gap(&mut self, line: u64, gap: Gap, message: String) {
        self.out.push_back(LogItem::Warning {
            line,
            message,
            gap: Some(gap),
        });
    }

    /// Processes one line (without its `\n`; `truncated` when it was cut at [`MAX_LINE`]).
    pub(crate) fn line(&mut self, raw: &[u8], truncated: bool) {
        if truncated || !(self.block_frame_line(raw) || self.stack_frame_line(raw)) {
            self.any_line(raw, truncated);
        }
    }

    /// The lines most of a log is made of, read without the general dispatch (the two
    /// below); false, with nothing done, for any other line. Exactly what [`Self::any_line`]
    /// does with them: `fast_paths_read_like_the_general_one` checks it.
    ///
    /// A `fun:`/`obj:` line of a suppression block past its kind line, when that line keeps
    /// the block going.
    pub(super) fn block_frame_line(&mut self, raw: &[u8]) -> bool {
        // As in `any_line` → `unprefixed` → `block_line`.
        if raw.first() != Some(&b' ') || !self.lead.is_empty() {
            return false;
        }
        let Some(b) = self.block.as_mut() else {
            return false;
        };
        if b.stage < 2 || b.lines >= MAX_BLOCK_LINES {
            return false;
        }
        let t = trim(raw);
        let frame = if let Some(f) = t.strip_prefix(b"fun:") {
            GenFrame::Fun(f)
        } else if let Some(o) = t.strip_prefix(b"obj:") {
            GenFrame::Obj(o)
        } else {
            return false;
        };
        self.line_no += 1;
        b.lines += 1;
        b.stage = 3;
        if b.sup.frames.push(frame).is_err() {
            let n = b.start_line;
            self.block = None;
            self.warn(
                n,
                "suppression block names exceed 4 GiB; ignored".to_owned(),
            );
        }
        true
    }

    /// A frame line (`==PID==    at 0x…`) of the error in progress of the process of the
    /// line before, with the same prefix.
    pub(super) fn stack_frame_line(&mut self, raw: &[u8]) -> bool {
        // As in `any_line` → `user_line` (phase `Body`) → `grow` → `frame_line`.
        let n = self.last_prefix.len();
        if n == 0
            || self.last_prefix_kind != b'='
            || !self.lead.is_empty()
            || self.garbage_run
            || self.vfatal.is_some()
            || raw.get(n) != Some(&b' ')
            || !starts_with_short(raw, &self.last_prefix)
        {
            return false;
        }
        let i = self.last;
        let Some(p) = self.procs.get(i) else {
            return false;
        };
        let ready = p.pid == Some(self.last_prefix_pid)
            && p.fatal.is_none()
            && p.pre_state == PreState::Done
            && p.phase == Phase::Body
            && p.cur.as_ref().is_some_and(|c| c.lines < MAX_ERROR_LINES);
        if !ready {
            return false;
        }
        let t = trim_end(&raw[n..]);
        let Some((ip, what)) = frame_text(t) else {
            return false;
        };
        self.line_no += 1;
        if let Some(cur) = self.procs[i].cur.as_mut() {
            cur.lines += 1;
        }
        self.push_frame(i, ip, what);
        true
    }

    /// [`Self::line`] for any line.
    #[inline(never)]
    pub(super) fn any_line(&mut self, raw: &[u8], truncated: bool) {
        self.line_no += 1;
        if truncated {
            let n = self.line_no;
            self.warn(n, format!("line longer than {MAX_LINE} bytes; truncated"));
        }
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // Valgrind's own prefixed lines never start with a space: suppression-block lines
        // and program output do (unless a CI lead precedes everything, or an excerpt is
        // indented as a Markdown code block).
        let prefix = if raw.first() == Some(&b' ') && self.lead.is_empty() && !indented_prefix(raw)
        {
            None
        } else {
            self.find_prefix_cached(raw)
        };
        match prefix {
            Some(p) => {
                if p.start > 0 {
                    if self.lead.as_slice() != &raw[..p.start] {
                        self.lead.clear();
                        self.lead.extend_from_slice(&raw[..p.start]);
                    }
                } else if !self.lead.is_empty() {
                    self.lead.clear();
                }
                self.garbage_run = false;
                if self.vfatal.is_some() {
                    self.flush_vfatal();
                }
                let body = &raw[p.body..];
                let pid = Some(p.pid);
                match p.kind {
                    b'=' => {
                        let i = self.proc_index(pid);
                        self.user_line(i, body);
                    }
                    // A debug line of a process not seen (or whose output is complete)
                    // opens it only if it says something.
                    b'-' | b'+' if self.find_proc(pid).is_some() || debug_line_matters(body) => {
                        let i = self.proc_index(pid);
                        self.debug_line(i, body);
                    }
                    _ => {} // `**PID**`: client messages (`VALGRIND_PRINTF`); idle debug lines
                }
                self.loose = None;
            }
            None => self.unprefixed(raw),
        }
    }

    /// [`find_prefix`], skipping the parse when `raw` starts with the bytes of the last
    /// prefix found at the start of a line (they parse the same: the parse stops at the
    /// space that ends them).
    pub(super) fn find_prefix_cached(&mut self, raw: &[u8]) -> Option<Prefix> {
        let n = self.last_prefix.len();
        if n > 0 && starts_with_short(raw, &self.last_prefix) {
            return Some(Prefix {
                start: 0,
                kind: self.last_prefix_kind,
                pid: self.last_prefix_pid,
                body: n,
            });
        }
        let p = find_prefix(raw)?;
        if p.start == 0 && p.body <= 32 && raw[..p.body].last() == Some(&b' ') {
            self.last_prefix.clear();
            self.last_prefix.extend_from_slice(&raw[..p.body]);
            self.last_prefix_kind = p.kind;
            self.last_prefix_pid = p.pid;
        }
        Some(p)
    }

    /// The index of process `pid`, opened if it is not there.
    pub(super) fn proc_index(&mut self, pid: Option<u32>) -> usize {
        if let Some(p) = self.procs.get(self.last)
            && p.pid == pid
        {
            return self.last;
        }
        let i = match self.by_pid.get(&pid) {
            Some(&i) => i,
            None => {
                self.opened += 1;
                self.procs.push(Proc::new(pid, self.opened));
                let i = self.procs.len() - 1;
                self.by_pid.insert(pid, i);
                i
            }
        };
        self.last = i;
        i
    }

    /// The index of process `pid`, if it is there.
    pub(super) fn find_proc(&self, pid: Option<u32>) -> Option<usize> {
        self.by_pid.get(&pid).copied()
    }

    /// Forgets process `i` (its output is complete): the last process takes its index.
    pub(super) fn remove_proc(&mut self, i: usize) {
        let gone = self.procs.swap_remove(i);
        self.by_pid.remove(&gone.pid);
        if let Some(moved) = self.procs.get(i) {
            self.by_pid.insert(moved.pid, i);
        }
        if self.last == self.procs.len() {
            self.last = i;
        }
    }

    /// Whether process `i`'s candidate header is still valid.
    pub(super) fn has_cand(&self, i: usize) -> bool {
        let p = &self.procs[i];
        p.has_cand && p.cand_epoch == self.cand_epoch
    }

    // -- unprefixed lines --------------------------------------------------------------

    /// `line` without the lead of the last prefixed line, when it has the same shape
    /// (digits where it has digits, the same bytes elsewhere).
    pub(super) fn strip_lead<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        let n = self.lead.len();
        if n == 0 || line.len() < n {
            return line;
        }
        let same = self
            .lead
            .iter()
            .zip(&line[..n])
            .all(|(a, b)| a == b || (a.is_ascii_digit() && b.is_ascii_digit()));
        if same { &line[n..] } else { line }
    }

    pub(super) fn unprefixed(&mut self, raw: &[u8]) {
        let s = self.strip_lead(raw);
        if self.block.is_some() {
            if self.block_line(s) {
                return;
            }
            // Not block content after all: the `{` was program output.
            self.block = None;
        }
        let t = trim(s);
        if t == b"{" {
            self.start_block();
            return;
        }
        let v = trim_start_byte(t, b'>');
        if let Some(msg) = v.strip_prefix(b"valgrind: ") {
            let msg = lossy(msg);
            match &mut self.vfatal {
                Some((_, m)) => {
                    push_line(m, &msg);
                }
                None => self.vfatal = Some((self.line_no, msg)),
            }
            // Whatever comes next (a host stack trace) belongs to no error.
            self.cand_epoch += 1;
            self.loose = None;
            return;
        }
        if self.vfatal.is_some() {
            self.flush_vfatal();
        }
        // Lines whose prefixes were lost (an excerpt): read as the process without a PID
        // while it is inside an error, or when a frame line follows a header.
        if let Some(i) = self.find_proc(None)
            && self.procs[i].phase != Phase::Idle
        {
            self.loose = None;
            self.user_line(i, s);
            return;
        }
        if is_frame(s) {
            if let Some(l) = self.take_loose(None) {
                let i = self.proc_index(None);
                self.procs[i].pre_state = PreState::Done;
                self.start_loose(i, &l, s);
            }
            return;
        }
        self.loose = loose_header(s).map(|(pid, text)| Loose {
            line: self.line_no,
            pid,
            text,
        });
        if self.loose.is_some() {
            return;
        }
        if !self.garbage_run && is_garbage(raw) {
            self.garbage_run = true;
            let n = self.line_no;
            self.warn_gap(
                n,
                Gap::Dropped,
                "binary data in the log; skipped".to_owned(),
            );
        }
        // Otherwise program output between Valgrind's lines: ignored.
    }

    /// The header of the line before, if its prefix was lost and `pid` may be its process.
    pub(super) fn take_loose(&mut self, pid: Option<u32>) -> Option<Loose> {
        let line = self.line_no;
        self.loose
            .take()
            .filter(|l| l.line + 1 == line && (l.pid.is_none() || l.pid == pid))
    }

    pub(super) fn flush_vfatal(&mut self) {
        if let Some((line, message)) = self.vfatal.take() {
            // Valgrind said it failed, without saying which process: none of the open ones
            // needs a warning that its summary is missing.
            for p in &mut self.procs {
                p.fatal_seen = true;
            }
            self.out.push_back(LogItem::Fatal {
                pid: None,
                line,
                message,
            });
        }
    }
}

/// Whether a line that starts with a space holds a prefix after it (an excerpt indented as a
/// Markdown code block).
fn indented_prefix(raw: &[u8]) -> bool {
    let s = trim_start(raw);
    matches!(s, [b'=', b'=', ..] | [b'-', b'-', ..] | [b'*', b'*', ..])
}

/// Whether a debug line does something: the others are not worth opening a process for.
fn debug_line_matters(body: &[u8]) -> bool {
    let t = trim_start(body);
    [
        &b"Reading syms from "[..],
        b"Discarding syms at ",
        b"Archiving syms at ",
        b"Reading suppressions file: ",
        b"used_suppression:",
        b"Valgrind options:",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// Appends a line to a message, up to [`MAX_MESSAGE`] bytes.
pub(super) fn push_line(m: &mut String, line: &str) {
    if m.len() + 1 + line.len() <= MAX_MESSAGE {
        m.push('\n');
        m.push_str(line);
    }
}

/// Whether an unprefixed line is binary junk rather than text.
pub(super) fn is_garbage(raw: &[u8]) -> bool {
    if memchr(0, raw).is_some() {
        return true;
    }
    let ctl = raw
        .iter()
        .filter(|&&c| c < 0x20 && !matches!(c, b'\t' | 0x1b | b'\r' | 0x0c))
        .count();
    ctl * 8 > raw.len()
}
