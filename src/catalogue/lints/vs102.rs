//! `VS102` `unexpected-close-brace`: its documentation, the one source of `check --explain VS102` and
//! `docs/rules/VS102.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::UnexpectedCloseBrace,
    code: "VS102",
    name: "unexpected-close-brace",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A record ends (or the file ends) where its name should be.",
    why: "Valgrind reads the first non-blank, non-comment line after `{` as the name; `}` there (or end of file) gives `unexpected '}'` (§1.3).",
    example: "{\n}",
    fix: "Give the record a name line, or delete the empty braces.",
};
