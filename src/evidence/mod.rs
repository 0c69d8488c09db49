//! Evidence across many logs about a set of rules (PRODUCT.md §5): per log, the facts of
//! its run (hash, release, tools, command, the objects it loaded, the suppression files it
//! was recorded with, the environment, what it misses), and per rule what the log says of
//! it — Valgrind's own counts where the log was recorded with the rule's file, the
//! replay's `hits`..`hits_max` otherwise, and the errors an earlier rule surely took from
//! it. [`classify`](status::classify) turns that into `used` / `stale` / `unverifiable` /
//! `shadowed`.
//!
//! Each log is read by [`EvidenceSink`] through [`crate::replay::run_logs`]; logs are kept
//! in the order given, so the result does not depend on the thread count.

pub mod foreign;
pub mod status;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::logs::record::{Gap, LogItem};
use crate::replay::rules::Slot;
use crate::replay::run::{LogEnd, ReplaySink};
use crate::replay::{Event, RuleCounts};
use crate::supp::kinds::Tool;

pub use foreign::Foreign;
pub use status::{Classified, RuleMeta, Status, classify};

/// At most this many distinct commands are kept per log (a test suite forks a few).
const MAX_COMMANDS: usize = 16;

/// One `used_suppression` count (text `-v`) or `<suppcounts>` pair (XML), summed over the
/// log's processes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UsedCount {
    /// The suppression file as given to Valgrind (text logs of 3.9+ only).
    pub file: Option<Vec<u8>>,
    /// The line of the rule's name in it (text logs of 3.9+ only).
    pub line: Option<u32>,
    /// The rule's name.
    pub name: Vec<u8>,
    /// How often it was the first match.
    pub count: u64,
}

/// What one log says.
#[derive(Debug, Clone, Default)]
pub struct LogEvidence {
    /// The log as named to the user.
    pub name: String,
    /// Its SHA-256 (hex).
    pub sha256: Option<String>,
    /// Valgrind's version (`3.19.0`), from the first preamble that names it.
    pub valgrind: Option<String>,
    /// The tools that ran (Memcheck when the log names none).
    pub tools: Vec<Tool>,
    /// The commands Valgrind ran (first [`MAX_COMMANDS`]).
    pub commands: Vec<String>,
    /// Valgrind's options, as the first preamble that prints them says (`-v` text, XML).
    pub options: Vec<String>,
    /// The suppression files the run read, as given (`-v` text, XML).
    pub suppression_files: Vec<Vec<u8>>,
    /// Objects the log shows loaded (`-v`'s `Reading syms from`) or in a frame, sorted.
    pub objects: Vec<Vec<u8>>,
    /// Functions some frame of the log shows (any stack), sorted: a rule without `obj:`
    /// patterns is exercised only where the functions it names ran.
    pub functions: Vec<Vec<u8>>,
    /// Versions read from the objects' paths (driver, CUDA, Python, torch).
    pub environment: BTreeMap<String, String>,
    /// Memcheck searched for leaks: a loss record is shown, or the options do not say
    /// `--leak-check=no`.
    pub leak_check: bool,
    /// How the log misses evidence (cut, unfinished, dropped, capped, or Valgrind stopped).
    pub gaps: BTreeSet<Gap>,
    /// Valgrind's own counts.
    pub used: Vec<UsedCount>,
    /// Some process suppressed errors the log does not say which rule took (a summary's
    /// `suppressed:` without `used_suppression` lines: a log recorded without `-v`).
    pub hidden_unknown: bool,
    /// Errors and loss records read.
    pub errors: u64,
    /// The replay's counts of the rules it credits (or may), by slot.
    pub counts: Vec<(Slot, RuleCounts)>,
    /// Per slot: errors the rule surely matches that an earlier rule surely took, and the
    /// first such rule.
    pub shadowed: Vec<(Slot, u64, Slot)>,
}

impl LogEvidence {
    /// Whether the run read a suppression file whose file name is `base` (the files the
    /// log names are as given to Valgrind, relative to the run's directory: the name is
    /// what is compared).
    #[must_use]
    pub fn recorded_with(&self, base: &[u8]) -> bool {
        self.suppression_files
            .iter()
            .chain(self.used.iter().filter_map(|u| u.file.as_ref()))
            .any(|f| file_name(f) == base)
    }

    /// The environment as one line (`libcuda=535.104.05 python=3.11`), empty when the log
    /// shows no versions.
    #[must_use]
    pub fn environment_key(&self) -> String {
        self.environment
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The last path component of `path`.
#[must_use]
pub fn file_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// A count's file, line and rule name.
type UsedKey = (Option<Vec<u8>>, Option<u32>, Vec<u8>);

/// The [`ReplaySink`] that gathers a log's evidence.
pub struct EvidenceSink {
    ev: LogEvidence,
    objects: BTreeSet<Vec<u8>>,
    functions: std::collections::HashSet<Vec<u8>>,
    used: BTreeMap<UsedKey, u64>,
    /// Per process: `suppressed:` of its last summary, and whether it printed counts.
    suppressed: HashMap<Option<u32>, (u64, bool)>,
    shadowed: BTreeMap<Slot, (u64, Slot)>,
}

impl EvidenceSink {
    /// A sink for the log named `name`.
    #[must_use]
    pub fn new(name: &str) -> Self {
        Self {
            ev: LogEvidence {
                name: name.to_owned(),
                ..LogEvidence::default()
            },
            objects: BTreeSet::new(),
            functions: std::collections::HashSet::new(),
            used: BTreeMap::new(),
            suppressed: HashMap::new(),
            shadowed: BTreeMap::new(),
        }
    }

    fn object(&mut self, path: &[u8]) {
        if !self.objects.contains(path) {
            for (k, v) in crate::origin::environment::environment(path) {
                self.ev.environment.entry(k).or_insert(v);
            }
            self.objects.insert(path.to_vec());
        }
    }
}

impl ReplaySink for EvidenceSink {
    type Output = LogEvidence;
    type Error = std::convert::Infallible;

    fn item(&mut self, item: &LogItem) -> Result<(), Self::Error> {
        match item {
            LogItem::Preamble(p) => {
                let tool = p.tool.unwrap_or(Tool::Memcheck);
                if !self.ev.tools.contains(&tool) {
                    self.ev.tools.push(tool);
                }
                if self.ev.valgrind.is_none() {
                    self.ev.valgrind.clone_from(&p.valgrind_version);
                }
                if let Some(c) = &p.command
                    && self.ev.commands.len() < MAX_COMMANDS
                    && !self.ev.commands.contains(c)
                {
                    self.ev.commands.push(c.clone());
                }
                // Memcheck searches for leaks at exit unless told not to (`summary`, the
                // default, matches every loss record without printing it).
                if self.ev.options.is_empty() {
                    self.ev.options.clone_from(&p.options);
                }
                let run = crate::replay::options::RunOptions::parse(&p.options);
                if tool == Tool::Memcheck
                    && !(run.known && run.leak_check == crate::replay::options::LeakCheck::No)
                {
                    self.ev.leak_check = true;
                }
            }
            LogItem::SuppressionFile { path, .. } if !self.ev.suppression_files.contains(path) => {
                self.ev.suppression_files.push(path.clone());
            }
            LogItem::ObjectLoaded { path, .. } => self.object(path),
            LogItem::Error(e) => {
                self.ev.errors += 1;
                if e.leak.is_some() {
                    self.ev.leak_check = true;
                }
                let mut objs: Vec<Vec<u8>> = Vec::new();
                for f in std::iter::once(&e.stack)
                    .chain(e.aux.iter().map(|a| &a.stack))
                    .flat_map(|s| s.iter())
                {
                    if let Some(o) = f.obj
                        && !self.objects.contains(o)
                    {
                        objs.push(o.to_vec());
                    }
                    if let Some(fun) = f.fun
                        && !self.functions.contains(fun)
                    {
                        self.functions.insert(fun.to_vec());
                    }
                }
                for o in objs {
                    self.object(&o);
                }
            }
            LogItem::Used(u) => {
                *self
                    .used
                    .entry((u.file.clone(), u.line, u.name.clone()))
                    .or_default() += u.count;
                self.suppressed.entry(u.pid).or_default().1 = true;
            }
            LogItem::Summary(s) => {
                self.suppressed.entry(s.pid).or_default().0 = s.suppressed;
            }
            LogItem::Warning { gap: Some(g), .. } => {
                self.ev.gaps.insert(*g);
            }
            LogItem::Fatal { .. } => {
                self.ev.gaps.insert(Gap::Unfinished);
            }
            _ => {}
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>) -> Result<(), Self::Error> {
        if let Event::Error(e) = event
            && !e.shadowed.is_empty()
        {
            let by = e.credited().or(e.likely).unwrap_or(usize::MAX);
            for &s in &e.shadowed {
                let entry = self.shadowed.entry(s).or_insert((0, by));
                entry.0 += 1;
            }
        }
        Ok(())
    }

    fn finish(mut self, end: LogEnd) -> Result<LogEvidence, Self::Error> {
        self.ev.sha256 = end.sha256;
        if self.ev.tools.is_empty() {
            self.ev.tools.push(Tool::Memcheck);
        }
        self.ev.objects = self.objects.into_iter().collect();
        self.ev.functions = self.functions.into_iter().collect();
        self.ev.functions.sort_unstable();
        self.ev.used = self
            .used
            .into_iter()
            .map(|((file, line, name), count)| UsedCount {
                file,
                line,
                name,
                count,
            })
            .collect();
        self.ev.hidden_unknown = self
            .suppressed
            .values()
            .any(|&(suppressed, counted)| suppressed > 0 && !counted);
        self.ev.counts = end
            .tally
            .rules
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != RuleCounts::default())
            .map(|(s, c)| (s, *c))
            .collect();
        self.ev.shadowed = self
            .shadowed
            .into_iter()
            .map(|(s, (n, by))| (s, n, by))
            .collect();
        Ok(self.ev)
    }
}
