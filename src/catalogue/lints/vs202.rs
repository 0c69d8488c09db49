//! `VS202` `tool-never-recognised`: its documentation, the one source of `check --explain VS202` and
//! `docs/rules/VS202.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::ToolNeverRecognised,
    code: "VS202",
    name: "tool-never-recognised",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A tool in the list is hidden by an earlier entry that contains its name.",
    why: "`tool_name_present` checks only the first occurrence of the name: in `MemcheckX,Memcheck:` that is inside `MemcheckX`, so Memcheck never sees the record (§1.4).",
    example: "{\n   r\n   MemcheckX,Memcheck:Leak\n   fun:malloc\n}",
    fix: "Remove the entry that contains the tool's name, or put the tool first.",
};
