//! The matcher against the real Valgrind: programs built and run under Valgrind by
//! `scripts/record-match-verdicts.sh`, their raw logs (text with `--gen-suppressions=all`,
//! XML with `--demangle=no`) and, for every single-rule suppression file, whether Valgrind
//! still reported each error (`tests/data/match/*/verdicts.tsv`). vgsupp replays both logs
//! with each rule and must agree.
//!
//! The helpers here are shared with `match_live`, which records the same layout live.

use std::collections::BTreeMap;
use std::path::Path;

use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, LogFormat, LogItem};
use vgsupp::matcher::{MatchInput, RefusedFile, RuleFile, RuleSet, Truth};
use vgsupp::supp::{Tool, Version};

use crate::common::repo;

/// The errors of a log, and whether its function names are mangled (`--demangle=no`).
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

/// Load one single-rule file as Valgrind 3.19 with `--num-callers=12` does.
pub(crate) fn load_rule(path: &Path) -> Result<RuleSet, RefusedFile> {
    let source = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    RuleSet::load(
        vec![RuleFile {
            path: path.display().to_string(),
            source,
        }],
        &[Tool::Memcheck],
        Version::new(19).expect("3.19"),
        12,
    )
}

/// vgsupp's verdict in `verdicts.tsv` terms: `fatal`, `1` (suppressed), `0`, or `?`
/// (the log does not show enough to decide).
pub(crate) fn vgsupp_verdict(
    set: &Result<RuleSet, RefusedFile>,
    input: &MatchInput,
) -> &'static str {
    match set {
        Err(_) => "fatal",
        Ok(set) => match set
            .all_matches(Tool::Memcheck, input)
            .iter()
            .map(|m| m.1)
            .max()
            .unwrap_or(Truth::No)
        {
            Truth::Yes => "1",
            Truth::No => "0",
            Truth::Unknown => "?",
        },
    }
}

/// Agreement counts of one log format.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) agree: usize,
    pub(crate) undecided: usize,
    pub(crate) disagree: Vec<String>,
}

impl Tally {
    pub(crate) fn total(&self) -> usize {
        self.agree + self.undecided + self.disagree.len()
    }
}

/// Tallies by log format (`text`, `xml`).
pub(crate) type Tallies = BTreeMap<&'static str, Tally>;

/// Compare vgsupp with Valgrind on one program directory in the layout of
/// `tests/data/match/P/`: `baseline.txt`, `baseline.xml`, `errors.tsv`, `rules/NNNN.supp`
/// and `verdicts.tsv` (the rules listed there). Panics when the logs do not read back as
/// `errors.tsv` says; verdicts go to `tallies`. Returns the number of rules compared.
pub(crate) fn compare_program(prog: &Path, tallies: &mut Tallies) -> usize {
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
    let inputs: Vec<(&'static str, Vec<MatchInput>)> = logs
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
    let rules = by_rule.len();
    for (rule, rows) in by_rule {
        let set = load_rule(&prog.join("rules").join(format!("{rule}.supp")));
        for (label, inputs) in &inputs {
            let t = tallies.entry(label).or_default();
            for &(idx, expected) in &rows {
                let got = vgsupp_verdict(&set, &inputs[idx - 1]);
                if got == expected {
                    t.agree += 1;
                } else if got == "?" {
                    t.undecided += 1;
                } else {
                    t.disagree.push(format!(
                        "{name} rule {rule} error {idx} ({label}): valgrind {expected}, vgsupp {got}"
                    ));
                }
            }
        }
    }
    rules
}

/// One line per log format: agree / undecided / disagree.
pub(crate) fn report(tallies: &Tallies) -> String {
    let mut report = String::new();
    for (label, t) in tallies {
        report.push_str(&format!(
            "{label}: {} of {} (rule, error) verdicts agree with Valgrind, {} undecided (approximate), {} disagree\n",
            t.agree,
            t.total(),
            t.undecided,
            t.disagree.len()
        ));
    }
    report
}

/// Every disagreement (at most `limit`), one per line.
pub(crate) fn disagreements(tallies: &Tallies, limit: usize) -> String {
    tallies
        .values()
        .flat_map(|t| &t.disagree)
        .take(limit)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n")
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
    let mut tallies = Tallies::new();
    for prog in &programs {
        compare_program(prog, &mut tallies);
    }
    let report = report(&tallies);
    eprintln!("{report}");
    assert!(
        tallies.values().all(|t| t.disagree.is_empty()),
        "{report}{}",
        disagreements(&tallies, 60)
    );
}
