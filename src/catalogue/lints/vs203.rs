//! `VS203` `missing-name`: its documentation, the one source of `check --explain VS203` and
//! `docs/rules/VS203.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::MissingName,
    code: "VS203",
    name: "missing-name",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "The record has no name line, so Valgrind misreads it and skips it.",
    why: "Blank lines are skipped, so without a name the `TOOL:KIND` line becomes the name and the first frame becomes the tool line (tool `fun`), which matches no tool: the record is silently ignored (§1.3, P49).",
    example: "{\n   Memcheck:Leak\n   fun:malloc\n}",
    fix: "Add a name line after `{`.",
};
