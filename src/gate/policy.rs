//! What fails the gate (`--fail-on`, `gate: fail-on:` in `vgsupp.yaml`): which kinds of
//! first-party error, and whether *review* errors fail too.

use crate::supp::model::LeakKind;

/// The kinds that fail, and whether reviewed errors count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Every kind that is not a leak (`Addr4`, `Cond`, `Param`, `Free`, …), unless
    /// `kinds` names some.
    errors: bool,
    /// Named kinds (bits of [`KINDS`]); when any is named, `errors` is off unless given.
    kinds: u32,
    /// Leak kinds (bits of [`LeakKind::ALL`] order).
    leaks: u8,
    /// Reviewed errors (code that may be the user's, still-reachable first-party memory)
    /// fail too; by default they are warnings.
    pub review: bool,
}

/// The error kinds `--fail-on` names, without sizes (Memcheck's, then the other tools').
pub const KINDS: [&str; 14] = [
    "Addr",
    "Value",
    "Cond",
    "Param",
    "Free",
    "Overlap",
    "Jump",
    "FishyValue",
    "ReallocZero",
    "Race",
    "UnlockUnlocked",
    "LockOrder",
    "Misc",
    "PthAPIerror",
];

/// A `--fail-on` word that means nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown fail-on value `{0}` (expected: all, errors, leaks, definite, indirect, possible, reachable, review, or an error kind: {kinds})",
    kinds = KINDS.join(", ")
)]
pub struct PolicyError(pub String);

impl Default for Policy {
    /// Every kind except still-reachable leaks; reviewed errors are warnings.
    fn default() -> Self {
        Self {
            errors: true,
            kinds: 0,
            leaks: 0b0111,
            review: false,
        }
    }
}

impl Policy {
    /// The policy of `--fail-on` words (`errors`, `definite`, `Addr`, `review`, `all`, …;
    /// each may hold several, comma-separated). No word: the default.
    ///
    /// # Errors
    /// On a word that names nothing.
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<Self, PolicyError> {
        let words: Vec<&str> = words
            .iter()
            .flat_map(|w| w.as_ref().split(','))
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            return Ok(Self::default());
        }
        let mut p = Self {
            errors: false,
            kinds: 0,
            leaks: 0,
            review: false,
        };
        for w in words {
            match w {
                "all" => {
                    p.errors = true;
                    p.leaks = 0b1111;
                    p.review = true;
                }
                "errors" => p.errors = true,
                "leaks" => p.leaks = 0b1111,
                "review" => p.review = true,
                _ => {
                    if let Some(i) = LeakKind::ALL.iter().position(|k| k.token() == w) {
                        p.leaks |= 1 << i;
                    } else if let Some(i) = KINDS.iter().position(|k| k.eq_ignore_ascii_case(w)) {
                        p.kinds |= 1 << i;
                    } else {
                        return Err(PolicyError(w.to_owned()));
                    }
                }
            }
        }
        Ok(p)
    }

    /// Whether an error of suppression kind `kind` (`Addr4`, `Leak`) and leak kind `leak`
    /// is one the policy fails on.
    #[must_use]
    pub fn selects(&self, kind: &str, leak: Option<LeakKind>) -> bool {
        if let Some(l) = leak {
            let i = LeakKind::ALL.iter().position(|k| *k == l).unwrap_or(0);
            return self.leaks & (1 << i) != 0;
        }
        if kind == "Leak" {
            // A leak whose kind the log does not say: fails if any leak kind does.
            return self.leaks != 0;
        }
        if self.errors {
            return true;
        }
        let base = base_kind(kind);
        KINDS
            .iter()
            .position(|k| *k == base)
            .is_some_and(|i| self.kinds & (1 << i) != 0)
    }

    /// The policy in words, for reports (`errors, definite, indirect, possible`).
    #[must_use]
    pub fn describe(&self) -> String {
        let mut w: Vec<&str> = Vec::new();
        if self.errors {
            w.push("errors");
        }
        for (i, k) in KINDS.iter().enumerate() {
            if !self.errors && self.kinds & (1 << i) != 0 {
                w.push(k);
            }
        }
        for (i, k) in LeakKind::ALL.iter().enumerate() {
            if self.leaks & (1 << i) != 0 {
                w.push(k.token());
            }
        }
        if self.review {
            w.push("review");
        }
        w.join(", ")
    }
}

/// A suppression kind without its size (`Addr4` → `Addr`, `Value8` → `Value`).
#[must_use]
pub fn base_kind(kind: &str) -> &str {
    kind.trim_end_matches(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_fails_on_everything_but_still_reachable() {
        let p = Policy::default();
        assert!(p.selects("Addr4", None));
        assert!(p.selects("Cond", None));
        assert!(p.selects("Leak", Some(LeakKind::Possible)));
        assert!(p.selects("Leak", Some(LeakKind::Definite)));
        assert!(!p.selects("Leak", Some(LeakKind::Reachable)));
        assert!(!p.review);
        assert_eq!(p, Policy::parse::<&str>(&[]).unwrap());
    }

    #[test]
    fn words_choose_kinds() {
        let p = Policy::parse(&["definite,Addr", "review"]).unwrap();
        assert!(p.selects("Addr8", None));
        assert!(!p.selects("Cond", None));
        assert!(p.selects("Leak", Some(LeakKind::Definite)));
        assert!(!p.selects("Leak", Some(LeakKind::Possible)));
        assert!(p.review);
        assert_eq!(p.describe(), "Addr, definite, review");
        let all = Policy::parse(&["all"]).unwrap();
        assert!(all.selects("Leak", Some(LeakKind::Reachable)) && all.review);
        assert_eq!(
            Policy::parse(&["sometimes"]).unwrap_err(),
            PolicyError("sometimes".into())
        );
    }

    #[test]
    fn base_kind_drops_the_size() {
        assert_eq!(base_kind("Addr16"), "Addr");
        assert_eq!(base_kind("Cond"), "Cond");
    }
}
