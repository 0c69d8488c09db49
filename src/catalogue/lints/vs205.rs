//! `VS205` `trailing-comment`: its documentation, the one source of `check --explain VS205` and
//! `docs/rules/VS205.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::TrailingComment,
    code: "VS205",
    name: "trailing-comment",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A frame line ends with what looks like a `# comment`.",
    why: "Valgrind has no trailing comments: `fun:foo # c` is the pattern `foo # c`, which never matches `foo` (§1.1, P06).",
    example: "   fun:malloc # from libfoo",
    fix: "Move the comment to its own line above.",
};
