//! The report for people: failures with their stacks (first-party frames marked), then
//! warnings, baselined errors, the noise no rule hides, what the logs miss, the verdict.

use std::fmt::Write as _;

use super::Context;
use vgsupp::gate::kinds;
use vgsupp::gate::{Assessment, Finding, Status};
use vgsupp::r#gen::Verdict;
use vgsupp::r#gen::detail::{DetailFrame, StackRole};

/// Frames shown per stack (first-party ones are always shown).
const FRAMES_SHOWN: usize = 8;

/// The whole report.
#[must_use]
pub fn render(a: &Assessment, cx: &Context<'_>) -> String {
    let mut s = String::new();
    for f in &a.findings {
        finding(&mut s, a, f, cx);
    }
    if !a.noise.is_empty() {
        let total: u64 = a.noise.iter().map(|n| n.count).sum();
        let _ = writeln!(
            s,
            "Third-party noise no rule hides (never fails the gate): {} {}",
            thousands(total),
            plural(total, "error", "errors")
        );
        for n in a.noise.iter().take(10) {
            let leak = n
                .leak_kind
                .map_or(String::new(), |l| format!(" ({})", l.token()));
            let _ = writeln!(
                s,
                "  {:>7}  {}  {}{leak}{}  [{}:{}]",
                thousands(n.count),
                n.origin,
                n.kind,
                n.function.as_deref().map_or(String::new(), |f| format!(
                    "  {}",
                    vgsupp::r#gen::names::short(f)
                )),
                cx.names[n.first.log],
                n.first.line
            );
        }
        if a.noise.len() > 10 {
            let _ = writeln!(s, "  … and {} more groups", a.noise.len() - 10);
        }
        let _ = writeln!(s, "  To write rules for it: {}\n", cx.gen_command);
    }
    incomplete(&mut s, a, cx);
    if let Some(b) = &a.baseline {
        for &i in &b.expired {
            let _ = writeln!(
                s,
                "note: baseline entry {} expired: its errors fail again until it is renewed or the bug fixed",
                i + 1
            );
        }
    }
    let _ = writeln!(s, "{}", summary_line(a));
    s.push_str(&verdict_line(a, cx.allow_incomplete));
    s.push('\n');
    s
}

fn finding(s: &mut String, a: &Assessment, f: &Finding, cx: &Context<'_>) {
    let tag = match (f.status, f.verdict) {
        (Status::Fail, _) => "FAIL",
        (Status::Warn, Verdict::Review) => "review",
        (Status::Warn, _) => "warn",
        (Status::Baselined, _) => "baselined",
    };
    let at = f
        .detail
        .primary()
        .and_then(DetailFrame::location)
        .or_else(|| f.location.clone())
        .map_or(String::new(), |l| format!("  {l}"));
    let logs: std::collections::BTreeSet<usize> = f.occurrences.iter().map(|o| o.log).collect();
    let times = if f.count > 1 {
        format!(
            "  ({} occurrences in {} {})",
            thousands(f.count),
            logs.len(),
            plural(logs.len() as u64, "log", "logs")
        )
    } else {
        String::new()
    };
    let _ = writeln!(s, "{tag}  {}{at}{times}", kinds::title(f));
    let first = f.occurrences[0];
    let pid = first
        .pid
        .map_or(String::new(), |p| format!(", process {p}"));
    let _ = writeln!(
        s,
        "    {}  [{}:{}{pid}]",
        f.what, cx.names[first.log], first.line
    );
    if f.status == Status::Warn {
        let why = if f.verdict == Verdict::Review {
            format!(
                "{} (not failing: --fail-on review makes it fail)",
                f.reason.text()
            )
        } else {
            format!(
                "{}; its kind does not fail the gate (--fail-on: {})",
                f.reason.text(),
                a.policy.describe()
            )
        };
        let _ = writeln!(s, "    why: {why}");
    }
    if f.baselined > 0 && f.status != Status::Baselined {
        let _ = writeln!(
            s,
            "    the baseline covers {} of its {} occurrences: the others are new",
            f.baselined, f.count
        );
    }
    if let Some(rule) = &f.maybe_suppressed {
        let _ = writeln!(
            s,
            "    may be hidden by {rule}, but the log hides what decides it, so it counts as not suppressed; to decide, record with --xml=yes (XML shows every frame's object)"
        );
    }
    if f.status != Status::Baselined {
        for st in &f.detail.stacks {
            let label = match st.role {
                StackRole::Error => "stack",
                StackRole::Block | StackRole::Origin => st.label.as_str(),
            };
            let _ = writeln!(s, "    {label}:");
            let shown: Vec<(usize, &DetailFrame)> = st
                .frames
                .iter()
                .enumerate()
                .filter(|(i, fr)| *i < FRAMES_SHOWN || fr.first_party)
                .collect();
            for (_, fr) in &shown {
                let mark = if fr.first_party { ">" } else { " " };
                let _ = writeln!(s, "     {mark} {}", frame_text(fr));
            }
            if shown.len() < st.frames.len() {
                let _ = writeln!(s, "       … {} more frames", st.frames.len() - shown.len());
            }
        }
    }
    let _ = writeln!(s, "    fingerprint {}\n", f.fingerprint);
}

/// `function (file:line)`, or `function (in object)`; the function without its
/// parameters and template arguments (JSON and SARIF keep the full name).
pub fn frame_text(f: &DetailFrame) -> String {
    let fun = f
        .function
        .as_deref()
        .map_or_else(|| "???".to_owned(), vgsupp::r#gen::names::short);
    match (f.location(), f.object_name()) {
        (Some(l), _) => format!("{fun} ({l})"),
        (None, Some(o)) => format!("{fun} (in {o})"),
        (None, None) => fun.to_owned(),
    }
}

fn incomplete(s: &mut String, a: &Assessment, cx: &Context<'_>) {
    for l in a.logs.iter().filter(|l| l.incomplete()) {
        let _ = writeln!(s, "Incomplete evidence: {}", l.name);
        for (line, gap, message) in l.gaps.iter().take(5) {
            let _ = writeln!(s, "  {}:{line}: {}: {message}", l.name, gap.as_str());
        }
        for (line, message) in l.fatal.iter().take(5) {
            let _ = writeln!(s, "  {}:{line}: the process ended early: {message}", l.name);
        }
    }
    if a.incomplete() {
        let _ = cx;
        s.push_str(
            "  The gate judged what was read; a run that was cut, killed or crashed never passes (--allow-incomplete accepts it).\n\n",
        );
    }
}

/// `2 logs, 19,908 errors and loss records: 4,962 suppressed, …`.
fn summary_line(a: &Assessment) -> String {
    let count = |st: Status| -> u64 {
        a.findings
            .iter()
            .filter(|f| f.status == st)
            .map(|f| f.count)
            .sum()
    };
    let noise: u64 = a.noise.iter().map(|n| n.count).sum();
    format!(
        "{} {}, {} errors and loss records: {} suppressed, {} third-party noise, {} first-party failing, {} warnings, {} baselined",
        a.logs.len(),
        plural(a.logs.len() as u64, "log", "logs"),
        thousands(a.errors()),
        thousands(a.suppressed),
        thousands(noise),
        thousands(count(Status::Fail)),
        thousands(count(Status::Warn)),
        thousands(count(Status::Baselined)),
    )
}

/// The verdict in one line.
#[must_use]
pub fn verdict_line(a: &Assessment, allow_incomplete: bool) -> String {
    let failing = a.failures().count();
    if failing > 0 {
        // Findings fold identical errors: say how many occurrences they stand for, as
        // the summary line above counts occurrences.
        let occurrences: u64 = a.failures().map(|f| f.count - f.baselined).sum();
        let times = if occurrences > failing as u64 {
            format!(", {} occurrences", thousands(occurrences))
        } else {
            String::new()
        };
        format!(
            "gate: FAIL: {failing} first-party {}{times} (fails on: {})",
            plural(failing as u64, "error", "errors"),
            a.policy.describe()
        )
    } else if a.incomplete() && !allow_incomplete {
        "gate: INCOMPLETE: no first-party error in what was read, but a log misses evidence (exit 2)".to_owned()
    } else if a.incomplete() {
        "gate: pass on incomplete evidence (--allow-incomplete)".to_owned()
    } else {
        "gate: pass".to_owned()
    }
}

fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `19,908`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
