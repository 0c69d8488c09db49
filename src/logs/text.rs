//! Text logs: a streaming reader of Valgrind's text output (valgrind-semantics.md §3, §5).
//!
//! [`TextReader`] turns the lines of a log into [`LogItem`]s, in log order. It reads bytes
//! (names and paths need not be UTF-8), one line at a time through a reused buffer, and
//! keeps at most one error per process in memory.
//!
//! What it understands:
//!
//! * Line prefixes `==PID== `, `--PID-- `, `**PID** ` (and the old `++PID++ `), with
//!   `--time-stamp=yes` (`==DD:HH:MM:SS.mmm PID== `), with one `>` per nesting level, and
//!   with any text before them on the same line (CI time stamps, `[job 5] `): the prefix
//!   is looked for anywhere in the line. Lines without a prefix are program output and are
//!   ignored, except the `--gen-suppressions` blocks and `valgrind: ` failure lines.
//! * Several processes in one file, their lines interleaved: the state is kept per PID. A
//!   suppression block carries no PID; it is attached to the most recently completed
//!   error that has no block yet.
//! * Each process's preamble (tool, version, command, parent PID, `-v` options), emitted
//!   once as [`LogItem::Preamble`] at the first line that is not part of it. A process that
//!   `exec`s under `--trace-children=yes` prints a new preamble with the same PID; the
//!   reader then starts that PID afresh.
//! * Errors and loss records of Memcheck, Helgrind and DRD, and the core fd errors of
//!   3.23+, with their stacks, aux and origin stacks and `--gen-suppressions` blocks. The
//!   kind comes from the block's `Tool:Kind` line when there is one (it is authoritative),
//!   otherwise from the header text. An unrecognised header that is directly followed by a
//!   stack is still read as an error (DRD `GenericErr`, Helgrind `Misc`, otherwise an empty
//!   kind and a [`LogItem::Warning`]).
//! * `Reading suppressions file:`, `used_suppression:` (parsed from the right, using the
//!   announced suppression files to split the name from the file), `ERROR SUMMARY:` (with
//!   `-v`/`-s` it is printed twice per process and both copies are emitted), `FATAL:`
//!   blocks, `Process terminating with default action of signal …`, and `valgrind: `
//!   failure lines (consecutive ones are one [`LogItem::Fatal`], without a PID).
//! * The `N errors in context i of C:` listing that `-s`/`-v` print after the summary:
//!   those errors were already reported, so they are read and dropped, with their blocks.
//!   The 3.23+ `N errors (suppressed by NAME) in context …` entries are dropped too.
//! * Damage: lines longer than 1 MiB are truncated (one warning each); runs of binary
//!   garbage give one warning per run; an error cut off by the end of the log or by an
//!   unrelated line is dropped with a warning naming its first line; a suppression block
//!   cut off by the end of the log is dropped with a warning. Nothing panics.

use std::collections::VecDeque;
use std::io::BufRead;

use memchr::{memchr, memchr3, memrchr};

use super::record::{
    AuxStack, ErrorRecord, ErrorSummary, GenFrame, GenFrames, GenSuppression, LogItem, LossRecord,
    Preamble, ReadError, Stack, UsedSuppression,
};
use super::scan::{Newlines, last_paren};
use super::stack::{FrameParts, Span, StackFull};
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

/// The longest line kept; longer lines are truncated to this many bytes.
pub const MAX_LINE: usize = 1 << 20;

/// An error longer than this many lines is not one (it would need 40 stacks of 500
/// frames); it is dropped rather than kept growing.
const MAX_ERROR_LINES: u32 = 20_000;

/// Fatal messages are cut at this many bytes.
const MAX_MESSAGE: usize = 64 * 1024;

/// A suppression block longer than this many lines is not one (Valgrind prints at most
/// 500 frames, a few more with inlining).
const MAX_BLOCK_LINES: usize = 10_000;

/// Reads a Valgrind text log as a stream of [`LogItem`]s.
///
/// ```
/// use vgsupp::logs::text::TextReader;
/// use vgsupp::logs::LogItem;
///
/// let log = "==7== Invalid read of size 4\n==7==    at 0x1091B8: rd (a.c:5)\n==7== \n";
/// let items: Vec<LogItem> = TextReader::new(log.as_bytes()).map(Result::unwrap).collect();
/// assert!(matches!(&items[0], LogItem::Error(e) if e.kind == "Addr4"));
/// ```
pub struct TextReader<R: BufRead> {
    reader: R,
    lines: LineSplitter,
    done: bool,
    st: State,
}

impl<R: BufRead> TextReader<R> {
    /// A reader of the text log `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            lines: LineSplitter::default(),
            done: false,
            st: State::new("<text log>"),
        }
    }

    /// Names the log in [`ReadError::Io`] (default `<text log>`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.st.name = name.into();
        self
    }

    /// Reads and processes lines until something is ready to hand out, or handles the end
    /// of the input.
    fn step(&mut self) -> std::io::Result<()> {
        let st = &mut self.st;
        let eof = self.lines.pump(&mut self.reader, |line, truncated| {
            st.line(line, truncated);
            st.out.is_empty()
        })?;
        if eof {
            self.st.finish();
            self.done = true;
        }
        Ok(())
    }
}

/// Splits a byte stream into lines (without their `\n`), cut at [`MAX_LINE`], keeping the
/// line that spans two of the reader's buffers.
#[derive(Debug, Default)]
pub(crate) struct LineSplitter {
    /// A line that spans the reader's buffer boundary.
    partial: Vec<u8>,
    /// Whether `partial` was cut at [`MAX_LINE`].
    partial_truncated: bool,
}

impl LineSplitter {
    /// Hands lines of `reader` to `on_line(line, truncated)` until it returns false (after
    /// at least one line) or the input ends; true when it ended (the last line, without
    /// `\n`, has then been handed out too).
    pub(crate) fn pump<R: BufRead + ?Sized>(
        &mut self,
        reader: &mut R,
        mut on_line: impl FnMut(&[u8], bool) -> bool,
    ) -> std::io::Result<bool> {
        loop {
            let avail = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if !self.partial.is_empty() || self.partial_truncated {
                    on_line(&self.partial, self.partial_truncated);
                    self.partial.clear();
                    self.partial_truncated = false;
                }
                return Ok(true);
            }
            let mut ends = Newlines::new(avail);
            let Some(first) = ends.next() else {
                let n = avail.len();
                push_capped(&mut self.partial, avail, &mut self.partial_truncated);
                reader.consume(n);
                continue;
            };
            // The line that started in an earlier buffer.
            let mut used = first + 1;
            let mut more = if self.partial.is_empty() && !self.partial_truncated {
                let (line, truncated) = cap(&avail[..first]);
                on_line(line, truncated)
            } else {
                push_capped(
                    &mut self.partial,
                    &avail[..first],
                    &mut self.partial_truncated,
                );
                let more = on_line(&self.partial, self.partial_truncated);
                self.partial.clear();
                self.partial_truncated = false;
                more
            };
            // Whole lines in this buffer, without going back to the reader for each.
            while more {
                let Some(end) = ends.next() else {
                    break;
                };
                let (line, truncated) = cap(&avail[used..end]);
                more = on_line(line, truncated);
                used = end + 1;
            }
            reader.consume(used);
            return Ok(false);
        }
    }
}

impl<R: BufRead> Iterator for TextReader<R> {
    type Item = Result<LogItem, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.st.out.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            if let Err(source) = self.step() {
                // Report the error, then hand out what was complete before it.
                self.done = true;
                self.st.finish();
                return Some(Err(ReadError::Io {
                    path: self.st.name.clone(),
                    source,
                }));
            }
        }
    }
}

/// `line`, cut at [`MAX_LINE`].
fn cap(line: &[u8]) -> (&[u8], bool) {
    if line.len() > MAX_LINE {
        (&line[..MAX_LINE], true)
    } else {
        (line, false)
    }
}

/// Appends `more` to `buf` without letting it grow past [`MAX_LINE`].
fn push_capped(buf: &mut Vec<u8>, more: &[u8], truncated: &mut bool) {
    let room = MAX_LINE.saturating_sub(buf.len());
    if more.len() > room {
        *truncated = true;
        buf.extend_from_slice(&more[..room]);
    } else {
        buf.extend_from_slice(more);
    }
}

// ---------------------------------------------------------------------------------------
// Reader state
// ---------------------------------------------------------------------------------------

/// How far a process's preamble has been read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PreState {
    /// Reading it (or nothing seen yet).
    Open,
    /// Inside the `-v` `Valgrind options:` list.
    Options,
    /// Emitted, or there was none.
    Done,
}

/// Where a process is in its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Between errors.
    Idle,
    /// Inside an error: header read, closing blank line not yet.
    Body,
    /// After an error's blank line: it may continue (Helgrind), or get a suppression
    /// block; it is emitted at the next line of this process that is neither.
    AfterBlank,
    /// Inside a Helgrind `---Thread-Announcement---` block.
    Announce,
    /// After a message that is followed by a stack that belongs to no error
    /// (`Warning: …`, pre-3.23 `Open file descriptor …`).
    SkipStack,
}

/// The error being read for a process.
#[derive(Debug, Clone)]
struct Pending {
    rec: ErrorRecord,
    /// One of the `N errors in context i of C:` repeats: read, then dropped.
    repeat: bool,
    /// Identifies this error for a suppression block aimed at it.
    serial: u64,
    /// When it reached [`Phase::AfterBlank`]; the most recent one gets the next block.
    stamp: u64,
    /// Lines read into it.
    lines: u32,
    /// An unrecognised line followed its blank line: no continuation any more, and the
    /// next unrecognised line ends it.
    neutral: bool,
}

/// One process's state.
#[derive(Debug, Clone)]
struct Proc {
    pid: u32,
    tool: Option<Tool>,
    /// The Valgrind release's minor version (3.x).
    minor: Option<u8>,
    pre: Preamble,
    pre_seen: bool,
    pre_state: PreState,
    supp_files: Vec<Vec<u8>>,
    phase: Phase,
    cur: Option<Pending>,
    repeat_next: bool,
    /// The thread of the last `Thread N:` line (Memcheck and DRD start at 1).
    last_tid: Option<u32>,
    /// The last line of this process when it was an unrecognised message, which becomes
    /// an error header if a stack follows directly.
    cand: Vec<u8>,
    cand_line: u64,
    has_cand: bool,
    /// A `FATAL:` or fatal-signal message still collecting its indented lines.
    fatal: Option<(u64, String)>,
    /// Whether a suppression block was attached to an error of this process.
    blocks_seen: bool,
    /// The length of this process's last error stack and the bytes of its names: the
    /// next one is likely as deep.
    depth_hint: usize,
    names_hint: usize,
}

impl Proc {
    fn new(pid: u32) -> Self {
        Self {
            pid,
            tool: None,
            minor: None,
            pre: Preamble::default(),
            pre_seen: false,
            pre_state: PreState::Open,
            supp_files: Vec::new(),
            phase: Phase::Idle,
            cur: None,
            repeat_next: false,
            last_tid: None,
            cand: Vec::new(),
            cand_line: 0,
            has_cand: false,
            fatal: None,
            blocks_seen: false,
            depth_hint: 16,
            names_hint: 1024,
        }
    }
}

/// A `--gen-suppressions` block being read.
#[derive(Debug, Clone)]
struct Block {
    start_line: u64,
    /// The error it belongs to: process index and error serial.
    target: Option<(usize, u64)>,
    /// 0: name expected; 1: `Tool:Kind` expected; 2: extra line or frame; 3: frames.
    stage: u8,
    lines: usize,
    sup: GenSuppression,
}

/// Everything but the input.
#[derive(Debug, Clone)]
pub(crate) struct State {
    name: String,
    line_no: u64,
    out: VecDeque<LogItem>,
    procs: Vec<Proc>,
    /// Index of the last process seen (most logs have one).
    last: usize,
    /// Text before the prefix on the last prefixed line (CI time stamps, `>`…).
    lead: Vec<u8>,
    block: Option<Block>,
    /// Consecutive `valgrind: ` lines.
    vfatal: Option<(u64, String)>,
    garbage_run: bool,
    stamp: u64,
    serial: u64,
    /// Storage for the stacks of errors and blocks to come.
    spares: Spares,
    /// The last prefix found at the start of a line, with its space (`==31893== `), and
    /// what it says: most lines start with the same bytes as the one before.
    last_prefix: Vec<u8>,
    last_prefix_kind: u8,
    last_prefix_pid: u32,
}

/// Storage for the stacks of errors and blocks to come: the next error's, allocated when
/// the previous one is handed out (see [`State::finalize`]), and those of handed-out errors
/// given back ([`Spares::recycle`], by the parallel reader). Not part of the reading state:
/// a clone has none.
#[derive(Debug, Default)]
pub(crate) struct Spares {
    stacks: Vec<Stack>,
    frames: Vec<GenFrames>,
}

impl Clone for Spares {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Spares {
    /// At most this many stacks (and as many blocks' frames) are kept: more than the
    /// errors of one chunk of the parallel reader (about 150 per MiB of a leak log).
    const MAX_KEPT: usize = 256;
    /// Larger ones (a rare huge error) are not kept.
    const MAX_KEPT_FRAMES: usize = 4096;
    const MAX_KEPT_BYTES: usize = 256 << 10;

    /// A stack for an error expected to be `depth` frames deep with `bytes` of names.
    fn stack(&mut self, depth: usize, bytes: usize) -> Stack {
        self.stacks
            .pop()
            .unwrap_or_else(|| Stack::with_capacity(depth, bytes))
    }

    /// Frames for a block of about `depth` frames with `bytes` of names.
    fn frames(&mut self, depth: usize, bytes: usize) -> GenFrames {
        self.frames
            .pop()
            .unwrap_or_else(|| GenFrames::with_capacity(depth, bytes))
    }

    /// Makes sure the next error and block find storage without allocating then.
    fn prepare(&mut self, depth: usize, bytes: usize) {
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
struct Prefix {
    /// Where the prefix starts (text before it is the lead).
    start: usize,
    /// `=`, `-`, `*` or `+`.
    kind: u8,
    pid: u32,
    /// Where the message starts.
    body: usize,
}

impl State {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            line_no: 0,
            out: VecDeque::new(),
            procs: Vec::new(),
            last: 0,
            lead: Vec::new(),
            block: None,
            vfatal: None,
            garbage_run: false,
            stamp: 0,
            serial: 0,
            spares: Spares::default(),
            last_prefix: Vec::new(),
            last_prefix_kind: 0,
            last_prefix_pid: 0,
        }
    }

    fn warn(&mut self, line: u64, message: String) {
        self.out.push_back(LogItem::Warning { line, message });
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
    fn block_frame_line(&mut self, raw: &[u8]) -> bool {
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
    fn stack_frame_line(&mut self, raw: &[u8]) -> bool {
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
        let ready = p.pid == self.last_prefix_pid
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
    fn any_line(&mut self, raw: &[u8], truncated: bool) {
        self.line_no += 1;
        if truncated {
            let n = self.line_no;
            self.warn(n, format!("line longer than {MAX_LINE} bytes; truncated"));
        }
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // Valgrind's own prefixed lines never start with a space: suppression-block lines
        // and program output do (unless a CI lead precedes everything).
        let prefix = if raw.first() == Some(&b' ') && self.lead.is_empty() {
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
                let i = self.proc_index(p.pid);
                let body = &raw[p.body..];
                match p.kind {
                    b'=' => self.user_line(i, body),
                    b'-' | b'+' => self.debug_line(i, body),
                    _ => {} // `**PID**`: client messages (`VALGRIND_PRINTF`)
                }
            }
            None => self.unprefixed(raw),
        }
    }

    /// [`find_prefix`], skipping the parse when `raw` starts with the bytes of the last
    /// prefix found at the start of a line (they parse the same: the parse stops at the
    /// space that ends them).
    fn find_prefix_cached(&mut self, raw: &[u8]) -> Option<Prefix> {
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

    fn proc_index(&mut self, pid: u32) -> usize {
        if let Some(p) = self.procs.get(self.last)
            && p.pid == pid
        {
            return self.last;
        }
        let i = match self.procs.iter().position(|p| p.pid == pid) {
            Some(i) => i,
            None => {
                self.procs.push(Proc::new(pid));
                self.procs.len() - 1
            }
        };
        self.last = i;
        i
    }

    // -- unprefixed lines --------------------------------------------------------------

    /// `line` without the lead of the last prefixed line, when it has the same shape
    /// (digits where it has digits, the same bytes elsewhere).
    fn strip_lead<'a>(&self, line: &'a [u8]) -> &'a [u8] {
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

    fn unprefixed(&mut self, raw: &[u8]) {
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
            for p in &mut self.procs {
                p.has_cand = false;
            }
            return;
        }
        if self.vfatal.is_some() {
            self.flush_vfatal();
        }
        if !self.garbage_run && is_garbage(raw) {
            self.garbage_run = true;
            let n = self.line_no;
            self.warn(n, "binary data in the log; skipped".to_owned());
        }
        // Otherwise program output between Valgrind's lines: ignored.
    }

    fn flush_vfatal(&mut self) {
        if let Some((line, message)) = self.vfatal.take() {
            self.out.push_back(LogItem::Fatal {
                pid: None,
                line,
                message,
            });
        }
    }

    // -- suppression blocks ------------------------------------------------------------

    fn start_block(&mut self) {
        let target = self
            .procs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.phase == Phase::AfterBlank)
            .filter_map(|(i, p)| p.cur.as_ref().map(|c| (i, c)))
            .filter(|(_, c)| c.rec.suppression.is_none())
            .max_by_key(|(_, c)| c.stamp)
            .map(|(i, c)| (i, c.serial));
        let (depth, bytes) = target
            .and_then(|(i, _)| self.procs[i].cur.as_ref())
            .map_or((16, 1024), |c| {
                (c.rec.stack.len() + 1, c.rec.stack.names_len().max(64))
            });
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
    fn block_line(&mut self, s: &[u8]) -> bool {
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

    fn end_block(&mut self) {
        let Some(b) = self.block.take() else { return };
        if b.stage < 2 {
            return; // `{` … `}` without a kind line: not a suppression block
        }
        let target = b.target.filter(|&(i, serial)| {
            let p = &self.procs[i];
            p.phase == Phase::AfterBlank && p.cur.as_ref().is_some_and(|c| c.serial == serial)
        });
        let Some((i, _)) = target else {
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

    // -- prefixed lines ----------------------------------------------------------------

    /// A `==PID==` line.
    fn user_line(&mut self, i: usize, body: &[u8]) {
        let t = trim_end(body);
        if self.procs[i].fatal.is_some() {
            if t.first() == Some(&b' ') {
                if !is_frame(t)
                    && let Some((_, m)) = self.procs[i].fatal.as_mut()
                {
                    push_line(m, &lossy(trim(t)));
                }
                return;
            }
            self.flush_fatal(i);
        }
        let p = &self.procs[i];
        if (p.pre_seen || p.pre_state == PreState::Done) && starts_tool_line(t) {
            // `exec` under --trace-children=yes: a new Valgrind run with the same PID.
            self.reset_proc(i);
        }
        if self.procs[i].pre_state != PreState::Done {
            if self.preamble_line(i, t) {
                return;
            }
            self.flush_preamble(i);
        }
        let blank = t.is_empty();
        match self.procs[i].phase {
            Phase::Body => {
                if blank {
                    self.stamp += 1;
                    let stamp = self.stamp;
                    let p = &mut self.procs[i];
                    p.phase = Phase::AfterBlank;
                    if let Some(c) = p.cur.as_mut() {
                        c.stamp = stamp;
                        c.neutral = false;
                    }
                    return;
                }
                if !self.grow(i) {
                    return;
                }
                if self.frame_line(i, t) {
                    return;
                }
                if t[0] != b' ' && breaks_error(self.procs[i].tool, t) {
                    self.drop_incomplete(i, "an unrelated line interrupts it");
                } else {
                    self.add_aux(i, t);
                    return;
                }
            }
            Phase::AfterBlank => {
                if blank {
                    return;
                }
                let neutral = self.procs[i].cur.as_ref().is_some_and(|c| c.neutral);
                if !neutral && continues_after_blank(self.procs[i].tool, t) {
                    self.procs[i].phase = Phase::Body;
                    self.add_aux(i, t);
                    return;
                }
                if is_frame(t) {
                    if self.procs[i].has_cand {
                        self.finalize(i);
                        self.start_generic(i, t);
                    }
                    return;
                }
                let p = &self.procs[i];
                let class = classify(t, p.tool, p.minor);
                if !neutral && matches!(class, Class::Other) {
                    // Possibly the end marker of --error-markers: the block may still come.
                    if let Some(c) = self.procs[i].cur.as_mut() {
                        c.neutral = true;
                    }
                    self.set_cand(i, t);
                    return;
                }
                self.finalize(i);
                self.idle_class(i, t, class);
                return;
            }
            Phase::Announce => {
                if t.starts_with(b"---") {
                    if find(t, b"Thread-Announcement").is_none() {
                        self.procs[i].phase = Phase::Idle;
                    }
                    return;
                }
                let p = &self.procs[i];
                let class = classify(t, p.tool, p.minor);
                if matches!(class, Class::Header(_) | Class::Summary(_)) {
                    self.procs[i].phase = Phase::Idle;
                    self.idle_class(i, t, class);
                }
                return;
            }
            Phase::SkipStack => {
                if blank || t[0] == b' ' {
                    return;
                }
                self.procs[i].phase = Phase::Idle;
            }
            Phase::Idle => {}
        }
        // Idle.
        if blank {
            self.procs[i].has_cand = false;
            return;
        }
        if is_frame(t) {
            if self.procs[i].has_cand {
                self.start_generic(i, t);
            }
            return;
        }
        let p = &self.procs[i];
        let class = classify(t, p.tool, p.minor);
        self.idle_class(i, t, class);
    }

    /// Acts on a classified line of a process that is between errors.
    fn idle_class(&mut self, i: usize, t: &[u8], class: Class) {
        self.procs[i].has_cand = false;
        match class {
            Class::Header(h) => self.start_error(i, self.line_no, t, h),
            Class::Thread(n) => self.procs[i].last_tid = Some(n),
            Class::Repeat => self.procs[i].repeat_next = true,
            Class::Summary(mut s) => {
                let p = &mut self.procs[i];
                p.repeat_next = false;
                s.pid = Some(p.pid);
                self.emit_for(i, LogItem::Summary(s));
            }
            Class::Announce => self.procs[i].phase = Phase::Announce,
            Class::Separator => {}
            Class::Fatal => self.procs[i].fatal = Some((self.line_no, lossy(t))),
            Class::Skip => self.procs[i].phase = Phase::SkipStack,
            Class::Other => self.set_cand(i, t),
        }
    }

    fn set_cand(&mut self, i: usize, t: &[u8]) {
        let line = self.line_no;
        let p = &mut self.procs[i];
        p.cand.clear();
        p.cand.extend_from_slice(t);
        p.cand_line = line;
        p.has_cand = true;
    }

    /// A `--PID--` line.
    fn debug_line(&mut self, i: usize, body: &[u8]) {
        let t = trim_end(body);
        if self.procs[i].fatal.is_some() {
            self.flush_fatal(i);
        }
        if self.procs[i].pre_state != PreState::Done {
            if self.preamble_line(i, t) {
                return;
            }
            self.flush_preamble(i);
        }
        if let Some(path) = t.strip_prefix(b"Reading suppressions file: ") {
            if self.procs[i].phase == Phase::AfterBlank {
                self.finalize(i);
            }
            let p = &mut self.procs[i];
            p.supp_files.push(path.to_vec());
            let pid = Some(p.pid);
            self.emit_for(
                i,
                LogItem::SuppressionFile {
                    pid,
                    path: path.to_vec(),
                },
            );
        } else if let Some(rest) = t.strip_prefix(b"used_suppression:") {
            if self.procs[i].phase == Phase::AfterBlank {
                self.finalize(i);
            }
            let p = &self.procs[i];
            match parse_used(rest, &p.supp_files) {
                Some(mut u) => {
                    u.pid = Some(p.pid);
                    self.emit_for(i, LogItem::Used(u));
                }
                None => {
                    let n = self.line_no;
                    self.warn(n, "malformed used_suppression line; skipped".to_owned());
                }
            }
        }
    }

    // -- preamble ----------------------------------------------------------------------

    /// Reads `t` into the process's preamble if it is part of it.
    fn preamble_line(&mut self, i: usize, t: &[u8]) -> bool {
        let p = &mut self.procs[i];
        if p.pre_state == PreState::Options {
            if t.starts_with(b"   ") {
                p.pre.options.push(lossy(trim(t)));
                return true;
            }
            p.pre_state = PreState::Open;
        }
        if t.is_empty() {
            return p.pre_seen;
        }
        if let Some(tool) = tool_line(t) {
            p.tool = tool;
            p.pre.tool = tool;
            p.pre_seen = true;
            if matches!(tool, Some(Tool::Memcheck | Tool::Drd)) {
                p.last_tid = Some(1);
            }
            return true;
        }
        if p.pre_seen && t.starts_with(b"Copyright (C)") {
            return true;
        }
        let using = t
            .strip_prefix(b"Using Valgrind-")
            .or_else(|| t.strip_prefix(b"Using valgrind-"));
        if let Some(v) = using {
            let n = v
                .iter()
                .take_while(|c| c.is_ascii_digit() || **c == b'.')
                .count();
            let version = trim_end_byte(&v[..n], b'.');
            if !version.is_empty() {
                p.minor = version
                    .split(|c| *c == b'.')
                    .nth(1)
                    .and_then(|m| std::str::from_utf8(m).ok())
                    .and_then(|m| m.parse().ok());
                p.pre.valgrind_version = Some(lossy(version));
            }
            p.pre_seen = true;
            return true;
        }
        if let Some(cmd) = t.strip_prefix(b"Command: ") {
            p.pre.command = Some(lossy(cmd));
            p.pre_seen = true;
            return true;
        }
        if let Some(ppid) = t.strip_prefix(b"Parent PID: ") {
            p.pre.ppid = take_u32(ppid);
            p.pre_seen = true;
            return true;
        }
        if p.pre_seen && t == b"Valgrind options:" {
            p.pre_state = PreState::Options;
            return true;
        }
        false
    }

    fn flush_preamble(&mut self, i: usize) {
        let p = &mut self.procs[i];
        if p.pre_state == PreState::Done {
            return;
        }
        p.pre_state = PreState::Done;
        if p.pre_seen {
            let mut pre = std::mem::take(&mut p.pre);
            pre.pid = Some(p.pid);
            pre.tool = p.tool;
            self.out.push_back(LogItem::Preamble(pre));
        }
    }

    /// Starts a process over (a new preamble for a PID already seen).
    fn reset_proc(&mut self, i: usize) {
        self.flush_fatal(i);
        self.flush_preamble(i);
        match self.procs[i].phase {
            Phase::Body => self.drop_incomplete(i, "the process restarts (exec)"),
            Phase::AfterBlank => self.finalize(i),
            _ => {}
        }
        let pid = self.procs[i].pid;
        self.procs[i] = Proc::new(pid);
    }

    /// Emits `item` for process `i`, after its preamble.
    fn emit_for(&mut self, i: usize, item: LogItem) {
        self.flush_preamble(i);
        self.out.push_back(item);
    }

    fn flush_fatal(&mut self, i: usize) {
        if let Some((line, message)) = self.procs[i].fatal.take() {
            let pid = Some(self.procs[i].pid);
            self.emit_for(i, LogItem::Fatal { pid, line, message });
        }
    }

    // -- errors ------------------------------------------------------------------------

    fn start_error(&mut self, i: usize, line: u64, text: &[u8], h: Header) {
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
    fn start_generic(&mut self, i: usize, frame: &[u8]) {
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
    fn grow(&mut self, i: usize) -> bool {
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
    fn frame_line(&mut self, i: usize, t: &[u8]) -> bool {
        let Some((ip, what)) = frame_text(t) else {
            return false;
        };
        self.push_frame(i, ip, what);
        true
    }

    /// Adds a frame to the stack the process's error is reading (its own, or the last aux
    /// stack once its own has frames).
    fn push_frame(&mut self, i: usize, ip: Option<u64>, what: &[u8]) {
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

    fn add_aux(&mut self, i: usize, t: &[u8]) {
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
    fn finalize(&mut self, i: usize) {
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
    fn drop_incomplete(&mut self, i: usize, why: &str) {
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

// ---------------------------------------------------------------------------------------
// Resuming at a line (parallel reading, see `super::parallel`)
// ---------------------------------------------------------------------------------------

/// Everything that decides how a [`State`] reads the rest of a log, with line numbers and
/// counters made relative to the line just read. Two states that reached the same line by
/// different routes (one from the start of the log, one from a guessed state at a later
/// line) read the rest of the log identically when their keys are equal: what the key
/// leaves out is a cache (the last prefix, the last process index), an allocation hint
/// (`depth_hint`, `names_hint`, spare vectors) or output already handed out.
#[derive(Debug, PartialEq)]
pub(crate) struct ResumeKey {
    /// The processes in their order (it decides the order of what the end of the log
    /// flushes).
    procs: Vec<ProcKey>,
    lead: Vec<u8>,
    block: Option<BlockKey>,
    vfatal: Option<(i64, String)>,
    garbage_run: bool,
}

#[derive(Debug, PartialEq)]
struct ProcKey {
    pid: u32,
    tool: Option<Tool>,
    minor: Option<u8>,
    pre: Preamble,
    pre_seen: bool,
    pre_state: PreState,
    supp_files: Vec<Vec<u8>>,
    phase: Phase,
    cur: Option<PendingKey>,
    repeat_next: bool,
    last_tid: Option<u32>,
    cand: Option<(Vec<u8>, i64)>,
    fatal: Option<(i64, String)>,
    blocks_seen: bool,
}

#[derive(Debug, PartialEq)]
struct PendingKey {
    /// With `line` zeroed: the relative line is below.
    rec: ErrorRecord,
    line: i64,
    repeat: bool,
    serial: i64,
    stamp: Option<i64>,
    lines: u32,
    neutral: bool,
}

#[derive(Debug, PartialEq)]
struct BlockKey {
    start_line: i64,
    /// The PID and relative serial of the error it is aimed at.
    target: Option<(u32, i64)>,
    stage: u8,
    lines: usize,
    sup: GenSuppression,
}

impl State {
    /// The number of lines read.
    pub(crate) const fn line_no(&self) -> u64 {
        self.line_no
    }

    /// Whether nothing is waiting to be handed out.
    pub(crate) fn is_drained(&self) -> bool {
        self.out.is_empty()
    }

    /// Moves what is ready to be handed out to the end of `items`.
    pub(crate) fn drain_into(&mut self, items: &mut Vec<LogItem>) {
        items.extend(self.out.drain(..));
    }

    /// This state's [`ResumeKey`], relative to the last line read.
    ///
    /// Every struct is destructured without `..`: a field added to the reader's state does
    /// not compile until it is either part of the key or named here as not deciding anything.
    pub(crate) fn resume_key(&self) -> ResumeKey {
        let Self {
            name: _,
            line_no,
            out: _,
            procs,
            last: _,
            lead,
            block,
            vfatal,
            garbage_run,
            stamp,
            serial,
            spares: _,
            last_prefix: _,
            last_prefix_kind: _,
            last_prefix_pid: _,
        } = self;
        let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let rel = |line: u64| signed(line) - signed(*line_no);
        let rel_serial = |s: u64| signed(s) - signed(*serial);
        let pending_key = |c: &Pending| {
            let Pending {
                rec,
                repeat,
                serial,
                stamp: pending_stamp,
                lines,
                neutral,
            } = c;
            PendingKey {
                rec: ErrorRecord {
                    line: 0,
                    ..rec.clone()
                },
                line: rel(rec.line),
                repeat: *repeat,
                serial: rel_serial(*serial),
                stamp: (*pending_stamp != 0).then(|| signed(*pending_stamp) - signed(*stamp)),
                lines: *lines,
                neutral: *neutral,
            }
        };
        let proc_key = |p: &Proc| {
            let Proc {
                pid,
                tool,
                minor,
                pre,
                pre_seen,
                pre_state,
                supp_files,
                phase,
                cur,
                repeat_next,
                last_tid,
                cand,
                cand_line,
                has_cand,
                fatal,
                blocks_seen,
                depth_hint: _,
                names_hint: _,
            } = p;
            ProcKey {
                pid: *pid,
                tool: *tool,
                minor: *minor,
                pre: pre.clone(),
                pre_seen: *pre_seen,
                pre_state: *pre_state,
                supp_files: supp_files.clone(),
                phase: *phase,
                cur: cur.as_ref().map(pending_key),
                repeat_next: *repeat_next,
                last_tid: *last_tid,
                cand: has_cand.then(|| (cand.clone(), rel(*cand_line))),
                fatal: fatal.as_ref().map(|(l, m)| (rel(*l), m.clone())),
                blocks_seen: *blocks_seen,
            }
        };
        let block_key = |b: &Block| {
            let Block {
                start_line,
                target,
                stage,
                lines,
                sup,
            } = b;
            BlockKey {
                start_line: rel(*start_line),
                target: target
                    .and_then(|(i, serial)| Some((procs.get(i)?.pid, rel_serial(serial)))),
                stage: *stage,
                lines: *lines,
                sup: sup.clone(),
            }
        };
        ResumeKey {
            procs: procs.iter().map(proc_key).collect(),
            lead: lead.clone(),
            block: block.as_ref().map(block_key),
            vfatal: vfatal.as_ref().map(|(l, m)| (rel(*l), m.clone())),
            garbage_run: *garbage_run,
        }
    }

    /// Moves `spares` into this state, for the errors it reads.
    pub(crate) fn give_spares(&mut self, spares: Spares) {
        self.spares = spares;
    }

    /// Takes this state's spare storage out.
    pub(crate) fn take_spares(&mut self) -> Spares {
        std::mem::take(&mut self.spares)
    }

    /// A guess at the state of a later part of the same log: what this state knows of
    /// its processes (tools, versions, suppression files), with nothing in progress and no
    /// line read. Reading from a later line with it is right when the [`ResumeKey`]s agree
    /// after that line (see `super::parallel`).
    pub(crate) fn seed(&self) -> Self {
        let mut s = self.clone();
        s.out.clear();
        s.line_no = 0;
        s.block = None;
        s.vfatal = None;
        s.garbage_run = false;
        for p in &mut s.procs {
            p.phase = Phase::Idle;
            p.cur = None;
            p.has_cand = false;
            p.cand.clear();
            p.fatal = None;
        }
        s
    }
}

/// Whether `line`, after `prev`, is a likely place for a reader of a later part of a log to
/// start: a Valgrind message line (prefix, then text) right after the end of a suppression
/// block or after a blank prefixed line, i.e. where errors start. Only a heuristic: whether
/// starting there is right is decided by comparing [`ResumeKey`]s.
pub(crate) fn is_sync_pair(prev: &[u8], line: &[u8]) -> bool {
    let prev = prev.strip_suffix(b"\r").unwrap_or(prev);
    let after = match find_prefix(prev) {
        Some(p) => trim(&prev[p.body.min(prev.len())..]).is_empty(),
        None => trim_end(prev).ends_with(b"}"),
    };
    after
        && find_prefix(line)
            .is_some_and(|p| line.get(p.body).is_some_and(|c| !c.is_ascii_whitespace()))
}

/// Copies a suppression block's facts into its error.
fn apply_block(rec: &mut ErrorRecord, sup: GenSuppression) {
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

// ---------------------------------------------------------------------------------------
// Line classification
// ---------------------------------------------------------------------------------------

/// The facts an error header gives.
#[derive(Debug, Default)]
struct Header {
    kind: String,
    size: Option<u32>,
    param: Option<Vec<u8>>,
    fishy: Option<(Vec<u8>, Vec<u8>)>,
    leak: Option<LossRecord>,
    tid: Option<u32>,
}

impl Header {
    fn new(kind: &str) -> Self {
        Self {
            kind: kind.to_owned(),
            ..Self::default()
        }
    }

    fn tid(mut self, tid: Option<u32>) -> Self {
        self.tid = tid;
        self
    }
}

/// What a line of a process between errors is.
#[derive(Debug)]
enum Class {
    /// An error header or a loss record.
    Header(Header),
    /// `Thread N:` / `Thread N NAME:` before an error (Memcheck, DRD).
    Thread(u32),
    /// `N errors in context i of C:`: the next error is a repeat.
    Repeat,
    Summary(ErrorSummary),
    /// Helgrind `---Thread-Announcement---`.
    Announce,
    /// Helgrind's `-----…` line between errors.
    Separator,
    /// `FATAL: …`, `Process terminating with default action of signal …`.
    Fatal,
    /// A message whose stack belongs to no error.
    Skip,
    /// Anything else.
    Other,
}

fn classify(t: &[u8], tool: Option<Tool>, minor: Option<u8>) -> Class {
    let Some(&first) = t.first() else {
        return Class::Other;
    };
    match first {
        b'0'..=b'9' => {
            if let Some(lr) = parse_leak(t) {
                return Class::Header(Header {
                    leak: Some(lr),
                    ..Header::new("Leak")
                });
            }
            if t.ends_with(b":")
                && find(t, b" in context ").is_some()
                && find(t, b" errors").is_some()
            {
                return Class::Repeat;
            }
        }
        b'I' => {
            if let Some(rest) = t
                .strip_prefix(b"Invalid read of size ")
                .or_else(|| t.strip_prefix(b"Invalid write of size "))
            {
                return sized("Addr", rest);
            }
            if t.starts_with(b"Invalid free() / delete / delete[] / realloc()") {
                return header("Free");
            }
            if t.starts_with(b"Invalid alignment value: ") || t.starts_with(b"Invalid size value: ")
            {
                return header("BadAlign");
            }
            if t.starts_with(b"Illegal memory pool address") {
                return header("Mempool");
            }
        }
        b'U' => {
            if let Some(rest) = t.strip_prefix(b"Use of uninitialised value of size ") {
                return sized("Value", rest);
            }
            if t.ends_with(b" byte(s) found during client check request") {
                return header("User");
            }
            if t.starts_with(b"Unsafe allocation with size of zero") {
                return header("UnsafeZeroSize");
            }
        }
        b'C' => {
            if t.starts_with(b"Conditional jump or move depends on uninitialised value(s)") {
                return header("Cond");
            }
            if t.starts_with(b"Conflicting load by thread ")
                || t.starts_with(b"Conflicting store by thread ")
            {
                let tid = after(t, b" by thread ").and_then(take_u32);
                return Class::Header(Header::new("ConflictingAccess").tid(tid));
            }
        }
        b'S' => {
            if let Some(rest) = t.strip_prefix(b"Syscall param ") {
                let end = [&b" contains "[..], b" points to "]
                    .iter()
                    .filter_map(|n| rfind(rest, n))
                    .max()
                    .unwrap_or(rest.len());
                return Class::Header(Header {
                    param: Some(rest[..end].to_vec()),
                    ..Header::new("Param")
                });
            }
            if t.starts_with(b"Source and destination overlap in ") {
                return header("Overlap");
            }
        }
        b'M' => {
            if t.starts_with(b"Mismatched free() / delete / delete []") {
                return header("Free");
            }
            if t.starts_with(b"Mismatched ") {
                if find(t, b" alignment alloc value: ").is_some() {
                    return header("AlignMismatch");
                }
                if find(t, b" size value: ").is_some() {
                    return header("SizeMismatch");
                }
            }
        }
        b'J' if t.starts_with(b"Jump to the invalid address stated on the next line") => {
            return header("Jump");
        }
        b'A' => {
            if let Some(rest) = t.strip_prefix(b"Argument '")
                && let Some(q) = find(rest, b"' of function ")
            {
                let arg = &rest[..q];
                let rest = &rest[q + b"' of function ".len()..];
                if let Some(h) = find(rest, b" has a fishy") {
                    return Class::Header(Header {
                        fishy: Some((rest[..h].to_vec(), arg.to_vec())),
                        ..Header::new("FishyValue")
                    });
                }
            }
            if t == b"Acquired at:" && tool != Some(Tool::Memcheck) {
                return header("HoldtimeErr");
            }
        }
        b'P' => {
            if t.starts_with(b"Possible data race during ") {
                let tid = after_last(t, b" by thread #").and_then(take_u32);
                return Class::Header(Header::new("Race").tid(tid));
            }
            if t.starts_with(b"Process terminating with default action of signal") {
                return Class::Fatal;
            }
            if t.starts_with(b"Probably a race condition: condition variable ") {
                return header("CondRaceErr");
            }
        }
        b'T' => {
            if let Some(rest) = t.strip_prefix(b"Thread #") {
                return helgrind_thread(rest, minor);
            }
            if let Some(rest) = t.strip_prefix(b"Thread ")
                && t.ends_with(b":")
            {
                let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                if n > 0
                    && (rest.len() == n + 1 || rest[n] == b' ')
                    && let Some(tid) = take_u32(rest)
                {
                    return Class::Thread(tid);
                }
            }
            if t.starts_with(b"The annotation macro ") {
                if find(t, b"<valgrind/helgrind.h>").is_some() {
                    return header("UnimpHgClReq");
                }
                return header("UnimpDrdClReq");
            }
            if t.starts_with(b"The object at address ") && t.ends_with(b"is not a mutex.") {
                return header("MutexErr");
            }
        }
        b'E' => {
            if let Some(rest) = t.strip_prefix(b"ERROR SUMMARY: ")
                && let Some(s) = parse_summary(rest)
            {
                return Class::Summary(s);
            }
        }
        b'F' => {
            if t.starts_with(b"FATAL:") {
                return Class::Fatal;
            }
            if let Some(rest) = t.strip_prefix(b"File descriptor ")
                && rest.first().is_some_and(u8::is_ascii_digit)
            {
                if find(rest, b" is already closed").is_some() {
                    return header("FdBadClose");
                }
                return header("FdBadUse");
            }
        }
        b'O' if t.starts_with(b"Open file descriptor ")
            || (t.starts_with(b"Open AF_") && find(t, b" socket").is_some()) =>
        {
            // An error from 3.23 (--track-fds); before that, a listing.
            return if minor.is_none_or(|m| m >= 23) {
                header("FdNotClosed")
            } else {
                Class::Skip
            };
        }
        b'W' if t.starts_with(b"Warning:") || t.starts_with(b"WARNING:") => {
            return Class::Skip;
        }
        b'-' => {
            if t.starts_with(b"---Thread-Announcement") {
                return Class::Announce;
            }
            if t.len() >= 10 && t.iter().all(|c| *c == b'-') {
                return Class::Separator;
            }
        }
        _ => {}
    }
    if t.ends_with(b" contains unaddressable byte(s)") {
        return header("CoreMem");
    }
    if t.ends_with(b"() with size 0") && !t[..t.len() - 14].contains(&b' ') {
        return header("ReallocZero");
    }
    if find(t, b" invalid size value: ").is_some() {
        return header("BadSize");
    }
    if matches!(tool, None | Some(Tool::Drd))
        && let Some(k) = drd_kind(t)
    {
        return header(k);
    }
    Class::Other
}

fn header(kind: &str) -> Class {
    Class::Header(Header::new(kind))
}

/// `AddrN` / `ValueN` from the text after `… of size `.
fn sized(kind: &str, rest: &[u8]) -> Class {
    match take_u32(rest) {
        Some(n) => Class::Header(Header {
            kind: format!("{kind}{n}"),
            size: Some(n),
            ..Header::default()
        }),
        None => Class::Other,
    }
}

/// A Helgrind header starting `Thread #` (`rest` follows the `#`).
fn helgrind_thread(rest: &[u8], minor: Option<u8>) -> Class {
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let tid = take_u32(rest);
    let r = &rest[n..];
    let kind = if r.starts_with(b" unlocked a not-locked lock at ") {
        "UnlockUnlocked"
    } else if r.starts_with(b" unlocked lock at ") {
        "UnlockForeign"
    } else if r.starts_with(b" unlocked an invalid lock at ") {
        "UnlockBogus"
    } else if r.starts_with(b"'s call to ") {
        "PthAPIerror"
    } else if r.starts_with(b": lock order \"") {
        "LockOrder"
    } else if r.starts_with(b" was created") || r.starts_with(b" is the program's root thread") {
        return Class::Skip; // thread announcement contents
    } else if r.starts_with(b": ") {
        if minor.is_some_and(|m| m >= 21) && find(r, b"dubious").is_some() {
            "Dubious"
        } else {
            "Misc"
        }
    } else {
        return Class::Other;
    };
    Class::Header(Header::new(kind).tid(tid))
}

/// DRD's error kinds other than races, from the message text.
fn drd_kind(t: &[u8]) -> Option<&'static str> {
    let has = |n: &[u8]| find(t, n).is_some();
    if has(b": mutex 0x") {
        Some("MutexErr")
    } else if has(b": condition variable 0x") {
        Some("CondWaitErr")
    } else if has(b": cond 0x") {
        Some(if has(b"locked by thread") {
            "CondDestrErr"
        } else {
            "CondErr"
        })
    } else if has(b": semaphore 0x") {
        Some("SemaphoreErr")
    } else if has(b": barrier 0x") {
        Some("BarrierErr")
    } else if has(b": rwlock 0x") {
        Some("RwlockErr")
    } else if has(b"thread ID 0x") || has(b"invalid thread ID") {
        Some("InvalidThreadId")
    } else {
        None
    }
}

/// Whether `t` (not indented), inside an error of `tool`, means the error was cut off.
fn breaks_error(tool: Option<Tool>, t: &[u8]) -> bool {
    if tool == Some(Tool::Memcheck) {
        // Every line of a Memcheck error but its header is indented.
        return true;
    }
    t.starts_with(b"ERROR SUMMARY:")
        || t.starts_with(b"HEAP SUMMARY:")
        || t.starts_with(b"LEAK SUMMARY:")
        || t.starts_with(b"Possible data race during ")
        || t.starts_with(b"Conflicting load by thread ")
        || t.starts_with(b"Conflicting store by thread ")
        || t.starts_with(b"---")
}

/// Whether `t`, after a blank line inside an error, continues it (Helgrind's multi-part
/// errors).
fn continues_after_blank(tool: Option<Tool>, t: &[u8]) -> bool {
    if matches!(tool, Some(Tool::Memcheck | Tool::Drd)) {
        return false;
    }
    (t[0] == b' ' && !is_frame(t))
        || t.starts_with(b"This conflicts with a previous ")
        || t.starts_with(b"Observed (incorrect) order is: ")
        || t.starts_with(b"Required order was established by ")
        || t.starts_with(b"Locks held:")
}

/// The tool named by a preamble's first line (`Memcheck, a memory error detector`).
fn tool_line(t: &[u8]) -> Option<Option<Tool>> {
    const TOOLS: [(&str, Option<Tool>); 13] = [
        ("Memcheck", Some(Tool::Memcheck)),
        ("Helgrind", Some(Tool::Helgrind)),
        ("DRD", Some(Tool::Drd)),
        ("drd", Some(Tool::Drd)),
        ("Massif", None),
        ("Cachegrind", None),
        ("Callgrind", None),
        ("DHAT", None),
        ("Lackey", None),
        ("Nulgrind", None),
        ("exp-bbv", None),
        ("exp-sgcheck", None),
        ("exp-dhat", None),
    ];
    TOOLS.iter().find_map(|(name, tool)| {
        let rest = t.strip_prefix(name.as_bytes())?;
        (rest.starts_with(b", a ") || rest.starts_with(b", an ") || rest.starts_with(b", the "))
            .then_some(*tool)
    })
}

fn starts_tool_line(t: &[u8]) -> bool {
    matches!(
        t.first(),
        Some(b'M' | b'H' | b'D' | b'd' | b'C' | b'L' | b'N' | b'e')
    ) && tool_line(t).is_some()
}

// ---------------------------------------------------------------------------------------
// Field parsers
// ---------------------------------------------------------------------------------------

/// `s.starts_with(p)` for a `p` of at most 32 bytes, without a call to `memcmp`: two
/// overlapping word compares when `p` has 8 to 16 bytes (`==12345== `).
fn starts_with_short(s: &[u8], p: &[u8]) -> bool {
    let n = p.len();
    if s.len() < n {
        return false;
    }
    let word = |b: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        u64::from_ne_bytes(w)
    };
    if (8..=16).contains(&n) {
        return word(s, 0) == word(p, 0) && word(s, n - 8) == word(p, n - 8);
    }
    s.iter().zip(p).all(|(a, b)| a == b)
}

/// Finds the Valgrind prefix of a line, at its start or anywhere in it.
fn find_prefix(line: &[u8]) -> Option<Prefix> {
    if let Some(&c) = line.first()
        && matches!(c, b'=' | b'-' | b'*' | b'+')
        && let Some(p) = prefix_at(line, 0)
    {
        return Some(p);
    }
    let mut from = 1;
    while from < line.len() {
        let k = memchr3(b'=', b'-', b'*', &line[from..])?;
        let i = from + k;
        if let Some(p) = prefix_at(line, i) {
            return Some(p);
        }
        from = i + 1;
    }
    None
}

/// Parses `CC[DD:HH:MM:SS.mmm ]PIDCC[ ]` at `i`.
fn prefix_at(line: &[u8], i: usize) -> Option<Prefix> {
    let c = line[i];
    if line.get(i + 1) != Some(&c) {
        return None;
    }
    let mut j = i + 2;
    let (mut pid, mut n) = digits_at(line, j);
    j += n;
    if line.get(j) == Some(&b':') {
        // --time-stamp=yes: `DD:HH:MM:SS.mmm ` before the PID.
        while j < line.len() && (line[j].is_ascii_digit() || line[j] == b':' || line[j] == b'.') {
            j += 1;
        }
        if line.get(j) != Some(&b' ') {
            return None;
        }
        j += 1;
        (pid, n) = digits_at(line, j);
        j += n;
    }
    if n == 0 || n > 10 || line.get(j) != Some(&c) || line.get(j + 1) != Some(&c) {
        return None;
    }
    j += 2;
    match line.get(j) {
        Some(b' ') => j += 1,
        None => {}
        Some(_) => return None,
    }
    Some(Prefix {
        start: i,
        kind: c,
        pid: u32::try_from(pid).ok()?,
        body: j,
    })
}

/// The value and length of the decimal digits at `line[j..]` (at most 19 are summed).
fn digits_at(line: &[u8], j: usize) -> (u64, usize) {
    let mut v = 0u64;
    let mut n = 0;
    for &d in line.get(j..).unwrap_or_default() {
        if !d.is_ascii_digit() {
            break;
        }
        if n < 19 {
            v = v * 10 + u64::from(d - b'0');
        }
        n += 1;
    }
    (v, n)
}

/// Whether `t` is a frame line (`   at 0x…:` / `   by 0x…:`).
fn is_frame(t: &[u8]) -> bool {
    let s = trim_start(t);
    s.len() < t.len() && (s.starts_with(b"at 0x") || s.starts_with(b"by 0x"))
}

/// Reads a frame line (`VG_(describe_IP)`): `at 0xADDR: WHAT` gives the address and WHAT
/// (a part of `t`, which [`describe`] reads from the right).
fn frame_text(t: &[u8]) -> Option<(Option<u64>, &[u8])> {
    let s = trim_start(t);
    let rest = match s {
        [b'a', b't', b' ', b'0', b'x', rest @ ..] | [b'b', b'y', b' ', b'0', b'x', rest @ ..] => {
            rest
        }
        _ => return None,
    };
    // The address and its colon, in one pass (the usual case), else as Valgrind's
    // printer may have left it.
    let mut v = 0u64;
    let mut hex = 0;
    for &c in rest {
        let Some(d) = hex_value(c) else { break };
        v = (v << 4) | u64::from(d);
        hex += 1;
    }
    let (colon, ip) = if rest.get(hex) == Some(&b':') {
        (hex, (1..=16).contains(&hex).then_some(v))
    } else {
        let colon = memchr(b':', rest)?;
        (colon, parse_hex(&rest[..colon]))
    };
    let what = &rest[colon + 1..];
    Some((ip, trim(what.strip_prefix(b" ").unwrap_or(what))))
}

/// Appends the frame at `ip` described by `what` to `stack`, copying `what` once. One
/// function from the description to the stored slot: the parts stay in registers.
#[inline(never)]
fn push_described(stack: &mut Stack, ip: Option<u64>, what: &[u8]) -> Result<(), StackFull> {
    stack.push_parts(what, &describe(ip, what))
}

/// The frame at `ip` whose text is `w` (`fn (file:line)`, `fn (in obj)`, `???`, …), as
/// parts of `w`.
#[inline]
fn describe(ip: Option<u64>, w: &[u8]) -> FrameParts {
    let mut f = FrameParts::new(ip);
    if w == b"???" {
        return f;
    }
    let n = w.len();
    if w.last() == Some(&b')') {
        let found = file_line_parens(w).or_else(|| {
            let p = location_parens(w)?;
            let line = p.colon.and_then(|c| parse_u32(&w[c + 1..n - 1]));
            Some((p, line))
        });
        if let Some((Parens { open, colon, slash }, line)) = found
            && open >= 1
            && w[open - 1] == b' '
        {
            let fun = (&w[..open - 1] != b"???").then(|| Span::of(0, open - 1));
            if w[open + 1..n - 1].starts_with(b"in ") {
                f.obj = Span::of(open + 4, n - 1);
                f.fun = fun.unwrap_or(f.fun);
                return f;
            }
            if let Some(c) = colon
                && let Some(line) = line
            {
                f.file = Span::of(open + 1, c);
                if let Some(s) = slash {
                    f.dir = Span::of(open + 1, s);
                }
                f.line = Some(line);
                f.fun = fun.unwrap_or(f.fun);
                return f;
            }
        }
    }
    f.fun = Span::of(0, n);
    f
}

/// [`location_parens`] and the line number for the usual `… (file.c:123)`, read in one
/// backward pass that parses the digits on the way; `None` for any other form (the
/// general search then decides).
fn file_line_parens(w: &[u8]) -> Option<(Parens, Option<u32>)> {
    let close = w.len().checked_sub(1)?;
    // At most 9 digits: they always fit a u32 (longer numbers take the general path).
    let mut i = close;
    let mut line = 0u32;
    let mut scale = 1u32;
    while i > 0 && close - i < 9 {
        let d = w[i - 1].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        line += u32::from(d) * scale;
        scale = scale.wrapping_mul(10);
        i -= 1;
    }
    if i == close || i == 0 || w[i - 1] != b':' {
        return None;
    }
    let colon = i - 1;
    match last_paren(w, colon) {
        (Some(open), slash) if w[open] == b'(' => {
            let parens = Parens {
                open,
                colon: Some(colon),
                slash,
            };
            Some((parens, Some(line)))
        }
        _ => None,
    }
}

/// Where the parts of a frame's final `(…)` are.
#[derive(Debug, PartialEq, Eq)]
struct Parens {
    /// The `(` matching the final `)`.
    open: usize,
    /// The last `:` inside.
    colon: Option<usize>,
    /// The last `/` between `open` and `colon` (the end of the file's directory).
    slash: Option<usize>,
}

/// For a `w` that ends in `)`: where the matching `(`, the last `:` inside and the last
/// `/` before that `:` are.
fn location_parens(w: &[u8]) -> Option<Parens> {
    // Usually the last parenthesis before the final `)` is the `(` that opens it
    // (`(file.c:12)`, `(in /path/lib.so)`): no other parenthesis inside.
    let inner_end = w.len().checked_sub(1)?;
    if let (Some(open), _) = last_paren(w, inner_end)
        && w[open] == b'('
    {
        let inner = open + 1;
        let colon = memrchr(b':', &w[inner..inner_end]).map(|c| inner + c);
        let slash = colon.and_then(|c| memrchr(b'/', &w[inner..c]).map(|s| inner + s));
        return Some(Parens { open, colon, slash });
    }
    nested_parens(w, inner_end)
}

/// [`location_parens`] for a location with parentheses inside
/// (`(in /opt/My App (x86)/lib.so)`): they are counted from the end.
fn nested_parens(w: &[u8], inner_end: usize) -> Option<Parens> {
    let mut depth = 0usize;
    for (i, &c) in w.iter().enumerate().rev() {
        if c == b')' {
            depth += 1;
        } else if c == b'(' {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                let colon = w[i + 1..inner_end]
                    .iter()
                    .rposition(|&b| b == b':')
                    .map(|c| i + 1 + c);
                let slash = colon.and_then(|c| {
                    w[i + 1..c]
                        .iter()
                        .rposition(|&b| b == b'/')
                        .map(|s| i + 1 + s)
                });
                return Some(Parens {
                    open: i,
                    colon,
                    slash,
                });
            }
        }
    }
    None
}

/// Plain decimal digits that fit a `u32` (as [`parse_digits`] then `u32::try_from`).
fn parse_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    let mut n = 0u64;
    for &d in s {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(d - b'0');
    }
    u32::try_from(n).ok()
}

/// The value of each hex digit; 0xFF for other bytes (a table: frame addresses are parsed
/// for every frame line).
const HEX_VALUES: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The value of a hex digit.
fn hex_value(c: u8) -> Option<u8> {
    let v = HEX_VALUES[usize::from(c)];
    (v != 0xFF).then_some(v)
}

/// `N[ (…)] bytes in M[ (…)] blocks are KIND in [new ]loss record i of n`.
fn parse_leak(t: &[u8]) -> Option<LossRecord> {
    let (bytes, _) = take_num(t)?;
    let b = find(t, b" bytes in ")?;
    let (blocks, _) = take_num(&t[b + b" bytes in ".len()..])?;
    let k = find(t, b" blocks are ")?;
    let rest = &t[k + b" blocks are ".len()..];
    let kind = if rest.starts_with(b"definitely lost") {
        LeakKind::Definite
    } else if rest.starts_with(b"indirectly lost") {
        LeakKind::Indirect
    } else if rest.starts_with(b"possibly lost") {
        LeakKind::Possible
    } else if rest.starts_with(b"still reachable") {
        LeakKind::Reachable
    } else {
        return None;
    };
    let r = rfind(rest, b"loss record ")?;
    let rest = &rest[r + b"loss record ".len()..];
    let (index, rest) = take_num(rest)?;
    let (total, _) = take_num(rest.strip_prefix(b" of ")?)?;
    Some(LossRecord {
        kind,
        bytes,
        blocks,
        index,
        total,
    })
}

/// `E errors from C contexts (suppressed: S from SC)`.
fn parse_summary(t: &[u8]) -> Option<ErrorSummary> {
    let (errors, rest) = take_num(t)?;
    let rest = &rest[find(rest, b" from ")? + 6..];
    let (contexts, rest) = take_num(rest)?;
    let rest = &rest[find(rest, b"(suppressed: ")? + 13..];
    let (suppressed, rest) = take_num(rest)?;
    let rest = &rest[find(rest, b" from ")? + 6..];
    let (suppressed_contexts, _) = take_num(rest)?;
    Some(ErrorSummary {
        pid: None,
        errors,
        contexts,
        suppressed,
        suppressed_contexts,
    })
}

/// `%6d NAME FILE:LINE[ suppressed: B bytes in K blocks]` (3.9+) or `%6d NAME`, parsed
/// from the right. `files` are the process's announced suppression files.
fn parse_used(t: &[u8], files: &[Vec<u8>]) -> Option<UsedSuppression> {
    let s = trim_start(t);
    let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let count = parse_digits(&s[..n])?;
    let mut rest = trim_end(s[n..].strip_prefix(b" ")?);
    let mut leak = None;
    if rest.ends_with(b" blocks")
        && let Some(p) = rfind(rest, b" suppressed: ")
    {
        let tail = &rest[p + b" suppressed: ".len()..];
        if let Some((bytes, r)) = take_num(tail)
            && let Some(r) = r.strip_prefix(b" bytes in ")
            && let Some((blocks, r)) = take_num(r)
            && r == b" blocks"
        {
            leak = Some((bytes, blocks));
            rest = &rest[..p];
        }
    }
    let mut used = UsedSuppression {
        pid: None,
        count,
        name: rest.to_vec(),
        file: None,
        line: None,
        leak,
    };
    let Some(c) = memrchr(b':', rest) else {
        return Some(used);
    };
    let Some(line) = parse_digits(&rest[c + 1..]).and_then(|n| u32::try_from(n).ok()) else {
        return Some(used);
    };
    let before = &rest[..c];
    let known = files
        .iter()
        .filter(|f| {
            !f.is_empty()
                && before.len() > f.len()
                && before.ends_with(f)
                && before[before.len() - f.len() - 1] == b' '
        })
        .max_by_key(|f| f.len());
    let split = match known {
        Some(f) => Some(before.len() - f.len() - 1),
        None => memrchr(b' ', before),
    };
    if let Some(sp) = split {
        used.name = before[..sp].to_vec();
        used.file = Some(before[sp + 1..].to_vec());
        used.line = Some(line);
    }
    Some(used)
}

// ---------------------------------------------------------------------------------------
// Byte helpers
// ---------------------------------------------------------------------------------------

/// Appends a line to a message, up to [`MAX_MESSAGE`] bytes.
fn push_line(m: &mut String, line: &str) {
    if m.len() + 1 + line.len() <= MAX_MESSAGE {
        m.push('\n');
        m.push_str(line);
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `*s = lossy(b)`, reusing `s`'s allocation.
fn set_lossy(s: &mut String, b: &[u8]) {
    s.clear();
    s.push_str(&String::from_utf8_lossy(b));
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &s[n..]
}

fn trim_end(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    &s[..s.len() - n]
}

#[inline]
fn trim(s: &[u8]) -> &[u8] {
    // Most texts trimmed have nothing to trim.
    match (s.first(), s.last()) {
        (Some(a), Some(z)) if !a.is_ascii_whitespace() && !z.is_ascii_whitespace() => s,
        _ => trim_end(trim_start(s)),
    }
}

fn trim_start_byte(s: &[u8], b: u8) -> &[u8] {
    let n = s.iter().take_while(|c| **c == b).count();
    &s[n..]
}

fn trim_end_byte(s: &[u8], b: u8) -> &[u8] {
    let n = s.iter().rev().take_while(|c| **c == b).count();
    &s[..s.len() - n]
}

/// Plain decimal digits (no sign, no separators).
fn parse_digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')))
}

/// A leading number with optional thousands separators (`1,234`), and the rest.
fn take_num(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut n: u64 = 0;
    let mut len = 0;
    let mut digits = 0;
    for &c in s {
        match c {
            b'0'..=b'9' => {
                n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                digits += 1;
            }
            b',' if digits > 0 => {}
            _ => break,
        }
        len += 1;
    }
    (digits > 0).then_some((n, &s[len..]))
}

fn take_u32(s: &[u8]) -> Option<u32> {
    take_num(s).and_then(|(n, _)| u32::try_from(n).ok())
}

fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    let mut n = 0u64;
    for &c in s {
        n = (n << 4) | u64::from(hex_value(c)?);
    }
    Some(n)
}

/// Where `needle` first occurs in `hay` (for short lines: no searcher to set up).
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(k) = memchr(first, &hay[from..]) {
        let i = from + k;
        if hay[i + 1..].starts_with(rest) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// Where `needle` last occurs in `hay`.
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut end = hay.len();
    while let Some(i) = memrchr(first, &hay[..end]) {
        if hay[i + 1..].starts_with(rest) {
            return Some(i);
        }
        end = i;
    }
    None
}

/// The text after the first `needle`.
fn after<'a>(t: &'a [u8], needle: &[u8]) -> Option<&'a [u8]> {
    find(t, needle).map(|p| &t[p + needle.len()..])
}

/// The text after the last `needle`.
fn after_last<'a>(t: &'a [u8], needle: &[u8]) -> Option<&'a [u8]> {
    rfind(t, needle).map(|p| &t[p + needle.len()..])
}

/// Whether an unprefixed line is binary junk rather than text.
fn is_garbage(raw: &[u8]) -> bool {
    if memchr(0, raw).is_some() {
        return true;
    }
    let ctl = raw
        .iter()
        .filter(|&&c| c < 0x20 && !matches!(c, b'\t' | 0x1b | b'\r' | 0x0c))
        .count();
    ctl * 8 > raw.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::Frame;

    /// A frame line as the reader stores it.
    fn parse_frame(t: &[u8]) -> Option<Frame<'_>> {
        let (ip, what) = frame_text(t)?;
        Some(describe(ip, what).view(what))
    }

    fn read(log: &str) -> Vec<LogItem> {
        read_bytes(log.as_bytes())
    }

    fn read_bytes(log: &[u8]) -> Vec<LogItem> {
        TextReader::new(log)
            .map(|r| r.expect("in-memory read"))
            .collect()
    }

    fn errors(items: &[LogItem]) -> Vec<&ErrorRecord> {
        items.iter().filter_map(LogItem::as_error).collect()
    }

    fn warnings(items: &[LogItem]) -> Vec<(u64, &str)> {
        items.iter().filter_map(LogItem::as_warning).collect()
    }

    fn fun<'a>(f: &Frame<'a>) -> &'a [u8] {
        f.fun.unwrap_or(b"???")
    }

    #[test]
    fn prefixes() {
        let p = find_prefix(b"==123== Invalid read").expect("plain");
        assert_eq!((p.start, p.kind, p.pid, p.body), (0, b'=', 123, 8));
        let p = find_prefix(b"--9-- used").expect("debug");
        assert_eq!((p.kind, p.pid), (b'-', 9));
        let p = find_prefix(b"**77** client").expect("client");
        assert_eq!((p.kind, p.pid), (b'*', 77));
        let p = find_prefix(b"==00:00:00:01.239 26593== HEAP SUMMARY:").expect("time stamp");
        assert_eq!((p.pid, p.body), (26593, 26));
        let p = find_prefix(b">>==5== x").expect("nested");
        assert_eq!((p.start, p.pid), (2, 5));
        let p = find_prefix(b"2026-11-30T10:00:00.123Z ==123== Invalid").expect("ci");
        assert_eq!((p.start, p.pid), (25, 123));
        let p = find_prefix(b"[job 5] --4-- x").expect("job");
        assert_eq!((p.start, p.kind, p.pid), (8, b'-', 4));
        let p = find_prefix(b"==12==").expect("blank without trailing space");
        assert_eq!(p.body, 6);
        assert!(find_prefix(b"a == b == c").is_none());
        assert!(find_prefix(b"==12==x").is_none());
        assert!(find_prefix(b"==99999999999== x").is_none());
        assert!(find_prefix(b"   fun:x86_64-linux--gnu").is_none());
        assert!(find_prefix(b"").is_none());
        assert!(find_prefix(b"=").is_none());
    }

    /// [`location_parens`] as first written: one backward pass a byte at a time (then
    /// the same count of nested parentheses).
    fn location_parens_slowly(w: &[u8]) -> Option<Parens> {
        let inner_end = w.len().checked_sub(1)?;
        let (mut colon, mut slash) = (None, None);
        for i in (0..inner_end).rev() {
            match w[i] {
                b'(' => {
                    return Some(Parens {
                        open: i,
                        colon,
                        slash,
                    });
                }
                b')' => break,
                b':' if colon.is_none() => colon = Some(i),
                b'/' if colon.is_some() && slash.is_none() => slash = Some(i),
                _ => {}
            }
        }
        nested_parens(w, inner_end)
    }

    #[test]
    fn file_line_parens_agrees_with_the_general_search() {
        // Every string of up to 7 bytes over the bytes that matter, ending in `)`.
        let alphabet = b"():/ 0a9";
        let mut checked = 0;
        for len in 0..7u32 {
            for mut code in 0..8usize.pow(len) {
                let mut w: Vec<u8> = (0..len)
                    .map(|_| {
                        let c = alphabet[code % 8];
                        code /= 8;
                        c
                    })
                    .collect();
                w.push(b')');
                assert_eq!(
                    location_parens(&w),
                    location_parens_slowly(&w),
                    "{:?}",
                    lossy(&w)
                );
                if let Some((p, line)) = file_line_parens(&w) {
                    let general = location_parens(&w).expect("the general search finds it");
                    let n = w.len();
                    let general_line = general.colon.and_then(|c| parse_u32(&w[c + 1..n - 1]));
                    assert_eq!((&p, line), (&general, general_line), "{:?}", lossy(&w));
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // Long line numbers: up to 9 digits here, longer ones (leading zeros) in general.
        let nine = b"f (a.c:123456789)";
        assert_eq!(
            file_line_parens(nine).map(|(_, l)| l),
            Some(Some(123_456_789))
        );
        assert_eq!(file_line_parens(b"f (a.c:0123456789)"), None);
        let f = parse_frame(b"   by 0x1: f (a.c:00000000042)").expect("f");
        assert_eq!((f.file, f.line), (Some(&b"a.c"[..]), Some(42)));
        let f = parse_frame(b"   by 0x1: f (a.c:4294967296)").expect("f");
        assert_eq!((f.fun, f.line), (Some(&b"f (a.c:4294967296)"[..]), None));
    }

    #[test]
    fn hex_digits() {
        for c in 0..=255u8 {
            let want = (c as char).to_digit(16).map(|d| d as u8);
            assert_eq!(hex_value(c), want, "{c:#x}");
        }
    }

    #[test]
    fn frames() {
        let f = parse_frame(b"   at 0x4C2B955: calloc (vg_replace_malloc.c:711)").expect("f");
        assert_eq!(f.ip, Some(0x4C2B955));
        assert_eq!(fun(&f), b"calloc");
        assert_eq!(f.file, Some(&b"vg_replace_malloc.c"[..]));
        assert_eq!((f.line, f.dir, f.obj), (Some(711), None, None));

        let f = parse_frame(b"   by 0x1: fn (src/dir/file.c:12)").expect("f");
        assert_eq!(f.file, Some(&b"src/dir/file.c"[..]));
        assert_eq!(f.dir, Some(&b"src/dir"[..]));

        let f = parse_frame(b"   by 0x52B5E71: g_private_get (in /usr/lib64/libglib-2.0.so.0)")
            .expect("f");
        assert_eq!(fun(&f), b"g_private_get");
        assert_eq!(f.obj, Some(&b"/usr/lib64/libglib-2.0.so.0"[..]));
        assert_eq!(f.file, None);

        let f = parse_frame(b"   by 0x1: fn (in ???)").expect("f");
        assert_eq!((fun(&f), f.obj), (&b"fn"[..], Some(&b"???"[..])));

        let f = parse_frame(b"   by 0x52B5E71: ??? (in /usr/lib/x.so)").expect("f");
        assert_eq!((f.fun, f.obj), (None, Some(&b"/usr/lib/x.so"[..])));

        let f = parse_frame(b"   by 0x2: ??? (file.c:3)").expect("f");
        assert_eq!((f.fun, f.line), (None, Some(3)));

        let f = parse_frame(b"   by 0x1FFEFFF986: ???").expect("f");
        assert_eq!((f.ip, f.fun, f.obj), (Some(0x1FFEFFF986), None, None));

        let f =
            parse_frame(b"   by 0x4E3C249: (below main) (libc_start_call_main.h:58)").expect("f");
        assert_eq!(fun(&f), b"(below main)");
        assert_eq!(f.line, Some(58));

        let f = parse_frame(b"   by 0x4E3C249: (below main)").expect("f");
        assert_eq!((fun(&f), f.file), (&b"(below main)"[..], None));

        let f = parse_frame(
            b"   at 0x484320F: operator new[](unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)",
        )
        .expect("f");
        assert_eq!(fun(&f), b"operator new[](unsigned long)");

        let f = parse_frame(
            b"   by 0x7: pybind11::cpp_function::initialize<f, int, int>(f&&, int (*)(int))::{lambda(pybind11::detail::function_call&)#3}::operator()(pybind11::detail::function_call&) const (pybind11.h:600)",
        )
        .expect("f");
        assert_eq!(
            fun(&f),
            &b"pybind11::cpp_function::initialize<f, int, int>(f&&, int (*)(int))::{lambda(pybind11::detail::function_call&)#3}::operator()(pybind11::detail::function_call&) const"[..]
        );
        assert_eq!((f.file, f.line), (Some(&b"pybind11.h"[..]), Some(600)));

        let f = parse_frame(b"   by 0x8: ns::Box<long>::get(int) const").expect("no location");
        assert_eq!(fun(&f), b"ns::Box<long>::get(int) const");

        let f = parse_frame(b"   at 0x9: f (in /opt/My App (x86)/lib.so)").expect("parens");
        assert_eq!(f.obj, Some(&b"/opt/My App (x86)/lib.so"[..]));

        // The file's directory ends at its last `/`, wherever the other `:`, `/` and
        // parentheses are.
        let loc = |line: &'static [u8]| {
            let f = parse_frame(line).expect("frame");
            (f.fun, f.dir, f.file, f.line)
        };
        assert_eq!(
            loc(b"   by 0x9: f (/opt/My App (x86)/src/x.c:7)"),
            (
                Some(&b"f"[..]),
                Some(&b"/opt/My App (x86)/src"[..]),
                Some(&b"/opt/My App (x86)/src/x.c"[..]),
                Some(7)
            )
        );
        assert_eq!(
            loc(b"   by 0x9: f (C:/dir/f.c:3)"),
            (
                Some(&b"f"[..]),
                Some(&b"C:/dir"[..]),
                Some(&b"C:/dir/f.c"[..]),
                Some(3)
            )
        );
        assert_eq!(
            loc(b"   by 0x9: f (/x.c:3)"),
            (Some(&b"f"[..]), Some(&b""[..]), Some(&b"/x.c"[..]), Some(3))
        );
        // Not a location: the whole text is the function.
        assert_eq!(
            loc(b"   by 0x9: f (x.c:1/2)"),
            (Some(&b"f (x.c:1/2)"[..]), None, None, None)
        );
        assert_eq!(
            loc(b"   by 0x9: g(int) (x:y)"),
            (Some(&b"g(int) (x:y)"[..]), None, None, None)
        );

        assert!(parse_frame(b" Address 0x1 is on thread 1's stack").is_none());
        assert!(parse_frame(b"   (thread finished, call stack no longer available)").is_none());
    }

    #[test]
    fn memcheck_headers() {
        let kind = |t: &str| match classify(t.as_bytes(), Some(Tool::Memcheck), Some(27)) {
            Class::Header(h) => h.kind,
            other => format!("{other:?}"),
        };
        assert_eq!(kind("Invalid read of size 4"), "Addr4");
        assert_eq!(kind("Invalid write of size 16"), "Addr16");
        assert_eq!(kind("Use of uninitialised value of size 8"), "Value8");
        assert_eq!(
            kind("Conditional jump or move depends on uninitialised value(s)"),
            "Cond"
        );
        assert_eq!(
            kind("Syscall param write(buf) points to uninitialised byte(s)"),
            "Param"
        );
        assert_eq!(
            kind("Invalid free() / delete / delete[] / realloc()"),
            "Free"
        );
        assert_eq!(kind("Mismatched free() / delete / delete []"), "Free");
        assert_eq!(
            kind("Source and destination overlap in strncpy(0x1ffefffe11, 0x1ffefffe10, 5)"),
            "Overlap"
        );
        assert_eq!(
            kind("Jump to the invalid address stated on the next line"),
            "Jump"
        );
        assert_eq!(
            kind("Argument 'size' of function malloc has a fishy (possibly negative) value: -1"),
            "FishyValue"
        );
        assert_eq!(kind("Illegal memory pool address"), "Mempool");
        assert_eq!(
            kind("Unaddressable byte(s) found during client check request"),
            "User"
        );
        assert_eq!(
            kind("Uninitialised byte(s) found during client check request"),
            "User"
        );
        assert_eq!(
            kind("signal frame contains unaddressable byte(s)"),
            "CoreMem"
        );
        assert_eq!(kind("realloc() with size 0"), "ReallocZero");
        assert_eq!(
            kind("Invalid alignment value: 3 (should be power of 2)"),
            "BadAlign"
        );
        assert_eq!(
            kind("Invalid size value: 16 alignment value: 3 (should be power of 2)"),
            "BadAlign"
        );
        assert_eq!(kind("aligned_alloc() invalid size value: 0"), "BadSize");
        assert_eq!(
            kind("Unsafe allocation with size of zero is implementation-defined"),
            "UnsafeZeroSize"
        );
        assert_eq!(kind("Mismatched new/delete size value: 8"), "SizeMismatch");
        assert_eq!(
            kind("Mismatched new/delete alignment alloc value: 8 dealloc value: default-aligned"),
            "AlignMismatch"
        );
        assert_eq!(
            kind("File descriptor 3: file /tmp/x is already closed"),
            "FdBadClose"
        );
        assert_eq!(
            kind("File descriptor 99 Invalid file descriptor"),
            "FdBadUse"
        );
        assert_eq!(kind("Open file descriptor 3: /dev/pts/1"), "FdNotClosed");
        assert!(matches!(
            classify(
                b"Open file descriptor 3: /x",
                Some(Tool::Memcheck),
                Some(19)
            ),
            Class::Skip
        ));
        assert_eq!(kind("HEAP SUMMARY:"), "Other");

        let Class::Header(h) = classify(
            b"Syscall param sendmsg(msg.msg_iov[0]) contains uninitialised byte(s)",
            None,
            None,
        ) else {
            panic!("param")
        };
        assert_eq!(h.param.as_deref(), Some(&b"sendmsg(msg.msg_iov[0])"[..]));
        let Class::Header(h) = classify(
            b"Argument 'size' of function malloc has a fishy (possibly negative) value: -1",
            None,
            None,
        ) else {
            panic!("fishy")
        };
        assert_eq!(h.fishy, Some((b"malloc".to_vec(), b"size".to_vec())));
        let Class::Header(h) = classify(b"Invalid read of size 4", None, None) else {
            panic!("size")
        };
        assert_eq!(h.size, Some(4));
    }

    #[test]
    fn leak_headers() {
        let lr = parse_leak(b"4 bytes in 1 blocks are definitely lost in loss record 1 of 9")
            .expect("simple");
        assert_eq!(
            (lr.kind, lr.bytes, lr.blocks, lr.index, lr.total),
            (LeakKind::Definite, 4, 1, 1, 9)
        );
        let lr = parse_leak(
            b"1,016 (232 direct, 784 indirect) bytes in 1 blocks are definitely lost in loss record 2,117 of 2,140",
        )
        .expect("direct/indirect");
        assert_eq!((lr.bytes, lr.index, lr.total), (1016, 2117, 2140));
        let lr = parse_leak(
            b"1,000 (+1,000) bytes in 3 (+3) blocks are possibly lost in new loss record 2 of 3",
        )
        .expect("delta");
        assert_eq!(
            (lr.kind, lr.bytes, lr.blocks, lr.index),
            (LeakKind::Possible, 1000, 3, 2)
        );
        let lr = parse_leak(b"32 bytes in 1 blocks are indirectly lost in loss record 5 of 9")
            .expect("indirect");
        assert_eq!(lr.kind, LeakKind::Indirect);
        let lr = parse_leak(b"16,384 bytes in 1 blocks are still reachable in loss record 6 of 6")
            .expect("reachable");
        assert_eq!((lr.kind, lr.bytes), (LeakKind::Reachable, 16384));
        assert!(parse_leak(b"4 bytes in 1 blocks").is_none());
    }

    #[test]
    fn helgrind_and_drd_headers() {
        let kind = |t: &str, tool| match classify(t.as_bytes(), Some(tool), Some(19)) {
            Class::Header(h) => (h.kind, h.tid),
            other => (format!("{other:?}"), None),
        };
        let hg = Tool::Helgrind;
        assert_eq!(
            kind(
                "Possible data race during read of size 4 at 0x10C080 by thread #1",
                hg
            ),
            ("Race".into(), Some(1))
        );
        assert_eq!(
            kind("Thread #1 unlocked a not-locked lock at 0x10C0A0", hg).0,
            "UnlockUnlocked"
        );
        assert_eq!(
            kind(
                "Thread #3 unlocked lock at 0x1 currently held by thread #2",
                hg
            ),
            ("UnlockForeign".into(), Some(3))
        );
        assert_eq!(
            kind("Thread #1 unlocked an invalid lock at 0x524B1D0", hg).0,
            "UnlockBogus"
        );
        assert_eq!(
            kind("Thread #1's call to pthread_mutex_unlock failed", hg).0,
            "PthAPIerror"
        );
        assert_eq!(
            kind(
                "Thread #1: lock order \"0x10C0A0 before 0x10C0E0\" violated",
                hg
            )
            .0,
            "LockOrder"
        );
        assert_eq!(
            kind(
                "Thread #1: Attempt to re-lock a non-recursive lock I already hold",
                hg
            )
            .0,
            "Misc"
        );
        let drd = Tool::Drd;
        assert_eq!(
            kind("Conflicting load by thread 1 at 0x0010c080 size 4", drd),
            ("ConflictingAccess".into(), Some(1))
        );
        assert_eq!(
            kind(
                "Mutex not locked by calling thread: mutex 0x10c0a0, recursion count 0, owner 1.",
                drd
            )
            .0,
            "MutexErr"
        );
        assert_eq!(
            kind("The object at address 0x526c180 is not a mutex.", drd).0,
            "MutexErr"
        );
        assert_eq!(
            kind(
                "Destroying condition variable that is being waited upon: cond 0x1",
                drd
            )
            .0,
            "CondErr"
        );
        assert_eq!(
            kind("Invalid semaphore: semaphore 0x1", drd).0,
            "SemaphoreErr"
        );
        assert_eq!(kind("Acquired at:", drd).0, "HoldtimeErr");
        assert!(matches!(
            classify(b"Thread 2:", None, None),
            Class::Thread(2)
        ));
        assert!(matches!(
            classify(b"Thread 3 rustc:", None, None),
            Class::Thread(3)
        ));
        assert!(matches!(
            classify(b"1 errors in context 2 of 17:", None, None),
            Class::Repeat
        ));
        assert!(matches!(
            classify(
                b"3 errors (suppressed by my rule) in context 4 of 9:",
                None,
                None
            ),
            Class::Repeat
        ));
    }

    #[test]
    fn used_suppressions() {
        let files = vec![
            b"my.supp".to_vec(),
            b"/usr/libexec/valgrind/default.supp".to_vec(),
        ];
        let u = parse_used(
            b"      1 my overlap rule: see x.c:12 (#42) my.supp:3",
            &files,
        )
        .expect("used");
        assert_eq!(u.count, 1);
        assert_eq!(u.name, b"my overlap rule: see x.c:12 (#42)");
        assert_eq!(u.file.as_deref(), Some(&b"my.supp"[..]));
        assert_eq!((u.line, u.leak), (Some(3), None));

        let u = parse_used(
            b"      5 reachable keep rule my.supp:9 suppressed: 1,100 bytes in 5 blocks",
            &files,
        )
        .expect("leak");
        assert_eq!(
            (u.count, u.name.as_slice()),
            (5, &b"reachable keep rule"[..])
        );
        assert_eq!((u.line, u.leak), (Some(9), Some((1100, 5))));

        let u = parse_used(
            b" 1234567 zlib-1.2.x trickyness (1a): See http://www.zlib.net/zlib_faq.html#faq36 /usr/libexec/valgrind/default.supp:512",
            &files,
        )
        .expect("default.supp");
        assert_eq!(
            u.name,
            b"zlib-1.2.x trickyness (1a): See http://www.zlib.net/zlib_faq.html#faq36"
        );
        assert_eq!(u.count, 1_234_567);

        let u =
            parse_used(b"     12 a name with spaces /unknown/file.supp:7", &[]).expect("fallback");
        assert_eq!(u.name, b"a name with spaces");
        assert_eq!(u.file.as_deref(), Some(&b"/unknown/file.supp"[..]));

        let u = parse_used(b"     12 old style name", &[]).expect("old");
        assert_eq!(
            (u.name.as_slice(), u.file.as_deref(), u.line),
            (&b"old style name"[..], None, None)
        );
        assert!(parse_used(b"   x", &[]).is_none());
    }

    const MC: &str = "\
==10== Memcheck, a memory error detector
==10== Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.
==10== Using Valgrind-3.19.0-8d3c8034b8-20220411 and LibVEX; rerun with -h for copyright info
==10== Command: ./errs a b
==10== Parent PID: 9
==10== 
--10-- 
--10-- Valgrind options:
--10--    -v
--10--    --gen-suppressions=all
--10-- Contents of /proc/version:
--10-- Reading suppressions file: my.supp
==10== Invalid read of size 4
==10==    at 0x10945E: main (errs.cpp:24)
==10==  Address 0x4d6dca8 is 0 bytes after a block of size 40 alloc'd
==10==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==10==    by 0x109455: main (errs.cpp:23)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:main
}
program output here
==10== Thread 2:
==10== Syscall param write(buf) points to uninitialised byte(s)
==10==    at 0x4B6D350: write (write.c:26)
==10==  Uninitialised value was created by a heap allocation
==10==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Param
   write(buf)
   fun:write
}
==10== 64 (32 direct, 32 indirect) bytes in 1 blocks are definitely lost in loss record 7 of 9
==10==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==10==    by 0x109639: main (errs.cpp:45)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Leak
   match-leak-kinds: definite
   fun:malloc
   fun:main
}
==10== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 1 from 1)
==10== 
==10== 1 errors in context 1 of 2:
==10== Thread 1:
==10== Invalid read of size 4
==10==    at 0x10945E: main (errs.cpp:24)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:main
}
--10-- 
--10-- used_suppression:      1 my rule: x my.supp:3
==10== 
==10== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 1 from 1)
";

    #[test]
    fn memcheck_log() {
        let items = read(MC);
        assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
        let LogItem::Preamble(pre) = &items[0] else {
            panic!("preamble first: {:?}", items[0])
        };
        assert_eq!(pre.pid, Some(10));
        assert_eq!(pre.ppid, Some(9));
        assert_eq!(pre.tool, Some(Tool::Memcheck));
        assert_eq!(pre.valgrind_version.as_deref(), Some("3.19.0"));
        assert_eq!(pre.command.as_deref(), Some("./errs a b"));
        assert_eq!(pre.options, ["-v", "--gen-suppressions=all"]);
        assert!(
            matches!(&items[1], LogItem::SuppressionFile { pid: Some(10), path } if path == b"my.supp")
        );

        let errs = errors(&items);
        assert_eq!(errs.len(), 3);
        let e = errs[0];
        assert_eq!(
            (e.kind.as_str(), e.size, e.line, e.tid),
            ("Addr4", Some(4), 13, Some(1))
        );
        assert_eq!(e.stack.len(), 1);
        assert_eq!(e.aux.len(), 1);
        assert_eq!(e.aux[0].stack.len(), 2);
        assert!(!e.aux[0].origin);
        let sup = e.suppression.as_ref().expect("block");
        assert_eq!(sup.kind_line, b"Memcheck:Addr4");
        assert_eq!(sup.frames.to_vec(), [GenFrame::Fun(b"main")]);

        let e = errs[1];
        assert_eq!((e.kind.as_str(), e.tid), ("Param", Some(2)));
        assert_eq!(e.param.as_deref(), Some(&b"write(buf)"[..]));
        assert!(e.aux[0].origin);
        assert_eq!(
            e.suppression.as_ref().and_then(|s| s.extra.as_deref()),
            Some(&b"write(buf)"[..])
        );

        let e = errs[2];
        assert_eq!(e.kind, "Leak");
        let lr = e.leak.expect("loss record");
        assert_eq!(
            (lr.kind, lr.bytes, lr.blocks, lr.index, lr.total),
            (LeakKind::Definite, 64, 1, 7, 9)
        );

        let sums: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                LogItem::Summary(s) => Some(*s),
                _ => None,
            })
            .collect();
        assert_eq!(sums.len(), 2);
        assert_eq!(
            (
                sums[0].errors,
                sums[0].contexts,
                sums[0].suppressed,
                sums[0].suppressed_contexts
            ),
            (3, 3, 1, 1)
        );
        let used: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                LogItem::Used(u) => Some(u),
                _ => None,
            })
            .collect();
        assert_eq!(used.len(), 1);
        assert_eq!(used[0].name, b"my rule: x");
        assert_eq!(used[0].file.as_deref(), Some(&b"my.supp"[..]));
    }

    #[test]
    fn interleaved_processes_and_blocks() {
        let log = "\
==1== Invalid read of size 4
==2== Conditional jump or move depends on uninitialised value(s)
==1==    at 0x1: rd (fork.c:5)
==2==    at 0x2: cond (fork.c:6)
==1== 
==2==    by 0x3: main (fork.c:11)
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:rd
}
==2== 
{
   <insert_a_suppression_name_here>
   Memcheck:Cond
   fun:cond
   fun:main
}
";
        let items = read(log);
        assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
        let errs = errors(&items);
        assert_eq!(errs.len(), 2);
        assert_eq!((errs[0].pid, errs[0].kind.as_str()), (Some(1), "Addr4"));
        assert_eq!(
            errs[0].suppression.as_ref().map(|s| s.frames.len()),
            Some(1)
        );
        assert_eq!(
            (errs[1].pid, errs[1].kind.as_str(), errs[1].stack.len()),
            (Some(2), "Cond", 2)
        );
        assert_eq!(
            errs[1].suppression.as_ref().map(|s| s.frames.len()),
            Some(2)
        );
    }

    #[test]
    fn ci_lead_and_nesting() {
        let log = "\
2026-11-30T10:00:00.1234567Z ==5== Invalid write of size 8
2026-11-30T10:00:00.1234568Z ==5==    at 0x1: f (a.c:1)
2026-11-30T10:00:00.1234569Z ==5== 
2026-11-30T10:00:00.1234570Z {
2026-11-30T10:00:00.1234571Z    <insert_a_suppression_name_here>
2026-11-30T10:00:00.1234572Z    Memcheck:Addr8
2026-11-30T10:00:00.1234573Z    fun:f
2026-11-30T10:00:00.1234574Z }
>==6== Invalid read of size 1
>==6==    at 0x2: g (b.c:2)
>==6== 
{
   <insert_a_suppression_name_here>
   Memcheck:Addr1
   fun:g
}
";
        let items = read(log);
        assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
        let errs = errors(&items);
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].kind, "Addr8");
        assert_eq!(
            errs[0].suppression.as_ref().map(|s| s.frames.to_vec()),
            Some(vec![GenFrame::Fun(b"f")])
        );
        assert_eq!((errs[1].pid, errs[1].kind.as_str()), (Some(6), "Addr1"));
        assert!(errs[1].suppression.is_some());
    }

    #[test]
    fn truncated_log() {
        let log = "\
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== 
==3== Invalid write of size 4
==3==    at 0x1: f (a.c:2)
==3==    by 0x";
        let items = read(log);
        let errs = errors(&items);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].kind, "Addr4");
        let w = warnings(&items);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 4);
        assert!(w[0].1.contains("incomplete"), "{w:?}");

        let items =
            read("==3== Invalid read of size 4\n==3==    at 0x1: f (a.c:1)\n==3== \n{\n   x\n");
        assert_eq!(errors(&items).len(), 1);
        assert_eq!(warnings(&items).len(), 1);
    }

    #[test]
    fn garbage_and_long_lines() {
        let mut log =
            b"==3== Invalid read of size 4\n==3==    at 0x1: f (a.c:1)\n==3== \n".to_vec();
        log.extend_from_slice(b"\0\0\0\0\x01\x02\n\0\0\0\n\xff\xfe\0\n");
        log.extend_from_slice(
            b"==3== Invalid read of size 2\n==3==    at 0x1: f (a.c:1)\n==3== \n",
        );
        log.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        log.extend_from_slice(
            b"\n==3== Invalid read of size 8\n==3==    at 0x1: \xff\xfe (a.c:1)\n==3== \n",
        );
        let items = read_bytes(&log);
        let errs = errors(&items);
        assert_eq!(
            errs.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
            ["Addr4", "Addr2", "Addr8"]
        );
        assert_eq!(
            errs[2].stack.get(0).expect("frame").fun,
            Some(&b"\xff\xfe"[..])
        );
        let w = warnings(&items);
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(w[0].0, 4);
        assert_eq!(w[1].0, 10);
    }

    #[test]
    fn helgrind_multi_part_error() {
        let log = "\
==7== Helgrind, a thread error detector
==7== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info
==7== Command: ./race
==7== 
==7== ---Thread-Announcement------------------------------------------
==7== 
==7== Thread #2 was created
==7==    at 0x496CB3F: clone (clone.S:76)
==7== 
==7== ----------------------------------------------------------------
==7== 
==7== Possible data race during read of size 4 at 0x10C080 by thread #1
==7== Locks held: none
==7==    at 0x109229: main (race.c:11)
==7== 
==7== This conflicts with a previous write of size 4 by thread #2
==7== Locks held: none
==7==    at 0x1091AA: worker (race.c:6)
==7==  Address 0x10c080 is 0 bytes inside data symbol \"counter\"
==7== 
{
   <insert_a_suppression_name_here>
   Helgrind:Race
   fun:main
}
==7== ----------------------------------------------------------------
==7== 
==7== Thread #1 unlocked an invalid lock at 0x524B1D0
==7==    at 0x4849C86: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7== 
==7== ERROR SUMMARY: 2 errors from 2 contexts (suppressed: 0 from 0)
";
        let items = read(log);
        assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
        let errs = errors(&items);
        assert_eq!(errs.len(), 2);
        let e = errs[0];
        assert_eq!((e.kind.as_str(), e.tid, e.line), ("Race", Some(1), 12));
        assert_eq!(e.stack.len(), 1);
        assert_eq!(fun(&e.stack.get(0).expect("frame")), b"main");
        assert_eq!(e.aux.len(), 3);
        assert_eq!(
            e.aux[1].what,
            "This conflicts with a previous write of size 4 by thread #2\nLocks held: none"
        );
        assert_eq!(e.aux[1].stack.len(), 1);
        assert!(e.suppression.is_some());
        assert_eq!(
            (errs[1].kind.as_str(), errs[1].tool),
            ("UnlockBogus", Some(Tool::Helgrind))
        );
    }

    #[test]
    fn generic_and_block_kinds() {
        // An unknown DRD message followed by a stack is a GenericErr; the block's kind wins.
        let log = "\
==8== drd, a thread error detector
==8== Command: ./x
==8== 
==8== Something odd happened here
==8==    at 0x1: f (a.c:1)
==8== 
{
   <insert_a_suppression_name_here>
   drd:CondErr
   fun:f
}
==8== Something else
==8==    at 0x1: f (a.c:1)
==8== 
";
        let items = read(log);
        // This process prints blocks, so the last error's missing block is worth a word.
        let w = warnings(&items);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 12);
        let errs = errors(&items);
        assert_eq!(errs.len(), 2);
        assert_eq!((errs[0].kind.as_str(), errs[0].line), ("CondErr", 4));
        assert_eq!(errs[0].what, "Something odd happened here");
        assert_eq!(errs[1].kind, "GenericErr");

        // Memcheck: an unknown header gets an empty kind and a warning.
        let items = read(
            "==8== Memcheck, a memory error detector\n==8== Command: x\n==8== \n==8== Brand new error\n==8==    at 0x1: f (a.c:1)\n==8== \n",
        );
        assert_eq!(errors(&items)[0].kind, "");
        assert_eq!(warnings(&items).len(), 1);
    }

    #[test]
    fn fatal_lines() {
        let log = "\
==4== Memcheck, a memory error detector
==4== Command: /bin/true
==4== 
location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\"
==4== FATAL: in suppressions file \"bad.supp\" near line 4:
==4==    location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\"
==4== exiting now.
valgrind: m_mallocfree.c:303 (get_bszB_as_is): Assertion 'bszB_lo == bszB_hi' failed.
valgrind: Heap block lo/hi size mismatch: lo = 96, hi = 0.
This is probably caused by your program erroneously writing past the
host stacktrace:
==4==    at 0x58047D4A: show_sb_profile (m_mallocfree.c:1)
";
        let items = read(log);
        let fatals: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                LogItem::Fatal { pid, line, message } => Some((*pid, *line, message.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(fatals.len(), 2, "{items:?}");
        assert_eq!(fatals[0].0, Some(4));
        assert_eq!(fatals[0].1, 5);
        assert!(fatals[0].2.starts_with(
            "FATAL: in suppressions file \"bad.supp\" near line 4:\nlocation should be"
        ));
        assert_eq!(fatals[1].0, None);
        assert_eq!(fatals[1].1, 8);
        assert!(fatals[1].2.contains("\nHeap block lo/hi size mismatch"));
        assert!(errors(&items).is_empty());
    }

    #[test]
    fn exec_restarts_a_process() {
        let log = "\
==9== Memcheck, a memory error detector
==9== Command: ./a
==9== 
==9== Memcheck, a memory error detector
==9== Command: ./b
==9== 
==9== Invalid read of size 4
==9==    at 0x1: f (a.c:1)
==9== 
";
        let items = read(log);
        let cmds: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                LogItem::Preamble(p) => p.command.clone(),
                _ => None,
            })
            .collect();
        assert_eq!(cmds, ["./a", "./b"]);
        assert_eq!(errors(&items).len(), 1);
    }

    #[test]
    fn summaries_after_an_error_are_not_part_of_it() {
        // No preamble (-q), so the tool is unknown: the leak summary's indented lines
        // must not continue the last error the way Helgrind's parts do.
        let log = "\
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== 
==3== LEAK SUMMARY:
==3==    definitely lost: 4 bytes in 1 blocks
==3== end-marker
==3== 
";
        let items = read(log);
        let errs = errors(&items);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].aux.is_empty(), "{:?}", errs[0].aux);

        // --error-markers: the end marker comes between the blank line and the block.
        let log = "\
==3== begin-marker
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== 
==3== end-marker
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:f
}
";
        let items = read(log);
        assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
        assert!(errors(&items)[0].suppression.is_some());
    }

    #[test]
    fn runaway_errors_are_dropped() {
        let mut log = String::from("==3== Invalid read of size 4\n");
        for _ in 0..(MAX_ERROR_LINES + 5) {
            log.push_str("==3==    by 0x1: f (a.c:1)\n");
        }
        log.push_str("==3== \n==3== Invalid read of size 2\n==3==    at 0x1: f (a.c:1)\n==3== \n");
        let items = read(&log);
        let errs = errors(&items);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].kind, "Addr2");
        let w = warnings(&items);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 1);
    }

    #[test]
    fn io_errors_name_the_log() {
        struct Failing;
        impl std::io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("boom"))
            }
        }
        let mut r = TextReader::new(std::io::BufReader::new(Failing)).with_name("x.log");
        let err = r.next().expect("an item").expect_err("an error");
        assert_eq!(err.to_string(), "x.log: boom");
        assert!(r.next().is_none());
    }

    /// The items of `bytes` read by `State::line` (with its fast paths) or by
    /// `State::any_line` alone, and how many lines took a fast path.
    fn read_by(bytes: &[u8], fast_paths: bool) -> (Vec<LogItem>, usize) {
        let mut st = State::new("log");
        let mut items = Vec::new();
        let mut fast = 0;
        let mut splitter = LineSplitter::default();
        let mut input = bytes;
        loop {
            let eof = splitter
                .pump(&mut input, |line, truncated| {
                    if fast_paths
                        && !truncated
                        && (st.block_frame_line(line) || st.stack_frame_line(line))
                    {
                        fast += 1;
                    } else {
                        st.any_line(line, truncated);
                    }
                    st.drain_into(&mut items);
                    true
                })
                .expect("in-memory read");
            if eof {
                break;
            }
        }
        st.finish();
        st.drain_into(&mut items);
        (items, fast)
    }

    fn test_log(name: &str) -> Vec<u8> {
        use std::io::Read as _;
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        let raw = std::fs::read(&path).expect("read log");
        if !raw.starts_with(&[0x1f, 0x8b]) {
            return raw;
        }
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(raw.as_slice())
            .take(8 << 20)
            .read_to_end(&mut out)
            .expect("gunzip");
        out
    }

    #[test]
    fn fast_paths_read_like_the_general_one() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/logs/text");
        let mut logs: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log") || n.ends_with(".txt") || n.ends_with(".gz"))
            .map(|n| {
                let bytes = test_log(&format!("tests/data/logs/text/{n}"));
                (n, bytes)
            })
            .collect();
        for p in ["basic", "cxx", "libuse"] {
            let name = format!("tests/data/match/{p}/baseline.txt");
            let bytes = test_log(&name);
            logs.push((name, bytes));
        }
        // Variants: CRLF line ends; lines dropped, doubled and cut (a fixed seed); an
        // error and a block at and past their length limits.
        let mut variants = Vec::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for (name, bytes) in &logs {
            let crlf: Vec<u8> = bytes
                .split_inclusive(|b| *b == b'\n')
                .flat_map(|l| match l.strip_suffix(b"\n") {
                    Some(l) => [l, b"\r\n"].concat(),
                    None => l.to_vec(),
                })
                .collect();
            variants.push((format!("{name} (CRLF)"), crlf));
            let mut damaged = Vec::new();
            for l in bytes.split_inclusive(|b| *b == b'\n') {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                match seed % 40 {
                    0 => {}
                    1 => damaged.extend_from_slice(&[l, l].concat()),
                    2 => damaged.extend_from_slice(&l[..l.len() / 2]),
                    _ => damaged.extend_from_slice(l),
                }
            }
            variants.push((format!("{name} (damaged)"), damaged));
        }
        for frames in [
            MAX_ERROR_LINES - 2,
            MAX_ERROR_LINES - 1,
            MAX_ERROR_LINES + 3,
        ] {
            let mut log = String::from("==7== Invalid read of size 4\n");
            for i in 0..frames {
                log.push_str(&format!("==7==    by 0x{i:X}: f (a.c:{i})\n"));
            }
            log.push_str("==7== \n{\n   x\n   Memcheck:Addr4\n");
            for i in 0..frames / 2 {
                log.push_str(&format!("   fun:f{i}\n"));
            }
            log.push_str("}\n");
            variants.push((format!("{frames} frames"), log.into_bytes()));
        }
        logs.extend(variants);
        let mut fast_total = 0;
        for (name, bytes) in &logs {
            let (general, none) = read_by(bytes, false);
            assert_eq!(none, 0);
            let (fast, n) = read_by(bytes, true);
            fast_total += n;
            assert_eq!(fast.len(), general.len(), "{name}: item count");
            for (i, (f, g)) in fast.iter().zip(&general).enumerate() {
                assert_eq!(f, g, "{name}: item {i}");
            }
        }
        // Not vacuous: most lines of the big logs took a fast path.
        let leaky = test_log("tests/data/logs/text/leaky-ext.txt.gz");
        let lines = leaky.iter().filter(|b| **b == b'\n').count();
        let (_, fast) = read_by(&leaky, true);
        assert!(fast * 10 > lines * 8, "{fast} of {lines} lines");
        assert!(fast_total > fast);
    }

    #[test]
    fn spares_keep_the_storage_of_errors_handed_back() {
        let log = "==7== Invalid read of size 4\n==7==    at 0x1: f (a.c:1)\n==7==    by 0x2: g (b.c:2)\n==7== \n{\n   x\n   Memcheck:Addr4\n   fun:f\n   fun:g\n}\n";
        let mut items = read(&log.repeat(3));
        items.push(LogItem::Warning {
            line: 1,
            message: "not an error".to_owned(),
        });
        items.push(LogItem::Error(ErrorRecord {
            stack: Stack::with_capacity(Spares::MAX_KEPT_FRAMES + 1, 0),
            ..ErrorRecord::default()
        }));
        let mut spares = Spares::default();
        spares.recycle(&mut items);
        assert!(items.is_empty());
        // Three stacks and blocks kept, emptied, with their storage; the huge one is not.
        assert_eq!((spares.stacks.len(), spares.frames.len()), (3, 3));
        assert!(
            spares
                .stacks
                .iter()
                .all(|s| s.is_empty() && s.capacity().0 >= 2)
        );
        assert!(
            spares
                .frames
                .iter()
                .all(|g| g.is_empty() && g.capacity().1 >= 2)
        );
        // A state given them reads its next errors into them, without new stacks.
        let mut st = State::new("log");
        st.give_spares(spares);
        st.line(b"==7== Invalid read of size 4", false);
        assert_eq!(st.spares.stacks.len(), 2);
        st.line(b"==7==    at 0x1: f (a.c:1)", false);
        assert_eq!(
            st.procs[0].cur.as_ref().map(|c| c.rec.stack.to_vec()),
            Some(vec![Frame {
                ip: Some(1),
                fun: Some(b"f"),
                file: Some(b"a.c"),
                line: Some(1),
                ..Frame::default()
            }])
        );
        // Never more than MAX_KEPT.
        let mut many = read(&log.repeat(Spares::MAX_KEPT + 5));
        let mut spares = st.take_spares();
        spares.recycle(&mut many);
        assert_eq!(spares.stacks.len(), Spares::MAX_KEPT);
        assert_eq!(spares.frames.len(), Spares::MAX_KEPT);
        assert_eq!(st.take_spares().stacks.len(), 0, "taken out");
    }
}
