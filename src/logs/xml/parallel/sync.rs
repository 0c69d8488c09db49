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

/// The first sync line that starts in `[from, limit)` (`from` > 0; the line at `from` counts
/// when a `\n` comes before it), in a file of `len` bytes: its offset and kind. `buf` is
/// reused; `scanned` counts the bytes read.
pub(super) fn find_sync(
    file: &File,
    len: u64,
    (from, limit): (u64, u64),
    buf: &mut Vec<u8>,
    scanned: &AtomicU64,
) -> std::io::Result<Option<(u64, SyncKind)>> {
    let limit = limit.min(len);
    if from == 0 || from >= limit {
        return Ok(None);
    }
    if buf.len() < BLOCK + OVERLAP {
        buf.resize(BLOCK + OVERLAP, 0);
    }
    let finder = memchr::memmem::Finder::new(b"\n<");
    // Each block starts at a byte that may be the `\n` before a line start.
    let mut pos = from - 1;
    while pos + 1 < limit {
        let n = read_at(file, pos, &mut buf[..BLOCK + OVERLAP])?;
        scanned.fetch_add(n.min(BLOCK) as u64, Ordering::Relaxed);
        let block = &buf[..n];
        for i in finder.find_iter(block) {
            let start = pos + i as u64 + 1;
            if i >= BLOCK || start >= limit {
                break;
            }
            let line = &block[i + 1..];
            let kind = if line.starts_with(b"<error>")
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
            if kind == SyncKind::Error && after_announcement(file, start)? {
                continue;
            }
            return Ok(Some((start, kind)));
        }
        if n < BLOCK + OVERLAP {
            break;
        }
        pos += BLOCK as u64;
    }
    Ok(None)
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
        let mut out = Vec::new();
        let mut from = 1;
        while let Some((at, kind)) =
            find_sync(&f, len, (from, len), &mut buf, &scanned).expect("read")
        {
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
}
