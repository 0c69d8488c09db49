//! Reading one large, uncompressed text log on several threads, with exactly the items, in
//! exactly the order, that [`TextReader`](super::text::TextReader) gives.
//!
//! The file is cut into chunks of `chunk` bytes. The reader of chunk `k` starts at the
//! chunk's first *sync line* (a Valgrind message right after a blank prefixed line or the
//! end of a suppression block, where errors start; see `text::is_sync_pair`), with a guessed
//! state: what an earlier part of the log taught about its processes (tool, version,
//! suppression files), nothing in progress. It reads through the sync line of the next
//! chunk, inclusive. So each sync line is read twice: by the reader that arrives at it from
//! the start of the log, and by the one that starts there. The consumer accepts a chunk's
//! items only when both readers are in the same state after that line (equal
//! `ResumeKey`s: same processes, same knowledge, same error in progress, with relative line
//! numbers); from then on they read alike, so the chunk's items are the ones a single
//! reader would give. Otherwise (a guess was wrong: a new process, an error spanning the
//! sync line of another process, …) the consumer reads that chunk again itself, from the
//! true state, and hands the corrected knowledge to the readers of later chunks.
//!
//! Two parts of the state are handled apart. Line numbers: a chunk's reader numbers its
//! lines from `text::CHUNK_BASE + 1`, the consumer renumbers them once the chunk's place is
//! known, and states compare earlier lines as the log numbers them. The errors each
//! process has shown (for the `N errors in context` listing) only grow and are rarely
//! consulted: they are not compared; an accepted chunk's are merged onto the true state's,
//! and the chunk is accepted only if the guess of them was right wherever the chunk
//! consulted it.
//!
//! When the guesses keep failing (4 chunks read again in a row: a log of many short
//! processes, whose open processes at a chunk's start are not the guess's), the consumer
//! stops the reader threads and reads the rest alone ([`ParallelStats::alone`]).
//!
//! Memory stays bounded: readers run at most a few chunks ahead of the consumer. How far
//! ahead they are decides which guess a chunk is read with, so the share of chunks used
//! depends on the scheduler ([`claims`]): `bench/logs.sh` measures it; tests fix it with a
//! [`Schedule`] ([`ParallelTextReader::with_schedule`]).
//! [`ParallelTextReader::for_each_ref`] hands each chunk's items back to the thread that
//! allocated them, which reuses their stacks' storage for later errors and frees the rest:
//! cheaper than iterating.
//!
//! One difference from the sequential reader: after an I/O error in the middle of the file,
//! the items end with the last complete chunk before it, then the error (the sequential
//! reader also flushes the error in progress at that point).

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use super::record::{LogItem, ReadError};
use super::text::{ResumeKey, State};
use claims::Claims;
pub use claims::Schedule;
use sync::next_line_end;
use window::Scratch;
use worker::{Shared, lock, read_chunk, read_range, shift, work};

pub(crate) mod claims;
mod sync;
#[cfg(test)]
mod tests;
mod window;
mod worker;

/// The chunk size used by [`crate::logs::detect::open`].
pub const DEFAULT_CHUNK: u64 = 1 << 20;

/// Reads a text log on several threads; an iterator of [`LogItem`]s like
/// [`TextReader`](super::text::TextReader).
pub struct ParallelTextReader {
    shared: Arc<Shared>,
    rx: Receiver<(usize, Option<usize>, std::io::Result<Chunk>)>,
    workers: Vec<JoinHandle<()>>,
    /// Chunks that arrived before their turn, with the thread that read them.
    early: BTreeMap<usize, (Option<usize>, std::io::Result<Chunk>)>,
    /// The next chunk to consume.
    next: usize,
    /// Batches of items ready to hand out, with the reader thread that allocated them.
    ready: VecDeque<Batch>,
    /// What [`Iterator::next`] hands out now.
    current: std::vec::IntoIter<LogItem>,
    /// Where the consumer is: the state that read the log up to and including the sync
    /// line at `end`, numbering lines as the log does.
    tail: Option<Tail>,
    done: bool,
    stats: ParallelStats,
    /// Buffers for reading chunks again.
    scratch: Scratch,
    /// Chunks read again in a row.
    rereads_in_a_row: u32,
    /// The guesses did not work for this log: the consumer reads the rest alone, from
    /// the tail, a chunk's length at a time.
    alone: bool,
    /// Chunks read again in a row after which it reads alone.
    rereads_before_alone: u32,
    /// With [`Schedule::AllAhead`]: every chunk has arrived.
    all_in: bool,
}

/// How the chunks of a log were read, for benchmarks and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParallelStats {
    /// Chunks the file was cut into.
    pub chunks: usize,
    /// Chunks whose items were taken from their reader thread.
    pub accepted: usize,
    /// Chunks read again by the consumer, because the guessed state was wrong.
    pub reread: usize,
    /// Chunks with nothing of their own (no sync line; read by the chunk before).
    pub empty: usize,
    /// Bytes read while looking for sync lines (each search reads forward once, so this
    /// stays within a few times the log's size however rare sync lines are).
    pub sync_bytes: u64,
    /// Whether the reader threads were stopped and the rest of the log read by one
    /// thread: the guesses kept failing (a log of many short processes, whose open
    /// processes at a chunk's start are not those of the guess).
    pub alone: bool,
}

/// Chunks read again in a row after which the rest of a log is read by one thread (see
/// [`ParallelStats::alone`]): reader threads whose chunks are all read again only take
/// the consumer's cores.
const REREADS_BEFORE_ALONE: u32 = 4;

/// Items of one chunk, with the reader thread that allocated them (`None`: this one).
type Batch = (Vec<LogItem>, Option<usize>);

/// The state after the last accepted chunk.
struct Tail {
    /// It read the log up to and including the line that starts at `end.0` and ends at
    /// `end.1` (the first line of the next non-empty chunk).
    end: (u64, u64),
    state: State,
    /// Its key (none once the consumer reads alone).
    key: Option<ResumeKey>,
}

/// What the reader of one chunk produced.
struct Chunk {
    /// Start and end offsets of its first line; `None`: no sync line, nothing read.
    start: Option<(u64, u64)>,
    /// Start and end of the sync line it read through (the next chunk's first line);
    /// `None`: it read to the end of the log.
    end: Option<(u64, u64)>,
    /// The state after its first line, when nothing was emitted by that line.
    start_key: Option<ResumeKey>,
    /// The items after its first line, its lines numbered from `text::CHUNK_BASE + 1`
    /// (chunk 0: as the log does).
    items: Vec<LogItem>,
    /// Its state at the end.
    state: State,
}

impl ParallelTextReader {
    /// Reads the text log `file` (named `name` in messages) with `threads` reader threads
    /// and chunks of `chunk` bytes (at least 1).
    ///
    /// # Errors
    /// When the file's size or its first chunk cannot be read.
    pub fn new(file: File, name: &str, threads: usize, chunk: u64) -> Result<Self, ReadError> {
        Self::with_schedule(file, name, threads, chunk, Schedule::Free)
    }

    /// [`Self::new`], with the reader threads on `schedule` (tests and benchmarks: which
    /// guess each chunk is read with, and so [`Self::stats`], then does not depend on how
    /// the machine schedules the threads).
    ///
    /// # Errors
    /// When the file's size or its first chunk cannot be read.
    pub fn with_schedule(
        file: File,
        name: &str,
        threads: usize,
        chunk: u64,
        schedule: Schedule,
    ) -> Result<Self, ReadError> {
        let io = |source| ReadError::Io {
            path: name.to_owned(),
            source,
        };
        let len = file.metadata().map_err(io)?.len();
        let chunk = chunk.max(1);
        let chunks = usize::try_from(len.div_ceil(chunk).max(1)).unwrap_or(usize::MAX);
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            file,
            len,
            chunk,
            chunks,
            name: name.to_owned(),
            seed: Mutex::new(Arc::new(State::new(name))),
            claims: Mutex::new(Claims::default()),
            wake: Condvar::new(),
            window: threads * 2 + 2,
            schedule,
            cancel: AtomicBool::new(false),
            sync_bytes: AtomicU64::new(0),
            spent: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            #[cfg(test)]
            pause_before_wait: AtomicBool::new(false),
        });
        // The first chunk is read here, before the threads start: its end state is the
        // first guess of the state of later chunks (it holds the preambles).
        let mut scratch = Scratch::default();
        let first = read_chunk(&shared, 0, &State::new(name), &mut scratch).map_err(io)?;
        *lock(&shared.seed) = Arc::new(first.state.seed());
        let (tx, rx) = channel();
        let mut workers = Vec::new();
        for id in 0..threads {
            if chunks <= 1 {
                break;
            }
            let worker = Arc::clone(&shared);
            let tx: Sender<_> = tx.clone();
            match std::thread::Builder::new()
                .name(format!("vgsupp-read-{id}"))
                .spawn(move || work(&worker, id, &tx))
            {
                Ok(handle) => workers.push(handle),
                Err(e) => {
                    // Stop the threads already started before giving up.
                    shared.stop();
                    for w in workers {
                        let _ = w.join();
                    }
                    return Err(io(e));
                }
            }
        }
        let mut early = BTreeMap::new();
        early.insert(0, (None, Ok(first)));
        Ok(Self {
            shared,
            rx,
            workers,
            early,
            next: 0,
            ready: VecDeque::new(),
            current: Vec::new().into_iter(),
            tail: None,
            done: false,
            stats: ParallelStats {
                chunks,
                ..ParallelStats::default()
            },
            scratch,
            rereads_in_a_row: 0,
            alone: false,
            rereads_before_alone: REREADS_BEFORE_ALONE,
            all_in: false,
        })
    }

    /// Never reads alone (see [`ParallelStats::alone`]), however many chunks are read
    /// again: for tests of the guesses.
    #[must_use]
    pub fn never_alone(mut self) -> Self {
        self.rereads_before_alone = u32::MAX;
        self
    }

    /// How the chunks were read so far.
    #[must_use]
    pub fn stats(&self) -> ParallelStats {
        ParallelStats {
            sync_bytes: self.shared.sync_bytes.load(Ordering::Relaxed),
            ..self.stats
        }
    }

    /// The result for chunk `k` and the thread that read it, waiting for it. Every chunk
    /// before `k` is done with (a lockstep schedule lets the readers claim `k` now).
    fn take(&mut self, k: usize) -> std::io::Result<(Chunk, Option<usize>)> {
        match self.shared.schedule {
            Schedule::Free => {}
            Schedule::Lockstep => {
                lock(&self.shared.claims).settled = k;
                self.shared.wake.notify_all();
            }
            Schedule::AllAhead => {
                // Nothing is consumed before every chunk was read (with the first guess).
                while !self.all_in && self.early.len() < self.shared.chunks {
                    let (i, by, c) = self.rx.recv().map_err(|_| {
                        std::io::Error::other("a reader thread stopped unexpectedly")
                    })?;
                    self.early.insert(i, (by, c));
                }
                self.all_in = true;
            }
        }
        loop {
            if let Some((by, c)) = self.early.remove(&k) {
                return c.map(|c| (c, by));
            }
            match self.rx.recv() {
                Ok((i, by, c)) => {
                    self.early.insert(i, (by, c));
                }
                Err(_) => {
                    return Err(std::io::Error::other(
                        "a reader thread stopped unexpectedly",
                    ));
                }
            }
        }
    }

    /// Consumes the next chunk; false when there is none.
    fn advance(&mut self) -> std::io::Result<bool> {
        let sh = Arc::clone(&self.shared);
        if self.alone {
            return self.advance_alone();
        }
        loop {
            if self.next >= sh.chunks {
                return Ok(false);
            }
            let k = self.next;
            let (chunk, by) = self.take(k)?;
            self.next += 1;
            lock(&sh.claims).taken = self.next;
            sh.wake.notify_all();
            let Chunk {
                start,
                end,
                start_key,
                mut items,
                state,
            } = chunk;
            let Some(start) = start else {
                self.stats.empty += 1;
                continue;
            };
            if end.is_some_and(|e| e.0 == start.0) {
                // Its sync line is the next chunk's: nothing of its own.
                self.stats.empty += 1;
                continue;
            }
            let Some(tail) = self.tail.take() else {
                // The first chunk: read from the start of the log.
                self.stats.accepted += 1;
                self.ready.push_back((items, by));
                self.set_tail(end, state, k);
                return Ok(true);
            };
            if tail.end == start
                && start_key.is_some()
                && start_key == tail.key
                && state.shown_guesses_hold(&tail.state)
            {
                self.stats.accepted += 1;
                self.rereads_in_a_row = 0;
                // The chunk's first line is the line the tail read last.
                let first = tail.state.line_no();
                shift(&mut items, first);
                self.ready.push_back((items, by));
                let mut state = state;
                state.adopt_chunk(&tail.state, first);
                self.set_tail(end, state, k);
            } else {
                // The guess was wrong: read on from the true state, to this chunk's end.
                self.stats.reread += 1;
                let Tail {
                    end: from,
                    mut state,
                    ..
                } = tail;
                let to = end.map_or(sh.len, |e| e.1);
                let mut items = Vec::new();
                read_range(
                    &sh,
                    &mut state,
                    (from.1, to),
                    &mut items,
                    &mut self.scratch,
                    None,
                    |_| {},
                )?;
                if end.is_none() {
                    state.finish();
                    state.drain_into(&mut items);
                }
                self.ready.push_back((items, None));
                *lock(&sh.seed) = Arc::new(state.seed());
                self.set_tail(end, state, usize::MAX);
                self.rereads_in_a_row += 1;
                if self.rereads_in_a_row >= self.rereads_before_alone && self.tail.is_some() {
                    // The guesses do not work for this log: stop the reader threads.
                    self.alone = true;
                    self.stats.alone = true;
                    sh.stop();
                    self.early.clear();
                }
            }
            return Ok(true);
        }
    }

    /// [`Self::advance`] once the consumer reads alone: the next chunk's length of lines
    /// after the tail, through the end of the line it ends in.
    fn advance_alone(&mut self) -> std::io::Result<bool> {
        let sh = Arc::clone(&self.shared);
        let Some(tail) = self.tail.take() else {
            return Ok(false);
        };
        let Tail {
            end: (_, from),
            mut state,
            ..
        } = tail;
        let to = next_line_end(&sh, from.saturating_add(sh.chunk), &mut self.scratch)?;
        let mut items = Vec::new();
        read_range(
            &sh,
            &mut state,
            (from, to),
            &mut items,
            &mut self.scratch,
            None,
            |_| {},
        )?;
        if to >= sh.len {
            state.finish();
            state.drain_into(&mut items);
        } else {
            self.tail = Some(Tail {
                end: (from, to),
                key: None,
                state,
            });
        }
        self.ready.push_back((items, None));
        Ok(true)
    }

    /// The next batch of items; `None` at the end.
    fn next_batch(&mut self) -> Option<Result<Batch, ReadError>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Some(Ok(batch));
            }
            if self.done {
                return None;
            }
            match self.advance() {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(source) => {
                    self.done = true;
                    return Some(Err(ReadError::Io {
                        path: self.shared.name.clone(),
                        source,
                    }));
                }
            }
        }
    }

    /// Calls `f` with every item in order, by reference (a read error as `Err`), and stops
    /// at the first `Err` that `f` returns. Faster than iterating: each batch of items goes
    /// back to the thread that read it, which reuses the storage of their stacks and frees
    /// the rest; freeing memory on the thread that allocated it is much cheaper than on
    /// another one.
    ///
    /// # Errors
    /// What `f` returns.
    pub fn for_each_ref<E>(
        mut self,
        f: impl FnMut(Result<&LogItem, ReadError>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.each_ref(f)
    }

    /// [`Self::for_each_ref`], then how the chunks were read ([`Self::stats`]): for
    /// `benches/ingest.rs`, which measures the share of chunks a machine's scheduling
    /// lets the reader threads contribute.
    pub fn for_each_ref_stats<E>(
        mut self,
        f: impl FnMut(Result<&LogItem, ReadError>) -> Result<(), E>,
    ) -> (Result<(), E>, ParallelStats) {
        let done = self.each_ref(f);
        (done, self.stats())
    }

    fn each_ref<E>(
        &mut self,
        mut f: impl FnMut(Result<&LogItem, ReadError>) -> Result<(), E>,
    ) -> Result<(), E> {
        for item in self.current.by_ref() {
            f(Ok(&item))?;
        }
        while let Some(batch) = self.next_batch() {
            let (items, by) = match batch {
                Ok(b) => b,
                Err(e) => return f(Err(e)),
            };
            for item in &items {
                f(Ok(item))?;
            }
            match by.and_then(|w| self.shared.spent.get(w)) {
                Some(bin) => lock(bin).push(items),
                None => drop(items),
            }
        }
        Ok(())
    }

    /// Records where the consumer is after a chunk; `k` is the chunk whose state it is
    /// (every 8th accepted chunk refreshes the guess for later chunks).
    fn set_tail(&mut self, end: Option<(u64, u64)>, state: State, k: usize) {
        match end {
            Some(end) => {
                if k.is_multiple_of(8) {
                    *lock(&self.shared.seed) = Arc::new(state.seed());
                }
                self.tail = Some(Tail {
                    end,
                    key: Some(state.resume_key()),
                    state,
                });
            }
            None => {
                // It read to the end of the log: later chunks are empty.
                self.tail = None;
                self.next = self.shared.chunks;
            }
        }
    }
}

impl Iterator for ParallelTextReader {
    type Item = Result<LogItem, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.current.next() {
                return Some(Ok(item));
            }
            match self.next_batch()? {
                Ok((items, _)) => self.current = items.into_iter(),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl Drop for ParallelTextReader {
    fn drop(&mut self) {
        self.shared.stop();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
