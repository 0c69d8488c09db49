//! `VS115` `helgrind-free-mem-lock`: its documentation, the one source of `check --explain VS115` and
//! `docs/rules/VS115.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::HelgrindFreeMemLock,
    code: "VS115",
    name: "helgrind-free-mem-lock",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A `Helgrind:FreeMemLock` record.",
    why: "Helgrind accepts the kind but has no match case for it: the first Helgrind error compared with it triggers an assertion and Helgrind aborts (§1.5, H02).",
    example: "{\n   r\n   Helgrind:FreeMemLock\n   fun:f\n}",
    fix: "Delete the record; FreeMemLock errors cannot be suppressed.",
};
