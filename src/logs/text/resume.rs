//! Resuming at a line (parallel reading, see `crate::logs::parallel`): the state that
//! decides how the rest of a log is read.

use std::sync::Arc;

use super::contexts::ShownErrors;
use super::fields::find_prefix;
use super::state::{Block, Pending, Phase, PreState, Proc, Repeat, Spares, State};
use crate::logs::bytes::{trim, trim_end};
use crate::logs::record::{AuxStack, ErrorRecord, GenSuppression, LogItem, Preamble};
use crate::supp::kinds::Tool;

/// Where the lines of a chunk read from a guessed state are numbered from (parallel
/// reading): its first line is `CHUNK_BASE + 1`. Lines below it in such a state come from
/// the guess, which numbers them as the log does. The consumer renumbers the chunk's lines
/// once it knows where the chunk starts ([`State::renumber_chunk`], [`chunk_line`]).
pub(crate) const CHUNK_BASE: u64 = 1 << 62;

/// The log's number of line `line` of a chunk whose first line is the log's line `first`
/// (lines below [`CHUNK_BASE`] are the log's already).
pub(crate) const fn chunk_line(line: u64, first: u64) -> u64 {
    if line > CHUNK_BASE {
        line - CHUNK_BASE - 1 + first
    } else {
        line
    }
}

/// Everything that decides how a [`State`] reads the rest of a log, with line numbers and
/// counters made relative to the line just read. Two states that reached the same line by
/// different routes (one from the start of the log, one from a guessed state at a later
/// line) read the rest of the log identically when their keys are equal: what the key
/// leaves out is a cache (the last prefix, the last process index, the PID index, the
/// errors waiting for a block), an allocation hint (`depth_hint`, `names_hint`, spare
/// vectors) or output already handed out.
#[derive(Debug, PartialEq)]
pub(crate) struct ResumeKey {
    /// The processes in the order they were opened (the end of the log ends them in that
    /// order).
    procs: Vec<ProcKey>,
    lead: Vec<u8>,
    block: Option<BlockKey>,
    vfatal: Option<(LineKey, String)>,
    garbage_run: bool,
    loose: Option<(LineKey, Option<u32>, Vec<u8>)>,
}

/// A line number in a key: the line just read, or an earlier one. Earlier lines are the
/// log's numbers in both states compared (the guessed state's come from its guess, read
/// from the start of the log), so they compare as they are; the line just read is the same
/// line in both, whatever its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKey {
    Earlier(u64),
    Now,
}

#[derive(Debug, PartialEq)]
struct ProcKey {
    pid: Option<u32>,
    tool: Option<Tool>,
    minor: Option<u8>,
    pre: Preamble,
    pre_seen: bool,
    pre_state: PreState,
    supp_files: Vec<Vec<u8>>,
    verbose: bool,
    no_list: bool,
    summaries: u8,
    phase: Phase,
    cur: Option<PendingKey>,
    repeat_next: Option<Repeat>,
    last_tid: Option<u32>,
    cand: Option<(Vec<u8>, LineKey)>,
    fatal: Option<(LineKey, String)>,
    blocks_seen: bool,
    context: Vec<AuxStack>,
    context_lines: u32,
    orphan: bool,
    syms_read: Option<Vec<u8>>,
    syms_failed: bool,
    fatal_seen: bool,
}

#[derive(Debug, PartialEq)]
struct PendingKey {
    /// With `line` zeroed: the line is below.
    rec: ErrorRecord,
    line: LineKey,
    repeat: Option<Repeat>,
    serial: i64,
    stamp: Option<i64>,
    lines: u32,
    neutral: bool,
    stack_done: bool,
    gap: bool,
}

#[derive(Debug, PartialEq)]
struct BlockKey {
    start_line: LineKey,
    /// The PID and relative serial of the error it is aimed at.
    target: Option<(Option<u32>, i64)>,
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
            by_pid: _,
            opened: _,
            last: _,
            lead,
            block,
            vfatal,
            garbage_run,
            stamp,
            serial,
            after_blank: _,
            cand_epoch,
            loose,
            verify_shown: _,
            spares: _,
            last_prefix: _,
            last_prefix_kind: _,
            last_prefix_pid: _,
        } = self;
        let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let line = |l: u64| {
            if l < *line_no {
                LineKey::Earlier(l)
            } else {
                LineKey::Now
            }
        };
        let rel_serial = |s: u64| signed(s) - signed(*serial);
        let pending_key = |c: &Pending| {
            let Pending {
                rec,
                repeat,
                serial,
                stamp: pending_stamp,
                lines,
                neutral,
                stack_done,
                gap,
            } = c;
            PendingKey {
                rec: ErrorRecord {
                    line: 0,
                    ..rec.clone()
                },
                line: line(rec.line),
                repeat: *repeat,
                serial: rel_serial(*serial),
                stamp: (*pending_stamp != 0).then(|| signed(*pending_stamp) - signed(*stamp)),
                lines: *lines,
                neutral: *neutral,
                stack_done: *stack_done,
                gap: *gap,
            }
        };
        let proc_key = |p: &Proc| {
            let Proc {
                pid,
                opened: _,
                tool,
                minor,
                pre,
                pre_seen,
                pre_state,
                supp_files,
                verbose,
                no_list,
                summaries,
                phase,
                cur,
                repeat_next,
                last_tid,
                cand,
                cand_line,
                has_cand,
                cand_epoch: proc_epoch,
                fatal,
                blocks_seen,
                context,
                context_lines,
                shown: _,
                shown_base: _,
                orphan,
                syms_read,
                syms_failed,
                fatal_seen,
                depth_hint: _,
                names_hint: _,
            } = p;
            let has_cand = *has_cand && proc_epoch == cand_epoch;
            ProcKey {
                pid: *pid,
                tool: *tool,
                minor: *minor,
                pre: pre.clone(),
                pre_seen: *pre_seen,
                pre_state: *pre_state,
                supp_files: supp_files.clone(),
                verbose: *verbose,
                no_list: *no_list,
                summaries: *summaries,
                phase: *phase,
                cur: cur.as_ref().map(pending_key),
                repeat_next: *repeat_next,
                last_tid: *last_tid,
                cand: has_cand.then(|| (cand.clone(), line(*cand_line))),
                fatal: fatal.as_ref().map(|(l, m)| (line(*l), m.clone())),
                blocks_seen: *blocks_seen,
                context: context.clone(),
                context_lines: *context_lines,
                orphan: *orphan,
                syms_read: syms_read.clone(),
                syms_failed: *syms_failed,
                fatal_seen: *fatal_seen,
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
                start_line: line(*start_line),
                target: target.map(|(pid, serial)| (pid, rel_serial(serial))),
                stage: *stage,
                lines: *lines,
                sup: sup.clone(),
            }
        };
        let mut in_order: Vec<&Proc> = procs.iter().collect();
        in_order.sort_unstable_by_key(|p| p.opened);
        ResumeKey {
            procs: in_order.into_iter().map(proc_key).collect(),
            lead: lead.clone(),
            block: block.as_ref().map(block_key),
            vfatal: vfatal.as_ref().map(|(l, m)| (line(*l), m.clone())),
            garbage_run: *garbage_run,
            loose: loose
                .as_ref()
                .map(|l| (line(l.line), l.pid, l.text.clone())),
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
    /// its processes (tools, versions, suppression files, errors shown), with nothing in
    /// progress, numbering the lines it reads from [`CHUNK_BASE`]` + 1`. Reading from a
    /// later line with it is right when the [`ResumeKey`]s agree after that line (see
    /// `crate::logs::parallel`).
    pub(crate) fn seed(&self) -> Self {
        let mut s = self.clone();
        s.out.clear();
        s.line_no = CHUNK_BASE;
        s.block = None;
        s.vfatal = None;
        s.garbage_run = false;
        s.loose = None;
        s.after_blank.clear();
        for p in &mut s.procs {
            p.phase = Phase::Idle;
            p.cur = None;
            p.repeat_next = None;
            p.has_cand = false;
            p.cand.clear();
            p.fatal = None;
            p.context.clear();
            p.context_lines = 0;
            p.orphan = false;
            // What the process is guessed to have shown; `shown` gets what the chunk shows.
            p.shown_base = Some(std::mem::take(&mut p.shown));
        }
        s.verify_shown.clear();
        s
    }

    /// Whether the guesses of shown errors that this state's chunk depended on (it was read
    /// from a [`Self::seed`]) were right: `truth` is the state that read the log from its
    /// start to the chunk's first line.
    pub(crate) fn shown_guesses_hold(&self, truth: &Self) -> bool {
        self.verify_shown.iter().all(|(pid, base)| {
            truth.find_proc(*pid).is_some_and(|i| {
                let shown = &truth.procs[i].shown;
                Arc::ptr_eq(shown, base) || **shown == **base
            })
        })
    }

    /// Makes the state after a chunk read from a [`Self::seed`] the log's: its processes'
    /// shown errors become `truth`'s (the state that read the log from its start to the
    /// chunk's first line, the log's line `first`) plus those the chunk showed, and its lines
    /// are numbered as the log does.
    pub(crate) fn adopt_chunk(&mut self, truth: &Self, first: u64) {
        for p in &mut self.procs {
            if p.shown_base.take().is_some()
                && let Some(i) = truth.find_proc(p.pid)
            {
                p.shown = ShownErrors::merge_chunk(&truth.procs[i].shown, &p.shown);
            }
        }
        self.verify_shown.clear();
        self.renumber_chunk(first);
    }

    /// Renumbers the lines of a state that read a chunk from a guessed state (numbered
    /// from [`CHUNK_BASE`]` + 1`) as the log numbers them: the chunk's first line is the
    /// log's line `first`.
    fn renumber_chunk(&mut self, first: u64) {
        let at = |l: &mut u64| *l = chunk_line(*l, first);
        at(&mut self.line_no);
        for p in &mut self.procs {
            if let Some(c) = p.cur.as_mut() {
                at(&mut c.rec.line);
            }
            at(&mut p.cand_line);
            if let Some((l, _)) = p.fatal.as_mut() {
                at(l);
            }
            ShownErrors::renumber(&mut p.shown, CHUNK_BASE + 1, |l| chunk_line(l, first));
        }
        if let Some(b) = self.block.as_mut() {
            at(&mut b.start_line);
        }
        if let Some((l, _)) = self.vfatal.as_mut() {
            at(l);
        }
        if let Some(l) = self.loose.as_mut() {
            at(&mut l.line);
        }
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
