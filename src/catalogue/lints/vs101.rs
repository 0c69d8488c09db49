//! `VS101` `expected-open-brace`: its documentation, the one source of `check --explain VS101` and
//! `docs/rules/VS101.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::ExpectedOpenBrace,
    code: "VS101",
    name: "expected-open-brace",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A line outside any record is not `{`.",
    why: "Between records Valgrind accepts only blank lines, comments and `{` alone on its line. Anything else (`{ name`, junk after `}`) stops loading with `expected '{' or end-of-file` (valgrind-semantics.md §1.2).",
    example: "{ my-rule\n   Memcheck:Leak\n   fun:malloc\n}",
    fix: "Put `{` alone on its line; move text after `}` into a `#` comment on its own line.",
};
