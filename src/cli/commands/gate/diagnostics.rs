//! The gate's findings as [`Diagnostic`]s: what the renderers shared with `check` (SARIF,
//! GitHub annotations, GitLab Code Quality) take. A finding points at its first
//! first-party source line in the repository (else the first frame whose source is
//! there, else its function alone), at the log that reported it first, and carries every
//! stack as a [`Flow`] and its line-free fingerprint.

use serde_json::json;

use super::Context;
use super::human::frame_text;
use vgsupp::diagnostic::{BaselineState, Diagnostic, Flow, LogPoint, Severity, Step};
use vgsupp::gate::{Assessment, Finding, Status, kinds};
use vgsupp::r#gen::detail::StackRole;

/// Every finding of `a`, in its order.
pub fn of(a: &Assessment, cx: &Context<'_>) -> Vec<Diagnostic> {
    a.findings
        .iter()
        .map(|f| diagnostic(f, a.baseline.is_some(), cx))
        .collect()
}

fn diagnostic(f: &Finding, with_baseline: bool, cx: &Context<'_>) -> Diagnostic {
    let mut message = f.what.clone();
    if f.count > 1 {
        message.push_str(&format!(" ({} occurrences)", f.count));
    }
    if f.status == Status::Warn {
        message.push_str(&format!(" — not failing: {}", f.reason.text()));
    }
    if let Some(rule) = &f.maybe_suppressed {
        message.push_str(&format!(
            " — may be hidden by {rule}, but the log hides what decides it; record with --xml=yes to decide"
        ));
    }
    let mut d = Diagnostic::of(kinds::of(f), message);
    d.severity = match f.status {
        Status::Fail => Severity::Error,
        Status::Warn => Severity::Warning,
        Status::Baselined => Severity::Info,
    };
    d.title = Some(kinds::title(f));
    // Its first first-party line; else the first frame whose source is in the
    // repository; else where its first frame is, by name (a result needs a location).
    let primary = f.detail.primary();
    let frames = || f.detail.stacks.iter().flat_map(|s| &s.frames);
    let at = primary
        .filter(|p| cx.sources.resolve(p).is_some())
        .or_else(|| frames().find(|fr| cx.sources.resolve(fr).is_some()))
        .or(primary)
        .or_else(|| frames().next());
    if let Some(p) = at {
        if let Some(path) = cx.sources.resolve(p) {
            d.file = path;
            d.display_line = p.line.unwrap_or(0);
            d.line = d.display_line;
        }
        d.function.clone_from(&p.function);
    }
    let first = f.occurrences[0];
    d.log = Some(LogPoint {
        log: cx.names[first.log].clone(),
        line: first.line,
    });
    d.flows = f
        .detail
        .stacks
        .iter()
        .filter(|s| !s.frames.is_empty())
        .map(|s| Flow {
            label: match s.role {
                StackRole::Error => f.what.clone(),
                _ => s.label.clone(),
            },
            steps: s
                .frames
                .iter()
                .map(|fr| Step {
                    file: cx.sources.resolve(fr),
                    line: fr.line,
                    function: fr.function.clone(),
                    text: frame_text(fr),
                    important: fr.first_party,
                })
                .collect(),
        })
        .collect();
    d.fingerprint = Some(f.fingerprint.clone());
    if with_baseline {
        d.baseline = Some(if f.baselined == 0 {
            BaselineState::New
        } else {
            BaselineState::Unchanged
        });
    }
    if f.status == Status::Baselined {
        d.accepted = Some("in the vgsupp baseline".to_owned());
    }
    d.properties = vec![
        ("occurrences".to_owned(), json!(f.count)),
        ("verdict".to_owned(), json!(f.verdict.as_str())),
        ("reason".to_owned(), json!(f.reason.code())),
        (
            "logs".to_owned(),
            json!(
                f.occurrences
                    .iter()
                    .take(10)
                    .map(|o| format!("{}:{}", cx.names[o.log], o.line))
                    .collect::<Vec<_>>()
            ),
        ),
    ];
    d
}
