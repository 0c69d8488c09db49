//! `vgsupp.yaml` layered under the flags of `check`, `fmt` and `match` (flag > config >
//! default), found upward from the working directory or given with `--config`; and
//! `check` reading each file's sidecar.

use std::path::Path;

use crate::common::vgsupp;

const NEW_KIND: &str = "{\n   zero\n   Memcheck:ReallocZero\n   fun:realloc\n}\n";
const CORE_FD: &str = "{\n   fd\n   CoreError:FdNotClosed\n   fun:open\n}\n";

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// `vgsupp ARGS` in `dir`: exit code, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = vgsupp()
        .current_dir(dir)
        .env("VGSUPP_TODAY", "2026-06-01")
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn codes(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["code"].as_str().unwrap_or("?"),
                d["severity"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

#[test]
fn check_takes_the_target_release_from_the_config_unless_flagged() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(d, "a.supp", CORE_FD);
    let json = ["check", "--format", "json"];
    assert_eq!(
        codes(&run(d, &json).1),
        Vec::<String>::new(),
        "3.27 knows FdNotClosed"
    );
    write(d, "vgsupp.yaml", "valgrind: \"3.22\"\n");
    assert_eq!(codes(&run(d, &json).1), ["VS210 warning"]);
    let flagged = run(d, &["check", "--format", "json", "--valgrind", "3.27"]);
    assert_eq!(codes(&flagged.1), Vec::<String>::new(), "the flag wins");
    assert_eq!(
        codes(&run(d, &["--no-config", "check", "--format", "json"]).1),
        Vec::<String>::new()
    );
}

#[test]
fn config_is_found_upward_or_given() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(d, "proj/vgsupp.yaml", "valgrind: \"3.22\"\n");
    write(d, "proj/sub/deeper/a.supp", CORE_FD);
    write(d, "other.yaml", "valgrind: \"3.27\"\n");
    let deeper = d.join("proj/sub/deeper");
    assert_eq!(
        codes(&run(&deeper, &["check", "--format", "json"]).1),
        ["VS210 warning"]
    );
    let other = d.join("other.yaml");
    let given = run(
        &deeper,
        &[
            "--config",
            other.to_str().expect("utf-8"),
            "check",
            "--format",
            "json",
        ],
    );
    assert_eq!(codes(&given.1), Vec::<String>::new());
    let (code, _, err) = run(&deeper, &["-v", "check", "--format", "json"]);
    assert_eq!(code, 0);
    assert!(
        err.contains("config: ")
            && err.contains("valgrind = 3.22 (")
            && err.contains("vgsupp.yaml:1)"),
        "{err}"
    );
    assert!(
        err.contains("suppressions = *.supp, *.sup (default)"),
        "{err}"
    );
    let missing = run(&deeper, &["--config", "nope.yaml", "check"]);
    assert_eq!(missing.0, 2);
    assert!(
        missing.2.contains("cannot read `nope.yaml`"),
        "{}",
        missing.2
    );
}

#[test]
fn suppression_globs_from_the_config_walk_directories() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(
        d,
        "rules/a.vgs",
        "  {\n  r\n  Memcheck:Leak\n  match-leak-kinds: reachable\n  fun:malloc\n  }\n",
    );
    write(
        d,
        "rules/b.supp",
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n",
    );
    let files = |out: &str| {
        let v: serde_json::Value = serde_json::from_str(out).expect("JSON");
        v["files"].as_u64().expect("files")
    };
    assert_eq!(files(&run(d, &["check", "--format", "json", "rules"]).1), 1);
    write(d, "vgsupp.yaml", "suppressions: [\"*.vgs\"]\n");
    let out = run(d, &["check", "--format", "json", "rules"]).1;
    assert_eq!(files(&out), 1);
    assert_eq!(codes(&out), ["VS901 warning"], "a.vgs is the one taken");
    // --glob replaces the config's globs.
    assert_eq!(
        codes(
            &run(
                d,
                &["check", "--format", "json", "--glob", "*.supp", "rules"]
            )
            .1
        ),
        Vec::<String>::new()
    );
    // fmt walks the same files.
    let (code, _, err) = run(d, &["fmt", "--check", "rules"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("would reformat rules/a.vgs"), "{err}");
}

#[test]
fn lint_severities_from_the_config() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(
        d,
        "a.supp",
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n",
    );
    write(
        d,
        "a.supp.yaml",
        "version: 1\nrules:\n  r:\n    reason: why\n    expires: 2026-01-01\n",
    );
    write(
        d,
        "b.supp",
        "  {\n  s\n  memcheck:Leak\n  fun:malloc\n  }\n",
    );
    let (code, out, _) = run(d, &["check", "--format", "json"]);
    assert_eq!(
        (code, codes(&out)),
        (
            1,
            vec![
                "VS403 error".to_owned(),
                "VS901 warning".into(),
                "VS201 warning".into()
            ]
        )
    );
    write(
        d,
        "vgsupp.yaml",
        "lints:\n  expired: warning\n  not-formatted: off\n  VS201: error\n",
    );
    let (code, out, _) = run(d, &["check", "--format", "json"]);
    assert_eq!(
        (code, codes(&out)),
        (1, vec!["VS403 warning".to_owned(), "VS201 error".into()])
    );
    write(d, "vgsupp.yaml", "lints:\n  VS106: warning\n");
    let (code, _, err) = run(d, &["check"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("vgsupp.yaml`: line 2: `lints`: VS106 cannot be set to `warning`"),
        "{err}"
    );
}

#[test]
fn sidecar_settings_from_config_and_flags() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(
        d,
        "a.supp",
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n",
    );
    write(
        d,
        "a.supp.yaml",
        "version: 1\nrules:\n  r:\n    reason: why\n    expires: 2026-06-20\n",
    );
    assert_eq!(
        codes(&run(d, &["check", "--format", "json"]).1),
        Vec::<String>::new(),
        "19 days away"
    );
    assert_eq!(
        codes(&run(d, &["check", "--format", "json", "--expiring-within", "30"]).1),
        ["VS404 info"]
    );
    write(
        d,
        "vgsupp.yaml",
        "sidecar:\n  expiring-within: 30\n  required: [reason, owner]\n",
    );
    assert_eq!(
        codes(&run(d, &["check", "--format", "json"]).1),
        ["VS406 warning", "VS404 info"]
    );
    assert_eq!(
        codes(&run(d, &["check", "--format", "json", "--expiring-within", "5"]).1),
        ["VS406 warning"]
    );
}

#[test]
fn unknown_config_keys_warn_and_bad_values_stop() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(
        d,
        "a.supp",
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n",
    );
    write(d, "vgsupp.yaml", "valgrnd: \"3.19\"\n");
    let (code, _, err) = run(d, &["check"]);
    assert_eq!(code, 0);
    assert!(
        err.contains("vgsupp.yaml: line 1: unknown key `valgrnd` (ignored)"),
        "{err}"
    );
    write(d, "vgsupp.yaml", "x: 1\nvalgrind: [3.19]\n");
    let (code, _, err) = run(d, &["check"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("line 2: `valgrind` must be a release such as \"3.19\", not a sequence"),
        "{err}"
    );
    write(d, "vgsupp.yaml", "a: &x [1]\nb: *x\n");
    let (code, _, err) = run(d, &["check"]);
    assert_eq!(code, 2);
    assert!(err.contains("line 2: aliases"), "{err}");
}

#[test]
fn match_takes_the_target_release_from_the_config_unless_flagged() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(d, "new.supp", NEW_KIND);
    write(
        d,
        "run.log",
        "==1== Memcheck, a memory error detector\n==1== \n",
    );
    let args = ["match", "--format", "json", "-s", "new.supp", "run.log"];
    assert_eq!(run(d, &args).0, 0, "3.27 knows ReallocZero");
    write(d, "vgsupp.yaml", "valgrind: \"3.19\"\n");
    let (code, _, err) = run(d, &args);
    assert_eq!(code, 2, "Valgrind 3.19 refuses the file");
    assert!(err.contains("VS106"), "{err}");
    let flagged = [
        "match",
        "--valgrind",
        "3.27",
        "--format",
        "json",
        "-s",
        "new.supp",
        "run.log",
    ];
    assert_eq!(run(d, &flagged).0, 0);
    let (code, _, err) = run(
        d,
        &["match", "--valgrind", "2.0", "-s", "new.supp", "run.log"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("invalid --valgrind"), "{err}");
}

#[test]
fn check_reports_an_unreadable_sidecar_and_goes_on() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    write(
        d,
        "a.supp",
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n",
    );
    let bomb = format!(
        "version: 1\nrules:\n  r: &a [{}]\n  s: [*a, *a]\n",
        ["x"; 10].join(", ")
    );
    write(d, "a.supp.yaml", &bomb);
    write(
        d,
        "b.supp",
        "{\n   s\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:calloc\n}\n",
    );
    let (code, out, _) = run(d, &["--color", "never", "check"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[VS407]: aliases (`*name`) are not allowed"),
        "{out}"
    );
    assert!(out.contains(" --> a.supp.yaml:4:3"), "{out}");
    assert!(out.contains("in 2 files"), "{out}");
}
