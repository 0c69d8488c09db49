//! The matcher against the real Valgrind, live: `scripts/record-match-verdicts.sh --live`
//! builds the C and C++ programs of `tests/valgrind-match/programs/` with the system gcc
//! and g++, records fresh text and XML baselines and runs Valgrind on a deterministic
//! sample of the checked-in rule files (every FATAL rule and every K-th other rule).
//!
//! * (a) The differential: vgsupp's verdict on the **live** text log and on the **live**
//!   XML log must agree with the live Valgrind verdict for every sampled (rule, error)
//!   pair (undecided counts as undecided, never as disagreement).
//! * (b) Reproducibility: where the live baseline has the recorded errors, the live
//!   baselines and verdicts must equal `tests/data/match/`. Baselines depend on the
//!   machine (CPU, glibc, libc6-dbg, gcc); where the errors differ this part is skipped
//!   with a note, and (a) still decides.
//!
//! Runs whenever Valgrind is available. `VGSUPP_MATCH_LIVE`: unset = the default sample,
//! `K` = every K-th rule, `all` = every rule (about 50 min on 2 cores), `0` = skip (ignored
//! under `VGSUPP_REQUIRE_VALGRIND=1`, where this test must run).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::common::{repo, valgrind_available};
use crate::match_differential::{Tallies, compare_program, disagreements, per_log, report};

const PROGRAMS: [&str; 3] = ["basic", "libuse", "cxx"];

/// A line on the real stderr: the test harness captures `eprintln!` of passing tests.
fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "match_live: {msg}");
}

fn required() -> bool {
    std::env::var("VGSUPP_REQUIRE_VALGRIND").is_ok_and(|v| v == "1")
}

/// The `--sample` argument: `None` for the script's default.
fn sample_arg() -> Option<Option<String>> {
    let v = std::env::var("VGSUPP_MATCH_LIVE").unwrap_or_default();
    match v.trim() {
        "" => Some(None),
        "0" if required() => {
            say("VGSUPP_MATCH_LIVE=0 ignored: VGSUPP_REQUIRE_VALGRIND=1");
            Some(None)
        }
        "0" => None,
        "all" => Some(Some("all".to_owned())),
        other => match other.parse::<u32>() {
            Ok(k) if k >= 1 => Some(Some(k.to_string())),
            _ => panic!("VGSUPP_MATCH_LIVE={other:?}: expected 0, a stride K >= 1, or all"),
        },
    }
}

/// What the script needs besides Valgrind.
fn missing_tools() -> Vec<String> {
    let mut missing: Vec<String> = ["gcc", "g++", "strip", "python3", "flock"]
        .into_iter()
        .filter(|t| {
            !Command::new(t)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_owned)
        .collect();
    if !Path::new("/usr/include/valgrind/memcheck.h").is_file() {
        missing.push("/usr/include/valgrind/memcheck.h".to_owned());
    }
    missing
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .into_owned()
}

/// `--PID--` lines (`-v`): kernel version, hwcaps, ifunc redirections.
fn is_pid_line(line: &str) -> bool {
    line.strip_prefix("--")
        .and_then(|r| r.split_once("--"))
        .is_some_and(|(pid, _)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// The first differing line of two texts, as a message; `None` when equal.
fn first_difference(recorded: &str, live: &str, skip: fn(&str) -> bool) -> Option<String> {
    let r: Vec<(usize, &str)> = recorded
        .lines()
        .enumerate()
        .filter(|(_, l)| !skip(l))
        .collect();
    let l: Vec<(usize, &str)> = live.lines().enumerate().filter(|(_, l)| !skip(l)).collect();
    for k in 0..r.len().max(l.len()) {
        let (a, b) = (r.get(k), l.get(k));
        if a.map(|x| x.1) != b.map(|x| x.1) {
            let show = |x: Option<&(usize, &str)>| {
                x.map_or("(end of file)".to_owned(), |(n, s)| {
                    format!("line {}: {s:?}", n + 1)
                })
            };
            return Some(format!("recorded {}, live {}", show(a), show(b)));
        }
    }
    None
}

/// Lines of the recorded and live `ENVIRONMENT` files that differ.
fn environment_differences(live: &Path) -> Vec<String> {
    let rec = read(&repo("tests/data/match/ENVIRONMENT"));
    let now = read(&live.join("ENVIRONMENT"));
    let field = |text: &str| -> BTreeMap<String, String> {
        text.lines()
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    };
    let (rec, now) = (field(&rec), field(&now));
    let keys: std::collections::BTreeSet<&String> = rec.keys().chain(now.keys()).collect();
    keys.into_iter()
        .filter(|k| rec.get(*k) != now.get(*k))
        .map(|k| {
            format!(
                "{k}: recorded {:?}, here {:?}",
                rec.get(k).map_or("(none)", String::as_str),
                now.get(k).map_or("(none)", String::as_str)
            )
        })
        .collect()
}

/// Part (b) for one program: the live recording against the checked-in one. Returns the
/// number of verdict rows compared, or `None` when skipped (with a note).
fn compare_with_recorded(
    prog: &str,
    live: &Path,
    env_diff: &[String],
    notes: &mut Vec<String>,
    problems: &mut Vec<String>,
) -> Option<usize> {
    let rec = repo("tests/data/match").join(prog);
    let now = live.join(prog);
    let env_note = if env_diff.is_empty() {
        "tool versions (ENVIRONMENT): as recorded".to_owned()
    } else {
        format!(
            "tool versions (ENVIRONMENT) differ: {}",
            env_diff.join("; ")
        )
    };
    if let Some(d) = first_difference(
        &read(&rec.join("errors.tsv")),
        &read(&now.join("errors.tsv")),
        |_| false,
    ) {
        notes.push(format!(
            "{prog}: the live baseline's errors differ from the recorded ones (errors.tsv: {d}). \
             Baselines are machine-dependent: glibc's ifunc choice depends on the CPU (the \
             recording machine has AVX2, where memcpy resolves to __memcpy_avx_unaligned_erms, \
             which Valgrind redirects to its memmove; see tests/data/match/README.md, \
             Surprises 2), and libc frames, line numbers and code generation depend on the \
             glibc, libc6-dbg, gcc and Valgrind versions; {env_note}. The checked-in baselines \
             and verdicts of {prog} are therefore not compared; the live differential \
             (vgsupp against this machine's Valgrind) still ran."
        ));
        return None;
    }
    let context = |what: String| format!("{what} (the errors are the recorded ones; {env_note})");
    for (file, skip) in [
        ("baseline.xml", (|_| false) as fn(&str) -> bool),
        ("baseline.txt", is_pid_line),
        ("baseline-demangled.xml", |_| false),
        ("baseline-nogen.txt", is_pid_line),
    ] {
        if let Some(d) = first_difference(&read(&rec.join(file)), &read(&now.join(file)), skip) {
            problems.push(context(format!(
                "{prog}/{file} differs from the recorded one: {d}"
            )));
        }
    }
    let recorded = read(&rec.join("verdicts.tsv"));
    let recorded: BTreeMap<(&str, &str), &str> = recorded
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            ((f[0], f[1]), f[2])
        })
        .collect();
    let live_rows = read(&now.join("verdicts.tsv"));
    let mut compared = 0;
    for l in live_rows.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        compared += 1;
        match recorded.get(&(f[0], f[1])) {
            Some(r) if *r == f[2] => {}
            r => problems.push(context(format!(
                "{prog} rule {} error {}: recorded verdict {}, live Valgrind {}",
                f[0],
                f[1],
                r.unwrap_or(&"(none)"),
                f[2]
            ))),
        }
    }
    Some(compared)
}

#[test]
fn matcher_agrees_with_live_valgrind() {
    let start = Instant::now();
    let Some(sample) = sample_arg() else {
        say("skipped (VGSUPP_MATCH_LIVE=0)");
        return;
    };
    if !valgrind_available() {
        say("skipped: valgrind not found (VGSUPP_REQUIRE_VALGRIND=1 makes this a failure)");
        return;
    }
    let missing = missing_tools();
    if !missing.is_empty() {
        assert!(
            !required(),
            "VGSUPP_REQUIRE_VALGRIND=1 but the live match check lacks: {}",
            missing.join(", ")
        );
        say(&format!("skipped: missing {}", missing.join(", ")));
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("vgsupp-match-live.")
        .tempdir()
        .expect("temp dir");
    let live = dir.path();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let mut cmd = Command::new("bash");
    cmd.arg(repo("scripts/record-match-verdicts.sh"))
        .arg("--live")
        .arg(live)
        .arg("-j")
        .arg(jobs.to_string());
    if let Some(k) = &sample {
        cmd.arg("--sample").arg(k);
    }
    let out = cmd.output().expect("run scripts/record-match-verdicts.sh");
    let script_log = String::from_utf8_lossy(&out.stderr);
    eprintln!("{script_log}");
    if !out.status.success() {
        let kept = dir.keep();
        panic!(
            "scripts/record-match-verdicts.sh --live failed ({}); output kept in {}:\n{script_log}",
            out.status,
            kept.display()
        );
    }
    let recorded_secs = start.elapsed().as_secs_f64();

    // (a) vgsupp on the live logs against the live Valgrind verdicts.
    let mut tallies = Tallies::new();
    let mut rules = 0;
    for prog in PROGRAMS {
        rules += compare_program(&live.join(prog), &mut tallies);
    }
    // (b) the live recording against the checked-in one.
    let env_diff = environment_differences(live);
    let mut notes = Vec::new();
    let mut problems = Vec::new();
    let mut recorded = Vec::new();
    for prog in PROGRAMS {
        match compare_with_recorded(prog, live, &env_diff, &mut notes, &mut problems) {
            Some(n) => recorded.push(format!("{prog} {n}")),
            None => recorded.push(format!("{prog} skipped")),
        }
    }
    for n in &notes {
        say(&format!("note: {n}"));
    }
    let sums = per_log(&tallies);
    let pairs = sums.values().map(|s| s.0 + s.1 + s.2).max().unwrap_or(0);
    let per_log: Vec<String> = sums
        .iter()
        .map(|(label, (agree, undecided, disagree))| {
            format!("{label} {agree} agree / {undecided} undecided / {disagree} disagree")
        })
        .collect();
    say(&format!(
        "{rules} rules run live (sample {}), {pairs} (rule, error) pairs; {}; recorded verdicts compared: {}, {} differences; {:.1} s ({recorded_secs:.1} s in the script)",
        sample.as_deref().unwrap_or("default"),
        per_log.join("; "),
        recorded.join(", "),
        problems.len(),
        start.elapsed().as_secs_f64()
    ));
    let failed = tallies.values().any(|t| !t.disagree.is_empty()) || !problems.is_empty();
    if failed {
        let kept = dir.keep();
        panic!(
            "live differential failed (live recording kept in {}):\n{}{}\n{}",
            kept.display(),
            report(&tallies),
            disagreements(&tallies, 60),
            problems
                .iter()
                .take(60)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    assert!(rules > 0 && pairs > 0, "the live run compared nothing");
}
