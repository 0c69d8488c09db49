//! `VS303` `exact-duplicate`: its documentation, the one source of `check --explain VS303` and
//! `docs/rules/VS303.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::ExactDuplicate,
    code: "VS303",
    name: "exact-duplicate",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule matches exactly what an earlier rule matches (the same body).",
    why: "Two records with the same tool, kind, extra line and frames (whatever their names and layout) match the same errors; Valgrind credits only one of them, and the other is dead weight that still has to be reviewed.",
    example: "{\n   a\n   Memcheck:Leak\n   fun:malloc\n}\n{\n   b\n   Memcheck:Leak\n   fun:malloc\n}",
    fix: "Delete the duplicate (keep the better-named one, and merge their sidecar entries).",
};
