//! The matcher against the real Valgrind: programs built and run under Valgrind by
//! `scripts/record-match-verdicts.sh`, four logs of the same errors (text with
//! `--gen-suppressions=all`, XML with `--demangle=no`, and the demangled-only text and XML
//! without gen blocks) and, for every single-rule case of `rules.supp`, whether Valgrind
//! still reported each error (`tests/data/match/*/verdicts.tsv`). vgsupp replays every log
//! with each case and must never disagree; how many verdicts it decides is pinned in
//! `match_pins.tsv`.
//!
//! The helpers here are shared with `match_live`, which records the same layout live.

use std::collections::BTreeMap;
use std::path::Path;

use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, LogItem};
use vgsupp::matcher::{MatchInput, RefusedFile, RuleFile, RuleSet, Truth};
use vgsupp::replay::{Event, LogReplay, ReplayOptions, Rules, RulesOptions};
use vgsupp::supp::{Tool, Version};

use crate::common::repo;

/// The logs of one program: label, file, and the `errors.tsv` column of each error's line.
pub(crate) const LOGS: [(&str, &str, usize); 4] = [
    ("text", "baseline.txt", 3),
    ("xml", "baseline.xml", 2),
    ("text-nogen", "baseline-nogen.txt", 5),
    ("xml-demangled", "baseline-demangled.xml", 4),
];

/// The header comment that starts every case of a `rules.supp`.
const CASE_HEADER: &[u8] = b"# vgsupp match rule ";

/// The errors of a log, with the matcher's input for each. This is the one place that
/// turns a log into matcher inputs, so that a richer constructor (per-log context such as
/// objects seen, demangling) is switched over here.
fn inputs_of(path: &Path) -> (Vec<ErrorRecord>, Vec<MatchInput>) {
    let (format, items) =
        detect::read_all(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let errors: Vec<ErrorRecord> = items
        .iter()
        .filter_map(LogItem::as_error)
        .cloned()
        .collect();
    // The inputs `vgsupp match` builds: a replay (with no rules) reports each error's
    // matcher input, made from everything the log said before it (names mangled or not,
    // the objects loaded and shown so far).
    let no_rules = Rules::load(
        Vec::new(),
        RulesOptions {
            version: Version::new(19).expect("3.19"),
            num_callers: 12,
            go_on: false,
        },
    );
    let mut replay = LogReplay::new(
        &no_rules,
        format,
        ReplayOptions {
            inputs: true,
            signatures: false,
        },
    );
    let mut inputs = Vec::new();
    let mut on = |ev: Event<'_>| -> Result<(), ()> {
        if let Event::Input { input, .. } = ev {
            inputs.push(input.clone());
        }
        Ok(())
    };
    for item in &items {
        replay.feed(item, &mut on).expect("replay");
    }
    replay.finish(&mut on).expect("replay");
    assert_eq!(inputs.len(), errors.len(), "{}", path.display());
    (errors, inputs)
}

/// The cases of a `rules.supp`, as (number, bytes), in file order. A case starts at each
/// line that starts with its header comment and runs to the next one: the file is split on
/// these comment lines, never by parsing, so a deliberately malformed record (a FATAL case)
/// cannot swallow the next case, and each case keeps its exact bytes (tabs, CRLF).
pub(crate) fn cases(source: &[u8]) -> Vec<(String, &[u8])> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < source.len() {
        if source[at..].starts_with(CASE_HEADER) {
            starts.push(at);
        }
        at += source[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(source.len() - at, |p| p + 1);
    }
    assert!(
        source.is_empty() || starts.first() == Some(&0),
        "rules.supp: text before the first case header"
    );
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).copied().unwrap_or(source.len());
            let body = &source[s..end];
            let num: String = body[CASE_HEADER.len()..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .map(|&b| char::from(b))
                .collect();
            assert!(!num.is_empty(), "case header without a number at byte {s}");
            (num, body)
        })
        .collect()
}

/// Load one case, alone, as Valgrind 3.19 with `--num-callers=12` does.
pub(crate) fn load_case(name: &str, source: &[u8]) -> Result<RuleSet, RefusedFile> {
    RuleSet::load(
        vec![RuleFile {
            path: name.to_owned(),
            source: source.to_vec(),
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

/// Agreement counts of one program's log.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) agree: usize,
    pub(crate) undecided: usize,
    pub(crate) disagree: Vec<String>,
}

/// Tallies by (program, log label).
pub(crate) type Tallies = BTreeMap<(String, &'static str), Tally>;

/// Compare vgsupp with Valgrind on one program directory in the layout of
/// `tests/data/match/P/`: the four logs, `errors.tsv`, `rules.supp` and `verdicts.tsv`
/// (the rules listed there). Panics when the logs do not read back as `errors.tsv` says;
/// verdicts go to `tallies`. Returns the number of rules compared.
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
    let mut inputs: Vec<(&'static str, Vec<MatchInput>)> = Vec::new();
    for (label, file, line_col) in LOGS {
        let (errs, ins) = inputs_of(&prog.join(file));
        assert_eq!(
            errs.len(),
            expected.len(),
            "{name} {label}: errors read vs errors.tsv"
        );
        for (e, row) in errs.iter().zip(&expected) {
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
        inputs.push((label, ins));
    }
    let source = std::fs::read(prog.join("rules.supp")).expect("rules.supp");
    let cases: BTreeMap<String, &[u8]> = cases(&source).into_iter().collect();
    let verdicts = std::fs::read_to_string(prog.join("verdicts.tsv")).expect("verdicts.tsv");
    let mut by_rule: BTreeMap<&str, Vec<(usize, &str)>> = BTreeMap::new();
    for l in verdicts.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        let idx: usize = f[1].parse().expect("error index");
        by_rule.entry(f[0]).or_default().push((idx, f[2]));
    }
    assert_eq!(
        by_rule.keys().copied().collect::<Vec<_>>(),
        cases.keys().map(String::as_str).collect::<Vec<_>>(),
        "{name}: the cases of rules.supp and the rules of verdicts.tsv differ"
    );
    let rules = by_rule.len();
    for (rule, rows) in by_rule {
        let set = load_case(&format!("{name}/rules.supp case {rule}"), cases[rule]);
        for (label, inputs) in &inputs {
            let t = tallies.entry((name.clone(), label)).or_default();
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

/// Tallies summed per log label: (agree, undecided, disagree).
pub(crate) fn per_log(tallies: &Tallies) -> BTreeMap<&'static str, (usize, usize, usize)> {
    let mut sum: BTreeMap<&'static str, (usize, usize, usize)> = BTreeMap::new();
    for ((_, label), t) in tallies {
        let s = sum.entry(label).or_default();
        s.0 += t.agree;
        s.1 += t.undecided;
        s.2 += t.disagree.len();
    }
    sum
}

/// One line per log label (all programs): agree / undecided / disagree.
pub(crate) fn report(tallies: &Tallies) -> String {
    per_log(tallies)
        .into_iter()
        .map(|(label, (agree, undecided, disagree))| {
            format!(
                "{label}: {agree} of {} (rule, error) verdicts agree with Valgrind, {undecided} undecided (approximate), {disagree} disagree\n",
                agree + undecided + disagree
            )
        })
        .collect()
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

/// The pinned counts: (program, log) -> (agree, undecided).
fn pins() -> BTreeMap<(String, String), (usize, usize)> {
    include_str!("match_pins.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("program\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "match_pins.tsv: {l:?}");
            let n = |s: &str| s.parse::<usize>().expect("a count");
            ((f[0].to_owned(), f[1].to_owned()), (n(f[2]), n(f[3])))
        })
        .collect()
}

/// The pin table rows for `tallies` (what `match_pins.tsv` should hold).
fn pin_rows(tallies: &Tallies) -> String {
    tallies
        .iter()
        .map(|((prog, label), t)| format!("{prog}\t{label}\t{}\t{}\n", t.agree, t.undecided))
        .collect()
}

/// Differences between the measured tallies and the pins, one message each.
fn pin_mismatches(
    tallies: &Tallies,
    pins: &BTreeMap<(String, String), (usize, usize)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for ((prog, label), t) in tallies {
        match pins.get(&(prog.clone(), (*label).to_owned())) {
            None => out.push(format!("{prog} {label}: no pin")),
            Some(&(agree, undecided)) if (agree, undecided) != (t.agree, t.undecided) => {
                let change = if t.agree + t.undecided != agree + undecided {
                    "the suite's cases changed: pin the new counts"
                } else if t.agree > agree {
                    "more verdicts are decided: an improvement, pin it"
                } else if t.agree < agree {
                    "fewer verdicts are decided than before: a regression unless explained"
                } else {
                    "the number of verdicts changed"
                };
                out.push(format!(
                    "{prog} {label}: {} agree / {} undecided, pinned {agree} / {undecided} ({change})",
                    t.agree, t.undecided
                ));
            }
            Some(_) => {}
        }
    }
    for (prog, label) in pins.keys() {
        if !tallies.keys().any(|(p, l)| p == prog && l == label) {
            out.push(format!("{prog} {label}: pinned but not measured"));
        }
    }
    out
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
    // A matcher that answered "undecided" everywhere would pass the check above; the
    // pins make every decided verdict count.
    let mismatches = pin_mismatches(&tallies, &pins());
    assert!(
        mismatches.is_empty(),
        "the decided-verdict counts differ from tests/cli/match_pins.tsv:\n{}\n\n\
         If the matcher now decides more verdicts (and disagrees with none), update the pins: \
         replace the rows of tests/cli/match_pins.tsv with\n{}",
        mismatches.join("\n"),
        pin_rows(&tallies)
    );
}

#[test]
fn cases_split_on_header_lines_only() {
    // A FATAL case without its closing brace, a CRLF case, and text that only looks like
    // a header in the middle of a line.
    let src = b"# vgsupp match rule 0001 (p)\n{\n   r0001.x\n   Memcheck:Param\n\
                # vgsupp match rule 0002 (p)\r\n{\r\n   r0002.y # vgsupp match rule 0009 (p)\r\n}\r\n";
    let got = cases(src);
    assert_eq!(
        got.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        ["0001", "0002"]
    );
    assert_eq!(got[0].1.len() + got[1].1.len(), src.len());
    assert!(got[1].1.starts_with(b"# vgsupp match rule 0002 (p)\r\n"));
    assert!(load_case("1", got[0].1).is_err());
    assert!(cases(b"").is_empty());
}

#[test]
fn pins_catch_a_matcher_that_decides_less() {
    let mut tallies = Tallies::new();
    tallies.insert(
        ("p".to_owned(), "text"),
        Tally {
            agree: 10,
            undecided: 2,
            disagree: Vec::new(),
        },
    );
    let pinned = |a, u| BTreeMap::from([(("p".to_owned(), "text".to_owned()), (a, u))]);
    assert!(pin_mismatches(&tallies, &pinned(10, 2)).is_empty());
    assert_eq!(pin_mismatches(&tallies, &pinned(12, 0)).len(), 1);
    assert_eq!(pin_mismatches(&tallies, &pinned(9, 3)).len(), 1);
    assert_eq!(pin_mismatches(&tallies, &BTreeMap::new()).len(), 1);
    assert_eq!(pin_mismatches(&Tallies::new(), &pinned(10, 2)).len(), 1);
}
