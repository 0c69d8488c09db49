//! `VS402` `orphan-provenance`: its documentation, the one source of `check --explain VS402` and
//! `docs/rules/VS402.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::OrphanProvenance,
    code: "VS402",
    name: "orphan-provenance",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "The sidecar has an entry for a rule the suppression file does not have.",
    why: "The rule was renamed or deleted and its provenance stayed behind; it no longer describes anything, and a later rule of that name would inherit it. Removed rules belong under `retired:` (`vgsupp prune --write` moves them there).",
    example: "a.supp.yaml:\nversion: 1\nrules:\n  renamed-long-ago: {reason: …}",
    fix: "Rename the entry to the rule's new name, or move it under `retired:` with the date and why.",
};
