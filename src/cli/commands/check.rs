//! `vgsupp check`: loader verdicts, lints and style over suppression files, and each
//! file's sidecar (`NAME.supp.yaml`) when it has one.

use std::path::Path;

use anyhow::{Result, anyhow};

use crate::cli::args::{CheckArgs, OutputFormat, ToolArg};
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;
use vgsupp::date::Date;
use vgsupp::diagnostic::render::{self, Format};
use vgsupp::diagnostic::{Report, Severity};
use vgsupp::lint::provenance::{self, Pair, ProvenanceOptions};
use vgsupp::lint::{self, CheckOptions, FileCheck, registry};
use vgsupp::sidecar::{decode, store};
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
    let keep_sources = matches!(args.format, OutputFormat::Human | OutputFormat::Sarif);
    // Read the clock only when a sidecar needs it.
    let mut provenance: Option<ProvenanceOptions> = None;
    let mut report = Report::default();
    for path in &paths {
        let name = files::display(path);
        let source = files::read(path)?;
        let checked = lint::check_source(&name, source, &opts);
        report.files += 1;
        report.rules += checked.file.records().count();
        report
            .diagnostics
            .extend(checked.diagnostics.iter().cloned());
        let side = store::path_for(path);
        if side.is_file() {
            let popts = match &provenance {
                Some(p) => p.clone(),
                None => {
                    let p = provenance_options(settings, clock::today()?);
                    provenance = Some(p.clone());
                    p
                }
            };
            check_sidecar(&name, &checked, &side, &popts, keep_sources, &mut report)?;
        }
        // Human output quotes the lines; SARIF counts columns in UTF-16 units of them.
        if keep_sources {
            report.sources.insert(name, checked.file.source);
        }
    }
    settings.severities.apply(&mut report.diagnostics);
    let format = match args.format {
        OutputFormat::Human => Format::Human,
        OutputFormat::Json => Format::Json,
        OutputFormat::Sarif => Format::Sarif,
        OutputFormat::Github => Format::Github,
    };
    out.stdout(&render::render(&report, format, out.color()))?;
    let failing =
        report.count(Severity::Error) > 0 || (args.strict && report.count(Severity::Warning) > 0);
    Ok(if failing { Exit::Findings } else { Exit::Clean })
}

fn provenance_options(settings: &Resolved, today: Date) -> ProvenanceOptions {
    ProvenanceOptions {
        today,
        expiring_within: settings.expiring_within.value,
        required: settings.required.value.clone(),
    }
}

/// The `VS4xx` findings of one suppression file's sidecar.
fn check_sidecar(
    supp_name: &str,
    checked: &FileCheck,
    side: &Path,
    opts: &ProvenanceOptions,
    keep_source: bool,
    report: &mut Report,
) -> Result<()> {
    let side_name = files::display(side);
    let bytes = files::read(side)?;
    let decoded = decode(&bytes);
    let pair = Pair {
        supp_name,
        supp: &checked.file,
        sidecar_name: &side_name,
        sidecar_source: &bytes,
        sidecar: decoded.as_ref(),
    };
    report.diagnostics.extend(provenance::check(&pair, opts));
    if keep_source {
        report.sources.insert(side_name, bytes);
    }
    Ok(())
}
