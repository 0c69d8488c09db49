//! Prefixed lines: `==PID==` (user messages, errors), `--PID--` (debug messages) and each
//! process's preamble; the end of a process's output.

use super::classify::{
    Class, breaks_error, classify_relaxed, continues_after_blank, starts_tool_line, tool_line,
};
use super::fields::{is_frame, parse_discarding, parse_reading_syms, parse_used};
use super::state::{Phase, PreState, State, push_line};
use crate::logs::bytes::{find, lossy, take_u32, trim, trim_end, trim_end_byte};
use crate::logs::record::{Gap, LogItem};
use crate::supp::kinds::Tool;

impl State {
    /// A `==PID==` line (or a line of the process without a PID, see
    /// [`State::unprefixed`]).
    pub(super) fn user_line(&mut self, mut i: usize, body: &[u8]) {
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
            i = self.restart_proc(i);
        }
        if self.procs[i].pre_state != PreState::Done {
            if self.preamble_line(i, t) {
                return;
            }
            self.flush_preamble(i);
        }
        let blank = t.is_empty();
        if !is_frame(t) {
            self.procs[i].orphan = false;
        }
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
                        c.stack_done |= !c.rec.stack.is_empty();
                        self.after_blank.push((p.pid, c.serial));
                    }
                    self.trim_after_blank();
                    return;
                }
                if !self.grow(i) {
                    return;
                }
                if self.frame_line(i, t) {
                    return;
                }
                if is_frame(t) {
                    // A frame line that cannot be read (cut short): the stack has a gap.
                    self.frame_gap(i);
                    return;
                }
                let p = &self.procs[i];
                // The process without a PID has no tool to go by: what is not indented
                // is not part of an error.
                let loose = p.pid.is_none();
                if t[0] != b' ' && (loose || breaks_error(p.tool, t)) {
                    self.cut_error(i, "an unrelated line interrupts it");
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
                    if self.has_cand(i) {
                        self.finalize(i);
                        self.start_generic(i, t);
                    } else {
                        // No error starts here: this stack continues the error (a blank line
                        // was inserted) or belongs to none. Its stack may be incomplete.
                        if let Some(c) = self.procs[i].cur.as_mut() {
                            c.rec.truncated = true;
                        }
                        self.orphan_frame(i);
                    }
                    return;
                }
                let p = &self.procs[i];
                let (class, cleaned) = classify_relaxed(t, p.tool, p.minor);
                if !neutral && matches!(class, Class::Other) {
                    // Possibly the end marker of --error-markers: the block may still come.
                    if let Some(c) = self.procs[i].cur.as_mut() {
                        c.neutral = true;
                    }
                    self.set_cand(i, t);
                    return;
                }
                self.finalize(i);
                self.idle_class(i, cleaned.as_deref().unwrap_or(t), class);
                return;
            }
            Phase::Announce => {
                if t.starts_with(b"---") {
                    if find(t, b"Thread-Announcement").is_none() {
                        self.procs[i].phase = Phase::Idle;
                    }
                    return;
                }
                if blank {
                    return;
                }
                if self.context_line(i, t) {
                    return;
                }
                let p = &self.procs[i];
                let (class, cleaned) = classify_relaxed(t, p.tool, p.minor);
                match class {
                    Class::Context => self.start_context(i, t),
                    Class::Header(_) | Class::Summary(_) => {
                        self.procs[i].phase = Phase::Idle;
                        self.idle_class(i, cleaned.as_deref().unwrap_or(t), class);
                    }
                    _ => {}
                }
                return;
            }
            Phase::Context => {
                if blank {
                    self.procs[i].phase = Phase::Idle;
                    return;
                }
                if self.context_line(i, t) {
                    return;
                }
                self.procs[i].phase = Phase::Idle;
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
            if self.has_cand(i) {
                self.start_generic(i, t);
            } else if let Some(l) = self.take_loose(self.procs[i].pid) {
                self.start_loose(i, &l, t);
            } else {
                self.orphan_frame(i);
            }
            return;
        }
        let p = &self.procs[i];
        let (class, cleaned) = classify_relaxed(t, p.tool, p.minor);
        self.idle_class(i, cleaned.as_deref().unwrap_or(t), class);
    }

    /// A frame line that belongs to no error: warned once per run of them.
    fn orphan_frame(&mut self, i: usize) {
        let p = &mut self.procs[i];
        if p.orphan {
            return;
        }
        p.orphan = true;
        let n = self.line_no;
        self.warn_gap(
            n,
            Gap::Dropped,
            "frame lines without an error header before them (the log starts inside a \
             stack, or lines are missing): skipped"
                .to_owned(),
        );
    }

    /// Acts on a classified line of a process that is between errors.
    pub(super) fn idle_class(&mut self, i: usize, t: &[u8], class: Class) {
        self.procs[i].has_cand = false;
        match class {
            Class::Header(h) => self.start_error(i, self.line_no, t, h),
            Class::Thread(n) => self.procs[i].last_tid = Some(n),
            Class::Repeat(r) => self.procs[i].repeat_next = Some(r),
            Class::Summary(mut s) => {
                let p = &mut self.procs[i];
                p.repeat_next = None;
                p.summaries = p.summaries.saturating_add(1);
                // Announcements never belong to what follows a summary.
                p.context.clear();
                p.context_lines = 0;
                s.pid = p.pid;
                // The last summary: the second one (after the listing, `-s`/`-v`), or the
                // only one when no listing follows (the `-s` hint was printed; before 3.15
                // a listing needed `-v`, which prints the options).
                let last = p.summaries >= 2
                    || p.no_list
                    || (p.minor.is_some_and(|m| m < 15) && !p.verbose);
                self.emit_for(i, LogItem::Summary(s));
                if last {
                    self.end_proc(i);
                }
            }
            Class::Announce => self.procs[i].phase = Phase::Announce,
            Class::Context => self.start_context(i, t),
            Class::Separator => {}
            Class::Fatal => self.procs[i].fatal = Some((self.line_no, lossy(t))),
            Class::Skip => self.procs[i].phase = Phase::SkipStack,
            Class::NoList => self.procs[i].no_list = true,
            Class::Limit => {
                let n = self.line_no;
                let pid = pid_text(self.procs[i].pid);
                self.warn_gap(
                    n,
                    Gap::Capped,
                    format!(
                        "Valgrind stopped showing errors of process {pid} here (`{}`): its \
                         later errors are not in the log",
                        lossy(t)
                    ),
                );
            }
            Class::Other => self.set_cand(i, t),
        }
    }

    pub(super) fn set_cand(&mut self, i: usize, t: &[u8]) {
        // An indented line is never an error header: it is part of something else.
        if t.first() == Some(&b' ') {
            self.procs[i].has_cand = false;
            return;
        }
        let line = self.line_no;
        let epoch = self.cand_epoch;
        let p = &mut self.procs[i];
        p.cand.clear();
        p.cand.extend_from_slice(t);
        p.cand_line = line;
        p.has_cand = true;
        p.cand_epoch = epoch;
    }

    /// A `--PID--` line.
    pub(super) fn debug_line(&mut self, i: usize, body: &[u8]) {
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
        if let Some(path) = parse_reading_syms(t) {
            self.debug_item(i);
            let p = &mut self.procs[i];
            // A read that failed is tried again when the object's next segment is mapped:
            // the same load, announced twice.
            let retry = p.syms_failed && p.syms_read.as_deref() == Some(path);
            p.syms_failed = false;
            p.syms_read = Some(path.to_vec());
            if !retry {
                let pid = p.pid;
                let path = path.to_vec();
                self.out.push_back(LogItem::ObjectLoaded { pid, path });
            }
        } else if t.starts_with(b"ELF section outside all mapped regions") {
            let p = &mut self.procs[i];
            p.syms_failed = p.syms_read.is_some();
        } else if let Some((start, end, path)) = parse_discarding(t) {
            self.debug_item(i);
            let p = &mut self.procs[i];
            p.syms_read = None;
            p.syms_failed = false;
            let pid = p.pid;
            let path = path.to_vec();
            self.out.push_back(LogItem::ObjectUnloaded {
                pid,
                path,
                start,
                end,
            });
        } else if let Some(path) = t.strip_prefix(b"Reading suppressions file: ") {
            self.debug_item(i);
            let p = &mut self.procs[i];
            p.supp_files.push(path.to_vec());
            let pid = p.pid;
            self.out.push_back(LogItem::SuppressionFile {
                pid,
                path: path.to_vec(),
            });
        } else if let Some(rest) = t.strip_prefix(b"used_suppression:") {
            self.debug_item(i);
            let p = &self.procs[i];
            match parse_used(rest, &p.supp_files) {
                Some(mut u) => {
                    u.pid = p.pid;
                    self.out.push_back(LogItem::Used(u));
                }
                None => {
                    let n = self.line_no;
                    self.warn(n, "malformed used_suppression line; skipped".to_owned());
                }
            }
        }
    }

    /// Before an item of a debug line: the process's preamble and an error that waited
    /// for a block after its blank line (none comes: the debug line is between them).
    fn debug_item(&mut self, i: usize) {
        if self.procs[i].phase == Phase::AfterBlank {
            self.finalize(i);
        }
        self.flush_preamble(i);
    }

    // -- preamble ----------------------------------------------------------------------

    /// Reads `t` into the process's preamble if it is part of it.
    pub(super) fn preamble_line(&mut self, i: usize, t: &[u8]) -> bool {
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
            p.verbose = true;
            return true;
        }
        false
    }

    pub(super) fn flush_preamble(&mut self, i: usize) {
        let p = &mut self.procs[i];
        if p.pre_state == PreState::Done {
            return;
        }
        p.pre_state = PreState::Done;
        if p.pre_seen {
            let mut pre = std::mem::take(&mut p.pre);
            pre.pid = p.pid;
            pre.tool = p.tool;
            self.out.push_back(LogItem::Preamble(pre));
        }
    }

    /// Ends process `i`'s run and starts a new one with its PID (a new preamble for a PID
    /// already seen): the index of the new one.
    pub(super) fn restart_proc(&mut self, i: usize) -> usize {
        let pid = self.procs[i].pid;
        if self.procs[i].phase == Phase::Body {
            self.cut_error(i, "the process starts again (exec)");
        }
        self.end_proc(i);
        self.proc_index(pid)
    }

    /// Ends process `i`: what it has pending is emitted (an error cut short is kept, see
    /// [`State::cut_error`]), then [`LogItem::ProcessEnd`], and its state is released.
    pub(super) fn end_proc(&mut self, i: usize) {
        self.flush_fatal(i);
        match self.procs[i].phase {
            Phase::Body => {
                self.cut_error(i, "the process's output ends");
            }
            Phase::AfterBlank => self.finalize(i),
            _ => {}
        }
        self.flush_preamble(i);
        let pid = self.procs[i].pid;
        self.out.push_back(LogItem::ProcessEnd { pid });
        self.remove_proc(i);
    }

    /// Emits `item` for process `i`, after its preamble.
    pub(super) fn emit_for(&mut self, i: usize, item: LogItem) {
        self.flush_preamble(i);
        self.out.push_back(item);
    }

    pub(super) fn flush_fatal(&mut self, i: usize) {
        if let Some((line, message)) = self.procs[i].fatal.take() {
            self.procs[i].fatal_seen = true;
            let pid = self.procs[i].pid;
            self.emit_for(i, LogItem::Fatal { pid, line, message });
        }
    }
}

/// How a process is named in messages.
pub(super) fn pid_text(pid: Option<u32>) -> String {
    pid.map_or_else(|| "(no PID)".to_owned(), |p| p.to_string())
}
