//! `VS306` `versioned-object`: its documentation, the one source of `check --explain VS306` and
//! `docs/rules/VS306.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::VersionedObject,
    code: "VS306",
    name: "versioned-object",
    severity: Severity::Info,
    fatal_in_valgrind: false,
    summary: "An `obj:` pattern names a versioned soname or a distribution-specific path.",
    why: "`obj:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05` stops matching at the next driver upgrade or on another distribution, and the rule goes stale silently while the errors come back.",
    example: "{\n   cuda\n   Memcheck:Cond\n   obj:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05\n}",
    fix: "Use a version-free glob: `obj:*/libcuda.so*`.",
};
