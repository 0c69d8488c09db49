//! SARIF 2.1.0 (hand-written, as ruff and cargo-deny do).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::diagnostic::{Diagnostic, Report, Severity};
use crate::lint::registry::RULES;
use crate::supp::Span;
use crate::supp::lines::Lines;

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
    // Line spans of each file, computed once per file.
    let mut lines: HashMap<&str, Vec<Span>> = HashMap::new();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            let index = RULES
                .iter()
                .position(|r| r.code == d.rule.code)
                .unwrap_or(0);
            let line = report.sources.get(&d.file).map(|src| {
                let spans = lines
                    .entry(d.file.as_str())
                    .or_insert_with(|| Lines::new(src).map(|l| l.span).collect());
                usize::try_from(d.display_line)
                    .ok()
                    .and_then(|n| spans.get(n.checked_sub(1)?))
                    .map_or(&[][..], |span| span.slice(src))
            });
            let region = region(d, line);
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
            "columnKind": "utf16CodeUnits",
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

/// A diagnostic's region. SARIF 2.1.0 counts columns in UTF-16 code units (the run says
/// `columnKind: utf16CodeUnits`, the default), vgsupp in bytes: the columns are converted
/// with the text of `line`, where a byte that is not UTF-8 counts as one unit (U+FFFD).
/// Without the line's text (a report built without sources) only the line is given: a
/// byte column would point elsewhere on a non-ASCII line.
fn region(d: &Diagnostic, line: Option<&[u8]>) -> Value {
    let mut region = json!({"startLine": d.display_line});
    let Some(line) = line else {
        return region;
    };
    let units = |bytes: &[u8]| String::from_utf8_lossy(bytes).encode_utf16().count();
    let start = usize::try_from(d.column)
        .unwrap_or(usize::MAX)
        .saturating_sub(1)
        .min(line.len());
    region["startColumn"] = json!(units(&line[..start]) + 1);
    if let Some(span) = d.span {
        let end = start.saturating_add(span.len()).min(line.len());
        region["endColumn"] = json!(units(&line[..end]) + 1);
    }
    region
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

#[cfg(test)]
mod tests {
    use super::*;

    fn one(source: &str, line: u32, column: u32, span: Option<Span>, with_source: bool) -> Value {
        let mut d = Diagnostic::new("VS201", "a.supp", line, column, "m".to_owned());
        d.span = span;
        let mut report = Report {
            files: 1,
            diagnostics: vec![d],
            ..Report::default()
        };
        if with_source {
            report
                .sources
                .insert("a.supp".to_owned(), source.as_bytes().to_vec());
        }
        let log: Value = serde_json::from_str(&sarif(&report)).expect("JSON");
        assert_eq!(log["runs"][0]["columnKind"], "utf16CodeUnits");
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].clone()
    }

    #[test]
    fn columns_count_utf16_code_units() {
        // `é` is 2 bytes and 1 UTF-16 unit; `😀` is 4 bytes and 2 units (a surrogate pair).
        let src = "{\n   fun:é😀bad\n}\n";
        let line2 = src.find("   fun").expect("line 2");
        let bad = src.find("bad").expect("bad");
        let column = u32::try_from(bad - line2 + 1).expect("small");
        assert_eq!(column, 14);
        let r = one(src, 2, column, Some(Span::new(bad, bad + 3)), true);
        assert_eq!(r["startLine"], 2);
        assert_eq!(r["startColumn"], 11);
        assert_eq!(r["endColumn"], 14);
        // ASCII lines are unchanged: bytes and UTF-16 units agree.
        let r = one("{\n   fun:x\n}\n", 2, 4, Some(Span::new(5, 10)), true);
        assert_eq!(
            (r["startColumn"].clone(), r["endColumn"].clone()),
            (4.into(), 9.into())
        );
    }

    #[test]
    fn invalid_utf8_and_missing_sources() {
        // A byte that is not UTF-8 counts as one unit (U+FFFD), as editors show it.
        let mut report = Report::default();
        let mut d = Diagnostic::new("VS201", "b.supp", 1, 4, "m".to_owned());
        d.span = Some(Span::new(3, 4));
        report.diagnostics.push(d);
        report
            .sources
            .insert("b.supp".to_owned(), b"\xff\xfeab\n".to_vec());
        let log: Value = serde_json::from_str(&sarif(&report)).expect("JSON");
        let r = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (r["startColumn"].clone(), r["endColumn"].clone()),
            (4.into(), 5.into())
        );
        // Without the source a byte column would be wrong on a non-ASCII line: only the
        // line is given.
        let r = one("", 2, 14, Some(Span::new(20, 23)), false);
        assert_eq!(r, json!({"startLine": 2}));
        // A line past the end of the source (a diagnostic at end of file) starts at 1.
        let r = one("{\n", 5, 3, None, true);
        assert_eq!(r, json!({"startLine": 5, "startColumn": 1}));
    }
}
