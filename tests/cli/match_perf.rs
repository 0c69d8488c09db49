//! What `vgsupp match` does to be fast must not show: answers the replay keeps from error to
//! error, and how the report reaches stdout.

use std::io::Write as _;

use crate::common::{repo, vgsupp};

/// The errors and loss records of the basic suite's baseline (with their gen blocks) up to
/// its `LEAK SUMMARY`, as lines without their `==1000== ` prefix where they had one
/// (`false` for gen-block lines): 26 errors and 6 loss records, several from `malloc`.
fn errors() -> Vec<(bool, String)> {
    let text =
        std::fs::read_to_string(repo("tests/data/match/basic/baseline.txt")).expect("baseline");
    let mut out = Vec::new();
    let (mut started, mut in_gen) = (false, false);
    for line in text.lines() {
        if in_gen {
            out.push((false, line.to_owned()));
            in_gen = line != "}";
        } else if line == "==1000== LEAK SUMMARY:" {
            break;
        } else if line == "{" && started {
            out.push((false, line.to_owned()));
            in_gen = true;
        } else if let Some(body) = line.strip_prefix("==1000== ") {
            started |= body.starts_with("Invalid ");
            if started {
                out.push((true, body.to_owned()));
            }
        }
    }
    out
}

/// One process of `pid` printing `errors`, with its preamble and summary.
fn process(pid: u32, errors: &[(bool, String)], n: usize) -> String {
    let mut s = format!(
        "=={pid}== Memcheck, a memory error detector\n=={pid}== Command: ./basic\n=={pid}== \n"
    );
    for (prefixed, line) in errors {
        if *prefixed {
            s.push_str(&format!("=={pid}== {line}\n"));
        } else {
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push_str(&format!(
        "=={pid}== ERROR SUMMARY: {n} errors from {n} contexts (suppressed: 0 from 0)\n"
    ));
    s
}

/// Rules that match these errors surely, maybe (the frames below `main` are hidden) and
/// not at all, several for the same errors; leak rules searched first (loaded last) that
/// tell loss records from `malloc` apart by the frame below it.
const RULES: &str = "\
{\n   leaf\n   Memcheck:Addr4\n   fun:read_int_past_end\n}\n\
{\n   under-main\n   Memcheck:Addr4\n   ...\n   fun:main\n}\n\
{\n   in-a-library\n   Memcheck:Addr4\n   ...\n   obj:*/libfoo.so*\n}\n\
{\n   any-cond\n   Memcheck:Cond\n   ...\n   fun:*\n}\n\
{\n   libc-below\n   Memcheck:Param\n   write(buf)\n   ...\n   obj:/usr/lib/*\n}\n\
{\n   never\n   Memcheck:Addr1\n   fun:nothing_like_it\n}\n\
{\n   any-leak\n   Memcheck:Leak\n   fun:malloc\n   ...\n   fun:main\n}\n\
{\n   definite-leak\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n   fun:leak_definite\n}\n\
{\n   indirect-leak\n   Memcheck:Leak\n   match-leak-kinds: indirect\n   fun:malloc\n   fun:leak_indirect\n}\n";

/// The JSON rows of a run, without where each error is (log, line, process).
fn rows(out: &[u8]) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_slice(out).expect("JSON");
    doc["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|r| {
            let mut r = r.clone();
            for k in ["log", "line", "pid"] {
                r.as_object_mut().expect("row").remove(k);
            }
            r
        })
        .collect()
}

/// The same errors get the same rows whether the replay has seen them before (in an
/// earlier process of the log, whose answers it keeps) or not (a log of their own).
#[test]
fn repeated_errors_get_the_rows_of_fresh_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let errs = errors();
    let supp = dir.path().join("rules.supp");
    std::fs::write(&supp, RULES).expect("write");
    // Process 7 sees them twice (the second time in another search order), process 8
    // once more.
    let twice: Vec<(bool, String)> = errs.iter().chain(&errs).cloned().collect();
    let both = dir.path().join("both.log");
    std::fs::write(
        &both,
        format!("{}{}", process(7, &twice, 52), process(8, &errs, 26)),
    )
    .expect("write");
    let alone = dir.path().join("alone.log");
    std::fs::write(&alone, process(9, &errs, 26)).expect("write");
    let run = |log: &std::path::Path| {
        let out = vgsupp()
            .args(["match", "--format", "json", "-s"])
            .arg(&supp)
            .arg(log)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        rows(&out.stdout)
    };
    let fresh = run(&alone);
    assert_eq!(fresh.len(), 32);
    let leaks: Vec<&serde_json::Value> = fresh
        .iter()
        .filter(|r| r["leak_kind"].is_string())
        .collect();
    // Loss records 1-6: from malloc in leak_indirect, leak_definite, leak_indirect,
    // leak_possible; calloc; realloc.
    let credited: Vec<Option<&str>> = leaks
        .iter()
        .map(|r| r["suppressed_by"]["name"].as_str())
        .collect();
    assert_eq!(
        credited,
        [
            Some("indirect-leak"),
            Some("definite-leak"),
            Some("any-leak"),
            Some("any-leak"),
            None,
            None
        ]
    );
    assert!(
        fresh.iter().any(|r| r["approximate"] == true)
            && fresh.iter().any(|r| r["suppressed_by"].is_object()),
        "the rules give sure and approximate rows: {fresh:?}"
    );
    let seen = run(&both);
    assert_eq!(seen.len(), 96);
    assert_eq!(&seen[..32], fresh.as_slice(), "the first time");
    assert_eq!(&seen[64..], fresh.as_slice(), "in the next process");
}

/// The report goes to stdout as it is: opened for appending, after what the file holds.
#[test]
fn the_report_is_appended_where_stdout_appends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let supp = dir.path().join("rules.supp");
    std::fs::write(&supp, RULES).expect("write");
    let log = dir.path().join("a.log");
    std::fs::write(&log, process(9, &errors(), 26)).expect("write");
    let args = |cmd: &mut std::process::Command| {
        cmd.args(["match", "--format", "json", "-s"])
            .arg(&supp)
            .arg(&log);
    };
    let bin = env!("CARGO_BIN_EXE_vgsupp");
    let mut piped = std::process::Command::new(bin);
    args(&mut piped);
    let want = piped.output().expect("run").stdout;
    assert!(
        want.starts_with(b"{\"errors\":[{"),
        "{}",
        String::from_utf8_lossy(&want)
    );
    let out = dir.path().join("out.json");
    std::fs::File::create(&out)
        .and_then(|mut f| f.write_all(b"before\n"))
        .expect("write");
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&out)
        .expect("open");
    let mut cmd = std::process::Command::new(bin);
    args(&mut cmd);
    let status = cmd.stdout(file).status().expect("run");
    assert!(status.success());
    let got = std::fs::read(&out).expect("read");
    assert_eq!(got, [b"before\n".as_slice(), &want].concat());
}
