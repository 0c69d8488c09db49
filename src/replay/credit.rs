//! Which rule Valgrind credits with an error, and how sure a replay of another run's log can
//! be of it (valgrind-semantics.md §2.2, §2.7).
//!
//! Valgrind searches its rules most-recently-used first: the rule credited last is tried
//! first, and rules never credited keep their load order (the last loaded first). Replaying a
//! log reproduces that order exactly only when everything that moved it is known. Three
//! things hide it:
//!
//! * **Tie groups.** Loss records are matched in the order of (total size, state, blocks),
//!   then by the address of an internal structure that differs from run to run. Records equal
//!   in the first three keys form a tie group whose order in another run is unknowable.
//! * **Rules that only might match** (the log hides a fact the rule needs): such a rule may
//!   have been credited, and so moved to the front.
//! * **Loss records the log does not print** (kinds not in `--show-leak-kinds`): Valgrind
//!   matches them too, so any rule that may match their kind may have moved.
//!
//! [`SearchOrder`] keeps, for every rule, an interval of its possible *recency* (the time of
//! its last credit, or its initial place for a rule never credited): `lo` is certain, `hi` the
//! latest possible. A rule `b` that surely matches an error is *certainly ahead* of a rule `a`
//! when `lo(b) > hi(a)`; then `a` cannot be the one credited. The rules of an error that no
//! surely-matching rule is certainly ahead of are its possible winners; when there is exactly
//! one, the credit is certain. This over-approximates the set of winners over every possible
//! run (every tie order, every truth of the unknown facts, every hidden record), which the
//! tests check by enumerating those runs on small cases.
//!
//! Besides the intervals, one concrete order is replayed: the log's printed order with every
//! unknown fact taken as "does not match". Its winner is one of the possible winners and is
//! what a report shows as the likely rule of an uncertain row.

use rustc_hash::FxHashMap as HashMap;

/// A rule, by its id in its tool's [`crate::matcher::RuleSet`].
pub type RuleId = u32;

/// A bit set of leak kinds (bit `k` for [`crate::supp::model::LeakKind`] `k`), the kinds of
/// hidden loss records a rule may match.
pub type KindMask = u8;

/// What the matcher says about one error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidates {
    /// Rules that surely match, in any order.
    pub yes: Vec<RuleId>,
    /// Rules that may match (the log hides a fact they need), in any order.
    pub maybe: Vec<RuleId>,
}

/// The verdict on one error's credit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Every rule Valgrind may credit with the error. Empty: surely not suppressed.
    pub possible: Vec<RuleId>,
    /// Whether the error is surely suppressed (some rule surely matches it).
    pub surely_suppressed: bool,
    /// The rule the printed order credits, taking unknown facts as non-matching: `None`
    /// when no rule surely matches.
    pub likely: Option<RuleId>,
}

impl Outcome {
    /// The rule surely credited: the error is surely suppressed and only one rule can be
    /// the first match.
    #[must_use]
    pub fn certain(&self) -> Option<RuleId> {
        match self.possible.as_slice() {
            [only] if self.surely_suppressed => Some(*only),
            _ => None,
        }
    }
}

/// The least self-consistent sets of possible winners of a tie group's errors (see
/// [`SearchOrder::group`]): a candidate that is behind for its error is possible anyway when
/// another error of the group may credit it.
fn least_fixed_point(blocked: &[Vec<(RuleId, bool)>]) -> Vec<Vec<RuleId>> {
    let mut possible: Vec<Vec<RuleId>> = vec![Vec::new(); blocked.len()];
    loop {
        let mut in_group: HashMap<RuleId, u32> = HashMap::default();
        for w in &possible {
            for &a in w {
                *in_group.entry(a).or_default() += 1;
            }
        }
        let mut changed = false;
        for (k, cands) in blocked.iter().enumerate() {
            let mine = &possible[k];
            let next: Vec<RuleId> = cands
                .iter()
                .filter(|&&(a, behind)| {
                    let elsewhere = in_group
                        .get(&a)
                        .is_some_and(|&n| n > u32::from(mine.contains(&a)));
                    !behind || elsewhere
                })
                .map(|&(a, _)| a)
                .collect();
            if next != *mine {
                changed = true;
                possible[k] = next;
            }
        }
        if !changed {
            return possible;
        }
    }
}

/// The rules of `a` and `b` in id order, once each. Both are usually sorted already (the
/// matcher lists rules in load order): then they are merged, not sorted.
fn sorted_union(a: &[RuleId], b: &[RuleId]) -> Vec<RuleId> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    if a.is_sorted() && b.is_sorted() {
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] <= b[j] {
                out.push(a[i]);
                i += 1;
            } else {
                out.push(b[j]);
                j += 1;
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
    } else {
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        out.sort_unstable();
    }
    out.dedup();
    out
}

/// Values for some rules, by rule id, in pages of 64 allocated when first written: a
/// process touches a few hundred of thousands of rules, in runs (rules of one file are
/// neighbours), and reads them for every candidate of every error, so a lookup is two
/// indexings, not a hash.
#[derive(Debug, Clone)]
struct Pages<T> {
    pages: Vec<Option<Box<[Option<T>; PAGE]>>>,
}

const PAGE: usize = 64;

impl<T> Default for Pages<T> {
    fn default() -> Self {
        Self { pages: Vec::new() }
    }
}

impl<T: Copy> Pages<T> {
    fn get(&self, id: RuleId) -> Option<T> {
        let id = id as usize;
        self.pages.get(id / PAGE)?.as_ref()?[id % PAGE]
    }

    /// The value of `id`, set to `init` first if it has none.
    fn entry(&mut self, id: RuleId, init: T) -> &mut T {
        let id = id as usize;
        if self.pages.len() <= id / PAGE {
            self.pages.resize_with(id / PAGE + 1, || None);
        }
        let page = self.pages[id / PAGE].get_or_insert_with(|| Box::new([None; PAGE]));
        page[id % PAGE].get_or_insert(init)
    }
}

/// A rule's possible recency: its last credit lies in `lo..=hi` (times are positive), or,
/// for a rule never credited, equals its initial place (negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Recency {
    lo: i64,
    hi: i64,
}

/// The search order of one tool in one process, as far as the log tells.
#[derive(Debug, Clone)]
pub struct SearchOrder {
    /// How many rules the tool's set has (their initial places are `id - rules`).
    rules: i64,
    /// Rules whose recency changed (most never do: a process touches few of 3,000 rules).
    touched: Pages<Recency>,
    /// The concrete printed-order replay: last credit time of each rule credited.
    concrete: Pages<i64>,
    /// The time of the last error evaluated.
    time: i64,
    /// For each leak kind, the latest time a hidden loss record of that kind may have been
    /// credited to some rule: every rule that may match that kind may be that recent.
    hidden_hi: [i64; 4],
}

impl SearchOrder {
    /// Valgrind's initial order over `rules` rules: the reverse of load order.
    #[must_use]
    pub fn new(rules: usize) -> Self {
        Self {
            rules: i64::try_from(rules).unwrap_or(i64::MAX),
            touched: Pages::default(),
            concrete: Pages::default(),
            time: 0,
            hidden_hi: [i64::MIN; 4],
        }
    }

    fn initial(&self, id: RuleId) -> i64 {
        i64::from(id) - self.rules
    }

    fn recency(&self, id: RuleId) -> Recency {
        self.touched.get(id).unwrap_or_else(|| {
            let at = self.initial(id);
            Recency { lo: at, hi: at }
        })
    }

    /// The latest recency `id` may have, counting hidden records of kinds it may match.
    fn hi(&self, id: RuleId, kinds: &impl Fn(RuleId) -> KindMask) -> i64 {
        let mask = kinds(id);
        let hidden = (0..4)
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| self.hidden_hi[k])
            .max()
            .unwrap_or(i64::MIN);
        self.recency(id).hi.max(hidden)
    }

    fn concrete_recency(&self, id: RuleId) -> i64 {
        self.concrete.get(id).unwrap_or_else(|| self.initial(id))
    }

    /// `e`'s candidates in id order, each with whether a rule that surely matches `e` is
    /// certainly searched before it (its least recency is above the candidate's greatest),
    /// when nothing in the group has moved it.
    fn blocked(
        &self,
        e: &Candidates,
        hidden: KindMask,
        kinds: &impl Fn(RuleId) -> KindMask,
    ) -> Vec<(RuleId, bool)> {
        // The two greatest least recencies among the rules that surely match: the greatest
        // of the others, for any candidate, is one of them.
        let mut first: Option<(RuleId, i64)> = None;
        let mut second = i64::MIN;
        for &b in &e.yes {
            let lo = self.recency(b).lo;
            match first {
                Some((fb, flo)) if lo <= flo => {
                    if fb != b {
                        second = second.max(lo);
                    }
                }
                Some((fb, flo)) => {
                    if fb != b {
                        second = second.max(flo);
                    }
                    first = Some((b, lo));
                }
                None => first = Some((b, lo)),
            }
        }
        sorted_union(&e.yes, &e.maybe)
            .into_iter()
            .map(|a| {
                let ahead = match first {
                    Some((fb, flo)) if fb != a => flo,
                    Some(_) => second,
                    None => i64::MIN,
                };
                let behind = kinds(a) & hidden == 0 && ahead > self.hi(a, kinds);
                (a, behind)
            })
            .collect()
    }

    /// Evaluate the errors of one tie group (one error for anything but a loss record):
    /// Valgrind matched them one after another, in an order unknown inside the group.
    /// `hidden` is the set of leak kinds of loss records the log does not print that may
    /// lie inside the group (0: none). `kinds(id)` is the set of leak kinds rule `id` may
    /// match (0 for a rule that is not a leak rule). Returns one outcome per error, in order.
    pub fn group<C: std::borrow::Borrow<Candidates>>(
        &mut self,
        errors: &[C],
        hidden: KindMask,
        kinds: impl Fn(RuleId) -> KindMask,
    ) -> Vec<Outcome> {
        let errors: Vec<&Candidates> = errors.iter().map(std::borrow::Borrow::borrow).collect();
        let start = self.time + 1;
        let end = self.time + i64::try_from(errors.len()).unwrap_or(i64::MAX);
        // Each error's candidates, and whether a surely matching rule is certainly searched
        // before it when nothing in the group has moved it.
        let blocked: Vec<Vec<(RuleId, bool)>> = errors
            .iter()
            .map(|e| self.blocked(e, hidden, &kinds))
            .collect();
        // The rules each error may credit. A rule that another error of the group may
        // credit may have moved to the front before this one (in an order the log cannot
        // show), so it is not behind. Start from nothing moved and grow to the least
        // self-consistent answer: in any run, the first error whose winner were not among
        // its possible ones would have only possible winners before it, all of which this
        // accounts for — so there is none (the tests check it against every order).
        let possible: Vec<Vec<RuleId>> = if let [only] = blocked.as_slice() {
            // Alone, nothing else in the group moves a rule: the fixed point is reached at
            // once.
            vec![
                only.iter()
                    .filter(|&&(_, behind)| !behind)
                    .map(|&(a, _)| a)
                    .collect(),
            ]
        } else {
            least_fixed_point(&blocked)
        };
        let mut out = Vec::with_capacity(errors.len());
        for (k, (e, possible)) in errors.iter().zip(possible).enumerate() {
            let likely = e
                .yes
                .iter()
                .copied()
                .max_by_key(|&b| self.concrete_recency(b));
            if let Some(w) = likely {
                let t = start + i64::try_from(k).unwrap_or(i64::MAX);
                *self.concrete.entry(w, t) = t;
            }
            out.push(Outcome {
                possible,
                surely_suppressed: !e.yes.is_empty(),
                likely,
            });
        }
        // A rule surely credited in the group was last credited at `start` or later; a
        // rule possibly credited may have been credited as late as `end`.
        for o in &out {
            let certain = o.certain();
            for &id in &o.possible {
                let at = self.initial(id);
                let r = self.touched.entry(id, Recency { lo: at, hi: at });
                r.hi = end;
                if certain == Some(id) {
                    r.lo = r.lo.max(start);
                }
            }
        }
        if hidden != 0 {
            for k in 0..4 {
                if hidden & (1 << k) != 0 {
                    self.hidden_hi[k] = end;
                }
            }
        }
        self.time = end;
        out
    }

    /// Loss records the log does not print, of kinds in `hidden`, matched at this point
    /// (between the groups evaluated before and after): any rule that may match one of those
    /// kinds may have been credited.
    pub fn hidden(&mut self, hidden: KindMask) {
        if hidden == 0 {
            return;
        }
        self.time += 1;
        for k in 0..4 {
            if hidden & (1 << k) != 0 {
                self.hidden_hi[k] = self.time;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A rule's truth on one error in a small world.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum T {
        No,
        Yes,
        Maybe,
    }

    /// One error of a test scenario: a visible error with per-rule truths, or a hidden
    /// record of some kinds.
    #[derive(Debug, Clone)]
    enum Item {
        Error(Vec<T>),
        Hidden(KindMask),
    }

    /// A scenario: groups of items (each group's order unknown), rules' leak kinds.
    #[derive(Debug, Clone)]
    struct Scenario {
        kinds: Vec<KindMask>,
        groups: Vec<Vec<Item>>,
    }

    fn cands(truths: &[T]) -> Candidates {
        let mut c = Candidates::default();
        for (id, t) in truths.iter().enumerate() {
            let id = id as RuleId;
            match t {
                T::Yes => c.yes.push(id),
                T::Maybe => c.maybe.push(id),
                T::No => {}
            }
        }
        c
    }

    /// Valgrind itself: first match in MRU order, over one concrete run. `run` lists, for
    /// each item in processing order, whether each rule matches it (and which visible
    /// error it is, if any). Returns each visible error's winner and per-rule counts.
    fn valgrind(
        rules: usize,
        run: &[(Option<usize>, Vec<bool>)],
    ) -> (Vec<Option<usize>>, Vec<u64>) {
        // The list, front first: reverse load order.
        let mut list: Vec<usize> = (0..rules).rev().collect();
        let visible = run.iter().filter(|(v, _)| v.is_some()).count();
        let mut winners = vec![None; visible];
        let mut counts = vec![0; rules];
        for (vis, m) in run {
            if let Some(pos) = list.iter().position(|&r| m[r]) {
                let r = list.remove(pos);
                list.insert(0, r);
                counts[r] += 1;
                if let Some(v) = vis {
                    winners[*v] = Some(r);
                }
            }
        }
        (winners, counts)
    }

    /// Every concrete run of a scenario: each group permuted, each `Maybe` resolved, each
    /// hidden record matching any subset of the rules its kinds allow.
    fn worlds(s: &Scenario) -> Vec<Vec<(Option<usize>, Vec<bool>)>> {
        let rules = s.kinds.len();
        let mut runs: Vec<Vec<(Option<usize>, Vec<bool>)>> = vec![Vec::new()];
        let mut visible = 0;
        for g in &s.groups {
            // The resolutions of each item.
            let mut options: Vec<Vec<(Option<usize>, Vec<bool>)>> = Vec::new();
            for item in g {
                match item {
                    Item::Error(ts) => {
                        let mut opts = vec![Vec::new()];
                        for t in ts {
                            let choices: &[bool] = match t {
                                T::No => &[false],
                                T::Yes => &[true],
                                T::Maybe => &[false, true],
                            };
                            opts = opts
                                .into_iter()
                                .flat_map(|o: Vec<bool>| {
                                    choices.iter().map(move |&c| {
                                        let mut o = o.clone();
                                        o.push(c);
                                        o
                                    })
                                })
                                .collect();
                        }
                        options.push(opts.into_iter().map(|o| (Some(visible), o)).collect());
                        visible += 1;
                    }
                    Item::Hidden(mask) => {
                        let mut opts = vec![Vec::new()];
                        for k in &s.kinds {
                            let choices: &[bool] = if k & mask != 0 {
                                &[false, true]
                            } else {
                                &[false]
                            };
                            opts = opts
                                .into_iter()
                                .flat_map(|o: Vec<bool>| {
                                    choices.iter().map(move |&c| {
                                        let mut o = o.clone();
                                        o.push(c);
                                        o
                                    })
                                })
                                .collect();
                        }
                        options.push(opts.into_iter().map(|o| (None, o)).collect());
                    }
                }
            }
            // Every resolution of every item, in every order.
            let mut group_runs: Vec<Vec<(Option<usize>, Vec<bool>)>> = vec![Vec::new()];
            for opts in &options {
                group_runs = group_runs
                    .into_iter()
                    .flat_map(|r| {
                        opts.iter().map(move |o| {
                            let mut r = r.clone();
                            r.push(o.clone());
                            r
                        })
                    })
                    .collect();
            }
            let mut permuted = Vec::new();
            for r in group_runs {
                permutations(&r, &mut permuted);
            }
            runs = runs
                .into_iter()
                .flat_map(|run| {
                    permuted.iter().map(move |p| {
                        let mut run = run.clone();
                        run.extend(p.iter().cloned());
                        run
                    })
                })
                .collect();
        }
        assert!(rules > 0);
        runs
    }

    /// How many runs [`worlds`] enumerates, without enumerating them.
    fn world_count(s: &Scenario) -> u128 {
        let mut total: u128 = 1;
        for g in &s.groups {
            let mut n: u128 = (1..=g.len() as u128).product();
            for item in g {
                let free = match item {
                    Item::Error(ts) => ts.iter().filter(|t| **t == T::Maybe).count(),
                    Item::Hidden(mask) => s.kinds.iter().filter(|k| *k & mask != 0).count(),
                };
                n = n.saturating_mul(1 << free);
            }
            total = total.saturating_mul(n);
        }
        total
    }

    fn permutations<T: Clone>(items: &[T], out: &mut Vec<Vec<T>>) {
        fn go<T: Clone>(rest: &mut Vec<T>, acc: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
            if rest.is_empty() {
                out.push(acc.clone());
                return;
            }
            for i in 0..rest.len() {
                let x = rest.remove(i);
                acc.push(x.clone());
                go(rest, acc, out);
                acc.pop();
                rest.insert(i, x);
            }
        }
        go(&mut items.to_vec(), &mut Vec::new(), out);
    }

    /// The replay's outcomes for a scenario, in visible-error order.
    fn replay(s: &Scenario) -> Vec<Outcome> {
        let mut order = SearchOrder::new(s.kinds.len());
        let kinds = |id: RuleId| s.kinds[id as usize];
        let mut out = Vec::new();
        for g in &s.groups {
            let errors: Vec<Candidates> = g
                .iter()
                .filter_map(|i| match i {
                    Item::Error(ts) => Some(cands(ts)),
                    Item::Hidden(_) => None,
                })
                .collect();
            let hidden = g.iter().fold(0, |m, i| match i {
                Item::Hidden(k) => m | k,
                Item::Error(_) => m,
            });
            if errors.is_empty() {
                order.hidden(hidden);
            } else {
                out.extend(order.group(&errors, hidden, kinds));
            }
        }
        out
    }

    /// The replay over-approximates every run: each run's winner is possible, a certain
    /// credit is every run's winner, the likely rule is the printed-order run's winner, and
    /// every run's per-rule count lies between the certain and the possible counts.
    fn check(s: &Scenario) -> Result<(), TestCaseError> {
        prop_assume!(world_count(s) <= 20_000, "too many runs to enumerate");
        let outcomes = replay(s);
        let rules = s.kinds.len();
        let mut lo = vec![0u64; rules];
        let mut hi = vec![0u64; rules];
        for o in &outcomes {
            if let Some(c) = o.certain() {
                lo[c as usize] += 1;
            }
            for &p in &o.possible {
                hi[p as usize] += 1;
            }
        }
        let hidden_any = s
            .groups
            .iter()
            .flatten()
            .any(|i| matches!(i, Item::Hidden(_)));
        for run in worlds(s) {
            let (winners, counts) = valgrind(rules, &run);
            for (o, w) in outcomes.iter().zip(&winners) {
                match w {
                    Some(w) => prop_assert!(
                        o.possible.contains(&(*w as RuleId)),
                        "winner {w} not in {o:?}, run {run:?}"
                    ),
                    None => prop_assert!(!o.surely_suppressed, "{o:?} run {run:?}"),
                }
                if let Some(c) = o.certain() {
                    prop_assert_eq!(Some(c as usize), *w, "certain {:?} run {:?}", o, run);
                }
            }
            for r in 0..rules {
                prop_assert!(lo[r] <= counts[r], "rule {r}: {} > {}", lo[r], counts[r]);
                // Hidden records add credits no row shows: the caller bounds those.
                if !hidden_any {
                    prop_assert!(counts[r] <= hi[r], "rule {r}: {} > {}", counts[r], hi[r]);
                }
            }
        }
        // The printed order with unknowns false is one of the runs.
        let printed: Vec<(Option<usize>, Vec<bool>)> = s
            .groups
            .iter()
            .flatten()
            .filter_map(|i| match i {
                Item::Error(ts) => Some(ts.iter().map(|t| *t == T::Yes).collect()),
                Item::Hidden(_) => None,
            })
            .enumerate()
            .map(|(v, m)| (Some(v), m))
            .collect();
        let (winners, _) = valgrind(rules, &printed);
        for (o, w) in outcomes.iter().zip(winners) {
            prop_assert_eq!(o.likely.map(|l| l as usize), w);
        }
        Ok(())
    }

    fn scenario() -> impl Strategy<Value = Scenario> {
        (1usize..=4).prop_flat_map(|rules| {
            let truth = prop_oneof![
                4 => Just(T::No),
                3 => Just(T::Yes),
                1 => Just(T::Maybe),
            ];
            let item = prop_oneof![
                8 => proptest::collection::vec(truth, rules).prop_map(Item::Error),
                1 => (1u8..16).prop_map(Item::Hidden),
            ];
            let group = prop_oneof![
                3 => proptest::collection::vec(item.clone(), 1..=1),
                1 => proptest::collection::vec(item, 2..=3),
            ];
            (
                proptest::collection::vec(0u8..16, rules),
                proptest::collection::vec(group, 1..=5),
            )
                .prop_map(|(kinds, groups)| Scenario { kinds, groups })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        #[test]
        fn the_replay_covers_every_run(s in scenario()) {
            check(&s)?;
        }

        /// `blocked` finds the rules certainly ahead from the two greatest recencies; it
        /// says what the definition says (every other surely matching rule compared).
        #[test]
        fn blocked_is_its_definition(
            history in proptest::collection::vec(
                (proptest::collection::vec(0u32..8, 0..4), proptest::collection::vec(0u32..8, 0..4), 0u8..16),
                0..6,
            ),
            yes in proptest::collection::vec(0u32..8, 0..5),
            maybe in proptest::collection::vec(0u32..8, 0..5),
            hidden in 0u8..16,
            sorted in any::<bool>(),
        ) {
            let kinds = |id: RuleId| (id as KindMask * 5) & 0b1111;
            let mut o = SearchOrder::new(8);
            for (y, m, h) in &history {
                let c = Candidates { yes: y.clone(), maybe: m.clone() };
                o.group(&[c.clone(), c], *h, kinds);
            }
            let (mut yes, mut maybe) = (yes, maybe);
            if sorted {
                yes.sort_unstable();
                yes.dedup();
                maybe.sort_unstable();
                maybe.dedup();
                maybe.retain(|m| !yes.contains(m));
            }
            let e = Candidates { yes, maybe };
            let mut all: Vec<RuleId> = e.yes.iter().chain(&e.maybe).copied().collect();
            all.sort_unstable();
            all.dedup();
            let want: Vec<(RuleId, bool)> = all
                .into_iter()
                .map(|a| {
                    let hi = o.hi(a, &kinds);
                    let behind = kinds(a) & hidden == 0
                        && e.yes.iter().any(|&b| b != a && o.recency(b).lo > hi);
                    (a, behind)
                })
                .collect();
            prop_assert_eq!(o.blocked(&e, hidden, &kinds), want);
        }
    }

    #[test]
    fn pages_hold_values_by_rule_id() {
        let mut p: Pages<i64> = Pages::default();
        assert_eq!(p.get(0), None);
        assert_eq!(p.get(5000), None);
        *p.entry(130, 7) += 1;
        assert_eq!(*p.entry(130, 99), 8, "an entry keeps its value");
        *p.entry(63, 1) = 2;
        *p.entry(64, 3) = 4;
        assert_eq!(
            (p.get(63), p.get(64), p.get(65), p.get(130)),
            (Some(2), Some(4), None, Some(8))
        );
        // Only the pages written are allocated.
        assert_eq!(p.pages.iter().filter(|pg| pg.is_some()).count(), 3);
    }

    #[test]
    fn sorted_union_merges_or_sorts() {
        assert_eq!(sorted_union(&[1, 4, 9], &[2, 4, 10]), [1, 2, 4, 9, 10]);
        assert_eq!(sorted_union(&[9, 1], &[4, 1]), [1, 4, 9]);
        assert_eq!(sorted_union(&[], &[3]), [3]);
        assert!(sorted_union(&[], &[]).is_empty());
    }

    #[test]
    fn mru_order_o1_o2_is_certain() {
        // A (0) matches X and Y, B (1, later in the file, so first) matches only Y.
        let x = Candidates {
            yes: vec![0],
            maybe: vec![],
        };
        let y = Candidates {
            yes: vec![0, 1],
            maybe: vec![],
        };
        let none = |_| 0;
        // O1: X then Y: A moves to the front and takes Y too.
        let mut o = SearchOrder::new(2);
        assert_eq!(
            o.group(std::slice::from_ref(&x), 0, none)[0].certain(),
            Some(0)
        );
        assert_eq!(
            o.group(std::slice::from_ref(&y), 0, none)[0].certain(),
            Some(0)
        );
        // O2: Y then X: B takes Y, A takes X.
        let mut o = SearchOrder::new(2);
        assert_eq!(
            o.group(std::slice::from_ref(&y), 0, none)[0].certain(),
            Some(1)
        );
        assert_eq!(o.group(&[x], 0, none)[0].certain(), Some(0));
        // The same two records in one tie group: Y's credit is uncertain, X's is not.
        let mut o = SearchOrder::new(2);
        let out = o.group(
            &[
                y.clone(),
                Candidates {
                    yes: vec![0],
                    maybe: vec![],
                },
            ],
            0,
            none,
        );
        assert_eq!(out[0].possible, vec![0, 1]);
        assert_eq!(out[0].certain(), None);
        assert_eq!(out[1].certain(), Some(0));
        assert_eq!(out[0].likely, Some(1));
    }

    #[test]
    fn a_rule_that_might_match_ahead_makes_the_credit_uncertain() {
        // Rule 1 (searched first) may match; rule 0 surely does.
        let e = Candidates {
            yes: vec![0],
            maybe: vec![1],
        };
        let mut o = SearchOrder::new(2);
        let out = o.group(std::slice::from_ref(&e), 0, |_| 0);
        assert_eq!(out[0].possible, vec![0, 1]);
        assert!(out[0].surely_suppressed);
        assert_eq!(out[0].likely, Some(0));
        // Once rule 0 is surely credited later, it is ahead of rule 1's possible credit
        // only if that credit was earlier: here both may be the most recent.
        let out = o.group(&[e], 0, |_| 0);
        assert_eq!(out[0].possible, vec![0, 1]);
        // A rule that might match behind a surely matching one that is ahead changes nothing.
        let mut o = SearchOrder::new(2);
        let e = Candidates {
            yes: vec![1],
            maybe: vec![0],
        };
        assert_eq!(o.group(&[e], 0, |_| 0)[0].certain(), Some(1));
    }

    #[test]
    fn hidden_records_move_only_rules_of_their_kinds() {
        // Rules 0 and 1 both match; 1 is ahead. A hidden record of kind bit 0 may move
        // rule 0 (kinds 0b01) to the front, but not a rule of kind 0b10.
        let both = Candidates {
            yes: vec![0, 1],
            maybe: vec![],
        };
        let mut o = SearchOrder::new(2);
        o.hidden(0b01);
        let out = o.group(std::slice::from_ref(&both), 0, |id| {
            if id == 0 { 0b01 } else { 0b10 }
        });
        assert_eq!(out[0].possible, vec![0, 1]);
        let mut o = SearchOrder::new(2);
        o.hidden(0b01);
        let out = o.group(&[both], 0, |_| 0b10);
        assert_eq!(out[0].certain(), Some(1));
    }
}
