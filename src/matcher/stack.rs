//! Stack matching (`VG_(generic_match)` in prefix mode, valgrind-semantics.md §2.3): `...`
//! matches zero or more frames anywhere; once the pattern is used up the rest of the input is
//! accepted; a pattern longer than the input does not match. With facts the log does not
//! show, a comparison can be undecided, so matching is three-valued.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::matcher::demangle;
use crate::matcher::input::{InputFrame, Known, MatchInput, SrcInfo};
use crate::matcher::rule::Pattern;
use crate::matcher::wildcard::{Glob, name_hash};

/// A three-valued verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Truth {
    /// Does not match.
    No,
    /// The log does not show enough to decide.
    Unknown,
    /// Matches.
    Yes,
}

impl Truth {
    const fn and(self, other: Self) -> Self {
        if (self as u8) < (other as u8) {
            self
        } else {
            other
        }
    }
    const fn or(self, other: Self) -> Self {
        if (self as u8) > (other as u8) {
            self
        } else {
            other
        }
    }
    pub(crate) fn of(b: bool) -> Self {
        if b { Self::Yes } else { Self::No }
    }
}

/// What matching keeps from rule to rule and from input to input about the large sets of
/// objects a log leaves open ([`Known::OneOf`], hundreds of paths in a `-v` log of a
/// process that loads many libraries): the verdicts of patterns on them, and the rules the
/// index finds for them, by the identity (address) of the pattern or index table and of
/// the set.
///
/// Addresses identify only while their objects live: a scratch may be used across inputs
/// only while every set it has seen stays allocated (the replay's cache keeps them, and
/// drops its scratch with them), and with the rules that filled it.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    one_of: FxHashMap<(usize, usize), Truth>,
    /// Rule ids an index table gives for a set.
    pub(crate) set_rules: FxHashMap<(usize, usize), Vec<u32>>,
    /// Rule ids an index table gives for a name or a path (by the table's address and
    /// whether it is a name): real stacks repeat the same few hundred from input to input.
    name_rules: FxHashMap<(usize, bool), RulesByName>,
    name_bytes: usize,
    /// Whether it is kept from input to input (else names are not worth keeping).
    across_inputs: bool,
}

impl Scratch {
    /// A scratch to be kept from input to input (see above for how long it may be).
    pub(crate) fn across_inputs() -> Self {
        Self {
            across_inputs: true,
            ..Self::default()
        }
    }

    /// The identity of a set.
    pub(crate) fn set_id<T>(set: &Arc<[T]>) -> usize {
        Arc::as_ptr(set).cast::<u8>().addr()
    }

    /// Roughly the bytes it holds.
    pub(crate) fn bytes(&self) -> usize {
        self.one_of.len() * 24
            + self
                .set_rules
                .values()
                .map(|v| 48 + 4 * v.len())
                .sum::<usize>()
            + self.name_bytes
    }

    /// The rule ids table `table` gives for `name` (a function name when `fun`, else an
    /// object path): kept, or found by `lookup` and kept.
    pub(crate) fn name_rules(
        &mut self,
        table: usize,
        fun: bool,
        name: &[u8],
        out: &mut Vec<u32>,
        lookup: impl FnOnce(&mut Vec<u32>),
    ) {
        if !self.across_inputs {
            return lookup(out);
        }
        let kept = self.name_rules.entry((table, fun)).or_default();
        if let Some(ids) = kept.get(name) {
            out.extend_from_slice(ids);
            return;
        }
        let from = out.len();
        lookup(out);
        let ids: Box<[u32]> = out[from..].into();
        self.name_bytes += 64 + name.len() + 4 * ids.len();
        kept.insert(name.into(), ids);
    }
}

/// Rule ids by name or path.
type RulesByName = FxHashMap<Box<[u8]>, Box<[u32]>>;

/// Sets at least this large are worth remembering verdicts on.
const REMEMBERED_SET: usize = 8;

/// Compare a name pattern with a name the log shows, one of several names, or none.
fn name_matches(g: &Glob, name: &Known<Vec<u8>>, scratch: &mut Scratch) -> Truth {
    match name {
        Known::Yes(name) => Truth::of(g.matches(name)),
        // `*` matches whatever the name is.
        _ if g.matches_any() => Truth::Yes,
        // One of a closed set: decided when every candidate agrees.
        Known::OneOf(names) => {
            if let Some(t) = sorted_verdict(g, names) {
                return t;
            }
            if names.len() < REMEMBERED_SET {
                return set_verdict(g, names);
            }
            let key = (std::ptr::from_ref(g).addr(), Scratch::set_id(names));
            *scratch
                .one_of
                .entry(key)
                .or_insert_with(|| set_verdict(g, names))
        }
        Known::Demangled {
            shown,
            maybe_inlined,
        } => demangle::fun_verdict(g, shown, *maybe_inlined),
        Known::Unknown => Truth::Unknown,
    }
}

/// The verdict of `g` on a set of names: `Yes` when every name matches, `No` when none
/// does, else `Unknown`.
fn set_verdict(g: &Glob, names: &[Vec<u8>]) -> Truth {
    let (mut hit, mut miss) = (false, false);
    for n in names {
        if g.matches(n) {
            hit = true;
        } else {
            miss = true;
        }
        if hit && miss {
            return Truth::Unknown;
        }
    }
    Truth::of(hit)
}

/// [`set_verdict`] by binary search for a literal or a literal prefix (`/usr/lib/*`): a
/// set of names is sorted ([`Known::OneOf`]), so the names it matches are one run.
fn sorted_verdict(g: &Glob, names: &[Vec<u8>]) -> Option<Truth> {
    let lit = g.literal_prefix();
    let hits = if g.is_literal() {
        usize::from(names.binary_search_by(|n| n.as_slice().cmp(lit)).is_ok())
    } else if g.as_bytes().len() == lit.len() + 1 && g.as_bytes().ends_with(b"*") {
        let from = names.partition_point(|n| n.as_slice() < lit);
        names[from..]
            .iter()
            .take_while(|n| n.starts_with(lit))
            .count()
    } else {
        return None;
    };
    Some(match hits {
        0 => Truth::No,
        h if h == names.len() => Truth::Yes,
        _ => Truth::Unknown,
    })
}

/// The [`name_hash`]es of an input's function names and objects (0 where not shown):
/// computed once per input, they decide most comparisons with a literal without looking
/// at the bytes.
#[derive(Debug, Default)]
pub(crate) struct Hashes {
    fun: Vec<u64>,
    obj: Vec<u64>,
}

impl Hashes {
    pub(crate) fn of(input: &MatchInput) -> Self {
        let hash = |k: &Known<Vec<u8>>| match k {
            Known::Yes(n) => name_hash(n),
            _ => 0,
        };
        Self {
            fun: input.frames.iter().map(|f| hash(&f.fun)).collect(),
            obj: input.frames.iter().map(|f| hash(&f.obj)).collect(),
        }
    }
}

/// Compare `p` with frame `i` of `input`, a literal by its hash first. `last` is the
/// set of objects `p` was last compared with and the verdict (neighbouring frames often
/// share one): pass the same one while comparing the same pattern frame.
fn frame_matches_at(
    p: &Pattern,
    input: &MatchInput,
    i: usize,
    hashes: &Hashes,
    scratch: &mut Scratch,
    last: &mut Option<(usize, Truth)>,
) -> Truth {
    let f = &input.frames[i];
    if let (Pattern::Obj(g), Known::OneOf(set)) = (p, &f.obj) {
        let at = Scratch::set_id(set);
        return match *last {
            Some((seen, t)) if seen == at => t,
            _ => {
                let t = name_matches(g, &f.obj, scratch);
                *last = Some((at, t));
                t
            }
        };
    }
    let literal = |g: &Glob, k: &Known<Vec<u8>>, h: Option<&u64>| match (k, g.literal_hash(), h) {
        (Known::Yes(n), Some(want), Some(&have)) => {
            Some(Truth::of(want == have && g.as_bytes() == n.as_slice()))
        }
        _ => None,
    };
    let quick = match p {
        Pattern::Fun(g) => literal(g, &f.fun, hashes.fun.get(i)),
        Pattern::Obj(g) => literal(g, &f.obj, hashes.obj.get(i)),
        _ => None,
    };
    quick.unwrap_or_else(|| frame_matches_in(p, f, scratch))
}

/// Compare one pattern frame with one input frame (§2.5).
#[must_use]
pub fn frame_matches(p: &Pattern, f: &InputFrame) -> Truth {
    frame_matches_in(p, f, &mut Scratch::default())
}

fn frame_matches_in(p: &Pattern, f: &InputFrame, scratch: &mut Scratch) -> Truth {
    match p {
        Pattern::Ellipsis => Truth::Yes,
        Pattern::Fun(g) => name_matches(g, &f.fun, scratch),
        Pattern::Obj(g) => name_matches(g, &f.obj, scratch),
        Pattern::Src(g, line) => match &f.src {
            Known::Yes(SrcInfo::At(file, l)) => {
                Truth::of(g.matches(file) && (*line == 0 || line == l))
            }
            Known::Yes(SrcInfo::None) => Truth::No,
            Known::OneOf(_) | Known::Demangled { .. } | Known::Unknown => Truth::Unknown,
        },
    }
}

/// Names a frame below `main` may have (§2.4, §2.5): the start-up code's, renamed to
/// `(below main)` or not (`__libc_start_main@@GLIBC_2.34` keeps its name), `main` itself
/// (a recursive one), or no name at all.
const BELOW_MAIN_NAMES: [&[u8]; 2] = [b"(below main)", b"???"];
/// … and prefixes of them.
const BELOW_MAIN_PREFIXES: [&[u8]; 6] = [
    b"__libc_start",
    b"_start",
    b"__start",
    b"generic_start_main",
    b"libc_start_main",
    b"main",
];

/// Whether a pattern frame may match a frame below `main`.
fn may_be_below_main(p: &Pattern) -> bool {
    match p {
        Pattern::Fun(g) => {
            BELOW_MAIN_NAMES.iter().any(|n| g.matches(n))
                || BELOW_MAIN_PREFIXES.iter().any(|x| g.may_start_with(x))
        }
        Pattern::Obj(_) | Pattern::Src(..) | Pattern::Ellipsis => true,
    }
}

/// The verdict of the rest of a pattern, `rest`, on the frames the log hides past the
/// last one shown: none (`No` unless `rest` is only `...`), arbitrary ones (`Unknown`),
/// or frames below `main` (`No` when a frame of `rest` can match none of them).
fn hidden_rest(input: &MatchInput, rest: &[Pattern]) -> Truth {
    if rest.iter().all(|p| matches!(p, Pattern::Ellipsis)) {
        return Truth::Yes;
    }
    if !input.open_ended {
        return Truth::No;
    }
    if input.hidden_below_main && !rest.iter().all(may_be_below_main) {
        return Truth::No;
    }
    Truth::Unknown
}

/// Whether `pattern` matches `input` as a prefix.
#[must_use]
pub fn stack_matches(pattern: &[Pattern], input: &MatchInput) -> Truth {
    stack_matches_in(pattern, input, &Hashes::of(input), &mut Scratch::default())
}

/// [`stack_matches`], with `input`'s [`Hashes`], keeping what is worth keeping for the
/// next rule in `scratch`.
pub(crate) fn stack_matches_in(
    pattern: &[Pattern],
    input: &MatchInput,
    hashes: &Hashes,
    scratch: &mut Scratch,
) -> Truth {
    let n = input.frames.len();
    if !pattern.iter().any(|p| matches!(p, Pattern::Ellipsis)) {
        // No `...`: one frame against one frame, stopping at the first mismatch.
        let mut verdict = Truth::Yes;
        for (i, p) in pattern.iter().enumerate() {
            let t = match input.frames.get(i) {
                Some(_) => frame_matches_at(p, input, i, hashes, scratch, &mut None),
                None => hidden_rest(input, &pattern[i..]),
            };
            verdict = verdict.and(t);
            if verdict == Truth::No || i >= n {
                return verdict;
            }
        }
        return verdict;
    }
    if let Some(one) = lone_frame(pattern) {
        // `... P ...`: some frame must match P (or one the log hides).
        let mut best = hidden_rest(input, std::slice::from_ref(one));
        let mut last = None;
        for i in 0..n {
            best = best.or(frame_matches_at(one, input, i, hashes, scratch, &mut last));
            if best == Truth::Yes {
                break;
            }
        }
        return best;
    }
    // One verdict per input position; real stacks are short, so no allocation for them.
    let mut small = [Truth::No; SMALL];
    if n < SMALL {
        reach(pattern, input, &mut small[..=n], hashes, scratch)
    } else {
        reach(pattern, input, &mut vec![Truth::No; n + 1], hashes, scratch)
    }
}

/// The one concrete frame of a pattern that starts with `...` and has no other (real rule
/// sets hold hundreds such: `... obj:*/libcuda.so* ...`).
fn lone_frame(pattern: &[Pattern]) -> Option<&Pattern> {
    let mut concrete = pattern.iter().filter(|p| !matches!(p, Pattern::Ellipsis));
    let one = concrete.next()?;
    (matches!(pattern.first(), Some(Pattern::Ellipsis)) && concrete.next().is_none()).then_some(one)
}

/// Stacks up to this many frames (minus one) are matched without allocating.
const SMALL: usize = 128;

/// Valgrind's recursive matcher (§2.3), computed forwards over the pattern: `row[i]` is the
/// best verdict of a way to match the pattern so far consuming exactly the first `i`
/// frames (the best over ways of the worst comparison on the way: what the recursion,
/// taking `...` frugally and backtracking, finds). Each pattern frame is compared with each
/// frame at most once, and only at positions some way still reaches. `row` has one entry
/// per input position (`frames.len() + 1`).
fn reach(
    pattern: &[Pattern],
    input: &MatchInput,
    row: &mut [Truth],
    hashes: &Hashes,
    scratch: &mut Scratch,
) -> Truth {
    let n = input.frames.len();
    row.fill(Truth::No);
    row[0] = Truth::Yes;
    // Positions reached (verdict not `No`) lie in `lo..=hi`.
    let (mut lo, mut hi) = (0, 0);
    // The best verdict of ways that continue into the frames the log hides (a `...` may
    // take hidden frames too, but what follows it then meets them as this does).
    let mut hidden = Truth::No;
    for (j, pat) in pattern.iter().enumerate() {
        if matches!(pat, Pattern::Ellipsis) {
            // Zero or more frames: every position from a reached one on is reached.
            let mut best = Truth::No;
            for t in &mut row[lo..=n] {
                best = best.or(*t);
                *t = best;
            }
            hi = n;
        } else {
            if hi == n && input.open_ended {
                // Out of frames shown: Valgrind sees the frames the log hides.
                hidden = hidden.or(row[n].and(hidden_rest(input, &pattern[j..])));
            }
            // One frame: each position reached moves on by one if the frame matches.
            let top = hi.min(n.wrapping_sub(1));
            if n == 0 || top < lo {
                return hidden;
            }
            let mut last = None;
            for i in (lo..=top).rev() {
                row[i + 1] = match row[i] {
                    Truth::No => Truth::No,
                    t => t.and(frame_matches_at(pat, input, i, hashes, scratch, &mut last)),
                };
            }
            lo += 1;
            hi = top + 1;
            while lo <= hi && row[lo] == Truth::No {
                lo += 1;
            }
            while hi > lo && row[hi] == Truth::No {
                hi -= 1;
            }
            if lo > hi {
                return hidden;
            }
        }
    }
    // The pattern is used up: the rest of the input is accepted.
    row[lo..=hi].iter().fold(hidden, |best, &t| best.or(t))
}

/// Explain, frame by frame, how `pattern` meets `input`: one line per step of the best path
/// found, ending where it stops matching when it does not match.
#[must_use]
pub fn explain(
    pattern: &[Pattern],
    input: &MatchInput,
    show: impl Fn(&Pattern) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    let (mut p, mut i) = (0, 0);
    let n = input.frames.len();
    let describe = |f: &InputFrame| -> String {
        let k = |x: &Known<Vec<u8>>| match x {
            Known::Yes(v) => String::from_utf8_lossy(v).into_owned(),
            Known::OneOf(vs) => {
                let all: Vec<_> = vs.iter().map(|v| String::from_utf8_lossy(v)).collect();
                format!("one of {}", all.join(", "))
            }
            Known::Demangled { shown, .. } => {
                format!("shown demangled as {}", String::from_utf8_lossy(shown))
            }
            Known::Unknown => "(not shown in the log)".to_owned(),
        };
        let src = match &f.src {
            Known::Yes(SrcInfo::At(file, line)) => {
                format!("{}:{line}", String::from_utf8_lossy(file))
            }
            Known::Yes(SrcInfo::None) => "no line info".to_owned(),
            Known::OneOf(_) | Known::Demangled { .. } | Known::Unknown => "(not shown)".to_owned(),
        };
        format!("fun {} | obj {} | src {}", k(&f.fun), k(&f.obj), src)
    };
    while p < pattern.len() {
        let pat = &pattern[p];
        if matches!(pat, Pattern::Ellipsis) {
            // Take as few frames as possible, like Valgrind's frugal star.
            let mut skip = 0;
            while i + skip <= n
                && stack_matches(&pattern[p + 1..], &sub(input, i + skip)) == Truth::No
            {
                skip += 1;
            }
            if i + skip > n {
                out.push(format!(
                    "pattern {}: `...` — no way to continue matching after frame {i}",
                    p + 1
                ));
                return out;
            }
            out.push(format!(
                "pattern {}: `...` skips {skip} frame(s) ({}..{})",
                p + 1,
                i,
                i + skip
            ));
            i += skip;
            p += 1;
            continue;
        }
        if i >= n {
            let why = if input.open_ended {
                "the log hides the frames below main: Valgrind's verdict is unknown from here"
            } else {
                "the error has no more frames: no match"
            };
            out.push(format!("pattern {}: `{}` — {why}", p + 1, show(pat)));
            return out;
        }
        let t = frame_matches(pat, &input.frames[i]);
        let mark = match t {
            Truth::Yes => "matches",
            Truth::No => "does NOT match",
            Truth::Unknown => "cannot be decided from this log for",
        };
        out.push(format!(
            "pattern {}: `{}` {mark} frame {i} ({})",
            p + 1,
            show(pat),
            describe(&input.frames[i])
        ));
        if t == Truth::No {
            return out;
        }
        p += 1;
        i += 1;
    }
    out.push("pattern used up: the rule matches (Valgrind matches prefixes)".to_owned());
    out
}

fn sub(input: &MatchInput, from: usize) -> MatchInput {
    MatchInput {
        kind: input.kind.clone(),
        frames: input.frames[from.min(input.frames.len())..].to_vec(),
        open_ended: input.open_ended,
        hidden_below_main: input.hidden_below_main,
        demangled_names: input.demangled_names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::wildcard::Glob;
    use proptest::prelude::*;

    /// Valgrind's matcher as valgrind-semantics.md §2.3 writes it, made three-valued:
    /// recursive, `...` frugal (zero frames first), memoised. The reference for
    /// [`stack_matches`].
    fn reference(pattern: &[Pattern], input: &MatchInput) -> Truth {
        fn go(
            pattern: &[Pattern],
            input: &MatchInput,
            p: usize,
            i: usize,
            memo: &mut [Option<Truth>],
        ) -> Truth {
            let n = input.frames.len();
            let Some(pat) = pattern.get(p) else {
                return Truth::Yes;
            };
            let key = p * (n + 1) + i;
            if let Some(t) = memo[key] {
                return t;
            }
            let v = if matches!(pat, Pattern::Ellipsis) {
                let zero = go(pattern, input, p + 1, i, memo);
                if zero == Truth::Yes {
                    zero
                } else if i < n {
                    zero.or(go(pattern, input, p, i + 1, memo))
                } else {
                    zero.or(hidden_rest(input, &pattern[p..]))
                }
            } else if i < n {
                let here = frame_reference(pat, &input.frames[i]);
                if here == Truth::No {
                    here
                } else {
                    here.and(go(pattern, input, p + 1, i + 1, memo))
                }
            } else {
                hidden_rest(input, &pattern[p..])
            };
            memo[key] = Some(v);
            v
        }
        let mut memo = vec![None; (pattern.len() + 1) * (input.frames.len() + 1)];
        go(pattern, input, 0, 0, &mut memo)
    }

    /// §2.5's comparison, with a set of candidate names decided when every candidate
    /// agrees: the reference for [`frame_matches`] (no search, no memory).
    fn frame_reference(p: &Pattern, f: &InputFrame) -> Truth {
        let name = |g: &Glob, k: &Known<Vec<u8>>| match k {
            Known::Yes(n) => Truth::of(g.matches(n)),
            _ if g.as_bytes().iter().all(|&b| b == b'*') => Truth::Yes,
            Known::OneOf(ns) => match ns.iter().filter(|n| g.matches(n)).count() {
                0 => Truth::No,
                h if h == ns.len() => Truth::Yes,
                _ => Truth::Unknown,
            },
            Known::Demangled {
                shown,
                maybe_inlined,
            } => demangle::fun_verdict(g, shown, *maybe_inlined),
            Known::Unknown => Truth::Unknown,
        };
        match p {
            Pattern::Fun(g) => name(g, &f.fun),
            Pattern::Obj(g) => name(g, &f.obj),
            _ => frame_matches(p, f),
        }
    }

    /// A pattern frame over a small alphabet, so that frames often match.
    fn pattern_frame() -> impl Strategy<Value = Pattern> {
        prop_oneof![
            3 => Just(Pattern::Ellipsis),
            3 => "[ab]".prop_map(|s| Pattern::Fun(Glob::new(s.as_bytes()))),
            1 => Just(Pattern::Fun(Glob::new(b"*"))),
            2 => "[xy]".prop_map(|s| Pattern::Obj(Glob::new(s.as_bytes()))),
            2 => "[xy][0-9]?\\*?".prop_map(|s| Pattern::Obj(Glob::new(s.as_bytes()))),
            1 => "\\*[0-9]".prop_map(|s| Pattern::Obj(Glob::new(s.as_bytes()))),
            1 => Just(Pattern::Obj(Glob::new(b"*"))),
            1 => (0u32..3).prop_map(|l| Pattern::Src(Glob::new(b"f.c"), l)),
        ]
    }

    /// An input frame whose facts may be shown, partly shown or hidden.
    fn input_frame() -> impl Strategy<Value = InputFrame> {
        let fun = prop_oneof![
            4 => "[abc]".prop_map(|s| Known::Yes(s.into_bytes())),
            1 => Just(Known::Unknown),
        ];
        let obj = prop_oneof![
            4 => "[xyz]".prop_map(|s| Known::Yes(s.into_bytes())),
            1 => Just(Known::OneOf(vec![b"x".to_vec(), b"z".to_vec()].into())),
            // Large sets (remembered per pattern), sorted as the object map makes them.
            2 => proptest::sample::subsequence(LARGE_SET, 8..=12).prop_map(|ns| {
                Known::OneOf(ns.iter().map(|n| n.as_bytes().to_vec()).collect::<Vec<_>>().into())
            }),
            1 => Just(Known::Unknown),
        ];
        let src = prop_oneof![
            2 => (1u32..3).prop_map(|l| Known::Yes(SrcInfo::At(b"f.c".to_vec(), l))),
            1 => Just(Known::Yes(SrcInfo::None)),
            1 => Just(Known::Unknown),
        ];
        (fun, obj, src).prop_map(|(fun, obj, src)| InputFrame { fun, obj, src })
    }

    /// Sorted names, many starting alike.
    const LARGE_SET: &[&str] = &[
        "x", "x0", "x1", "x2", "x3", "x9", "y", "y0", "y1", "y5", "y7", "z", "z1",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// The forward matcher gives the recursion's verdict on every pattern and input,
        /// alone or one rule after another on the same input (sharing what it keeps).
        #[test]
        fn stack_matches_is_the_recursion(
            patterns in proptest::collection::vec(proptest::collection::vec(pattern_frame(), 0..7), 1..4),
            frames in proptest::collection::vec(input_frame(), 0..7),
            open_ended in any::<bool>(),
            below_main in any::<bool>(),
        ) {
            let input = MatchInput { frames, open_ended, hidden_below_main: open_ended && below_main, ..MatchInput::default() };
            let mut scratch = Scratch::default();
            for pattern in &patterns {
                let want = reference(pattern, &input);
                prop_assert_eq!(stack_matches(pattern, &input), want);
                prop_assert_eq!(stack_matches_in(pattern, &input, &Hashes::of(&input), &mut scratch), want);
            }
        }
    }

    /// Names frames below `main` have on this glibc (§2.4): what the bounded tail stands for.
    const BELOW_MAIN_SAMPLES: [&str; 5] = [
        "(below main)",
        "__libc_start_main@@GLIBC_2.34",
        "_start",
        "???",
        "main",
    ];

    fn below_main_pattern() -> impl Strategy<Value = Pattern> {
        prop_oneof![
            2 => Just(Pattern::Ellipsis),
            2 => "[ab]".prop_map(|s| Pattern::Fun(Glob::new(s.as_bytes()))),
            2 => proptest::sample::select(&BELOW_MAIN_SAMPLES[..])
                .prop_map(|s| Pattern::Fun(Glob::new(s.as_bytes()))),
            1 => Just(Pattern::Fun(Glob::new(b"__libc_start*"))),
            1 => Just(Pattern::Fun(Glob::new(b"_Z*"))),
            1 => Just(Pattern::Fun(Glob::new(b"*"))),
            1 => Just(Pattern::Obj(Glob::new(b"*/libc.so*"))),
        ]
    }

    proptest! {
        /// Below-main tails: the matcher never says `No` where some tail of start-up frames
        /// (any number, each with a below-main name and any object) would make the pattern
        /// match.
        #[test]
        fn below_main_tails_are_never_excluded_wrongly(
            pattern in proptest::collection::vec(below_main_pattern(), 1..6),
            shown in proptest::collection::vec("[ab]", 0..4),
            tail in proptest::collection::vec(proptest::sample::select(&BELOW_MAIN_SAMPLES[..]), 0..6),
        ) {
            let frames: Vec<InputFrame> = shown.iter().map(|f| frame(f, "/o", None)).collect();
            let input = MatchInput {
                frames: frames.clone(),
                open_ended: true,
                hidden_below_main: true,
                ..MatchInput::default()
            };
            let mut full = frames;
            full.extend(tail.iter().map(|f| InputFrame {
                fun: Known::Yes(f.as_bytes().to_vec()),
                obj: Known::Unknown,
                src: Known::Unknown,
            }));
            let concrete = MatchInput { frames: full, ..MatchInput::default() };
            if stack_matches(&pattern, &input) == Truth::No {
                prop_assert_eq!(reference(&pattern, &concrete), Truth::No);
            }
        }
    }

    #[test]
    fn below_main_tails_decide_names_they_cannot_hold() {
        let input = MatchInput {
            frames: vec![frame("malloc", "/v", None), frame("main", "/p", None)],
            open_ended: true,
            hidden_below_main: true,
            ..MatchInput::default()
        };
        let unbounded = MatchInput {
            hidden_below_main: false,
            ..input.clone()
        };
        for (spec, bounded, any) in [
            (
                &["fun:malloc", "...", "fun:_ZN3c1013demangle_type*"][..],
                Truth::No,
                Truth::Unknown,
            ),
            (
                &["fun:malloc", "...", "fun:__libc_start_main*"],
                Truth::Unknown,
                Truth::Unknown,
            ),
            (
                &["fun:malloc", "fun:main", "fun:(below main)"],
                Truth::Unknown,
                Truth::Unknown,
            ),
            (
                &["fun:malloc", "fun:main", "fun:cuInit"],
                Truth::No,
                Truth::Unknown,
            ),
            (
                &["fun:malloc", "fun:main", "obj:*"],
                Truth::Unknown,
                Truth::Unknown,
            ),
            (&["...", "fun:cuInit"], Truth::No, Truth::Unknown),
            (&["fun:malloc", "...", "fun:main"], Truth::Yes, Truth::Yes),
        ] {
            let p = pats(spec);
            assert_eq!(stack_matches(&p, &input), bounded, "{spec:?}");
            assert_eq!(reference(&p, &input), bounded, "{spec:?}");
            assert_eq!(stack_matches(&p, &unbounded), any, "{spec:?} unbounded");
        }
    }

    #[test]
    fn long_stacks_match_like_short_ones() {
        // Past the on-stack buffer: the same answers.
        let frames: Vec<InputFrame> = (0..300)
            .map(|i| frame(if i == 250 { "deep" } else { "f" }, "/o", None))
            .collect();
        let mut input = MatchInput {
            frames,
            ..MatchInput::default()
        };
        for open_ended in [false, true] {
            input.open_ended = open_ended;
            for spec in [
                &["...", "fun:deep"][..],
                &["fun:f", "...", "fun:deep", "fun:f"],
                &["...", "fun:nope"],
                &["...", "fun:deep", "...", "fun:f", "fun:f", "fun:nope"],
            ] {
                let p = pats(spec);
                assert_eq!(stack_matches(&p, &input), reference(&p, &input), "{spec:?}");
            }
        }
    }

    fn frame(fun: &str, obj: &str, src: Option<(&str, u32)>) -> InputFrame {
        InputFrame {
            fun: Known::Yes(fun.as_bytes().to_vec()),
            obj: Known::Yes(obj.as_bytes().to_vec()),
            src: Known::Yes(src.map_or(SrcInfo::None, |(f, l)| {
                SrcInfo::At(f.as_bytes().to_vec(), l)
            })),
        }
    }

    /// The reference error `errs read` of valgrind-semantics.md §8 (12 input frames).
    fn errs_read() -> MatchInput {
        let o = "/src/demo/errs";
        let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
        let mut frames = vec![
            frame("leaf_read", o, Some(("errs.c", 11))),
            frame("mid_read", o, Some(("errs.c", 12))),
            frame("top_read", o, Some(("errs.c", 13))),
            frame("main", o, Some(("errs.c", 20))),
            frame("(below main)", libc, Some(("libc_start_call_main.h", 58))),
            frame("__libc_start_main@@GLIBC_2.34", libc, None),
            frame("(below main)", o, None),
        ];
        frames.extend((0..5).map(|_| frame("???", "???", None)));
        MatchInput {
            frames,
            ..MatchInput::default()
        }
    }

    fn pats(spec: &[&str]) -> Vec<Pattern> {
        spec.iter()
            .map(|s| match s.split_once(':') {
                _ if *s == "..." => Pattern::Ellipsis,
                Some(("fun", p)) => Pattern::Fun(Glob::new(p.as_bytes())),
                Some(("obj", p)) => Pattern::Obj(Glob::new(p.as_bytes())),
                Some(("src", p)) => {
                    let (f, l) = p
                        .split_once(':')
                        .map_or((p, 0), |(f, l)| (f, l.parse().unwrap_or(0)));
                    Pattern::Src(Glob::new(f.as_bytes()), l)
                }
                _ => panic!("bad spec {s}"),
            })
            .collect()
    }

    #[test]
    fn cases_from_section_8() {
        let e = errs_read();
        let yes = |s: &[&str]| assert_eq!(stack_matches(&pats(s), &e), Truth::Yes, "{s:?}");
        let no = |s: &[&str]| assert_eq!(stack_matches(&pats(s), &e), Truth::No, "{s:?}");
        yes(&["fun:leaf_read", "fun:mid_read", "fun:top_read", "fun:main"]); // M01
        yes(&["fun:leaf_read", "fun:mid_read"]); // M02
        no(&["fun:mid_read", "fun:top_read"]); // M03
        yes(&["...", "fun:mid_read"]); // M04
        yes(&["fun:leaf_read", "..."]); // M05
        yes(&["...", "fun:main"]); // M06
        yes(&[
            "fun:leaf_read",
            "fun:mid_read",
            "fun:top_read",
            "fun:main",
            "fun:(below main)",
        ]); // M07
        no(&[
            "fun:leaf_read",
            "fun:mid_read",
            "fun:top_read",
            "fun:main",
            "fun:__libc_start_call_main",
        ]); // M08
        no(&["...", "fun:zzz"]); // M10
        yes(&["obj:/src/demo/errs"]); // M14
        no(&["obj:errs"]); // M15
        yes(&["src:errs.c:11"]); // M19
        yes(&["src:errs.c"]); // M20
        no(&["src:errs.c:12"]); // M21
        no(&["src:/src/demo/errs.c:11"]); // M22
        yes(&["...", "...", "fun:top_read", "...", "..."]); // M25
        yes(&["obj:*", "fun:mid_read"]); // M26
        no(&["fun:???"]); // M27
        let mut b3 = vec![
            "...",
            "fun:main",
            "fun:(below main)",
            "fun:__libc_start_main@@GLIBC_2.34",
            "fun:(below main)",
        ];
        b3.extend(["obj:*"; 5]);
        yes(&b3); // B3
        b3.push("obj:*");
        no(&b3); // B4: 13 > 12 frames
        no(&[
            "...",
            "fun:main",
            "fun:(below main)",
            "fun:__libc_start_main",
        ]); // B5
    }

    #[test]
    fn hidden_frames_make_verdicts_unknown() {
        let mut e = errs_read();
        e.frames.truncate(4); // what the log shows: up to main
        e.open_ended = true;
        assert_eq!(stack_matches(&pats(&["...", "fun:main"]), &e), Truth::Yes);
        assert_eq!(
            stack_matches(&pats(&["...", "fun:main", "fun:(below main)"]), &e),
            Truth::Unknown
        );
        assert_eq!(
            stack_matches(&pats(&["fun:leaf_read", "fun:zzz", "fun:x"]), &e),
            Truth::No
        );
        assert_eq!(
            stack_matches(&pats(&["...", "fun:zzz"]), &e),
            Truth::Unknown
        );
        let lines = explain(&pats(&["fun:leaf_read", "fun:zzz"]), &e, |p| {
            format!("{p:?}")
        });
        assert!(
            lines.last().is_some_and(|l| l.contains("does NOT match")),
            "{lines:?}"
        );
    }
}
