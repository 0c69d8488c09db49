//! GitHub Actions workflow commands (`::error file=…,line=…::message`).

use std::fmt::Write as _;

use crate::diagnostic::{Report, Severity};

/// One annotation line per diagnostic.
#[must_use]
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let cmd = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = format!(
            "file={},line={},col={}",
            prop(&d.file),
            d.display_line,
            d.column
        );
        if let Some(span) = d.span {
            let _ = write!(props, ",endColumn={}", d.column as usize + span.len());
        }
        let _ = write!(
            props,
            ",title={}",
            prop(&format!("{} {}", d.rule.code, d.rule.name))
        );
        let mut msg = d.message.clone();
        if let Some(help) = &d.help {
            msg.push_str("\nhelp: ");
            msg.push_str(help);
        }
        let _ = writeln!(out, "::{cmd} {props}::{}", data(&msg));
    }
    out
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
