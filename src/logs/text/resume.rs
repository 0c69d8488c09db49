//! Resuming at a line (parallel reading, see `crate::logs::parallel`): the state that
//! decides how the rest of a log is read.

use super::fields::find_prefix;
use super::state::{Block, Pending, Phase, PreState, Proc, Spares, State};
use crate::logs::bytes::{trim, trim_end};
use crate::logs::record::{ErrorRecord, GenSuppression, LogItem, Preamble};
use crate::supp::kinds::Tool;

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
pub(super) struct ProcKey {
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
pub(super) struct PendingKey {
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
pub(super) struct BlockKey {
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
