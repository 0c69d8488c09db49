//! Errors: started by a header, grown by frames and aux lines, emitted, matched to the
//! error they repeat (the listing after the summary), kept when cut short; the
//! announcements that precede them; the end of the log.

use std::sync::Arc;

use super::MAX_ERROR_LINES;
use super::classify::{Class, Header, classify_relaxed};
use super::contexts::{Found, Identity, MAX_SHOWN, ShownErrors, either};
use super::fields::{frame_text, is_frame, push_described};
use super::lines::pid_text;
use super::state::{Loose, Pending, Phase, Proc, Repeat, State};
use crate::logs::bytes::{lossy, trim, trim_start};
use crate::logs::record::{AuxStack, ErrorRecord, Gap, LogItem, Stack};
use crate::supp::kinds::Tool;

/// Announcements kept for the next error of a process; older ones give way.
const MAX_CONTEXT: usize = 64;

/// Which error process `p` showed that the listed copy `rec` repeats (a copy cut short may
/// match several errors whose stacks start alike): among those it is known to have shown,
/// and in a guessed state, those the guess says it showed before.
fn shown_by(p: &Proc, rec: &ErrorRecord) -> Found {
    let find = |s: &ShownErrors| {
        if rec.truncated {
            s.find_prefix(rec)
        } else {
            s.find(rec)
        }
    };
    let guessed = p.shown_base.as_deref().map_or(Found::Nothing, find);
    either(guessed, find(&p.shown))
}

/// Whether process `p` cannot remember more shown errors.
fn shown_full(p: &Proc) -> bool {
    p.shown.full || p.shown_base.as_ref().is_some_and(|b| b.full)
}

/// Whether process `p` showed the error that the listed copy `rec` repeats, counting the
/// error it is still reading (its end is seen only at its next line).
fn shows(p: &Proc, rec: &ErrorRecord) -> bool {
    let pending = p
        .cur
        .as_ref()
        .is_some_and(|c| Identity::of(&c.rec).matches(&Identity::of(rec), rec.truncated));
    pending || shown_by(p, rec) != Found::Nothing
}

/// What the end of the log cut short.
struct Cut {
    what: String,
    pid: Option<u32>,
    kept: bool,
    truncated: bool,
}

impl State {
    pub(super) fn start_error(&mut self, i: usize, line: u64, text: &[u8], h: Header) {
        self.flush_preamble(i);
        self.serial += 1;
        let serial = self.serial;
        let p = &mut self.procs[i];
        let rec = ErrorRecord {
            line,
            pid: p.pid,
            tool: p.tool,
            kind: h.kind,
            what: lossy(text),
            size: h.size,
            param: h.param,
            fishy: h.fishy,
            leak: h.leak,
            tid: h.tid.or(p.last_tid),
            stack: self.spares.stack(p.depth_hint, p.names_hint),
            context: std::mem::take(&mut p.context),
            ..ErrorRecord::default()
        };
        p.context_lines = 0;
        p.cur = Some(Pending {
            rec,
            repeat: p.repeat_next.take(),
            serial,
            stamp: 0,
            lines: 1,
            neutral: false,
            stack_done: false,
            gap: false,
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

    /// A header whose prefix was lost (`l`, on the line before) starts an error whose first
    /// frame is `frame`.
    pub(super) fn start_loose(&mut self, i: usize, l: &Loose, frame: &[u8]) {
        let p = &self.procs[i];
        let (Class::Header(h), _) = classify_relaxed(&l.text, p.tool, p.minor) else {
            return;
        };
        self.start_error(i, l.line, &l.text, h);
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
        self.drop_error(i, &format!("longer than {MAX_ERROR_LINES} lines"));
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

    /// Adds a frame to the stack the process's error is reading: its own until that one
    /// is done (a line that is not a frame, or a blank line, came after its frames), then
    /// the last aux stack. Valgrind prints the error's own stack first, so a description
    /// line between the header and the first frame never takes the frames after it.
    pub(super) fn push_frame(&mut self, i: usize, ip: Option<u64>, what: &[u8]) {
        let Some(cur) = self.procs[i].cur.as_mut() else {
            return;
        };
        let done = cur.stack_done;
        let rec = &mut cur.rec;
        let stack = match rec.aux.last_mut() {
            Some(a) if done => &mut a.stack,
            _ if cur.gap => return,
            _ => &mut rec.stack,
        };
        let pushed = push_described(stack, ip, what);
        if pushed.is_err() {
            self.drop_error(i, "its names exceed 4 GiB");
            self.procs[i].phase = Phase::SkipStack;
        }
    }

    /// A frame line of process `i`'s error could not be read. In its own stack, the frames
    /// after it are not added and the stack is marked truncated; in an aux stack, the line
    /// is skipped.
    pub(super) fn frame_gap(&mut self, i: usize) {
        if let Some(cur) = self.procs[i].cur.as_mut()
            && (cur.rec.aux.is_empty() || cur.rec.stack.is_empty())
            && !cur.stack_done
        {
            cur.gap = true;
            cur.rec.truncated = true;
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
        // Helgrind prints `Locks held: …` between a race's header and its stack (XML has no
        // such line): a description of the access, not an aux stack.
        if cur.rec.stack.is_empty() && cur.rec.aux.is_empty() && rest.starts_with(b"Locks held:") {
            return;
        }
        cur.stack_done |= !cur.rec.stack.is_empty();
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

    /// Drops the entries of [`State::after_blank`] of errors emitted since, when it has grown
    /// past what the processes can have waiting.
    pub(super) fn trim_after_blank(&mut self) {
        if self.after_blank.len() <= 2 * self.procs.len() + 16 {
            return;
        }
        let mut waiting = std::mem::take(&mut self.after_blank);
        waiting.retain(|&(pid, serial)| self.waits_for_block(pid, serial));
        self.after_blank = waiting;
    }

    /// Whether error `serial` of process `pid` is after its blank line without a block.
    pub(super) fn waits_for_block(&self, pid: Option<u32>, serial: u64) -> bool {
        self.find_proc(pid).is_some_and(|i| {
            let p = &self.procs[i];
            p.phase == Phase::AfterBlank
                && p.cur
                    .as_ref()
                    .is_some_and(|c| c.serial == serial && c.rec.suppression.is_none())
        })
    }

    /// Emits the process's pending error: it ended.
    pub(super) fn finalize(&mut self, i: usize) {
        let p = &mut self.procs[i];
        p.phase = Phase::Idle;
        let Some(cur) = p.cur.take() else { return };
        self.emit_error(i, cur);
    }

    /// Emits an error that ended, or the count of the listing entry it is (a repeat).
    fn emit_error(&mut self, i: usize, cur: Pending) {
        let p = &mut self.procs[i];
        p.depth_hint = cur.rec.stack.len().clamp(4, 256);
        p.names_hint = cur.rec.stack.names_len().clamp(256, 64 << 10);
        // The next error's vectors, allocated now rather than when it starts: by then the
        // consumer has usually freed this error's many small allocations, and in glibc a
        // large request first consolidates all of them (measured: 12% of the reading time
        // on a leak-heavy log).
        let (depth, bytes) = (p.depth_hint, p.names_hint);
        self.spares.prepare(depth, bytes);
        match cur.repeat {
            Some(Repeat::Suppressed) => {}
            Some(Repeat::Shown(count)) => self.listed(i, cur.rec, count),
            None => {
                let rec = cur.rec;
                // Only non-leak errors are listed after the summary. In a guessed state, what
                // the guess says was shown before counts towards the cap (and is checked
                // when the cap decides anything).
                let (before, base_full) = p
                    .shown_base
                    .as_ref()
                    .map_or((0, false), |b| (b.len(), b.full));
                if base_full && rec.leak.is_none() {
                    self.depends_on_shown(i);
                } else if rec.leak.is_none() && !ShownErrors::remember(&mut p.shown, before, &rec) {
                    let pid = pid_text(p.pid);
                    // Where the cap is reached depends on all the errors shown before.
                    self.depends_on_shown(i);
                    self.warn(
                        rec.line,
                        format!(
                            "process {pid} shows more errors than are remembered for the `N \
                             errors in context` listing ({MAX_SHOWN}, or 16 MiB of them): later \
                             ones are not"
                        ),
                    );
                }
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
        }
    }

    /// An error of the listing after the summary, which occurred `count` times: the error
    /// shown earlier that it repeats gets the count.
    fn listed(&mut self, i: usize, rec: ErrorRecord, count: u64) {
        self.depends_on_shown(i);
        let p = &self.procs[i];
        let pid = p.pid;
        let found = shown_by(p, &rec);
        let entry = format!(
            "the listing's `{count} errors in context` entry for `{}` (process {})",
            rec.what,
            pid_text(pid)
        );
        match found {
            Found::At(error_line) => self.out.push_back(LogItem::ContextCount {
                pid,
                count,
                error_line,
            }),
            Found::Several => self.warn(
                rec.line,
                format!("{entry} repeats several errors shown earlier: its count is not used"),
            ),
            Found::Nothing if shown_full(p) => self.warn(
                rec.line,
                format!(
                    "{entry} repeats none of the first {MAX_SHOWN} errors shown: its count is \
                     not used"
                ),
            ),
            Found::Nothing => {
                // A forked child lists the contexts it inherited, which its parent showed:
                // nothing new, and the count is not this process's own.
                let others: Vec<usize> = (0..self.procs.len()).filter(|&j| j != i).collect();
                for &j in &others {
                    self.depends_on_shown(j);
                }
                if others.iter().any(|&j| shows(&self.procs[j], &rec)) {
                    return;
                }
                // Shown where the log does not reach (an excerpt that starts at the listing):
                // the listed copy is all there is of the error.
                self.warn(
                    rec.line,
                    format!(
                        "{entry} repeats no error shown earlier in this log (the log starts \
                         later?): the listed error is read instead"
                    ),
                );
                let error_line = rec.line;
                self.out.push_back(LogItem::Error(rec));
                self.out.push_back(LogItem::ContextCount {
                    pid,
                    count,
                    error_line,
                });
            }
        }
    }

    /// Ends process `i`'s error before its end (an unrelated line, the end of the process's
    /// output or of the log): kept with the frames read when it has one, and marked
    /// truncated when frames of its stack may be missing. With `why`, a warning says so;
    /// without, what happened is returned (the end of the log warns once for all).
    fn cut(&mut self, i: usize, why: Option<&str>) -> Option<Cut> {
        let p = &mut self.procs[i];
        p.phase = Phase::Idle;
        let mut cur = p.cur.take()?;
        let pid = p.pid;
        if cur.repeat == Some(Repeat::Suppressed) {
            return None;
        }
        let kept = !cur.rec.stack.is_empty();
        cur.rec.truncated |= !cur.stack_done;
        cur.rec.cut = true;
        let cut = Cut {
            what: cur.rec.what.clone(),
            pid,
            kept,
            truncated: cur.rec.truncated,
        };
        if let Some(why) = why {
            let pid = pid_text(pid);
            let what = &cur.rec.what;
            let outcome = match (kept, cut.truncated) {
                (false, _) => "no frame was read: dropped",
                (true, true) => "kept with the frames read, marked truncated",
                (true, false) => "kept (its stack was complete)",
            };
            let message =
                format!("error `{what}` of process {pid} is cut short ({why}): {outcome}");
            // An error kept whole misses nothing; one dropped or kept in part does.
            if kept && !cut.truncated {
                self.warn(cur.rec.line, message);
            } else {
                self.warn_gap(cur.rec.line, Gap::Truncated, message);
            }
        }
        if kept {
            self.emit_error(i, cur);
        }
        Some(cut)
    }

    /// [`Self::cut`] with a warning: the error ends early (`why`).
    pub(super) fn cut_error(&mut self, i: usize, why: &str) {
        self.cut(i, Some(why));
    }

    /// Drops process `i`'s error: it cannot be one (too long, names too large).
    pub(super) fn drop_error(&mut self, i: usize, why: &str) {
        let p = &mut self.procs[i];
        p.phase = Phase::Idle;
        let Some(cur) = p.cur.take() else { return };
        let pid = pid_text(p.pid);
        if cur.repeat.is_some() {
            return;
        }
        self.warn_gap(
            cur.rec.line,
            Gap::Dropped,
            format!(
                "the log stops being valid here: error `{}` of process {pid} is not one \
                 ({why}); dropped",
                cur.rec.what
            ),
        );
    }

    /// What is read next depends on all the errors process `i` has shown: a guess of them
    /// must have been right (see `Proc::shown_base`).
    fn depends_on_shown(&mut self, i: usize) {
        let p = &self.procs[i];
        if let Some(base) = &p.shown_base
            && !self.verify_shown.iter().any(|(pid, _)| *pid == p.pid)
        {
            self.verify_shown.push((p.pid, Arc::clone(base)));
        }
    }

    // -- announcements -----------------------------------------------------------------

    /// An announcement starts: context of the next error (`ErrorRecord::context`).
    pub(super) fn start_context(&mut self, i: usize, t: &[u8]) {
        let p = &mut self.procs[i];
        if p.context.len() >= MAX_CONTEXT {
            p.context.remove(0);
        }
        p.context.push(AuxStack {
            what: lossy(trim(t)),
            ..AuxStack::default()
        });
        p.context_lines += 1;
        if p.phase != Phase::Announce {
            p.phase = Phase::Context;
        }
    }

    /// Reads `t` into the announcement being read when it is part of it (a frame, or an
    /// indented line such as ` Address 0x… is 0 bytes inside data symbol "a"`).
    pub(super) fn context_line(&mut self, i: usize, t: &[u8]) -> bool {
        let p = &mut self.procs[i];
        let Some(last) = p.context.last_mut() else {
            return false;
        };
        if is_frame(t) {
            let pushed = frame_text(t).map(|(ip, what)| push_described(&mut last.stack, ip, what));
            if matches!(pushed, Some(Err(_))) {
                p.context.clear();
            }
        } else if t.first() == Some(&b' ') {
            last.what.push('\n');
            last.what.push_str(&lossy(trim(t)));
        } else {
            return false;
        }
        p.context_lines += 1;
        if p.context_lines > MAX_ERROR_LINES {
            p.context.clear();
            p.context_lines = 0;
            p.phase = Phase::SkipStack;
            let n = self.line_no;
            self.warn(
                n,
                format!("announcements longer than {MAX_ERROR_LINES} lines; dropped"),
            );
        }
        true
    }

    // -- the end of the log ------------------------------------------------------------

    /// End of input: emits what is pending (an error the log ends inside is kept with the
    /// frames read, see [`Self::cut`]), says what was cut, and ends every process.
    pub(crate) fn finish(&mut self) {
        if let Some(b) = self.block.take() {
            let n = b.start_line;
            self.warn_gap(
                n,
                Gap::Truncated,
                "the log ends inside this suppression block; block dropped".to_owned(),
            );
        }
        self.flush_vfatal();
        let mut order: Vec<(u64, Option<u32>)> =
            self.procs.iter().map(|p| (p.opened, p.pid)).collect();
        order.sort_unstable();
        // Processes whose preamble the log shows (not an excerpt) and no `ERROR SUMMARY`,
        // which Valgrind prints when the client exits, and which did not say why they
        // stopped (`FATAL:`, `valgrind: …`). One summary is enough: whether a listing
        // follows it cannot always be told (`-v` with nothing listed prints no hint).
        let unfinished: Vec<Option<u32>> = order
            .iter()
            .filter_map(|&(_, pid)| {
                let p = &self.procs[self.find_proc(pid)?];
                (p.pre_seen && p.summaries == 0 && !p.fatal_seen && p.fatal.is_none())
                    .then_some(pid)
            })
            .collect();
        let mut cuts = Vec::new();
        for (_, pid) in order {
            let Some(i) = self.find_proc(pid) else {
                continue;
            };
            self.flush_fatal(i);
            let p = &self.procs[i];
            match p.phase {
                Phase::Body => cuts.extend(self.cut(i, None)),
                Phase::AfterBlank if p.blocks_seen => {
                    // The process prints suppression blocks, and this error has none:
                    // the log was cut after its blank line. A Helgrind error may even
                    // continue after a blank line, so parts of it may be missing.
                    let line = p.cur.as_ref().map_or(0, |c| c.rec.line);
                    let message = if matches!(p.tool, Some(Tool::Memcheck | Tool::Drd)) {
                        "the log ends before this error's suppression block"
                    } else {
                        "the log ends after a blank line inside this error: later parts of it \
                         may be missing"
                    };
                    self.warn_gap(line, Gap::Truncated, message.to_owned());
                    self.finalize(i);
                }
                _ => {}
            }
            self.end_proc(i);
        }
        self.warn_cuts(&cuts);
        self.warn_unfinished(&unfinished);
    }

    /// One warning for the processes the log ends before Valgrind's final summary of (a
    /// text log has no end marker; XML's `<status>` gives its own warning).
    fn warn_unfinished(&mut self, pids: &[Option<u32>]) {
        let Some(&first) = pids.first() else {
            return;
        };
        let whose = if let [_] = pids {
            format!("process {}", pid_text(first))
        } else {
            format!("{} processes (the first: {})", pids.len(), pid_text(first))
        };
        let n = self.line_no;
        self.warn_gap(
            n,
            Gap::Unfinished,
            format!(
                "the log ends before Valgrind's final summary of {whose} (no last `ERROR \
                 SUMMARY`): it is still being written, Valgrind was killed, or the program \
                 exec'd another without --trace-children=yes; errors and counts may be \
                 incomplete"
            ),
        );
    }

    /// One warning for the errors the end of the log cut short.
    fn warn_cuts(&mut self, cuts: &[Cut]) {
        let Some(first) = cuts.first() else {
            return;
        };
        let n = self.line_no;
        let what = &first.what;
        let pid = pid_text(first.pid);
        let message = if let [one] = cuts {
            let outcome = match (one.kept, one.truncated) {
                (false, _) => "no frame was read: dropped",
                (true, true) => "kept with the frames read, marked truncated",
                (true, false) => "kept (its stack was complete)",
            };
            format!("the log ends inside error `{what}` of process {pid}: {outcome}")
        } else {
            let kept = cuts.iter().filter(|c| c.kept).count();
            format!(
                "the log ends inside {} errors (the first: `{what}` of process {pid}): {kept} \
                 kept with the frames read (marked truncated where frames may be missing), {} \
                 dropped (no frame read)",
                cuts.len(),
                cuts.len() - kept
            )
        };
        self.warn_gap(n, Gap::Truncated, message);
    }
}
