//! The XML tokenizer: a log's bytes to tags, text, references and CDATA, over one reused
//! buffer, with line numbers counted only when asked for.
//!
//! It reads what quick-xml's pull parser read (vgsupp used it before, with the settings
//! kept here: end names checked, unmatched end tags allowed, empty elements expanded, a `&`
//! without its `;` taken as text): start and end tags split at `>` outside quoted attribute
//! values, `&name;` references, comments, CDATA, processing instructions and `<!DOCTYPE>`;
//! the items of both readers were compared on thousands of mutated logs. Unlike quick-xml
//! it takes the bytes as they are: names and text that are not UTF-8 stay byte for byte
//! (Valgrind prints paths and names raw; quick-xml needed them escaped first), and no token
//! is copied out of the buffer it was read into.
//!
//! A token is never split: one that does not fit in what was read so far is read on, up to
//! [`EVENT_CAP`](super::EVENT_CAP) bytes. The input may also pause (parallel reading ends a
//! chunk's window right before a `<` at the start of a line, and later reads on from there):
//! text pending there is complete, markup pending there waits for more input.

use std::cell::Cell;
use std::io::{self, BufRead};
use std::ops::Range;

use super::EVENT_CAP;
use super::resync::{FAST_SKIP, RESYNC_LOOKAHEAD, RESYNC_POINTS, Resync, Skipped};

/// How many bytes are read from the input at once.
pub(super) const READ_SIZE: usize = 256 << 10;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Where a log's bytes come from.
pub(crate) trait Input {
    /// Reads into `buf` (not empty); 0 at the end of the input.
    ///
    /// # Errors
    /// The input's read error.
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize>;

    /// Whether the end of this input is the end of the log (else the input pauses, right
    /// before a `<`, and reading goes on later from there).
    fn is_final(&self) -> bool;
}

/// A [`BufRead`] as the whole log.
pub(super) struct BufInput<R>(pub(super) R);

impl<R: BufRead> Input for BufInput<R> {
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.fill_buf() {
                Ok(chunk) => {
                    let n = chunk.len().min(buf.len());
                    buf[..n].copy_from_slice(&chunk[..n]);
                    self.0.consume(n);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn is_final(&self) -> bool {
        true
    }
}

/// One token; ranges index [`Lexer::bytes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    /// `<name …>`, or `<name …/>` (`empty`).
    Start { name: Range<usize>, empty: bool },
    /// `</name>` (the name without trailing whitespace).
    End { name: Range<usize> },
    /// Text up to the next `<` or `&`.
    Text(Range<usize>),
    /// `&name;`: the name.
    Ref(Range<usize>),
    /// `<![CDATA[…]]>`: the content.
    CData(Range<usize>),
    /// `<?xml …?>`.
    Decl,
    /// A comment, a processing instruction or `<!DOCTYPE …>`.
    Other,
    /// Markup that is not XML, read past (the message says what it is).
    Bad(&'static str),
    /// A token longer than [`EVENT_CAP`], read past as far as it was read.
    Oversize,
    /// The end of the log (a token cut by it is dropped).
    Eof,
    /// The input paused: more may come later.
    Pause,
}

/// What follows the end of the bytes read (see [`Lexer::next`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// More may be read.
    Open,
    /// The end of the log.
    Eof,
    /// A pause, right before a `<`.
    Pause,
}

/// The tokenizer's state: its buffer (with the bytes of a token not yet complete) and its
/// place in the log.
#[derive(Debug, Clone)]
pub(crate) struct Lexer {
    /// Read into in place: `buf[..end]` holds what was read (its length is its capacity,
    /// zeroed once, so that reading needs no zeroing).
    buf: Vec<u8>,
    end: usize,
    pos: usize,
    /// The log's offset of `buf[0]`.
    base: u64,
    /// Lines before this lexer's first byte that its line numbers count (0, or a chunk's
    /// base in parallel reading).
    line_base: u64,
    /// `newlines` counts the newlines of the log before `buf[counted]` (since the lexer's
    /// first byte). Counted when asked for: most tokens never need their line.
    counted: Cell<usize>,
    newlines: Cell<u64>,
    /// The byte before `buf[0]` (`\n` before the log's first byte).
    last: u8,
    /// Where the search for the end of the pending token goes on (from `pos`).
    scan: usize,
}

impl Lexer {
    /// A lexer at the log's offset `base`, whose first line is line `line_base + 1`.
    pub(crate) fn new(base: u64, line_base: u64) -> Self {
        Self {
            buf: Vec::new(),
            end: 0,
            pos: 0,
            base,
            line_base,
            counted: Cell::new(0),
            newlines: Cell::new(0),
            last: b'\n',
            scan: 0,
        }
    }

    /// The bytes tokens index.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf[..self.end]
    }

    /// The bytes read and not yet tokenized.
    pub(super) fn rest(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// The log's offset of the read position.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The newlines before the read position (since the lexer's first byte).
    fn newlines(&self) -> u64 {
        let counted = self.counted.get();
        if self.pos > counted {
            let n = memchr::memchr_iter(b'\n', &self.buf[counted..self.pos]).count();
            self.newlines.set(self.newlines.get() + n as u64);
            self.counted.set(self.pos);
        }
        self.newlines.get()
    }

    /// The 1-based line of the read position.
    pub(super) fn line(&self) -> u64 {
        self.line_base + self.newlines() + 1
    }

    /// The 1-based line of the last byte read (where a cut log stops).
    pub(super) fn last_line(&self) -> u64 {
        let newlines = self.newlines();
        let last = if self.pos > 0 {
            self.buf[self.pos - 1]
        } else {
            self.last
        };
        if last == b'\n' && self.offset() > 0 {
            self.line_base + newlines
        } else {
            self.line_base + newlines + 1
        }
    }

    /// Whether no byte of a token is waiting for more input.
    pub(crate) fn is_idle(&self) -> bool {
        self.pos >= self.end
    }

    /// Numbers lines from `first` on (see `text::chunk_line`): a chunk's lexer, whose
    /// first line was `line_base + 1`, once the chunk's place in the log is known.
    pub(crate) fn renumber(&mut self, first: u64) {
        self.line_base = first.saturating_sub(1);
    }

    /// The buffer, for reuse by a later lexer (this one is idle and will read no more).
    pub(crate) fn take_buffer(&mut self) -> Vec<u8> {
        self.compact();
        if self.end > 0 {
            return Vec::new();
        }
        std::mem::take(&mut self.buf)
    }

    /// Gives this lexer a buffer to read into (it has read nothing yet, or all it read is
    /// used).
    pub(crate) fn give_buffer(&mut self, buf: Vec<u8>) {
        self.compact();
        if self.end == 0 && self.buf.len() < buf.len() {
            self.buf = buf;
        }
    }

    /// Drops the bytes before the read position from the buffer.
    fn compact(&mut self) {
        if self.pos == 0 {
            return;
        }
        self.newlines();
        self.last = self.buf[self.pos - 1];
        self.base += self.pos as u64;
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        self.counted.set(0);
        if self.buf.len() > 4 * READ_SIZE && self.end < READ_SIZE {
            // Do not keep a buffer grown for one exceptionally long token.
            self.buf.truncate(2 * READ_SIZE);
            self.buf.shrink_to_fit();
        }
    }

    /// Reads more input after what is buffered; false at the input's end.
    fn fill(&mut self, input: &mut dyn Input) -> io::Result<bool> {
        self.compact();
        if self.buf.len() - self.end < READ_SIZE {
            // A long token grows the buffer.
            let size = (self.end + READ_SIZE).max(2 * self.buf.len());
            self.buf.resize(size, 0);
        }
        let n = input.fill(&mut self.buf[self.end..self.end + READ_SIZE])?;
        self.end += n;
        Ok(n > 0)
    }

    /// Moves the read position `n` bytes on.
    pub(super) fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
        self.scan = 0;
    }

    /// The next token. `bom`: a byte-order mark here is skipped (quick-xml skips one where
    /// it starts reading).
    ///
    /// A token longer than [`EVENT_CAP`] is [`Tok::Oversize`], whatever the input's pieces:
    /// its first [`EVENT_CAP`] bytes are read past.
    ///
    /// # Errors
    /// The input's read error.
    pub(super) fn next(&mut self, input: &mut dyn Input, bom: bool) -> io::Result<Tok> {
        if bom {
            while self.end - self.pos < BOM.len() {
                if !self.fill(input)? {
                    break;
                }
            }
            if self.buf[self.pos..self.end].starts_with(BOM) {
                self.advance(BOM.len());
            }
        }
        let mut end = End::Open;
        loop {
            let avail = &self.buf[self.pos..self.end];
            let (tok, len) = match scan(avail, self.scan, end) {
                Scan::Token(tok, len) => (tok, len),
                Scan::More(resume) => {
                    self.scan = resume;
                    if avail.len() as u64 > EVENT_CAP {
                        return Ok(self.oversize());
                    }
                    if !self.fill(input)? {
                        end = if input.is_final() {
                            End::Eof
                        } else {
                            End::Pause
                        };
                    }
                    continue;
                }
            };
            let cut = matches!(tok, Tok::Eof | Tok::Pause) && !avail.is_empty();
            if len as u64 > EVENT_CAP || (cut && avail.len() as u64 > EVENT_CAP) {
                return Ok(self.oversize());
            }
            let at = self.pos;
            self.advance(len);
            let shift = |r: Range<usize>| r.start + at..r.end + at;
            return Ok(match tok {
                Tok::Start { name, empty } => Tok::Start {
                    name: shift(name),
                    empty,
                },
                Tok::End { name } => Tok::End { name: shift(name) },
                Tok::Text(r) => Tok::Text(shift(r)),
                Tok::Ref(r) => Tok::Ref(shift(r)),
                Tok::CData(r) => Tok::CData(shift(r)),
                tok => tok,
            });
        }
    }

    /// A token longer than the cap: its first [`EVENT_CAP`] bytes are read past.
    fn oversize(&mut self) -> Tok {
        #[allow(clippy::cast_possible_truncation)] // 16 MiB
        self.advance(EVENT_CAP as usize);
        Tok::Oversize
    }

    /// Advances to the next `<` with more than `need` bytes after it, or as many as the
    /// input has: a pause comes before a `<` at the start of a line, so the bytes after a
    /// `<` before it end with a `\n`, which no pattern looked for holds. False at the end
    /// of the input.
    fn seek_tag(&mut self, input: &mut dyn Input, need: usize) -> io::Result<bool> {
        loop {
            if let Some(i) = memchr::memchr(b'<', &self.buf[self.pos..self.end]) {
                self.advance(i);
                while self.end - self.pos <= need {
                    if !self.fill(input)? {
                        break;
                    }
                }
                return Ok(true);
            }
            self.advance(self.end - self.pos);
            if !self.fill(input)? {
                return Ok(false);
            }
        }
    }

    /// Skips to just before the next resync point.
    pub(super) fn skip_to_resync_point(&mut self, input: &mut dyn Input) -> io::Result<Skipped> {
        loop {
            if !self.seek_tag(input, RESYNC_LOOKAHEAD)? {
                return Ok(Skipped::InputEnd);
            }
            if let Some(point) = resync_point(&self.buf[self.pos + 1..self.end]) {
                return Ok(Skipped::At(point));
            }
            self.advance(1);
        }
    }

    /// Skips to just before `</name>` (`name`: [`FAST_SKIP`]`[skip]`), or before a resync
    /// point that comes first.
    pub(super) fn skip_to_end_tag(
        &mut self,
        input: &mut dyn Input,
        skip: usize,
    ) -> io::Result<Skipped> {
        let name = FAST_SKIP[skip];
        let need = RESYNC_LOOKAHEAD.max(name.len() + 3);
        loop {
            if !self.seek_tag(input, need)? {
                return Ok(Skipped::InputEnd);
            }
            let after = &self.buf[self.pos + 1..self.end];
            if let Some(rest) = after.strip_prefix(b"/")
                && let Some(rest) = rest.strip_prefix(name)
                && rest
                    .first()
                    .is_none_or(|&b| b == b'>' || b.is_ascii_whitespace())
            {
                return Ok(Skipped::EndTag);
            }
            if let Some(point) = resync_point(after) {
                return Ok(Skipped::At(point));
            }
            self.advance(1);
        }
    }
}

/// The resync point that `after` (the bytes after a `<`) starts, if any.
fn resync_point(after: &[u8]) -> Option<Resync> {
    // Most tags passed over are end tags, or start with a letter no resync point has.
    if !matches!(
        after.first(),
        Some(b'e' | b'v' | b'?' | b's' | b'f' | b'a' | b'u' | b'k')
    ) {
        return None;
    }
    RESYNC_POINTS
        .iter()
        .find(|(p, _)| after.starts_with(p))
        .map(|&(_, point)| point)
}

/// What [`scan`] found.
enum Scan {
    /// A token of this many bytes.
    Token(Tok, usize),
    /// The token needs more bytes; its search may resume at this index.
    More(usize),
}

/// XML whitespace.
const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The token at the start of `avail`; `resume`: where the last search for its end stopped.
fn scan(avail: &[u8], resume: usize, end: End) -> Scan {
    let Some(&first) = avail.first() else {
        return Scan::Token(
            match end {
                End::Open => return Scan::More(0),
                End::Eof => Tok::Eof,
                End::Pause => Tok::Pause,
            },
            0,
        );
    };
    match first {
        b'<' => markup(avail, resume, end),
        b'&' => reference(avail, resume, end),
        _ => match text_end(&avail[resume.max(1)..]) {
            Some(i) => {
                let n = resume.max(1) + i;
                Scan::Token(Tok::Text(0..n), n)
            }
            // Text ends at the end of the log, or before the `<` a pause comes before.
            None if end != End::Open => Scan::Token(Tok::Text(0..avail.len()), avail.len()),
            None => Scan::More(avail.len()),
        },
    }
}

/// The first `<` or `&` in `text`.
fn text_end(text: &[u8]) -> Option<usize> {
    // Most text runs are short (indentation, a number, a name): a plain loop first.
    for (i, &b) in text.iter().take(16).enumerate() {
        if b == b'<' || b == b'&' {
            return Some(i);
        }
    }
    let from = text.len().min(16);
    memchr::memchr2(b'<', b'&', &text[from..]).map(|i| from + i)
}

/// `&name;`, or a `&` without `;` before the next `<` or `&`: text.
fn reference(avail: &[u8], resume: usize, end: End) -> Scan {
    let from = resume.max(1);
    match memchr::memchr3(b';', b'&', b'<', &avail[from..]) {
        Some(i) if avail[from + i] == b';' => Scan::Token(Tok::Ref(1..from + i), from + i + 1),
        Some(i) => Scan::Token(Tok::Text(0..from + i), from + i),
        None if end != End::Open => Scan::Token(Tok::Text(0..avail.len()), avail.len()),
        None => Scan::More(avail.len()),
    }
}

/// Markup at a `<`.
fn markup(avail: &[u8], resume: usize, end: End) -> Scan {
    let Some(&second) = avail.get(1) else {
        return cut(avail, end, resume);
    };
    match second {
        b'!' => bang(avail, resume, end),
        b'?' => match memchr::memmem::find(&avail[resume.max(2)..], b"?>") {
            Some(i) => {
                let len = resume.max(2) + i + 2;
                let content = &avail[2..len - 2];
                let decl =
                    content.starts_with(b"xml") && content.get(3).is_none_or(|&b| is_space(b));
                Scan::Token(if decl { Tok::Decl } else { Tok::Other }, len)
            }
            None => cut(avail, end, avail.len().saturating_sub(1).max(2)),
        },
        b'/' => match tag_end(&avail[2..]) {
            Some(i) => {
                let content = &avail[2..2 + i];
                let name_len = content
                    .iter()
                    .rposition(|&b| !is_space(b))
                    .map_or(content.len(), |p| p + 1);
                Scan::Token(
                    Tok::End {
                        name: 2..2 + name_len,
                    },
                    2 + i + 1,
                )
            }
            None => cut(avail, end, resume),
        },
        _ => match tag_end(&avail[1..]) {
            Some(i) => {
                let mut content = &avail[1..1 + i];
                let empty = content.last() == Some(&b'/');
                if empty {
                    content = &content[..content.len() - 1];
                }
                let name_len = content
                    .iter()
                    .position(|&b| is_space(b))
                    .unwrap_or(content.len());
                Scan::Token(
                    Tok::Start {
                        name: 1..1 + name_len,
                        empty,
                    },
                    1 + i + 1,
                )
            }
            None => cut(avail, end, resume),
        },
    }
}

/// The index of the `>` that ends a tag whose content starts `rest`: the first one outside
/// quoted attribute values.
fn tag_end(rest: &[u8]) -> Option<usize> {
    // Most tags are short and quote nothing: a plain loop beats a search call there.
    for (i, &b) in rest.iter().take(32).enumerate() {
        match b {
            b'>' => return Some(i),
            b'"' | b'\'' => break,
            _ => {}
        }
    }
    let mut quote = None;
    let mut i = 0;
    while i < rest.len() {
        let found = match quote {
            None => memchr::memchr3(b'>', b'"', b'\'', &rest[i..])?,
            Some(q) => memchr::memchr(q, &rest[i..])?,
        };
        let b = rest[i + found];
        i += found;
        match (quote, b) {
            (None, b'>') => return Some(i),
            (None, q) => quote = Some(q),
            (Some(_), _) => quote = None,
        }
        i += 1;
    }
    None
}

/// A token cut by the end of the input: more is read, or the log ends (the token is
/// dropped), or the input pauses (the token waits).
fn cut(avail: &[u8], end: End, resume: usize) -> Scan {
    match end {
        End::Open => Scan::More(resume),
        End::Eof => Scan::Token(Tok::Eof, avail.len()),
        End::Pause => Scan::Token(Tok::Pause, 0),
    }
}

/// `<!--…-->`, `<![CDATA[…]]>`, `<!DOCTYPE…>`; anything else after `<!` is not XML.
fn bang(avail: &[u8], resume: usize, end: End) -> Scan {
    let Some(&third) = avail.get(2) else {
        return cut(avail, end, resume);
    };
    match third {
        b'[' => {
            let from = resume.max(3);
            match memchr::memmem::find(&avail[from..], b"]]>") {
                Some(i) => {
                    let len = from + i + 3;
                    if avail.starts_with(b"<![CDATA[") && len >= 12 {
                        Scan::Token(Tok::CData(9..len - 3), len)
                    } else {
                        Scan::Token(Tok::Bad("CDATA not closed: `]]>` not found"), len)
                    }
                }
                None => cut(avail, end, avail.len().saturating_sub(2).max(3)),
            }
        }
        b'-' => {
            let from = resume.max(4);
            match avail
                .get(from..)
                .and_then(|a| memchr::memmem::find(a, b"-->"))
            {
                Some(i) => {
                    let len = from + i + 3;
                    if avail.starts_with(b"<!--") {
                        Scan::Token(Tok::Other, len)
                    } else {
                        Scan::Token(Tok::Bad("comment not closed: `-->` not found"), len)
                    }
                }
                None => cut(avail, end, avail.len().saturating_sub(2).max(4)),
            }
        }
        b'D' | b'd' => match doctype_end(&avail[2..]) {
            Some(i) => {
                let len = 2 + i + 1;
                let ok = avail.len() >= 9
                    && avail[..9].eq_ignore_ascii_case(b"<!DOCTYPE")
                    && avail[9..len - 1].iter().any(|&b| !is_space(b));
                Scan::Token(
                    if ok {
                        Tok::Other
                    } else {
                        Tok::Bad("DOCTYPE not closed: `>` not found")
                    },
                    len,
                )
            }
            None => cut(avail, end, resume),
        },
        _ => Scan::Token(Tok::Bad("unknown or missed symbol in markup"), 2),
    }
}

/// The `>` that ends a `<!DOCTYPE`: outside quotes and outside `[…]`.
fn doctype_end(rest: &[u8]) -> Option<usize> {
    let mut quote = None;
    let mut depth = 0usize;
    for (i, &b) in rest.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'[') => depth += 1,
            (None, b']') => depth = depth.saturating_sub(1),
            (None, b'>') if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `input` as strings, reading it `step` bytes at a time.
    fn tokens(input: &[u8], step: usize) -> Vec<String> {
        struct Steps<'a>(&'a [u8], usize);
        impl Input for Steps<'_> {
            fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
            fn is_final(&self) -> bool {
                true
            }
        }
        let mut input = Steps(input, step);
        let mut lex = Lexer::new(0, 0);
        let mut out = Vec::new();
        let mut first = true;
        loop {
            let tok = lex.next(&mut input, first).expect("in memory");
            first = false;
            let s =
                |r: &Range<usize>| String::from_utf8_lossy(&lex.bytes()[r.clone()]).into_owned();
            out.push(match &tok {
                Tok::Start { name, empty } => {
                    format!("<{}{}>", s(name), if *empty { "/" } else { "" })
                }
                Tok::End { name } => format!("</{}>", s(name)),
                Tok::Text(r) => format!("T{:?}", s(r)),
                Tok::Ref(r) => format!("&{};", s(r)),
                Tok::CData(r) => format!("C{:?}", s(r)),
                t => format!("{t:?}"),
            });
            if matches!(tok, Tok::Eof) {
                return out;
            }
        }
    }

    #[test]
    fn tokens_as_xml_reads_them() {
        let input = b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<a x='>' y=\">\">t&amp;u&v<b/>\
            <![CDATA[<x>]]><!-- c --><?pi x?></a ><!DOCTYPE d [<!ENTITY e '>'>]>&x";
        let want = [
            "Decl", "T\"\\n\"", "<a>", "T\"t\"", "&amp;", "T\"u\"", "T\"&v\"", "<b/>", "C\"<x>\"",
            "Other", "Other", "</a>", "Other", "T\"&x\"", "Eof",
        ];
        for step in [1, 2, 3, 5, 1000] {
            assert_eq!(tokens(input, step), want, "step {step}");
        }
    }

    #[test]
    fn cut_markup_ends_the_log() {
        for cut in ["<a", "</a", "<!--x", "<![CDATA[x", "<?pi", "<!DOCTYPE"] {
            assert_eq!(tokens(cut.as_bytes(), 2), ["Eof"], "{cut}");
        }
        assert_eq!(
            tokens(b"x<!y>", 2),
            [
                "T\"x\"",
                "Bad(\"unknown or missed symbol in markup\")",
                "T\"y>\"",
                "Eof"
            ]
        );
    }

    #[test]
    fn every_resync_point_passes_the_first_byte_filter() {
        for (p, point) in RESYNC_POINTS {
            assert_eq!(
                resync_point(p),
                Some(point),
                "{}",
                String::from_utf8_lossy(p)
            );
        }
        assert_eq!(resync_point(b"/error>"), None);
        assert_eq!(resync_point(b"sframe>"), None);
    }

    #[test]
    fn raw_bytes_stay() {
        assert_eq!(
            tokens(b"<f\xe9>\xff\xfe</f\xe9>", 1),
            [
                "<f\u{fffd}>",
                "T\"\u{fffd}\u{fffd}\"",
                "</f\u{fffd}>",
                "Eof"
            ]
        );
    }

    #[test]
    fn lines_are_counted_when_asked() {
        struct All<'a>(&'a [u8]);
        impl Input for All<'_> {
            fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
            fn is_final(&self) -> bool {
                true
            }
        }
        let mut lex = Lexer::new(0, 0);
        let mut input = All(b"<a>\n\n<b>\n</b></a>\n");
        let mut lines = Vec::new();
        loop {
            let tok = lex.next(&mut input, false).expect("in memory");
            lines.push((lex.line(), lex.last_line()));
            if tok == Tok::Eof {
                break;
            }
        }
        assert_eq!(
            lines,
            [
                (1, 1),
                (3, 2),
                (3, 3),
                (4, 3),
                (4, 4),
                (4, 4),
                (5, 4),
                (5, 4)
            ]
        );
    }
}
