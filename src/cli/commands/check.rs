//! `vgsupp check`: loader verdicts, lints and style over suppression files, and each
//! file's sidecar (`NAME.supp.yaml`) when it has one.

use anyhow::{Result, anyhow};

use crate::cli::args::{CheckArgs, OutputFormat, ToolArg};
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;
use vgsupp::diagnostic::Severity;
use vgsupp::diagnostic::render::{self, Format};
use vgsupp::lint::pipeline::{CheckInput, Checks, check_files};
use vgsupp::lint::provenance::ProvenanceOptions;
use vgsupp::lint::{CheckOptions, registry};
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
    let checks = Checks {
        provenance,
        severities: settings.severities.clone(),
        // Human output quotes the lines; SARIF counts columns in UTF-16 units of them.
        keep_sources: matches!(args.format, OutputFormat::Human | OutputFormat::Sarif),
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
