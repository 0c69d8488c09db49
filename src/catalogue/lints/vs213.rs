//! `VS213` `frames-beyond-num-callers`: its documentation, the one source of `check --explain VS213` and
//! `docs/rules/VS213.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::FramesBeyondNumCallers,
    code: "VS213",
    name: "frames-beyond-num-callers",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A record has more frames than `--num-callers`.",
    why: "Valgrind drops frames beyond `--num-callers` at load time without reading them (and, when `}` is missing, swallows the next records); they never take part in matching (§1.7).",
    example: "(13 frame lines with the default --num-callers=12)",
    fix: "Cut the record to the frames that matter; Valgrind matches prefixes.",
};
