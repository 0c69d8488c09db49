//! `VS502` `shadowed-rule`: its documentation, the one source of `check --explain VS502` and
//! `docs/rules/VS502.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::ShadowedRule,
    code: "VS502",
    name: "shadowed-rule",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "The rule matches errors, but an earlier rule surely takes each of them.",
    why: "Valgrind credits the first rule of its search order that matches. In the logs, every error this rule matches was surely taken by another rule first (reported only when that is certain), so this rule never hides anything.",
    example: "{\n   narrow\n   Memcheck:Cond\n   fun:foo_cond\n   fun:main\n}\n{\n   wide\n   Memcheck:Cond\n   obj:*/libfoo.so\n}",
    fix: "Remove the shadowed rule, or narrow the rule that shadows it.",
};
