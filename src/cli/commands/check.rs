//! `vgsupp check`: loader verdicts, lints and style over suppression files, and each
//! file's sidecar (`NAME.supp.yaml`) when it has one.

use anyhow::{Result, anyhow};

use crate::cli::args::{CheckArgs, OutputFormat, ToolArg};
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::catalogue::Lint;
use vgsupp::config::{Origin, Resolved};
use vgsupp::diagnostic::{Diagnostic, Severity};
use vgsupp::evidence::Status;
use vgsupp::matcher::RuleFile;
use vgsupp::origin::PathGlobs;
use vgsupp::sidecar::Sidecar;

use super::verdicts::Logs;
use vgsupp::catalogue as registry;
use vgsupp::diagnostic::render::{self, Format};
use vgsupp::lint::CheckOptions;
use vgsupp::lint::pipeline::{CheckInput, Checks, check_files};
use vgsupp::lint::provenance::ProvenanceOptions;
use vgsupp::sidecar::store;
use vgsupp::supp::Tool;

pub fn run(args: &CheckArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    if let Some(code) = &args.explain {
        let rule = registry::lookup(code)
            .ok_or_else(|| anyhow!("unknown rule `{code}` (see docs/rules/)"))?;
        out.stdout(&registry::render_doc(rule))?;
        return Ok(Exit::Clean);
    }
    let tools: Vec<Tool> = args
        .tool
        .iter()
        .map(|t| match t {
            ToolArg::Memcheck => Tool::Memcheck,
            ToolArg::Helgrind => Tool::Helgrind,
            ToolArg::Drd => Tool::Drd,
        })
        .collect();
    let opts = CheckOptions {
        tools: (!tools.is_empty()).then_some(tools),
        version: settings.valgrind.value,
        num_callers: args.num_callers,
        style: !args.no_style,
    };
    let paths = files::collect(&args.walk.paths, &settings.suppressions.value)?;
    let mut inputs = Vec::with_capacity(paths.len());
    for path in &paths {
        let side = store::path_for(path);
        let sidecar = if side.is_file() {
            Some((files::display(&side), files::read(&side)?))
        } else {
            None
        };
        inputs.push(CheckInput {
            name: files::display(path),
            source: files::read(path)?,
            sidecar,
        });
    }
    // Read the clock only when a sidecar needs it.
    let provenance = if inputs.iter().any(|i| i.sidecar.is_some()) {
        Some(ProvenanceOptions {
            today: clock::today()?,
            expiring_within: settings.expiring_within.value,
            required: settings.required.value.clone(),
        })
    } else {
        None
    };
    let extra = if args.logs.is_empty() {
        Vec::new()
    } else {
        evidence(args, &inputs, settings, out)?
    };
    let checks = Checks {
        extra,
        provenance,
        severities: settings.severities.clone(),
        // Human output quotes the lines; SARIF counts columns in UTF-16 units of them.
        keep_sources: matches!(args.format, OutputFormat::Human | OutputFormat::Sarif),
        // VS307 only where the project says what its own code is.
        first_party: if settings.first_party.origin == Origin::Default {
            None
        } else {
            Some(
                PathGlobs::new(
                    &settings.first_party.value,
                    Some(&settings.project),
                    "first-party",
                )
                .map_err(|e| anyhow!("{e}"))?,
            )
        },
    };
    let report = check_files(inputs, &opts, &checks);
    let format = match args.format {
        OutputFormat::Human => Format::Human,
        OutputFormat::Json => Format::Json,
        OutputFormat::Sarif => Format::Sarif,
        OutputFormat::Github => Format::Github,
        OutputFormat::Gitlab => Format::Gitlab,
    };
    out.stdout(&render::render(&report, format, out.color()))?;
    let failing =
        report.count(Severity::Error) > 0 || (args.strict && report.count(Severity::Warning) > 0);
    Ok(if failing { Exit::Findings } else { Exit::Clean })
}

/// `VS5xx`: the rules of `inputs` judged by the logs of `--logs`, as `prune` judges them
/// (a rule whose sidecar says `keep:` is not called stale).
fn evidence(
    args: &CheckArgs,
    inputs: &[CheckInput],
    settings: &Resolved,
    out: &Output,
) -> Result<Vec<Diagnostic>> {
    let logs = Logs::collect(&args.logs)?;
    let rule_files: Vec<RuleFile> = inputs
        .iter()
        .map(|i| RuleFile {
            path: i.name.clone(),
            source: i.source.clone(),
        })
        .collect();
    let sidecars: Vec<Option<Sidecar>> = inputs
        .iter()
        .map(|i| {
            i.sidecar
                .as_ref()
                .and_then(|(_, b)| vgsupp::sidecar::decode(b).ok().map(|d| d.sidecar))
        })
        .collect();
    let refs: Vec<Option<&Sidecar>> = sidecars.iter().map(Option::as_ref).collect();
    let num_callers = logs.num_callers(None).max(args.num_callers);
    let (rules, _, classified) = super::prune::judge(
        rule_files,
        &refs,
        &logs,
        settings.valgrind.value,
        num_callers,
        out,
    )?;
    let mut found = Vec::new();
    for c in classified {
        let info = &rules.table[c.slot];
        let name = String::from_utf8_lossy(&info.name).into_owned();
        let kept = refs
            .get(info.file)
            .copied()
            .flatten()
            .and_then(|s| s.rule(&name))
            .and_then(|e| e.keep.as_ref());
        let lint = match c.status {
            Status::Used => continue,
            Status::Stale if kept.is_some() => continue,
            Status::Stale => Lint::StaleRule,
            Status::Shadowed => Lint::ShadowedRule,
            Status::Unverifiable => Lint::UnverifiableRule,
        };
        let mut d = Diagnostic::new(
            lint,
            &rules.files[info.file].path,
            info.line,
            1,
            format!("rule `{name}`: {}", c.reason),
        );
        d.record = Some(name);
        found.push(d);
    }
    Ok(found)
}
