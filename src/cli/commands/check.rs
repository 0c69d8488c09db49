//! `vgsupp check`: loader verdicts, lints and style over suppression files.

use anyhow::{Context as _, Result, anyhow};

use crate::cli::args::{CheckArgs, OutputFormat, ToolArg};
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::diagnostic::render::{self, Format};
use vgsupp::diagnostic::{Report, Severity};
use vgsupp::lint::{self, CheckOptions, registry};
use vgsupp::supp::{Tool, Version};

pub fn run(args: &CheckArgs, out: &Output) -> Result<Exit> {
    if let Some(code) = &args.explain {
        let rule = registry::lookup(code)
            .ok_or_else(|| anyhow!("unknown rule `{code}` (see docs/rules/)"))?;
        out.stdout(&registry::render_doc(rule))?;
        return Ok(Exit::Clean);
    }
    let version: Version = args.valgrind.parse().context("invalid --valgrind")?;
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
        version,
        num_callers: args.num_callers,
        style: !args.no_style,
    };
    let paths = files::collect(&args.walk.paths, &args.walk.globs)?;
    let mut report = Report::default();
    for path in &paths {
        let name = files::display(path);
        let source = files::read(path)?;
        let checked = lint::check_source(&name, source, &opts);
        report.files += 1;
        report.rules += checked.file.records().count();
        report.diagnostics.extend(checked.diagnostics);
        // Human output quotes the lines; SARIF counts columns in UTF-16 units of them.
        if matches!(args.format, OutputFormat::Human | OutputFormat::Sarif) {
            report.sources.insert(name, checked.file.source);
        }
    }
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
