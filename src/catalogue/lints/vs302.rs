//! `VS302` `duplicate-name`: its documentation, the one source of `check --explain VS302` and
//! `docs/rules/VS302.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::DuplicateName,
    code: "VS302",
    name: "duplicate-name",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "Two rules have the same name.",
    why: "Valgrind's counts name rules only by name in XML (`<suppcounts>`) and by name and line in `-v` text logs: with two rules of one name, which one hid an error is ambiguous, and a sidecar entry (keyed by name) describes both.",
    example: "{\n   r\n   Memcheck:Cond\n   obj:*/liba.so\n}\n{\n   r\n   Memcheck:Cond\n   obj:*/libb.so\n}",
    fix: "Rename one of them.",
};
