//! GitLab Code Quality JSON (`artifacts:reports:codequality`), for `check` and `gate`
//! alike: one issue per diagnostic that has a file (GitLab shows only issues whose path is
//! in the repository), with `description`, `check_name`, `fingerprint`, `severity`,
//! `location.path` and `location.lines.begin`. Accepted (baselined) findings are left out.
//!
//! GitLab needs one fingerprint per issue and compares them across pipelines: a finding
//! with its own line-free fingerprint (a Valgrind error) gets that with its rule (a
//! still-reachable and a definitely lost block allocated at the same place share the
//! finding's fingerprint); a lint gets its code, file, line and message.

use serde_json::{Value, json};
use sha2::Digest as _;

use crate::diagnostic::{Diagnostic, Severity};

/// The Code Quality report of `diagnostics`.
#[must_use]
pub fn gitlab(diagnostics: &[Diagnostic]) -> String {
    let issues: Vec<Value> = diagnostics
        .iter()
        .filter(|d| !d.file.is_empty() && d.accepted.is_none())
        .map(|d| {
            let description = match &d.title {
                Some(t) => format!("{t}: {}", d.message),
                None => format!("{} {}: {}", d.rule.code, d.rule.name, d.message),
            };
            let identity = match &d.fingerprint {
                Some(fp) => format!("{fp} {}", d.rule.code),
                None => format!(
                    "{}\0{}\0{}\0{}",
                    d.rule.code, d.file, d.display_line, d.message
                ),
            };
            let digest = sha2::Sha256::digest(identity.as_bytes());
            let fingerprint: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
            json!({
                "description": description,
                "check_name": d.rule.code,
                "fingerprint": fingerprint,
                "severity": match d.severity {
                    Severity::Error => "critical",
                    Severity::Warning => "minor",
                    Severity::Info => "info",
                },
                "location": {"path": d.file, "lines": {"begin": d.display_line.max(1)}},
                "categories": [if d.rule.code.starts_with("VS9") { "Style" } else { "Bug Risk" }],
                "type": "issue",
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&issues).unwrap_or_else(|_| "[]".to_owned());
    s.push('\n');
    s
}
