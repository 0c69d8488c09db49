//! `match` replays each log as it was recorded: the tool, the Valgrind release and the
//! `--num-callers` its preamble states decide how the rules load (issue 14, item 5).
//!
//! * Against the real Valgrind's recorded verdicts (`tests/data/valgrind/*.tsv`, what
//!   `valgrind --tool=T --num-callers=N --suppressions=F /bin/true` 3.19 says of every
//!   corpus file and variant): on a log of tool T recorded by 3.19 with that depth, `match`
//!   refuses exactly the files Valgrind refuses under T, and loads every other one — also
//!   those only another tool refuses.
//! * Live, with the real Valgrind: a `Memcheck,Helgrind:` rule file under Memcheck and
//!   Helgrind; the depth and release of text (`-v`) and XML logs; flags that override;
//!   warnings where logs disagree.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{repo, root, valgrind_available, vgsupp};

/// The tool line of a text preamble.
fn tool_line(tool: &str) -> &'static str {
    match tool {
        "memcheck" => "Memcheck, a memory error detector",
        "helgrind" => "Helgrind, a thread error detector",
        _ => "DRD, a thread error detector",
    }
}

/// A `-v` text log of `tool` recorded by Valgrind 3.19 with `--num-callers=nc`, without
/// errors: what `valgrind -v --tool=TOOL --num-callers=NC /bin/true` prints.
fn stand_in_log(tool: &str, nc: u32) -> String {
    format!(
        "==1== {}\n==1== Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.\n==1== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n==1== Command: /bin/true\n==1== \n--1-- Valgrind options:\n--1--    --tool={tool}\n--1--    --num-callers={nc}\n--1--    -v\n--1-- Contents of /proc/version:\n--1--   Linux version 6.1.0\n==1== \n==1== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)\n",
        tool_line(tool)
    )
}

/// One row of a verdict table: (file, tool, num_callers, verdict).
fn table(name: &str) -> Vec<(String, String, u32, String)> {
    let text =
        std::fs::read_to_string(repo(&format!("tests/data/valgrind/{name}"))).expect("table");
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_owned(),
                f[1].to_owned(),
                f[2].parse().expect("num_callers"),
                f[3].to_owned(),
            )
        })
        .collect()
}

/// `match`'s exit status on `log` with `supp` (a path relative to the repository root, as
/// the tables name it), run from the root, and whether it stopped because Valgrind loads
/// the file but crashes comparing an error with one of its rules (which `/bin/true`, with
/// no errors, never does: its verdict is `ok`).
fn match_status(bin: &Path, supp: &str, log: &Path) -> (Option<i32>, bool) {
    let out = Command::new(bin)
        .current_dir(root())
        .args(["match", "-q", "--no-config", "-s", supp])
        .arg(log)
        .output()
        .expect("run vgsupp");
    let crash = String::from_utf8_lossy(&out.stderr)
        .contains("crashes when it compares an error with this rule");
    (out.status.code(), crash)
}

#[test]
fn match_refuses_exactly_what_the_recording_tool_refused() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_vgsupp"));
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rows = table("corpus-verdicts.tsv");
    rows.extend(table("variant-verdicts.tsv"));
    assert!(rows.len() >= 1800, "every file × 3 tools: {}", rows.len());
    // The logs, one per (tool, depth).
    let mut logs = std::collections::BTreeMap::new();
    for (_, tool, nc, _) in &rows {
        logs.entry((tool.clone(), *nc)).or_insert_with(|| {
            let p = dir.path().join(format!("{tool}-{nc}.log"));
            std::fs::write(&p, stand_in_log(tool, *nc)).expect("write log");
            p
        });
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((file, tool, nc, verdict)) = rows.get(i) else {
                        break;
                    };
                    let code = match_status(&bin, file, &logs[&(tool.clone(), *nc)]);
                    results.lock().expect("lock").push((
                        file.clone(),
                        tool.clone(),
                        verdict.clone(),
                        code,
                    ));
                }
            });
        }
    });
    let results = results.into_inner().expect("lock");
    // Files that only another tool refuses: what `match` used to refuse wrongly.
    let refused_by = |file: &str, tool: &str| {
        results
            .iter()
            .any(|(f, t, v, _)| f == file && t == tool && matches!(v.as_str(), "fatal" | "abort"))
    };
    let mut wrong = Vec::new();
    let mut crashes = 0;
    let mut loads = 0;
    let mut refuses = 0;
    let mut only_others = 0;
    for (file, tool, verdict, (code, crash)) in &results {
        let refused = matches!(verdict.as_str(), "fatal" | "abort");
        let expected = if refused || *crash { Some(2) } else { Some(0) };
        crashes += usize::from(!refused && *crash);
        if refused {
            refuses += 1;
        } else {
            loads += 1;
            if ["memcheck", "helgrind", "drd"]
                .iter()
                .any(|t| t != tool && refused_by(file, t))
            {
                only_others += 1;
            }
        }
        if *code != expected {
            wrong.push(format!(
                "{file} on a {tool} log: Valgrind {verdict}, match exits {code:?}"
            ));
        }
    }
    eprintln!(
        "match on logs of the recording tool: {loads} file × tool pairs Valgrind loads ({only_others} refused only by another tool; {crashes} with a rule Valgrind crashes on when an error comes), {refuses} it refuses; {} disagreements",
        wrong.len()
    );
    // The rules Valgrind loads and crashes on later (FishyValue without its extra line,
    // Helgrind:FreeMemLock) are few, and each is named by the loader.
    assert!(crashes <= 8, "{crashes}");
    assert!(
        only_others > 0,
        "the tables hold files only another tool refuses"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `--tool` overrides the tool a log names (or, for an excerpt, names none).
#[test]
fn the_tool_flag_overrides_the_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let supp = dir.path().join("mh.supp");
    std::fs::write(
        &supp,
        "{\n   both\n   Memcheck,Helgrind:Cond\n   fun:main\n}\n",
    )
    .expect("w");
    let log = dir.path().join("memcheck.log");
    std::fs::write(&log, stand_in_log("memcheck", 12)).expect("w");
    let run = |extra: &[&str]| {
        vgsupp()
            .current_dir(dir.path())
            .args(["match", "--no-config", "-s"])
            .arg(&supp)
            .args(extra)
            .arg(&log)
            .output()
            .expect("run")
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = run(&["--tool", "helgrind"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Valgrind (helgrind) refuses this file")
            && stderr
                .contains("memcheck.log was recorded with Memcheck, not with the --tool given"),
        "{stderr}"
    );
    // An excerpt without its preamble is Memcheck's, or the --tool's.
    let excerpt = dir.path().join("excerpt.log");
    std::fs::write(
        &excerpt,
        "==1== Conditional jump or move depends on uninitialised value(s)\n==1==    at 0x109100: main (t.c:5)\n==1== \n",
    )
    .expect("w");
    let out = vgsupp()
        .args(["match", "--no-config", "--format", "json", "-s"])
        .arg(&supp)
        .arg(&excerpt)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["errors"][0]["suppressed"], "yes");
    let out = vgsupp()
        .args(["match", "--no-config", "--tool", "helgrind", "-s"])
        .arg(&supp)
        .arg(&excerpt)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

/// A small program with an uninitialised branch (`a` < `b` < `c` < `d` < `main`).
const PROGRAM: &str = r#"
#include <stdlib.h>
#include <stdio.h>
__attribute__((noinline)) void a(int *p) { if (p[3] > 0) puts("positive"); }
__attribute__((noinline)) void b(int *p) { a(p); }
__attribute__((noinline)) void c(int *p) { b(p); }
__attribute__((noinline)) void d(int *p) { c(p); }
int main(void) { int *p = malloc(10 * sizeof(int)); d(p); free(p); return 0; }
"#;

/// Build [`PROGRAM`] in `dir`.
fn build(dir: &Path) -> PathBuf {
    let src = dir.join("t.c");
    std::fs::write(&src, PROGRAM).expect("write source");
    let exe = dir.join("t");
    let st = Command::new("gcc")
        .args(["-g", "-O0", "-fno-inline", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("gcc");
    assert!(st.success(), "gcc failed");
    exe
}

/// Run the program under Valgrind with `args`; returns the log text (stderr, or the XML
/// file with `--xml=yes`).
fn valgrind(dir: &Path, exe: &Path, args: &[&str]) -> String {
    let xml = dir.join("run.xml");
    let mut cmd = Command::new("valgrind");
    cmd.current_dir(dir).env_remove("VALGRIND_OPTS").args(args);
    if args.contains(&"--xml=yes") {
        cmd.arg(format!("--xml-file={}", xml.display()));
    }
    let out = cmd.arg(exe).output().expect("valgrind");
    if args.contains(&"--xml=yes") {
        std::fs::read_to_string(&xml).expect("xml")
    } else {
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

/// `(suppressed by Valgrind, fatal)` of a text run: `ERROR SUMMARY … (suppressed: N …)`.
fn valgrind_suppressed(log: &str) -> (u64, bool) {
    let fatal = log.contains("FATAL: in suppressions file");
    let n = log
        .lines()
        .find_map(|l| l.split_once("ERROR SUMMARY: ").map(|x| x.1))
        .and_then(|s| s.split_once("(suppressed: "))
        .and_then(|(_, s)| s.split(' ').next()?.parse().ok())
        .unwrap_or(0);
    (n, fatal)
}

/// `match --format json` on `log`: (exit status, the rows' `suppressed`, stderr).
fn match_json(dir: &Path, supp: &Path, log: &Path, extra: &[&str]) -> (i32, Vec<String>, String) {
    let out = vgsupp()
        .current_dir(dir)
        .args(["match", "--format", "json", "-s"])
        .arg(supp)
        .args(extra)
        .arg(log)
        .output()
        .expect("run");
    let rows = serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .map(|v| {
            v["errors"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|e| e["kind"] != "Memcheck:Leak")
                        .map(|e| e["suppressed"].as_str().unwrap_or("").to_owned())
                        .collect()
                })
                .unwrap_or_default()
        })
        .unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        rows,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_multi_tool_rule_file_with_the_real_valgrind() {
    if !valgrind_available() {
        eprintln!("valgrind not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = build(dir.path());
    let supp = dir.path().join("mh.supp");
    std::fs::write(
        &supp,
        "{\n   both\n   Memcheck,Helgrind:Cond\n   fun:a\n}\n",
    )
    .expect("w");
    let s = format!("--suppressions={}", supp.display());
    // Memcheck runs with it and suppresses the error; Helgrind refuses it.
    let (n, fatal) = valgrind_suppressed(&valgrind(dir.path(), &exe, &[&s]));
    assert_eq!((n, fatal), (1, false));
    let (_, fatal) = valgrind_suppressed(&valgrind(dir.path(), &exe, &["--tool=helgrind", &s]));
    assert!(fatal, "Helgrind refuses Memcheck,Helgrind:Cond");
    // `match` on the logs each tool records without the file says the same.
    for (name, args) in [
        ("mc.txt", &[][..]),
        ("mc-v.txt", &["-v"][..]),
        ("mc.xml", &["--xml=yes"][..]),
    ] {
        let log = dir.path().join(name);
        std::fs::write(&log, valgrind(dir.path(), &exe, args)).expect("w");
        let (code, rows, stderr) = match_json(dir.path(), &supp, &log, &[]);
        assert_eq!(
            (code, rows),
            (0, vec!["yes".to_owned()]),
            "{name}: {stderr}"
        );
    }
    let hg = dir.path().join("hg.txt");
    std::fs::write(&hg, valgrind(dir.path(), &exe, &["--tool=helgrind"])).expect("w");
    let (code, _, stderr) = match_json(dir.path(), &supp, &hg, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("Valgrind (helgrind) refuses this file"),
        "{stderr}"
    );
    // A Memcheck log and a Helgrind log together: the Helgrind run could not have run.
    let mc = dir.path().join("mc.txt");
    let out = vgsupp()
        .args(["match", "-s"])
        .arg(&supp)
        .arg(&mc)
        .arg(&hg)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn depth_and_release_from_text_and_xml_logs() {
    if !valgrind_available() {
        eprintln!("valgrind not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = build(dir.path());
    // Four frames: cut at --num-callers=3 (a, b, c) it matches the error's stack a < b <
    // c; read at 12 it also needs `e` where the program has `d` (and a log recorded at
    // depth 3 shows neither).
    let supp = dir.path().join("deep.supp");
    std::fs::write(
        &supp,
        "{\n   deep\n   Memcheck:Cond\n   fun:a\n   fun:b\n   fun:c\n   fun:e\n}\n",
    )
    .expect("w");
    let s = format!("--suppressions={}", supp.display());
    let (n, fatal) = valgrind_suppressed(&valgrind(dir.path(), &exe, &["--num-callers=3", &s]));
    assert_eq!((n, fatal), (1, false), "Valgrind cuts the rule at 3 frames");
    let (n, _) = valgrind_suppressed(&valgrind(dir.path(), &exe, &["--num-callers=12", &s]));
    assert_eq!(n, 0, "at 12 frames the rule needs `e`");
    let text = dir.path().join("v3.txt");
    std::fs::write(
        &text,
        valgrind(dir.path(), &exe, &["-v", "--num-callers=3"]),
    )
    .expect("w");
    let xml = dir.path().join("v3.xml");
    std::fs::write(
        &xml,
        valgrind(dir.path(), &exe, &["--xml=yes", "--num-callers=3"]),
    )
    .expect("w");
    for log in [&text, &xml] {
        let (code, rows, stderr) = match_json(dir.path(), &supp, log, &[]);
        assert_eq!(
            (code, rows),
            (0, vec!["yes".to_owned()]),
            "{}",
            log.display()
        );
        assert!(!stderr.contains("warning"), "no warning: {stderr}");
        // The flag overrides the log, with a warning.
        let (code, rows, stderr) = match_json(dir.path(), &supp, log, &["--num-callers", "12"]);
        assert_eq!(
            (code, rows),
            (0, vec!["no".to_owned()]),
            "{}",
            log.display()
        );
        assert!(
            stderr.contains(
                "was recorded with --num-callers=3, but its rules are read as with --num-callers=12"
            ),
            "{stderr}"
        );
    }
    // Logs recorded at different depths: each is replayed at its own, with a warning.
    let text12 = dir.path().join("v12.txt");
    std::fs::write(&text12, valgrind(dir.path(), &exe, &["-v"])).expect("w");
    let out = vgsupp()
        .current_dir(dir.path())
        .args(["match", "--format", "json", "-s"])
        .arg(&supp)
        .arg(&text)
        .arg(&text12)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the logs were recorded with different --num-callers (3: ")
            && stderr.contains("; 12: "),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let verdicts: Vec<(&str, &str)> = v["errors"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|e| e["kind"] == "Memcheck:Cond")
        .map(|e| {
            (
                e["log"].as_str().unwrap_or(""),
                e["suppressed"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        verdicts.iter().map(|x| x.1).collect::<Vec<_>>(),
        ["yes", "no"],
        "{verdicts:?}"
    );

    // The release: 3.19 has no ReallocZero; Valgrind 3.19 refuses the file, and so does
    // `match` on its logs, though 3.27 (the default) loads it.
    let zero = dir.path().join("zero.supp");
    std::fs::write(
        &zero,
        "{\n   zero\n   Memcheck:ReallocZero\n   fun:realloc\n}\n",
    )
    .expect("w");
    let (_, fatal) = valgrind_suppressed(&valgrind(
        dir.path(),
        &exe,
        &[&format!("--suppressions={}", zero.display())],
    ));
    assert!(fatal, "Valgrind 3.19 refuses Memcheck:ReallocZero");
    for log in [&text, &xml] {
        let (code, _, stderr) = match_json(dir.path(), &zero, log, &[]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("refuses this file")
                && stderr.contains("as Valgrind 3.19 loads it: the release that recorded")
                && stderr.contains("(see `vgsupp check --valgrind 3.19`)"),
            "{stderr}"
        );
        // The flag overrides the log, with a warning.
        let (code, _, stderr) = match_json(dir.path(), &zero, log, &["--valgrind", "3.27"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stderr.contains("was recorded by Valgrind 3.19.0, but its rules are loaded as Valgrind 3.27 loads them"),
            "{stderr}"
        );
        // vgsupp.yaml's release applies to logs that name none: this one names 3.19.
        std::fs::write(dir.path().join("vgsupp.yaml"), "valgrind: \"3.27\"\n").expect("w");
        let (code, _, stderr) = match_json(dir.path(), &zero, log, &[]);
        std::fs::remove_file(dir.path().join("vgsupp.yaml")).expect("rm");
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(
                "the project's release is Valgrind 3.27 (`valgrind:` of vgsupp.yaml), but"
            ),
            "{stderr}"
        );
    }
}
