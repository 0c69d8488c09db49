//! `VG_(string_match)` as suppression matching uses it (valgrind-semantics.md §2.5): `*`
//! matches any run of bytes (including `/` and the empty run), `?` exactly one byte, there is
//! no escape character and no character class, and the pattern must match the whole string.

/// A name pattern from a `fun:`, `obj:` or `src:` line.
#[derive(Debug, Clone)]
pub struct Glob {
    pattern: Vec<u8>,
    shape: Shape,
    /// Nothing but `*`s ([`Glob::matches_any`]).
    any: bool,
    /// The hash of the pattern ([`name_hash`]): a literal's quick test.
    hash: u64,
}

/// The hash names and literal patterns are compared by first: names whose hashes differ
/// differ.
#[must_use]
pub fn name_hash(name: &[u8]) -> u64 {
    use std::hash::BuildHasher as _;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// How a pattern is matched: compiled once, because a real rule set compares each of its
/// patterns with thousands of names.
#[derive(Debug, Clone)]
enum Shape {
    /// No wildcard: compared with `strcmp`.
    Literal,
    /// `*` but no `?` (`*alloc`, `*/libcuda.so*`, `_ZN5torch*`): literal pieces that must
    /// start and end the name, with the pieces between them found in order. Each is found
    /// at its leftmost place: a later piece can only gain from an earlier one ending early,
    /// and the `*` between them takes whatever lies between.
    Stars {
        /// The length of the literal before the first `*`.
        head: usize,
        /// The length of the literal after the last `*`.
        tail: usize,
        /// The non-empty pieces between `*`s.
        middle: Vec<memchr::memmem::Finder<'static>>,
    },
    /// With `?`: the general matcher.
    General,
}

impl PartialEq for Glob {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl Eq for Glob {}

impl std::hash::Hash for Glob {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.pattern.hash(state);
    }
}

impl Glob {
    /// Compile a pattern.
    #[must_use]
    pub fn new(pattern: &[u8]) -> Self {
        let shape = if pattern.contains(&b'?') {
            Shape::General
        } else if let (Some(first), Some(last)) = (
            pattern.iter().position(|&b| b == b'*'),
            pattern.iter().rposition(|&b| b == b'*'),
        ) {
            Shape::Stars {
                head: first,
                tail: pattern.len() - last - 1,
                middle: pattern[first..=last]
                    .split(|&b| b == b'*')
                    .filter(|piece| !piece.is_empty())
                    .map(|piece| memchr::memmem::Finder::new(piece).into_owned())
                    .collect(),
            }
        } else {
            Shape::Literal
        };
        Self {
            pattern: pattern.to_vec(),
            shape,
            any: pattern.iter().all(|&b| b == b'*'),
            hash: name_hash(pattern),
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
        matches!(self.shape, Shape::Literal)
    }

    /// Whether the pattern has nothing but `*`s (the empty pattern too), which the
    /// matcher takes as matching every name, even one the log does not show.
    #[must_use]
    pub const fn matches_any(&self) -> bool {
        self.any
    }

    /// For a literal, the [`name_hash`] a name equal to it has.
    #[must_use]
    pub const fn literal_hash(&self) -> Option<u64> {
        match self.shape {
            Shape::Literal => Some(self.hash),
            _ => None,
        }
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

    /// Whether some string that starts with `prefix` can match: the pattern agrees with
    /// `prefix` character by character (`?` takes any) up to its first `*` or to the end of
    /// `prefix`.
    #[must_use]
    pub fn may_start_with(&self, prefix: &[u8]) -> bool {
        let p = self.as_bytes();
        for (i, &c) in prefix.iter().enumerate() {
            match p.get(i) {
                Some(b'*') => return true,
                Some(&b) if b == b'?' || b == c => {}
                _ => return false,
            }
        }
        true
    }

    /// Whether the pattern matches the whole of `s` (§2.5).
    #[must_use]
    pub fn matches(&self, s: &[u8]) -> bool {
        match &self.shape {
            Shape::Literal => self.pattern == s,
            Shape::Stars { head, tail, middle } => {
                let (head, tail) = (*head, *tail);
                if s.len() < head + tail
                    || s[..head] != self.pattern[..head]
                    || s[s.len() - tail..] != self.pattern[self.pattern.len() - tail..]
                {
                    return false;
                }
                let mut rest = &s[head..s.len() - tail];
                for piece in middle {
                    match piece.find(rest) {
                        Some(at) => rest = &rest[at + piece.needle().len()..],
                        None => return false,
                    }
                }
                true
            }
            Shape::General => glob_match(&self.pattern, s),
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
    use proptest::prelude::*;

    /// `string_match_wrk` as Valgrind writes it: recursive, `*` tried on every split.
    fn reference(pat: &[u8], s: &[u8]) -> bool {
        match pat.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|k| reference(rest, &s[k..])),
            Some((b'?', rest)) => !s.is_empty() && reference(rest, &s[1..]),
            Some((c, rest)) => s.first() == Some(c) && reference(rest, &s[1..]),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        /// Every shape of pattern matches what Valgrind's recursion matches.
        #[test]
        fn matches_is_valgrinds_string_match(pat in "[ab*?/]{0,7}", s in "[ab/]{0,9}") {
            let g = Glob::new(pat.as_bytes());
            prop_assert_eq!(g.matches(s.as_bytes()), reference(pat.as_bytes(), s.as_bytes()));
            prop_assert_eq!(glob_match(pat.as_bytes(), s.as_bytes()), reference(pat.as_bytes(), s.as_bytes()));
        }
    }

    #[test]
    fn shapes() {
        assert!(matches!(Glob::new(b"malloc").shape, Shape::Literal));
        assert!(matches!(
            Glob::new(b"*/libc*.so*").shape,
            Shape::Stars {
                head: 0,
                tail: 0,
                ..
            }
        ));
        assert!(matches!(
            Glob::new(b"_ZN*E").shape,
            Shape::Stars {
                head: 3,
                tail: 1,
                ..
            }
        ));
        assert!(matches!(Glob::new(b"?alloc").shape, Shape::General));
        let g = Glob::new(b"ab*ba");
        assert!(!g.matches(b"aba"), "head and tail may not overlap");
        assert!(g.matches(b"abba"));
        assert_eq!(Glob::new(b"*x*"), Glob::new(b"*x*"));
    }

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
