//! The byte source between the log and quick-xml: UTF-8 transcoding, line counting, the
//! event size cap and resync points.

use std::io::{self, BufRead, Read};

use super::{EVENT_CAP, MAX_CHUNK, RAW_REF};

/// Where reading resumes after malformed XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resync {
    /// `<valgrindoutput` or `<?xml`.
    Document,
    /// An element that appears directly in a document after errors.
    InDocument,
    /// The first element inside an `<error>` (`<unique>`, or `<kind>` in an excerpt that
    /// starts there): an error whose start tag is not in the log.
    Fragment,
}

/// Resync points: the bytes after `<`.
pub(super) const RESYNC_POINTS: [(&[u8], Resync); 13] = [
    (b"error>", Resync::InDocument),
    (b"error ", Resync::InDocument),
    (b"valgrindoutput>", Resync::Document),
    (b"valgrindoutput ", Resync::Document),
    (b"?xml", Resync::Document),
    (b"status>", Resync::InDocument),
    (b"fatal_signal>", Resync::InDocument),
    (b"suppcounts>", Resync::InDocument),
    (b"errorcounts>", Resync::InDocument),
    (b"announcethread>", Resync::InDocument),
    (b"error_summary>", Resync::InDocument),
    (b"unique>", Resync::Fragment),
    (b"kind>", Resync::Fragment),
];
pub(super) const RESYNC_LOOKAHEAD: usize = 16;

/// Skipped elements whose content is passed over without tokenizing (they never nest).
pub(super) const FAST_SKIP: [&[u8]; 3] = [b"suppression", b"rawtext", b"clientmsg"];

/// A [`BufRead`] between the log and quick-xml that
/// - replaces each byte that is not UTF-8 by `&vgsupp-raw-XX;` (quick-xml requires UTF-8;
///   the reader turns the reference back into the byte);
/// - counts lines;
/// - refuses an event larger than [`EVENT_CAP`];
/// - finds resync points.
pub(super) struct Source<R> {
    pub(super) inner: R,
    pub(super) buf: Vec<u8>,
    pub(super) pos: usize,
    /// Newlines in `buf[..counted]` are included in `newlines`.
    pub(super) counted: usize,
    pub(super) newlines: u64,
    pub(super) consumed: u64,
    pub(super) limit: u64,
    /// An incomplete UTF-8 sequence at the end of the last chunk.
    pub(super) carry: Vec<u8>,
    pub(super) eof: bool,
    pub(super) last: u8,
    pub(super) oversize: bool,
    pub(super) inner_error: Option<io::Error>,
}

impl<R: BufRead> Source<R> {
    pub(super) fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(64 * 1024),
            pos: 0,
            counted: 0,
            newlines: 0,
            consumed: 0,
            limit: EVENT_CAP,
            carry: Vec::new(),
            eof: false,
            last: b'\n',
            oversize: false,
            inner_error: None,
        }
    }

    /// Starts a new event: it may read at most [`EVENT_CAP`] bytes.
    pub(super) fn mark(&mut self) {
        self.limit = self.consumed + EVENT_CAP;
    }

    pub(super) fn sync_lines(&mut self) {
        if self.pos > self.counted {
            let n = self.buf[self.counted..self.pos]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.newlines += n as u64;
            self.counted = self.pos;
        }
    }

    /// The 1-based line of the read position.
    pub(super) fn line(&mut self) -> u64 {
        self.sync_lines();
        self.newlines + 1
    }

    /// The 1-based line of the last byte read.
    pub(super) fn last_line(&mut self) -> u64 {
        self.sync_lines();
        if self.last == b'\n' && self.consumed > 0 {
            self.newlines
        } else {
            self.newlines + 1
        }
    }

    /// All input has been read and consumed.
    pub(super) fn exhausted(&self) -> bool {
        self.eof && self.pos >= self.buf.len()
    }

    /// Drops consumed bytes from the buffer.
    pub(super) fn compact(&mut self) {
        self.sync_lines();
        self.buf.drain(..self.pos);
        self.pos = 0;
        self.counted = 0;
    }

    /// Appends the next chunk of input, transcoded. At EOF sets `eof`.
    pub(super) fn read_more(&mut self) -> io::Result<()> {
        if self.inner_error.is_some() {
            return Err(io::Error::other("input error"));
        }
        let chunk = loop {
            match self.inner.fill_buf() {
                Ok(c) => break c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let msg = e.to_string();
                    self.inner_error = Some(e);
                    return Err(io::Error::other(msg));
                }
            }
        };
        if chunk.is_empty() {
            self.eof = true;
            for b in std::mem::take(&mut self.carry) {
                push_raw_ref(&mut self.buf, b);
            }
            return Ok(());
        }
        let n = chunk.len().min(MAX_CHUNK);
        let chunk = &chunk[..n];
        if self.carry.is_empty() {
            let tail = transcode(&mut self.buf, chunk);
            self.carry.extend_from_slice(&chunk[n - tail..]);
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(chunk);
            let tail = transcode(&mut self.buf, &joined);
            self.carry = joined[joined.len() - tail..].to_vec();
        }
        self.inner.consume(n);
        Ok(())
    }

    pub(super) fn advance(&mut self, n: usize) {
        if n > 0 {
            self.pos += n;
            self.consumed += n as u64;
            self.last = self.buf[self.pos - 1];
        }
    }

    /// Advances to the next `<` and reads until more than `need` bytes follow it (or end of
    /// file). `None` at end of file or on an I/O error (left in `inner_error`).
    pub(super) fn seek_tag(&mut self, need: usize) -> Option<()> {
        loop {
            if self.pos >= self.buf.len() {
                if self.eof {
                    return None;
                }
                self.compact();
                self.read_more().ok()?;
                continue;
            }
            let Some(i) = memchr::memchr(b'<', &self.buf[self.pos..]) else {
                self.advance(self.buf.len() - self.pos);
                continue;
            };
            self.advance(i);
            while self.buf.len() - self.pos <= need && !self.eof {
                self.compact();
                self.read_more().ok()?;
            }
            return Some(());
        }
    }

    /// Skips to just before the next resync point; `None` at EOF (or on an I/O error,
    /// left in `inner_error`).
    pub(super) fn skip_to_resync_point(&mut self) -> Option<Resync> {
        loop {
            self.seek_tag(RESYNC_LOOKAHEAD)?;
            let after = &self.buf[self.pos + 1..];
            if let Some((_, point)) = RESYNC_POINTS.iter().find(|(p, _)| after.starts_with(p)) {
                return Some(*point);
            }
            self.advance(1);
        }
    }

    /// Skips to just before `</name>`; stops early before a resync point, which it
    /// returns. `None` also at EOF and on an I/O error (left in `inner_error`).
    pub(super) fn skip_to_end_tag(&mut self, name: &[u8]) -> Option<Resync> {
        let need = RESYNC_LOOKAHEAD.max(name.len() + 3);
        loop {
            self.seek_tag(need)?;
            let after = &self.buf[self.pos + 1..];
            if let Some(rest) = after.strip_prefix(b"/")
                && let Some(rest) = rest.strip_prefix(name)
                && rest
                    .first()
                    .is_none_or(|&b| b == b'>' || b.is_ascii_whitespace())
            {
                return None;
            }
            if let Some((_, point)) = RESYNC_POINTS.iter().find(|(p, _)| after.starts_with(p)) {
                return Some(*point);
            }
            self.advance(1);
        }
    }
}

impl<R: BufRead> Read for Source<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let allowed = self.limit.saturating_sub(self.consumed);
        if allowed == 0 {
            self.oversize = true;
            return Err(io::Error::other("event too large"));
        }
        if self.pos >= self.buf.len() {
            self.sync_lines();
            self.buf.clear();
            self.pos = 0;
            self.counted = 0;
            while self.buf.is_empty() && !self.eof {
                self.read_more()?;
            }
        }
        // Hand out no more than the event may still read, so that passing the cap makes
        // quick-xml ask again.
        let end = self.buf.len().min(
            self.pos
                .saturating_add(usize::try_from(allowed).unwrap_or(usize::MAX)),
        );
        Ok(&self.buf[self.pos..end])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.buf.len() - self.pos);
        self.advance(amt);
    }
}

/// Appends `input` to `out`, each byte that is not UTF-8 replaced by a raw reference.
/// Returns the length of an incomplete sequence at the end, which is not appended.
pub(super) fn transcode(out: &mut Vec<u8>, mut input: &[u8]) -> usize {
    loop {
        match std::str::from_utf8(input) {
            Ok(_) => {
                out.extend_from_slice(input);
                return 0;
            }
            Err(e) => {
                let valid = e.valid_up_to();
                out.extend_from_slice(&input[..valid]);
                match e.error_len() {
                    Some(len) => {
                        for &b in &input[valid..valid + len] {
                            push_raw_ref(out, b);
                        }
                        input = &input[valid + len..];
                    }
                    None => return input.len() - valid,
                }
            }
        }
    }
}

pub(super) fn push_raw_ref(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'&');
    out.extend_from_slice(RAW_REF);
    out.push(HEX[usize::from(b >> 4)]);
    out.push(HEX[usize::from(b & 15)]);
    out.push(b';');
}
