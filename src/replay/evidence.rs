//! What a replay says: per error, whether it is suppressed, by which rule, how sure that is
//! and why; per rule, how many errors it certainly takes and how many it might.

use crate::matcher::Truth;
use crate::replay::rules::Slot;
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

/// Why a verdict is not decided: the facts a log hides that it depends on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Why(u8);

impl Why {
    /// Frames the log does not show: below `main`, or cut off where the log ends.
    pub const FRAMES: Self = Self(1);
    /// The object of a frame printed with a source line (text logs).
    pub const OBJECT: Self = Self(2);
    /// A function's mangled name (only its demangled form is shown).
    pub const NAME: Self = Self(4);
    /// A frame's source location as Valgrind's `src:` lookup finds it.
    pub const SOURCE: Self = Self(8);
    /// Valgrind's search order (which rule is tried first): loss records tied in size,
    /// loss records the log does not print, or an earlier uncertain credit.
    pub const ORDER: Self = Self(16);

    const NAMES: [(Self, &'static str); 5] = [
        (Self::FRAMES, "hidden-frames"),
        (Self::OBJECT, "object"),
        (Self::NAME, "mangled-name"),
        (Self::SOURCE, "source"),
        (Self::ORDER, "search-order"),
    ];

    /// No reason.
    #[must_use]
    pub const fn none() -> Self {
        Self(0)
    }

    /// Whether there is no reason.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `other`'s reasons are all among these.
    #[must_use]
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Add `other`'s reasons.
    pub const fn insert(&mut self, other: Self) {
        self.0 |= other.0;
    }

    /// The reasons' names, for reports (`hidden-frames`, `object`, `mangled-name`,
    /// `source`, `search-order`).
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |(w, _)| self.contains(*w))
            .map(|(_, n)| n)
    }
}

impl std::ops::BitOr for Why {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

/// The replay's verdict on one error or loss record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorEvidence {
    /// The line of the error in its log ([`crate::logs::ErrorRecord::line`]).
    pub line: u64,
    /// The process.
    pub pid: Option<u32>,
    /// The tool that reported it.
    pub tool: Tool,
    /// Its suppression kind (`Leak`, `Addr4`, …).
    pub kind: String,
    /// For a loss record, its leak kind.
    pub leak_kind: Option<LeakKind>,
    /// The error is incomplete in the log: the log ends inside it (or something else cut
    /// it short), or frames of its stack are missing.
    pub truncated: bool,
    /// Whether Valgrind suppresses it: surely (`Yes`), surely not (`No`), or it depends on
    /// what the log hides (`Unknown`).
    pub suppressed: Truth,
    /// Every rule Valgrind may credit with it (in table order). One rule and `suppressed`
    /// `Yes`: the credit is certain.
    pub possible: Vec<Slot>,
    /// The rule the log's printed order credits when facts the log hides are taken as not
    /// matching: the certain rule when there is one, otherwise one of `possible`.
    pub likely: Option<Slot>,
    /// Why the verdict is not decided (empty when it is).
    pub why: Why,
    /// What identifies the error for grouping in a summary: its kind and first frames
    /// (only when asked for, and only for errors not surely suppressed).
    pub signature: Option<String>,
    /// Rules that surely match it but that Valgrind surely does not credit: an earlier
    /// rule surely takes it (in table order; empty unless it is surely suppressed). A rule
    /// shadowed on every error it matches never hides anything (`prune`'s *shadowed*).
    pub shadowed: Vec<Slot>,
}

impl ErrorEvidence {
    /// The rule Valgrind certainly credits.
    #[must_use]
    pub fn credited(&self) -> Option<Slot> {
        match self.possible.as_slice() {
            [only] if self.suppressed == Truth::Yes => Some(*only),
            _ => None,
        }
    }

    /// Whether the verdict depends on something the log hides: whether the error is
    /// suppressed, or which rule is credited.
    #[must_use]
    pub fn approximate(&self) -> bool {
        self.suppressed == Truth::Unknown || self.credit_uncertain()
    }

    /// Whether the error is surely suppressed but the rule Valgrind credits is not known:
    /// more than one rule may be the first match.
    #[must_use]
    pub fn credit_uncertain(&self) -> bool {
        self.suppressed == Truth::Yes && self.possible.len() > 1
    }
}

/// How many errors a rule takes: `hits` certainly; at most `hits_max` (`None`: no bound can
/// be read from the logs). Valgrind's own count lies between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleCounts {
    /// Errors certainly credited to the rule (each occurrence of an error context counts).
    pub hits: u64,
    /// The most errors that may be credited to it; `None` when unbounded.
    pub hits_max: Option<u64>,
}

impl Default for RuleCounts {
    fn default() -> Self {
        Self {
            hits: 0,
            hits_max: Some(0),
        }
    }
}

impl RuleCounts {
    /// Add another part's counts.
    pub fn add(&mut self, other: Self) {
        self.hits += other.hits;
        self.hits_max = self.hits_max.zip(other.hits_max).map(|(a, b)| a + b);
    }

    /// Count `n` more possible credits (`None`: any number).
    pub fn add_possible(&mut self, n: Option<u64>) {
        self.hits_max = self.hits_max.zip(n).map(|(a, b)| a + b);
    }
}

/// Running totals of a replay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Per rule slot.
    pub rules: Vec<RuleCounts>,
    /// Errors and loss records replayed (each printed once).
    pub errors: u64,
    /// Of those, surely suppressed.
    pub suppressed: u64,
    /// Of those, suppressed or not depending on what the logs hide.
    pub maybe_suppressed: u64,
    /// Of those, approximate (whether suppressed, or which rule).
    pub approximate: u64,
    /// Of those, surely suppressed by a rule that is not known
    /// ([`ErrorEvidence::credit_uncertain`]): `approximate` less `maybe_suppressed`.
    pub credit_uncertain: u64,
    /// Of the approximate ones, those undecided (at least) for an object the log does
    /// not show ([`Why::OBJECT`]: a text log prints a frame with a source line without its
    /// object; XML prints every frame's).
    pub hidden_objects: u64,
    /// Of those, cut off by the end of their log.
    pub truncated: u64,
}

impl Tally {
    /// Zero counts for `rules` rules.
    #[must_use]
    pub fn new(rules: usize) -> Self {
        Self {
            rules: vec![RuleCounts::default(); rules],
            ..Self::default()
        }
    }

    /// Count one error's verdict (its rule credits are counted by the replay, which knows
    /// the occurrences).
    pub fn count(&mut self, e: &ErrorEvidence) {
        self.errors += 1;
        match e.suppressed {
            Truth::Yes => self.suppressed += 1,
            Truth::Unknown => self.maybe_suppressed += 1,
            Truth::No => {}
        }
        self.approximate += u64::from(e.approximate());
        self.credit_uncertain += u64::from(e.credit_uncertain());
        self.hidden_objects += u64::from(e.approximate() && e.why.contains(Why::OBJECT));
        self.truncated += u64::from(e.truncated);
    }

    /// Add another part's totals.
    pub fn add(&mut self, other: &Self) {
        if self.rules.len() < other.rules.len() {
            self.rules.resize(other.rules.len(), RuleCounts::default());
        }
        for (a, b) in self.rules.iter_mut().zip(&other.rules) {
            a.add(*b);
        }
        self.errors += other.errors;
        self.suppressed += other.suppressed;
        self.maybe_suppressed += other.maybe_suppressed;
        self.approximate += other.approximate;
        self.credit_uncertain += other.credit_uncertain;
        self.hidden_objects += other.hidden_objects;
        self.truncated += other.truncated;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_and_stay_unbounded() {
        let mut a = RuleCounts {
            hits: 2,
            hits_max: Some(5),
        };
        a.add(RuleCounts {
            hits: 1,
            hits_max: Some(1),
        });
        assert_eq!((a.hits, a.hits_max), (3, Some(6)));
        a.add_possible(None);
        a.add_possible(Some(4));
        assert_eq!(a.hits_max, None);
    }

    #[test]
    fn why_names() {
        let w = Why::OBJECT | Why::ORDER;
        assert_eq!(w.names().collect::<Vec<_>>(), ["object", "search-order"]);
        assert!(Why::none().is_empty());
    }

    #[test]
    fn approximate_rows() {
        let mut e = ErrorEvidence {
            line: 1,
            pid: None,
            tool: Tool::Memcheck,
            kind: "Leak".into(),
            leak_kind: Some(LeakKind::Definite),
            truncated: false,
            suppressed: Truth::Yes,
            possible: vec![3],
            likely: Some(3),
            why: Why::none(),
            signature: None,
            shadowed: Vec::new(),
        };
        assert_eq!(e.credited(), Some(3));
        assert!(!e.approximate());
        let mut tally = Tally::new(0);
        tally.count(&e);
        e.possible.push(4);
        e.why = Why::ORDER;
        assert_eq!(e.credited(), None);
        assert!(e.approximate() && e.credit_uncertain());
        tally.count(&e);
        e.suppressed = Truth::Unknown;
        e.why = Why::OBJECT;
        assert!(e.approximate() && !e.credit_uncertain());
        tally.count(&e);
        e.suppressed = Truth::No;
        e.possible.clear();
        assert!(!e.approximate());
        tally.count(&e);
        assert_eq!(
            (
                tally.errors,
                tally.suppressed,
                tally.maybe_suppressed,
                tally.approximate,
                tally.credit_uncertain,
                tally.hidden_objects
            ),
            (4, 2, 1, 2, 1, 1)
        );
    }
}
