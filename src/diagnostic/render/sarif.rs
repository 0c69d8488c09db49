//! SARIF 2.1.0 (hand-written, as ruff and cargo-deny do).

use serde_json::{Value, json};

use crate::diagnostic::{Report, Severity};
use crate::lint::registry::RULES;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// One SARIF log with one run.
#[must_use]
pub fn sarif(report: &Report) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.why},
                "help": {"text": r.fix},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"fatal_in_valgrind": r.fatal_in_valgrind},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            let index = RULES
                .iter()
                .position(|r| r.code == d.rule.code)
                .unwrap_or(0);
            let mut region = json!({"startLine": d.display_line, "startColumn": d.column});
            if let Some(span) = d.span {
                region["endColumn"] = json!(d.column as usize + span.len());
            }
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str(" (help: ");
                message.push_str(help);
                message.push(')');
            }
            json!({
                "ruleId": d.rule.code,
                "ruleIndex": index,
                "level": level(d.severity),
                "message": {"text": message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri(&d.file)},
                    "region": region,
                }}],
                "properties": {
                    "fatal_in_valgrind": d.fatal_in_valgrind,
                    "valgrind_line": d.line,
                    "record": d.record,
                },
            })
        })
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "vgsupp",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://crates.io/crates/vgsupp",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

const fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A relative URI reference for a path (forward slashes, spaces and `%` escaped).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for c in path.trim_start_matches("./").chars() {
        match c {
            '\\' => out.push('/'),
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            _ => out.push(c),
        }
    }
    out
}
