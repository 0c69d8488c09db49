//! SARIF 2.1.0 (hand-written, as ruff and cargo-deny do), for `check` and `gate` alike.
//!
//! Every rule of the tool is listed in the driver (rule indices then do not depend on what
//! was found), each with `shortDescription`, `fullDescription` and `help`, which GitHub
//! shows. A result's location is its file and line, with columns counted in UTF-16 code
//! units of the line's text (the run says `columnKind: utf16CodeUnits`); its function as a
//! logical location; its related stacks as the `threadFlow`s of one `codeFlow`; its
//! fingerprint as `partialFingerprints.primaryLocationLineHash` (a line-free identity, so
//! a dismissed alert survives edits above it). URIs are relative to a base id
//! (`%SRCROOT%`) when the caller gives one. GitHub's limits are kept: at most
//! [`MAX_RESULTS`] results and [`MAX_FLOW_STEPS`] flow steps per result; one location per
//! result.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::catalogue::RULES;
use crate::diagnostic::{BaselineState, Code, Diagnostic, Report, Severity, Source, Step};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// GitHub's limit on results per upload.
pub const MAX_RESULTS: usize = 25_000;
/// GitHub's limit on flow steps per result.
pub const MAX_FLOW_STEPS: usize = 10_000;

/// A tool notification of the run (`toolExecutionNotifications`): something the run
/// could not do, such as reading a log to its end.
#[derive(Debug, Clone)]
pub struct Notification {
    /// Its descriptor id (`vgsupp/incomplete/truncated`).
    pub id: String,
    /// What happened.
    pub message: String,
}

/// One SARIF run.
pub struct Run<'a> {
    /// Every rule of the tool.
    pub rules: &'a [Code],
    /// The results.
    pub diagnostics: &'a [Diagnostic],
    /// File texts by name (for UTF-16 columns).
    pub sources: &'a BTreeMap<String, Source>,
    /// The base id the URIs are relative to, with its description (`%SRCROOT%`); `None`:
    /// relative to where vgsupp ran.
    pub base: Option<(&'a str, &'a str)>,
    /// `automationDetails.id`: one per configuration.
    pub automation_id: Option<&'a str>,
    /// The tool's `informationUri`.
    pub information_uri: &'a str,
    /// What the run could not do.
    pub notifications: &'a [Notification],
    /// The run's own `properties`.
    pub properties: Option<Value>,
}

/// The SARIF log of `run`, and a note when a limit cut something.
#[must_use]
pub fn render(run: &Run<'_>) -> (String, Option<String>) {
    let rules: Vec<Value> = run.rules.iter().map(rule).collect();
    let mut notes = Vec::new();
    if run.diagnostics.len() > MAX_RESULTS {
        notes.push(format!(
            "SARIF holds the first {MAX_RESULTS} of {} results (GitHub's limit per upload); the rest are in the other formats",
            run.diagnostics.len()
        ));
    }
    let mut steps_cut = false;
    let results: Vec<Value> = run
        .diagnostics
        .iter()
        .take(MAX_RESULTS)
        .map(|d| {
            let (r, cut) = result(d, run);
            steps_cut |= cut;
            r
        })
        .collect();
    if steps_cut {
        notes.push(format!(
            "stacks longer than {MAX_FLOW_STEPS} frames in all were cut in SARIF"
        ));
    }
    let mut sarif_run = json!({
        "tool": {"driver": {
            "name": "vgsupp",
            "version": env!("CARGO_PKG_VERSION"),
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "informationUri": run.information_uri,
            "rules": rules,
        }},
        "columnKind": "utf16CodeUnits",
        "results": results,
    });
    if let Some(id) = run.automation_id {
        sarif_run["automationDetails"] = json!({"id": id});
    }
    if let Some((base, description)) = run.base {
        sarif_run["originalUriBaseIds"] = json!({base: {"description": {"text": description}}});
    }
    if !run.notifications.is_empty() {
        sarif_run["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": run.notifications.iter().map(|n| json!({
                "level": "warning",
                "message": {"text": n.message},
                "descriptor": {"id": n.id},
            })).collect::<Vec<_>>(),
        }]);
    }
    if let Some(p) = &run.properties {
        sarif_run["properties"] = p.clone();
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [sarif_run],
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    (s, (!notes.is_empty()).then(|| notes.join("; ")))
}

/// `check`'s SARIF: every lint of the catalogue, paths as the user named the files.
#[must_use]
pub fn sarif(report: &Report) -> String {
    let codes: Vec<Code> = RULES.iter().map(Code::from).collect();
    render(&Run {
        rules: &codes,
        diagnostics: &report.diagnostics,
        sources: &report.sources,
        base: None,
        automation_id: None,
        information_uri: "https://crates.io/crates/vgsupp",
        notifications: &[],
        properties: None,
    })
    .0
}

fn rule(c: &Code) -> Value {
    let properties = if c.is_lint() {
        json!({"fatal_in_valgrind": c.fatal_in_valgrind})
    } else {
        json!({"tags": c.tags, "precision": "high"})
    };
    json!({
        "id": c.code,
        "name": c.name,
        "shortDescription": {"text": c.summary},
        "fullDescription": {"text": c.why},
        "help": {"text": c.fix, "markdown": format!("**{}**\n\n{}\n\n{}", c.summary, c.why, c.fix)},
        "defaultConfiguration": {"level": level(c.severity)},
        "properties": properties,
    })
}

/// A result, and whether its flows were cut.
fn result(d: &Diagnostic, run: &Run<'_>) -> (Value, bool) {
    let mut text = match &d.title {
        Some(t) => format!("{t}: {}", d.message),
        None => d.message.clone(),
    };
    if let Some(help) = &d.help {
        text.push_str(" (help: ");
        text.push_str(help);
        text.push(')');
    }
    let mut location = json!({});
    if !d.file.is_empty() {
        let line = run
            .sources
            .get(&d.file)
            .map(|src| src.line_bytes(d.display_line).unwrap_or_default());
        let mut physical = json!({"artifactLocation": artifact(&d.file, run)});
        if d.display_line > 0 {
            physical["region"] = region(d, line);
        }
        location["physicalLocation"] = physical;
    }
    if let Some(f) = &d.function {
        location["logicalLocations"] = json!([{"fullyQualifiedName": f, "kind": "function"}]);
    }
    let mut r = json!({
        "ruleId": d.rule.code,
        "level": level(d.severity),
        "message": {"text": text},
        "locations": if location.as_object().is_some_and(|o| !o.is_empty()) { vec![location] } else { Vec::new() },
    });
    if let Some(i) = run.rules.iter().position(|c| c.code == d.rule.code) {
        r["ruleIndex"] = json!(i);
    }
    if let Some(fp) = &d.fingerprint {
        r["partialFingerprints"] = json!({"primaryLocationLineHash": fp});
    }
    if let Some(b) = d.baseline {
        r["baselineState"] = json!(match b {
            BaselineState::New => "new",
            BaselineState::Unchanged => "unchanged",
        });
    }
    let mut budget = MAX_FLOW_STEPS;
    let mut cut = false;
    let mut flows: Vec<Value> = Vec::new();
    for f in d.flows.iter().filter(|f| !f.steps.is_empty()) {
        if budget == 0 {
            cut = true;
            break;
        }
        let take = f.steps.len().min(budget);
        cut |= take < f.steps.len();
        budget -= take;
        flows.push(json!({
            "message": {"text": f.label},
            "locations": f.steps.iter().take(take).map(|s| json!({
                "location": step(s, run),
                "importance": if s.important { "important" } else { "unimportant" },
            })).collect::<Vec<_>>(),
        }));
    }
    if !flows.is_empty() {
        r["codeFlows"] = json!([{"threadFlows": flows}]);
    }
    if let Some(why) = &d.accepted {
        r["suppressions"] = json!([{"kind": "external", "justification": why}]);
    }
    let mut props = serde_json::Map::new();
    if d.rule.is_lint() {
        props.insert("fatal_in_valgrind".into(), json!(d.fatal_in_valgrind));
        props.insert("valgrind_line".into(), json!(d.line));
        props.insert("record".into(), json!(d.record));
    }
    for (k, v) in &d.properties {
        props.insert(k.clone(), v.clone());
    }
    if !props.is_empty() {
        r["properties"] = Value::Object(props);
    }
    (r, cut)
}

/// A frame of a flow as a location: physical when its file is known.
fn step(s: &Step, run: &Run<'_>) -> Value {
    let mut loc = json!({"message": {"text": s.text}});
    if let Some(file) = &s.file {
        let mut physical = json!({"artifactLocation": artifact(file, run)});
        if let Some(line) = s.line.filter(|&l| l > 0) {
            physical["region"] = json!({"startLine": line});
        }
        loc["physicalLocation"] = physical;
    }
    if let Some(f) = &s.function {
        loc["logicalLocations"] = json!([{"fullyQualifiedName": f, "kind": "function"}]);
    }
    loc
}

fn artifact(path: &str, run: &Run<'_>) -> Value {
    match run.base {
        Some((base, _)) => json!({"uri": uri(path), "uriBaseId": base}),
        None => json!({"uri": uri(path)}),
    }
}

/// A diagnostic's region. SARIF 2.1.0 counts columns in UTF-16 code units (the run says
/// `columnKind: utf16CodeUnits`, the default), vgsupp in bytes: the columns are converted
/// with the text of `line`, where a byte that is not UTF-8 counts as one unit (U+FFFD).
/// Without the line's text (a report built without sources) only the line is given: a
/// byte column would point elsewhere on a non-ASCII line.
fn region(d: &Diagnostic, line: Option<&[u8]>) -> Value {
    let mut region = json!({"startLine": d.display_line});
    let Some(line) = line.filter(|_| d.column > 0) else {
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
    use crate::supp::Span;

    fn one(source: &str, line: u32, column: u32, span: Option<Span>, with_source: bool) -> Value {
        let mut d = Diagnostic::new(
            crate::catalogue::Lint::UnknownTool,
            "a.supp",
            line,
            column,
            "m".to_owned(),
        );
        d.span = span;
        let mut report = Report {
            files: 1,
            diagnostics: vec![d],
            ..Report::default()
        };
        if with_source {
            report
                .sources
                .insert("a.supp".to_owned(), source.as_bytes().to_vec().into());
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
        let mut d = Diagnostic::new(
            crate::catalogue::Lint::UnknownTool,
            "b.supp",
            1,
            4,
            "m".to_owned(),
        );
        d.span = Some(Span::new(3, 4));
        report.diagnostics.push(d);
        report
            .sources
            .insert("b.supp".to_owned(), b"\xff\xfeab\n".to_vec().into());
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

    #[test]
    fn flows_fingerprints_and_caps() {
        let code = crate::gate::kinds::info("Addr4", None);
        let mut d = Diagnostic::of(code.clone(), "Invalid read of size 4".into());
        d.title = Some("Invalid memory access in f".into());
        d.file = "src/a.c".into();
        d.display_line = 12;
        d.function = Some("f".into());
        d.fingerprint = Some("abc".into());
        d.baseline = Some(BaselineState::New);
        d.flows = vec![crate::diagnostic::Flow {
            label: "Invalid read of size 4".into(),
            steps: (0..MAX_FLOW_STEPS + 5)
                .map(|i| Step {
                    file: (i == 0).then(|| "src/a.c".to_owned()),
                    line: Some(12),
                    function: Some("f".into()),
                    text: "a.c:12 f".into(),
                    important: i == 0,
                })
                .collect(),
        }];
        let codes = [code];
        let sources = BTreeMap::new();
        let (text, note) = render(&Run {
            rules: &codes,
            diagnostics: std::slice::from_ref(&d),
            sources: &sources,
            base: Some(("%SRCROOT%", "the repository")),
            automation_id: Some("ci/x/"),
            information_uri: "https://valgrind.org/",
            notifications: &[],
            properties: None,
        });
        let log: Value = serde_json::from_str(&text).expect("JSON");
        let r = &log["runs"][0]["results"][0];
        assert_eq!(
            r["message"]["text"],
            "Invalid memory access in f: Invalid read of size 4"
        );
        assert_eq!(r["partialFingerprints"]["primaryLocationLineHash"], "abc");
        assert_eq!(r["baselineState"], "new");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(loc["region"], json!({"startLine": 12}));
        let steps = r["codeFlows"][0]["threadFlows"][0]["locations"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(steps, MAX_FLOW_STEPS);
        assert!(note.is_some_and(|n| n.contains("cut")));
        assert_eq!(log["runs"][0]["automationDetails"]["id"], "ci/x/");
    }
}
