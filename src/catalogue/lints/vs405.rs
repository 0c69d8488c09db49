//! `VS405` `fingerprint-drift`: its documentation, the one source of `check --explain VS405` and
//! `docs/rules/VS405.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::FingerprintDrift,
    code: "VS405",
    name: "fingerprint-drift",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule was edited since its provenance was recorded: its `fingerprint` no longer matches.",
    why: "The fingerprint is a hash of the rule's canonical body (tool line, extra line and frames as `vgsupp fmt` writes them; the name, comments and layout do not count). A different hash means the rule now matches other errors than the ones its `reason` and `generated.from` logs describe.",
    example: "rules:\n  r:\n    fingerprint: 000000000000",
    fix: "Check that the reason still holds for the edited rule, then write the fingerprint the message gives.",
};
