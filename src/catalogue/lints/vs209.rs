//! `VS209` `leak-kinds-none`: its documentation, the one source of `check --explain VS209` and
//! `docs/rules/VS209.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::LeakKindsNone,
    code: "VS209",
    name: "leak-kinds-none",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "`match-leak-kinds: none`.",
    why: "The empty set is legal but the record then never matches anything (§1.6, L05).",
    example: "   match-leak-kinds: none",
    fix: "Name the kinds to suppress, or delete the record.",
};
