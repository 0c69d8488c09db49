//! `VS212` `src-with-directory`: its documentation, the one source of `check --explain VS212` and
//! `docs/rules/VS212.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::SrcWithDirectory,
    code: "VS212",
    name: "src-with-directory",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A `src:` pattern contains `/`.",
    why: "`src:` compares only the file-name component: `src:/full/path/errs.c:11` and `src:sub/errs.c` never match (§2.5, M22).",
    example: "   src:/home/dev/ext/leaky_ext.cpp:11",
    fix: "Write the file name only: `src:leaky_ext.cpp:11`.",
};
