//! GitHub Actions workflow commands (`::error file=…,line=…::message`), for `check` and
//! `gate` alike. GitHub shows at most [`MAX_ANNOTATIONS`] annotations per step and drops
//! the rest without a word, so the most severe are written first and a notice says how
//! many more there are.

use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, Report, Severity};

/// Annotations GitHub keeps per step.
pub const MAX_ANNOTATIONS: usize = 10;

/// `check`'s annotations: every diagnostic, the most severe first, capped.
#[must_use]
pub fn github(report: &Report) -> String {
    let (mut out, left) = annotations(&report.diagnostics);
    if left > 0 {
        let _ = writeln!(
            out,
            "::notice title=vgsupp check::{left} more {} not annotated (GitHub shows {MAX_ANNOTATIONS} per step): run `vgsupp check` to see every one",
            if left == 1 {
                "diagnostic is"
            } else {
                "diagnostics are"
            }
        );
    }
    out
}

/// Up to [`MAX_ANNOTATIONS`] annotation lines, errors before warnings before notes (each
/// in the order given), and how many were left out.
#[must_use]
pub fn annotations(diagnostics: &[Diagnostic]) -> (String, usize) {
    let mut order: Vec<&Diagnostic> = diagnostics.iter().collect();
    order.sort_by_key(|d| std::cmp::Reverse(d.severity));
    let mut out = String::new();
    for d in order.iter().take(MAX_ANNOTATIONS) {
        out.push_str(&annotation(d));
    }
    (out, order.len().saturating_sub(MAX_ANNOTATIONS))
}

/// One annotation line.
#[must_use]
pub fn annotation(d: &Diagnostic) -> String {
    let cmd = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut props = Vec::new();
    if !d.file.is_empty() {
        props.push(format!("file={}", prop(&d.file)));
        if d.display_line > 0 {
            props.push(format!("line={}", d.display_line));
        }
        if d.column > 0 {
            props.push(format!("col={}", d.column));
            if let Some(span) = d.span {
                props.push(format!("endColumn={}", d.column as usize + span.len()));
            }
        }
    }
    props.push(format!("title={}", prop(&d.headline())));
    let mut msg = d.message.clone();
    if let Some(help) = &d.help {
        msg.push_str("\nhelp: ");
        msg.push_str(help);
    }
    format!("::{cmd} {}::{}\n", props.join(","), data(&msg))
}

/// Escape a workflow command's message (`%`, CR, LF).
#[must_use]
pub fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command's property value (also `:` and `,`).
#[must_use]
pub fn prop(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}
