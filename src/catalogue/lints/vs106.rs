//! `VS106` `unknown-tool-kind`: its documentation, the one source of `check --explain VS106` and
//! `docs/rules/VS106.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::UnknownToolKind,
    code: "VS106",
    name: "unknown-tool-kind",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "The running tool does not know the record's kind.",
    why: "When the tool list names the running tool, its `recognised_suppression` must accept the kind, or loading stops with `unknown tool suppression type`. Kinds are case-sensitive, the kind is everything after the first `:` (so `Memcheck: Addr4` and `Memcheck:Addr4:x` are wrong), some kinds are newer than the target release, and a record listing several tools must be valid for each (§1.4, §1.5).",
    example: "{\n   r\n   Memcheck,Helgrind:Addr4\n   fun:f\n}",
    fix: "Fix the kind's spelling, drop tools the kind does not belong to, or target a newer release.",
};
