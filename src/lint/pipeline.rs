//! `vgsupp check`'s pipeline over many files, as a library function: each suppression
//! file read as Valgrind's loader reads it and linted ([`super::check_source`]), its
//! sidecar checked against it when it has one ([`super::provenance`]), the project's
//! severities applied. The caller reads the files (and the clock, for expiry); nothing
//! here does I/O.

use crate::diagnostic::{Diagnostic, Report};
use crate::lint::maintenance;
use crate::lint::provenance::{self, Pair, ProvenanceOptions};
use crate::lint::severity::Severities;
use crate::lint::{CheckOptions, check_source};
use crate::origin::PathGlobs;
use crate::sidecar::decode;

/// One suppression file to check.
#[derive(Debug, Clone)]
pub struct CheckInput {
    /// How diagnostics name it.
    pub name: String,
    /// Its bytes.
    pub source: Vec<u8>,
    /// Its sidecar (`NAME.supp.yaml`), when it has one: the name diagnostics give it, and
    /// its bytes.
    pub sidecar: Option<(String, Vec<u8>)>,
}

/// What the pipeline is asked for besides the loader's options.
#[derive(Debug, Clone, Default)]
pub struct Checks {
    /// How sidecars are checked (today, notice before expiry, required fields); `None`:
    /// no sidecar is checked.
    pub provenance: Option<ProvenanceOptions>,
    /// The severities the project sets (`lints:` of vgsupp.yaml).
    pub severities: Severities,
    /// Keep each file's text in the report (the human excerpt and SARIF's columns need
    /// it; JSON does not).
    pub keep_sources: bool,
    /// The project's own code, for `VS307` (`None`: not checked).
    pub first_party: Option<PathGlobs>,
    /// Findings made elsewhere about the files' rules (`VS5xx`, from logs), shown among
    /// each file's others.
    pub extra: Vec<Diagnostic>,
}

/// Check every file of `inputs`, in order.
#[must_use]
pub fn check_files(
    inputs: impl IntoIterator<Item = CheckInput>,
    opts: &CheckOptions,
    checks: &Checks,
) -> Report {
    let mut report = Report::default();
    let mut set: Vec<(String, Vec<u8>)> = Vec::new();
    // Per file: its own findings, then its sidecar's.
    let mut found: Vec<(Vec<Diagnostic>, Vec<Diagnostic>)> = Vec::new();
    for input in inputs {
        let checked = check_source(&input.name, input.source, opts);
        set.push((input.name.clone(), checked.file.source.clone()));
        report.files += 1;
        report.rules += checked.file.records().count();
        let mut side = Vec::new();
        if let (Some((side_name, bytes)), Some(popts)) = (input.sidecar, &checks.provenance) {
            let decoded = decode(&bytes);
            let pair = Pair {
                supp_name: &input.name,
                supp: &checked.file,
                sidecar_name: &side_name,
                sidecar_source: &bytes,
                sidecar: decoded.as_ref(),
            };
            side = provenance::check(&pair, popts);
            if checks.keep_sources {
                report.sources.insert(side_name, bytes.into());
            }
        }
        found.push((checked.diagnostics, side));
        if checks.keep_sources {
            report
                .sources
                .insert(input.name, checked.file.source.into());
        }
    }
    // The set's maintenance (`VS3xx`), each finding among its file's others.
    let maintained = maintenance::check_set(&set, opts, checks.first_party.as_ref());
    for d in maintained.into_iter().chain(checks.extra.iter().cloned()) {
        if let Some(i) = set.iter().position(|(n, _)| *n == d.file) {
            found[i].0.push(d);
        }
    }
    for (mut own, side) in found {
        own.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        report.diagnostics.extend(own);
        report.diagnostics.extend(side);
    }
    checks.severities.apply(&mut report.diagnostics);
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::date::Date;
    use crate::sidecar::Field;

    fn input(name: &str, src: &str, sidecar: Option<&str>) -> CheckInput {
        CheckInput {
            name: name.to_owned(),
            source: src.as_bytes().to_vec(),
            sidecar: sidecar.map(|s| (format!("{name}.yaml"), s.as_bytes().to_vec())),
        }
    }

    #[test]
    fn files_sidecars_and_severities_in_one_report() {
        let rule = "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n";
        let popts = ProvenanceOptions {
            today: "2026-12-03".parse::<Date>().expect("date"),
            expiring_within: 14,
            required: vec![Field::Reason],
        };
        let checks = Checks {
            provenance: Some(popts),
            keep_sources: true,
            ..Checks::default()
        };
        let opts = CheckOptions {
            tools: None,
            version: crate::supp::Version::default(),
            num_callers: 12,
            style: true,
        };
        let report = check_files(
            [
                input(
                    "a.supp",
                    rule,
                    Some("version: 1\nrules:\n  r:\n    reason: x\n    expires: 2026-01-01\n"),
                ),
                input(
                    "b.supp",
                    "{\n   b\n   memcheck:Leak\n   fun:malloc\n}\n",
                    None,
                ),
            ],
            &opts,
            &checks,
        );
        assert_eq!((report.files, report.rules), (2, 2));
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| &*d.rule.code).collect();
        // a.supp's rule expired; b.supp names a tool Valgrind does not know.
        assert!(codes.contains(&"VS403"), "{codes:?}");
        assert!(codes.contains(&"VS201"), "{codes:?}");
        assert!(report.sources.contains_key("a.supp.yaml"));
        // Without provenance options no sidecar is read.
        let quiet = check_files(
            [input("a.supp", rule, Some("not: [valid"))],
            &opts,
            &Checks::default(),
        );
        assert!(quiet.diagnostics.is_empty(), "{:?}", quiet.diagnostics);
        assert!(quiet.sources.is_empty());
    }
}
