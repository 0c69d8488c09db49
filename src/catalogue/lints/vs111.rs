//! `VS111` `too-many-callers`: its documentation, the one source of `check --explain VS111` and
//! `docs/rules/VS111.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::TooManyCallers,
    code: "VS111",
    name: "too-many-callers",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A record has more than 500 frames within `--num-callers`.",
    why: "`VG_DEEPEST_BACKTRACE` is 500; frame 501 gives `too many callers in stack trace` when `--num-callers` is 500 (with fewer callers the extra frames are dropped instead; §1.7).",
    example: "(501 frame lines with --num-callers=500)",
    fix: "Cut the record: Valgrind matches prefixes, so the top frames are enough.",
};
