//! `VS207` `wildcard-in-extra`: its documentation, the one source of `check --explain VS207` and
//! `docs/rules/VS207.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::WildcardInExtra,
    code: "VS207",
    name: "wildcard-in-extra",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A `Param` or `FishyValue` extra line contains `*` or `?`.",
    why: "These strings are compared exactly (`strcmp`), without wildcards: `write(*)` matches nothing (§1.6, K02).",
    example: "   Memcheck:Param\n   write(*)",
    fix: "Write the exact parameter string from the log, e.g. `write(buf)`.",
};
