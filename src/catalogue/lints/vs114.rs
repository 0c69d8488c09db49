//! `VS114` `fishy-value-without-extra`: its documentation, the one source of `check --explain VS114` and
//! `docs/rules/VS114.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::FishyValueWithoutExtra,
    code: "VS114",
    name: "fishy-value-without-extra",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A `Memcheck:FishyValue` record has no `FUNC(ARG)` line.",
    why: "It loads, but Valgrind crashes (SIGSEGV, \"the 'impossible' happened\") as soon as a FishyValue error is compared with it (§1.6, K08).",
    example: "{\n   r\n   Memcheck:FishyValue\n   fun:malloc\n}",
    fix: "Add the extra line, e.g. `malloc(size)`.",
};
