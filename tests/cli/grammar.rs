//! The grammar test vectors in `grammar/tests/` (see `grammar/README.md`).
//!
//! Every vector starts with header comment lines:
//!
//! * `# expect: CODE line N` (repeatable): a diagnostic vgsupp must report, with the line
//!   `check --format json` gives (Valgrind's `near line N` for loader errors);
//! * `# expect: none`: no `VS1xx`/`VS2xx` diagnostic at all;
//! * `# tool: memcheck|helgrind|drd` (default memcheck);
//! * `# num-callers: N` (default 12);
//! * `# valgrind: 3.X` (default 3.19).
//!
//! `vectors_match_vgsupp` checks vgsupp's verdicts against those expectations;
//! `vectors_match_valgrind` checks the expectations against the installed Valgrind.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use vgsupp::catalogue::RULES;
use vgsupp::lint::{CheckOptions, check_source};
use vgsupp::supp::{Tool, Version};

use crate::common::{files_in, repo, valgrind_available};

/// One vector file and what its header says.
#[derive(Debug)]
struct Vector {
    /// Path relative to the repository root, `/`-separated.
    rel: String,
    /// Under `valid/` (Valgrind loads it) rather than `invalid/`.
    valid: bool,
    bytes: Vec<u8>,
    tool: Tool,
    num_callers: u32,
    version: Version,
    /// `(code, line)` pairs; empty for `# expect: none`.
    expected: BTreeSet<(String, u32)>,
}

fn default_version() -> Version {
    "3.19".parse().expect("3.19 is a modelled version")
}

/// Parse the header: the leading lines that start with `#` (blank lines between them are
/// skipped). Lines end at `\n` or `\r` here, so a CR-only vector still has a readable header.
fn parse_vector(path: &Path, valid: bool) -> Vector {
    let rel = path
        .strip_prefix(repo(""))
        .expect("vector under the repo")
        .to_string_lossy()
        .replace('\\', "/");
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {rel}: {e}"));
    let text = String::from_utf8_lossy(&bytes);
    let mut v = Vector {
        rel: rel.clone(),
        valid,
        bytes: bytes.clone(),
        tool: Tool::Memcheck,
        num_callers: 12,
        version: default_version(),
        expected: BTreeSet::new(),
    };
    let mut saw_expect = false;
    let mut saw_none = false;
    for line in text.split(['\n', '\r']).map(str::trim) {
        if line.is_empty() {
            continue; // between the CR and LF of a CRLF line, or a blank line
        }
        let Some(comment) = line.strip_prefix('#') else {
            break;
        };
        let Some((key, value)) = comment.trim().split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "expect" => {
                saw_expect = true;
                if value == "none" {
                    saw_none = true;
                    continue;
                }
                let mut words = value.split_whitespace();
                let (Some(code), Some("line"), Some(n), None) =
                    (words.next(), words.next(), words.next(), words.next())
                else {
                    panic!("{rel}: bad header `# expect: {value}` (want `CODE line N` or `none`)")
                };
                let n: u32 = n
                    .parse()
                    .unwrap_or_else(|_| panic!("{rel}: bad line number in `# expect: {value}`"));
                assert!(
                    RULES.iter().any(|r| r.code == code),
                    "{rel}: `# expect: {value}` names an unknown code"
                );
                v.expected.insert((code.to_owned(), n));
            }
            "tool" => v.tool = value.parse().unwrap_or_else(|e| panic!("{rel}: {e}")),
            "num-callers" => {
                v.num_callers = value
                    .parse()
                    .unwrap_or_else(|_| panic!("{rel}: bad `# num-callers: {value}`"));
            }
            "valgrind" => v.version = value.parse().unwrap_or_else(|e| panic!("{rel}: {e}")),
            _ => {}
        }
    }
    if bytes.is_empty() {
        // The empty file cannot carry a header: it expects nothing.
        assert!(valid, "{rel}: an empty vector must be under valid/");
        return v;
    }
    assert!(saw_expect, "{rel}: no `# expect:` header line");
    assert_eq!(
        saw_none,
        v.expected.is_empty(),
        "{rel}: write either `# expect: none` or `# expect: CODE line N` lines, not both"
    );
    if valid {
        assert!(
            v.expected.iter().all(|(c, _)| c.starts_with("VS2")),
            "{rel}: a valid vector (Valgrind loads it) can only expect VS2xx warnings"
        );
    } else {
        assert!(
            !v.expected.is_empty(),
            "{rel}: an invalid vector must expect at least one diagnostic"
        );
    }
    v
}

fn vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    for (dir, valid) in [
        ("grammar/tests/valid", true),
        ("grammar/tests/invalid", false),
    ] {
        for path in files_in(&repo(dir), &[]) {
            if path.extension().is_some_and(|e| e == "supp") {
                out.push(parse_vector(&path, valid));
            }
        }
    }
    out
}

fn fmt_set(set: &BTreeSet<(String, u32)>) -> String {
    if set.is_empty() {
        return "none".to_owned();
    }
    set.iter()
        .map(|(c, l)| format!("{c} line {l}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn vector_set_covers_every_rule() {
    let all = vectors();
    let valid = all.iter().filter(|v| v.valid).count();
    let invalid = all.len() - valid;
    assert!(valid >= 25, "only {valid} valid vectors");
    assert!(invalid >= 30, "only {invalid} invalid vectors");
    let covered: BTreeSet<&str> = all
        .iter()
        .flat_map(|v| v.expected.iter().map(|(c, _)| c.as_str()))
        .collect();
    let missing: Vec<&str> = RULES
        .iter()
        .map(|r| r.code)
        .filter(|c| (c.starts_with("VS1") || c.starts_with("VS2")) && !covered.contains(c))
        .collect();
    assert!(missing.is_empty(), "no grammar vector expects {missing:?}");
}

#[test]
fn vectors_match_vgsupp() {
    let mut failures = Vec::new();
    for v in vectors() {
        let opts = CheckOptions {
            tools: Some(vec![v.tool]),
            version: v.version,
            num_callers: v.num_callers,
            style: false,
        };
        let check = check_source(&v.rel, v.bytes.clone(), &opts);
        let got: BTreeSet<(String, u32)> = check
            .diagnostics
            .iter()
            .filter(|d| !d.rule.code.starts_with("VS9"))
            .map(|d| (d.rule.code.to_string(), d.line))
            .collect();
        if got != v.expected {
            let detail: Vec<String> = check
                .diagnostics
                .iter()
                .map(|d| format!("      {} line {}: {}", d.rule.code, d.line, d.message))
                .collect();
            failures.push(format!(
                "{} (--tool={} --num-callers={} --valgrind={})\n   expected: {}\n   got:      {}\n{}",
                v.rel,
                v.tool.cli_name(),
                v.num_callers,
                v.version,
                fmt_set(&v.expected),
                fmt_set(&got),
                detail.join("\n")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} vector(s) disagree with vgsupp:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What the real Valgrind should do with a vector.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Loads: exit status 0, no FATAL line.
    Loads,
    /// `FATAL: in suppressions file "F" near line N:` and exit status 1.
    Fatal(u32),
    /// Aborts on an assertion: non-zero exit status, no FATAL line.
    Abort,
}

/// The first load-time stop among the expectations decides: `VS101`–`VS113` are FATAL,
/// `VS116` aborts (on the same line the abort comes first: it happens while reading), and
/// `VS114`/`VS115`/`VS2xx` do not stop loading.
fn expected_verdict(v: &Vector) -> Verdict {
    let stop = v
        .expected
        .iter()
        .filter_map(|(code, line)| {
            let n: u32 = code.strip_prefix("VS")?.parse().ok()?;
            match n {
                101..=113 => Some((*line, 1, Verdict::Fatal(*line))),
                116 => Some((*line, 0, Verdict::Abort)),
                _ => None,
            }
        })
        .min_by_key(|(line, order, _)| (*line, *order));
    stop.map_or(Verdict::Loads, |(_, _, verdict)| verdict)
}

/// The `near line N` of Valgrind's FATAL line for `file`, if it printed one.
fn fatal_line(output: &str, file: &str) -> Option<Result<u32, String>> {
    let line = output
        .lines()
        .find(|l| l.contains("FATAL: in suppressions file"))?;
    let wanted = format!("FATAL: in suppressions file \"{file}\" near line ");
    let Some(rest) = line.split_once(&wanted).map(|(_, r)| r) else {
        return Some(Err(format!("unexpected FATAL line: {line}")));
    };
    Some(
        rest.strip_suffix(':')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("unexpected FATAL line: {line}")),
    )
}

fn run_valgrind(v: &Vector) -> Result<(), String> {
    let out = Command::new("valgrind")
        .current_dir(repo(""))
        .arg(format!("--tool={}", v.tool.cli_name()))
        .arg(format!("--num-callers={}", v.num_callers))
        .arg(format!("--suppressions={}", v.rel))
        .arg("/bin/true")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let code = out.status.code();
    let fatal = fatal_line(&text, &v.rel).transpose()?;
    let want = expected_verdict(v);
    let ok = match want {
        Verdict::Loads => code == Some(0) && fatal.is_none(),
        Verdict::Fatal(n) => code == Some(1) && fatal == Some(n),
        Verdict::Abort => code != Some(0) && fatal.is_none(),
    };
    if ok {
        return Ok(());
    }
    let tail: Vec<&str> = text
        .lines()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Err(format!(
        "expected {want:?}, got exit status {code:?}, FATAL near line {fatal:?}\n      {}",
        tail.join("\n      ")
    ))
}

/// The installed Valgrind's release, e.g. 3.19 from `valgrind-3.19.0`.
fn installed_version() -> Option<Version> {
    let out = Command::new("valgrind").arg("--version").output().ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

#[test]
fn vectors_match_valgrind() {
    if !valgrind_available() {
        return;
    }
    let Some(installed) = installed_version() else {
        panic!("cannot parse `valgrind --version`")
    };
    // Only vectors written for the installed release can be checked live.
    let todo: Vec<Vector> = vectors()
        .into_iter()
        .filter(|v| v.version == installed)
        .collect();
    assert!(
        !todo.is_empty(),
        "no vector targets the installed Valgrind {installed}"
    );
    let next = Mutex::new(0_usize);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().expect("lock");
                        *n += 1;
                        *n - 1
                    };
                    let Some(v) = todo.get(i) else { break };
                    if let Err(e) = run_valgrind(v) {
                        failures.lock().expect("lock").push(format!(
                            "{} (--tool={} --num-callers={}): {e}",
                            v.rel,
                            v.tool.cli_name(),
                            v.num_callers
                        ));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("lock");
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} vector(s) disagree with Valgrind {installed}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
