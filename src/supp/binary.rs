//! Telling a binary file from a suppression file.
//!
//! A suppression file is text: Valgrind's loader reads each line only up to its first NUL
//! byte (valgrind-semantics.md §1.1), so no rule, name or comment can hold one, and a text
//! file written by a person or a tool never does. A file with a NUL byte is an executable,
//! an archive, a UTF-16 file or random bytes given by mistake (a glob that took it, a
//! wrong path). Valgrind itself does not tell: it reads such a file like any other and
//! refuses it at the first line that is not what it expects (`FATAL: in suppressions file
//! … near line N`), or loads the text lines it happens to hold. `check` then reports only
//! what Valgrind says, and `fmt` never rewrites one: its bytes are not ours to reshape.

/// Where a file shows it is binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binary {
    /// The byte offset of its first NUL byte.
    pub offset: usize,
    /// The 1-based line of that byte (lines end at `\n`).
    pub line: u32,
}

/// `Some` when `src` holds a NUL byte (see the module documentation).
#[must_use]
pub fn detect(src: &[u8]) -> Option<Binary> {
    let offset = memchr::memchr(0, src)?;
    let newlines = memchr::memchr_iter(b'\n', &src[..offset]).count();
    Some(Binary {
        offset,
        line: u32::try_from(newlines).map_or(u32::MAX, |n| n.saturating_add(1)),
    })
}

impl std::fmt::Display for Binary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a binary file (a NUL byte on line {}, at byte {})",
            self.line, self.offset
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_byte_makes_a_file_binary() {
        assert_eq!(detect(b"{\n x\n Memcheck:Addr4\n fun:f\n}\n"), None);
        // Bytes that are not UTF-8 are still text: names and paths are bytes.
        assert_eq!(
            detect(b"{\n \xff\xfe\n Memcheck:Addr4\n obj:/\xe9\n}\n"),
            None
        );
        assert_eq!(detect(b""), None);
        assert_eq!(
            detect(b"\x7fELF\x02\x01\x01\x00"),
            Some(Binary { offset: 7, line: 1 })
        );
        assert_eq!(detect(b"# c\n\n{\0"), Some(Binary { offset: 6, line: 3 }));
        let b = detect(b"a\nb\0").expect("binary");
        assert_eq!(
            b.to_string(),
            "a binary file (a NUL byte on line 2, at byte 3)"
        );
    }
}
