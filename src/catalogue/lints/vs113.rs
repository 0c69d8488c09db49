//! `VS113` `only-wildcard-frames`: its documentation, the one source of `check --explain VS113` and
//! `docs/rules/VS113.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::OnlyWildcardFrames,
    code: "VS113",
    name: "only-wildcard-frames",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "Every frame Valgrind keeps is `...`.",
    why: "After truncation to `--num-callers`, at least one kept frame must be `fun:`, `obj:` or `src:`: `suppression must contain at least one location line which is not \"...\"` (§1.7).",
    example: "{\n   r\n   Memcheck:Cond\n   ...\n}",
    fix: "Add a concrete frame near the top of the record.",
};
