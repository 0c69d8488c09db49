//! `vgsupp gate`: reads the logs through the library's gate (in parallel, one log per
//! thread), applies and writes baselines, renders the report in the chosen format and
//! decides the exit code.

mod diagnostics;
mod github;
mod human;
mod json;
mod junit;
mod sarif;
mod source;

use std::path::Path;

use anyhow::{Context as _, Result};

use super::verdicts::{self, Logs};
use crate::cli::args::{GateArgs, GateFormat};
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::{Origin, Resolved};
use vgsupp::gate::{self, Assessment, Baseline, Gate, Policy};
use vgsupp::r#gen::Style;
use vgsupp::origin::FirstParty;
use vgsupp::sidecar::store;

/// What the renderers need besides the assessment.
pub struct Context<'a> {
    /// The logs as named to the user.
    pub names: &'a [String],
    /// The `vgsupp gen` command that would cover the noise.
    pub gen_command: String,
    /// Where report paths are relative to.
    pub sources: source::Sources,
    /// SARIF's automation id.
    pub automation_id: String,
    /// `--allow-incomplete`: a log that misses evidence does not stop a pass.
    pub allow_incomplete: bool,
}

pub fn run(args: &GateArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    let g = &settings.gate;
    let policy = Policy::parse(&g.fail_on.value)?;
    if args.update_baseline && g.baseline.value.is_none() {
        anyhow::bail!(
            "--update-baseline rewrites the baseline: give it with --baseline FILE or `gate: baseline:` in vgsupp.yaml"
        );
    }
    // Where reports and baselines go is checked before any log is read.
    for path in [&args.output, &args.write_baseline].into_iter().flatten() {
        store::target(path, &settings.project)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    let logs = Logs::collect(&args.logs)?;
    // The baseline is read before any log: a bad one stops the run at once.
    let baseline = g
        .baseline
        .value
        .as_deref()
        .map(|p| -> Result<Baseline> {
            let bytes = files::read(p)?;
            Baseline::decode(&bytes).with_context(|| format!("`{}` is not a baseline", p.display()))
        })
        .transpose()?;
    let (_, existing) = if g.suppressions.value.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        files::rule_files(&g.suppressions.value)?
    };
    let first_party = verdicts::first_party(settings);
    let opts = verdicts::options(
        &logs,
        settings,
        first_party.clone(),
        args.unknown,
        Style::Anchored,
        args.num_callers,
    );
    let gate = Gate::new(&opts, existing, policy)?;
    if let Some(refused) = vgsupp::supp::Tool::ALL
        .into_iter()
        .find_map(|t| gate.existing().tool(t).err())
    {
        anyhow::bail!("{refused} (see `vgsupp check {}`)", refused.file);
    }
    let parts = gate.read_logs(&logs.path_refs(), &logs.names)?;
    let names = logs.names;
    let today = clock::today()?;
    let assessment = gate.assess(parts, baseline.as_ref(), today);
    for (log, line, message) in &assessment.warnings {
        let at = line.map_or_else(String::new, |l| format!(":{l}"));
        out.status(&format!("warning: {}{at}: {message}", names[*log]));
    }
    no_first_party_warning(&assessment, &first_party, out);
    write_baselines(args, settings, &assessment, baseline.as_ref(), today, out)?;
    let root = g
        .source_root
        .value
        .clone()
        .unwrap_or_else(|| source::default_root(&settings.project));
    let cx = Context {
        names: &names,
        gen_command: gen_command(args, settings),
        sources: source::Sources::new(&root),
        automation_id: args
            .automation_id
            .clone()
            .unwrap_or_else(|| "vgsupp/gate/".to_owned()),
        allow_incomplete: g.allow_incomplete.value,
    };
    let text = match args.format {
        GateFormat::Human => human::render(&assessment, &cx),
        GateFormat::Json => json::render(&assessment, &cx)?,
        GateFormat::Sarif => {
            let (text, capped) =
                sarif::render(&assessment, &diagnostics::of(&assessment, &cx), &cx);
            if let Some(c) = capped {
                out.status(&format!("note: {c}"));
            }
            text
        }
        GateFormat::Junit => junit::render(&assessment, &cx),
        GateFormat::Gitlab => {
            vgsupp::diagnostic::render::gitlab(&diagnostics::of(&assessment, &cx))
        }
        GateFormat::Github => {
            if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") {
                github::append_summary(Path::new(&path), &github::summary(&assessment, &cx))?;
            }
            github::annotations(&assessment, &diagnostics::of(&assessment, &cx), &cx)
        }
    };
    match &args.output {
        Some(path) => {
            store::write_atomic(path, text.as_bytes(), &settings.project)
                .with_context(|| format!("cannot write the report `{}`", path.display()))?;
            // The verdict in one line: the report itself went to a file.
            out.status(&human::verdict_line(&assessment, g.allow_incomplete.value));
        }
        None => out.stdout(&text)?,
    }
    Ok(exit(&assessment, g.allow_incomplete.value))
}

/// The exit code: 1 on a failure; 2 when evidence is missing and nothing failed.
fn exit(a: &Assessment, allow_incomplete: bool) -> Exit {
    if a.failed() {
        Exit::Findings
    } else if a.incomplete() && !allow_incomplete {
        Exit::Error
    } else {
        Exit::Clean
    }
}

/// A loud note when no frame is first-party: the gate then cannot find a bug of the
/// user's, and a mistyped glob must not look like a clean run.
fn no_first_party_warning(a: &Assessment, first_party: &FirstParty, out: &Output) {
    let frames: u64 = a.logs.iter().map(|l| l.first_party_frames).sum();
    if frames > 0 || a.errors() == a.suppressed {
        return;
    }
    let how = if first_party.defaulted {
        "the default: the project directory".to_owned()
    } else {
        format!("--first-party {}", first_party.globs.join(", "))
    };
    out.warning(&format!(
        "no frame of these logs is first-party ({how}): the gate cannot tell a bug of yours from library noise. Check the globs (`vgsupp gen` explains what the logs show), or record the program that loads your code."
    ));
}

/// `--write-baseline` and `--update-baseline`.
fn write_baselines(
    args: &GateArgs,
    settings: &Resolved,
    a: &Assessment,
    baseline: Option<&Baseline>,
    today: vgsupp::date::Date,
    out: &Output,
) -> Result<()> {
    if let Some(path) = &args.write_baseline {
        let expires = settings
            .expires_in
            .value
            .days()
            .and_then(|d| today.add_days(i64::from(d)));
        let b = gate::baseline_of(
            a,
            baseline,
            settings.owner.value.as_deref(),
            args.reason.as_deref(),
            expires,
        );
        store::write_atomic(path, b.encode().as_bytes(), &settings.project)?;
        out.status(&format!(
            "wrote {} baseline {} to {}",
            b.entries.len(),
            if b.entries.len() == 1 {
                "entry"
            } else {
                "entries"
            },
            path.display()
        ));
        if a.incomplete() {
            out.status(
                "note: a log misses evidence: the baseline holds only the errors that were read",
            );
        }
    }
    if args.update_baseline
        && let (Some(path), Some(b)) = (&settings.gate.baseline.value, baseline)
    {
        match gate::updated_baseline(a, b) {
            None => out.warning(
                "--update-baseline: not updated, a log misses evidence (what a cut log does not show is not fixed)",
            ),
            Some(new) if new == *b => out.status("baseline unchanged: every entry still occurs"),
            Some(new) => {
                let removed = b.entries.len() - new.entries.len();
                store::write_atomic(path, new.encode().as_bytes(), &settings.project)?;
                out.status(&format!(
                    "updated {}: {removed} fixed {} removed, {} kept",
                    path.display(),
                    if removed == 1 { "entry" } else { "entries" },
                    new.entries.len()
                ));
            }
        }
    }
    Ok(())
}

/// The `vgsupp gen` command that writes rules for the noise.
fn gen_command(args: &GateArgs, settings: &Resolved) -> String {
    let mut c = String::from("vgsupp gen");
    for l in &args.logs {
        c.push(' ');
        c.push_str(&shell_word(&l.display().to_string()));
    }
    for s in &settings.gate.suppressions.value {
        c.push_str(" -s ");
        c.push_str(&shell_word(&s.display().to_string()));
    }
    if settings.first_party.origin != Origin::Default
        && args.first_party == settings.first_party.value
    {
        for g in &settings.first_party.value {
            c.push_str(" --first-party ");
            c.push_str(&shell_word(g));
        }
    }
    c.push_str(" -o third-party.supp");
    c
}

/// A word quoted for a POSIX shell when it needs it.
pub fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@+,%".contains(&b))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}
