//! Prefixed lines: `==PID==` (user messages, errors), `--PID--` (debug messages) and each
//! process's preamble.

use super::classify::{
    Class, breaks_error, classify, continues_after_blank, starts_tool_line, tool_line,
};
use super::fields::{is_frame, parse_used};
use super::state::{Phase, PreState, Proc, State, push_line};
use crate::logs::bytes::{find, lossy, take_u32, trim, trim_end, trim_end_byte};
use crate::logs::record::LogItem;
use crate::supp::kinds::Tool;

impl State {
    /// A `==PID==` line.
    pub(super) fn user_line(&mut self, i: usize, body: &[u8]) {
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
    pub(super) fn idle_class(&mut self, i: usize, t: &[u8], class: Class) {
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

    pub(super) fn set_cand(&mut self, i: usize, t: &[u8]) {
        let line = self.line_no;
        let p = &mut self.procs[i];
        p.cand.clear();
        p.cand.extend_from_slice(t);
        p.cand_line = line;
        p.has_cand = true;
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
            pre.pid = Some(p.pid);
            pre.tool = p.tool;
            self.out.push_back(LogItem::Preamble(pre));
        }
    }

    /// Starts a process over (a new preamble for a PID already seen).
    pub(super) fn reset_proc(&mut self, i: usize) {
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
    pub(super) fn emit_for(&mut self, i: usize, item: LogItem) {
        self.flush_preamble(i);
        self.out.push_back(item);
    }

    pub(super) fn flush_fatal(&mut self, i: usize) {
        if let Some((line, message)) = self.procs[i].fatal.take() {
            let pid = Some(self.procs[i].pid);
            self.emit_for(i, LogItem::Fatal { pid, line, message });
        }
    }
}
