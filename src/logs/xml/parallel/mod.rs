//! Reading one large, uncompressed XML log on several threads, with exactly the items, in
//! exactly the order, that [`XmlReader`](super::XmlReader) gives. The same scheme as the
//! text logs' (`logs::parallel`), with XML's sync lines and state.
//!
//! The file is cut into chunks of `chunk` bytes. The reader of chunk `k` starts at a sync
//! line (`sync`: the chunk's first document start, else its first `<error>` line) with a
//! guessed state (`xml::resume`: between documents, or inside the last document read), and
//! reads up to the next chunk's sync line, where its input pauses. The consumer holds the
//! true state at that line: the state of the reader that arrived there from the start of the
//! log. It takes the chunk's items only when that state's key equals the guess's (and the
//! guess held wherever the chunk consulted what it could not know: the `<unique>`s of earlier
//! errors); from the same state, on the same bytes, a reader reads alike. Otherwise (a
//! guess was wrong: a new document, an error cut short across the line, …) the consumer
//! reads that chunk again itself, from the true state, and hands the corrected knowledge
//! to the readers of later chunks.
//!
//! A chunk's reader numbers its lines from `text::CHUNK_BASE + 1`; the consumer renumbers
//! them once the chunk's place is known. When the guesses keep failing (4 chunks read again
//! in a row: documents of other processes, each longer than a chunk), the consumer stops
//! the reader threads and reads the rest alone. Memory stays bounded: readers run at most a few chunks ahead of
//! the consumer; how far ahead decides the guesses, so tests fix it with a
//! [`Schedule`] ([`ParallelXmlReader::with_schedule`]). [`ParallelXmlReader::for_each_ref`] hands each chunk's items back to the
//! thread that allocated them, to be freed there (cheaper than freeing them elsewhere).
//!
//! Compressed logs are read by one thread (`logs::detect`): a gzip stream cannot be
//! entered in the middle.
//!
//! One difference from the sequential reader: after an I/O error in the middle of the file,
//! the items end with the last complete chunk before it, then the error.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use super::reader::{Core, Flow};
use super::resume::{ResumeKey, Seed, shift};
use crate::logs::parallel::claims::Claims;
use crate::logs::parallel::{ParallelStats, Schedule};
use crate::logs::record::{LogItem, ReadError};
use worker::{Chunk, FileRange, Scratch, Shared, failed, lock, read_chunk, read_range, work};

mod sync;
#[cfg(test)]
mod tests;
mod worker;

/// The chunk size used by [`crate::logs::detect::open`].
pub const DEFAULT_CHUNK: u64 = 1 << 20;

/// Chunks read again in a row after which the rest of a log is read by one thread.
const REREADS_BEFORE_ALONE: u32 = 4;

/// Items of one chunk, with the reader thread that allocated them (`None`: this one).
type Batch = (Vec<LogItem>, Option<usize>);

/// The true state after the last chunk used.
struct Tail {
    /// Where it stopped: the start of the next non-empty chunk's sync line.
    end: u64,
    core: Core,
    /// Its key (none once the consumer reads alone, or while part of a token waits).
    key: Option<ResumeKey>,
}

/// Reads an XML log on several threads; an iterator of [`LogItem`]s like
/// [`XmlReader`](super::XmlReader).
pub struct ParallelXmlReader {
    shared: Arc<Shared>,
    rx: Receiver<(usize, Option<usize>, std::io::Result<Chunk>)>,
    workers: Vec<JoinHandle<()>>,
    /// Chunks that arrived before their turn, with the thread that read them.
    early: BTreeMap<usize, (Option<usize>, std::io::Result<Chunk>)>,
    /// The next chunk to consume.
    next: usize,
    ready: VecDeque<Batch>,
    current: std::vec::IntoIter<LogItem>,
    tail: Option<Tail>,
    done: bool,
    stats: ParallelStats,
    scratch: Scratch,
    rereads_in_a_row: u32,
    /// The guesses did not work for this log: the consumer reads the rest alone, from the
    /// tail, a chunk's length at a time; this is where its input is.
    alone: Option<u64>,
    rereads_before_alone: u32,
    /// With [`Schedule::AllAhead`]: every chunk has arrived.
    all_in: bool,
}

impl ParallelXmlReader {
    /// Reads the XML log `file` (named `name` in messages) with `threads` reader threads
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
            seed: Mutex::new(Arc::new(Seed::default())),
            claims: Mutex::new(Claims::default()),
            wake: Condvar::new(),
            window: threads * 2 + 2,
            schedule,
            cancel: AtomicBool::new(false),
            sync_bytes: AtomicU64::new(0),
            spent: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
        });
        // The first chunk is read here, before the threads start: its end state is the
        // first guess of the state of later chunks (it holds the preamble).
        let mut scratch = Scratch::default();
        let first = read_chunk(&shared, 0, &Seed::default(), &mut scratch).map_err(io)?;
        if let Some(core) = &first.core {
            *lock(&shared.seed) = Arc::new(core.seed(&Seed::default()));
        }
        let (tx, rx) = channel();
        let mut workers = Vec::new();
        for id in 0..threads {
            if chunks <= 1 {
                break;
            }
            let worker = Arc::clone(&shared);
            let tx: Sender<_> = tx.clone();
            match std::thread::Builder::new()
                .name(format!("vgsupp-xml-{id}"))
                .spawn(move || work(&worker, id, &tx))
            {
                Ok(handle) => workers.push(handle),
                Err(e) => {
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
            alone: None,
            rereads_before_alone: REREADS_BEFORE_ALONE,
            all_in: false,
        })
    }

    /// Never reads alone, however many chunks are read again: for tests of the guesses.
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
        if self.alone.is_some() {
            return self.advance_alone();
        }
        let sh = Arc::clone(&self.shared);
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
                core,
            } = chunk;
            let (Some(start), Some(mut core)) = (start, core) else {
                self.stats.empty += 1;
                continue;
            };
            let Some(tail) = self.tail.take() else {
                // The first chunk: read from the start of the log.
                self.stats.accepted += 1;
                self.ready.push_back((items, by));
                self.set_tail(end, core, k);
                return Ok(true);
            };
            if tail.end == start
                && start_key.is_some()
                && start_key == tail.key
                && core.guesses_hold(&tail.core)
            {
                self.stats.accepted += 1;
                self.rereads_in_a_row = 0;
                let first = tail.core.lex.line();
                shift(&mut items, first);
                self.ready.push_back((items, by));
                core.adopt_chunk(tail.core, first);
                self.set_tail(end, core, k);
            } else {
                // The guess was wrong: read on from the true state, to this chunk's end.
                self.stats.reread += 1;
                let Tail {
                    end: from,
                    mut core,
                    ..
                } = tail;
                let mut items = Vec::new();
                core.lex.give_buffer(std::mem::take(&mut self.scratch.read));
                read_range(
                    &sh,
                    &mut core,
                    (from, end.unwrap_or(sh.len)),
                    &mut items,
                    None,
                )?;
                self.scratch.read = core.lex.take_buffer();
                self.ready.push_back((items, None));
                self.refresh_seed(&core);
                self.set_tail(end, core, usize::MAX);
                self.rereads_in_a_row += 1;
                if self.rereads_in_a_row >= self.rereads_before_alone
                    && let Some(tail) = &self.tail
                {
                    // The guesses do not work for this log: stop the reader threads.
                    self.alone = Some(tail.end);
                    self.stats.alone = true;
                    sh.stop();
                    self.early.clear();
                }
            }
            return Ok(true);
        }
    }

    /// [`Self::advance`] once the consumer reads alone: on from the tail, about a chunk's
    /// length at a time.
    fn advance_alone(&mut self) -> std::io::Result<bool> {
        let sh = Arc::clone(&self.shared);
        let (Some(tail), Some(from)) = (self.tail.as_mut(), self.alone) else {
            return Ok(false);
        };
        let mut input = FileRange {
            file: &sh.file,
            pos: from,
            end: sh.len,
            last: true,
        };
        let core = &mut tail.core;
        let mut items = Vec::new();
        // The lexer keeps what it read of a token not yet complete: the next call reads on
        // where this input stops.
        let done = loop {
            match core.step(&mut input) {
                Flow::More => {}
                Flow::Paused | Flow::Done => break true,
            }
            if input.pos >= from.saturating_add(sh.chunk) {
                break false;
            }
        };
        core.drain_into(&mut items);
        self.alone = Some(input.pos);
        let result = failed(core);
        if done {
            self.tail = None;
        }
        self.ready.push_back((items, None));
        result.map(|()| true)
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
    /// back to the thread that read it, to be freed there.
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

    /// Guesses for later chunks from the true state `core`.
    fn refresh_seed(&self, core: &Core) {
        let mut seed = lock(&self.shared.seed);
        *seed = Arc::new(core.seed(&seed));
    }

    /// Records where the consumer is after a chunk; `k` is the chunk whose state it is
    /// (every 8th chunk used refreshes the guess for later chunks).
    fn set_tail(&mut self, end: Option<u64>, core: Core, k: usize) {
        match end {
            Some(end) => {
                if k.is_multiple_of(8) {
                    self.refresh_seed(&core);
                }
                self.tail = Some(Tail {
                    end,
                    key: core.resume_key(),
                    core,
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

impl Iterator for ParallelXmlReader {
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

impl Drop for ParallelXmlReader {
    fn drop(&mut self) {
        self.shared.stop();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl std::fmt::Debug for ParallelXmlReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelXmlReader")
            .field("name", &self.shared.name)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}
