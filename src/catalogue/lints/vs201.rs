//! `VS201` `unknown-tool`: its documentation, the one source of `check --explain VS201` and
//! `docs/rules/VS201.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::UnknownTool,
    code: "VS201",
    name: "unknown-tool",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "The tool list names a tool Valgrind does not know (or one that reads no suppressions).",
    why: "Tool names are case-sensitive and compared without trimming: `memcheck:`, `Memcheck :`, `Helgrind, Memcheck:` and `DRD:` match no tool, so Valgrind silently skips the record for that tool (§1.4). Tools without errors (Massif, Callgrind, …) never read suppression files.",
    example: "{\n   r\n   memcheck:Leak\n   fun:malloc\n}",
    fix: "Spell the tool as Valgrind does: `Memcheck`, `Helgrind`, `drd`; no spaces around commas.",
};
