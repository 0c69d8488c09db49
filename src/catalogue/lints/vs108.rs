//! `VS108` `bad-extra-line`: its documentation, the one source of `check --explain VS108` and
//! `docs/rules/VS108.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::BadExtraLine,
    code: "VS108",
    name: "bad-extra-line",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A Memcheck `Param`, `Leak` or `FishyValue` record has a missing or malformed extra line.",
    why: "`Param` needs the syscall-parameter string before the frames; a `Leak` line that is not a location line must be exactly `match-leak-kinds:` followed by a comma list of `definite`, `indirect`, `possible`, `reachable` (or `all`/`none` alone) without spaces; `FishyValue` needs `FUNC(ARG)`. Otherwise: `bad or missing extra suppression info` (§1.6). A `src:` line is not a location line, so it cannot directly follow `Memcheck:Leak`.",
    example: "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: definite, possible\n   fun:malloc\n}",
    fix: "Write the extra line Valgrind expects, e.g. `match-leak-kinds: definite,possible`.",
};
