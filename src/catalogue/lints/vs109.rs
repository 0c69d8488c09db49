//! `VS109` `eof-in-stack-trace`: its documentation, the one source of `check --explain VS109` and
//! `docs/rules/VS109.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::EofInStackTrace,
    code: "VS109",
    name: "eof-in-stack-trace",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "The file ends inside a record's frame list.",
    why: "A record needs its closing `}`: `unexpected end-of-file (when reading stack trace)` (§1.7).",
    example: "{\n   r\n   Memcheck:Cond\n   fun:f",
    fix: "Close the record with `}`.",
};
