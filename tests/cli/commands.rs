//! The `vgsupp` binary as a user drives it: output formats (snapshots), exit codes, `fmt`
//! in place, walking, and bad input.

use std::os::unix::fs::PermissionsExt as _;

use predicates::prelude::*;

use crate::common::{repo, vgsupp};

fn fixture(name: &str) -> String {
    format!("tests/fixtures/{name}")
}

fn run_check(args: &[&str]) -> (String, i32) {
    let out = vgsupp()
        .current_dir(repo(""))
        .arg("check")
        .args(args)
        .output()
        .expect("run");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn check_human_output() {
    let (out, code) = run_check(&[&fixture("mixed.supp")]);
    assert_eq!(code, 1, "an error-level finding exits 1");
    insta::assert_snapshot!(out);
}

#[test]
fn check_json_output_follows_the_contract() {
    let (out, code) = run_check(&["--format", "json", &fixture("mixed.supp")]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["files"], 1);
    assert_eq!(v["rules"], 4);
    for d in v["diagnostics"].as_array().expect("diagnostics") {
        let keys: Vec<&str> = d
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "code",
                "column",
                "fatal_in_valgrind",
                "file",
                "line",
                "message",
                "rule",
                "severity"
            ]
        );
    }
    insta::assert_snapshot!(out);
}

#[test]
fn check_sarif_output() {
    let (out, _) = run_check(&["--format", "sarif", &fixture("mixed.supp")]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    let rules = v["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    for r in results {
        let idx = usize::try_from(r["ruleIndex"].as_u64().expect("ruleIndex")).expect("index");
        assert_eq!(rules[idx]["id"], r["ruleId"]);
    }
    insta::assert_snapshot!(serde_json::to_string_pretty(&v["runs"][0]["results"]).expect("json"));
}

#[test]
fn check_github_output() {
    let (out, _) = run_check(&["--format", "github", &fixture("mixed.supp")]);
    assert!(
        out.lines()
            .all(|l| l.starts_with("::error ") || l.starts_with("::warning "))
    );
    insta::assert_snapshot!(out);
}

#[test]
fn check_clean_file_exits_0() {
    let (out, code) = run_check(&[&fixture("clean.supp")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors and 0 warnings"));
}

#[test]
fn check_strict_fails_on_warnings() {
    let (_, code) = run_check(&["--strict", &fixture("unformatted.supp")]);
    assert_eq!(code, 1);
    let (_, code) = run_check(&[&fixture("unformatted.supp")]);
    assert_eq!(code, 0);
}

#[test]
fn check_tool_and_version_change_verdicts() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = dir.path().join("multi.supp");
    std::fs::write(&f, "{\n   r\n   Memcheck,Helgrind:Addr4\n   fun:f\n}\n\n{\n   z\n   Memcheck:ReallocZero\n   fun:g\n}\n").expect("write");
    let json = |args: &[&str]| -> Vec<(String, u64)> {
        let out = vgsupp()
            .arg("check")
            .arg("--format=json")
            .args(args)
            .arg(&f)
            .output()
            .expect("run");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["diagnostics"]
            .as_array()
            .expect("arr")
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().expect("code").to_owned(),
                    d["line"].as_u64().expect("line"),
                )
            })
            .collect()
    };
    assert_eq!(json(&["--tool=memcheck", "--valgrind=3.27"]), vec![]);
    assert_eq!(
        json(&["--tool=memcheck", "--valgrind=3.19"]),
        vec![("VS106".to_owned(), 9)]
    );
    assert_eq!(json(&["--tool=helgrind"]), vec![("VS106".to_owned(), 3)]);
    assert_eq!(
        json(&["--valgrind=3.19.0"]),
        vec![("VS106".to_owned(), 3), ("VS106".to_owned(), 9)]
    );
}

#[test]
fn check_explain() {
    vgsupp()
        .args(["check", "--explain", "VS106"])
        .assert()
        .success()
        .stdout(predicate::str::contains("unknown-tool-kind"));
    vgsupp()
        .args(["check", "--explain", "VS999"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown rule"));
}

#[test]
fn bad_usage_and_missing_paths_exit_2() {
    vgsupp()
        .args(["check", "no/such/file.supp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no/such/file.supp"));
    vgsupp()
        .args(["fmt", "no/such/dir"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no/such/dir"));
    vgsupp()
        .args(["check", "--valgrind", "2.0", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--valgrind"));
    vgsupp().args(["check", "--format", "xml"]).assert().code(2);
    vgsupp().arg("frobnicate").assert().code(2);
}

#[test]
fn binary_garbage_is_reported_not_a_panic() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = dir.path().join("garbage.supp");
    let mut bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    bytes.extend(std::iter::repeat_n(b'x', 60_000));
    std::fs::write(&f, &bytes).expect("write");
    let out = vgsupp()
        .args(["check", "--format=json"])
        .arg(&f)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .expect("arr")
        .iter()
        .map(|d| d["code"].as_str().expect("code"))
        .collect();
    // A binary file (NUL bytes): only where Valgrind stops (its first line), not the
    // later long line or the garbage between (tests/cli/inputs.rs).
    assert_eq!(codes, ["VS101"]);
    vgsupp().args(["fmt", "--check"]).arg(&f).assert().code(2);
    // Without NUL bytes it is text: every problem, the long line's VS116 among them.
    let text: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == 0 { b'.' } else { b })
        .collect();
    std::fs::write(&f, &text).expect("write");
    let out = vgsupp()
        .args(["check", "--format=json"])
        .arg(&f)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .expect("arr")
        .iter()
        .map(|d| d["code"].as_str().expect("code"))
        .collect();
    assert!(
        codes.contains(&"VS101") && codes.contains(&"VS116"),
        "{codes:?}"
    );
    vgsupp().args(["fmt", "--check"]).arg(&f).assert().code(1);
}

#[test]
fn fmt_check_and_diff_write_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = dir.path().join("u.supp");
    std::fs::copy(repo(&fixture("unformatted.supp")), &f).expect("copy");
    let before = std::fs::read(&f).expect("read");
    let out = vgsupp()
        .args(["fmt", "--check"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let diff = String::from_utf8(out)
        .expect("utf-8")
        .replace(&f.display().to_string(), "u.supp");
    insta::assert_snapshot!(diff);
    vgsupp()
        .args(["fmt", "--diff"])
        .arg(&f)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("+   Memcheck:Cond"));
    assert_eq!(
        std::fs::read(&f).expect("read"),
        before,
        "--check/--diff must not write"
    );
}

#[test]
fn fmt_writes_atomically_keeping_permissions_and_symlinks() {
    let dir = tempfile::tempdir().expect("tmp");
    let real = dir.path().join("real.supp");
    std::fs::copy(repo(&fixture("unformatted.supp")), &real).expect("copy");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = dir.path().join("link.supp");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    vgsupp()
        .arg("fmt")
        .arg(&link)
        .assert()
        .success()
        .stderr(predicate::str::contains("formatted"));
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let mode = std::fs::metadata(&real).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let formatted = std::fs::read(&real).expect("read");
    assert!(vgsupp::supp::is_formatted(&vgsupp::supp::parse(formatted)));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".vgsupp-"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left behind");
    vgsupp()
        .args(["fmt", "--check"])
        .arg(&real)
        .assert()
        .success();
}

#[test]
fn directories_are_walked_for_suppression_files() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(dir.path().join("a/b")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    for name in [
        "a/one.supp",
        "a/b/two.sup",
        "a/b/three.txt",
        ".git/four.supp",
        "a/b/five.supp.in",
    ] {
        std::fs::write(
            dir.path().join(name),
            "{\n   r\n   Memcheck:Cond\n   fun:f\n}\n",
        )
        .expect("write");
    }
    let out = vgsupp()
        .args(["check", "--format=json"])
        .arg(dir.path())
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["files"], 2, "*.supp and *.sup, not .git/ or other names");
    let out = vgsupp()
        .args(["check", "--format=json", "--glob", "*.supp.in"])
        .arg(dir.path())
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["files"], 1);
}

#[test]
fn help_and_completions() {
    vgsupp().arg("--help").assert().success().stdout(
        predicate::str::contains("fmt")
            .and(predicate::str::contains("check"))
            .and(predicate::str::contains("Exit codes")),
    );
    vgsupp()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("vgsupp"));
}

#[test]
fn no_color_by_default_when_piped() {
    let (out, _) = run_check(&[&fixture("mixed.supp")]);
    assert!(!out.contains('\u{1b}'));
    let out = vgsupp()
        .current_dir(repo(""))
        .args(["--color=always", "check", &fixture("mixed.supp")])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains('\u{1b}'));
}

/// `docs/rules/` is generated from the registry; regenerate with `UPDATE_RULE_DOCS=1`.
#[test]
fn rule_docs_are_current() {
    use vgsupp::catalogue::{RULES, render_doc, render_index};
    let dir = repo("docs/rules");
    let mut expected = vec![("README.md".to_owned(), render_index())];
    expected.extend(
        RULES
            .iter()
            .map(|r| (format!("{}.md", r.code), render_doc(r))),
    );
    if std::env::var_os("UPDATE_RULE_DOCS").is_some() {
        std::fs::create_dir_all(&dir).expect("mkdir");
        for (name, text) in &expected {
            std::fs::write(dir.join(name), text).expect("write");
        }
    }
    for (name, text) in &expected {
        let on_disk = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            &on_disk == text,
            "docs/rules/{name} is stale: run UPDATE_RULE_DOCS=1 cargo test --test cli rule_docs"
        );
    }
}

/// What the formatter makes of every construct (comments, blank runs, CRLF, tabs, leak-kind
/// respelling, another tool's unvalidated body).
#[test]
fn formatter_output() {
    let src = std::fs::read(repo(&fixture("kitchen-sink.supp"))).expect("read");
    let formatted = vgsupp::supp::format_source(&src);
    assert_eq!(
        vgsupp::supp::format_source(&formatted),
        formatted,
        "idempotent"
    );
    insta::assert_snapshot!(String::from_utf8(formatted).expect("utf-8"));
}
