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

mod stream;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};

use anyhow::{Context as _, Result, anyhow};
use serde::{Serialize, Serializer};

use crate::cli::args::{MatchArgs, MatchFormat};
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::logs::detect;
use vgsupp::logs::record::{LogFormat, LogItem, ReadError};
use vgsupp::matcher::stack::explain;
use vgsupp::matcher::{MatchInput, Replay, RuleFile, RuleSet, Truth};
use vgsupp::supp::{Tool, Version};

use stream::{Halt, LIMITS, LogSink, Report, Stop, halt_on_write, replay_all};

/// Where distributions install Valgrind's default.supp.
const DEFAULT_SUPP: [&str; 3] = [
    "/usr/libexec/valgrind/default.supp",
    "/usr/lib/valgrind/default.supp",
    "/usr/local/libexec/valgrind/default.supp",
];

/// The rule list of each tool (each Valgrind tool loads its own), or why the tool refuses it.
type Sets = BTreeMap<Tool, Result<RuleSet, vgsupp::matcher::RefusedFile>>;

/// One error of the output, borrowed from the record being replayed, so a row costs no
/// allocation. Field order is the JSON contract's (docs/formats.md).
#[derive(Serialize)]
struct ErrorRow<'a> {
    log: &'a str,
    line: u64,
    pid: Option<u32>,
    kind: Kind<'a>,
    leak_kind: Option<&'static str>,
    suppressed_by: Option<RuleRef<'a>>,
    approximate: bool,
}

/// `Tool:Kind` (`Memcheck:Leak`), written out without building the string.
struct Kind<'a> {
    tool: Tool,
    kind: &'a str,
}

impl std::fmt::Display for Kind<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.tool.supp_name(), self.kind)
    }
}

impl Serialize for Kind<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // serde_json escapes each piece as it comes: the same bytes as a formatted String.
        s.collect_str(self)
    }
}

#[derive(Serialize)]
struct RuleRef<'a> {
    name: Cow<'a, str>,
    file: &'a str,
    line: u32,
}

#[derive(Serialize)]
struct RuleOut<'a> {
    name: &'a str,
    file: &'a str,
    line: u32,
    hits: u64,
}

impl ErrorRow<'_> {
    /// Append the row as `format` prints it. A JSON row starts with `,`: the log's worker
    /// cannot know whether an earlier log printed rows, so [`Report::rows`] drops the comma
    /// before the document's first row.
    fn encode(&self, format: MatchFormat, out: &mut Vec<u8>) -> std::io::Result<()> {
        match format {
            MatchFormat::Json => {
                out.push(b',');
                serde_json::to_writer(&mut *out, self)?;
            }
            MatchFormat::Human => {
                write!(out, "{}:{}", self.log, self.line)?;
                if let Some(p) = self.pid {
                    write!(out, " [{p}]")?;
                }
                write!(out, " {}", self.kind)?;
                if let Some(k) = self.leak_kind {
                    write!(out, " ({k})")?;
                }
                match &self.suppressed_by {
                    Some(r) => write!(out, ": suppressed by `{}` ({}:{})", r.name, r.file, r.line)?,
                    None => out.extend_from_slice(b": not suppressed"),
                }
                if self.approximate {
                    out.extend_from_slice(b" (approximate)");
                }
                out.push(b'\n');
            }
        }
        Ok(())
    }
}

/// Every loaded rule once, keyed by (file index, line) across tools, in file and line order:
/// the `rules` of the report. Hits are counted per slot.
struct Slots {
    /// (file index, line, name), sorted.
    rules: Vec<(usize, u32, String)>,
    /// For each tool, the slot of each rule id of its set.
    by_tool: BTreeMap<Tool, Vec<usize>>,
}

impl Slots {
    fn new(sets: &Sets) -> Self {
        let mut keyed: BTreeMap<(usize, u32), String> = BTreeMap::new();
        for set in sets.values().flatten() {
            for r in &set.rules {
                keyed
                    .entry((r.file, r.line))
                    .or_insert_with(|| String::from_utf8_lossy(&r.name).into_owned());
            }
        }
        let rules: Vec<(usize, u32, String)> = keyed
            .into_iter()
            .map(|((file, line), name)| (file, line, name))
            .collect();
        let by_tool = sets
            .iter()
            .filter_map(|(&tool, set)| {
                let set = set.as_ref().ok()?;
                let slots = set
                    .rules
                    .iter()
                    .map(|r| {
                        // Every rule's key was entered above: the search always finds it.
                        rules
                            .binary_search_by(|(f, l, _)| (*f, *l).cmp(&(r.file, r.line)))
                            .unwrap_or_else(|at| at)
                    })
                    .collect();
                Some((tool, slots))
            })
            .collect();
        Self { rules, by_tool }
    }

    fn len(&self) -> usize {
        self.rules.len()
    }
}

/// Running counts: all the end of the report needs. Each worker keeps its own.
#[derive(Debug, Default)]
struct Tally {
    /// Per rule slot, errors credited to it.
    hits: Vec<u64>,
    errors: u64,
    suppressed: u64,
    approximate: u64,
}

impl Tally {
    fn new(rules: usize) -> Self {
        Self {
            hits: vec![0; rules],
            ..Self::default()
        }
    }

    fn add(&mut self, other: &Self) {
        for (a, b) in self.hits.iter_mut().zip(&other.hits) {
            *a += b;
        }
        self.errors += other.errors;
        self.suppressed += other.suppressed;
        self.approximate += other.approximate;
    }
}

/// What the run shows: `--explain` in human form replaces the rows and table.
#[derive(Debug, Clone, Copy)]
struct Mode {
    format: MatchFormat,
    /// Whether rows are printed.
    rows: bool,
    /// Whether `--explain` text is gathered (only human output prints it).
    explain: bool,
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
    let sets: Sets = Tool::ALL
        .into_iter()
        .map(|t| {
            (
                t,
                RuleSet::load(rule_files.clone(), &[t], version, args.num_callers),
            )
        })
        .collect();
    let log_paths = files::collect_logs(&args.logs)?;
    // A log that cannot be opened fails the run before anything is printed, as when the
    // whole report was built first; later failures (a corrupt gzip member, a refused
    // suppression file) come after the rows before them (docs/formats.md).
    for p in &log_paths {
        std::fs::File::open(p).map_err(|source| ReadError::Io {
            path: p.display().to_string(),
            source,
        })?;
    }
    let slots = Slots::new(&sets);
    let explaining = args.explain.is_some() && args.format == MatchFormat::Human;
    let mode = Mode {
        format: args.format,
        rows: !explaining,
        explain: explaining,
    };
    let mut report = Report::new(
        BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        args.format,
    );
    let (tally, collated) = replay_all(
        log_paths.len(),
        rayon::current_num_threads(),
        LIMITS,
        slots.len(),
        &mut report,
        &mut |s: &str| out.status(s),
        |log, sink, tally| replay_log(&log_paths[log], &sets, &slots, args, mode, sink, tally),
    );
    match collated.halt {
        None => {}
        Some(Halt::Closed) => return Ok(Exit::Clean),
        Some(Halt::Failed(err)) => {
            // The rows before the failure are shown; the error says where it stopped.
            let _ = report.w.flush();
            return Err(err);
        }
    }
    let rules: Vec<RuleOut> = slots
        .rules
        .iter()
        .zip(&tally.hits)
        .map(|((file, line, name), &hits)| RuleOut {
            name,
            file: &rule_files[*file].path,
            line: *line,
            hits,
        })
        .collect();
    let explain_text = explaining.then_some(collated.explain.as_str());
    match report.finish(&rules, &tally, explain_text) {
        Ok(()) => Ok(Exit::Clean),
        Err(e) => match halt_on_write(e) {
            Halt::Closed => Ok(Exit::Clean),
            Halt::Failed(err) => Err(err),
        },
    }
}

/// Replay one log: one Valgrind search-order state per process and tool. Rows go to `sink`
/// as they are produced; returns the log's `--explain` text.
fn replay_log(
    path: &std::path::Path,
    sets: &Sets,
    slots: &Slots,
    args: &MatchArgs,
    mode: Mode,
    sink: &mut LogSink<'_>,
    tally: &mut Tally,
) -> Result<String, Stop> {
    let name = files::display(path);
    let log = detect::open_log(path).map_err(|e| Stop::Failed(e.into()))?;
    let format = log.format();
    let mut explain_text = String::new();
    let mut mangled_by_pid: BTreeMap<Option<u32>, bool> = BTreeMap::new();
    let mut tool_by_pid: BTreeMap<Option<u32>, Tool> = BTreeMap::new();
    let mut replays: BTreeMap<(Option<u32>, Tool), Replay<'_>> = BTreeMap::new();
    let mut warned_demangled = false;
    // By reference: a large text log read on several threads frees each batch of items on
    // the thread that read it (much cheaper than freeing them here).
    log.for_each_ref(|item| -> Result<(), Stop> {
        sink.check()?;
        match item.map_err(|e| Stop::Failed(e.into()))? {
            LogItem::Preamble(p) => {
                let mangled =
                    format == LogFormat::Xml && p.options.iter().any(|o| o == "--demangle=no");
                mangled_by_pid.insert(p.pid, mangled);
                if let Some(t) = p.tool {
                    tool_by_pid.insert(p.pid, t);
                }
            }
            LogItem::Warning { line, message } => {
                sink.status(format!("warning: {name}:{line}: {message}"))?;
            }
            LogItem::Error(err) => {
                let tool = err
                    .tool
                    .or_else(|| tool_by_pid.get(&err.pid).copied())
                    .unwrap_or(Tool::Memcheck);
                let set = match sets.get(&tool) {
                    Some(Ok(set)) => set,
                    Some(Err(refused)) => return Err(Stop::Failed(anyhow!("{refused}"))),
                    None => return Ok(()),
                };
                let input = MatchInput::from_record(
                    err,
                    mangled_by_pid.get(&err.pid).copied().unwrap_or(false),
                );
                if input.demangled_names && !warned_demangled {
                    warned_demangled = true;
                    sink.status(format!(
                        "note: {name} shows only demangled function names (no --gen-suppressions blocks, no XML with --demangle=no): verdicts that depend on C++ names are marked approximate"
                    ))?;
                }
                let replay = replays
                    .entry((err.pid, tool))
                    .or_insert_with(|| Replay::new(set));
                let verdict = replay.attribute(tool, &input);
                let suppressed_by = verdict.suppressed_by.map(|id| {
                    let r = &set.rules[id as usize];
                    if let Some(slot) = slots
                        .by_tool
                        .get(&tool)
                        .and_then(|s| s.get(id as usize))
                        .and_then(|&slot| tally.hits.get_mut(slot))
                    {
                        *slot += 1;
                    }
                    RuleRef {
                        name: String::from_utf8_lossy(&r.name),
                        file: &set.files[r.file].path,
                        line: r.line,
                    }
                });
                tally.errors += 1;
                tally.suppressed += u64::from(suppressed_by.is_some());
                tally.approximate += u64::from(verdict.approximate);
                if mode.explain
                    && let Some(target) = &args.explain
                {
                    explain_error(&mut explain_text, set, &input, target, &name, err);
                }
                if mode.rows {
                    sink.row(
                        &ErrorRow {
                            log: &name,
                            line: err.line,
                            pid: err.pid,
                            kind: Kind {
                                tool,
                                kind: &err.kind,
                            },
                            leak_kind: err.leak.map(|l| l.kind.token()),
                            suppressed_by,
                            approximate: verdict.approximate,
                        },
                        mode.format,
                    )?;
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(explain_text)
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
