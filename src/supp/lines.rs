//! Valgrind-faithful line splitter (valgrind-semantics.md §1.1).
//!
//! Valgrind's loader (`get_nbnc_line`) ends lines **only** at `\n`, skips leading whitespace
//! (`VG_(isspace)`: space, `\t`, `\n`, `\v`, `\f`, `\r`), strips trailing whitespace, and treats
//! a line whose first stored character is `#` as a comment. This module splits a file into
//! physical lines with byte spans and exposes exactly those views, so that every other part of
//! vgsupp sees the same lines Valgrind sees.

use crate::supp::model::Span;

/// Lines of this many stored characters or more make Valgrind abort (§1.1): the loader's line
/// buffer starts at 200 bytes, doubles, and asserts once it would reach 100000 bytes.
pub const VALGRIND_MAX_LINE: usize = 51_200;

/// `VG_(isspace)`.
#[must_use]
pub const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// One physical line of a file: the bytes up to (not including) a `\n`, or up to end of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhysLine {
    /// 1-based physical line number.
    pub number: u32,
    /// The whole line, without its `\n`.
    pub span: Span,
    /// The line with leading and trailing whitespace removed (empty for a blank line).
    pub text: Span,
    /// Whether the line ended with `\n` (the last line of a file may not).
    pub has_newline: bool,
}

impl PhysLine {
    /// A line with no non-whitespace byte. Valgrind skips these.
    #[must_use]
    pub const fn is_blank(&self) -> bool {
        self.text.is_empty()
    }

    /// The number Valgrind's loader uses for this line: the count of `\n` consumed after
    /// reading it, so a final line without `\n` is reported one lower (§1.1).
    #[must_use]
    pub const fn valgrind_lineno(&self) -> u32 {
        if self.has_newline {
            self.number
        } else {
            self.number - 1
        }
    }

    /// How many characters Valgrind stores for this line: from the first non-whitespace byte
    /// to the end of the line, trailing whitespace included (§1.1, the 51200 limit).
    #[must_use]
    pub const fn stored_len(&self) -> usize {
        if self.text.is_empty() {
            0
        } else {
            self.span.end - self.text.start
        }
    }

    /// The 1-based column of the first stored character.
    #[must_use]
    pub const fn column(&self) -> u32 {
        (self.text.start - self.span.start + 1) as u32
    }
}

/// The trimmed text of a line as Valgrind's C code sees it: cut at the first NUL byte.
#[must_use]
pub fn c_str(text: &[u8]) -> &[u8] {
    match memchr::memchr(0, text) {
        Some(i) => &text[..i],
        None => text,
    }
}

/// Whether a trimmed line is a comment (its first stored byte is `#`).
#[must_use]
pub fn is_comment(text: &[u8]) -> bool {
    text.first() == Some(&b'#')
}

/// Iterator over the physical lines of a byte buffer.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    src: &'a [u8],
    pos: usize,
    number: u32,
}

impl<'a> Lines<'a> {
    /// Split `src` into lines.
    #[must_use]
    pub const fn new(src: &'a [u8]) -> Self {
        Self {
            src,
            pos: 0,
            number: 0,
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = PhysLine;

    fn next(&mut self) -> Option<PhysLine> {
        if self.pos >= self.src.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.src[start..];
        let (end, has_newline) = match memchr::memchr(b'\n', rest) {
            Some(i) => (start + i, true),
            None => (self.src.len(), false),
        };
        self.pos = if has_newline { end + 1 } else { end };
        self.number += 1;
        let line = &self.src[start..end];
        let text = match line.iter().position(|&b| !is_space(b)) {
            None => Span::new(end, end),
            Some(lead) => {
                let last = line.iter().rposition(|&b| !is_space(b)).unwrap_or(lead);
                Span::new(start + lead, start + last + 1)
            }
        };
        Some(PhysLine {
            number: self.number,
            span: Span::new(start, end),
            text,
            has_newline,
        })
    }
}

/// Number of `\n` bytes in `src`: the line Valgrind names for an error at end of file.
#[must_use]
pub fn newline_count(src: &[u8]) -> u32 {
    u32::try_from(memchr::memchr_iter(b'\n', src).count()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &[u8]) -> Vec<&[u8]> {
        Lines::new(src).map(|l| l.text.slice(src)).collect()
    }

    #[test]
    fn only_newline_ends_a_line() {
        // §1.1: a `\r`-only file is a single line.
        assert_eq!(texts(b"{\rfoo\r}\r"), vec![b"{\rfoo\r}".as_slice()]);
    }

    #[test]
    fn crlf_is_trimmed() {
        assert_eq!(texts(b"{\r\n  x \t\r\n"), vec![b"{".as_slice(), b"x"]);
    }

    #[test]
    fn numbering_and_final_line() {
        let lines: Vec<_> = Lines::new(b"a\n\nb").collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].is_blank());
        assert_eq!(lines[2].number, 3);
        assert_eq!(lines[2].valgrind_lineno(), 2);
        assert_eq!(lines[0].valgrind_lineno(), 1);
    }

    #[test]
    fn stored_len_counts_trailing_not_leading_whitespace() {
        let src = b"   abc  \n";
        let l = Lines::new(src).next().unwrap();
        assert_eq!(l.stored_len(), 5);
        assert_eq!(l.column(), 4);
    }

    #[test]
    fn nul_truncates() {
        assert_eq!(c_str(b"fun:a\0b"), b"fun:a");
    }
}
