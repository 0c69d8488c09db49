//! Sync lines: where the reader of a chunk starts, and where the reader of the chunk before
//! it stops.
//!
//! A sync line is a line that is `<error>` (Valgrind writes each error so, at the top level
//! of its document), unless the line before it (blank lines apart) ends an
//! `<announcethread>` (Helgrind's announcements are context of the error after them: a
//! reader guessed there would not know them), or a line that starts a document (`<?xml`,
//! `<valgrindoutput>`). Each pattern ends before a `\n` or holds every byte that decides
//! what the reader makes of it, so a reader whose input pauses right before a sync line
//! decides as one that sees the line (see `lexer`).

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::logs::xml::resume::SyncKind;

/// How far past a chunk's start its sync line is looked for, in chunks. A chunk without one
/// is read by the reader of the chunk before it.
pub(super) const SYNC_WINDOW_CHUNKS: u64 = 4;

/// Bytes searched at a time.
const BLOCK: usize = 64 << 10;
/// Bytes after a block's end read with it, so that a line that starts in the block can be
/// told from the block (`\n<valgrindoutput>` and more).
const OVERLAP: usize = 32;
/// How far back the line before an `<error>` is looked for.
const LOOK_BACK: usize = 256;

/// Reads `file` at `at` into `buf` (at most its length); how many bytes were read.
fn read_at(file: &File, at: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at + n as u64) {
            Ok(0) => break,
            Ok(got) => n += got,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// How far into a chunk a document start is preferred to an earlier `<error>` line.
const DOC_WINDOW: u64 = 64 << 10;

/// Where the reader of chunk `k` (of `chunk` bytes) starts: the first document start in the
/// chunk's first [`DOC_WINDOW`] bytes, else the first sync line of either kind within
/// [`SYNC_WINDOW_CHUNKS`] chunks of its start; `None`: it has none (the chunk before reads
/// it). Preferring a document start makes a log of many small documents readable in
/// parallel: the state between documents is always the guess's, while an error's document
/// may not be. (Looking through the whole chunk for one doubled the bytes read.)
///
/// Chunks' starts never decrease: a chunk whose start is past its own bytes starts at the
/// first sync line after them, which is also where the next chunk starts unless that one
/// holds a document start further on.
pub(super) fn chunk_start(
    sc: &Scan<'_>,
    k: u64,
    chunk: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<(u64, SyncKind)>> {
    let begin = k.saturating_mul(chunk);
    let docs = begin.saturating_add(DOC_WINDOW.min(chunk));
    let limit = begin.saturating_add(chunk.saturating_mul(SYNC_WINDOW_CHUNKS));
    find_sync(sc, (begin, limit), docs, buf)
}

/// Where the reader of chunk `k` stops: the start of the first later chunk that has one
/// (see [`chunk_start`]); `None`: the end of the log. When the next chunk has none (no sync
/// line within its window), one forward scan finds the first sync line after that window,
/// and the first chunk whose window holds it is the one: the chunks between have no sync
/// line in theirs. (Searching each later chunk in turn read a long stretch without sync
/// lines over and over: quadratic time, found in the text reader.)
pub(super) fn chunk_end(
    sc: &Scan<'_>,
    k: u64,
    chunk: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<u64>> {
    if let Some((at, _)) = chunk_start(sc, k + 1, chunk, buf)? {
        return Ok(Some(at));
    }
    let window = chunk.saturating_mul(SYNC_WINDOW_CHUNKS);
    let from = (k + 1).saturating_mul(chunk).saturating_add(window);
    let Some((first, _)) = find_sync(sc, (from, sc.len), 0, buf)? else {
        return Ok(None);
    };
    let j = (first / chunk + 1)
        .saturating_sub(SYNC_WINDOW_CHUNKS)
        .max(k + 2);
    Ok(chunk_start(sc, j, chunk, buf)?.map(|(at, _)| at))
}

/// A file searched for sync lines.
pub(super) struct Scan<'a> {
    pub(super) file: &'a File,
    pub(super) len: u64,
    /// Bytes read while searching.
    pub(super) scanned: &'a AtomicU64,
}

/// The first sync line that starts in `[from, limit)` (`from` > 0; the line at `from` counts
/// when a `\n` comes before it), except that a document start before `docs` comes before
/// an `<error>` line: its offset and kind. `buf` is reused.
pub(super) fn find_sync(
    sc: &Scan<'_>,
    (from, limit): (u64, u64),
    docs: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<(u64, SyncKind)>> {
    let Scan { file, len, scanned } = *sc;
    let limit = limit.min(len);
    if from == 0 || from >= limit {
        return Ok(None);
    }
    if buf.len() < BLOCK + OVERLAP {
        buf.resize(BLOCK + OVERLAP, 0);
    }
    let finder = memchr::memmem::Finder::new(b"\n<");
    // The first `<error>` line, while a document start before `docs` may still come.
    let mut error = None;
    // Each block starts at a byte that may be the `\n` before a line start.
    let mut pos = from - 1;
    while pos + 1 < limit {
        if error.is_some() && pos + 1 >= docs {
            break;
        }
        let n = read_at(file, pos, &mut buf[..BLOCK + OVERLAP])?;
        scanned.fetch_add(n.min(BLOCK) as u64, Ordering::Relaxed);
        let block = &buf[..n];
        for i in finder.find_iter(block) {
            let start = pos + i as u64 + 1;
            if i >= BLOCK || start >= limit || (error.is_some() && start >= docs) {
                break;
            }
            let line = &block[i + 1..];
            let kind = if error.is_none()
                && line.starts_with(b"<error>")
                && matches!(line.get(7..), Some([b'\n', ..] | [b'\r', b'\n', ..]))
            {
                SyncKind::Error
            } else if line.starts_with(b"<?xml")
                || (line.starts_with(b"<valgrindoutput")
                    && line
                        .get(15)
                        .is_some_and(|&b| b == b'>' || b.is_ascii_whitespace()))
            {
                SyncKind::Document
            } else {
                continue;
            };
            match kind {
                SyncKind::Document => return Ok(Some((start, kind))),
                SyncKind::Error if after_announcement(file, start)? => {}
                SyncKind::Error if start >= docs => return Ok(Some((start, kind))),
                SyncKind::Error => error = Some((start, kind)),
            }
        }
        if n < BLOCK + OVERLAP {
            break;
        }
        pos += BLOCK as u64;
    }
    Ok(error)
}

/// Whether the line before the one at `start` (blank lines apart) ends with
/// `</announcethread>`.
fn after_announcement(file: &File, start: u64) -> std::io::Result<bool> {
    let back = start.min(LOOK_BACK as u64);
    let mut before = [0u8; LOOK_BACK];
    let n = read_at(
        file,
        start - back,
        &mut before[..usize::try_from(back).unwrap_or(0)],
    )?;
    Ok(before[..n].trim_ascii_end().ends_with(b"</announcethread>"))
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn syncs(log: &[u8]) -> Vec<(u64, SyncKind)> {
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(log).expect("write");
        let len = log.len() as u64;
        let mut buf = Vec::new();
        let scanned = AtomicU64::new(0);
        let sc = Scan {
            file: &f,
            len,
            scanned: &scanned,
        };
        let mut out = Vec::new();
        let mut from = 1;
        while let Some((at, kind)) = find_sync(&sc, (from, len), 0, &mut buf).expect("read") {
            out.push((at, kind));
            from = at + 1;
        }
        out
    }

    #[test]
    fn error_and_document_lines() {
        let log = b"<?xml version=\"1.0\"?>\n<valgrindoutput>\n<error>\n  <error>\n<error>x\n\
            <announcethread>\n</announcethread>\n\n<error>\n<error>\r\n<?xml?>\n<valgrindoutputs>\n";
        let at = |p: &[u8]| memchr::memmem::find_iter(log, p).collect::<Vec<_>>();
        let errors = at(b"\n<error>\n");
        let want = vec![
            (at(b"<valgrindoutput>")[0] as u64, SyncKind::Document),
            (errors[0] as u64 + 1, SyncKind::Error),
            (at(b"<error>\r\n")[0] as u64, SyncKind::Error),
            (at(b"<?xml?>")[0] as u64, SyncKind::Document),
        ];
        assert_eq!(syncs(log), want);
    }

    #[test]
    fn lines_across_blocks() {
        let mut log = Vec::new();
        let mut want = Vec::new();
        while log.len() < 3 * BLOCK {
            log.extend_from_slice(b"  <frame>x</frame>\n");
            if log.len() % 7 == 0 {
                want.push((log.len() as u64, SyncKind::Error));
                log.extend_from_slice(b"<error>\n");
            }
        }
        assert!(want.len() > 100);
        assert_eq!(syncs(&log), want);
    }

    /// Every chunk's start and end, for every chunk size: starts never decrease, and each
    /// chunk that reads anything ends where the next one that reads anything starts.
    #[test]
    fn chunks_follow_each_other() {
        let mut log = Vec::new();
        for i in 0..400u32 {
            match i % 11 {
                0 => log.extend_from_slice(b"<?xml version=\"1.0\"?>\n<valgrindoutput>\n"),
                3 | 4 => log.extend_from_slice(&b"  <frame>x</frame>\n".repeat(40)),
                _ => log.extend_from_slice(b"<error>\n  <kind>Leak</kind>\n</error>\n"),
            }
        }
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(&log).expect("write");
        let scanned = AtomicU64::new(0);
        let sc = Scan {
            file: &f,
            len: log.len() as u64,
            scanned: &scanned,
        };
        let mut buf = Vec::new();
        let all = syncs(&log);
        assert!(all.len() > 300, "{}", all.len());
        for chunk in [1, 7, 50, 333, 1000, 5000] {
            let chunks = (log.len() as u64).div_ceil(chunk);
            let starts: Vec<Option<u64>> = (1..chunks)
                .map(|k| {
                    chunk_start(&sc, k, chunk, &mut buf)
                        .expect("read")
                        .map(|s| s.0)
                })
                .collect();
            // As defined: the first document start in the chunk's first bytes, else the
            // first sync line in its window.
            for (k, start) in (1..chunks).zip(&starts) {
                let begin = k * chunk;
                let docs = begin..begin + DOC_WINDOW.min(chunk);
                let doc = all
                    .iter()
                    .find(|(at, kind)| *kind == SyncKind::Document && docs.contains(at));
                let window = begin..begin + chunk * SYNC_WINDOW_CHUNKS;
                let any = all.iter().find(|(at, _)| window.contains(at));
                assert_eq!(*start, doc.or(any).map(|s| s.0), "chunk {chunk}, k {k}");
            }
            let defined: Vec<u64> = starts.iter().flatten().copied().collect();
            assert!(defined.windows(2).all(|w| w[0] <= w[1]), "chunk {chunk}");
            for k in 0..chunks - 1 {
                let end = chunk_end(&sc, k, chunk, &mut buf).expect("read");
                let next = starts[usize::try_from(k).expect("small")..]
                    .iter()
                    .flatten()
                    .next();
                assert_eq!(end, next.copied(), "chunk {chunk}, k {k}");
            }
        }
    }
}
