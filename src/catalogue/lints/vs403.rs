//! `VS403` `expired`: its documentation, the one source of `check --explain VS403` and
//! `docs/rules/VS403.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::Expired,
    code: "VS403",
    name: "expired",
    severity: Severity::Error,
    fatal_in_valgrind: false,
    summary: "A rule's `expires` date has passed.",
    why: "Whoever wrote the rule asked for it to be looked at again by that date: the library it hides may have been fixed, and a suppression that outlives its reason hides real bugs. The date is compared with today (UTC; `VGSUPP_TODAY=YYYY-MM-DD` sets it).",
    example: "rules:\n  cuda.Param.ioctl:\n    expires: 2020-01-31",
    fix: "Check that the rule still matches only third-party noise (`vgsupp match`), then move `expires` forward; or delete the rule.",
};
