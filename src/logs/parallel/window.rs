//! Reading part of a file: buffers reused from chunk to chunk and a window of the file.

use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::FileExt as _;

use crate::logs::record::LogItem;
use crate::logs::text::Spares;

/// Read buffer size of a chunk reader.
pub(super) const READ_BUF: usize = 256 << 10;

/// Read buffer size while looking for a sync line (usually a few lines away).
pub(super) const SYNC_BUF: usize = 16 << 10;

/// A thread's buffers, reused from chunk to chunk: a fresh large buffer per chunk would be
/// fresh pages that the kernel zeroes each time (measured: 5% of the time). The storage of
/// the errors handed back is reused too (`Spares`, batch vectors): freed and allocated
/// again, it made the allocator return pages to the kernel and fault them back in, zeroed
/// (measured: 8% of the time).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) read: Vec<u8>,
    pub(super) sync: Vec<u8>,
    pub(super) spares: Spares,
    /// Emptied batch vectors, for the items of later chunks.
    pub(super) batches: Vec<Vec<LogItem>>,
}

/// Buffered reading of `[pos, end)` of a file without moving a shared file position.
pub(super) struct Window<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
    buf: &'a mut Vec<u8>,
    start: usize,
    filled: usize,
}

impl<'a> Window<'a> {
    pub(super) fn new(
        file: &'a File,
        pos: u64,
        end: u64,
        buf: &'a mut Vec<u8>,
        size: usize,
    ) -> Self {
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
