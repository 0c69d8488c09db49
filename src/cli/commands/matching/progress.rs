//! A progress line on stderr while `match` works: shown only on a terminal, never with
//! `-q`, and only once the run has taken about a second (a quick run prints nothing).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before the bar appears, unless `VGSUPP_PROGRESS_AFTER_MS` says.
const DELAY: Duration = Duration::from_secs(1);
/// Errors a worker counts before telling the bar.
pub(super) const BATCH: u64 = 4096;

/// The run's progress: errors replayed and logs done.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    delay: Duration,
    shown: AtomicBool,
    logs: u64,
    logs_done: AtomicU64,
}

impl Progress {
    /// A bar for `logs` logs, drawn only when `enabled` (stderr is a terminal, no `-q`).
    pub(super) fn new(enabled: bool, logs: usize) -> Self {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} replaying: {human_pos} errors ({per_sec}), {msg}, {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        // Tests (and the impatient) can have the bar at once.
        let delay = std::env::var("VGSUPP_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(DELAY, Duration::from_millis);
        let p = Self {
            bar,
            start: Instant::now(),
            delay,
            shown: AtomicBool::new(false),
            logs: logs as u64,
            logs_done: AtomicU64::new(0),
        };
        p.set_message();
        p
    }

    fn set_message(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} of {} logs done",
                self.logs_done.load(Ordering::Relaxed),
                self.logs
            ));
        }
    }

    /// Count `n` more errors replayed.
    pub(super) fn errors(&self, n: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(n);
        self.show_when_due(bar);
    }

    /// A log is done.
    pub(super) fn log_done(&self) {
        self.logs_done.fetch_add(1, Ordering::Relaxed);
        self.set_message();
        if let Some(bar) = &self.bar {
            self.show_when_due(bar);
        }
    }

    fn show_when_due(&self, bar: &ProgressBar) {
        if !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() >= self.delay
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
            bar.enable_steady_tick(Duration::from_millis(125));
        }
    }

    /// Print a line on stderr without tearing the bar.
    pub(super) fn println(&self, line: &str, print: impl FnOnce(&str)) {
        match &self.bar {
            Some(bar) => bar.suspend(|| print(line)),
            None => print(line),
        }
    }

    /// Remove the bar.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
