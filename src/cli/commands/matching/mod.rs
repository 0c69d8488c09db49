//! `vgsupp match`: which rule hides each error of the logs, with Valgrind's first-match
//! semantics, and per-rule hit counts; `--explain RULE` shows why a rule matches or not.
//!
//! The report is streamed: a 2 GB log holds ~300k errors, and keeping a row for each (or the
//! whole JSON document as one string) grows memory with the log. Each row is serialized as
//! soon as its error is attributed, and only running counts (rule hits, errors, suppressed,
//! approximate) live until the end, where the rule table and the summary need them.
//!
//! Logs are still replayed in parallel and reported in log order. Workers take logs in
//! order and send serialized rows to the thread that owns stdout ([`stream`]): the rows of
//! the earliest unfinished log go straight out, those of later logs wait, already serialized,
//! until every earlier log is done. Past [`LIMITS`]`.held` bytes waiting, a later log pauses
//! until its turn, so memory stays bounded however large the logs are.

mod explain;
mod progress;
mod render;
mod stream;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{BufWriter, IsTerminal as _, Write};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context as _, Result};

use crate::cli::args::{MatchArgs, MatchFormat};
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use progress::Progress;
use rayon::prelude::*;
use render::{ErrorRow, Groups, RuleRefs};
use vgsupp::config::Origin;
use vgsupp::logs::record::{ErrorRecord, LogItem, ReadError};
use vgsupp::matcher::RefusedFile;
use vgsupp::matcher::stack::explain;
use vgsupp::matcher::{MatchInput, RuleFile, Truth};
use vgsupp::replay::recorded::{self, Given, Plan, Recorded};
use vgsupp::replay::{
    Event, Failed, Group, LogEnd, LogError, LogJob, LogsOptions, ReplayOptions, ReplaySink, Rules,
    Tally, ToolRules, run_logs,
};
use vgsupp::supp::Version;

use stream::{Halt, LIMITS, LogSink, Report, Stop, halt_on_write, stream};

/// What one worker gathers, summed at the end: the replay's totals and, for the human
/// summary, the groups of errors not suppressed.
#[derive(Debug, Default)]
struct Totals {
    tally: Tally,
    groups: Groups,
}

impl Totals {
    fn new(rules: usize) -> Self {
        Self {
            tally: Tally::new(rules),
            groups: Groups::default(),
        }
    }

    fn add(&mut self, other: Self) {
        self.tally.add(&other.tally);
        self.groups.merge(other.groups);
    }
}

/// What the run shows.
#[derive(Debug, Clone, Copy)]
struct Mode {
    format: MatchFormat,
    /// Whether rows are printed (JSON, or human `--errors`).
    rows: bool,
    /// Whether errors are grouped for the human summary.
    summary: bool,
    /// Whether `--explain` text is gathered (only human output prints it).
    explain: bool,
}

pub fn run(args: &MatchArgs, out: &Output) -> Result<Exit> {
    let version: Version = args.valgrind.parse().context("invalid --valgrind")?;
    let (_, mut rule_files) = files::rule_files(&args.suppressions)?;
    if args.default_suppressions {
        // Valgrind loads default.supp after every --suppressions file (§1.9).
        let path = match &args.default_supp_path {
            Some(p) => p.clone(),
            None => files::DEFAULT_SUPP
                .iter()
                .map(std::path::PathBuf::from)
                .find(|p| p.is_file())
                .context("Valgrind's default.supp was not found; give --default-supp-path")?,
        };
        rule_files.push(RuleFile {
            path: files::display(&path),
            source: files::read(&path)?,
        });
    }
    let log_paths = files::collect_logs(&args.logs)?;
    let names: Vec<String> = log_paths.iter().map(|p| files::display(p)).collect();
    // What each log says of its run (tool, release, depth) decides how its rules load.
    let recorded: Vec<Recorded> = log_paths.par_iter().map(|p| recorded::read(p)).collect();
    let plan = Plan::new(
        &names,
        &recorded,
        &Given {
            version_flag: (args.valgrind_origin == Some(Origin::Flag)).then_some(version),
            version_config: matches!(args.valgrind_origin, Some(Origin::Config(_)))
                .then_some(version),
            num_callers: args.num_callers,
            tools: args.tool.iter().map(|t| t.tool()).collect(),
        },
    );
    for note in &plan.notes {
        out.status(&format!("warning: {note}"));
    }
    let rules = Rules::load_used(rule_files, &plan.groups, args.keep_going, &plan.tools);
    if let Some(exit) = refuse(&rules, &plan, &names, &recorded, args, out) {
        return Ok(exit);
    }
    if let Some(target) = &args.explain {
        explain::check_target(&rules, target)?;
    }
    let refs = RuleRefs::new(&rules).context("serializing the rules")?;
    // A log that cannot be opened fails the run before anything is printed, as when the
    // whole report was built first; later failures (a corrupt gzip member) come after the
    // rows before them (docs/formats.md).
    for p in &log_paths {
        std::fs::File::open(p).map_err(|source| ReadError::Io {
            path: p.display().to_string(),
            source,
        })?;
    }
    let explaining = args.explain.is_some() && args.format == MatchFormat::Human;
    let mode = Mode {
        format: args.format,
        rows: !explaining && (args.format == MatchFormat::Json || args.errors),
        summary: !explaining && args.format == MatchFormat::Human,
        explain: explaining,
    };
    let progress = Progress::new(
        std::io::stderr().is_terminal() && !out.is_quiet(),
        log_paths.len(),
    );
    let mut report = Report::new(
        BufWriter::with_capacity(1 << 16, RawStdout::new()),
        args.format,
    );
    let jobs: Vec<LogJob<'_>> = log_paths
        .iter()
        .zip(&plan.logs)
        .map(|(path, &plan)| LogJob { path, plan })
        .collect();
    let opts = LogsOptions {
        threads: rayon::current_num_threads(),
        replay: ReplayOptions {
            inputs: mode.explain,
            signatures: mode.summary,
        },
        hash: false,
    };
    let totals = Mutex::new(Totals::new(rules.table.len()));
    let collated = stream(
        LIMITS,
        opts.threads * 4,
        &mut report,
        &mut |s: &str| progress.println(s, |l| out.status(l)),
        |outlet| {
            run_logs(
                &jobs,
                &rules,
                opts,
                |log, _| MatchSink {
                    name: &names[log],
                    index: log,
                    refs: &refs,
                    args,
                    mode,
                    out: outlet.sink(log),
                    totals: Totals::new(rules.table.len()),
                    explain: String::new(),
                    since_tick: 0,
                    progress: &progress,
                },
                |log, end| {
                    let end = match end {
                        Ok((explain, t)) => {
                            totals.lock().unwrap_or_else(PoisonError::into_inner).add(t);
                            Ok(explain)
                        }
                        Err(Failed { error, sink }) => {
                            let stop = match error {
                                LogError::Read(e) => Stop::Failed(e.into()),
                                LogError::Refused(r) => Stop::Failed(anyhow::anyhow!("{r}")),
                                LogError::Sink(s) => s,
                            };
                            // Rows before a failure go out too: the output stops where
                            // the log did.
                            if let Some(mut sink) = sink
                                && !matches!(stop, Stop::Aborted)
                            {
                                let _ = sink.out.flush();
                            }
                            Err(stop)
                        }
                    };
                    progress.log_done();
                    outlet.done(log, end);
                },
            );
        },
    );
    let totals = totals.into_inner().unwrap_or_else(PoisonError::into_inner);
    progress.finish();
    match collated.halt {
        None => {}
        Some(Halt::Closed) => return Ok(Exit::Clean),
        Some(Halt::Failed(err)) => {
            // The rows before the failure are shown; the error says where it stopped.
            let _ = report.w.flush();
            return Err(err);
        }
    }
    let rules_out = render::rules_out(&rules, &totals.tally);
    let finished = report.finish(&rules_out, |w| {
        if explaining {
            match collated.explain.as_str() {
                "" => w.write_all(
                    b"no error of these logs was compared with that rule: none is of the tool it is for\n",
                ),
                text => w.write_all(text.as_bytes()),
            }
        } else {
            if mode.rows {
                w.write_all(b"\n")?;
            }
            render::summary(w, &rules, &totals.tally, &totals.groups, log_paths.len())
        }
    });
    match finished {
        Ok(()) => Ok(Exit::Clean),
        Err(e) => match halt_on_write(e) {
            Halt::Closed => Ok(Exit::Clean),
            Halt::Failed(err) => Err(err),
        },
    }
}

/// Stdout without its line buffering. Rust's stdout is line-buffered: every write searches
/// the bytes for a newline (`memrchr`), and JSON rows have none, so each 64 KiB chunk was
/// scanned in full on its way out — a tenth of a large report's cost. On Unix, chunks go
/// to a duplicate of the descriptor, which shares the open file (offset, append mode)
/// with stdout; the lock keeps other writers out meanwhile.
struct RawStdout {
    lock: std::io::StdoutLock<'static>,
    #[cfg(unix)]
    raw: Option<std::fs::File>,
}

impl RawStdout {
    fn new() -> Self {
        let mut lock = std::io::stdout().lock();
        // Anything printed before goes out first.
        let _ = lock.flush();
        #[cfg(unix)]
        let raw = {
            use std::os::fd::AsFd as _;
            lock.as_fd()
                .try_clone_to_owned()
                .ok()
                .map(std::fs::File::from)
        };
        Self {
            lock,
            #[cfg(unix)]
            raw,
        }
    }
}

impl Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        #[cfg(unix)]
        if let Some(raw) = &mut self.raw {
            return raw.write(buf);
        }
        self.lock.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        #[cfg(unix)]
        if let Some(raw) = &mut self.raw {
            return raw.write_all(buf);
        }
        self.lock.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.lock.flush()
    }
}

/// Valgrind would not run with these files (it refuses one, aborts on one, or crashes on one
/// of its rules) as the logs were recorded — by their tools, with their release and depth:
/// say why and stop, unless `--keep-going`, which only warns. A file that only a tool no log
/// used refuses loads, as it did for Valgrind.
fn refuse(
    rules: &Rules,
    plan: &Plan,
    names: &[String],
    recorded: &[Recorded],
    args: &MatchArgs,
    out: &Output,
) -> Option<Exit> {
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    let mut found: Vec<(&RefusedFile, Option<Group>)> = Vec::new();
    for (g, _) in plan.groups.iter().enumerate() {
        for &t in &plan.tools {
            if let Err(p) = rules.tool_in(g, t) {
                found.push((p, Some(g)));
            }
        }
    }
    found.extend(
        rules
            .problems
            .iter()
            .filter(|p| plan.tools.contains(&p.tool))
            .map(|p| (p, None)),
    );
    // The release to give `check` where a log's release, not the one `check` applies,
    // refuses the files.
    let mut check_release = None;
    for (p, group) in found {
        if seen.insert((p.file.clone(), p.line, p.message)) {
            let why = group
                .and_then(|g| {
                    let why = release_from_log(plan, g, names, recorded, args)?;
                    check_release.get_or_insert(plan.groups.get(g)?.version);
                    Some(why)
                })
                .unwrap_or_default();
            problems.push(format!("{p}{why} [{}]", vgsupp::lint::code_for(p.error)));
        }
    }
    if problems.is_empty() {
        return None;
    }
    if args.keep_going {
        for p in &problems {
            out.status(&format!("warning: {p} (going on: --keep-going)"));
        }
        return None;
    }
    for p in &problems {
        out.error(p);
    }
    let check = check_release.map_or_else(
        || "vgsupp check".to_owned(),
        |v| format!("vgsupp check --valgrind {v}"),
    );
    out.error(&format!("Valgrind would not run with these suppression files: fix them (see `{check}`), or give --keep-going to replay anyway"));
    Some(Exit::Error)
}

/// ` (as Valgrind 3.19 loads it: the release that recorded run.log)`, when group `g`'s
/// release is the one a log of the group names, not the one `check` applies (the
/// project's, or the default): why `check` may not find what stops the run.
fn release_from_log(
    plan: &Plan,
    g: Group,
    names: &[String],
    recorded: &[Recorded],
    args: &MatchArgs,
) -> Option<String> {
    let version = plan.groups.get(g)?.version;
    if args.valgrind_flag.is_some() || args.valgrind.parse::<Version>().ok() == Some(version) {
        return None;
    }
    let log = plan
        .logs
        .iter()
        .zip(recorded)
        .position(|(l, r)| l.group == g && r.version() == Some(version))?;
    Some(format!(
        " (as Valgrind {version} loads it: the release that recorded {})",
        names.get(log)?
    ))
}

/// One log's replay for `match`: its rows go to the writer in log order, its counts and
/// groups to its [`Totals`], its `--explain` text to the end.
struct MatchSink<'a, 'r> {
    name: &'a str,
    index: usize,
    refs: &'a RuleRefs<'r>,
    args: &'a MatchArgs,
    mode: Mode,
    out: LogSink<'a>,
    totals: Totals,
    explain: String,
    since_tick: u64,
    progress: &'a Progress,
}

impl ReplaySink for MatchSink<'_, '_> {
    /// The `--explain` text and the log's totals.
    type Output = (String, Totals);
    type Error = Stop;

    fn item(&mut self, _: &LogItem) -> Result<(), Stop> {
        // Stop as soon as the run no longer needs this log.
        self.out.check()
    }

    fn event(&mut self, ev: Event<'_>) -> Result<(), Stop> {
        match ev {
            Event::Error(e) => {
                if self.mode.rows {
                    self.out
                        .row(&ErrorRow::new(self.name, e, self.refs), self.mode.format)?;
                }
                if self.mode.summary {
                    self.totals.groups.add(self.index, self.name, e);
                }
                self.since_tick += 1;
                if self.since_tick == progress::BATCH {
                    self.progress.errors(self.since_tick);
                    self.since_tick = 0;
                }
            }
            Event::Input {
                record,
                input,
                rules: tool_rules,
                ..
            } => {
                if let Some(target) = &self.args.explain {
                    explain_error(
                        &mut self.explain,
                        tool_rules,
                        input,
                        target,
                        self.name,
                        record,
                    );
                }
            }
            Event::Warning { line, message } => {
                let at = line.map_or_else(String::new, |l| format!(":{l}"));
                self.out
                    .status(format!("warning: {}{at}: {message}", self.name))?;
            }
        }
        Ok(())
    }

    fn finish(mut self, end: LogEnd) -> Result<(String, Totals), Stop> {
        self.out.flush()?;
        self.progress.errors(self.since_tick);
        self.totals.tally.add(&end.tally);
        Ok((self.explain, self.totals))
    }
}

fn explain_error(
    text: &mut String,
    rules: &ToolRules,
    input: &MatchInput,
    target: &str,
    log: &str,
    err: &ErrorRecord,
) {
    let set = &rules.set;
    for (id, rule) in set.rules.iter().enumerate() {
        let rule_name = String::from_utf8_lossy(&rule.name);
        let file_line = format!("{}:{}", set.files[rule.file].path, rule.line);
        if rule_name != target && file_line != target {
            continue;
        }
        let _ = writeln!(
            text,
            "{log}:{} {}:{} — rule `{rule_name}` ({file_line}):",
            err.line,
            rule.tool.supp_name(),
            err.kind
        );
        if !rule.kind_matches(&input.kind) {
            let _ = writeln!(
                text,
                "  kind: {}\n",
                explain::kind_mismatch(rule, &input.kind)
            );
            continue;
        }
        let _ = writeln!(text, "  kind: matches");
        for line in explain(&rule.frames, input, show_pattern) {
            let _ = writeln!(text, "  {line}");
        }
        let verdict = match set.rule_matches(u32::try_from(id).unwrap_or(u32::MAX), input) {
            Truth::Yes => "matches",
            Truth::No => "does not match",
            Truth::Unknown => "undecided from this log (approximate)",
        };
        let _ = writeln!(text, "  => {verdict}\n");
    }
}

fn show_pattern(p: &vgsupp::matcher::rule::Pattern) -> String {
    use vgsupp::matcher::rule::Pattern;
    match p {
        Pattern::Fun(g) => format!("fun:{}", String::from_utf8_lossy(g.as_bytes())),
        Pattern::Obj(g) => format!("obj:{}", String::from_utf8_lossy(g.as_bytes())),
        Pattern::Src(g, 0) => format!("src:{}", String::from_utf8_lossy(g.as_bytes())),
        Pattern::Src(g, l) => format!("src:{}:{l}", String::from_utf8_lossy(g.as_bytes())),
        Pattern::Ellipsis => "...".to_owned(),
    }
}
