//! `vgsupp match`: which rule hides each error of the logs, with Valgrind's first-match
//! semantics, and per-rule hit counts; `--explain RULE` shows why a rule matches or not.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context as _, Result, bail};
use rayon::prelude::*;
use serde::Serialize;

use crate::cli::args::{MatchArgs, MatchFormat};
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::logs::detect;
use vgsupp::logs::record::{LogFormat, LogItem};
use vgsupp::matcher::stack::explain;
use vgsupp::matcher::{MatchInput, Replay, RuleFile, RuleSet, Truth};
use vgsupp::supp::{Tool, Version};

/// Where distributions install Valgrind's default.supp.
const DEFAULT_SUPP: [&str; 3] = [
    "/usr/libexec/valgrind/default.supp",
    "/usr/lib/valgrind/default.supp",
    "/usr/local/libexec/valgrind/default.supp",
];

#[derive(Serialize)]
struct ErrorOut {
    log: String,
    line: u64,
    pid: Option<u32>,
    kind: String,
    leak_kind: Option<&'static str>,
    suppressed_by: Option<RuleRef>,
    approximate: bool,
}

#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RuleRef {
    name: String,
    file: String,
    line: u32,
}

#[derive(Serialize)]
struct RuleOut {
    name: String,
    file: String,
    line: u32,
    hits: u64,
}

#[derive(Serialize)]
struct Out {
    errors: Vec<ErrorOut>,
    rules: Vec<RuleOut>,
}

pub fn run(args: &MatchArgs, out: &Output) -> Result<Exit> {
    let version: Version = args.valgrind.parse().context("invalid --valgrind")?;
    let supp_paths = files::collect(&args.suppressions, &[])?;
    let mut rule_files: Vec<RuleFile> = supp_paths
        .iter()
        .map(|p| {
            Ok(RuleFile {
                path: files::display(p),
                source: files::read(p)?,
            })
        })
        .collect::<Result<_>>()?;
    if args.default_suppressions {
        // Valgrind loads default.supp after every --suppressions file (§1.9).
        let path = match &args.default_supp_path {
            Some(p) => p.clone(),
            None => DEFAULT_SUPP
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
    // One rule list per tool, as each Valgrind tool loads its own.
    let sets: BTreeMap<Tool, Result<RuleSet, vgsupp::matcher::RefusedFile>> = Tool::ALL
        .into_iter()
        .map(|t| {
            (
                t,
                RuleSet::load(rule_files.clone(), &[t], version, args.num_callers),
            )
        })
        .collect();
    let log_paths = files::collect_logs(&args.logs)?;
    let mut errors = Vec::new();
    // (file index, line) -> (name, hits), across tools and runs.
    let mut hits: BTreeMap<(usize, u32), (String, u64)> = BTreeMap::new();
    for set in sets.values().flatten() {
        for r in &set.rules {
            hits.entry((r.file, r.line))
                .or_insert_with(|| (String::from_utf8_lossy(&r.name).into_owned(), 0));
        }
    }
    // Each log is its own set of Valgrind runs: replay them in parallel, report in order.
    let outcomes: Vec<Result<LogOutcome>> = log_paths
        .par_iter()
        .map(|path| replay_log(path, &sets, args))
        .collect();
    let mut explain_text = String::new();
    for outcome in outcomes {
        let o = outcome?;
        for m in &o.messages {
            out.status(m);
        }
        for key in o.credited {
            if let Some(h) = hits.get_mut(&key) {
                h.1 += 1;
            }
        }
        errors.extend(o.errors);
        explain_text.push_str(&o.explain);
    }
    let rules: Vec<RuleOut> = hits
        .into_iter()
        .map(|((file, line), (name, hits))| RuleOut {
            name,
            file: rule_files[file].path.clone(),
            line,
            hits,
        })
        .collect();
    let report = Out { errors, rules };
    match args.format {
        MatchFormat::Json => {
            let mut s = serde_json::to_string(&report)?;
            s.push('\n');
            out.stdout(&s);
        }
        MatchFormat::Human => out.stdout(&human(&report, &explain_text, args.explain.is_some())),
    }
    Ok(Exit::Clean)
}

/// What replaying one log produced.
struct LogOutcome {
    errors: Vec<ErrorOut>,
    /// (file index, line) of the rule credited for each suppressed error.
    credited: Vec<(usize, u32)>,
    messages: Vec<String>,
    explain: String,
}

/// Replay one log: one Valgrind search-order state per process and tool.
fn replay_log(
    path: &std::path::Path,
    sets: &BTreeMap<Tool, Result<RuleSet, vgsupp::matcher::RefusedFile>>,
    args: &MatchArgs,
) -> Result<LogOutcome> {
    let name = files::display(path);
    let (format, items) = detect::open(path)?;
    let mut o = LogOutcome {
        errors: Vec::new(),
        credited: Vec::new(),
        messages: Vec::new(),
        explain: String::new(),
    };
    let mut mangled_by_pid: BTreeMap<Option<u32>, bool> = BTreeMap::new();
    let mut tool_by_pid: BTreeMap<Option<u32>, Tool> = BTreeMap::new();
    let mut replays: BTreeMap<(Option<u32>, Tool), Replay<'_>> = BTreeMap::new();
    let mut warned_demangled = false;
    for item in items {
        match item? {
            LogItem::Preamble(p) => {
                let mangled =
                    format == LogFormat::Xml && p.options.iter().any(|o| o == "--demangle=no");
                mangled_by_pid.insert(p.pid, mangled);
                if let Some(t) = p.tool {
                    tool_by_pid.insert(p.pid, t);
                }
            }
            LogItem::Warning { line, message } => o
                .messages
                .push(format!("warning: {name}:{line}: {message}")),
            LogItem::Error(err) => {
                let tool = err
                    .tool
                    .or_else(|| tool_by_pid.get(&err.pid).copied())
                    .unwrap_or(Tool::Memcheck);
                let set = match sets.get(&tool) {
                    Some(Ok(set)) => set,
                    Some(Err(refused)) => bail!("{refused}"),
                    None => continue,
                };
                let input = MatchInput::from_record(
                    &err,
                    mangled_by_pid.get(&err.pid).copied().unwrap_or(false),
                );
                if input.demangled_names && !warned_demangled {
                    warned_demangled = true;
                    o.messages.push(format!(
                        "note: {name} shows only demangled function names (no --gen-suppressions blocks, no XML with --demangle=no): verdicts that depend on C++ names are marked approximate"
                    ));
                }
                let replay = replays
                    .entry((err.pid, tool))
                    .or_insert_with(|| Replay::new(set));
                let verdict = replay.attribute(tool, &input);
                let rule_ref = verdict.suppressed_by.map(|id| {
                    let r = &set.rules[id as usize];
                    o.credited.push((r.file, r.line));
                    RuleRef {
                        name: String::from_utf8_lossy(&r.name).into_owned(),
                        file: set.files[r.file].path.clone(),
                        line: r.line,
                    }
                });
                if let Some(target) = &args.explain {
                    explain_error(&mut o.explain, set, &input, target, &name, &err);
                }
                o.errors.push(ErrorOut {
                    log: name.clone(),
                    line: err.line,
                    pid: err.pid,
                    kind: format!("{}:{}", tool.supp_name(), err.kind),
                    leak_kind: err.leak.map(|l| l.kind.token()),
                    suppressed_by: rule_ref,
                    approximate: verdict.approximate,
                });
            }
            _ => {}
        }
    }
    Ok(o)
}

fn explain_error(
    text: &mut String,
    set: &RuleSet,
    input: &MatchInput,
    target: &str,
    log: &str,
    err: &vgsupp::logs::record::ErrorRecord,
) {
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
                "  kind: the rule is `{}`, the error is not of that kind: no match\n",
                String::from_utf8_lossy(&rule.kind)
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

fn human(report: &Out, explain_text: &str, explaining: bool) -> String {
    let mut s = String::new();
    if explaining {
        s.push_str(explain_text);
        if explain_text.is_empty() {
            s.push_str(
                "no error was compared with that rule (check its name, or give FILE:LINE)\n",
            );
        }
        return s;
    }
    for e in &report.errors {
        let pid = e.pid.map(|p| format!(" [{p}]")).unwrap_or_default();
        let leak = e.leak_kind.map(|k| format!(" ({k})")).unwrap_or_default();
        let approx = if e.approximate { " (approximate)" } else { "" };
        match &e.suppressed_by {
            Some(r) => {
                let _ = writeln!(
                    s,
                    "{}:{}{pid} {}{leak}: suppressed by `{}` ({}:{}){approx}",
                    e.log, e.line, e.kind, r.name, r.file, r.line
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "{}:{}{pid} {}{leak}: not suppressed{approx}",
                    e.log, e.line, e.kind
                );
            }
        }
    }
    if !report.rules.is_empty() {
        s.push_str("\nrule hits (first matches):\n");
        for r in &report.rules {
            let _ = writeln!(s, "{:>8}  {} ({}:{})", r.hits, r.name, r.file, r.line);
        }
    }
    let suppressed = report
        .errors
        .iter()
        .filter(|e| e.suppressed_by.is_some())
        .count();
    let approx = report.errors.iter().filter(|e| e.approximate).count();
    let _ = writeln!(
        s,
        "\n{} errors and loss records: {suppressed} suppressed, {} not suppressed ({approx} approximate)",
        report.errors.len(),
        report.errors.len() - suppressed
    );
    s
}
