//! The matcher against the real Valgrind: programs built and run under Valgrind by
//! `scripts/record-match-verdicts.sh`, their raw logs (text with `--gen-suppressions=all`,
//! XML with `--demangle=no`) and, for every single-rule suppression file, whether Valgrind
//! still reported each error (`tests/data/match/*/verdicts.tsv`). vgsupp replays both logs
//! with each rule and must agree.

use std::collections::BTreeMap;
use std::path::Path;

use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, LogFormat, LogItem};
use vgsupp::matcher::{MatchInput, RuleFile, RuleSet, Truth};
use vgsupp::supp::{Tool, Version};

use crate::common::repo;

fn errors_of(path: &Path) -> (LogFormat, Vec<ErrorRecord>, bool) {
    let (format, items) =
        detect::read_all(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mangled = format == LogFormat::Xml
        && items.iter().any(
            |i| matches!(i, LogItem::Preamble(p) if p.options.iter().any(|o| o == "--demangle=no")),
        );
    let errors = items
        .iter()
        .filter_map(LogItem::as_error)
        .cloned()
        .collect();
    (format, errors, mangled)
}

#[derive(Default)]
struct Tally {
    agree: usize,
    undecided: usize,
    disagree: Vec<String>,
}

#[test]
fn matcher_agrees_with_valgrind_on_recorded_programs() {
    let root = repo("tests/data/match");
    if !root.is_dir() {
        panic!("tests/data/match is missing: run scripts/record-match-verdicts.sh");
    }
    let mut programs: Vec<_> = std::fs::read_dir(&root)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("verdicts.tsv").is_file())
        .collect();
    programs.sort();
    assert!(!programs.is_empty(), "no recorded programs");
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let version = Version::new(19).expect("3.19");
    for prog in &programs {
        let name = prog
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let expected_rows = std::fs::read_to_string(prog.join("errors.tsv")).expect("errors.tsv");
        let expected: Vec<Vec<&str>> = expected_rows
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect())
            .collect();
        let logs = [
            ("text", errors_of(&prog.join("baseline.txt"))),
            ("xml", errors_of(&prog.join("baseline.xml"))),
        ];
        for (label, (_, errs, _)) in &logs {
            assert_eq!(
                errs.len(),
                expected.len(),
                "{name} {label}: errors read vs errors.tsv"
            );
            for (e, row) in errs.iter().zip(&expected) {
                let line_col = if *label == "text" { 3 } else { 2 };
                assert_eq!(
                    e.line.to_string(),
                    row[line_col],
                    "{name} {label}: line of error {}",
                    row[0]
                );
                assert_eq!(
                    format!("Memcheck:{}", e.kind),
                    row[1],
                    "{name} {label}: kind of error {}",
                    row[0]
                );
            }
        }
        let inputs: Vec<(&str, Vec<MatchInput>)> = logs
            .iter()
            .map(|(label, (_, errs, mangled))| {
                (
                    *label,
                    errs.iter()
                        .map(|e| MatchInput::from_record(e, *mangled))
                        .collect(),
                )
            })
            .collect();
        let verdicts = std::fs::read_to_string(prog.join("verdicts.tsv")).expect("verdicts.tsv");
        let mut by_rule: BTreeMap<&str, Vec<(usize, &str)>> = BTreeMap::new();
        for l in verdicts.lines().skip(1) {
            let f: Vec<&str> = l.split('\t').collect();
            let idx: usize = f[1].parse().expect("error index");
            by_rule.entry(f[0]).or_default().push((idx, f[2]));
        }
        for (rule, rows) in by_rule {
            let path = prog.join("rules").join(format!("{rule}.supp"));
            let source = std::fs::read(&path).expect("rule file");
            let set = RuleSet::load(
                vec![RuleFile {
                    path: path.display().to_string(),
                    source,
                }],
                &[Tool::Memcheck],
                version,
                12,
            );
            for (label, inputs) in &inputs {
                let t = tallies.entry(label).or_default();
                for &(idx, expected) in &rows {
                    let got = match &set {
                        Err(_) => "fatal".to_owned(),
                        Ok(set) => {
                            let input = &inputs[idx - 1];
                            let truth = set
                                .all_matches(Tool::Memcheck, input)
                                .iter()
                                .map(|m| m.1)
                                .max()
                                .unwrap_or(Truth::No);
                            match truth {
                                Truth::Yes => "1".to_owned(),
                                Truth::No => "0".to_owned(),
                                Truth::Unknown => "?".to_owned(),
                            }
                        }
                    };
                    if got == expected {
                        t.agree += 1;
                    } else if got == "?" {
                        t.undecided += 1;
                    } else {
                        t.disagree.push(format!("{name} rule {rule} error {idx} ({label}): valgrind {expected}, vgsupp {got}"));
                    }
                }
            }
        }
    }
    let mut report = String::new();
    for (label, t) in &tallies {
        let total = t.agree + t.undecided + t.disagree.len();
        report.push_str(&format!(
            "{label}: {} of {total} (rule, error) verdicts agree with Valgrind, {} undecided (approximate), {} disagree\n",
            t.agree,
            t.undecided,
            t.disagree.len()
        ));
    }
    eprintln!("{report}");
    let disagreements: Vec<&String> = tallies.values().flat_map(|t| &t.disagree).collect();
    assert!(
        disagreements.is_empty(),
        "{report}{}",
        disagreements
            .iter()
            .take(60)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
