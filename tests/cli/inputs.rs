//! Input that is not what it seems (issue 14, item 6): files that are no Valgrind log,
//! directories that hold nothing to read, a log still being written, binary suppression
//! files, and a Helgrind text log whose race stacks once lost their objects.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use crate::common::{repo, shared_fixture, valgrind_available, vgsupp};

/// Bytes that hold every value, NUL included, in a fixed order (no randomness in tests).
fn noise(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x2545_f491;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()[1]
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).expect("gzip");
    gz.finish().expect("gzip")
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const RULE: &str = "{\n   r\n   Memcheck:Leak\n   fun:malloc\n}\n";

#[test]
fn match_and_gen_say_what_is_not_a_valgrind_log() {
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    let supp = d.join("r.supp");
    std::fs::write(&supp, RULE).expect("write");
    let program_output = b"building...\nok: 3 tests passed\n==> done <==\n".repeat(40);
    let large_output = b"test output that no Valgrind wrote, line after line\n".repeat(200_000);
    assert!(large_output.len() > 8 << 20, "read on several threads");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.log", Vec::new(), "the file is empty"),
        ("output.txt", program_output.clone(), "no Valgrind preamble"),
        ("noise.log", noise(64 << 10), "no Valgrind preamble"),
        (
            "output.log.gz",
            gzip(&program_output),
            "no Valgrind preamble",
        ),
        ("empty.log.gz", gzip(b""), "the file is empty"),
        (
            "other.xml",
            b"<?xml version=\"1.0\"?>\n<project><name>x</name></project>\n".to_vec(),
            "no Valgrind preamble",
        ),
        ("large.txt", large_output, "no Valgrind preamble"),
    ];
    for (name, bytes, why) in &cases {
        let log = d.join(name);
        std::fs::write(&log, bytes).expect("write");
        let out = vgsupp()
            .current_dir(d)
            .args(["match", "-s", "r.supp", "--format", "json", name])
            .output()
            .expect("run");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}: not a Valgrind log")) && err.contains(why),
            "{name}: {err}"
        );
        assert!(out.stdout.is_empty(), "{name}: no report");
        let out = vgsupp()
            .current_dir(d)
            .args(["gen", "-o", "out.supp", name])
            .output()
            .expect("run");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}: not a Valgrind log")),
            "{name}: {err}"
        );
        assert!(
            !d.join("out.supp").exists() && !d.join("out.supp.yaml").exists(),
            "{name}: gen wrote files"
        );
    }
}

#[test]
fn clean_truncated_and_excerpted_logs_are_still_logs() {
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    std::fs::write(d.join("r.supp"), RULE).expect("write");
    // An excerpt pasted without its preamble is a log: it shows errors.
    std::fs::write(
        d.join("excerpt.txt"),
        "Some text before\n==7== Invalid read of size 4\n==7==    at 0x1: f (a.c:1)\n==7== \n",
    )
    .expect("write");
    let mut logs = vec![d.join("excerpt.txt")];
    // A real clean log (no errors), and a real XML log cut mid-document.
    for rel in [
        "fixtures/torch/cudart13-libcuda535.txt",
        "fixtures/torch/cudart13-nodriver.txt",
        "fixtures/public-logs/062-librecraft-opengl-xml-truncated.xml",
    ] {
        if let Some(p) = shared_fixture(rel, "clean_truncated_and_excerpted_logs_are_still_logs") {
            logs.push(p);
        }
    }
    for log in &logs {
        let out = vgsupp()
            .args(["match", "--format", "json", "-s"])
            .arg(d.join("r.supp"))
            .arg(log)
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            log.display(),
            stderr(&out)
        );
        assert!(!stderr(&out).contains("not a Valgrind log"));
    }
}

#[test]
fn directories_with_nothing_to_read_are_errors_naming_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    std::fs::create_dir(d.join("logs")).expect("mkdir");
    std::fs::write(d.join("logs/notes.md"), "not a log by name\n").expect("write");
    std::fs::create_dir(d.join("rules")).expect("mkdir");
    std::fs::write(d.join("r.supp"), RULE).expect("write");
    let log = repo("tests/data/logs/text/cpython-pass.txt");
    let out = vgsupp()
        .current_dir(d)
        .args(["match", "-s", "r.supp", "logs"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`logs`: no logs in this directory"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
    let out = vgsupp()
        .current_dir(d)
        .args(["match", "-s", "rules"])
        .arg(&log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`rules`: no suppression files in this directory"),
        "{}",
        stderr(&out)
    );
    let out = vgsupp()
        .current_dir(d)
        .args(["gen", "-s", "rules"])
        .arg(&log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`rules`: no suppression files"),
        "{}",
        stderr(&out)
    );
}

/// `tests/data/logs/text/helgrind-race.log` (a real Helgrind log), cut where a log still
/// being written may end: before its `ERROR SUMMARY`.
#[test]
fn a_text_log_without_its_final_summary_is_warned_once() {
    let full =
        std::fs::read_to_string(repo("tests/data/logs/text/helgrind-race.log")).expect("log");
    let cut_at = full.find("ERROR SUMMARY").expect("summary");
    let cut_at = full[..cut_at].rfind('\n').expect("line") + 1;
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    std::fs::write(d.join("full.log"), &full).expect("write");
    std::fs::write(d.join("running.log"), &full[..cut_at]).expect("write");
    std::fs::write(
        d.join("r.supp"),
        "{\n   r\n   Helgrind:Race\n   fun:nothing\n}\n",
    )
    .expect("write");
    let warned = |name: &str| {
        let out = vgsupp()
            .current_dir(d)
            .args(["match", "-s", "r.supp", name])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stderr(&out)
            .lines()
            .filter(|l| l.contains("final summary"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert!(warned("full.log").is_empty());
    let w = warned("running.log");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("warning: running.log:")
            && w[0].contains("the log ends before Valgrind's final summary of process 14030")
            && w[0].contains("still being written")
            && w[0].contains("counts may be incomplete"),
        "{w:?}"
    );
    // gen says it too.
    let out = vgsupp()
        .current_dir(d)
        .args(["gen", "--first-party", "race*", "running.log"])
        .output()
        .expect("run");
    assert!(stderr(&out).contains("final summary"), "{}", stderr(&out));
}

/// A binary file given as a suppression file: `check` says what Valgrind says (one error,
/// at the line it names), bounded; `fmt` leaves it alone.
#[test]
fn binary_suppression_files_get_one_error_and_are_never_rewritten() {
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    // An executable-like blob: a header with NULs, then 200 KB of noise and long lines.
    let mut blob = b"\x7fELF\x02\x01\x01\x00\x00\x00\n".to_vec();
    blob.extend(noise(200 << 10));
    blob.extend(std::iter::repeat_n(b'x', 60_000));
    let bin = d.join("blob.supp");
    std::fs::write(&bin, &blob).expect("write");
    let out = vgsupp()
        .current_dir(d)
        .args(["check", "blob.supp"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() < 4096, "{} bytes", out.stdout.len());
    let human = String::from_utf8_lossy(&out.stdout);
    assert_eq!(human.matches("error[").count(), 1, "{human}");
    let out = vgsupp()
        .current_dir(d)
        .args(["check", "--format", "json", "blob.supp"])
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let diags = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d0 = &diags[0];
    assert_eq!(
        (
            d0["code"].as_str(),
            d0["line"].as_u64(),
            d0["fatal_in_valgrind"].as_bool()
        ),
        (Some("VS101"), Some(1), Some(true))
    );
    let message = d0["message"].as_str().expect("message");
    assert!(
        message.starts_with(
            "expected '{' or end-of-file; this is a binary file (a NUL byte on line 1"
        ),
        "{message}"
    );
    if valgrind_available() {
        // The line Valgrind names is the one reported.
        let out = Command::new("valgrind")
            .arg(format!("--suppressions={}", bin.display()))
            .arg("/bin/true")
            .output()
            .expect("valgrind");
        let said = stderr(&out);
        assert!(
            said.contains("near line 1:") && said.contains("expected '{' or end-of-file"),
            "{said}"
        );
    }

    // fmt: the binary file is named and kept byte for byte, the other file formatted.
    std::fs::write(d.join("ok.supp"), "{\nr\n Memcheck:Leak\n  fun:malloc\n}\n").expect("write");
    for args in [&["fmt"][..], &["fmt", "--check"], &["fmt", "--diff"]] {
        let out = vgsupp()
            .current_dir(d)
            .args(args)
            .args(["blob.supp", "ok.supp"])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains(
                "blob.supp: a binary file (a NUL byte on line 1, at byte 7), not a suppression file: not formatted"
            ),
            "{}",
            stderr(&out)
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("blob.supp"));
        assert_eq!(std::fs::read(&bin).expect("read"), blob, "{args:?}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("ok.supp")).expect("read"),
        RULE
    );
}

/// Builds a two-thread program without debug information (so Helgrind prints the
/// objects of its frames: `worker (in …/race)`), records it as text and as XML with
/// `--gen-suppressions=all`, and checks that `match` sees the object of every frame of
/// the race in the thread: a rule on it is decided, as the real Valgrind decides it.
#[test]
fn helgrind_text_logs_keep_the_objects_of_a_race_in_a_thread() {
    if !valgrind_available() {
        eprintln!("valgrind absent: Helgrind object test skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    let src = d.join("race.c");
    std::fs::write(
        &src,
        // `main` writes first and then lets the thread go through a pipe, which orders the
        // two accesses without Helgrind seeing any synchronisation: the race is always
        // reported in the thread, whatever the scheduling.
        "#include <pthread.h>\n#include <unistd.h>\nint shared;\nint fds[2];\n\
         static void *worker(void *arg) {\n  char c;\n  if (read(fds[0], &c, 1) != 1) return arg;\n\
         \x20 shared++;\n  return arg;\n}\n\
         int main(void) {\n  pthread_t t;\n  if (pipe(fds)) return 1;\n\
         \x20 pthread_create(&t, 0, worker, 0);\n  shared++;\n\
         \x20 if (write(fds[1], \"x\", 1) != 1) return 1;\n  pthread_join(t, 0);\n  return 0;\n}\n",
    )
    .expect("write");
    let exe = d.join("race");
    let built = Command::new("gcc")
        .args(["-O0", "-pthread", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("gcc");
    assert!(built.status.success(), "{}", stderr(&built));
    let record = |extra: &[&str]| {
        let out = Command::new("valgrind")
            .args(["--tool=helgrind", "--gen-suppressions=all"])
            .args(extra)
            .arg(&exe)
            .output()
            .expect("valgrind");
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    record(&[&format!("--log-file={}", d.join("hg.txt").display())]);
    record(&[
        "--xml=yes",
        &format!("--xml-file={}", d.join("hg.xml").display()),
    ]);
    let text = std::fs::read_to_string(d.join("hg.txt")).expect("log");
    assert!(text.contains(": worker (in "), "{text}");
    // The object of the thread's first frame, and the preload object after it.
    let rule = "{\n   worker-in-race\n   Helgrind:Race\n   obj:*/race\n   obj:*/vgpreload_helgrind-*.so\n}\n";
    let supp = d.join("race.supp");
    std::fs::write(&supp, rule).expect("write");
    let errors_of = |log: &Path| {
        let out = vgsupp()
            .args(["match", "--format", "json", "-s"])
            .arg(&supp)
            .arg(log)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["errors"].as_array().expect("errors").clone()
    };
    let rows = errors_of(&d.join("hg.txt"));
    let in_thread: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| !r["suppressed_by"].is_null())
        .collect();
    assert!(!in_thread.is_empty(), "{rows:?}");
    for r in &rows {
        assert_eq!(r["approximate"], false, "decided from the text log: {r}");
    }
    // The same verdicts from the XML twin, and from the real Valgrind with the rule.
    let xml_rows = errors_of(&d.join("hg.xml"));
    let suppressed = |rows: &[serde_json::Value]| {
        rows.iter()
            .filter(|r| !r["suppressed_by"].is_null())
            .count()
    };
    assert_eq!(suppressed(&xml_rows), in_thread.len());
    let out = record(&[&format!("--suppressions={}", supp.display())]);
    let said = stderr(&out);
    let summary = said
        .lines()
        .find(|l| l.contains("ERROR SUMMARY"))
        .expect("summary");
    assert!(
        summary.contains(&format!("(suppressed: {} from", in_thread.len())),
        "{summary} vs {} suppressed by vgsupp",
        in_thread.len()
    );
    // --explain shows the object instead of "not shown in the log".
    let out = vgsupp()
        .args(["match", "--explain", "worker-in-race", "-s"])
        .arg(&supp)
        .arg(d.join("hg.txt"))
        .output()
        .expect("run");
    let explained = String::from_utf8_lossy(&out.stdout);
    assert!(
        explained.contains("matches frame 0 (fun worker | obj /")
            && explained.contains("matches frame 1 (fun ??? | obj /"),
        "{explained}"
    );
    assert!(!explained.contains("not shown in the log"), "{explained}");
}

/// A log named twice — as given and with `./`, through its directory, through a link — is
/// read once: reading it twice would double every count.
#[test]
fn a_log_named_twice_is_read_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    std::fs::create_dir(d.join("logs")).expect("mkdir");
    std::fs::copy(
        repo("tests/data/gen/torch-excerpt.txt"),
        d.join("logs/run.txt"),
    )
    .expect("copy");
    std::os::unix::fs::symlink("logs/run.txt", d.join("link.txt")).expect("symlink");
    std::fs::write(d.join("r.supp"), RULE).expect("write");
    let errors = |logs: &[&str]| {
        let out = vgsupp()
            .current_dir(d)
            .args(["match", "--format", "json", "-s", "r.supp"])
            .args(logs)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["errors"].as_array().expect("errors").len()
    };
    let once = errors(&["logs/run.txt"]);
    assert!(once >= 5, "{once}");
    assert_eq!(
        errors(&["logs/run.txt", "./logs/run.txt", "logs", "link.txt"]),
        once
    );
}

/// `--first-party src`, a directory's name: no file is named so, and the error says how to
/// write a directory.
#[test]
fn a_directory_given_as_a_name_glob_gets_a_hint() {
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    std::fs::create_dir(d.join("src")).expect("mkdir");
    std::fs::copy(repo("tests/data/gen/torch-excerpt.txt"), d.join("run.txt")).expect("copy");
    // gen stops (exit 2, nothing written, shown even with -q): its stderr.
    let stopped = |glob: &str| {
        let out = vgsupp()
            .current_dir(d)
            .args([
                "gen",
                "run.txt",
                "-o",
                "out.supp",
                "-q",
                "--first-party",
                glob,
            ])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(!d.join("out.supp").exists());
        let err = stderr(&out);
        assert!(
            err.starts_with("vgsupp: error: no frame of these logs is first-party"),
            "{err}"
        );
        err
    };
    let err = stopped("src");
    assert!(err.contains("`src` is a directory of the project"), "{err}");
    assert!(err.contains("'src/'"), "{err}");
    // A path glob on a text log, which names sources by file only: the hint says so, with
    // a file name the log shows.
    let err = stopped("**/src/**");
    assert!(
        err.contains("A text log shows source files by name only"),
        "{err}"
    );
    assert!(err.contains("--first-party '"), "{err}");
}
