//! `VS204` `space-after-colon`: its documentation, the one source of `check --explain VS204` and
//! `docs/rules/VS204.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::SpaceAfterColon,
    code: "VS204",
    name: "space-after-colon",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A frame pattern starts with whitespace (`fun: foo`).",
    why: "There is no space after the colon in Valgrind's syntax: the pattern ` foo` includes the space and never matches (§1.7, M32).",
    example: "   fun: malloc",
    fix: "Remove the whitespace after `fun:`/`obj:`/`src:`.",
};
