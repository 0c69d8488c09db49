//! Sync lines: where the reader of a chunk starts, and where it stops.

use std::io::BufRead;
use std::sync::atomic::Ordering;

use super::window::{SYNC_BUF, Scratch, Window};
use super::worker::Shared;
use crate::logs::text::is_sync_pair;

/// How far past a chunk's start its sync line is looked for, in chunks. A chunk without one
/// is read by the reader of the chunk before it.
pub(super) const SYNC_WINDOW_CHUNKS: u64 = 4;

/// Bytes kept of each line while looking for sync lines (they are short).
pub(super) const SYNC_HEAD: usize = 256;

/// Which sync line [`find_sync`] looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SyncFor {
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
pub(super) fn find_sync(
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
pub(super) fn line_head(reader: &mut impl BufRead) -> std::io::Result<(Vec<u8>, u64)> {
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

/// Where the line that holds byte `at` ends (after its `\n`; the end of the file when `at`
/// is past it or the line has no `\n`).
pub(super) fn next_line_end(sh: &Shared, at: u64, scratch: &mut Scratch) -> std::io::Result<u64> {
    if at >= sh.len {
        return Ok(sh.len);
    }
    let mut reader = Window::new(&sh.file, at, sh.len, &mut scratch.sync, SYNC_BUF);
    let (_, n) = line_head(&mut reader)?;
    Ok(at + n)
}
