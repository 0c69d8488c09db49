//! A file's text with its line index, built once and shared by every renderer that needs
//! a line: the human excerpt (the line, the caret) and SARIF's columns (counted in UTF-16
//! units of the line's text). Lines are split as Valgrind's loader splits them
//! ([`crate::supp::lines`]: only `\n` ends a line), so a line number means the same
//! everywhere.

use std::sync::OnceLock;

use crate::supp::lines::{Lines, PhysLine};

/// A file's bytes and, once asked for, the span of each of its lines.
#[derive(Debug, Default)]
pub struct Source {
    text: Vec<u8>,
    lines: OnceLock<Vec<PhysLine>>,
}

impl Source {
    /// The file's bytes.
    #[must_use]
    pub const fn new(text: Vec<u8>) -> Self {
        Self {
            text,
            lines: OnceLock::new(),
        }
    }

    /// All its bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.text
    }

    /// Physical line `number` (1-based), if the file has it.
    #[must_use]
    pub fn line(&self, number: u32) -> Option<&PhysLine> {
        let index = usize::try_from(number).ok()?.checked_sub(1)?;
        self.lines
            .get_or_init(|| Lines::new(&self.text).collect())
            .get(index)
    }

    /// The bytes of physical line `number`, without its `\n`.
    #[must_use]
    pub fn line_bytes(&self, number: u32) -> Option<&[u8]> {
        self.line(number).map(|l| l.span.slice(&self.text))
    }
}

impl Clone for Source {
    fn clone(&self) -> Self {
        Self::new(self.text.clone())
    }
}

impl PartialEq for Source {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Source {}

impl From<Vec<u8>> for Source {
    fn from(text: Vec<u8>) -> Self {
        Self::new(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_valgrinds_lines() {
        // Only `\n` ends a line: `\r` stays inside it; the last line may lack its `\n`.
        let s = Source::new(b"{\r\n   fun:a\rb\n}".to_vec());
        assert_eq!(s.line_bytes(1), Some(&b"{\r"[..]));
        assert_eq!(s.line_bytes(2), Some(&b"   fun:a\rb"[..]));
        assert_eq!(s.line_bytes(3), Some(&b"}"[..]));
        assert_eq!(s.line_bytes(4), None);
        assert_eq!(s.line_bytes(0), None);
        assert_eq!(s.line(2).map(|l| l.text.start), Some(6));
        assert_eq!(s.clone(), s);
    }
}
