//! `VS304` `subsumed-rule`: its documentation, the one source of `check --explain VS304` and
//! `docs/rules/VS304.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::SubsumedRule,
    code: "VS304",
    name: "subsumed-rule",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "Another rule matches every error this rule matches.",
    why: "Decided on the pattern languages, not the text: each of this rule's frame patterns is covered, in order, by the other's (a `...` absorbing any run of frames, the other rule ending first). Whichever Valgrind tries first, this rule adds nothing the other does not hide.",
    example: "{\n   wide\n   Memcheck:Leak\n   fun:malloc\n   ...\n}\n{\n   narrow\n   Memcheck:Leak\n   fun:malloc\n   fun:strdup\n}",
    fix: "Delete the narrower rule, or narrow the wider one if it hides too much.",
};
