//! The algebra of frame patterns: whether one rule's stack patterns match every stack
//! another's match (*covers*: `gen` drops candidates a wider rule hides, VS3xx reports
//! rules another subsumes), and whether two may match a common stack (*meet*: `prune`
//! knows a rule could not have taken errors another rule hid from a log).
//!
//! Both are decided on the pattern languages, never on the text. `covers` is sound, not
//! complete: when it says yes, every stack the narrower pattern matches (for every truth
//! of what a log hides) is matched by the wider one, each of the narrower pattern's frames
//! covered in order by the wider one's — a wider `...` absorbing any run of them, the
//! narrower pattern's own `...`s included, and the wider pattern ending first (Valgrind
//! matches prefixes). `meet` errs the other way: when it says no, no stack is matched by
//! both; `src:` patterns are taken to meet anything.

use crate::matcher::rule::{Pattern, Rule, RuleExtra};

/// A frame pattern of either side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P<'a> {
    /// `fun:`.
    Fun(&'a [u8]),
    /// `obj:`.
    Obj(&'a [u8]),
    /// `src:` (never generated; in `-s` files only): covers nothing but itself.
    Src,
    /// `...`.
    Ellipsis,
}

impl<'a> From<&'a Pattern> for P<'a> {
    fn from(p: &'a Pattern) -> Self {
        match p {
            Pattern::Fun(g) => Self::Fun(g.as_bytes()),
            Pattern::Obj(g) => Self::Obj(g.as_bytes()),
            Pattern::Src(..) => Self::Src,
            Pattern::Ellipsis => Self::Ellipsis,
        }
    }
}

/// Whether every string glob `q` matches is matched by glob `p` (`*`, `?`; no escapes):
/// `p` must match `q` symbol by symbol, its `*` taking any run of `q`'s symbols.
#[must_use]
pub fn glob_covers(p: &[u8], q: &[u8]) -> bool {
    // reach[j]: p[..i] can match q[..j].
    let mut reach = vec![false; q.len() + 1];
    reach[0] = true;
    for &pc in p {
        let mut next = vec![false; q.len() + 1];
        match pc {
            b'*' => {
                let mut on = false;
                for j in 0..=q.len() {
                    on |= reach[j];
                    next[j] = on;
                }
            }
            b'?' => {
                for j in 0..q.len() {
                    // One character of q: a literal or q's own `?`, never its `*`.
                    next[j + 1] = reach[j] && q[j] != b'*';
                }
            }
            c => {
                for j in 0..q.len() {
                    next[j + 1] = reach[j] && q[j] == c;
                }
            }
        }
        reach = next;
        if !reach.iter().any(|&r| r) {
            return false;
        }
    }
    reach[q.len()]
}

fn all_stars(g: &[u8]) -> bool {
    g.iter().all(|&b| b == b'*')
}

/// Whether frame pattern `a` matches every frame `b` matches.
fn frame_covers(a: P<'_>, b: P<'_>) -> bool {
    match (a, b) {
        // `*` matches every name, even one Valgrind does not know (`???`).
        (P::Fun(g) | P::Obj(g), P::Fun(_) | P::Obj(_) | P::Src) if all_stars(g) => true,
        (P::Fun(x), P::Fun(y)) | (P::Obj(x), P::Obj(y)) => glob_covers(x, y),
        _ => false,
    }
}

/// Whether stack pattern `a` matches (as a prefix) every stack `b` matches.
#[must_use]
pub fn stack_covers(a: &[P<'_>], b: &[P<'_>]) -> bool {
    if !a.contains(&P::Ellipsis) {
        // Frame by frame, stopping at the first that differs (most pairs do early).
        return a.len() <= b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| *y != P::Ellipsis && frame_covers(*x, *y));
    }
    // The first frames, when both rules start with one, decide most pairs at once.
    if let (Some(&x), Some(&y)) = (a.first(), b.first())
        && x != P::Ellipsis
        && (y == P::Ellipsis || !frame_covers(x, y))
    {
        return false;
    }
    // ok[i * w + j]: a[i..] covers b[j..].
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    let mut ok = vec![false; (n + 1) * w];
    ok[n * w..].fill(true);
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            ok[i * w + j] = match a[i] {
                P::Ellipsis => ok[(i + 1) * w + j] || (j < m && ok[i * w + j + 1]),
                pa => {
                    j < m
                        && b[j] != P::Ellipsis
                        && frame_covers(pa, b[j])
                        && ok[(i + 1) * w + j + 1]
                }
            };
        }
    }
    ok[0]
}

/// Whether some string matches both globs `p` and `q` (`*`, `?`; no escapes).
#[must_use]
pub fn glob_meets(p: &[u8], q: &[u8]) -> bool {
    // seen[i * w + j]: both automata can be at p[i..], q[j..] after a common prefix.
    let w = q.len() + 1;
    let mut seen = vec![false; (p.len() + 1) * w];
    let mut todo = vec![(0usize, 0usize)];
    while let Some((i, j)) = todo.pop() {
        if std::mem::replace(&mut seen[i * w + j], true) {
            continue;
        }
        if i == p.len() && j == q.len() {
            return true;
        }
        let (a, b) = (p.get(i).copied(), q.get(j).copied());
        // A `*` may match nothing.
        if a == Some(b'*') {
            todo.push((i + 1, j));
        }
        if b == Some(b'*') {
            todo.push((i, j + 1));
        }
        // Both take one common character.
        let (Some(a), Some(b)) = (a, b) else { continue };
        let same = a == b'*' || b == b'*' || a == b'?' || b == b'?' || a == b;
        if same {
            let ni = if a == b'*' { i } else { i + 1 };
            let nj = if b == b'*' { j } else { j + 1 };
            if (ni, nj) != (i, j) {
                todo.push((ni, nj));
            }
        }
    }
    false
}

/// Whether one frame may be matched by both frame patterns (neither is `...`).
fn frame_meets(a: P<'_>, b: P<'_>) -> bool {
    match (a, b) {
        (P::Fun(x), P::Fun(y)) | (P::Obj(x), P::Obj(y)) => glob_meets(x, y),
        // Different fields of the frame, or a source line: both may hold.
        _ => true,
    }
}

/// Whether some stack is matched (as a prefix) by both stack patterns `a` and `b`.
#[must_use]
pub fn stacks_meet(a: &[P<'_>], b: &[P<'_>]) -> bool {
    let w = b.len() + 1;
    let mut seen = vec![false; (a.len() + 1) * w];
    let mut todo = vec![(0usize, 0usize)];
    while let Some((i, j)) = todo.pop() {
        if std::mem::replace(&mut seen[i * w + j], true) {
            continue;
        }
        // One pattern is matched: the frames after it are free for the other.
        if i == a.len() || j == b.len() {
            return true;
        }
        let (x, y) = (a[i], b[j]);
        if x == P::Ellipsis {
            todo.push((i + 1, j));
        }
        if y == P::Ellipsis {
            todo.push((i, j + 1));
        }
        // Both take one common frame.
        let ni = if x == P::Ellipsis { i } else { i + 1 };
        let nj = if y == P::Ellipsis { j } else { j + 1 };
        if (ni, nj) != (i, j) && (x == P::Ellipsis || y == P::Ellipsis || frame_meets(x, y)) {
            todo.push((ni, nj));
        }
    }
    false
}

/// How two rules' extra data relate, given how their leak kinds must: the same `Param`
/// or `FishyValue` data, or none, or leak kinds that pass `leak` (never `none`, which
/// matches nothing). A rule Valgrind crashes on, or data of different shapes: no.
fn extras(a: &Rule, b: &Rule, leak: impl Fn(u8, u8) -> bool) -> bool {
    if a.tool != b.tool || a.kind != b.kind {
        return false;
    }
    match (&a.extra, &b.extra) {
        (RuleExtra::Leak(x), RuleExtra::Leak(y)) => !x.none && !y.none && leak(x.bits, y.bits),
        (RuleExtra::Param(x), RuleExtra::Param(y)) => x == y,
        (RuleExtra::Fishy(Some(x)), RuleExtra::Fishy(Some(y))) => x == y,
        (RuleExtra::None, RuleExtra::None) => true,
        _ => false,
    }
}

/// Whether rules `a` and `b` (of one tool) may match a common error: the same kind and
/// extra data (leak kinds that meet) and stack patterns that meet.
#[must_use]
pub fn rules_meet(a: &Rule, b: &Rule) -> bool {
    extras(a, b, |x, y| x & y != 0) && stacks_meet(&patterns(a), &patterns(b))
}

/// Whether rule `a` matches every error rule `b` matches (same tool and kind, `a`'s leak
/// kinds include `b`'s, `a`'s stack covers `b`'s).
#[must_use]
pub fn rule_covers_rule(a: &Rule, b: &Rule) -> bool {
    extras(a, b, |x, y| y & !x == 0) && stack_covers(&patterns(a), &patterns(b))
}

/// A rule's frame patterns as the algebra sees them.
#[must_use]
pub fn patterns(rule: &Rule) -> Vec<P<'_>> {
    rule.frames.iter().map(P::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_covers(b"*", b"abc"));
        assert!(glob_covers(b"*/libcuda.so*", b"*/libcuda.so.535*"));
        assert!(glob_covers(b"a*", b"ab*"));
        assert!(!glob_covers(b"ab*", b"a*"));
        assert!(glob_covers(b"a?c", b"abc"));
        assert!(glob_covers(b"a?c", b"a?c"));
        assert!(!glob_covers(b"a?c", b"a*c"));
        assert!(!glob_covers(b"abc", b"ab?"));
        assert!(glob_covers(b"_Znw*", b"_Znwm"));
    }

    #[test]
    fn globs_meet() {
        assert!(glob_meets(b"*/libcuda.so*", b"/usr/lib/*"));
        assert!(glob_meets(b"a*c", b"ab*"));
        assert!(glob_meets(b"a?c", b"*b*"));
        // Globs meet more often than their text suggests: `/a/libc.so/libcuda.so` is both.
        assert!(glob_meets(b"*/libcuda.so*", b"*/libc.so*"));
        assert!(!glob_meets(b"*/libcuda.so*", b"/lib/libc.so.6"));
        assert!(!glob_meets(b"abc", b"abd"));
        assert!(!glob_meets(b"a?", b"abc"));
        assert!(glob_meets(b"", b"*"));
        assert!(!glob_meets(b"", b"?"));
    }

    #[test]
    fn stacks_meet_as_prefixes() {
        let s = |v: &[&'static str]| -> Vec<P<'static>> {
            v.iter()
                .map(|f| match f.split_once(':') {
                    Some(("fun", g)) => P::Fun(g.as_bytes()),
                    Some(("obj", g)) => P::Obj(g.as_bytes()),
                    _ => P::Ellipsis,
                })
                .collect()
        };
        // Prefixes: the shorter one matched, the longer goes on.
        assert!(stacks_meet(
            &s(&["fun:malloc"]),
            &s(&["fun:malloc", "obj:*libx*"])
        ));
        assert!(!stacks_meet(&s(&["fun:malloc"]), &s(&["fun:calloc"])));
        // A fun: and an obj: pattern may hold of one frame.
        assert!(stacks_meet(&s(&["obj:*libcuda*"]), &s(&["fun:cuInit"])));
        // `...` lets the other's frames through.
        assert!(stacks_meet(
            &s(&["fun:malloc", "...", "obj:*libcuda*"]),
            &s(&["fun:malloc", "fun:x", "fun:y"])
        ));
        assert!(!stacks_meet(
            &s(&["obj:*libcuda*", "fun:a"]),
            &s(&["obj:/lib/libc.so.6", "..."])
        ));
    }

    /// A frame pattern over a tiny alphabet, so that globs often meet and cover.
    fn pat() -> impl proptest::strategy::Strategy<Value = (u8, String)> {
        use proptest::prelude::*;
        prop_oneof![
            Just((0u8, String::new())),
            "[ab*?]{1,3}".prop_map(|s| (1u8, s)),
            "[ab*]{1,3}".prop_map(|s| (2u8, s)),
        ]
    }

    fn compiled(p: &[(u8, String)]) -> Vec<Pattern> {
        use crate::matcher::wildcard::Glob;
        p.iter()
            .map(|(k, g)| match k {
                0 => Pattern::Ellipsis,
                1 => Pattern::Fun(Glob::new(g.as_bytes())),
                _ => Pattern::Obj(Glob::new(g.as_bytes())),
            })
            .collect()
    }

    proptest::proptest! {
        /// Whenever one pattern is said to cover another, every stack the second matches
        /// the first matches too; whenever two are said not to meet, no stack matches
        /// both (checked with the matcher on concrete stacks).
        #[test]
        fn covers_and_meets_agree_with_the_matcher(
            a in proptest::collection::vec(pat(), 0..4),
            b in proptest::collection::vec(pat(), 0..4),
            stacks in proptest::collection::vec(
                proptest::collection::vec(("[ab]{1,2}", "[ab]{1,2}"), 0..5),
                1..16,
            ),
        ) {
            use crate::matcher::input::{InputFrame, Known, SrcInfo};
            use crate::matcher::stack::stack_matches;
            use crate::matcher::{MatchInput, Truth};
            let (ca, cb) = (compiled(&a), compiled(&b));
            let (pa, pb): (Vec<P<'_>>, Vec<P<'_>>) =
                (ca.iter().map(P::from).collect(), cb.iter().map(P::from).collect());
            let covers = stack_covers(&pa, &pb);
            let meet = stacks_meet(&pa, &pb);
            for s in stacks {
                let input = MatchInput {
                    frames: s
                        .iter()
                        .map(|(f, o)| InputFrame {
                            fun: Known::Yes(f.clone().into_bytes()),
                            obj: Known::Yes(o.clone().into_bytes()),
                            src: Known::Yes(SrcInfo::None),
                        })
                        .collect(),
                    ..MatchInput::default()
                };
                let (ma, mb) = (stack_matches(&ca, &input), stack_matches(&cb, &input));
                if covers && mb == Truth::Yes {
                    proptest::prop_assert_eq!(ma, Truth::Yes, "{:?} covers {:?}", a, b);
                }
                if ma == Truth::Yes && mb == Truth::Yes {
                    proptest::prop_assert!(meet, "{:?} and {:?} both match {:?}", a, b, s);
                }
            }
        }
    }
}
