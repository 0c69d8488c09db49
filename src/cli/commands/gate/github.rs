//! GitHub Actions: workflow annotations (`::error file=…,line=…::…`) for the 10 most
//! important findings (GitHub drops more than 10 per step), and the full list as
//! Markdown for `$GITHUB_STEP_SUMMARY` (at most 1 MiB, GitHub's limit).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};

use super::Context;
use super::human::{frame_text, verdict_line};
use vgsupp::diagnostic::Diagnostic;
use vgsupp::diagnostic::render::github::{self, MAX_ANNOTATIONS};
use vgsupp::gate::{Assessment, Status, kinds};

/// The step summary's limit.
pub const MAX_SUMMARY: usize = 1 << 20;

/// The annotation lines, through the renderer `check` uses (failures first, then
/// warnings; baselined findings are only in the summary), then the verdict.
#[must_use]
pub fn annotations(a: &Assessment, diagnostics: &[Diagnostic], cx: &Context<'_>) -> String {
    let shown: Vec<Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.accepted.is_none())
        .cloned()
        .collect();
    let (mut s, left) = github::annotations(&shown);
    if left > 0 {
        let _ = writeln!(
            s,
            "::notice title=vgsupp gate::{left} more findings are in the step summary (GitHub shows {MAX_ANNOTATIONS} annotations per step)"
        );
    }
    let _ = writeln!(s, "{}", verdict_line(a, cx.allow_incomplete));
    s
}

/// The step summary: every finding as Markdown, cut at [`MAX_SUMMARY`].
#[must_use]
pub fn summary(a: &Assessment, cx: &Context<'_>) -> String {
    let mut s = format!(
        "## vgsupp gate\n\n**{}**\n\n",
        verdict_line(a, cx.allow_incomplete)
    );
    if !a.findings.is_empty() {
        s.push_str("| | Error | Where | Occurrences |\n|---|---|---|---|\n");
    }
    let mut details = String::new();
    for f in &a.findings {
        let icon = match f.status {
            Status::Fail => "❌",
            Status::Warn => "⚠️",
            Status::Baselined => "☑️",
        };
        let at = f
            .detail
            .primary()
            .and_then(|p| p.location())
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {icon} | {} | `{}` | {} |",
            md(&kinds::title(f)),
            md(&at),
            f.count
        );
        let _ = write!(
            details,
            "<details><summary>{} — {}</summary>\n\n```\n",
            md(&kinds::title(f)),
            md(&f.what)
        );
        for st in &f.detail.stacks {
            let _ = writeln!(details, "{}:", st.label);
            for fr in st.frames.iter().take(24) {
                let _ = writeln!(
                    details,
                    "  {} {}",
                    if fr.first_party { ">" } else { " " },
                    frame_text(fr)
                );
            }
        }
        let _ = write!(
            details,
            "fingerprint {}\n```\n</details>\n\n",
            f.fingerprint
        );
    }
    s.push('\n');
    s.push_str(&details);
    if !a.noise.is_empty() {
        let total: u64 = a.noise.iter().map(|n| n.count).sum();
        let _ = write!(
            s,
            "Third-party noise no rule hides: {total} errors in {} groups (never failing). To write rules for it:\n\n```\n{}\n```\n",
            a.noise.len(),
            cx.gen_command
        );
    }
    if s.len() > MAX_SUMMARY {
        let note = "\n\n*(cut at GitHub's 1 MiB limit: the full report is in the other formats)*\n";
        let mut cut = MAX_SUMMARY - note.len();
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str(note);
    }
    s
}

/// Append the summary to `$GITHUB_STEP_SUMMARY`.
pub fn append_summary(path: &Path, text: &str) -> Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open GITHUB_STEP_SUMMARY `{}`", path.display()))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot write GITHUB_STEP_SUMMARY `{}`", path.display()))
}

/// Markdown table-cell text.
fn md(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
}
