//! `VG_(string_match)` as suppression matching uses it (valgrind-semantics.md §2.5): `*`
//! matches any run of bytes (including `/` and the empty run), `?` exactly one byte, there is
//! no escape character and no character class, and the pattern must match the whole string.

/// A name pattern from a `fun:`, `obj:` or `src:` line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Glob {
    pattern: Vec<u8>,
    simple: bool,
}

impl Glob {
    /// Compile a pattern.
    #[must_use]
    pub fn new(pattern: &[u8]) -> Self {
        Self {
            pattern: pattern.to_vec(),
            simple: !pattern.iter().any(|&b| b == b'*' || b == b'?'),
        }
    }

    /// The pattern's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.pattern
    }

    /// Whether the pattern has no wildcard (compared with `strcmp`).
    #[must_use]
    pub const fn is_literal(&self) -> bool {
        self.simple
    }

    /// The bytes before the first wildcard.
    #[must_use]
    pub fn literal_prefix(&self) -> &[u8] {
        let end = self
            .pattern
            .iter()
            .position(|&b| b == b'*' || b == b'?')
            .unwrap_or(self.pattern.len());
        &self.pattern[..end]
    }

    /// Whether `s` matches.
    #[must_use]
    pub fn matches(&self, s: &[u8]) -> bool {
        if self.simple {
            self.pattern == s
        } else {
            glob_match(&self.pattern, s)
        }
    }
}

/// Iterative glob matching with single-star backtracking: equivalent to Valgrind's recursive
/// `string_match_wrk` for `*` and `?`, in linear time for typical patterns.
#[must_use]
pub fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        match pat.get(p) {
            Some(b'*') => {
                star = Some((p, i));
                p += 1;
            }
            Some(&c) if c == b'?' || c == s[i] => {
                p += 1;
                i += 1;
            }
            _ => match star {
                Some((sp, si)) => {
                    p = sp + 1;
                    i = si + 1;
                    star = Some((sp, si + 1));
                }
                None => return false,
            },
        }
    }
    pat[p..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_of_section_2_5() {
        let m = |p: &str, s: &str| Glob::new(p.as_bytes()).matches(s.as_bytes());
        assert!(m("leaf_*", "leaf_read")); // M11
        assert!(m("leaf?read", "leaf_read")); // M12
        assert!(!m("LEAF_READ", "leaf_read")); // M13
        assert!(m("*/errs", "/src/demo/errs")); // M16
        assert!(m("/src*errs", "/src/demo/errs")); // M17: `*` crosses `/`
        assert!(!m("leaf\\_read", "leaf_read")); // M18: no escapes
        assert!(m("leaf\\_read", "leaf\\_read"));
        assert!(m("???", "???")); // K13
        assert!(m("???", "abc")); // M27's converse
        assert!(!m("???", "leaf_read"));
        assert!(m("*", ""));
        assert!(m("", ""));
        assert!(!m("", "x"));
        assert!(m("a*b*c", "aXbYc"));
        assert!(!m("a*b*c", "aXbY"));
        assert!(m("_ZNK2ns3Box3getEi*", "_ZNK2ns3Box3getEi.isra.0")); // C03
        assert!(m("**a", "a"));
    }

    #[test]
    fn prefix() {
        assert_eq!(Glob::new(b"_ZN3foo*bar").literal_prefix(), b"_ZN3foo");
        assert!(Glob::new(b"malloc").is_literal());
    }
}
