//! `VS208` `core-mem-never-matches`: its documentation, the one source of `check --explain VS208` and
//! `docs/rules/VS208.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::CoreMemNeverMatches,
    code: "VS208",
    name: "core-mem-never-matches",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A `Memcheck:CoreMem` record.",
    why: "Valgrind accepts the kind but reads no string for it and compares the error's string with NULL, which is never equal: it can never match (§1.5).",
    example: "{\n   r\n   Memcheck:CoreMem\n   fun:f\n}",
    fix: "Delete the record.",
};
