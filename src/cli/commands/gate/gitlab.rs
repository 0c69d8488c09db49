//! GitLab Code Quality JSON (`artifacts:reports:codequality`): one issue per first-party
//! finding with `description`, `check_name`, `fingerprint`, `severity`, `location.path`
//! and `location.lines.begin`. GitLab shows only issues whose path is in the repository,
//! so a finding whose source is not under the source root is left out of this format.
//! GitLab needs one fingerprint per issue: a still-reachable and a definitely lost block
//! allocated at the same place share vgsupp's fingerprint (it leaves the leak kind out,
//! which changes from run to run), so an issue's is that fingerprint with its rule.

use anyhow::Result;
use serde_json::{Value, json};

use super::Context;
use super::kinds;
use vgsupp::gate::{Assessment, Status};

/// The Code Quality report.
///
/// # Errors
/// Never in practice (serialising plain data).
pub fn render(a: &Assessment, cx: &Context<'_>) -> Result<String> {
    let issues: Vec<Value> = a
        .findings
        .iter()
        .filter(|f| f.status != Status::Baselined)
        .filter_map(|f| {
            let p = f.detail.primary()?;
            let path = cx.sources.resolve(p)?;
            let severity = match f.status {
                Status::Fail => "critical",
                _ => "minor",
            };
            Some(json!({
                "description": format!("{}: {}", kinds::title(f), f.what),
                "check_name": kinds::of(f).id,
                "fingerprint": issue_fingerprint(&f.fingerprint, &kinds::of(f).id),
                "severity": severity,
                "location": {"path": path, "lines": {"begin": p.line.unwrap_or(1).max(1)}},
                "categories": ["Bug Risk"],
                "type": "issue",
            }))
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&issues)?;
    s.push('\n');
    Ok(s)
}

/// The issue's fingerprint: the finding's with its rule (32 hex digits).
fn issue_fingerprint(fingerprint: &str, rule: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(format!("{fingerprint} {rule}").as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}
