//! `VS103` `eof-expecting-tool`: its documentation, the one source of `check --explain VS103` and
//! `docs/rules/VS103.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::EofExpectingTool,
    code: "VS103",
    name: "eof-expecting-tool",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "The file ends after a record's name.",
    why: "Valgrind needs a `TOOL:KIND` line after the name: `unexpected end-of-file (expecting tool:suppr)`.",
    example: "{\n   my-rule",
    fix: "Complete the record or remove it.",
};
