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
pub use crate::matcher::algebra::{P, glob_covers, stack_covers};
use crate::matcher::rule::{Rule, RuleExtra};

impl<'a> From<&'a Pat> for P<'a> {
    fn from(p: &'a Pat) -> Self {
        match p {
            Pat::Fun(g) => Self::Fun(g),
            Pat::Obj(g) => Self::Obj(g),
            Pat::Ellipsis => Self::Ellipsis,
        }
    }
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
