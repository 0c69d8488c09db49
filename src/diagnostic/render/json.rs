//! The JSON contract of `check --format json` (PRODUCT.md §2).

use serde::Serialize;

use crate::diagnostic::Report;

#[derive(Serialize)]
struct Out<'a> {
    files: usize,
    rules: usize,
    diagnostics: Vec<Item<'a>>,
}

#[derive(Serialize)]
struct Item<'a> {
    code: &'a str,
    severity: &'static str,
    file: &'a str,
    line: u32,
    column: u32,
    message: &'a str,
    fatal_in_valgrind: bool,
    rule: Option<&'a str>,
}

/// One JSON object, followed by a newline.
#[must_use]
pub fn json(report: &Report) -> String {
    let out = Out {
        files: report.files,
        rules: report.rules,
        diagnostics: report
            .diagnostics
            .iter()
            .map(|d| Item {
                code: &d.rule.code,
                severity: d.severity.as_str(),
                file: &d.file,
                line: d.line,
                column: d.column,
                message: &d.message,
                fatal_in_valgrind: d.fatal_in_valgrind,
                rule: d.record.as_deref(),
            })
            .collect(),
    };
    let mut s = serde_json::to_string(&out).unwrap_or_else(|_| String::from("{}"));
    s.push('\n');
    s
}
