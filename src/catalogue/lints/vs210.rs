//! `VS210` `core-kind-not-in-version`: its documentation, the one source of `check --explain VS210` and
//! `docs/rules/VS210.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::CoreKindNotInVersion,
    code: "VS210",
    name: "core-kind-not-in-version",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A core suppression written for another Valgrind release.",
    why: "`CoreError:` records exist only from 3.23 (earlier releases skip them silently); `core:` is fatal under Memcheck/Helgrind up to 3.22 and silently skipped from 3.23 (§1.4, §6).",
    example: "{\n   fd\n   CoreError:FdNotClosed\n   fun:open\n}",
    fix: "Target the release that reads it with `--valgrind`, or remove the record.",
};
