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
//! Memory stays bounded: readers run at most a few chunks ahead of the consumer.
//! [`ParallelTextReader::for_each_ref`] hands each chunk's items back to the thread that
//! allocated them, which reuses their stacks' storage for later errors and frees the rest:
//! cheaper than iterating.
//!
//! One difference from the sequential reader: after an I/O error in the middle of the file,
//! the items end with the last complete chunk before it, then the error (the sequential
//! reader also flushes the error in progress at that point).

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::FileExt as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use super::record::{LogItem, ReadError};
use super::text::{LineSplitter, ResumeKey, Spares, State, is_sync_pair};

/// The chunk size used by [`crate::logs::detect::open`].
pub const DEFAULT_CHUNK: u64 = 1 << 20;

/// How far past a chunk's start its sync line is looked for, in chunks. A chunk without one
/// is read by the reader of the chunk before it.
const SYNC_WINDOW_CHUNKS: u64 = 4;

/// Bytes kept of each line while looking for sync lines (they are short).
const SYNC_HEAD: usize = 256;

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
    /// line at `end`, with the line offset of its numbering.
    tail: Option<Tail>,
    done: bool,
    stats: ParallelStats,
    /// Buffers for reading chunks again.
    scratch: Scratch,
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
}

/// Items of one chunk, with the reader thread that allocated them (`None`: this one).
type Batch = (Vec<LogItem>, Option<usize>);

/// The state after the last accepted chunk.
struct Tail {
    /// It read the log up to and including the line that starts at `end.0` and ends at
    /// `end.1` (the first line of the next non-empty chunk).
    end: (u64, u64),
    state: State,
    key: ResumeKey,
    /// Added to its line numbers to get the log's.
    offset: u64,
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
    /// The items after its first line, with line numbers counted from its first line (1).
    items: Vec<LogItem>,
    /// Its state at the end.
    state: State,
}

struct Shared {
    file: File,
    len: u64,
    chunk: u64,
    chunks: usize,
    name: String,
    /// The latest known state of the log's processes, for readers of later chunks.
    seed: Mutex<Arc<State>>,
    /// (next chunk to claim, chunks consumed).
    claims: Mutex<(usize, usize)>,
    wake: Condvar,
    /// How many chunks readers may run ahead of the consumer.
    window: usize,
    cancel: AtomicBool,
    /// Bytes read while looking for sync lines ([`ParallelStats::sync_bytes`]).
    sync_bytes: AtomicU64,
    /// Per reader thread: batches of items handed back to be freed there.
    spent: Vec<Mutex<Vec<Vec<LogItem>>>>,
    /// Tests: a reader thread about to wait for the consumer first pauses (holding the
    /// lock), which widens the window in which a stop could be missed.
    #[cfg(test)]
    pause_before_wait: AtomicBool,
}

impl ParallelTextReader {
    /// Reads the text log `file` (named `name` in messages) with `threads` reader threads
    /// and chunks of `chunk` bytes (at least 1).
    ///
    /// # Errors
    /// When the file's size or its first chunk cannot be read.
    pub fn new(file: File, name: &str, threads: usize, chunk: u64) -> Result<Self, ReadError> {
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
            claims: Mutex::new((1, 0)),
            wake: Condvar::new(),
            window: threads * 2 + 2,
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
        })
    }

    /// How the chunks were read so far.
    #[must_use]
    pub fn stats(&self) -> ParallelStats {
        ParallelStats {
            sync_bytes: self.shared.sync_bytes.load(Ordering::Relaxed),
            ..self.stats
        }
    }

    /// The result for chunk `k` and the thread that read it, waiting for it.
    fn take(&mut self, k: usize) -> std::io::Result<(Chunk, Option<usize>)> {
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
        loop {
            if self.next >= sh.chunks {
                return Ok(false);
            }
            let k = self.next;
            let (chunk, by) = self.take(k)?;
            self.next += 1;
            {
                let mut c = lock(&sh.claims);
                c.1 = self.next;
            }
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
                self.set_tail(end, state, 0, k);
                return Ok(true);
            };
            if tail.end == start && start_key.as_ref() == Some(&tail.key) {
                self.stats.accepted += 1;
                let offset = tail.offset + tail.state.line_no() - 1;
                shift(&mut items, offset);
                self.ready.push_back((items, by));
                self.set_tail(end, state, offset, k);
            } else {
                // The guess was wrong: read on from the true state, to this chunk's end.
                self.stats.reread += 1;
                let Tail {
                    end: from,
                    mut state,
                    offset,
                    ..
                } = tail;
                let to = end.map_or(sh.len, |e| e.1);
                let mut items = Vec::new();
                read_range(
                    &sh,
                    &mut state,
                    from.1,
                    to,
                    &mut items,
                    &mut self.scratch,
                    |_| {},
                )?;
                if end.is_none() {
                    state.finish();
                    state.drain_into(&mut items);
                }
                shift(&mut items, offset);
                self.ready.push_back((items, None));
                *lock(&sh.seed) = Arc::new(state.seed());
                self.set_tail(end, state, offset, usize::MAX);
            }
            return Ok(true);
        }
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
    fn set_tail(&mut self, end: Option<(u64, u64)>, state: State, offset: u64, k: usize) {
        match end {
            Some(end) => {
                if k.is_multiple_of(8) {
                    *lock(&self.shared.seed) = Arc::new(state.seed());
                }
                self.tail = Some(Tail {
                    end,
                    key: state.resume_key(),
                    state,
                    offset,
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

impl Shared {
    /// Tells the reader threads to stop. The flag is set under the lock the threads check
    /// it under before they wait: set outside it, a thread could check it, then miss the
    /// wake-up and wait forever (found by fuzzing: a hang when the reader was dropped
    /// before every chunk had been claimed).
    fn stop(&self) {
        let claims = lock(&self.claims);
        self.cancel.store(true, Ordering::Relaxed);
        drop(claims);
        self.wake.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reader thread `id`: claims chunks in order, at most `window` ahead of the consumer, and
/// recycles or frees the batches handed back to it.
fn work(sh: &Shared, id: usize, tx: &Sender<(usize, Option<usize>, std::io::Result<Chunk>)>) {
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
            if c.0 >= sh.chunks || sh.cancel.load(Ordering::Relaxed) {
                drop(c);
                drop(std::mem::take(&mut *lock(&sh.spent[id])));
                return;
            }
            if c.0 < c.1 + sh.window {
                c.0 += 1;
                break c.0 - 1;
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
fn read_chunk(
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
        read_range(sh, &mut state, start.0, to, &mut items, scratch, |st| {
            // A first line that emits something (it closed what the guess left open)
            // leaves no key: the consumer reads the chunk again.
            if k > 0 && st.is_drained() {
                start_key = Some(st.resume_key());
            }
        })?;
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
fn read_range(
    sh: &Shared,
    state: &mut State,
    from: u64,
    to: u64,
    items: &mut Vec<LogItem>,
    scratch: &mut Scratch,
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
    // Then a read buffer at a time: what the lines emitted is moved out, and the cancel
    // flag looked at, once per buffer rather than once per line.
    while !eof {
        state.drain_into(items);
        if sh.cancel.load(Ordering::Relaxed) {
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

/// Which sync line [`find_sync`] looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SyncFor {
    /// The first one in the window: where the chunk at `from` starts.
    ThisChunk,
    /// The first one that the window search of a chunk at or after `from` finds: where the
    /// chunk before `from` ends. A chunk's search sees a sync line when the line before it
    /// starts in the chunk or in the chunk's window, and the sync line starts in the
    /// window; so the sync line must start within SYNC_WINDOW_CHUNKS chunks of the start
    /// of the chunk holding the line before it.
    NextChunk,
}

/// The first sync line (see [`SyncFor`]) that starts in `[from, limit)`, not counting the
/// line at `from` (the line before it is not read): its start and end (after its `\n`, or
/// the end of the file).
fn find_sync(
    sh: &Shared,
    from: u64,
    limit: u64,
    what: SyncFor,
    scratch: &mut Scratch,
) -> std::io::Result<Option<(u64, u64)>> {
    if from >= sh.len || from == 0 {
        return Ok(None);
    }
    // From the byte before `from`: a line that starts at `from` follows a `\n` there.
    let first = from - 1;
    let mut pos = first;
    let mut reader = Window::new(&sh.file, pos, sh.len, &mut scratch.sync, SYNC_BUF);
    let (_, n) = line_head(&mut reader)?;
    pos += n;
    // The line before, and where it starts.
    let mut prev: Option<(Vec<u8>, u64)> = None;
    let mut found = None;
    while pos < limit && pos < sh.len {
        let (head, n) = line_head(&mut reader)?;
        if n == 0 {
            break;
        }
        if let Some((p, p_start)) = &prev
            && is_sync_pair(p, &head)
        {
            let seen = match what {
                SyncFor::ThisChunk => true,
                SyncFor::NextChunk => {
                    let chunk_start = p_start / sh.chunk * sh.chunk;
                    pos < chunk_start.saturating_add(sh.chunk.saturating_mul(SYNC_WINDOW_CHUNKS))
                }
            };
            if seen {
                found = Some((pos, pos + n));
                break;
            }
        }
        prev = Some((head, pos));
        pos += n;
    }
    sh.sync_bytes.fetch_add(pos - first, Ordering::Relaxed);
    Ok(found)
}

/// Reads one line: its first [`SYNC_HEAD`] bytes (without `\n`), and how many bytes it
/// took (with the `\n`); 0 at the end of the input.
fn line_head(reader: &mut impl BufRead) -> std::io::Result<(Vec<u8>, u64)> {
    let mut head = Vec::new();
    let mut n = 0u64;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((head, n));
        }
        let (take, ended) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        let room = SYNC_HEAD.saturating_sub(head.len());
        head.extend_from_slice(&buf[..take.min(room)]);
        let used = if ended { take + 1 } else { take };
        n += used as u64;
        reader.consume(used);
        if ended {
            return Ok((head, n));
        }
    }
}

/// Adds `offset` to the log line numbers of `items`.
fn shift(items: &mut [LogItem], offset: u64) {
    if offset == 0 {
        return;
    }
    for item in items {
        match item {
            LogItem::Error(e) if e.line > 0 => e.line += offset,
            LogItem::Warning { line, .. } | LogItem::Fatal { line, .. } if *line > 0 => {
                *line += offset;
            }
            _ => {}
        }
    }
}

/// Read buffer size of a chunk reader.
const READ_BUF: usize = 256 << 10;

/// Read buffer size while looking for a sync line (usually a few lines away).
const SYNC_BUF: usize = 16 << 10;

/// A thread's buffers, reused from chunk to chunk: a fresh large buffer per chunk would be
/// fresh pages that the kernel zeroes each time (measured: 5% of the time). The storage of
/// the errors handed back is reused too (`Spares`, batch vectors): freed and allocated
/// again, it made the allocator return pages to the kernel and fault them back in, zeroed
/// (measured: 8% of the time).
#[derive(Default)]
struct Scratch {
    read: Vec<u8>,
    sync: Vec<u8>,
    spares: Spares,
    /// Emptied batch vectors, for the items of later chunks.
    batches: Vec<Vec<LogItem>>,
}

/// Buffered reading of `[pos, end)` of a file without moving a shared file position.
struct Window<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
    buf: &'a mut Vec<u8>,
    start: usize,
    filled: usize,
}

impl<'a> Window<'a> {
    fn new(file: &'a File, pos: u64, end: u64, buf: &'a mut Vec<u8>, size: usize) -> Self {
        if buf.len() < size {
            buf.resize(size, 0);
        }
        Self {
            file,
            pos,
            end,
            buf,
            start: 0,
            filled: 0,
        }
    }
}

impl Read for Window<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Window<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.start >= self.filled {
            let left = self.end.saturating_sub(self.pos);
            let want = usize::try_from(left)
                .unwrap_or(usize::MAX)
                .min(self.buf.len());
            self.start = 0;
            self.filled = 0;
            if want > 0 {
                let got = self.file.read_at(&mut self.buf[..want], self.pos)?;
                self.pos += got as u64;
                self.filled = got;
            }
        }
        Ok(&self.buf[self.start..self.filled])
    }

    fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.filled);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::logs::text::TextReader;

    fn repo(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
    }

    /// The bytes of a test log (gunzipped), at most `max` of them.
    fn log_bytes(path: &Path, max: usize) -> Vec<u8> {
        let raw = std::fs::read(path).expect("read log");
        let mut bytes = if raw.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::new();
            let mut gz = flate2::read::MultiGzDecoder::new(raw.as_slice()).take(max as u64);
            gz.read_to_end(&mut out).expect("gunzip");
            out
        } else {
            raw
        };
        bytes.truncate(max);
        bytes
    }

    fn sequential(bytes: &[u8]) -> Vec<LogItem> {
        TextReader::new(bytes)
            .with_name("log")
            .map(|i| i.expect("item"))
            .collect()
    }

    fn parallel(bytes: &[u8], threads: usize, chunk: u64) -> (Vec<LogItem>, ParallelStats) {
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(bytes).expect("write");
        let mut r = ParallelTextReader::new(f, "log", threads, chunk).expect("open");
        let items = r.by_ref().map(|i| i.expect("item")).collect();
        (items, r.stats())
    }

    /// Parallel reading gives exactly the sequential items, for every chunk size.
    fn same_items(label: &str, bytes: &[u8], chunks: &[u64]) {
        let want = sequential(bytes);
        for &chunk in chunks {
            for threads in [1, 3] {
                let (got, stats) = parallel(bytes, threads, chunk);
                assert_eq!(
                    got.len(),
                    want.len(),
                    "{label}: chunk {chunk}, {threads} threads: item count ({stats:?})"
                );
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g, w,
                        "{label}: chunk {chunk}, {threads} threads: item {i} ({stats:?})"
                    );
                }
            }
        }
    }

    fn text_logs() -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(repo("tests/data/logs/text"))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| {
                let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                n.ends_with(".log") || n.ends_with(".txt") || n.ends_with(".txt.gz")
            })
            .collect();
        for p in ["basic", "cxx", "libuse"] {
            v.push(repo(&format!("tests/data/match/{p}/baseline.txt")));
        }
        v.sort();
        v
    }

    #[test]
    fn every_test_log_reads_the_same_in_chunks() {
        for path in text_logs() {
            let bytes = log_bytes(&path, 2 << 20);
            let label = path.display().to_string();
            let chunks: &[u64] = if bytes.len() > 200_000 {
                &[4096, 65_536]
            } else {
                &[1, 64, 700, 4096]
            };
            same_items(&label, &bytes, chunks);
        }
    }

    #[test]
    fn concatenated_processes_and_tools_read_the_same() {
        // Different tools, PIDs, preambles and exec restarts back to back: the guessed
        // state is often wrong at a chunk's start and the consumer must read it again.
        let mut bytes = Vec::new();
        for _ in 0..3 {
            for name in [
                "helgrind-race.log",
                "drd-errors.log",
                "memcheck-verbose-fork.log",
                "interleaved.log",
                "timestamp-fork.log",
                "ci-timestamps.log",
                "nested.log",
                "truncated-garbage.log",
            ] {
                bytes.extend(log_bytes(
                    &repo(&format!("tests/data/logs/text/{name}")),
                    1 << 20,
                ));
            }
        }
        same_items("concatenation", &bytes, &[97, 1000, 8192]);
    }

    #[test]
    fn damaged_logs_read_the_same() {
        // Lines dropped, duplicated and cut at random (a fixed seed), so that errors,
        // blocks and preambles are broken across chunk boundaries.
        let base = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 400_000);
        let lines: Vec<&[u8]> = base.split_inclusive(|b| *b == b'\n').collect();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..4 {
            let mut bytes = Vec::new();
            for l in &lines {
                match rnd() % 50 {
                    0 => {}
                    1 => {
                        bytes.extend_from_slice(l);
                        bytes.extend_from_slice(l);
                    }
                    2 => bytes.extend_from_slice(&l[..l.len() / 2]),
                    _ => bytes.extend_from_slice(l),
                }
            }
            same_items(&format!("damaged {round}"), &bytes, &[333, 5000]);
        }
    }

    #[test]
    fn a_single_process_log_is_mostly_read_in_parallel() {
        let bytes = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 4 << 20);
        let (items, stats) = parallel(&bytes, 2, 65_536);
        assert_eq!(items, sequential(&bytes));
        let used = stats.accepted + stats.reread;
        assert!(
            stats.accepted * 10 >= used * 9 && stats.chunks >= 60,
            "too few chunks taken from the reader threads: {stats:?}"
        );
    }

    #[test]
    fn line_numbers_of_later_chunks_are_the_logs() {
        let mut log = String::new();
        for i in 0..200 {
            log.push_str(&format!(
                "==7== Invalid read of size 4\n==7==    at 0x{i:X}: f{i} (a.c:{i})\n==7== \n"
            ));
        }
        let (items, stats) = parallel(log.as_bytes(), 2, 512);
        assert!(stats.accepted > 5, "{stats:?}");
        let lines: Vec<u64> = items
            .iter()
            .filter_map(LogItem::as_error)
            .map(|e| e.line)
            .collect();
        assert_eq!(lines, (0..200).map(|i| i * 3 + 1).collect::<Vec<_>>());
    }

    #[test]
    fn a_log_without_sync_lines_is_read_by_one_thread() {
        let log = "program output\n".repeat(10_000);
        let (items, stats) = parallel(log.as_bytes(), 2, 1000);
        assert_eq!(items, sequential(log.as_bytes()));
        assert_eq!(stats.accepted, 1, "{stats:?}");
    }

    #[test]
    fn for_each_ref_sees_the_same_items_and_stops_when_asked() {
        let bytes = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 1 << 20);
        let want = sequential(&bytes);
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(&bytes).expect("write");
        let reader = ParallelTextReader::new(f, "log", 2, 4096).expect("open");
        let mut got = Vec::new();
        reader
            .for_each_ref(|i| {
                got.push(i.expect("item").clone());
                Ok::<(), ()>(())
            })
            .expect("no stop");
        assert_eq!(got, want);

        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(&bytes).expect("write");
        let reader = ParallelTextReader::new(f, "log", 2, 4096).expect("open");
        let mut seen = 0;
        let stop = reader.for_each_ref(|_| {
            seen += 1;
            if seen == 100 { Err("enough") } else { Ok(()) }
        });
        assert_eq!((stop, seen), (Err("enough"), 100));
    }

    #[test]
    fn dropping_a_reader_early_stops_its_threads() {
        // Readers dropped after a few items, while their threads wait for the consumer to
        // catch up: every drop must return. It used to hang when the stop flag was set
        // between a thread's check and its wait; the threads here pause at that point.
        let bytes = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 256 << 10);
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(&bytes).expect("write");
        let (done_tx, done_rx) = channel();
        std::thread::spawn(move || {
            for round in 0..20 {
                let file = f.try_clone().expect("clone");
                let mut r = ParallelTextReader::new(file, "log", 3, 512).expect("open");
                r.shared
                    .pause_before_wait
                    .store(round % 2 == 0, Ordering::Relaxed);
                for _ in 0..round % 7 {
                    let _ = r.next();
                }
                // Let the threads fill the window and reach their wait.
                std::thread::sleep(std::time::Duration::from_millis(5));
                drop(r);
            }
            let _ = done_tx.send(());
        });
        assert!(
            done_rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .is_ok(),
            "dropping a reader hung"
        );
    }

    #[test]
    fn sync_lines_are_looked_for_in_one_pass() {
        // Errors, then a long stretch of program output without a sync line: the chunks
        // before it look past it once, not once per later chunk.
        let mut log = String::new();
        for i in 0..20 {
            log.push_str(&format!(
                "==7== Invalid read of size 4\n==7==    at 0x{i:X}: f (a.c:{i})\n==7== \n"
            ));
        }
        for i in 0..20_000 {
            log.push_str(&format!("program output {i}\n"));
        }
        let (items, stats) = parallel(log.as_bytes(), 2, 256);
        assert_eq!(items, sequential(log.as_bytes()));
        let len = log.len() as u64;
        assert!(stats.sync_bytes <= 2 * len, "{stats:?} for {len} bytes");
    }

    #[test]
    fn an_empty_log_has_no_items() {
        let (items, _) = parallel(b"", 2, 100);
        assert!(items.is_empty());
    }
}
