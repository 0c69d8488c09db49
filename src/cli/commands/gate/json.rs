//! The JSON contract of `gate` (docs/formats.md): the verdict, every finding with its
//! stacks, the noise, what the logs miss.

use anyhow::Result;
use serde::Serialize;

use super::Context;
use vgsupp::gate::kinds;
use vgsupp::gate::{Assessment, Finding, Status};
use vgsupp::r#gen::detail::DetailFrame;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    verdict: &'static str,
    exit_code: u8,
    policy: String,
    logs: Vec<Log<'a>>,
    findings: Vec<JsonFinding<'a>>,
    noise: Vec<Noise<'a>>,
    suppressed: u64,
    gen_command: &'a str,
}

#[derive(Serialize)]
struct Log<'a> {
    log: &'a str,
    errors: u64,
    complete: bool,
    gaps: Vec<Gap<'a>>,
    command: Option<&'a str>,
    valgrind: Option<&'a str>,
}

#[derive(Serialize)]
struct Gap<'a> {
    line: u64,
    kind: &'static str,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    status: &'static str,
    fingerprint: &'a str,
    rule: String,
    kind: &'a str,
    leak_kind: Option<&'static str>,
    title: String,
    what: &'a str,
    verdict: &'static str,
    reason: &'static str,
    reason_text: String,
    function: Option<&'a str>,
    location: Option<String>,
    count: u64,
    baselined: u64,
    maybe_suppressed_by: Option<&'a str>,
    occurrences: Vec<Occurrence<'a>>,
    stacks: Vec<Stack<'a>>,
}

#[derive(Serialize)]
struct Occurrence<'a> {
    log: &'a str,
    line: u64,
    pid: Option<u32>,
}

#[derive(Serialize)]
struct Stack<'a> {
    role: &'static str,
    label: &'a str,
    frames: Vec<Frame<'a>>,
}

#[derive(Serialize)]
struct Frame<'a> {
    ip: Option<String>,
    function: Option<&'a str>,
    object: Option<&'a str>,
    file: Option<&'a str>,
    path: Option<String>,
    line: Option<u32>,
    first_party: bool,
}

#[derive(Serialize)]
struct Noise<'a> {
    origin: &'a str,
    kind: &'a str,
    leak_kind: Option<&'static str>,
    count: u64,
    function: Option<&'a str>,
    first: Occurrence<'a>,
}

/// The report as JSON.
///
/// # Errors
/// Never in practice (serialising plain data).
pub fn render(a: &Assessment, cx: &Context<'_>) -> Result<String> {
    let (verdict, exit_code) = if a.failed() {
        ("fail", 1)
    } else if a.incomplete() && !cx.allow_incomplete {
        ("incomplete", 2)
    } else {
        ("pass", 0)
    };
    let report = Report {
        version: 1,
        verdict,
        exit_code,
        policy: a.policy.describe(),
        logs: a
            .logs
            .iter()
            .map(|l| Log {
                log: &l.name,
                errors: l.errors,
                complete: !l.incomplete(),
                gaps: l
                    .gaps
                    .iter()
                    .map(|(line, g, m)| Gap {
                        line: *line,
                        kind: g.as_str(),
                        message: m,
                    })
                    .chain(l.fatal.iter().map(|(line, m)| Gap {
                        line: *line,
                        kind: "fatal",
                        message: m,
                    }))
                    .collect(),
                command: l.command.as_deref(),
                valgrind: l.valgrind.as_deref(),
            })
            .collect(),
        findings: a.findings.iter().map(|f| finding(f, cx)).collect(),
        noise: a
            .noise
            .iter()
            .map(|n| Noise {
                origin: &n.origin,
                kind: &n.kind,
                leak_kind: n.leak_kind.map(|l| l.token()),
                count: n.count,
                function: n.function.as_deref(),
                first: Occurrence {
                    log: &cx.names[n.first.log],
                    line: n.first.line,
                    pid: n.first.pid,
                },
            })
            .collect(),
        suppressed: a.suppressed,
        gen_command: &cx.gen_command,
    };
    let mut s = serde_json::to_string_pretty(&report)?;
    s.push('\n');
    Ok(s)
}

fn finding<'a>(f: &'a Finding, cx: &'a Context<'_>) -> JsonFinding<'a> {
    JsonFinding {
        status: f.status.as_str(),
        fingerprint: &f.fingerprint,
        rule: kinds::of(f).code.into_owned(),
        kind: &f.kind,
        leak_kind: f.leak_kind.map(|l| l.token()),
        title: kinds::title(f),
        what: &f.what,
        verdict: f.verdict.as_str(),
        reason: f.reason.code(),
        reason_text: f.reason.text(),
        function: f.function.as_deref(),
        location: f
            .detail
            .primary()
            .and_then(DetailFrame::location)
            .or_else(|| f.location.clone()),
        count: f.count,
        baselined: if f.status == Status::Baselined {
            f.count
        } else {
            f.baselined
        },
        maybe_suppressed_by: f.maybe_suppressed.as_deref(),
        occurrences: f
            .occurrences
            .iter()
            .map(|o| Occurrence {
                log: &cx.names[o.log],
                line: o.line,
                pid: o.pid,
            })
            .collect(),
        stacks: f
            .detail
            .stacks
            .iter()
            .map(|s| Stack {
                role: s.role.as_str(),
                label: &s.label,
                frames: s
                    .frames
                    .iter()
                    .map(|fr| Frame {
                        ip: fr.ip.map(|ip| format!("{ip:#x}")),
                        function: fr.function.as_deref(),
                        object: fr.object.as_deref(),
                        file: fr.file.as_deref(),
                        path: cx.sources.resolve(fr),
                        line: fr.line,
                        first_party: fr.first_party,
                    })
                    .collect(),
            })
            .collect(),
    }
}
