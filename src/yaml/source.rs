//! The document's lines, for what the event parser does not report: comments and blank
//! lines. Lines are numbered from 1 and split where YAML breaks lines (`\r\n`, `\n`, `\r`),
//! as the parser counts them; columns are in characters, as the parser's markers are.

/// A document's lines.
pub struct SourceLines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> SourceLines<'a> {
    /// Split `src` into lines.
    #[must_use]
    pub fn new(src: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut rest = src;
        while let Some(i) = rest.find(['\n', '\r']) {
            lines.push(&rest[..i]);
            let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
            rest = &rest[i + skip..];
        }
        lines.push(rest);
        Self { lines }
    }

    /// Line `n` (1-based), or `""` past the end.
    #[must_use]
    pub fn line(&self, n: u32) -> &'a str {
        usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.lines.get(i))
            .copied()
            .unwrap_or("")
    }

    /// How many lines there are.
    #[must_use]
    pub fn count(&self) -> u32 {
        u32::try_from(self.lines.len()).unwrap_or(u32::MAX)
    }

    /// Whether line `n` holds only spaces and tabs (and exists).
    #[must_use]
    pub fn is_blank(&self, n: u32) -> bool {
        n >= 1 && n <= self.count() && self.line(n).trim_matches([' ', '\t']).is_empty()
    }

    /// The comment text (after `#`) when line `n` is a whole-line comment.
    #[must_use]
    pub fn comment(&self, n: u32) -> Option<&'a str> {
        self.line(n)
            .trim_start_matches([' ', '\t', '\u{feff}'])
            .strip_prefix('#')
    }

    /// The number of leading spaces of line `n`.
    #[must_use]
    pub fn indent(&self, n: u32) -> usize {
        self.line(n).len() - self.line(n).trim_start_matches(' ').len()
    }

    /// The comment at the end of line `n` after character column `col`: what follows, once
    /// blanks (and, with `colon`, one `:` after a key) are skipped, when it starts with `#`.
    #[must_use]
    pub fn trailing_comment(&self, n: u32, col: usize, colon: bool) -> Option<&'a str> {
        let line = self.line(n);
        let start = line.char_indices().nth(col).map(|(i, _)| i)?;
        let mut rest = line[start..].trim_start_matches([' ', '\t']);
        if colon {
            rest = rest.strip_prefix(':')?.trim_start_matches([' ', '\t']);
        }
        rest.strip_prefix('#')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_comments_and_trailing() {
        let s = SourceLines::new("a: 1 # one\r\n  # two\r\n\nb:   # three\rc: é # x");
        assert_eq!(s.count(), 5);
        assert_eq!(s.comment(2), Some(" two"));
        assert_eq!(s.comment(1), None);
        assert!(s.is_blank(3) && !s.is_blank(2) && !s.is_blank(9) && !s.is_blank(0));
        assert_eq!(s.trailing_comment(1, 4, false), Some(" one"));
        assert_eq!(s.trailing_comment(4, 1, true), Some(" three"));
        assert_eq!(s.trailing_comment(4, 1, false), None);
        assert_eq!(s.trailing_comment(5, 4, false), Some(" x"));
        assert_eq!(s.trailing_comment(5, 99, false), None);
        assert_eq!(s.indent(2), 2);
    }
}
