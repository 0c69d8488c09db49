//! `VS901` `not-formatted`: its documentation, the one source of `check --explain VS901` and
//! `docs/rules/VS901.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::NotFormatted,
    code: "VS901",
    name: "not-formatted",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "The file is not in canonical format.",
    why: "A canonical layout keeps diffs of suppression files small and reviewable. Formatting never changes what Valgrind loads.",
    example: "  {\n  r\n  Memcheck:Leak\n  fun:malloc\n  }",
    fix: "Run `vgsupp fmt`.",
};
