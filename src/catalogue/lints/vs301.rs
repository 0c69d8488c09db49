//! `VS301` `placeholder-name`: its documentation, the one source of `check --explain VS301` and
//! `docs/rules/VS301.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::PlaceholderName,
    code: "VS301",
    name: "placeholder-name",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule is still named `insert_a_suppression_name_here`.",
    why: "Valgrind's `--gen-suppressions` writes this placeholder; a file full of rules with one name cannot say which rule hid what (`-v` and XML counts go by name), and nobody can tell why each exists.",
    example: "{\n   <insert_a_suppression_name_here>\n   Memcheck:Cond\n   obj:*/libfoo.so\n}",
    fix: "Name the rule after what it hides (`libfoo.Cond.init`), and record why in its sidecar.",
};
