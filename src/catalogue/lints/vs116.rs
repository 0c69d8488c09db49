//! `VS116` `line-too-long`: its documentation, the one source of `check --explain VS116` and
//! `docs/rules/VS116.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::LineTooLong,
    code: "VS116",
    name: "line-too-long",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A line of 51,200 characters or more.",
    why: "Valgrind's line buffer asserts before reaching 100,000 bytes: `VG_(get_line): line longer than 100000 chars, aborting`. Leading whitespace does not count, trailing whitespace does (§1.1).",
    example: "fun:<51200 characters>",
    fix: "Shorten the pattern with `*`.",
};
