//! SARIF 2.1.0 for GitHub code scanning.
//!
//! One rule per kind (every rule listed, each with `shortDescription`, `fullDescription`
//! and `help`, which GitHub shows); a result per finding, located at its first
//! first-party source line; each stack a `threadFlow` of one `codeFlow`; paths relative
//! to `%SRCROOT%` (the source root), never a machine path; our line-free fingerprint as
//! `partialFingerprints.primaryLocationLineHash`, so a dismissed alert survives edits
//! above it; baselined findings as externally suppressed results. GitHub's limits are
//! kept: at most 25,000 results, 10 locations and 10,000 flow steps per result.

use anyhow::Result;
use serde_json::{Value, json};

use super::Context;
use super::kinds;
use vgsupp::gate::{Assessment, Finding, Status};
use vgsupp::r#gen::detail::{DetailFrame, StackRole};

/// GitHub's limits on one upload.
pub const MAX_RESULTS: usize = 25_000;
/// Flow steps per result.
pub const MAX_FLOW_STEPS: usize = 10_000;

/// The SARIF log, and a note when something was capped.
///
/// # Errors
/// Never in practice (serialising plain data).
pub fn render(a: &Assessment, cx: &Context<'_>) -> Result<(String, Option<String>)> {
    let rules = kinds::all();
    let mut capped = None;
    let findings: Vec<&Finding> = a.findings.iter().collect();
    if findings.len() > MAX_RESULTS {
        capped = Some(format!(
            "SARIF holds the first {MAX_RESULTS} of {} findings (GitHub's limit per upload); the rest are in the other formats",
            findings.len()
        ));
    }
    let mut steps_capped = false;
    let results: Vec<Value> = findings
        .iter()
        .take(MAX_RESULTS)
        .map(|f| {
            let (r, cut) = result(f, &rules, cx);
            steps_capped |= cut;
            r
        })
        .collect();
    if steps_capped {
        let note = format!("stacks longer than {MAX_FLOW_STEPS} frames in all were cut in SARIF");
        capped = Some(capped.map_or(note.clone(), |c| format!("{c}; {note}")));
    }
    let notifications: Vec<Value> = a
        .logs
        .iter()
        .flat_map(|l| {
            l.gaps
                .iter()
                .map(move |(line, gap, m)| (l.name.as_str(), *line, gap.as_str(), m.as_str()))
                .chain(
                    l.fatal
                        .iter()
                        .map(move |(line, m)| (l.name.as_str(), *line, "fatal", m.as_str())),
                )
        })
        .take(100)
        .map(|(log, line, kind, m)| {
            json!({
                "level": "warning",
                "message": {"text": format!("{log}:{line}: {kind}: {m}")},
                "descriptor": {"id": format!("vgsupp/incomplete/{kind}")},
            })
        })
        .collect();
    let sarif = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "vgsupp",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://valgrind.org/docs/manual/mc-manual.html",
                "rules": rules.iter().map(|k| json!({
                    "id": k.id,
                    "name": k.name,
                    "shortDescription": {"text": k.short},
                    "fullDescription": {"text": k.full},
                    "help": {"text": k.help, "markdown": format!("**{}**\n\n{}\n\n{}", k.short, k.full, k.help)},
                    "defaultConfiguration": {"level": if k.id.ends_with("reachable") { "note" } else { "error" }},
                    "properties": {"tags": ["memory", "valgrind", "security"], "precision": "high"},
                })).collect::<Vec<_>>(),
            }},
            "automationDetails": {"id": cx.automation_id},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The source root (--source-root; default: the repository root)"}}},
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
            "properties": {
                "verdict": if a.failed() { "fail" } else if a.incomplete() && !cx.allow_incomplete { "incomplete" } else { "pass" },
                "errors": a.errors(),
                "suppressed": a.suppressed,
                "noise": a.noise.iter().map(|n| n.count).sum::<u64>(),
            },
        }],
    });
    let mut s = serde_json::to_string_pretty(&sarif)?;
    s.push('\n');
    Ok((s, capped))
}

/// A frame's SARIF location: physical when its file is under the source root.
fn location(f: &DetailFrame, cx: &Context<'_>, message: Option<String>) -> Value {
    let mut loc = json!({});
    if let Some(uri) = cx.sources.resolve(f) {
        let mut phys = json!({"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}});
        if let Some(line) = f.line.filter(|&l| l > 0) {
            phys["region"] = json!({"startLine": line});
        }
        loc["physicalLocation"] = phys;
    }
    if let Some(fun) = &f.function {
        loc["logicalLocations"] = json!([{"fullyQualifiedName": fun, "kind": "function"}]);
    }
    if let Some(m) = message {
        loc["message"] = json!({"text": m});
    }
    loc
}

fn result(f: &Finding, rules: &[kinds::KindInfo], cx: &Context<'_>) -> (Value, bool) {
    let k = kinds::of(f);
    let index = rules.iter().position(|r| r.id == k.id);
    let primary = f.detail.primary();
    let mut text = format!("{}: {}", kinds::title(f), f.what);
    if f.count > 1 {
        text.push_str(&format!(" ({} occurrences)", f.count));
    }
    if f.status == Status::Warn {
        text.push_str(&format!(" — not failing: {}", f.reason.text()));
    }
    if let Some(rule) = &f.maybe_suppressed {
        text.push_str(&format!(
            " — may be hidden by {rule}, but the log hides what decides it; record with --xml=yes to decide"
        ));
    }
    // Its first first-party line; else the first frame whose source is in the
    // repository; else where its first frame is, by name (a result needs a location).
    let frames = || f.detail.stacks.iter().flat_map(|s| &s.frames);
    let at = primary
        .filter(|p| cx.sources.resolve(p).is_some())
        .or_else(|| frames().find(|fr| cx.sources.resolve(fr).is_some()))
        .or(primary)
        .or_else(|| frames().next());
    let locations: Vec<Value> = at.map(|p| location(p, cx, None)).into_iter().collect();
    let mut budget = MAX_FLOW_STEPS;
    let mut cut = false;
    let flows: Vec<Value> = f
        .detail
        .stacks
        .iter()
        .filter(|s| !s.frames.is_empty())
        .map(|s| {
            let take = s.frames.len().min(budget);
            cut |= take < s.frames.len();
            budget -= take;
            let label = match s.role {
                StackRole::Error => f.what.clone(),
                _ => s.label.clone(),
            };
            json!({
                "message": {"text": label},
                "locations": s.frames.iter().take(take).map(|fr| json!({
                    "location": location(fr, cx, Some(super::human::frame_text(fr))),
                    "importance": if fr.first_party { "important" } else { "unimportant" },
                })).collect::<Vec<_>>(),
            })
        })
        .filter(|v| v["locations"].as_array().is_some_and(|a| !a.is_empty()))
        .collect();
    let level = match f.status {
        Status::Fail => "error",
        Status::Warn => "warning",
        Status::Baselined => "note",
    };
    let mut r = json!({
        "ruleId": k.id,
        "level": level,
        "message": {"text": text},
        "locations": locations,
        "partialFingerprints": {"primaryLocationLineHash": f.fingerprint},
        "baselineState": if f.baselined == 0 { "new" } else { "unchanged" },
        "properties": {
            "occurrences": f.count,
            "verdict": f.verdict.as_str(),
            "reason": f.reason.code(),
            "logs": f.occurrences.iter().take(10).map(|o| format!("{}:{}", cx.names[o.log], o.line)).collect::<Vec<_>>(),
        },
    });
    if let Some(i) = index {
        r["ruleIndex"] = json!(i);
    }
    if !flows.is_empty() {
        r["codeFlows"] = json!([{"threadFlows": flows}]);
    }
    if f.status == Status::Baselined {
        r["suppressions"] =
            json!([{"kind": "external", "justification": "in the vgsupp baseline"}]);
    }
    (r, cut)
}
