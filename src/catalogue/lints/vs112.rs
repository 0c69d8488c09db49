//! `VS112` `bad-location-line`: its documentation, the one source of `check --explain VS112` and
//! `docs/rules/VS112.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::BadLocationLine,
    code: "VS112",
    name: "bad-location-line",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A line in a frame list is not `fun:`, `obj:`, `src:` or `...`.",
    why: "Valgrind stops with `location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\"`. `....`, `fun` without colon, a `{` because the previous `}` is missing, or `} x` all cause it (§1.7).",
    example: "{\n   r\n   Memcheck:Cond\n   fun:f\n   at: g\n}",
    fix: "Fix the frame line; check for a missing `}` above a `{`.",
};
