//! `vgsupp match` end to end on real logs.

use std::path::Path;

use crate::common::{repo, vgsupp};

/// Turn every `--gen-suppressions` block of a text log into a named rule.
fn rules_from_gen_blocks(log: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    for line in log.lines() {
        if line == "   <insert_a_suppression_name_here>" {
            n += 1;
            out.push_str(&format!("   gen-{n}\n"));
        } else if line == "{" || line == "}" || (line.starts_with("   ") && !line.contains("==")) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn run_json(supp: &Path, logs: &[&Path]) -> serde_json::Value {
    // The recordings under tests/data/logs/text/ were made with --num-callers=40.
    let out = run_match_with(vgsupp(), "json", &["--num-callers", "40"], supp, logs);
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Runs `vgsupp match --format FORMAT -s SUPP LOGS…` and checks that it succeeds.
fn run_match(
    cmd: assert_cmd::Command,
    format: &str,
    supp: impl AsRef<std::ffi::OsStr>,
    logs: &[impl AsRef<std::ffi::OsStr>],
) -> std::process::Output {
    run_match_with(cmd, format, &[], supp, logs)
}

/// [`run_match`] with more options.
fn run_match_with(
    mut cmd: assert_cmd::Command,
    format: &str,
    options: &[&str],
    supp: impl AsRef<std::ffi::OsStr>,
    logs: &[impl AsRef<std::ffi::OsStr>],
) -> std::process::Output {
    let out = cmd
        .args(["match", "--format", format])
        .args(options)
        .arg("-s")
        .arg(supp)
        .args(logs)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every error of a log is hidden by the rule Valgrind generated for it.
#[test]
fn gen_blocks_suppress_their_own_errors() {
    let log = repo("tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt");
    let text = std::fs::read_to_string(&log).expect("log");
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("gen.supp");
    std::fs::write(&supp, rules_from_gen_blocks(&text)).expect("write");
    let v = run_json(&supp, &[&log]);
    let errors = v["errors"].as_array().expect("errors");
    assert!(!errors.is_empty());
    for e in errors {
        assert!(!e["suppressed_by"].is_null(), "not suppressed: {e}");
        // Loss records tied in size have identical blocks here: whatever their order, the
        // block loaded last is searched first and takes them all, so the credit is certain.
        assert_eq!(e["approximate"], false, "{e}");
        for key in [
            "log",
            "line",
            "pid",
            "kind",
            "leak_kind",
            "suppressed_by",
            "truncated",
        ] {
            assert!(e.get(key).is_some(), "missing {key}");
        }
    }
    let rules = v["rules"].as_array().expect("rules");
    let sum = |key: &str| -> u64 {
        rules
            .iter()
            .map(|r| r[key].as_u64().expect("a bounded count"))
            .sum()
    };
    assert_eq!(
        sum("hits") as usize,
        errors.len(),
        "every error credits one rule"
    );
    assert_eq!(sum("hits_max") as usize, errors.len());
}

/// A log without gen blocks shows demangled names only. A literal mangled pattern is decided
/// by its display (src/matcher/demangle.rs); one whose display other names share (here a
/// function template) leaves the verdict approximate.
#[test]
fn demangled_only_logs_decide_what_demangling_shows() {
    let log = repo("tests/data/logs/text/leaky-ext-article-command.txt.gz");
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("cxx.supp");
    std::fs::write(
        &supp,
        "{\n   cxx\n   Memcheck:Leak\n   fun:_Znam\n   fun:_Z18dangerous_functionv\n}\n\
         {\n   template\n   Memcheck:Leak\n   fun:_Znwm\n   \
         fun:_ZN3c108ListType6createIJNS_4Type24SingletonOrSharedTypePtrIS2_EEEEESt10shared_ptrIS0_EDpOT_\n}\n",
    )
    .expect("write");
    let out = run_match(vgsupp(), "json", &supp, &[&log]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("demangled"),
        "says so once"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let errors = v["errors"].as_array().expect("errors");
    let by = |e: &serde_json::Value| e["suppressed_by"]["name"].as_str().map(str::to_owned);
    // `operator new[]` ← `dangerous_function()`: decided.
    assert!(
        errors
            .iter()
            .any(|e| by(e).as_deref() == Some("cxx") && e["approximate"] == false),
        "the dangerous_function leak is decided"
    );
    // `c10::ListType::create<…>(…)`: `T_` and the concrete type display the same.
    assert!(errors.iter().any(|e| e["approximate"] == true));
}

#[test]
fn explain_shows_frame_by_frame() {
    let log = repo("tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt");
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("one.supp");
    std::fs::write(&supp, "{\n   calloc-cuda\n   Memcheck:Leak\n   fun:calloc\n   obj:*/libcuda.so*\n   fun:nonexistent\n}\n").expect("write");
    let out = vgsupp()
        .args(["match", "--explain", "calloc-cuda", "-s"])
        .arg(&supp)
        .arg(&log)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("`fun:calloc` matches frame 0"), "{text}");
    assert!(text.contains("does NOT match"), "{text}");
}

#[test]
fn refused_suppression_file_exits_2() {
    let log = repo("tests/data/logs/text/cudart12-libcuda535.txt");
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("bad.supp");
    std::fs::write(
        &supp,
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: definite, possible\n   fun:f\n}\n",
    )
    .expect("write");
    vgsupp()
        .args(["match", "-s"])
        .arg(&supp)
        .arg(&log)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("bad.supp:4"));
}

/// A file Valgrind loads but crashes on (a FishyValue rule without its `F(A)` line, VS114)
/// stops the run before any output; `--keep-going` replays it with a warning, skipping
/// nothing Valgrind would have loaded.
#[test]
fn a_file_valgrind_crashes_on_stops_the_run_unless_keep_going() {
    let log = repo("tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt");
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("fishy.supp");
    std::fs::write(
        &supp,
        "{\n   fishy\n   Memcheck:FishyValue\n   fun:malloc\n}\n{\n   calloc-leaks\n   Memcheck:Leak\n   fun:calloc\n}\n",
    )
    .expect("write");
    vgsupp()
        .args(["match", "-s"])
        .arg(&supp)
        .arg(&log)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("fishy.supp:3"))
        .stderr(predicates::str::contains("VS114"))
        .stderr(predicates::str::contains("--keep-going"));
    let out = vgsupp()
        .args(["match", "--keep-going", "--format", "json", "-s"])
        .arg(&supp)
        .arg(&log)
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: "));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let rules = v["rules"].as_array().expect("rules");
    assert_eq!(
        rules.len(),
        2,
        "both records are loaded, as Valgrind loads them"
    );
    assert!(rules[1]["hits"].as_u64().expect("hits") > 0, "{rules:?}");
}

/// default.supp is loaded last, so its rules are searched first and shadow user rules (DS1).
#[test]
fn default_supp_shadows_user_rules() {
    let log = repo("tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt");
    let text = std::fs::read_to_string(&log).expect("log");
    let dir = tempfile::tempdir().expect("tmp");
    let user = dir.path().join("user.supp");
    let default = dir.path().join("default.supp");
    std::fs::write(&user, rules_from_gen_blocks(&text).replace("gen-", "user-")).expect("write");
    std::fs::write(
        &default,
        rules_from_gen_blocks(&text).replace("gen-", "default-"),
    )
    .expect("write");
    let names = |extra: &[&str]| -> Vec<String> {
        let out = vgsupp()
            .args(["match", "--format", "json", "-s"])
            .arg(&user)
            .args(extra)
            .arg("--default-supp-path")
            .arg(&default)
            .arg(&log)
            .output()
            .expect("run");
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        v["errors"].as_array().map_or_else(Vec::new, |e| {
            e.iter()
                .map(|e| {
                    e["suppressed_by"]["name"]
                        .as_str()
                        .unwrap_or("-")
                        .to_owned()
                })
                .collect()
        })
    };
    let shadowed = names(&["--default-suppressions"]);
    assert!(
        !shadowed.is_empty() && shadowed.iter().all(|n| n.starts_with("default-")),
        "{shadowed:?}"
    );
}

#[test]
fn human_output() {
    let run = |extra: &[&str]| {
        let out = vgsupp()
            .current_dir(repo(""))
            .args(["match", "--num-callers", "40"])
            .args(extra)
            .args([
                "-s",
                "examples/torch-extension/cuda-torch.supp",
                "tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt",
                "tests/data/logs/text/cpython-pass.txt",
            ])
            .output()
            .expect("run");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    insta::assert_snapshot!("human_summary", run(&[]));
    insta::assert_snapshot!("human_errors", run(&["--errors"]));
}

/// Small logs of every kind (text and XML, three tools, forks), several with suppressed
/// errors under `examples/torch-extension/cuda-torch.supp`.
const MIXED_LOGS: [&str; 7] = [
    "tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt",
    "tests/data/logs/text/drd-errors.log",
    "tests/data/logs/xml/memcheck-3.19-errors-leaks.xml",
    "tests/data/logs/text/helgrind-race.log",
    "tests/data/logs/text/memcheck-verbose-fork.log",
    "tests/data/logs/xml/cudart12-libcuda535.xml",
    "tests/data/logs/text/cudart12-libcuda535.txt",
];

/// `vgsupp match -s cuda-torch.supp LOGS…` from the repository root, on 4 threads so that
/// logs finish out of order even on a small machine.
fn run_mixed(format: &str, logs: &[&str]) -> std::process::Output {
    let mut cmd = vgsupp();
    cmd.current_dir(repo("")).env("RAYON_NUM_THREADS", "4");
    // Human output lists every error with --errors.
    let options: &[&str] = if format == "human" {
        &["--errors"]
    } else {
        &[]
    };
    run_match_with(
        cmd,
        format,
        options,
        "examples/torch-extension/cuda-torch.supp",
        logs,
    )
}

/// Rows of several logs come out in log order: the rows of each log alone, one log after
/// the other, and each rule's hits summed over the logs.
#[test]
fn several_logs_give_json_rows_in_log_order() {
    let json = |logs: &[&str]| -> serde_json::Value {
        serde_json::from_slice(&run_mixed("json", logs).stdout).expect("JSON")
    };
    let all = json(&MIXED_LOGS);
    let mut want_errors = Vec::new();
    let mut want_hits = vec![0; all["rules"].as_array().expect("rules").len()];
    for log in MIXED_LOGS {
        let one = json(&[log]);
        want_errors.extend(one["errors"].as_array().expect("errors").iter().cloned());
        for (n, r) in one["rules"].as_array().expect("rules").iter().enumerate() {
            want_hits[n] += r["hits"].as_u64().expect("hits");
        }
    }
    assert!(want_errors.len() > 50, "{}", want_errors.len());
    assert_eq!(all["errors"].as_array().expect("errors"), &want_errors);
    let hits: Vec<u64> = all["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["hits"].as_u64().expect("hits"))
        .collect();
    assert_eq!(hits, want_hits);
    assert!(hits.iter().sum::<u64>() > 0, "some errors are suppressed");
}

/// The same in human form: the row lines of each log alone, in order, then the table and
/// a summary that counts them all.
#[test]
fn several_logs_give_human_rows_in_log_order() {
    let text = |logs: &[&str]| -> String {
        String::from_utf8(run_mixed("human", logs).stdout).expect("UTF-8")
    };
    let rows = |t: &str| -> Vec<String> {
        t.lines()
            .take_while(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let all = text(&MIXED_LOGS);
    let mut want = Vec::new();
    for log in MIXED_LOGS {
        want.extend(rows(&text(&[log])));
    }
    assert_eq!(rows(&all), want);
    let summary = all
        .lines()
        .find(|l| l.contains("errors and loss records in"))
        .expect("summary");
    assert!(
        summary.starts_with(&format!(
            "{} errors and loss records in {} logs: ",
            want.len(),
            MIXED_LOGS.len()
        )),
        "{summary}"
    );
}

/// The streamed JSON is one valid document that holds every error and loss record the
/// log readers find, with every field of the contract.
#[test]
fn json_output_parses_and_holds_every_error() {
    let out = run_mixed("json", &MIXED_LOGS);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert!(out.stdout.ends_with(b"}\n"));
    let errors = v["errors"].as_array().expect("errors");
    for log in MIXED_LOGS {
        let (_, items) = vgsupp::logs::detect::read_all(&repo(log)).expect("log");
        let lines: Vec<u64> = items
            .iter()
            .filter_map(|i| match i {
                vgsupp::logs::record::LogItem::Error(e) => Some(e.line),
                _ => None,
            })
            .collect();
        let got: Vec<u64> = errors
            .iter()
            .filter(|e| e["log"] == log)
            .map(|e| e["line"].as_u64().expect("line"))
            .collect();
        assert!(!lines.is_empty(), "{log}");
        assert_eq!(got, lines, "{log}");
    }
    for e in errors {
        for key in [
            "log",
            "line",
            "pid",
            "kind",
            "leak_kind",
            "suppressed_by",
            "suppressed",
            "approximate",
        ] {
            assert!(e.get(key).is_some(), "missing {key}: {e}");
        }
    }
}

/// A log that breaks part-way (a truncated gzip member) fails the run with exit 2 and an
/// error naming it; the rows before it are already out (docs/formats.md).
#[test]
fn a_log_that_breaks_mid_way_fails_after_the_earlier_rows() {
    let dir = tempfile::tempdir().expect("tmp");
    let broken = dir.path().join("broken.txt.gz");
    let text = std::fs::read(repo("tests/data/logs/text/cudart12-libcuda535.txt")).expect("log");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &text).expect("gzip");
    let gz = gz.finish().expect("gzip");
    std::fs::write(&broken, &gz[..gz.len() * 2 / 3]).expect("write");
    let first = "tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt";
    let alone = String::from_utf8(run_mixed("human", &[first]).stdout).expect("UTF-8");
    let out = vgsupp()
        .current_dir(repo(""))
        .args([
            "match",
            "--errors",
            "-s",
            "examples/torch-extension/cuda-torch.supp",
            first,
        ])
        .arg(&broken)
        .arg("tests/data/logs/text/drd-errors.log")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.txt.gz"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first_rows: String = alone
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(stdout.starts_with(&first_rows), "{stdout}");
    assert!(!stdout.contains("drd-errors.log"), "{stdout}");
    assert!(!stdout.contains("errors and loss records"), "{stdout}");
}

/// A log that cannot be found fails the run before anything is printed.
#[test]
fn a_missing_log_fails_before_any_output() {
    vgsupp()
        .current_dir(repo(""))
        .args([
            "match",
            "-s",
            "examples/torch-extension/cuda-torch.supp",
            "tests/data/logs/text/cudart12-libcuda535.txt",
            "no-such.log",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("no-such.log"));
}

/// A directory is walked for files named like logs, skipping hidden entries; a file given
/// by name is read whatever its name. The copies here have the same content, so only the
/// names decide.
#[test]
fn directories_give_logs_by_name_and_skip_hidden_entries() {
    let log = std::fs::read(repo(
        "tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt",
    ))
    .expect("log");
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    for rel in [
        "run.log",
        "notes.md",
        ".hidden.log",
        ".git/x.log",
        "sub/ci.out",
    ] {
        let p = d.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, &log).expect("write");
    }
    let logs_of = |args: &[&Path]| -> Vec<String> {
        let v = run_json(&repo("examples/torch-extension/cuda-torch.supp"), args);
        let mut logs: Vec<String> = v["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| e["log"].as_str().expect("log").to_owned())
            .collect();
        logs.dedup();
        logs
    };
    let shown = |rel: &str| d.join(rel).display().to_string();
    assert_eq!(logs_of(&[d]), [shown("run.log"), shown("sub/ci.out")]);
    assert_eq!(
        logs_of(&[&d.join("notes.md"), &d.join(".hidden.log")]),
        [shown("notes.md"), shown(".hidden.log")]
    );
}

/// The progress line: on a terminal (here a pseudo-terminal from `script`) once the run is
/// due, never with `-q`, never when stderr is not a terminal.
#[test]
fn progress_only_on_a_terminal() {
    let bin = assert_cmd::cargo::cargo_bin("vgsupp");
    let log = repo("tests/data/logs/text/cudart12-libcuda535.txt");
    let supp = repo("examples/torch-extension/cuda-torch.supp");
    let command = |quiet: &str| {
        format!(
            "{} match {quiet} -s {} {} >/dev/null",
            bin.display(),
            supp.display(),
            log.display()
        )
    };
    let on_tty = |quiet: &str| -> Option<String> {
        let out = std::process::Command::new("script")
            .args(["-qec", &command(quiet), "/dev/null"])
            .env("VGSUPP_PROGRESS_AFTER_MS", "0")
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    match on_tty("") {
        Some(seen) => {
            assert!(seen.contains("replaying"), "{seen}");
            let quiet = on_tty("-q").expect("runs");
            assert!(!quiet.contains("replaying"), "{quiet}");
        }
        None => eprintln!(
            "progress_only_on_a_terminal: `script` is not available; terminal part skipped"
        ),
    }
    let piped = vgsupp()
        .env("VGSUPP_PROGRESS_AFTER_MS", "0")
        .args(["match", "-s"])
        .arg(&supp)
        .arg(&log)
        .output()
        .expect("run");
    assert!(piped.status.success());
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("replaying"));
}
