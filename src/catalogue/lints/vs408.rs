//! `VS408` `invalid-sidecar-value`: its documentation, the one source of `check --explain VS408` and
//! `docs/rules/VS408.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::InvalidSidecarValue,
    code: "VS408",
    name: "invalid-sidecar-value",
    severity: Severity::Error,
    fatal_in_valgrind: false,
    summary: "A sidecar value does not fit the schema: a wrong type, a date that is not `YYYY-MM-DD`, a negative count, an unknown `version`.",
    why: "vgsupp reads the value as absent (and keeps it on rewrite), so whatever it should say (an expiry, an owner) is not in force. With an unknown `version` no rule of the file is read.",
    example: "rules:\n  r:\n    expires: end of March",
    fix: "Write the value as the schema says (docs/formats.md).",
};
