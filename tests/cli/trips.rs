//! Small things a new user trips on (issue 14, item 10): what `--help` says, `--explain`
//! of a rule that is not there or of another leak kind, causes said once, `gen`'s report
//! (rows without a source line, review reasons) and the reasons its sidecar records.

use std::process::Command;

use crate::common::{repo, valgrind_available, vgsupp};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_says_what_vgsupp_does() {
    let out = vgsupp().arg("--help").output().expect("run");
    let help = text(&out.stdout);
    assert!(
        !help.contains("parse, format and lint them exactly"),
        "{help}"
    );
    for word in [
        "replay logs",
        "(match)",
        "(gen)",
        "vgsupp match -s",
        "vgsupp gen ",
    ] {
        assert!(help.contains(word), "`{word}` missing: {help}");
    }
    // `--errors` is match's flag; gen rejects it, so its help must not offer it.
    let out = vgsupp().args(["gen", "--help"]).output().expect("run");
    assert!(
        !text(&out.stdout).contains("--errors"),
        "{}",
        text(&out.stdout)
    );
    vgsupp().args(["gen", "--errors", "x.log"]).assert().code(2);
    let out = vgsupp().args(["match", "--help"]).output().expect("run");
    assert!(text(&out.stdout).contains("--errors"));
}

const LEAK_RULE: &str =
    "{\n   py.leak.definite\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n}\n";

#[test]
fn explain_of_an_unknown_rule_exits_2_with_the_closest_names() {
    let dir = tempfile::tempdir().expect("tmp");
    let supp = dir.path().join("k.supp");
    std::fs::write(&supp, LEAK_RULE).expect("write");
    let log = repo("tests/data/logs/text/cpython-pass.txt");
    let explain = |rule: &str| {
        vgsupp()
            .args(["match", "--explain", rule, "-s"])
            .arg(&supp)
            .arg(&log)
            .output()
            .expect("run")
    };
    let out = explain("NO-SUCH-RULE");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("--explain `NO-SUCH-RULE`: no rule of that name"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let out = explain("py.leak.defnite");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("did you mean `py.leak.definite`?"),
        "{}",
        text(&out.stderr)
    );
    // By FILE:LINE of its name, as the rows show it.
    let out = explain(&format!("{}:2", supp.display()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Only the leak kind differs: say which the rule wants and which the error is.
    let out = explain("py.leak.definite");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains(
            "kind: the rule is `Leak` with `match-leak-kinds: definite`, the error is a `reachable` leak: no match"
        ),
        "{said}"
    );
    assert!(!said.contains("not of that kind"), "{said}");
}

#[test]
fn an_error_cause_is_said_once() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join("out.supp")).expect("mkdir");
    let out = vgsupp()
        .current_dir(dir.path())
        .args(["gen", "--first-party", "leaky_ext*", "-o", "out.supp"])
        .arg(repo("tests/data/gen/torch-excerpt.txt"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("out.supp"), "{err}");
    for line in err.lines() {
        for cause in line.split(": ") {
            if cause.contains("(os error") {
                assert_eq!(line.matches(cause).count(), 1, "said twice: {line}");
            }
        }
    }
}

#[test]
fn review_reasons_are_said_once() {
    let out = vgsupp()
        .current_dir(repo(""))
        .args([
            "gen",
            "tests/data/gen/torch-excerpt.txt",
            "tests/data/gen/guarantee.txt",
            "--first-party",
            "leaky_ext*",
        ])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let review: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("Review"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    // A reason heads its group (two spaces), places follow (four), without it.
    let reasons: Vec<&str> = review
        .iter()
        .filter(|l| !l.starts_with("    "))
        .map(|l| l.trim().rsplit_once(": ").map_or(*l, |(r, _)| r))
        .collect();
    assert!(reasons.len() >= 2, "{report}");
    for r in &reasons {
        assert_eq!(
            report.matches(r).count(),
            1,
            "`{r}` said more than once: {report}"
        );
    }
    assert!(review.iter().any(|l| l.starts_with("    ")), "{report}");
}

/// A program built here: `main.c` (with `-g`) leaks, `libmine.so` (first-party, built
/// without `-g`, so its frames have no source line) leaks in a constructor that the
/// dynamic loader calls (no first-party frame with a source line on that stack), and
/// `libvendor.so` (a vendor's library, declared in a profile) writes bytes it never set
/// with write(2) in its own constructor (were it called from `main`, the error would be
/// reviewed: reached from first-party code). Recorded as XML, which shows every frame's object: first-party is
/// decided by the objects alone.
#[test]
fn gen_counts_rows_without_a_source_line_apart_and_gives_a_write_its_own_reason() {
    if !valgrind_available() {
        eprintln!("valgrind absent: gen report test skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let d = dir.path();
    let write = |name: &str, body: &str| std::fs::write(d.join(name), body).expect("write");
    write(
        "vendor.c",
        "#include <fcntl.h>\n#include <stdlib.h>\n#include <unistd.h>\n\
         static void vendor_log(int v) {\n  char *r = malloc(16);\n  r[0] = (char)v;\n\
         \x20 int fd = open(\"/dev/null\", O_WRONLY);\n\
         \x20 if (fd >= 0) { if (write(fd, r, 16) < 0) {} close(fd); }\n  free(r);\n}\n\
         __attribute__((constructor)) static void vendor_boot(void) { vendor_log(1); }\n\
         void vendor_touch(void) {}\n",
    );
    write(
        "mine.c",
        "#include <stdlib.h>\nchar *mine_state;\n\
         __attribute__((constructor)) static void mine_init(void) {\n\
         \x20 mine_state = malloc(32);\n  mine_state[0] = 1;\n  mine_state = 0;\n}\n\
         void mine_touch(void) {}\n",
    );
    write(
        "main.c",
        "#include <stdlib.h>\nvoid vendor_touch(void);\nvoid mine_touch(void);\n\
         int main(void) {\n  vendor_touch();\n  mine_touch();\n  char *p = malloc(16);\n\
         \x20 p[0] = 1;\n  return 0;\n}\n",
    );
    let gcc = |args: &[&str]| {
        let out = Command::new("gcc")
            .current_dir(d)
            .args(args)
            .output()
            .expect("gcc");
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    gcc(&["-O0", "-shared", "-fPIC", "-o", "libvendor.so", "vendor.c"]);
    gcc(&["-O0", "-shared", "-fPIC", "-o", "libmine.so", "mine.c"]);
    let rpath = format!("-Wl,-rpath,{}", d.display());
    gcc(&[
        "-g", "-O0", "-o", "prog", "main.c", "-L.", "-lvendor", "-lmine", &rpath,
    ]);
    let out = Command::new("valgrind")
        .current_dir(d)
        .args([
            "--leak-check=full",
            "--gen-suppressions=all",
            "--xml=yes",
            "--xml-file=run.xml",
            "./prog",
        ])
        .output()
        .expect("valgrind");
    assert!(out.status.success(), "{}", text(&out.stderr));
    write(
        "vgsupp.yaml",
        "profiles:\n  - name: vendor\n    objects: [\"libvendor.so\"]\n",
    );
    let out = vgsupp()
        .current_dir(d)
        .args([
            "--config",
            "vgsupp.yaml",
            "gen",
            "run.xml",
            "-o",
            "out.supp",
        ])
        .args(["--first-party", "prog", "--first-party", "libmine.so"])
        .output()
        .expect("run");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{}{report}", text(&out.stderr));
    let kept = report.lines().next().unwrap_or_default();
    assert_eq!(
        kept,
        "Kept (first-party bugs): 2 errors: 1 at 1 source line, 1 at 1 place without a source line",
        "{report}"
    );
    let sidecar = std::fs::read_to_string(d.join("out.supp.yaml")).expect("sidecar");
    let reason = sidecar
        .lines()
        .find(|l| l.contains("reason:") && l.contains("Param write(buf)"))
        .unwrap_or_else(|| panic!("no Param rule: {sidecar}"));
    assert!(
        reason.contains("with `write`") && reason.contains("structure padding"),
        "{reason}"
    );
    assert!(!reason.contains("ioctl"), "{reason}");
}
