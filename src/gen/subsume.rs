//! Whether one rule hides everything another hides (PRODUCT.md §4: drop rules subsumed
//! by another candidate or by the `-s` files).
//!
//! The check is sound, not complete: when it says *covers*, every error the narrower rule
//! matches (for every truth of what a log hides) is matched by the wider one, because
//! each of the narrower rule's frame patterns is covered, in order, by the wider one's —
//! a wider `...` absorbing any run of them, including the narrower rule's own `...`s, and
//! the wider rule ending first (Valgrind matches prefixes). When it cannot tell, it says
//! no, and both rules are kept.

use super::candidate::{Kinds, Pat, Shape};
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

impl<'a> From<&'a Pat> for P<'a> {
    fn from(p: &'a Pat) -> Self {
        match p {
            Pat::Fun(g) => Self::Fun(g),
            Pat::Obj(g) => Self::Obj(g),
            Pat::Ellipsis => Self::Ellipsis,
        }
    }
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

/// Whether candidate `a` (leak kinds `ak`) hides everything candidate `b` (kinds `bk`)
/// hides.
#[must_use]
pub fn covers(a: &Shape, ak: Kinds, b: &Shape, bk: Kinds) -> bool {
    if a.tool != b.tool || a.kind != b.kind || a.extra != b.extra || (bk & !ak) != 0 {
        return false;
    }
    let pa: Vec<P<'_>> = a.frames.iter().map(P::from).collect();
    let pb: Vec<P<'_>> = b.frames.iter().map(P::from).collect();
    stack_covers(&pa, &pb)
}

/// Whether a rule of a `-s` file hides everything candidate `b` hides.
#[must_use]
pub fn rule_covers(rule: &Rule, b: &Shape, bk: Kinds) -> bool {
    if rule.tool != b.tool || rule.kind != b.kind.as_bytes() {
        return false;
    }
    let extra_ok = match &rule.extra {
        RuleExtra::None => b.extra.is_none() && b.kind != "Leak",
        RuleExtra::Param(p) => b.extra.as_deref() == Some(p.as_slice()),
        RuleExtra::Leak(k) => !k.none && (bk & !k.bits) == 0,
        RuleExtra::Fishy(Some((f, a))) => {
            b.extra.as_deref() == Some([&f[..], b"(", &a[..], b")"].concat().as_slice())
        }
        RuleExtra::Fishy(None) => false,
    };
    if !extra_ok {
        return false;
    }
    let pa: Vec<P<'_>> = rule.frames.iter().map(P::from).collect();
    let pb: Vec<P<'_>> = b.frames.iter().map(P::from).collect();
    stack_covers(&pa, &pb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn shape(frames: &[&str]) -> Shape {
        Shape {
            tool: crate::supp::kinds::Tool::Memcheck,
            kind: "Leak".into(),
            extra: None,
            frames: frames
                .iter()
                .map(|f| Pat::from_line(f.as_bytes()))
                .collect(),
        }
    }

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
    fn stacks() {
        let k = 0b1000;
        let wide = shape(&["fun:malloc", "obj:*/libtorch_cpu.so*"]);
        let narrow = shape(&[
            "fun:malloc",
            "obj:*/libtorch_cpu.so*",
            "...",
            "fun:call_init",
        ]);
        assert!(covers(&wide, k, &narrow, k));
        assert!(!covers(&narrow, k, &wide, k));
        // Kinds: the wider rule must take every kind the narrower takes.
        assert!(!covers(&wide, 0b1000, &narrow, 0b1001));
        assert!(covers(&wide, 0b1001, &narrow, 0b0001));
        // `...` in the wider rule absorbs frames and `...`s.
        let e = shape(&["fun:calloc", "...", "fun:cudaGetErrorString"]);
        let f = shape(&[
            "fun:calloc",
            "...",
            "obj:*/libcudart.so*",
            "...",
            "fun:cudaGetErrorString",
        ]);
        assert!(covers(&e, k, &f, k));
        assert!(!covers(&f, k, &e, k));
        // A `...` of the narrower rule is covered only by a `...`.
        let g = shape(&["fun:calloc", "obj:*"]);
        assert!(!covers(&g, k, &e, k));
        assert!(covers(&shape(&["fun:calloc", "..."]), k, &e, k));
        // `obj:*` covers a `fun:` frame.
        assert!(covers(
            &shape(&["fun:calloc", "obj:*", "fun:x"]),
            k,
            &shape(&["fun:calloc", "fun:y", "fun:x"]),
            k
        ));
    }

    /// Frames for the property: names from a tiny alphabet so that globs meet.
    fn pat() -> impl Strategy<Value = Pat> {
        prop_oneof![
            Just(Pat::Ellipsis),
            "[ab*]{1,3}".prop_map(|s| Pat::Fun(s.into_bytes())),
            "[ab*]{1,3}".prop_map(|s| Pat::Obj(s.into_bytes())),
        ]
    }

    fn stack() -> impl Strategy<Value = Vec<(bool, Vec<u8>)>> {
        prop::collection::vec(
            (any::<bool>(), "[ab]{1,2}".prop_map(String::into_bytes)),
            0..5,
        )
    }

    proptest! {
        /// Sound: whenever `a` covers `b`, every stack `b` matches is matched by `a`
        /// (checked with the matcher on concrete stacks).
        #[test]
        fn covering_is_sound(
            a in prop::collection::vec(pat(), 0..4),
            b in prop::collection::vec(pat(), 0..4),
            stacks in prop::collection::vec(stack(), 1..12),
        ) {
            use crate::matcher::input::{InputFrame, Known, SrcInfo};
            use crate::matcher::stack::stack_matches;
            use crate::matcher::{MatchInput, Truth};
            let sa = Shape { tool: crate::supp::kinds::Tool::Memcheck, kind: "Cond".into(), extra: None, frames: a };
            let sb = Shape { frames: b, ..sa.clone() };
            if covers(&sa, 0, &sb, 0) {
                let ca = crate::r#gen::candidate::compile(&sa);
                let cb = crate::r#gen::candidate::compile(&sb);
                for s in stacks {
                    let input = MatchInput {
                        frames: s.iter().map(|(is_fun, name)| InputFrame {
                            fun: Known::Yes(if *is_fun { name.clone() } else { b"???".to_vec() }),
                            obj: Known::Yes(if *is_fun { b"x".to_vec() } else { name.clone() }),
                            src: Known::Yes(SrcInfo::None),
                        }).collect(),
                        ..MatchInput::default()
                    };
                    if stack_matches(&cb, &input) == Truth::Yes {
                        prop_assert_eq!(stack_matches(&ca, &input), Truth::Yes);
                    }
                }
            }
        }
    }
}
