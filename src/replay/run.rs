//! The one loop over many logs that every command replaying logs stands on (`match`,
//! `gen`, `gate`; `prune` and `audit` next), as ripgrep's searcher pushes matches into a
//! `Sink`: each log is opened, read and replayed on a worker thread, and its items and the
//! replay's [`Event`]s are pushed into a [`ReplaySink`] the command makes for that log.
//!
//! Logs are taken in the order given ([`in_order`]), so the earliest unfinished log is
//! always being read: a command that writes its report in log order (`match` streams
//! rows) never waits on a later log. Each log's end — the sink's output, or why it failed
//! with the sink that saw what came before — is handed to the caller as soon as it is
//! known ([`run_logs`]); once a log fails, the logs after it are not started (the run ends
//! with the first failure in log order). [`collect_logs`] is the common case: every log's
//! output, in log order, or the first failure.

use std::io::Read as _;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use sha2::{Digest as _, Sha256};

use super::recorded::LogPlan;
use super::{Event, LogReplay, ReplayError, ReplayOptions, Rules, Tally};
use crate::logs::detect;
use crate::logs::record::{LogFormat, LogItem, ReadError};
use crate::matcher::RefusedFile;

/// What a command does with one log's replay. The loop calls [`ReplaySink::item`] with
/// every item the reader gives, before the replay takes it, and [`ReplaySink::event`] with
/// everything the replay reports, in log order; at the end [`ReplaySink::finish`]. An
/// error from the sink stops the log (and the logs after it).
pub trait ReplaySink {
    /// What the log gives the command.
    type Output: Send;
    /// Why the sink stops the log.
    type Error: Send;

    /// An item of the log, before the replay sees it (preambles, loads, warnings: facts
    /// the replay does not report).
    ///
    /// # Errors
    /// To stop reading the log.
    fn item(&mut self, item: &LogItem) -> Result<(), Self::Error> {
        let _ = item;
        Ok(())
    }

    /// What the replay reports.
    ///
    /// # Errors
    /// To stop reading the log.
    fn event(&mut self, event: Event<'_>) -> Result<(), Self::Error>;

    /// The log is over.
    ///
    /// # Errors
    /// When the sink cannot finish (its output fails).
    fn finish(self, end: LogEnd) -> Result<Self::Output, Self::Error>;
}

/// How a log ended: the replay's totals, and the log's hash when asked for.
#[derive(Debug, Clone, Default)]
pub struct LogEnd {
    /// Per-rule counts and error totals ([`LogReplay::finish`]).
    pub tally: Tally,
    /// The SHA-256 of the file's bytes, in hex ([`LogsOptions::hash`]).
    pub sha256: Option<String>,
}

/// One log to replay.
#[derive(Debug, Clone, Copy)]
pub struct LogJob<'a> {
    /// The file.
    pub path: &'a Path,
    /// Its settings group and the tool of errors it names no tool for.
    pub plan: LogPlan,
}

impl<'a> LogJob<'a> {
    /// A log replayed with settings group 0 and Memcheck as its default tool: the plan
    /// of a command that loads one set of rules for every log (`gen`, `gate`).
    #[must_use]
    pub const fn single(path: &'a Path) -> Self {
        Self {
            path,
            plan: LogPlan {
                group: 0,
                tool: crate::supp::kinds::Tool::Memcheck,
            },
        }
    }
}

/// How the logs are run.
#[derive(Debug, Clone, Copy)]
pub struct LogsOptions {
    /// Logs read at once, at most (each large plain log also reads itself on several
    /// threads: [`crate::logs::parallel`]).
    pub threads: usize,
    /// What the replay reports besides verdicts.
    pub replay: ReplayOptions,
    /// Hash each log's bytes while it is read ([`LogEnd::sha256`]).
    pub hash: bool,
}

impl Default for LogsOptions {
    fn default() -> Self {
        Self {
            threads: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            replay: ReplayOptions::default(),
            hash: false,
        }
    }
}

/// Why a log stopped.
#[derive(Debug, thiserror::Error)]
pub enum LogError<E> {
    /// It cannot be read (or is not a Valgrind log).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// An error of a tool whose rules Valgrind would not run with.
    #[error(transparent)]
    Refused(RefusedFile),
    /// The sink stopped it.
    #[error("{0}")]
    Sink(E),
}

impl<E> From<ReplayError<E>> for LogError<E> {
    fn from(e: ReplayError<E>) -> Self {
        match e {
            ReplayError::Refused(r) => Self::Refused(r),
            ReplayError::Handler(e) => Self::Sink(e),
        }
    }
}

/// A log that stopped before its end, with the sink that took what it gave until then
/// (`None`: the log could not be opened, no sink was made).
pub struct Failed<S: ReplaySink> {
    /// Why.
    pub error: LogError<S::Error>,
    /// The sink, for what it holds of the log's start (`match` still prints those rows).
    pub sink: Option<S>,
}

impl<S: ReplaySink> std::fmt::Debug for Failed<S>
where
    S::Error: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Failed")
            .field("error", &self.error)
            .field("sink", &self.sink.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Whether the logs after one go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// Start no log after this one.
    Stop,
}

/// Call `work` for logs `0..logs` on up to `threads` threads, taking logs in order (so
/// the earliest unfinished log is always being worked on). Once a call returns
/// [`Flow::Stop`], no log after it is started; logs already started finish.
pub fn in_order(logs: usize, threads: usize, work: impl Fn(usize) -> Flow + Sync) {
    let workers = threads.clamp(1, logs.max(1));
    let next = AtomicUsize::new(0);
    let stop_at = AtomicUsize::new(usize::MAX);
    let one = || {
        loop {
            let log = next.fetch_add(1, Ordering::AcqRel);
            if log >= logs || log >= stop_at.load(Ordering::Acquire) {
                break;
            }
            if work(log) == Flow::Stop {
                stop_at.fetch_min(log + 1, Ordering::AcqRel);
            }
        }
    };
    if workers == 1 {
        one();
        return;
    }
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(one);
        }
    });
}

/// Replay `jobs` against `rules`: for each log, `make(index, format)` makes its sink, and
/// `done(index, end)` gets the sink's output or why the log failed, as soon as the log
/// ends (on the worker thread that read it). A failed log stops the logs after it.
pub fn run_logs<S, M, D>(jobs: &[LogJob<'_>], rules: &Rules, opts: LogsOptions, make: M, done: D)
where
    S: ReplaySink,
    M: Fn(usize, LogFormat) -> S + Sync,
    D: Fn(usize, Result<S::Output, Failed<S>>) + Sync,
{
    in_order(jobs.len(), opts.threads, |i| {
        let end = one_log(&jobs[i], rules, opts, |format| make(i, format));
        let flow = if end.is_ok() {
            Flow::Continue
        } else {
            Flow::Stop
        };
        done(i, end);
        flow
    });
}

/// Every log's output in log order, or the first failure in log order.
///
/// # Errors
/// The first log (in the order given) that could not be read, names a refused tool, or
/// whose sink stopped it.
pub fn collect_logs<S, M>(
    jobs: &[LogJob<'_>],
    rules: &Rules,
    opts: LogsOptions,
    make: M,
) -> Result<Vec<S::Output>, LogError<S::Error>>
where
    S: ReplaySink,
    M: Fn(usize, LogFormat) -> S + Sync,
{
    type Slot<O, E> = Option<Result<O, LogError<E>>>;
    let ends: Mutex<Vec<Slot<S::Output, S::Error>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(jobs.len()).collect());
    run_logs(jobs, rules, opts, make, |i, end| {
        let end = end.map_err(|f| f.error);
        if let Some(slot) = ends
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(i)
        {
            *slot = Some(end);
        }
    });
    let ends = ends.into_inner().unwrap_or_else(PoisonError::into_inner);
    let mut out = Vec::with_capacity(ends.len());
    for end in ends {
        match end {
            Some(Ok(o)) => out.push(o),
            Some(Err(e)) => return Err(e),
            // Not started: an earlier log failed, and its error came first.
            None => break,
        }
    }
    Ok(out)
}

/// Read and replay one log into the sink `make` gives for its format.
fn one_log<S: ReplaySink>(
    job: &LogJob<'_>,
    rules: &Rules,
    opts: LogsOptions,
    make: impl FnOnce(LogFormat) -> S,
) -> Result<S::Output, Failed<S>> {
    let log = match detect::open_log(job.path) {
        Ok(l) => l,
        Err(e) => {
            return Err(Failed {
                error: e.into(),
                sink: None,
            });
        }
    };
    let mut sink = make(log.format());
    let hashed = if opts.hash {
        std::thread::scope(|s| {
            let hash = s.spawn(|| sha256(job.path));
            let read = replay(log, job, rules, opts, &mut sink);
            (read, Some(hash.join()))
        })
    } else {
        (replay(log, job, rules, opts, &mut sink), None)
    };
    let (tally, sha256) = match hashed {
        (Ok(tally), None) => (tally, None),
        (Ok(tally), Some(Ok(Ok(sha)))) => (tally, Some(sha)),
        (Ok(_), Some(Ok(Err(e)))) => {
            return Err(Failed {
                error: LogError::Read(e),
                sink: Some(sink),
            });
        }
        (Ok(_), Some(Err(panic))) => std::panic::resume_unwind(panic),
        (Err(error), _) => {
            return Err(Failed {
                error,
                sink: Some(sink),
            });
        }
    };
    // The sink is consumed by `finish`: a failure there has no sink to give back.
    sink.finish(LogEnd { tally, sha256 }).map_err(|e| Failed {
        error: LogError::Sink(e),
        sink: None,
    })
}

fn replay<S: ReplaySink>(
    log: detect::Log,
    job: &LogJob<'_>,
    rules: &Rules,
    opts: LogsOptions,
    sink: &mut S,
) -> Result<Tally, LogError<S::Error>> {
    let mut replay = LogReplay::new(rules, log.format(), opts.replay)
        .in_group(job.plan.group)
        .default_tool(job.plan.tool);
    // Split borrows: the item hook and the event hook are both the sink's.
    let sink = std::cell::RefCell::new(sink);
    let mut on = |ev: Event<'_>| sink.borrow_mut().event(ev);
    // By reference: a large text log read on several threads frees each batch of items
    // on the thread that read it (much cheaper than freeing them here).
    log.for_each_ref(|item| -> Result<(), LogError<S::Error>> {
        let item = item?;
        sink.borrow_mut().item(item).map_err(LogError::Sink)?;
        replay.feed(item, &mut on)?;
        Ok(())
    })?;
    Ok(replay.finish(&mut on)?)
}

/// The SHA-256 of a file's bytes, in hex.
///
/// # Errors
/// When the file cannot be read.
pub fn sha256(path: &Path) -> Result<String, ReadError> {
    let io = |source| ReadError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_takes_logs_in_order_and_stops_after_a_failure() {
        for threads in [1, 2, 5] {
            let seen = Mutex::new(Vec::new());
            in_order(20, threads, |log| {
                seen.lock().expect("lock").push(log);
                if log == 7 { Flow::Stop } else { Flow::Continue }
            });
            let mut seen = seen.into_inner().expect("lock");
            // Every log up to the failing one ran; a few after it may have started on
            // other threads before it failed, never more than one per other thread.
            seen.sort_unstable();
            assert!(seen.starts_with(&(0..=7).collect::<Vec<_>>()), "{seen:?}");
            assert!(seen.len() < 8 + threads, "{threads}: {seen:?}");
        }
        // No logs: no work, no thread trouble.
        in_order(0, 4, |_| panic!("no log to work on"));
    }
}
