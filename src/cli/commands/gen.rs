//! `vgsupp gen`: reads the logs through the library's generator (in parallel, one log per
//! thread), writes `OUT.supp` and its sidecar together ([`write`]), and renders the report
//! ([`render`]).

mod render;
mod write;

use std::path::PathBuf;

use anyhow::Result;

use super::verdicts::{self, Logs};
use crate::cli::args::{GenArgs, MatchFormat, StyleArg};
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;
use vgsupp::r#gen::{GenOptions, Generated, Generator, Style};
use vgsupp::origin::{FirstParty, Unplaced};

pub fn run(args: &GenArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    let logs = Logs::collect(&args.logs)?;
    // What -o finds is checked before any log is read: nothing is written if it is wrong.
    let mut plan = args
        .output
        .as_deref()
        .map(|p| write::Plan::check(p, args.force, &settings.project))
        .transpose()?;
    // No -s: no existing rules (`collect` would walk the current directory).
    let (mut supp_paths, mut existing) = if args.suppressions.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        files::rule_files(&args.suppressions)?
    };
    if let Some(plan) = &mut plan {
        plan.take_existing(&mut supp_paths, &mut existing, out);
    }
    let version = logs.version(settings);
    let num_callers = logs.num_callers(args.num_callers);
    // `-v` listed the configured release; say which one this run applies, and why.
    out.verbose(&format!(
        "gen reads the rules as Valgrind {version} ({}) at --num-callers={num_callers} ({})",
        if logs.given_version(settings).is_some() {
            "as set"
        } else if logs.recorded.version.is_some() {
            "the logs' release"
        } else {
            "the default: the logs state none"
        },
        if args.num_callers.is_some() {
            "as set"
        } else if logs.recorded.num_callers.is_some() {
            "the logs' depth"
        } else {
            "Valgrind's default: the logs state none"
        }
    ));
    let first_party = if args.no_first_party {
        FirstParty::none()
    } else {
        verdicts::first_party(settings)
    };
    let style = match args.style {
        StyleArg::Exact => Style::Exact,
        StyleArg::Anchored => Style::Anchored,
        StyleArg::Object => Style::Object,
    };
    let opts = GenOptions {
        owner: settings.owner.value.clone(),
        expires_in: settings.expires_in.value.days(),
        // What the sidecar records as `generated.tool`; its paths start where it is.
        command: Some(write::command(
            args,
            settings,
            style,
            &supp_paths,
            plan.as_ref(),
        )?),
        ..verdicts::options(
            &logs,
            settings,
            first_party,
            args.unknown,
            style,
            args.num_callers,
        )
    };
    let generator = Generator::new(&opts, existing.clone())?;
    if let Some(refused) = vgsupp::supp::Tool::ALL
        .into_iter()
        .find_map(|t| generator.existing().tool(t).err())
    {
        let hint = plan
            .as_ref()
            .map_or("", |p| p.refusal_hint(&refused.file, &existing));
        anyhow::bail!(
            "{refused} (see `vgsupp check --valgrind {version} {}`){hint}",
            refused.file
        );
    }
    // Logs in parallel, each with its hash.
    let parts = generator.read_logs(&logs.path_refs(), &logs.names, true)?;
    let mut generated = generator.finish(parts)?;
    for (log, line, message) in &generated.warnings {
        let at = line.map_or_else(String::new, |l| format!(":{l}"));
        out.status(&format!("warning: {}{at}: {message}", logs.names[*log]));
    }
    if !args.no_first_party && !first_party_found(&generated, &opts.first_party, settings, out) {
        return Ok(Exit::Error);
    }
    unplaced_note(&generated, out);
    let written = match plan {
        Some(plan) => {
            let logs: Vec<(String, PathBuf)> = logs.names.into_iter().zip(logs.paths).collect();
            let load = (opts.version, opts.num_callers);
            Some(plan.write(&mut generated, &existing, &logs, clock::today()?, load, out)?)
        }
        None => None,
    };
    let text = match args.format {
        MatchFormat::Json => render::json(&generated, &generator)?,
        MatchFormat::Human => render::human(&generated, &generator, written.as_deref()),
    };
    out.stdout(&text)?;
    Ok(Exit::Clean)
}

/// The most frequent names of unplaced frames, `name (N frames)`, at most `n`.
fn top_unplaced(g: &Generated, pick: impl Fn(Unplaced) -> bool, n: usize) -> Vec<String> {
    let mut counts: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for l in &g.logs {
        for ((why, name), k) in &l.unplaced {
            if pick(*why) {
                *counts.entry(name.as_str()).or_default() += k;
            }
        }
    }
    let mut v: Vec<(&str, u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.into_iter()
        .take(n)
        .map(|(name, k)| format!("{name} ({k} frame{})", if k == 1 { "" } else { "s" }))
        .collect()
}

/// Whether some frame of the logs is first-party. When none is (and the logs have
/// errors), say why and how to declare first-party code: `gen` then writes nothing.
fn first_party_found(
    g: &Generated,
    first_party: &FirstParty,
    settings: &Resolved,
    out: &Output,
) -> bool {
    let found: u64 = g.logs.iter().map(|l| l.first_party_frames).sum();
    let errors: u64 = g.logs.iter().map(|l| l.errors).sum();
    if errors == 0 || found > 0 {
        return true;
    }
    let globs = first_party.globs.join(", ");
    let how = if first_party.defaulted {
        format!(
            "the default: everything under the project directory {}",
            settings.project.display()
        )
    } else {
        format!("--first-party {globs}")
    };
    let mut msg = format!(
        "no frame of these logs is first-party ({how}), so no error can be told a bug of yours from library noise: nothing is written.\n"
    );
    let loaded: Vec<&String> = g.logs.iter().flat_map(|l| &l.first_party_loaded).collect();
    let sources = top_unplaced(g, |w| w == Unplaced::HiddenObject, 6);
    if let Some(first) = loaded.first() {
        // Name the user's own files, not every file of a language (`'*.c'` would take
        // glibc's sources too).
        let example = sources
            .first()
            .and_then(|s| s.split(' ').next())
            .map_or_else(|| "'my_ext*'".to_owned(), |f| format!("'{f}'"));
        msg.push_str(&format!(
            "  The first-party object {first} was loaded, but this text log hides the object of every frame it prints with a source line: name your source files too (e.g. --first-party {example}, or a directory of yours with XML logs), or record with --xml=yes.\n"
        ));
    }
    if !sources.is_empty() {
        msg.push_str(&format!(
            "  Source files of frames vgsupp could not place: {}.\n",
            sources.join(", ")
        ));
    }
    let objects = top_unplaced(g, |w| w == Unplaced::Unclaimed, 6);
    if !objects.is_empty() {
        msg.push_str(&format!(
            "  Objects no profile claims: {}.\n",
            objects.join(", ")
        ));
    }
    if first_party
        .globs
        .iter()
        .any(|g| vgsupp::origin::glob::form(g) == vgsupp::origin::GlobForm::Relative)
    {
        msg.push_str(&format!(
            "  A glob with `/` that starts with neither `/` nor `**/` is relative to the project directory {}: use '**/…' to match anywhere, or a glob without `/` to match a file name.\n",
            settings.project.display()
        ));
    }
    // A text log names sources by file only: a glob with `/` cannot decide them there.
    if !sources.is_empty() && first_party.globs.iter().any(|g| g.contains('/')) {
        let example = sources
            .first()
            .and_then(|s| s.split(' ').next())
            .unwrap_or("my_ext.cpp");
        msg.push_str(&format!(
            "  A text log shows source files by name only (`{example}`, no directory), and hides the object of the frames it prints with a source line: a glob with `/` cannot match those frames. Name the files (--first-party '{example}'), or record with --xml=yes, which shows every source's directory.\n"
        ));
    }
    // `--first-party src`: a directory's name, which (without `/`) only file names match.
    for g in first_party.globs.iter().filter(|g| !g.contains('/')) {
        if settings.project.join(g).is_dir() {
            msg.push_str(&format!(
                "  `{g}` is a directory of the project: a glob without `/` matches only file names; write '{g}/' (everything under it) or '**/{g}/**'.\n"
            ));
        }
    }
    msg.push_str(
        "  Declare first-party code with --first-party GLOB (repeatable) or `first-party:` in vgsupp.yaml: a glob without `/` matches an object's or a source file's name ('my_ext*', 'libfoo.so'), one with `/` a path ('/home/me/proj/**', '**/src/**', or relative to the project directory: 'src/**'). If these logs have no first-party code at all (a baseline of library noise), give --no-first-party.",
    );
    // An error, shown even with `-q`: the run did not do its job.
    out.error(&msg);
    false
}

/// Say once how many frames could not be placed, and what decides them.
fn unplaced_note(g: &Generated, out: &Output) {
    let undecided: u64 = g.logs.iter().map(|l| l.undecided_frames).sum();
    if undecided == 0 {
        return;
    }
    let mut by_why: std::collections::BTreeMap<Unplaced, u64> = std::collections::BTreeMap::new();
    for l in &g.logs {
        for ((why, _), k) in &l.unplaced {
            *by_why.entry(*why).or_default() += k;
        }
    }
    let parts: Vec<String> = by_why
        .iter()
        .map(|(why, k)| format!("{k} because {} ({})", why.text(), why.remedy()))
        .collect();
    out.status(&format!(
        "note: {undecided} {} of these logs could not be placed as first-party or third-party; errors that rest on them are reviewed, not suppressed (--unknown suppress opts in): {}",
        if undecided == 1 { "frame" } else { "frames" },
        parts.join("; ")
    ));
}
