//! `VS110` `missing-stack-trace`: its documentation, the one source of `check --explain VS110` and
//! `docs/rules/VS110.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::MissingStackTrace,
    code: "VS110",
    name: "missing-stack-trace",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A record has no frame lines.",
    why: "Valgrind requires at least one `fun:`, `obj:`, `src:` or `...` line: `missing stack trace` (§1.7).",
    example: "{\n   r\n   Memcheck:Cond\n}",
    fix: "Add the frames the rule should match.",
};
