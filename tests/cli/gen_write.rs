//! `gen -o` never destroys a file (an existing one is appended to, `--force` replaces it,
//! only regular files are written, a symlink is followed, everything is checked before
//! anything is written, the file and its sidecar land together), and what the sidecar
//! records travels (expiry, log paths relative to the sidecar, the whole command).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{repo, vgsupp};

const FIRST_PARTY: &str = "leaky_ext*";
const TODAY: &str = "2026-12-01";

/// A project directory holding the excerpt log as `run.txt`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::copy(
        repo("tests/data/gen/torch-excerpt.txt"),
        dir.path().join("run.txt"),
    )
    .expect("copy");
    dir
}

/// `vgsupp gen ARGS` in `dir` (no vgsupp.yaml above it is read: `--no-config` unless the
/// test writes one), JSON on stdout.
fn gen_in(dir: &Path, args: &[&str]) -> Output {
    gen_with(dir, args, &[])
}

fn gen_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = vgsupp();
    cmd.current_dir(dir).env("VGSUPP_TODAY", TODAY).arg("gen");
    if !dir.join("vgsupp.yaml").exists() {
        cmd.arg("--no-config");
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(args)
        .args(["--format", "json"])
        .output()
        .expect("run")
}

fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "gen failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn rule_names(report: &Value) -> Vec<String> {
    report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["name"].as_str().expect("name").to_owned())
        .collect()
}

fn sidecar(path: &Path) -> vgsupp::sidecar::Sidecar {
    let d = vgsupp::sidecar::decode(&std::fs::read(path).expect("sidecar")).expect("reads");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    d.sidecar
}

/// The records of a suppression file, by name.
fn record(src: &str, name: &str) -> String {
    let at = src
        .find(&format!("\n   {name}\n"))
        .unwrap_or_else(|| panic!("no rule {name} in\n{src}"));
    let start = src[..at].rfind('{').expect("open");
    let end = src[at..].find("\n}").expect("close") + at + 2;
    src[start..end].to_owned()
}

/// Names of the entries of `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    v.sort();
    v
}

/// What a fresh `gen` writes for the excerpt: its rules, and the file.
fn fresh() -> (Vec<String>, String) {
    let dir = project();
    let report = ok(&gen_in(
        dir.path(),
        &["run.txt", "--first-party", FIRST_PARTY, "-o", "fresh.supp"],
    ));
    let text = std::fs::read_to_string(dir.path().join("fresh.supp")).expect("fresh");
    (rule_names(&report), text)
}

/// A hand-written file: comments, tabs, no final newline, one rule that hides what the
/// first generated rule would, one whose name the second generated rule has (but not its
/// body).
fn hand_written(fresh_names: &[String], fresh_text: &str) -> String {
    let hides = record(fresh_text, &fresh_names[0]).replacen(&fresh_names[0], "hand-made", 1);
    format!(
        "# Our own rules: keep this comment.\n\n{hides}\n\n#\tanother comment\n{{\n\t{}\n\tMemcheck:Leak\n\tfun:no_such_function_anywhere\n}}",
        fresh_names[1]
    )
}

#[test]
fn an_existing_file_is_appended_to_byte_for_byte_and_a_rerun_adds_nothing() {
    let (names, text) = fresh();
    assert!(names.len() >= 2, "{names:?}");
    let dir = project();
    let hand = hand_written(&names, &text);
    let supp = dir.path().join("hand.supp");
    std::fs::write(&supp, &hand).expect("write");
    let args = ["run.txt", "--first-party", FIRST_PARTY, "-o", "hand.supp"];
    let out = gen_in(dir.path(), &args);
    let report = ok(&out);
    assert!(
        stderr(&out).contains(&format!("appended {} rules to hand.supp", names.len() - 1)),
        "{}",
        stderr(&out)
    );
    let after = std::fs::read_to_string(&supp).expect("read");
    assert!(
        after.starts_with(&format!("{hand}\n\n{{")),
        "the hand-written bytes stay, the new rules after them:\n{after}"
    );
    // The hand-made rule hides the first rule's errors: no rule for them.
    let appended = rule_names(&report);
    assert!(!appended.contains(&names[0]), "{appended:?}");
    let hidden: Vec<&Value> = report["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter(|e| e["rule"] == "hand-made")
        .collect();
    assert!(!hidden.is_empty(), "the hand-made rule takes its errors");
    // A taken name gets a suffix; the generated record is what a fresh gen writes.
    let renamed = format!("{}.2", names[1]);
    assert!(appended.contains(&renamed), "{appended:?}");
    assert_eq!(
        record(&after, &renamed).replacen(&renamed, &names[1], 1),
        record(&text, &names[1])
    );
    // The sidecar describes the appended rules, with fingerprints of what was written.
    let side = sidecar(&dir.path().join("hand.supp.yaml"));
    let written = vgsupp::sidecar::fingerprint::by_name(after.as_bytes());
    for name in &appended {
        let fp = written.iter().find(|(n, _)| n == name).expect("written");
        let e = side.rule(name).expect("an entry");
        assert_eq!(e.fingerprint.as_deref(), Some(fp.1.as_str()));
    }
    assert!(side.rule("hand-made").is_none());

    // Again: nothing new, nothing written.
    let yaml = std::fs::read(dir.path().join("hand.supp.yaml")).expect("yaml");
    let out = gen_in(dir.path(), &args);
    let again = ok(&out);
    assert!(rule_names(&again).is_empty());
    assert!(
        stderr(&out).contains("hand.supp unchanged"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&supp).expect("read"), after);
    assert_eq!(
        std::fs::read(dir.path().join("hand.supp.yaml")).expect("yaml"),
        yaml
    );
}

#[test]
fn force_replaces_and_retires_the_entries_of_rules_it_removes() {
    let (names, text) = fresh();
    let dir = project();
    std::fs::write(
        dir.path().join("old.supp"),
        "{\n   mine\n   Memcheck:Leak\n   fun:no_such_function_anywhere\n}\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("old.supp.yaml"),
        "version: 1\nrules:\n  mine:\n    reason: written by hand  # keep\n    ticket: T-1\n",
    )
    .expect("write");
    let out = gen_in(
        dir.path(),
        &[
            "run.txt",
            "--first-party",
            FIRST_PARTY,
            "-o",
            "old.supp",
            "-s",
            "old.supp",
            "--force",
        ],
    );
    let report = ok(&out);
    assert_eq!(rule_names(&report), names);
    let err = stderr(&out);
    assert!(err.contains("--force replaces `old.supp`"), "{err}");
    assert!(
        err.contains(&format!(
            "replaced old.supp ({} rules, --force)",
            names.len()
        )) && err.contains("1 entry of rules no longer in it moved under `retired:`"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.supp")).expect("read"),
        text
    );
    let side = sidecar(&dir.path().join("old.supp.yaml"));
    assert!(side.rule("mine").is_none());
    let retired = side
        .retired
        .iter()
        .find(|r| r.name == "mine")
        .expect("retired");
    assert_eq!(
        retired.retired.map(|d| d.to_string()).as_deref(),
        Some(TODAY)
    );
    assert!(
        retired
            .why
            .as_deref()
            .is_some_and(|w| w.contains("--force"))
    );
    let yaml = std::fs::read_to_string(dir.path().join("old.supp.yaml")).expect("yaml");
    assert!(
        yaml.contains("reason: written by hand  # keep") && yaml.contains("ticket: T-1"),
        "what the entry held goes with it:\n{yaml}"
    );
    for n in &names {
        assert!(side.rule(n).is_some(), "{n}");
    }
}

#[test]
#[cfg(unix)]
fn only_regular_files_are_written() {
    use std::os::unix::fs::FileTypeExt as _;
    let dir = project();
    let p = dir.path();
    let made = std::process::Command::new("mkfifo")
        .arg(p.join("pipe.supp"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    std::fs::create_dir(p.join("dir.supp")).expect("mkdir");
    let _socket =
        std::os::unix::net::UnixListener::bind(p.join("sock.supp")).expect("bind a socket");
    let before = listing(p);
    for (path, what) in [
        ("pipe.supp", "is a FIFO"),
        ("dir.supp", "is a directory"),
        ("sock.supp", "is a socket"),
        ("/dev/null", "is a character device"),
    ] {
        let out = gen_in(p, &["run.txt", "--first-party", FIRST_PARTY, "-o", path]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "-o {path} {what}; vgsupp writes only regular files"
            )) && err.contains("nothing was written"),
            "{path}: {err}"
        );
        assert!(out.stdout.is_empty(), "{path}: nothing is reported either");
    }
    assert_eq!(listing(p), before, "nothing created, nothing replaced");
    let kind = |n: &str| {
        std::fs::symlink_metadata(p.join(n))
            .expect("lstat")
            .file_type()
    };
    assert!(kind("pipe.supp").is_fifo());
    assert!(kind("dir.supp").is_dir());
    assert!(kind("sock.supp").is_socket());
    assert!(!Path::new("/dev/null.yaml").exists());
    // A directory where the sidecar goes is refused too, before the .supp is written.
    std::fs::create_dir(p.join("x.supp.yaml")).expect("mkdir");
    let out = gen_in(
        p,
        &["run.txt", "--first-party", FIRST_PARTY, "-o", "x.supp"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("x.supp.yaml is a directory"),
        "{}",
        stderr(&out)
    );
    assert!(!p.join("x.supp").exists());
}

#[test]
#[cfg(unix)]
fn a_symlink_is_followed_and_the_sidecar_goes_beside_its_target() {
    use std::os::unix::fs::symlink;
    let (names, text) = fresh();
    let dir = project();
    let p = dir.path();
    std::fs::create_dir(p.join("rules")).expect("mkdir");
    let hand = "# ours\n{\n   mine\n   Memcheck:Leak\n   fun:no_such_function_anywhere\n}\n";
    std::fs::write(p.join("rules/real.supp"), hand).expect("write");
    symlink("rules/real.supp", p.join("link.supp")).expect("symlink");
    let out = gen_in(
        p,
        &["run.txt", "--first-party", FIRST_PARTY, "-o", "link.supp"],
    );
    ok(&out);
    assert!(
        std::fs::symlink_metadata(p.join("link.supp"))
            .expect("lstat")
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let real = std::fs::read_to_string(p.join("rules/real.supp")).expect("read");
    assert!(real.starts_with(hand) && real.len() > hand.len(), "{real}");
    assert!(real.contains(&record(&text, &names[0])));
    assert!(!p.join("link.supp.yaml").exists());
    let side = sidecar(&p.join("rules/real.supp.yaml"));
    let from = &side
        .rule(&names[0])
        .expect("entry")
        .generated
        .as_ref()
        .expect("g")
        .from;
    assert_eq!(
        from[0].log.as_deref(),
        Some("../run.txt"),
        "relative to the sidecar"
    );

    // A link out of the project is refused; what it points at is left alone.
    let outside = tempfile::tempdir().expect("tmp");
    let victim = outside.path().join("victim.supp");
    std::fs::write(&victim, hand).expect("write");
    symlink(&victim, p.join("evil.supp")).expect("symlink");
    let out = gen_in(
        p,
        &["run.txt", "--first-party", FIRST_PARTY, "-o", "evil.supp"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("refusing to write through a symlink"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), hand);
    assert!(!outside.path().join("victim.supp.yaml").exists());
    // A link to nothing is refused, naming where it points.
    symlink("rules/none.supp", p.join("dangling.supp")).expect("symlink");
    let out = gen_in(
        p,
        &[
            "run.txt",
            "--first-party",
            FIRST_PARTY,
            "-o",
            "dangling.supp",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("rules/none.supp"), "{}", stderr(&out));
    assert!(!p.join("rules/none.supp").exists());
}

#[test]
fn a_sidecar_that_does_not_read_stops_gen_before_anything_is_written() {
    let dir = project();
    let p = dir.path();
    let hand = "{\n   mine\n   Memcheck:Leak\n   fun:no_such_function_anywhere\n}\n";
    for (bad, says) in [
        ("version: 1\nrules: [\n", "line 3"),
        ("version: 1\nrules:\n  a: &x {}\n  b: *x\n", "aliases"),
        ("version: 2\nrules: {}\n", "version 2"),
    ] {
        std::fs::write(p.join("hand.supp"), hand).expect("write");
        std::fs::write(p.join("hand.supp.yaml"), bad).expect("write");
        // An old modification time, so that any write would show.
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let f = std::fs::File::options()
            .write(true)
            .open(p.join("hand.supp"))
            .expect("open");
        f.set_modified(old).expect("set mtime");
        drop(f);
        for force in [false, true] {
            let mut args = vec!["run.txt", "--first-party", FIRST_PARTY, "-o", "hand.supp"];
            if force {
                args.push("--force");
            }
            let out = gen_in(p, &args);
            assert_eq!(out.status.code(), Some(2), "{bad}");
            let err = stderr(&out);
            assert!(
                err.contains("hand.supp.yaml")
                    && err.contains(says)
                    && err.contains("nothing was written"),
                "{err}"
            );
            let meta = std::fs::metadata(p.join("hand.supp")).expect("stat");
            assert_eq!(meta.modified().expect("mtime"), old, "{bad}");
            assert_eq!(
                std::fs::read_to_string(p.join("hand.supp")).expect("read"),
                hand
            );
            assert_eq!(
                std::fs::read_to_string(p.join("hand.supp.yaml")).expect("read"),
                bad
            );
        }
    }
}

#[test]
fn an_existing_file_valgrind_refuses_is_not_appended_to() {
    let dir = project();
    let p = dir.path();
    let broken = "{\n   broken\n   Memcheck:NoSuchKind\n   fun:f\n}\n";
    std::fs::write(p.join("broken.supp"), broken).expect("write");
    let out = gen_in(
        p,
        &["run.txt", "--first-party", FIRST_PARTY, "-o", "broken.supp"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("broken.supp") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("broken.supp")).expect("read"),
        broken
    );
    assert!(!p.join("broken.supp.yaml").exists());
    // --force replaces it: its rules are not read.
    ok(&gen_in(
        p,
        &[
            "run.txt",
            "--first-party",
            FIRST_PARTY,
            "-o",
            "broken.supp",
            "--force",
        ],
    ));
    assert!(
        !std::fs::read_to_string(p.join("broken.supp"))
            .expect("read")
            .contains("broken")
    );
}

#[test]
fn the_file_and_its_sidecar_land_together_or_not_at_all() {
    let dir = project();
    let p = dir.path();
    let hand = "{\n   mine\n   Memcheck:Leak\n   fun:no_such_function_anywhere\n}\n";
    let yaml = "version: 1\nrules:\n  mine: {reason: ours}\n";
    std::fs::write(p.join("hand.supp"), hand).expect("write");
    std::fs::write(p.join("hand.supp.yaml"), yaml).expect("write");
    let before = listing(p);
    let fail = [("VGSUPP_TEST_FAIL_RENAME", "sidecar")];
    let args = ["run.txt", "--first-party", FIRST_PARTY, "-o", "hand.supp"];
    let out = gen_with(p, &args, &fail);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("hand.supp.yaml: rename refused (injected failure); nothing was written"),
        "{}",
        stderr(&out)
    );
    // The .supp was renamed first: it is back as it was.
    assert_eq!(
        std::fs::read_to_string(p.join("hand.supp")).expect("read"),
        hand
    );
    assert_eq!(
        std::fs::read_to_string(p.join("hand.supp.yaml")).expect("read"),
        yaml
    );
    assert_eq!(listing(p), before, "no temporary file or backup is left");
    // A new file is removed again.
    let out = gen_with(
        p,
        &["run.txt", "--first-party", FIRST_PARTY, "-o", "new.supp"],
        &fail,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(listing(p), before);
    // The first rename failing leaves everything too.
    let out = gen_with(p, &args, &[("VGSUPP_TEST_FAIL_RENAME", "supp")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(p.join("hand.supp")).expect("read"),
        hand
    );
    assert_eq!(listing(p), before);
    // Without the failure both land.
    ok(&gen_in(p, &args));
    assert!(
        std::fs::read_to_string(p.join("hand.supp"))
            .expect("read")
            .len()
            > hand.len()
    );
    assert!(sidecar(&p.join("hand.supp.yaml")).rules.len() > 1);
}

/// Each written rule's `expires`, as text (`None` when it has none).
fn expiries(dir: &Path, supp: &str) -> Vec<Option<String>> {
    sidecar(&dir.join(format!("{supp}.yaml")))
        .rules
        .iter()
        .map(|r| r.expires.map(|d| d.to_string()))
        .collect()
}

fn tools(dir: &Path, supp: &str) -> Vec<String> {
    sidecar(&dir.join(format!("{supp}.yaml")))
        .rules
        .iter()
        .map(|r| {
            r.generated
                .as_ref()
                .and_then(|g| g.tool.clone())
                .expect("a tool")
        })
        .collect()
}

#[test]
fn generated_rules_expire_in_90_days_unless_told_otherwise() {
    let dir = project();
    let p = dir.path();
    let fp = ["run.txt", "--first-party", FIRST_PARTY];
    let run = |out: &str, extra: &[&str]| {
        let mut args = fp.to_vec();
        args.extend(["-o", out]);
        args.extend(extra);
        ok(&gen_in(p, &args));
    };
    let all = |v: Vec<Option<String>>, want: Option<&str>| {
        assert!(!v.is_empty());
        for e in v {
            assert_eq!(e.as_deref(), want);
        }
    };
    run("default.supp", &[]);
    all(expiries(p, "default.supp"), Some("2027-03-01"));
    assert!(tools(p, "default.supp")[0].contains(" --expires-in 90"));
    run("ten.supp", &["--expires-in", "10"]);
    all(expiries(p, "ten.supp"), Some("2026-12-11"));
    run("never.supp", &["--expires-in", "never"]);
    all(expiries(p, "never.supp"), None);
    assert!(tools(p, "never.supp")[0].contains(" --expires-in never"));
    let yaml = std::fs::read_to_string(p.join("never.supp.yaml")).expect("yaml");
    assert!(!yaml.contains("    expires:"), "{yaml}");
    // vgsupp.yaml sets it; the flag beats it.
    std::fs::write(p.join("vgsupp.yaml"), "expires-in: 30\n").expect("config");
    run("config.supp", &[]);
    all(expiries(p, "config.supp"), Some("2026-12-31"));
    run("flag.supp", &["--expires-in", "never"]);
    all(expiries(p, "flag.supp"), None);
    std::fs::write(p.join("vgsupp.yaml"), "expires-in: never\n").expect("config");
    run("config-never.supp", &[]);
    all(expiries(p, "config-never.supp"), None);
    run("flag-days.supp", &["--expires-in", "7"]);
    all(expiries(p, "flag-days.supp"), Some("2026-12-08"));
    // A value that is neither is refused.
    let out = gen_in(p, &["run.txt", "--expires-in", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("a number of days or `never`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn sources_are_recorded_relative_to_the_sidecar_and_reruns_do_not_duplicate_them() {
    let dir = project();
    let p = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::create_dir_all(p.join("ci/logs")).expect("mkdir");
    std::fs::create_dir_all(p.join("supp")).expect("mkdir");
    std::fs::rename(p.join("run.txt"), p.join("ci/logs/run.txt")).expect("mv");
    let from = |supp: &Path| -> Vec<Vec<String>> {
        sidecar(supp)
            .rules
            .iter()
            .map(|r| {
                r.generated
                    .as_ref()
                    .expect("generated")
                    .from
                    .iter()
                    .map(|s| s.log.clone().expect("log"))
                    .collect()
            })
            .collect()
    };
    let side = p.join("supp/out.supp.yaml");
    ok(&gen_in(
        &p,
        &[
            "ci/logs/run.txt",
            "--first-party",
            FIRST_PARTY,
            "-o",
            "supp/out.supp",
        ],
    ));
    let first = from(&side);
    assert!(!first.is_empty());
    for f in &first {
        assert_eq!(f, &["../ci/logs/run.txt"]);
    }
    // From elsewhere, the log by its absolute path: the same source, the same path.
    let abs = p.join("ci/logs/run.txt");
    ok(&gen_in(
        &p.join("ci"),
        &[
            abs.to_str().expect("utf-8"),
            "--first-party",
            FIRST_PARTY,
            "-o",
            "../supp/out.supp",
            "--force",
        ],
    ));
    assert_eq!(from(&side), first, "merged by SHA-256, not duplicated");
    // A log outside the sidecar's tree is reached with `..` too.
    let other = tempfile::tempdir().expect("tmp");
    let log = std::fs::canonicalize(other.path())
        .expect("canonical")
        .join("run.txt");
    std::fs::copy(&abs, &log).expect("copy");
    ok(&gen_in(
        &p,
        &[
            log.to_str().expect("utf-8"),
            "--first-party",
            FIRST_PARTY,
            "-o",
            "supp/far.supp",
        ],
    ));
    for f in from(&p.join("supp/far.supp.yaml")) {
        let rel = PathBuf::from(&f[0]);
        assert!(rel.is_relative() && f[0].starts_with("../"), "{f:?}");
        assert_eq!(
            std::fs::canonicalize(p.join("supp").join(&rel)).expect("resolves"),
            log
        );
    }
}

#[test]
fn the_tool_records_the_effective_command() {
    let dir = project();
    let p = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::create_dir_all(p.join("supp")).expect("mkdir");
    std::fs::write(
        p.join("supp/known.supp"),
        "{\n   known\n   Memcheck:Leak\n   fun:no_such_function_anywhere\n}\n",
    )
    .expect("write");
    std::fs::write(
        p.join("vgsupp.yaml"),
        "first-party: [\"leaky_ext*\", \"it's ours*\"]\nowner: \"@ml-infra\"\n",
    )
    .expect("config");
    ok(&gen_in(
        &p,
        &[
            "run.txt",
            "-s",
            "supp/known.supp",
            "-s",
            "profile:cpython",
            "--style",
            "object",
            "--expires-in",
            "45",
            "-o",
            "supp/out.supp",
        ],
    ));
    let tool = &tools(&p.join("supp"), "out.supp")[0];
    assert_eq!(
        tool,
        &format!(
            "vgsupp {} gen --style object --first-party 'leaky_ext*' --first-party 'it'\\''s ours*' --owner @ml-infra --expires-in 45 -s known.supp -s profile:cpython",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert!(
        !tool.contains(p.to_str().expect("utf-8")),
        "no machine path"
    );
}
