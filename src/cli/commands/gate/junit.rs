//! JUnit XML (Jenkins' `junit-10.xsd`, read by GitLab, Jenkins, Azure and the rest): one
//! test case per first-party finding, named by its kind, function, file and fingerprint
//! (stable and unique without ordinals: GitLab keeps only the first of duplicate names);
//! a passing case when nothing fails.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::Context;
use super::human::frame_text;
use vgsupp::gate::kinds;
use vgsupp::gate::{Assessment, Finding, Status};

/// The JUnit document.
#[must_use]
pub fn render(a: &Assessment, cx: &Context<'_>) -> String {
    let failures = a.failures().count();
    let skipped = a
        .findings
        .iter()
        .filter(|f| f.status == Status::Baselined)
        .count();
    let incomplete = a.incomplete();
    let mut cases = String::new();
    let mut names = BTreeSet::new();
    for f in &a.findings {
        let mut name = case_name(f);
        if !names.insert(name.clone()) {
            name = format!("{name} ({})", f.status.as_str());
            names.insert(name.clone());
        }
        let class = format!("vgsupp.{}", kinds::of(f).code.replace('/', "."));
        let _ = writeln!(
            cases,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"0\">",
            esc(&name),
            esc(&class)
        );
        let body = stacks(f, cx);
        match f.status {
            Status::Fail => {
                let _ = writeln!(
                    cases,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    esc(&kinds::of(f).code),
                    esc(&message(f, cx)),
                    esc(&body)
                );
            }
            Status::Baselined => {
                let _ = writeln!(
                    cases,
                    "      <skipped message=\"{}\"/>",
                    esc(&format!("in the baseline: {}", message(f, cx)))
                );
            }
            Status::Warn => {
                let _ = writeln!(
                    cases,
                    "      <system-out>{}</system-out>",
                    esc(&format!(
                        "warning (not failing): {}\n{body}",
                        f.reason.text()
                    ))
                );
            }
        }
        cases.push_str("    </testcase>\n");
    }
    let mut errors = 0;
    if incomplete {
        errors = 1;
        let mut text = String::new();
        for l in a.logs.iter().filter(|l| l.incomplete()) {
            for (line, gap, m) in &l.gaps {
                let _ = writeln!(text, "{}:{line}: {}: {m}", l.name, gap.as_str());
            }
            for (line, m) in &l.fatal {
                let _ = writeln!(text, "{}:{line}: fatal: {m}", l.name);
            }
        }
        let _ = writeln!(
            cases,
            "    <testcase name=\"logs are complete\" classname=\"vgsupp.gate\" time=\"0\">\n      <error type=\"vgsupp/incomplete\" message=\"a log misses evidence: the run was cut, killed or crashed\">{}</error>\n    </testcase>",
            esc(&text)
        );
    }
    if failures == 0 && !incomplete {
        cases.push_str(
            "    <testcase name=\"no unsuppressed first-party memory errors\" classname=\"vgsupp.gate\" time=\"0\"/>\n",
        );
    }
    let tests =
        a.findings.len() + usize::from(incomplete) + usize::from(failures == 0 && !incomplete);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vgsupp gate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"0\">\n  <testsuite name=\"vgsupp gate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"0\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}

/// `Leak/definite leak_tensor(int) leaky_ext.cpp [5c1e0d6a9b3f]`.
fn case_name(f: &Finding) -> String {
    let k = kinds::of(f);
    let rule = k.code.trim_start_matches("memcheck/");
    let primary = f.detail.primary();
    let fun = f
        .function
        .as_deref()
        .or_else(|| primary.and_then(|p| p.function.as_deref()))
        .map(vgsupp::r#gen::names::short);
    let file = primary.and_then(|p| p.file_name());
    let mut name = rule.to_owned();
    if let Some(fun) = fun {
        name.push(' ');
        name.push_str(&fun);
    }
    if let Some(file) = file {
        name.push(' ');
        name.push_str(file);
    }
    name.push_str(&format!(" [{}]", &f.fingerprint[..12]));
    name
}

fn message(f: &Finding, cx: &Context<'_>) -> String {
    let first = f.occurrences[0];
    let at = f
        .detail
        .primary()
        .and_then(vgsupp::r#gen::detail::DetailFrame::location)
        .map_or(String::new(), |l| format!(" at {l}"));
    format!(
        "{}{at}: {} ({} occurrence{}, first {}:{})",
        kinds::title(f),
        f.what,
        f.count,
        if f.count == 1 { "" } else { "s" },
        cx.names[first.log],
        first.line
    )
}

fn stacks(f: &Finding, cx: &Context<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", message(f, cx));
    for st in &f.detail.stacks {
        let _ = writeln!(s, "{}:", st.label);
        for fr in &st.frames {
            let mark = if fr.first_party { ">" } else { " " };
            let _ = writeln!(s, "  {mark} {}", frame_text(fr));
        }
    }
    let _ = writeln!(s, "fingerprint {}", f.fingerprint);
    s
}

/// XML-escaped text; characters XML 1.0 cannot hold become U+FFFD.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
