//! SARIF 2.1.0 for GitHub code scanning, through the renderer `check` uses
//! ([`vgsupp::diagnostic::render::sarif`]): one rule per kind of error, a result per
//! finding at its first first-party source line, each stack a `threadFlow`, paths
//! relative to `%SRCROOT%` (the source root), never a machine path; the line-free
//! fingerprint as `partialFingerprints.primaryLocationLineHash`; baselined findings as
//! externally suppressed results; what the logs miss as tool notifications.

use serde_json::json;

use super::Context;
use vgsupp::diagnostic::Diagnostic;
use vgsupp::diagnostic::render::sarif::{Notification, Run, render as render_run};
use vgsupp::gate::{Assessment, kinds};

/// The SARIF log, and a note when a GitHub limit cut something.
#[must_use]
pub fn render(
    a: &Assessment,
    diagnostics: &[Diagnostic],
    cx: &Context<'_>,
) -> (String, Option<String>) {
    let rules = kinds::all();
    let notifications: Vec<Notification> = a
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
        .map(|(log, line, kind, m)| Notification {
            id: format!("vgsupp/incomplete/{kind}"),
            message: format!("{log}:{line}: {kind}: {m}"),
        })
        .collect();
    let verdict = if a.failed() {
        "fail"
    } else if a.incomplete() && !cx.allow_incomplete {
        "incomplete"
    } else {
        "pass"
    };
    render_run(&Run {
        rules: &rules,
        diagnostics,
        sources: &std::collections::BTreeMap::new(),
        base: Some((
            "%SRCROOT%",
            "The source root (--source-root; default: the repository root)",
        )),
        automation_id: Some(&cx.automation_id),
        information_uri: "https://valgrind.org/docs/manual/mc-manual.html",
        notifications: &notifications,
        properties: Some(json!({
            "verdict": verdict,
            "errors": a.errors(),
            "suppressed": a.suppressed,
            "noise": a.noise.iter().map(|n| n.count).sum::<u64>(),
        })),
    })
}
