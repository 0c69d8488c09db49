//! `VS501` `stale-rule`: its documentation, the one source of `check --explain VS501` and
//! `docs/rules/VS501.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::StaleRule,
    code: "VS501",
    name: "stale-rule",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "Nothing in the logs matched the rule, and the logs exercised what it targets.",
    why: "From `check --logs` (the evidence of `vgsupp prune`): the rule's tool ran, a leak search ran for a leak rule, an object matching each of its `obj:` patterns was loaded, and no error — shown, or hidden by another rule that this one could have matched — was its. It hides nothing in these runs.",
    example: "{\n   libfoo-old-double-free\n   Memcheck:Free\n   fun:free\n   obj:*/libfoo.so\n}",
    fix: "Remove it (`vgsupp prune --write` removes it with its comments and retires its provenance), or give it a `keep:` reason in its sidecar.",
};
