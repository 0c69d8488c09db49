//! `VS503` `unverifiable-rule`: its documentation, the one source of `check --explain VS503` and
//! `docs/rules/VS503.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::UnverifiableRule,
    code: "VS503",
    name: "unverifiable-rule",
    severity: Severity::Info,
    fatal_in_valgrind: false,
    summary: "No log exercised what the rule targets with whole evidence.",
    why: "The logs given never loaded its objects, never ran its tool or program, or were cut, or hid errors it could match: they say nothing about whether the rule is still needed (CUDA rules against CPU-only logs). `prune` never removes such a rule.",
    example: "{\n   cuda-only\n   Memcheck:Cond\n   obj:*/libcuda.so*\n}",
    fix: "Add logs of the configuration the rule is for (a CUDA runner), or leave it.",
};
