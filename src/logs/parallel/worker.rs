//! The reader threads: each claims chunks in order and reads one from its sync line with a
//! guessed state.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::Chunk;
use super::claims::{Claim, Claims, Schedule};
use super::sync::{SYNC_WINDOW_CHUNKS, SyncFor, find_sync};
use super::window::{READ_BUF, Scratch, Window};
use crate::logs::record::LogItem;
use crate::logs::text::{LineSplitter, State, chunk_line};

pub(super) struct Shared {
    pub(super) file: File,
    pub(super) len: u64,
    pub(super) chunk: u64,
    pub(super) chunks: usize,
    pub(super) name: String,
    /// The latest known state of the log's processes, for readers of later chunks.
    pub(super) seed: Mutex<Arc<State>>,
    /// Which chunks the readers have claimed, and where the consumer is.
    pub(super) claims: Mutex<Claims>,
    pub(super) wake: Condvar,
    /// How many chunks readers may run ahead of the consumer.
    pub(super) window: usize,
    /// How far ahead they may run.
    pub(super) schedule: Schedule,
    pub(super) cancel: AtomicBool,
    /// Bytes read while looking for sync lines ([`ParallelStats::sync_bytes`]).
    pub(super) sync_bytes: AtomicU64,
    /// Per reader thread: batches of items handed back to be freed there.
    pub(super) spent: Vec<Mutex<Vec<Vec<LogItem>>>>,
    /// Tests: a reader thread about to wait for the consumer first pauses (holding the
    /// lock), which widens the window in which a stop could be missed.
    #[cfg(test)]
    pub(super) pause_before_wait: AtomicBool,
}

impl Shared {
    /// Tells the reader threads to stop. The flag is set under the lock the threads check
    /// it under before they wait: set outside it, a thread could check it, then miss the
    /// wake-up and wait forever (found by fuzzing: a hang when the reader was dropped
    /// before every chunk had been claimed).
    pub(super) fn stop(&self) {
        let claims = lock(&self.claims);
        self.cancel.store(true, Ordering::Relaxed);
        drop(claims);
        self.wake.notify_all();
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reader thread `id`: claims chunks in order, at most `window` ahead of the consumer, and
/// recycles or frees the batches handed back to it.
pub(super) fn work(
    sh: &Shared,
    id: usize,
    tx: &Sender<(usize, Option<usize>, std::io::Result<Chunk>)>,
) {
    let mut scratch = Scratch::default();
    let take_spent = |scratch: &mut Scratch| {
        let spent = std::mem::take(&mut *lock(&sh.spent[id]));
        for mut batch in spent {
            scratch.spares.recycle(&mut batch);
            if scratch.batches.len() < sh.window {
                scratch.batches.push(batch);
            }
        }
    };
    loop {
        let k = loop {
            take_spent(&mut scratch);
            let mut c = lock(&sh.claims);
            let stopped = sh.cancel.load(Ordering::Relaxed);
            match c.claim(sh.chunks, sh.window, sh.schedule, stopped) {
                Claim::Read(k) => break k,
                Claim::Stop => {
                    drop(c);
                    drop(std::mem::take(&mut *lock(&sh.spent[id])));
                    return;
                }
                Claim::Wait => {}
            }
            #[cfg(test)]
            if sh.pause_before_wait.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            // Woken when the consumer takes a chunk (and maybe hands a batch back).
            drop(sh.wake.wait(c).unwrap_or_else(PoisonError::into_inner));
        };
        let seed = Arc::clone(&lock(&sh.seed));
        let result = read_chunk(sh, k, &seed, &mut scratch);
        if tx.send((k, Some(id), result)).is_err() {
            drop(std::mem::take(&mut *lock(&sh.spent[id])));
            return;
        }
    }
}

/// Reads chunk `k` from its sync line (the start of the log for chunk 0) with a copy of
/// `seed` (a fresh state for chunk 0), through the next chunk's sync line.
pub(super) fn read_chunk(
    sh: &Shared,
    k: usize,
    seed: &State,
    scratch: &mut Scratch,
) -> std::io::Result<Chunk> {
    let begin = k as u64 * sh.chunk;
    let start = if k == 0 {
        Some((0, 0))
    } else {
        let limit = begin.saturating_add(sh.chunk.saturating_mul(SYNC_WINDOW_CHUNKS));
        find_sync(sh, begin, limit, SyncFor::ThisChunk, scratch)?
    };
    let Some(start) = start else {
        return Ok(Chunk {
            start: None,
            end: None,
            start_key: None,
            items: Vec::new(),
            state: State::new(&sh.name),
        });
    };
    // The next chunk with a sync line of its own starts at the first sync line, after this
    // chunk, that such a chunk's own search (a window of SYNC_WINDOW_CHUNKS) can see: one
    // forward scan finds it. (Searching each later chunk's window in turn read the same
    // bytes over and over: a long stretch without sync lines took quadratic time.)
    let next = (k as u64 + 1).saturating_mul(sh.chunk);
    let end = find_sync(sh, next, sh.len, SyncFor::NextChunk, scratch)?;
    let mut state = seed.clone();
    state.give_spares(std::mem::take(&mut scratch.spares));
    let mut items = scratch.batches.pop().unwrap_or_default();
    let mut start_key = None;
    if end.is_none_or(|e| e.0 != start.0) {
        let to = end.map_or(sh.len, |e| e.1);
        read_range(
            sh,
            &mut state,
            (start.0, to),
            &mut items,
            scratch,
            Some(&sh.cancel),
            |st| {
                // A first line that emits something (it closed what the guess left open)
                // leaves no key: the consumer reads the chunk again.
                if k > 0 && st.is_drained() {
                    start_key = Some(st.resume_key());
                }
            },
        )?;
        if k > 0 && start_key.is_none() {
            items.clear();
        }
        if end.is_none() {
            state.finish();
            state.drain_into(&mut items);
        }
    }
    // The spares stay with this thread; the state goes to the consumer.
    scratch.spares = state.take_spares();
    Ok(Chunk {
        start: Some(start),
        end,
        start_key,
        items,
        state,
    })
}

/// Feeds the lines of `[from, to)` to `state`, moving what it emits to `items`;
/// `after_first` sees the state right after the first line.
pub(super) fn read_range(
    sh: &Shared,
    state: &mut State,
    (from, to): (u64, u64),
    items: &mut Vec<LogItem>,
    scratch: &mut Scratch,
    stop: Option<&AtomicBool>,
    mut after_first: impl FnMut(&State),
) -> std::io::Result<()> {
    let mut reader = Window::new(&sh.file, from, to, &mut scratch.read, READ_BUF);
    let mut lines = LineSplitter::default();
    // The first line alone: `after_first` sees the state right after it.
    let mut seen = false;
    let mut eof = lines.pump(&mut reader, |line, truncated| {
        state.line(line, truncated);
        seen = true;
        false
    })?;
    if seen {
        after_first(state);
    }
    // Then a read buffer at a time: what the lines emitted is moved out, and the `stop`
    // flag (a reader thread's: the consumer is gone, or reads alone) looked at, once per
    // buffer rather than once per line.
    while !eof {
        state.drain_into(items);
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Ok(());
        }
        eof = lines.pump(&mut reader, |line, truncated| {
            state.line(line, truncated);
            true
        })?;
    }
    state.drain_into(items);
    Ok(())
}

/// Numbers the lines of `items` as the log does: they come from a chunk whose first line
/// is the log's line `first` (see `text::chunk_line`).
pub(super) fn shift(items: &mut [LogItem], first: u64) {
    for item in items {
        match item {
            LogItem::Error(e) => e.line = chunk_line(e.line, first),
            LogItem::Warning { line, .. } | LogItem::Fatal { line, .. } => {
                *line = chunk_line(*line, first);
            }
            LogItem::ContextCount { error_line, .. } => {
                *error_line = chunk_line(*error_line, first);
            }
            _ => {}
        }
    }
}
