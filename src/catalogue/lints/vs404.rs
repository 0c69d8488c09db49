//! `VS404` `expiring-soon`: its documentation, the one source of `check --explain VS404` and
//! `docs/rules/VS404.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::ExpiringSoon,
    code: "VS404",
    name: "expiring-soon",
    severity: Severity::Info,
    fatal_in_valgrind: false,
    summary: "A rule expires within the next days (14 by default; `--expiring-within`, `sidecar.expiring-within` in vgsupp.yaml).",
    why: "A notice ahead of VS403, so that the review can be planned before the check fails.",
    example: "rules:\n  cuda.Param.ioctl:\n    expires: 2026-06-10   # and today is 2026-06-01",
    fix: "Review the rule and move `expires` forward, or let it expire.",
};
