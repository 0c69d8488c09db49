//! `VS305` `overly-broad`: its documentation, the one source of `check --explain VS305` and
//! `docs/rules/VS305.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::OverlyBroad,
    code: "VS305",
    name: "overly-broad",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule hides far more than the error it was written for.",
    why: "Three shapes hide real bugs with the noise: a `Cond`, `Value` or `Addr` rule whose stack is `...` and one `obj:` glob (every such error anywhere under that library, your own code's calls into it included); a leak rule without `match-leak-kinds:` (it hides definite leaks as well as reachable ones); a rule whose stack ends in `...` then `fun:main` (it matches any stack that reaches main).",
    example: "{\n   everything-in-libfoo\n   Memcheck:Addr4\n   ...\n   obj:*/libfoo.so\n}",
    fix: "Anchor the rule at the library's first frames (`obj:` at the top, a stable entry point below); give leak rules `match-leak-kinds:`; stop a stack at the frame that decides the error.",
};
