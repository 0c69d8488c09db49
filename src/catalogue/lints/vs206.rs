//! `VS206` `obj-not-a-path`: its documentation, the one source of `check --explain VS206` and
//! `docs/rules/VS206.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::ObjNotAPath,
    code: "VS206",
    name: "obj-not-a-path",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "An `obj:` pattern starts with neither `/` nor `*`.",
    why: "Object names are absolute, symlink-resolved paths, so such a pattern can only match the unknown-object name `???`; `obj:libc.so.6` never matches (§2.5, M15).",
    example: "   obj:libcuda.so.1",
    fix: "Use `obj:*/libcuda.so*`.",
};
