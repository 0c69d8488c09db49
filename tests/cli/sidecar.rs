//! `check` on hostile sidecars: each is refused with the file and the line (VS407), the
//! rest of the run goes on, and nothing is expanded or read past the limits.

use std::path::Path;

use crate::common::vgsupp;

const RULE: &str = "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n";
/// Another file's rule (its own name and body: the set has no duplicate).
const RULE_B: &str =
    "{\n   s\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:calloc\n}\n";

/// `vgsupp check --format json` in `dir`: exit code and `(code, file, line, message)` of
/// each diagnostic.
fn check(dir: &Path) -> (i32, Vec<(String, String, u64, String)>) {
    let out = vgsupp()
        .current_dir(dir)
        .env("VGSUPP_TODAY", "2026-06-01")
        .args(["--no-config", "check", "--format", "json"])
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_owned(),
                d["file"].as_str().unwrap_or_default().to_owned(),
                d["line"].as_u64().unwrap_or_default(),
                d["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (out.status.code().unwrap_or(-1), rows)
}

#[test]
fn hostile_sidecars_are_refused_with_file_and_line() {
    let head = "version: 1\nrules:\n  r:\n    reason: ";
    let mut bomb = String::from("version: 1\nrules:\n  r: {reason: why}\nx0: &a0 [lol, lol]\n");
    for i in 1..30 {
        bomb.push_str(&format!("x{i}: &a{i} [*a{p}, *a{p}]\n", p = i - 1));
    }
    let cases: Vec<(&str, Vec<u8>, u64, &str)> = vec![
        (
            "billion laughs",
            bomb.into_bytes(),
            5,
            "aliases (`*name`) are not allowed",
        ),
        (
            "deep nesting",
            format!("{head}{}{}\n", "[".repeat(40), "]".repeat(40)).into_bytes(),
            4,
            "nested more than 16 levels deep",
        ),
        // The parser's own bound stops this one before it emits the events.
        (
            "very deep nesting",
            format!("{head}{}{}\n", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            4,
            "recursion limit exceeded",
        ),
        (
            "huge scalar",
            format!("{head}{}\n", "x".repeat(100_000)).into_bytes(),
            4,
            "a value of 100000 characters, more than the 65536 allowed",
        ),
        (
            "binary",
            [head.as_bytes(), b"\xff\xfe\x00\x01garbage\n"].concat(),
            4,
            "not UTF-8 text",
        ),
        (
            "several documents",
            format!("{head}why\n---\nversion: 1\n").into_bytes(),
            5,
            "more than one YAML document",
        ),
        (
            "duplicate key",
            format!("{head}why\n  r: {{reason: again}}\n").into_bytes(),
            5,
            "duplicate key `r` (first at line 3)",
        ),
    ];
    for (what, bytes, line, message) in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        std::fs::write(tmp.path().join("a.supp"), RULE).expect("write");
        std::fs::write(tmp.path().join("a.supp.yaml"), &bytes).expect("write");
        std::fs::write(tmp.path().join("b.supp"), RULE_B).expect("write");
        let (code, rows) = check(tmp.path());
        assert_eq!(code, 1, "{what}: {rows:?}");
        assert_eq!(rows.len(), 1, "{what}: only the sidecar's error: {rows:?}");
        let (c, file, l, m) = &rows[0];
        assert_eq!(
            (c.as_str(), file.as_str(), *l),
            ("VS407", "a.supp.yaml", line),
            "{what}: {m}"
        );
        assert!(m.contains(message), "{what}: {m}");
    }
}
