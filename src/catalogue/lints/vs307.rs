//! `VS307` `matches-first-party`: its documentation, the one source of `check --explain VS307` and
//! `docs/rules/VS307.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::MatchesFirstParty,
    code: "VS307",
    name: "matches-first-party",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule's `obj:` or `src:` pattern matches the project's own code.",
    why: "Suppressions are for other people's code. A rule that matches an object or source the project declares first-party (`first-party:` in vgsupp.yaml) can hide the project's own bugs — the ones Memcheck is run to find.",
    example: "{\n   mine\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n   obj:*/libmy_ext.so\n}",
    fix: "Fix the bug instead, or, for a deliberate leak, keep the rule with a `keep:` reason in its sidecar; check `first-party:` if the object is not yours.",
};
