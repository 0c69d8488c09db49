//! Where output goes when it cannot be written: a full device is an error (exit 2, never a
//! truncated result behind exit 0); a reader that went away (`| head`) is not.

use std::process::{Command, Stdio};

use crate::common::repo;

const LOG: &str = "tests/data/logs/text/cudart12-libcuda535-keep-debuginfo.txt";
const SUPP: &str = "examples/torch-extension/cuda-torch.supp";

/// Every command that writes a result to stdout, with its exit code when stdout works.
const COMMANDS: [(&[&str], i32); 6] = [
    (&["check", "tests/fixtures/mixed.supp"], 1),
    (
        &["check", "--format", "sarif", "tests/fixtures/mixed.supp"],
        1,
    ),
    (&["check", "--explain", "VS101"], 0),
    (&["fmt", "--diff", "tests/fixtures/unformatted.supp"], 0),
    (&["completions", "bash"], 0),
    (&["match", "-s", SUPP, LOG], 0),
];

fn vgsupp(args: &[&str], stdout: Stdio) -> std::process::Output {
    Command::new(assert_cmd::cargo::cargo_bin("vgsupp"))
        .current_dir(repo(""))
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("run vgsupp")
}

#[test]
fn commands_write_their_results() {
    for (args, code) in COMMANDS {
        let out = vgsupp(args, Stdio::piped());
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
    }
}

#[test]
fn a_full_device_is_an_error() {
    for (args, _) in COMMANDS {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = vgsupp(args, Stdio::from(full));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to stdout") && stderr.contains("No space left"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for (args, code) in COMMANDS {
        let (reader, writer) = std::io::pipe().expect("pipe");
        // Nobody reads: every write fails with EPIPE (Rust ignores SIGPIPE).
        drop(reader);
        let out = vgsupp(args, Stdio::from(writer));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}
