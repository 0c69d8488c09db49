//! `VS104` `malformed-tool-line`: its documentation, the one source of `check --explain VS104` and
//! `docs/rules/VS104.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::MalformedToolLine,
    code: "VS104",
    name: "malformed-tool-line",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "The line after the name has no `:`.",
    why: "Valgrind splits that line at its first `:` into the tool list and the kind; without a colon it stops with `malformed 'tool1,tool2,...:supp' line` (§1.4). A missing name line often causes this too.",
    example: "{\n   my-rule\n   Memcheck\n   fun:f\n}",
    fix: "Write `Memcheck:KIND` (or `Helgrind:`/`drd:`).",
};
