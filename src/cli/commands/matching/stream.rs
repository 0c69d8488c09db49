//! Streaming the `vgsupp match` report: log workers hand serialized rows to the one thread
//! that owns stdout, which writes them in log order within a bounded amount of held output
//! (see the parent module's documentation).

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Condvar, Mutex, PoisonError};

use anyhow::anyhow;

use super::render::{ErrorRow, RuleOut};
use crate::cli::args::MatchFormat;

/// How much output is in flight between the log workers and stdout.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// A worker hands rows over in chunks of about this many bytes: one channel message per
    /// few hundred rows instead of one per row.
    chunk: usize,
    /// Bytes of rows and messages the writer may hold for logs whose turn has not come.
    /// Past it those logs pause, so parallel logs cannot pile up their whole output.
    held: usize,
}

/// 16 MiB waiting at most: well under the 100 MB peak `match` is held to on a 2 GB log,
/// and enough that small logs behind a large one rarely have to pause.
pub(super) const LIMITS: Limits = Limits {
    chunk: 64 << 10,
    held: 16 << 20,
};

/// The report on stdout, written piece by piece with the same bytes the whole document
/// would have had.
pub(super) struct Report<W: Write> {
    pub(super) w: W,
    format: MatchFormat,
    /// Whether the JSON opening `{"errors":[` is out. It waits for the first row, so a run
    /// that fails before any row prints nothing.
    started: bool,
    /// Whether a row is out (the next JSON row needs its leading comma).
    any_row: bool,
}

impl<W: Write> Report<W> {
    pub(super) const fn new(w: W, format: MatchFormat) -> Self {
        Self {
            w,
            format,
            started: false,
            any_row: false,
        }
    }

    fn start(&mut self) -> std::io::Result<()> {
        if !self.started && self.format == MatchFormat::Json {
            self.w.write_all(b"{\"errors\":[")?;
        }
        self.started = true;
        Ok(())
    }

    /// Rows as [`ErrorRow::encode`] wrote them.
    fn rows(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.start()?;
        let bytes = match bytes.split_first() {
            Some((b',', rest)) if self.format == MatchFormat::Json && !self.any_row => rest,
            _ => bytes,
        };
        self.any_row = true;
        self.w.write_all(bytes)
    }

    /// The end of the report: JSON `rules`, or what `human` writes (the summary, or the
    /// `--explain` text).
    pub(super) fn finish(
        &mut self,
        rules: &[RuleOut<'_>],
        human: impl FnOnce(&mut W) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.start()?;
        match self.format {
            MatchFormat::Json => {
                self.w.write_all(b"],\"rules\":")?;
                serde_json::to_writer(&mut self.w, rules)?;
                self.w.write_all(b"}\n")?;
            }
            MatchFormat::Human => human(&mut self.w)?,
        }
        self.w.flush()
    }
}

/// Why a log's replay ended early.
#[derive(Debug)]
pub(super) enum Stop {
    /// The log could not be read, or names a tool whose suppression file is refused:
    /// the run fails with this error once the earlier logs are out.
    Failed(anyhow::Error),
    /// The run no longer needs this log (an earlier log failed, or stdout is gone).
    Aborted,
}

/// What a log worker tells the writer.
enum Event {
    /// Rows, serialized (see [`ErrorRow::encode`]).
    Rows(Vec<u8>),
    /// A line for stderr (`-q` hides it).
    Status(String),
    /// The log is finished: its `--explain` text, or why it stopped.
    Done(Result<String, Stop>),
}

impl Event {
    /// Bytes the writer holds while the event waits for its log's turn.
    fn weight(&self) -> usize {
        match self {
            Self::Rows(b) => b.len(),
            Self::Status(s) => s.len(),
            Self::Done(_) => 0,
        }
    }
}

struct Msg {
    log: usize,
    event: Event,
}

/// What the workers and the writer share to keep output in order within bounded memory.
struct Gate {
    /// The log whose output goes straight out: every earlier log is done.
    turn: AtomicUsize,
    /// Bytes the writer holds for logs after `turn`.
    held: AtomicUsize,
    /// Logs from this index on are no longer wanted.
    stop_at: AtomicUsize,
    lock: Mutex<()>,
    moved: Condvar,
}

impl Gate {
    const fn new() -> Self {
        Self {
            turn: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
            stop_at: AtomicUsize::new(usize::MAX),
            lock: Mutex::new(()),
            moved: Condvar::new(),
        }
    }

    fn wanted(&self, log: usize) -> bool {
        log < self.stop_at.load(Ordering::Acquire)
    }

    /// Stop every log from `log` on, and wake those that wait.
    fn stop_from(&self, log: usize) {
        self.stop_at.fetch_min(log, Ordering::AcqRel);
        self.wake();
    }

    /// Wake the waiting workers after `turn`, `held` or `stop_at` changed. Taking the lock
    /// orders the change before any waiter's next check, so no wake-up is lost.
    fn wake(&self) {
        drop(self.lock.lock().unwrap_or_else(PoisonError::into_inner));
        self.moved.notify_all();
    }

    /// Pause a log that is not first in line while the writer holds too much. The log
    /// whose turn it is never waits, and workers take logs in order, so that log is always
    /// being replayed: the wait ends.
    fn wait_for_room(&self, log: usize, limit: usize) {
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while self.turn.load(Ordering::Acquire) != log
            && self.held.load(Ordering::Acquire) > limit
            && self.wanted(log)
        {
            guard = self
                .moved
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Where one log's replay sends its output.
pub(super) struct LogSink<'a> {
    log: usize,
    rows: Vec<u8>,
    limits: Limits,
    tx: &'a SyncSender<Msg>,
    gate: &'a Gate,
}

impl<'a> LogSink<'a> {
    /// Queue a row; rows go to the writer in chunks.
    pub(super) fn row(&mut self, row: &ErrorRow<'_>, format: MatchFormat) -> Result<(), Stop> {
        row.encode(format, &mut self.rows)
            .map_err(|e| Stop::Failed(e.into()))?;
        if self.rows.len() >= self.limits.chunk {
            self.flush()?;
        }
        Ok(())
    }

    pub(super) fn status(&self, line: String) -> Result<(), Stop> {
        self.send(Event::Status(line))
    }

    /// Hand the queued rows to the writer.
    pub(super) fn flush(&mut self) -> Result<(), Stop> {
        if self.rows.is_empty() {
            return Ok(());
        }
        // Room for a chunk and a large row past it (an approximate row with real rules
        // names hundreds of rules, tens of KiB): growing a full chunk copies it. Pages
        // never written are never resident.
        let rows = std::mem::replace(&mut self.rows, Vec::with_capacity(2 * self.limits.chunk));
        self.send(Event::Rows(rows))
    }

    fn send(&self, event: Event) -> Result<(), Stop> {
        self.tx
            .send(Msg {
                log: self.log,
                event,
            })
            .map_err(|_| Stop::Aborted)?;
        self.gate.wait_for_room(self.log, self.limits.held);
        self.check()
    }

    /// Whether to go on: false once an earlier log failed or stdout is gone.
    pub(super) fn check(&self) -> Result<(), Stop> {
        self.checker().check()
    }

    /// [`LogSink::check`] without borrowing the sink, for use beside it.
    pub(super) const fn checker(&self) -> Checker<'a> {
        Checker {
            log: self.log,
            gate: self.gate,
        }
    }
}

/// Tells a log's replay whether it is still wanted.
#[derive(Clone, Copy)]
pub(super) struct Checker<'a> {
    log: usize,
    gate: &'a Gate,
}

impl Checker<'_> {
    /// Whether to go on: false once an earlier log failed or stdout is gone.
    pub(super) fn check(self) -> Result<(), Stop> {
        if self.gate.wanted(self.log) {
            Ok(())
        } else {
            Err(Stop::Aborted)
        }
    }
}

/// How the writer's side of the run ended.
#[derive(Default)]
pub(super) struct Collated {
    /// `--explain` text of every log, in log order.
    pub(super) explain: String,
    /// Why output stopped before the end, if it did.
    pub(super) halt: Option<Halt>,
}

pub(super) enum Halt {
    /// stdout was closed (`| head`): end quietly, as a whole-report write would have.
    Closed,
    /// A log failed (the first in log order), or stdout could not be written.
    Failed(anyhow::Error),
}

pub(super) fn halt_on_write(e: std::io::Error) -> Halt {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Halt::Closed
    } else {
        Halt::Failed(anyhow::Error::new(e).context("cannot write to stdout"))
    }
}

/// Where the logs' replays send their output: a [`LogSink`] per log, and each log's end.
pub(super) struct Outlet<'a> {
    limits: Limits,
    tx: SyncSender<Msg>,
    gate: &'a Gate,
}

impl Outlet<'_> {
    /// The sink of log `log`'s rows and messages.
    pub(super) fn sink(&self, log: usize) -> LogSink<'_> {
        LogSink {
            log,
            rows: Vec::with_capacity(2 * self.limits.chunk),
            limits: self.limits,
            tx: &self.tx,
            gate: self.gate,
        }
    }

    /// Log `log` is over: its `--explain` text, or why it stopped (its rows are out: the
    /// caller flushed its sink, also before a failure, so the output stops where the log
    /// did). A failure stops the logs after it.
    pub(super) fn done(&self, log: usize, end: Result<String, Stop>) {
        if matches!(end, Err(Stop::Failed(_))) {
            // Later logs are not needed: the run ends with this log's error.
            self.gate.stop_from(log + 1);
        }
        let _ = self.tx.send(Msg {
            log,
            event: Event::Done(end),
        });
    }
}

/// Run `body`, which replays the logs and sends their output through the [`Outlet`] it
/// is given (from any thread), and write that output to `report` in log order within
/// `limits`, on this thread; returns how the output ended.
pub(super) fn stream<W, B>(
    limits: Limits,
    channel: usize,
    report: &mut Report<W>,
    status: &mut dyn FnMut(&str),
    body: B,
) -> Collated
where
    W: Write,
    B: FnOnce(&Outlet<'_>) + Send,
{
    let gate = Gate::new();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Msg>(channel.max(1));
    std::thread::scope(|scope| {
        let outlet = Outlet {
            limits,
            tx,
            gate: &gate,
        };
        // The outlet (and its sender) goes with the body: the writer's loop ends when
        // the body is done.
        let replays = scope.spawn(move || body(&outlet));
        let collated = collate(rx, &gate, report, status);
        if let Err(panic) = replays.join() {
            std::panic::resume_unwind(panic);
        }
        collated
    })
}

/// The writer: the earliest unfinished log's events are applied at once; later logs'
/// events wait in `later` until every earlier log is done.
fn collate<W: Write>(
    rx: Receiver<Msg>,
    gate: &Gate,
    report: &mut Report<W>,
    status: &mut dyn FnMut(&str),
) -> Collated {
    let mut c = Collator {
        turn: 0,
        later: BTreeMap::new(),
        done: Collated::default(),
        gate,
        report,
        status,
    };
    // Every message is received, even after a halt, so that no worker blocks on a full
    // channel: the loop ends when the last worker is gone.
    for Msg { log, event } in rx {
        if c.done.halt.is_some() {
            continue;
        }
        if log == c.turn {
            if c.apply(event) {
                c.advance();
            }
        } else {
            gate.held.fetch_add(event.weight(), Ordering::AcqRel);
            c.later.entry(log).or_default().push_back(event);
        }
    }
    c.done
}

struct Collator<'a, W: Write> {
    turn: usize,
    later: BTreeMap<usize, VecDeque<Event>>,
    done: Collated,
    gate: &'a Gate,
    report: &'a mut Report<W>,
    status: &'a mut dyn FnMut(&str),
}

impl<W: Write> Collator<'_, W> {
    /// Apply one event of the log whose turn it is; true when that log is finished.
    fn apply(&mut self, event: Event) -> bool {
        match event {
            Event::Rows(bytes) => {
                if let Err(e) = self.report.rows(&bytes) {
                    self.halt(halt_on_write(e));
                }
                false
            }
            Event::Status(line) => {
                (self.status)(&line);
                false
            }
            Event::Done(Ok(text)) => {
                self.done.explain.push_str(&text);
                true
            }
            Event::Done(Err(Stop::Failed(err))) => {
                self.halt(Halt::Failed(err));
                false
            }
            Event::Done(Err(Stop::Aborted)) => {
                // Only logs after a halt are aborted, and nothing is applied after a halt.
                self.halt(Halt::Failed(anyhow!(
                    "log {} stopped before its end",
                    self.turn + 1
                )));
                false
            }
        }
    }

    /// The log whose turn it was is done: write out the logs after it that are done too,
    /// then the held output of the first one still running, which now streams.
    fn advance(&mut self) {
        loop {
            self.turn += 1;
            let Some(events) = self.later.remove(&self.turn) else {
                break;
            };
            let mut finished = false;
            for event in events {
                self.gate.held.fetch_sub(event.weight(), Ordering::AcqRel);
                if self.done.halt.is_none() {
                    finished = self.apply(event);
                }
            }
            if !finished || self.done.halt.is_some() {
                break;
            }
        }
        self.gate.turn.store(self.turn, Ordering::Release);
        self.gate.wake();
    }

    fn halt(&mut self, halt: Halt) {
        self.done.halt = Some(halt);
        self.later.clear();
        self.gate.stop_from(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails with `kind` once `room` bytes are written.
    struct Failing {
        written: Vec<u8>,
        room: usize,
        kind: std::io::ErrorKind,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.written.len() + buf.len() > self.room {
                return Err(self.kind.into());
            }
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Replay `logs` fake logs with `work` on `threads` threads the way `match` runs the
    /// real ones (logs taken in order; a failed log's rows flushed, later logs stopped).
    fn replay_all<W: Write>(
        logs: usize,
        threads: usize,
        limits: Limits,
        report: &mut Report<W>,
        status: &mut dyn FnMut(&str),
        work: impl Fn(usize, &mut LogSink<'_>, &mut u64) -> Result<String, Stop> + Sync,
    ) -> (u64, Collated) {
        let errors = std::sync::Mutex::new(0u64);
        let c = stream(limits, threads * 4, report, status, |outlet| {
            vgsupp::replay::in_order(logs, threads, |log| {
                let mut sink = outlet.sink(log);
                let mut n = 0;
                let mut end = work(log, &mut sink, &mut n);
                *errors.lock().expect("lock") += n;
                if !matches!(end, Err(Stop::Aborted))
                    && let Err(stop) = sink.flush()
                    && end.is_ok()
                {
                    end = Err(stop);
                }
                let flow = if end.is_ok() {
                    vgsupp::replay::Flow::Continue
                } else {
                    vgsupp::replay::Flow::Stop
                };
                outlet.done(log, end);
                flow
            });
        });
        (errors.into_inner().expect("lock"), c)
    }

    /// Log `i` writes `rows(i)` human rows, pausing now and then so logs finish out of order.
    fn fake(
        rows: impl Fn(usize) -> usize + Sync,
        fail: Option<(usize, usize)>,
    ) -> impl Fn(usize, &mut LogSink<'_>, &mut u64) -> Result<String, Stop> + Sync {
        move |log, sink, tally| {
            sink.status(format!("start {log}"))?;
            for n in 0..rows(log) {
                if fail == Some((log, n)) {
                    return Err(Stop::Failed(anyhow!("log {log} broke at {n}")));
                }
                if (n + log) % 97 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                sink.rows
                    .extend_from_slice(format!("{log}:{n}\n").as_bytes());
                if sink.rows.len() >= sink.limits.chunk {
                    sink.flush()?;
                }
                *tally += 1;
            }
            sink.check()?;
            Ok(format!("explain {log}\n"))
        }
    }

    fn expected(logs: std::ops::Range<usize>, rows: impl Fn(usize) -> usize) -> String {
        logs.flat_map(|l| (0..rows(l)).map(move |n| format!("{l}:{n}\n")))
            .collect()
    }

    const TINY: Limits = Limits {
        chunk: 16,
        held: 64,
    };

    fn rows_of(log: usize) -> usize {
        [3, 400, 0, 50, 1200, 7, 300][log % 7]
    }

    #[test]
    fn rows_come_out_in_log_order_under_a_tiny_budget() {
        for threads in [1, 2, 3, 8] {
            let mut report = Report::new(Vec::new(), MatchFormat::Human);
            let mut lines = Vec::new();
            let (tally, c) = replay_all(
                20,
                threads,
                TINY,
                &mut report,
                &mut |s: &str| lines.push(s.to_owned()),
                fake(rows_of, None),
            );
            assert!(c.halt.is_none());
            assert_eq!(
                String::from_utf8_lossy(&report.w),
                expected(0..20, rows_of),
                "{threads} threads"
            );
            let starts: Vec<String> = (0..20).map(|l| format!("start {l}")).collect();
            assert_eq!(lines, starts);
            let explain: String = (0..20).map(|l| format!("explain {l}\n")).collect();
            assert_eq!(c.explain, explain);
            assert_eq!(tally, (0..20).map(rows_of).sum::<usize>() as u64);
        }
    }

    #[test]
    fn a_failing_log_ends_the_output_after_its_rows() {
        for threads in [1, 4] {
            let mut report = Report::new(Vec::new(), MatchFormat::Human);
            let (_, c) = replay_all(
                12,
                threads,
                TINY,
                &mut report,
                &mut |_: &str| {},
                fake(rows_of, Some((4, 500))),
            );
            let Some(Halt::Failed(err)) = c.halt else {
                panic!("no failure");
            };
            assert_eq!(err.to_string(), "log 4 broke at 500");
            let mut want = expected(0..4, rows_of);
            want.extend((0..500).map(|n| format!("4:{n}\n")));
            assert_eq!(String::from_utf8_lossy(&report.w), want);
        }
    }

    #[test]
    fn a_closed_stdout_stops_every_worker_quietly() {
        for (kind, closed) in [
            (std::io::ErrorKind::BrokenPipe, true),
            (std::io::ErrorKind::StorageFull, false),
        ] {
            let mut report = Report::new(
                Failing {
                    written: Vec::new(),
                    room: 1000,
                    kind,
                },
                MatchFormat::Human,
            );
            let (_, c) = replay_all(
                50,
                4,
                TINY,
                &mut report,
                &mut |_: &str| {},
                fake(|_| 100_000, None),
            );
            match c.halt {
                Some(Halt::Closed) => assert!(closed),
                Some(Halt::Failed(e)) => {
                    assert!(!closed);
                    assert!(
                        format!("{e:#}").starts_with("cannot write to stdout"),
                        "{e:#}"
                    );
                }
                None => panic!("not halted"),
            }
        }
    }

    #[test]
    fn json_rows_from_several_chunks_form_one_array() {
        let mut report = Report::new(Vec::new(), MatchFormat::Json);
        for chunk in [&b""[..], b",1,2", b",3"] {
            report.rows(chunk).expect("write");
        }
        report.finish(&[], |_| Ok(())).expect("write");
        assert_eq!(report.w, b"{\"errors\":[1,2,3],\"rules\":[]}\n");
        let mut empty = Report::new(Vec::new(), MatchFormat::Json);
        empty.finish(&[], |_| Ok(())).expect("write");
        assert_eq!(empty.w, b"{\"errors\":[],\"rules\":[]}\n");
    }
}
