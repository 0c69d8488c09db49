//! `VS107` `eof-when-skipping`: its documentation, the one source of `check --explain VS107` and
//! `docs/rules/VS107.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::EofWhenSkipping,
    code: "VS107",
    name: "eof-when-skipping",
    severity: Severity::Error,
    fatal_in_valgrind: true,
    summary: "A record for another tool has no closing `}` before the end of the file.",
    why: "Valgrind skips records for other tools by reading up to a line that is exactly `}`; end of file first gives `unexpected end-of-file (when skipping suppression)` (§1.4).",
    example: "{\n   r\n   Helgrind:Race\n   fun:f",
    fix: "Close the record with `}`.",
};
