//! `VS401` `no-provenance`: its documentation, the one source of `check --explain VS401` and
//! `docs/rules/VS401.md`.

use super::super::{Lint, LintMeta, Severity};

/// The entry.
pub const META: LintMeta = LintMeta {
    lint: Lint::NoProvenance,
    code: "VS401",
    name: "no-provenance",
    severity: Severity::Warning,
    fatal_in_valgrind: false,
    summary: "A rule has no entry in the file's sidecar (`NAME.supp.yaml`).",
    why: "Once a suppression file has a sidecar, every rule should say why it exists, who owns it and when to look at it again; a rule without an entry is one nobody can judge later. `vgsupp gen` writes the entry for the rules it generates.",
    example: "a.supp with rules `x` and `y`; a.supp.yaml:\nversion: 1\nrules:\n  x: {reason: libcuda ioctl buffers}",
    fix: "Add an entry under `rules:` keyed by the rule's name, with at least a `reason`.",
};
