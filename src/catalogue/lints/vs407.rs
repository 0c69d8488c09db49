//! `VS407` `unreadable-sidecar`: its documentation, the one source of `check --explain VS407` and
//! `docs/rules/VS407.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::UnreadableSidecar,
    code: "VS407",
    name: "unreadable-sidecar",
    severity: Severity::Error,
    fatal_in_valgrind: false,
    summary: "The sidecar is not YAML vgsupp accepts.",
    why: "Syntax errors, a file that is not a mapping, and what vgsupp refuses on purpose: aliases (`*name`, which can expand a small file into gigabytes), duplicate keys, more than one document, nesting deeper than 16 levels, values over 64 KiB, files over 32 MiB. Nothing else in the sidecar is checked then.",
    example: "version: 1\nrules:\n  a: &x {reason: r}\n  b: *x",
    fix: "Fix the YAML at the line given; write shared values out instead of using aliases.",
};
