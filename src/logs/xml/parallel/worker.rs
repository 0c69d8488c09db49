//! Reader threads: they claim chunks in order, read each from its sync line with a guessed
//! state, and hand the items and the state at the chunk's end to the consumer.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::sync::{Scan, chunk_end, chunk_start};
use crate::logs::parallel::Schedule;
use crate::logs::parallel::claims::{Claim, Claims};
use crate::logs::record::{LogItem, ReadError};
use crate::logs::xml::lexer::Input;
use crate::logs::xml::reader::{Core, Flow};
use crate::logs::xml::resume::{ResumeKey, Seed};

pub(super) struct Shared {
    pub(super) file: File,
    pub(super) len: u64,
    pub(super) chunk: u64,
    pub(super) chunks: usize,
    pub(super) name: String,
    /// What is known of the log so far, for the guesses of readers of later chunks.
    pub(super) seed: Mutex<Arc<Seed>>,
    /// Which chunks the readers have claimed, and where the consumer is.
    pub(super) claims: Mutex<Claims>,
    pub(super) wake: Condvar,
    /// How many chunks readers may run ahead of the consumer.
    pub(super) window: usize,
    /// How far ahead they may run.
    pub(super) schedule: Schedule,
    pub(super) cancel: AtomicBool,
    /// Bytes read while looking for sync lines.
    pub(super) sync_bytes: AtomicU64,
    /// Per reader thread: batches of items handed back to be freed there.
    pub(super) spent: Vec<Mutex<Vec<Vec<LogItem>>>>,
}

impl Shared {
    /// Tells the reader threads to stop (under the lock they check the flag under before
    /// they wait: set outside it, a thread could miss the wake-up; see `logs::parallel`).
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

/// What the reader of one chunk produced.
pub(super) struct Chunk {
    /// Where its sync line starts; `None`: it has none, nothing was read.
    pub(super) start: Option<u64>,
    /// Where the sync line it read up to starts (the next chunk's); `None`: it read to the
    /// end of the log.
    pub(super) end: Option<u64>,
    /// The key of its guessed state at its start (chunk 0: none, it starts at the log's).
    pub(super) start_key: Option<ResumeKey>,
    /// Its items, lines numbered from `text::CHUNK_BASE + 1` (chunk 0: as the log does).
    pub(super) items: Vec<LogItem>,
    /// Its state at its end.
    pub(super) core: Option<Core>,
}

/// A thread's buffers, reused from chunk to chunk.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) read: Vec<u8>,
    pub(super) sync: Vec<u8>,
    pub(super) batches: Vec<Vec<LogItem>>,
}

/// `[pos, end)` of a file as a reader's input; its end is the log's when `last`.
pub(super) struct FileRange<'a> {
    pub(super) file: &'a File,
    pub(super) pos: u64,
    pub(super) end: u64,
    pub(super) last: bool,
}

impl Input for FileRange<'_> {
    fn fill(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.end.saturating_sub(self.pos)).unwrap_or(usize::MAX);
        let want = left.min(buf.len());
        if want == 0 {
            return Ok(0);
        }
        loop {
            match self.file.read_at(&mut buf[..want], self.pos) {
                Ok(n) => {
                    self.pos += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn is_final(&self) -> bool {
        self.last
    }
}

/// Reader thread `id`: claims chunks in order, at most `window` ahead of the consumer, and
/// frees the batches handed back to it.
pub(super) fn work(
    sh: &Shared,
    id: usize,
    tx: &Sender<(usize, Option<usize>, std::io::Result<Chunk>)>,
) {
    let mut scratch = Scratch::default();
    let take_spent = |scratch: &mut Scratch| {
        let spent = std::mem::take(&mut *lock(&sh.spent[id]));
        for mut batch in spent {
            batch.clear();
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

/// Reads chunk `k` from its sync line (the start of the log for chunk 0) with a state
/// guessed from `seed` (a fresh one for chunk 0), up to the next chunk's sync line.
pub(super) fn read_chunk(
    sh: &Shared,
    k: usize,
    seed: &Seed,
    scratch: &mut Scratch,
) -> std::io::Result<Chunk> {
    let empty = |start| Chunk {
        start,
        end: None,
        start_key: None,
        items: Vec::new(),
        core: None,
    };
    let sc = Scan {
        file: &sh.file,
        len: sh.len,
        scanned: &sh.sync_bytes,
    };
    let (start, kind) = if k == 0 {
        (0, None)
    } else {
        match chunk_start(&sc, k as u64, sh.chunk, &mut scratch.sync)? {
            Some((at, kind)) => (at, Some(kind)),
            None => return Ok(empty(None)),
        }
    };
    let end = chunk_end(&sc, k as u64, sh.chunk, &mut scratch.sync)?;
    if end == Some(start) {
        // Its sync line is the next chunk's: nothing of its own.
        return Ok(Chunk {
            end,
            ..empty(Some(start))
        });
    }
    let mut core = match kind {
        None => Core::new(&sh.name),
        Some(kind) => Core::guessed(seed, kind, start, &sh.name),
    };
    let mut start_key = if k == 0 { None } else { core.resume_key() };
    let warnings = core.b.stats.warnings;
    core.lex.give_buffer(std::mem::take(&mut scratch.read));
    let mut items = scratch.batches.pop().unwrap_or_default();
    read_range(
        sh,
        &mut core,
        (start, end.unwrap_or(sh.len)),
        &mut items,
        Some(&sh.cancel),
    )?;
    scratch.read = core.lex.take_buffer();
    if k > 0 && core.b.stats.warnings != warnings {
        // Warnings name lines in their messages, numbered here before the chunk's place
        // is known: the consumer reads such a chunk again (real logs warn rarely).
        start_key = None;
        items.clear();
    }
    Ok(Chunk {
        start: Some(start),
        end,
        start_key,
        items,
        core: Some(core),
    })
}

/// Feeds `[from, to)` to `core` (the log's end when `to` is), moving what it emits to
/// `items`; stops early when `stop` is set (a reader thread's: the consumer is gone, or
/// reads alone).
pub(super) fn read_range(
    sh: &Shared,
    core: &mut Core,
    (from, to): (u64, u64),
    items: &mut Vec<LogItem>,
    stop: Option<&AtomicBool>,
) -> std::io::Result<()> {
    let mut input = FileRange {
        file: &sh.file,
        pos: from,
        end: to,
        last: to >= sh.len,
    };
    while core.step(&mut input) == Flow::More {
        if core.b.out.len() >= 64 {
            core.drain_into(items);
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Ok(());
            }
        }
    }
    core.drain_into(items);
    failed(core)
}

/// The I/O error that stopped `core`, if one did.
pub(super) fn failed(core: &mut Core) -> std::io::Result<()> {
    match core.b.failed.take() {
        Some(ReadError::Io { source, .. }) => Err(source),
        // The reader itself never decides that (`detect` does).
        Some(e @ ReadError::NotALog { .. }) => Err(std::io::Error::other(e.to_string())),
        None => Ok(()),
    }
}
