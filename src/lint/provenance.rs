//! `VS4xx`: a suppression file against its sidecar (`NAME.supp.yaml`): rules without
//! provenance, provenance without a rule, expired and soon-expiring rules, rules edited
//! since their provenance was recorded, missing required fields, and what the sidecar
//! itself does wrong.
//!
//! "Today" is a parameter: the library never reads the clock.

use std::collections::{BTreeMap, BTreeSet};

use crate::catalogue::Lint;
use crate::date::Date;
use crate::diagnostic::Diagnostic;
use crate::sidecar::decode::{Decoded, ProblemKind, SidecarError};
use crate::sidecar::{Field, RuleEntry, fingerprint};
use crate::supp::model::SuppFile;

/// What to check a sidecar against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProvenanceOptions {
    /// Today's date.
    pub today: Date,
    /// Report rules expiring within this many days (`VS404`).
    pub expiring_within: u32,
    /// Fields every rule's entry must have (`VS406`).
    pub required: Vec<Field>,
}

impl ProvenanceOptions {
    /// The defaults for `today`: a 14-day notice, `reason` required.
    #[must_use]
    pub fn new(today: Date) -> Self {
        Self {
            today,
            expiring_within: 14,
            required: vec![Field::Reason],
        }
    }
}

/// A suppression file and its sidecar as read.
pub struct Pair<'a> {
    /// How diagnostics name the suppression file.
    pub supp_name: &'a str,
    /// The parsed suppression file.
    pub supp: &'a SuppFile,
    /// How diagnostics name the sidecar.
    pub sidecar_name: &'a str,
    /// The sidecar's bytes (for columns).
    pub sidecar_source: &'a [u8],
    /// The sidecar, or why it could not be read.
    pub sidecar: Result<&'a Decoded, &'a SidecarError>,
}

/// Every `VS4xx` finding for a suppression file and its sidecar, sorted.
#[must_use]
pub fn check(pair: &Pair<'_>, opts: &ProvenanceOptions) -> Vec<Diagnostic> {
    let side = pair.sidecar_name;
    let decoded = match pair.sidecar {
        Ok(d) => d,
        Err(e) => {
            let line = e.line();
            let column = first_column(pair.sidecar_source, line);
            let mut d = Diagnostic::new(Lint::UnreadableSidecar, side, line, column, e.reason());
            d.help = Some("nothing else in the sidecar is checked until it reads".to_owned());
            return vec![d];
        }
    };
    let mut out: Vec<Diagnostic> = decoded
        .problems
        .iter()
        .map(|p| {
            let mut d = Diagnostic::new(
                Lint::InvalidSidecarValue,
                side,
                p.line,
                1,
                p.kind.to_string(),
            );
            d.record.clone_from(&p.rule);
            d
        })
        .collect();
    if decoded
        .problems
        .iter()
        .any(|p| matches!(p.kind, ProblemKind::UnknownVersion(_)))
    {
        out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        return out;
    }
    let src = pair.supp.source.as_slice();
    // Rule name -> (line of its first name line, fingerprints of every record so named).
    let mut records: BTreeMap<String, (u32, BTreeSet<String>)> = BTreeMap::new();
    for r in pair.supp.records() {
        let (Some(name), Some(name_line)) = (r.name(src), r.name_line()) else {
            continue;
        };
        let name = String::from_utf8_lossy(name).into_owned();
        records
            .entry(name)
            .or_insert_with(|| (name_line.line.number, BTreeSet::new()))
            .1
            .insert(fingerprint(src, r));
    }
    let sidecar = &decoded.sidecar;
    for (name, (line, _)) in &records {
        if sidecar.rule(name).is_none() {
            let mut d = Diagnostic::new(
                Lint::NoProvenance,
                pair.supp_name,
                *line,
                4,
                format!("rule `{name}` has no entry in {side}"),
            );
            d.record = Some(name.clone());
            d.help = Some("add one under `rules:` with at least a `reason`".to_owned());
            out.push(d);
        }
    }
    for rule in &sidecar.rules {
        let at = |field: &str| rule_line(rule, field);
        let mut push = |code: Lint, line: u32, message: String, help: Option<String>| {
            let mut d = Diagnostic::new(code, side, line, 1, message);
            d.record = Some(rule.name.clone());
            d.help = help;
            out.push(d);
        };
        let Some((_, fingerprints)) = records.get(&rule.name) else {
            push(
                Lint::OrphanProvenance,
                rule.line,
                format!("`{}` is not a rule of {}", rule.name, pair.supp_name),
                Some("rename the entry, or move it under `retired:`".to_owned()),
            );
            continue;
        };
        if let Some(expires) = rule.expires {
            let days = opts.today.days_until(expires);
            if days < 0 {
                push(
                    Lint::Expired,
                    at("expires"),
                    format!("rule `{}` expired on {expires} ({} ago)", rule.name, plural(-days)),
                    Some("check that it still hides only third-party noise, then move `expires` forward, or delete the rule".to_owned()),
                );
            } else if days <= i64::from(opts.expiring_within) {
                let when = match days {
                    0 => "today".to_owned(),
                    d => format!("in {}", plural(d)),
                };
                push(
                    Lint::ExpiringSoon,
                    at("expires"),
                    format!("rule `{}` expires on {expires} ({when})", rule.name),
                    None,
                );
            }
        }
        if let Some(recorded) = &rule.fingerprint {
            let matching = fingerprints
                .iter()
                .any(|f| fingerprint::matches(recorded, f));
            if !matching {
                let now: Vec<&str> = fingerprints.iter().map(String::as_str).collect();
                push(
                    Lint::FingerprintDrift,
                    at("fingerprint"),
                    format!(
                        "rule `{}` changed since its provenance was recorded (fingerprint {recorded}, now {})",
                        rule.name,
                        now.join(" or ")
                    ),
                    Some(format!(
                        "check that its reason still holds, then set `fingerprint: {}`",
                        now.first().copied().unwrap_or_default()
                    )),
                );
            }
        }
        let missing: Vec<&str> = opts
            .required
            .iter()
            .filter(|f| !rule.has(**f))
            .map(|f| f.key())
            .collect();
        if !missing.is_empty() {
            push(
                Lint::MissingSidecarField,
                rule.line,
                format!(
                    "rule `{}` has no {}",
                    rule.name,
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Some(
                    "required by the project (`sidecar.required` in vgsupp.yaml; default: reason)"
                        .to_owned(),
                ),
            );
        }
    }
    for d in out.iter_mut().filter(|d| d.file == side) {
        d.column = first_column(pair.sidecar_source, d.display_line);
    }
    out.sort_by(|a, b| {
        (a.file != pair.supp_name)
            .cmp(&(b.file != pair.supp_name))
            .then_with(|| a.sort_key().cmp(&b.sort_key()))
    });
    out
}

/// The line of `field` in a rule's entry, else the line of the rule.
fn rule_line(rule: &RuleEntry, field: &str) -> u32 {
    rule.node
        .entries
        .iter()
        .find(|e| e.key == field)
        .map_or(rule.line, |e| e.line)
        .max(1)
}

/// The 1-based byte column of the first non-blank character of `line` (1 when blank).
fn first_column(src: &[u8], line: u32) -> u32 {
    let Some(index) = usize::try_from(line).ok().and_then(|l| l.checked_sub(1)) else {
        return 1;
    };
    src.split(|&b| b == b'\n')
        .nth(index)
        .and_then(|l| l.iter().position(|b| !matches!(b, b' ' | b'\t')))
        .and_then(|p| u32::try_from(p + 1).ok())
        .unwrap_or(1)
}

fn plural(days: i64) -> String {
    format!("{days} day{}", if days == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sidecar::decode;
    use crate::supp::parse;

    const SUPP: &str = "{\n   kept\n   Memcheck:Leak\n   fun:malloc\n}\n\n{\n   edited\n   Memcheck:Cond\n   fun:g\n}\n\n{\n   bare\n   Memcheck:Cond\n   fun:h\n}\n";

    fn run(sidecar: &str, today: &str) -> Vec<String> {
        let supp = parse(SUPP.as_bytes().to_vec());
        let d = decode(sidecar.as_bytes());
        let pair = Pair {
            supp_name: "a.supp",
            supp: &supp,
            sidecar_name: "a.supp.yaml",
            sidecar_source: sidecar.as_bytes(),
            sidecar: d.as_ref(),
        };
        let mut opts = ProvenanceOptions::new(today.parse().expect("date"));
        opts.required = vec![Field::Reason, Field::Owner];
        check(&pair, &opts)
            .iter()
            .map(|d| {
                format!(
                    "{}:{}:{} {} {}",
                    d.file, d.line, d.column, d.rule.code, d.message
                )
            })
            .collect()
    }

    #[test]
    fn every_finding() {
        let supp = parse(SUPP.as_bytes().to_vec());
        let kept_fp = fingerprint(&supp.source, supp.records().next().expect("record"));
        let side = format!(
            "version: 1\nrules:\n  kept:\n    fingerprint: {kept_fp}\n    reason: r\n    owner: o\n    expires: 2026-12-10\n  edited:\n    fingerprint: 000000000000\n    reason: r\n    expires: 2026-11-01\n  gone:\n    reason: r\n    owner: o\n    expires: x\n"
        );
        let edited_fp = fingerprint(&supp.source, supp.records().nth(1).expect("record"));
        assert_eq!(
            run(&side, "2026-12-01"),
            [
                "a.supp:14:4 VS401 rule `bare` has no entry in a.supp.yaml".to_owned(),
                "a.supp.yaml:7:5 VS404 rule `kept` expires on 2026-12-10 (in 9 days)".to_owned(),
                "a.supp.yaml:8:3 VS406 rule `edited` has no `owner`".to_owned(),
                format!("a.supp.yaml:9:5 VS405 rule `edited` changed since its provenance was recorded (fingerprint 000000000000, now {edited_fp})"),
                "a.supp.yaml:11:5 VS403 rule `edited` expired on 2026-11-01 (30 days ago)".to_owned(),
                "a.supp.yaml:12:3 VS402 `gone` is not a rule of a.supp".to_owned(),
                "a.supp.yaml:15:5 VS408 `rules.gone.expires`: `x` is not a date (expected YYYY-MM-DD)".to_owned(),
            ]
        );
        assert_eq!(
            run(&side, "2026-11-01")
                .iter()
                .filter(|l| l.contains("VS403"))
                .count(),
            0
        );
        assert!(
            run(&side, "2026-11-01")
                .iter()
                .any(|l| l.contains("VS404 rule `edited` expires on 2026-11-01 (today)"))
        );
    }

    #[test]
    fn unreadable_and_unknown_versions_stop_there() {
        assert_eq!(
            run("rules: [", "2026-12-01"),
            [
                "a.supp.yaml:2:1 VS407 invalid YAML: while parsing a node, did not find expected node content"
            ]
        );
        assert_eq!(
            run("version: 9\nrules: {}\n", "2026-12-01"),
            [
                "a.supp.yaml:1:1 VS408 unknown sidecar version `9` (this vgsupp reads version 1); its rules are not read"
            ]
        );
    }
}
