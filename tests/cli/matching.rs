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
    let out = vgsupp()
        .args(["match", "--format", "json", "-s"])
        .arg(supp)
        .args(logs)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
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
        assert_eq!(e["approximate"], false, "{e}");
        for key in ["log", "line", "pid", "kind", "leak_kind", "suppressed_by"] {
            assert!(e.get(key).is_some(), "missing {key}");
        }
    }
    let rules = v["rules"].as_array().expect("rules");
    let hits: u64 = rules
        .iter()
        .map(|r| r["hits"].as_u64().expect("hits"))
        .sum();
    assert_eq!(
        hits as usize,
        errors.len(),
        "every error credits exactly one rule"
    );
}

/// A log without gen blocks shows demangled names only: C++ frames make verdicts approximate.
#[test]
fn demangled_only_logs_are_marked_approximate() {
    let log = repo("tests/data/logs/text/leaky-ext-article-command.txt.gz");
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("cxx.supp");
    std::fs::write(
        &supp,
        "{\n   cxx\n   Memcheck:Leak\n   fun:_Znam\n   fun:_Z18dangerous_functionv\n}\n",
    )
    .expect("write");
    let out = vgsupp()
        .args(["match", "--format", "json", "-s"])
        .arg(&supp)
        .arg(&log)
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("demangled"),
        "says so once"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .any(|e| e["approximate"] == true)
    );
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
        .stderr(predicates::str::contains("bad.supp:4"));
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
    let log = repo("tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt");
    let out = vgsupp()
        .current_dir(repo(""))
        .args([
            "match",
            "-s",
            "examples/torch-extension/cuda-torch.supp",
            "tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt",
        ])
        .output()
        .expect("run");
    assert!(out.status.success());
    let _ = log;
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}
