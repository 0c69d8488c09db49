//! `vgsupp run` end to end with the real Valgrind, on programs built here: a C++ shared
//! library with planted bugs, called from a C program and from Python through a C
//! extension; a vendor library's leak beside them. The planted bugs fail the gate at
//! their lines; the vendor's leak and CPython's noise do not.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{valgrind_available, vgsupp};

const PLANTED: &str = r#"#include <cstdlib>
extern "C" {
int planted_leak(int n) {
    int* p = new int[n]; // BUG leak
    p[0] = n;
    return p[0];
}
int planted_overflow(void) {
    int* a = static_cast<int*>(malloc(4 * sizeof(int)));
    a[0] = 2;
    a[4] = 1; // BUG overflow
    int r = a[0];
    free(a);
    return r;
}
int planted_uninit(void) {
    int* u = static_cast<int*>(malloc(sizeof(int)));
    int r = 0;
    if (*u > 0) r = 1; // BUG uninit
    free(u);
    return r;
}
}
"#;

const VENDOR: &str = r#"#include <stdlib.h>
#include <string.h>
static char* cache;
void vendor_init(void) {
    char* lost = malloc(64);
    memset(lost, 1, 64);
    lost = 0;
    cache = malloc(128);
}
"#;

/// The program also starts a child (`fork` + `exec`), as Python's `ctypes` starts
/// `ldconfig` on `import torch`: without `--child-silent-after-fork=yes` the child's XML
/// lands in its parent's log, which then reads as cut.
const MAIN: &str = r#"#include <sys/wait.h>
#include <unistd.h>
int planted_leak(int);
int planted_overflow(void);
int planted_uninit(void);
void vendor_init(void);
int main(void) {
    vendor_init();
    pid_t child = fork();
    if (child == 0) {
        execl("/bin/true", "true", (char*)0);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    int r = planted_leak(10) + planted_overflow() + planted_uninit();
    return r == 12345 ? 3 : 7;
}
"#;

const EXTENSION: &str = r#"#define PY_SSIZE_T_CLEAN
#include <Python.h>
int planted_leak(int);
int planted_overflow(void);
int planted_uninit(void);
static PyObject* run_all(PyObject* self, PyObject* args) {
    (void)self; (void)args;
    return PyLong_FromLong(planted_leak(10) + planted_overflow() + planted_uninit());
}
static PyMethodDef methods[] = {{"run_all", run_all, METH_NOARGS, "run the bugs"}, {0, 0, 0, 0}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "plantedmod", 0, -1, methods};
PyMODINIT_FUNC PyInit_plantedmod(void) { return PyModule_Create(&module); }
"#;

/// The 1-based line of `marker` in `src`.
fn line_of(src: &str, marker: &str) -> usize {
    src.lines()
        .position(|l| l.contains(marker))
        .expect("marker")
        + 1
}

fn sh(dir: &Path, cmd: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The libraries and the C program, in `dir`.
fn build(dir: &Path) {
    std::fs::write(dir.join("planted.cpp"), PLANTED).expect("write");
    std::fs::write(dir.join("vendor.c"), VENDOR).expect("write");
    std::fs::write(dir.join("main.c"), MAIN).expect("write");
    sh(dir, "g++ -g -O0 -shared -fPIC planted.cpp -o libplanted.so");
    sh(dir, "gcc -g -O0 -shared -fPIC vendor.c -o libvendor.so");
    sh(
        dir,
        "gcc -g -O0 main.c -L. -lplanted -lvendor -Wl,-rpath,\"$PWD\" -o prog",
    );
}

/// `(rule, location)` of the failing findings.
fn failures(v: &Value) -> BTreeSet<(String, String)> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["status"] == "fail")
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_owned(),
                f["location"].as_str().unwrap_or("-").to_owned(),
            )
        })
        .collect()
}

fn expected() -> BTreeSet<(String, String)> {
    [
        ("memcheck/Leak/definite", "BUG leak"),
        ("memcheck/Addr", "BUG overflow"),
        ("memcheck/Cond", "BUG uninit"),
    ]
    .into_iter()
    .map(|(r, m)| (r.to_owned(), format!("planted.cpp:{}", line_of(PLANTED, m))))
    .collect()
}

/// Every planted bug fails at its line, and nothing fails outside the planted source.
fn check_failures(v: &Value) {
    let fails = failures(v);
    for want in expected() {
        assert!(fails.contains(&want), "{want:?} does not fail: {fails:?}");
    }
    assert!(
        fails.iter().all(|(_, at)| at.starts_with("planted.cpp:")),
        "{fails:?}"
    );
}

#[test]
fn run_gates_a_c_program_at_the_planted_lines() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    build(dir.path());
    let logs = dir.path().join("logs");
    let out = vgsupp()
        .current_dir(dir.path())
        .args([
            "run",
            "--format",
            "json",
            "--first-party",
            "planted.cpp",
            "--first-party",
            "libplanted*",
        ])
        .args(["-s", "profile:system", "--logs-dir"])
        .arg(&logs)
        .arg("--")
        .arg("./prog")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    check_failures(&v);
    // Every log is whole: the parent's, and the child's after its exec, each in its own
    // file (the child's start is not mixed into the parent's XML).
    let logs_read = v["logs"].as_array().expect("logs");
    assert!(logs_read.len() >= 2, "{logs_read:#?}");
    assert!(
        logs_read.iter().all(|l| l["complete"] == true),
        "{logs_read:#?}"
    );
    // The vendor library's leak is no failure: vgsupp cannot place it, so it is shown for
    // review (a warning).
    let vendor: Vec<&Value> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["stacks"].to_string().contains("vendor_init"))
        .collect();
    assert!(!vendor.is_empty(), "{v:#}");
    assert!(vendor.iter().all(|f| f["status"] == "warn"), "{vendor:#?}");
    // The program's own status is reported; the logs are kept.
    assert!(
        stderr.contains("the program exited with status 7"),
        "{stderr}"
    );
    let names: Vec<String> = std::fs::read_dir(&logs)
        .expect("logs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with(".xml")), "{names:?}");
    // Valgrind wrote nothing outside the XML: no empty text log is left, so the
    // directory can be gated as it is.
    assert!(!names.iter().any(|n| n.ends_with(".log")), "{names:?}");
    let again = vgsupp()
        .current_dir(dir.path())
        .args(["gate", "--format", "json", "--first-party", "planted.cpp"])
        .args(["--first-party", "libplanted*", "-s", "profile:system"])
        .arg(&logs)
        .output()
        .expect("runs");
    assert_eq!(
        again.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    check_failures(&serde_json::from_slice(&again.stdout).expect("JSON"));
    assert!(
        names.iter().any(|n| n == "profile-system.supp"),
        "{names:?}"
    );
    // Run again into the same directory: refused, nothing mixed.
    vgsupp()
        .current_dir(dir.path())
        .args(["run", "--logs-dir"])
        .arg(&logs)
        .args(["--", "./prog"])
        .assert()
        .code(2);
}

#[test]
fn run_gates_python_through_a_c_extension() {
    if !valgrind_available() {
        return;
    }
    // The interpreter itself, not a wrapper script (pyenv's shims are bash: Valgrind
    // would trace bash too).
    let facts = Command::new("python3")
        .args([
            "-c",
            "import sys, sysconfig; print(sysconfig.get_paths()['include']); print(sys.executable)",
        ])
        .output()
        .expect("python3");
    let facts = String::from_utf8_lossy(&facts.stdout).into_owned();
    let mut facts = facts.lines();
    let include = facts.next().unwrap_or_default().to_owned();
    let python = facts.next().unwrap_or("python3").to_owned();
    if !Path::new(&include).join("Python.h").exists() {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"run_gates_python_through_a_c_extension: no Python.h: skipped\n",
        );
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    build(dir.path());
    std::fs::write(dir.path().join("plantedmod.c"), EXTENSION).expect("write");
    sh(
        dir.path(),
        &format!(
            "gcc -g -O0 -shared -fPIC -I'{include}' plantedmod.c -L. -lplanted -Wl,-rpath,\"$PWD\" -o plantedmod.so"
        ),
    );
    let mut c = vgsupp();
    c.current_dir(dir.path()).args([
        "run",
        "--format",
        "json",
        "--first-party",
        "planted*",
        "--first-party",
        "libplanted*",
    ]);
    for p in ["cpython", "system"] {
        c.args(["-s", &format!("profile:{p}")]);
    }
    c.args(["--gen", "noise.supp"]);
    let out = c
        .args([
            "--",
            &python,
            "-c",
            "import sys; sys.path.insert(0, '.'); import plantedmod; plantedmod.run_all()",
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    check_failures(&v);
    // CPython's own errors, if any are left, are noise: none is a failure or a warning.
    for f in v["findings"].as_array().expect("findings") {
        assert!(f["stacks"].to_string().contains("planted"), "{f:#}");
    }
    // The logs are under .vgsupp/runs/ by default.
    assert!(dir.path().join(".vgsupp/runs").is_dir());
    // --gen wrote rules for the noise left, with their sidecar; the gate's report stays
    // alone on stdout (it parsed as JSON above).
    let rules = std::fs::read_to_string(dir.path().join("noise.supp")).expect("--gen wrote rules");
    assert!(rules.contains("Memcheck:"), "{rules}");
    assert!(dir.path().join("noise.supp.yaml").is_file());
    assert!(
        !rules.contains("planted"),
        "a rule names first-party code: {rules}"
    );
}

#[test]
fn run_without_valgrind_is_exit_2() {
    let out = vgsupp()
        .args([
            "run",
            "--valgrind-bin",
            "/nonexistent/valgrind",
            "--",
            "true",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run Valgrind"));
}
