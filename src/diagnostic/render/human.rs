//! Human output in the style of rustc: a header, the location, the source line with the
//! problem underlined, then notes.

use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, Report, Severity, Source};

struct Paint(bool);

impl Paint {
    fn wrap(&self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
    fn sev(&self, sev: Severity, s: &str) -> String {
        self.wrap(
            match sev {
                Severity::Error => "1;31",
                Severity::Warning => "1;33",
                Severity::Info => "1;36",
            },
            s,
        )
    }
    fn blue(&self, s: &str) -> String {
        self.wrap("1;34", s)
    }
    fn bold(&self, s: &str) -> String {
        self.wrap("1", s)
    }
}

/// Render every diagnostic, then a one-line summary.
#[must_use]
pub fn human(report: &Report, color: bool) -> String {
    let p = Paint(color);
    let mut out = String::new();
    for d in &report.diagnostics {
        diagnostic(&mut out, d, report.sources.get(&d.file), &p);
        out.push('\n');
    }
    let (e, w) = (
        report.count(Severity::Error),
        report.count(Severity::Warning),
    );
    let plural = |n: usize, s: &str| format!("{n} {s}{}", if n == 1 { "" } else { "s" });
    let _ = writeln!(
        out,
        "{}: {} and {} in {} ({})",
        p.bold("checked"),
        plural(e, "error"),
        plural(w, "warning"),
        plural(report.files, "file"),
        plural(report.rules, "rule"),
    );
    out
}

fn diagnostic(out: &mut String, d: &Diagnostic, src: Option<&Source>, p: &Paint) {
    let head = format!("{}[{}]", d.severity.as_str(), d.rule.code);
    let _ = writeln!(
        out,
        "{}{} {}",
        p.sev(d.severity, &head),
        p.bold(":"),
        p.bold(&d.message)
    );
    let gutter = d.display_line.to_string().len();
    let _ = writeln!(
        out,
        "{}{} {}:{}:{}",
        " ".repeat(gutter),
        p.blue("-->"),
        d.file,
        d.display_line,
        d.column
    );
    let pad = " ".repeat(gutter);
    if let Some((text, start_col, width)) = src.and_then(|s| excerpt(s, d)) {
        let _ = writeln!(out, "{pad} {}", p.blue("|"));
        let _ = writeln!(
            out,
            "{} {} {text}",
            p.blue(&d.display_line.to_string()),
            p.blue("|")
        );
        let marks = format!("{}{}", " ".repeat(start_col), "^".repeat(width.max(1)));
        let _ = writeln!(out, "{pad} {} {}", p.blue("|"), p.sev(d.severity, &marks));
    }
    if let Some(rec) = &d.record {
        let _ = writeln!(out, "{pad} {} in record `{rec}`", p.blue("="));
    }
    if d.fatal_in_valgrind {
        let note = match &*d.rule.code {
            "VS116" => "Valgrind aborts while reading this line".to_owned(),
            "VS114" | "VS115" => {
                "Valgrind loads this, then crashes when an error is compared with it".to_owned()
            }
            _ => format!(
                "Valgrind stops: `FATAL: in suppressions file \"{}\" near line {}`",
                d.file, d.line
            ),
        };
        let _ = writeln!(out, "{pad} {} {} {note}", p.blue("="), p.bold("note:"));
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "{pad} {} {} {help}", p.blue("="), p.bold("help:"));
    }
}

/// The line's text (lossy, tabs expanded to one space, cut at 200 characters) and where the
/// underline starts and how wide it is, in characters.
fn excerpt(src: &Source, d: &Diagnostic) -> Option<(String, usize, usize)> {
    const MAX: usize = 200;
    let line = src.line(d.display_line)?;
    let raw = line.span.slice(src.bytes());
    let to_chars = |bytes: &[u8]| String::from_utf8_lossy(bytes).chars().count();
    let (start, end) = match d.span {
        Some(s) if s.start >= line.span.start && s.end <= line.span.end => {
            (s.start - line.span.start, s.end - line.span.start)
        }
        _ => (
            line.text.start - line.span.start,
            line.text.end - line.span.start,
        ),
    };
    let text: String = String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if c == '\t' || c.is_control() { ' ' } else { c })
        .take(MAX)
        .collect();
    let start_col = to_chars(&raw[..start]).min(MAX);
    let width = to_chars(&raw[start..end]).min(MAX.saturating_sub(start_col));
    Some((text.trim_end().to_owned(), start_col, width))
}
