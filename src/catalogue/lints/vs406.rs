//! `VS406` `missing-sidecar-field`: its documentation, the one source of `check --explain VS406` and
//! `docs/rules/VS406.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::MissingSidecarField,
    code: "VS406",
    name: "missing-sidecar-field",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule's sidecar entry lacks a field the project requires (`reason` by default; `sidecar.required` in vgsupp.yaml).",
    why: "Required fields are the project's policy for reviewable suppressions, e.g. an `owner` to ask and an `expires` date for every rule.",
    example: "rules:\n  r: {owner: \"@team\"}",
    fix: "Add the field to the rule's entry.",
};
