//! `VS211` `demangled-name`: its documentation, the one source of `check --explain VS211` and
//! `docs/rules/VS211.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::DemangledName,
    code: "VS211",
    name: "demangled-name",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A `fun:` pattern looks like a demangled C++ name.",
    why: "Valgrind matches `fun:` against mangled symbol names (`_ZN2ns3Box3getEi`), whatever `--demangle` says; `ns::Box::get(int)` never matches (§2.5, C04). Inlined frames are the exception: they use the plain unqualified name.",
    example: "   fun:ns::Box::get(int) const",
    fix: "Use the mangled name (from `--gen-suppressions=all` or `--demangle=no` output), or a wildcard such as `_ZN2ns3Box3get*`.",
};
