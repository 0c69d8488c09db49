//! `VS105` `unknown-core-kind`: its documentation, the one source of `check --explain VS105` and
//! `docs/rules/VS105.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::UnknownCoreKind,
    code: "VS105",
    name: "unknown-core-kind",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A core suppression (`core:` up to 3.22, `CoreError:` from 3.23) with a kind the release does not define.",
    why: "Tools that need core errors check the core pseudo-tool before their own name. Valgrind 3.19–3.22 define no core kinds at all, so any `core:` record is fatal under Memcheck and Helgrind; 3.23+ know `FdBadClose`, `FdNotClosed` and (3.25+) `FdBadUse` (§1.4, §1.5).",
    example: "{\n   fd\n   CoreError:FdLeak\n   fun:open\n}",
    fix: "Use a kind the target release knows, or target the release that introduced it with `--valgrind`.",
};
