//! Replaying Valgrind logs against suppression rules: for every error, whether it is
//! suppressed and which rule Valgrind credits, with how sure that is and why; for every rule,
//! how many errors it certainly takes and how many it might (valgrind-semantics.md §2).
//!
//! This is the layer `match`, `gen`, `prune`, `gate` and `audit` stand on; the CLI only
//! renders what it returns.
//!
//! * [`Rules`] loads the suppression files once per tool, as each tool's Valgrind does, and
//!   numbers every record once ([`RuleInfo`]: file, record index, byte span).
//! * [`LogReplay`] takes one log's items in order and reports, in the same order, an
//!   [`ErrorEvidence`] per error and loss record; [`LogReplay::finish`] returns the
//!   [`Tally`], with per-rule [`RuleCounts`].
//! * [`credit`] holds the search-order reasoning: which rules may be the first match when
//!   loss records tie, when a rule only might match, when the log leaves records out.
//!
//! What a replay treats as certain is certain for every run the log could come from: every
//! order of tied loss records, every truth of the facts the log hides. Valgrind's own count
//! for a rule lies between [`RuleCounts::hits`] and [`RuleCounts::hits_max`].

mod cache;
pub mod credit;
pub mod evidence;
pub mod options;
mod process;
pub mod recorded;
pub mod rules;
pub mod run;

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

pub use evidence::{ErrorEvidence, RuleCounts, Tally, Why};
pub use rules::{Group, RuleInfo, Rules, RulesOptions, Settings, Slot, ToolRules};
pub use run::{
    Failed, Flow, LogEnd, LogError, LogJob, LogsOptions, ReplaySink, collect_logs, in_order,
    run_logs,
};

use crate::logs::record::{ErrorRecord, LogFormat, LogItem};
use crate::matcher::input::Known;
use crate::matcher::rule::{Pattern, Rule};
use crate::matcher::{MatchInput, RefusedFile, Truth};
use crate::supp::kinds::Tool;
use cache::{MatchCache, Matched};
use options::RunOptions;
use process::{Decided, Pending, Proc};

/// What a replay reports besides verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Report each error's matcher input ([`Event::Input`]), e.g. for `--explain`.
    pub inputs: bool,
    /// Fill [`ErrorEvidence::signature`] for errors not surely suppressed.
    pub signatures: bool,
}

/// What a replay reports, in log order.
#[derive(Debug)]
pub enum Event<'a> {
    /// The verdict on an error or loss record.
    Error(&'a ErrorEvidence),
    /// An error as the matcher sees it (with [`ReplayOptions::inputs`]), when it is read.
    Input {
        /// The error.
        record: &'a ErrorRecord,
        /// What the matcher compares rules with.
        input: &'a MatchInput,
        /// The rules of its tool.
        rules: &'a ToolRules,
        /// Whether some rule surely matches it: it is surely suppressed, whichever rule
        /// Valgrind credits (known before its [`Event::Error`], which a loss record's tie
        /// group may delay). A command that only reports what is not hidden skips it.
        hidden: bool,
    },
    /// Something the user should know: the log says something the reader did not
    /// understand, or the replay can be less sure than usual.
    Warning {
        /// The log's line it is about, if any.
        line: Option<u64>,
        /// What happened.
        message: String,
    },
}

/// Why a replay stops.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError<E> {
    /// An error of a tool whose rules Valgrind would not run with.
    #[error(transparent)]
    Refused(RefusedFile),
    /// What the event handler returned.
    #[error("{0}")]
    Handler(E),
}

/// One log's replay: feed it the log's items in order.
pub struct LogReplay<'r> {
    rules: &'r Rules,
    format: LogFormat,
    opts: ReplayOptions,
    procs: HashMap<Option<u32>, Proc>,
    tally: Tally,
    /// Verdicts not yet reported: an earlier error's verdict waits for its tie group.
    queue: VecDeque<Option<ErrorEvidence>>,
    /// The sequence number of the queue's front.
    front: u64,
    next_seq: u64,
    warned_demangled: bool,
    warned_callers: bool,
    warned_release: bool,
    /// The settings group of the rules this log is replayed with.
    group: Group,
    /// The tool of errors whose log names none.
    default_tool: Tool,
    /// The matcher's answers for the inputs seen so far.
    cache: MatchCache,
    /// Leak kinds and tools whose rules' counts are already without bound.
    unbounded_leaks: credit::KindMask,
    unbounded_tools: Vec<Tool>,
}

impl<'r> LogReplay<'r> {
    /// Start replaying a log of `format` against `rules`.
    #[must_use]
    pub fn new(rules: &'r Rules, format: LogFormat, opts: ReplayOptions) -> Self {
        Self {
            rules,
            format,
            opts,
            procs: HashMap::default(),
            tally: Tally::new(rules.table.len()),
            queue: VecDeque::new(),
            front: 0,
            next_seq: 0,
            warned_demangled: false,
            warned_callers: false,
            warned_release: false,
            group: 0,
            default_tool: Tool::Memcheck,
            cache: MatchCache::default(),
            unbounded_leaks: 0,
            unbounded_tools: Vec::new(),
        }
    }

    /// Replay against the rules of settings group `group` ([`Rules::load_groups`]): the
    /// release and depth this log was recorded with.
    #[must_use]
    pub const fn in_group(mut self, group: Group) -> Self {
        self.group = group;
        self
    }

    /// Take errors of processes whose preamble names no tool (an excerpt) as `tool`'s
    /// (Memcheck's unless told).
    #[must_use]
    pub const fn default_tool(mut self, tool: Tool) -> Self {
        self.default_tool = tool;
        self
    }

    /// Replay one item.
    ///
    /// # Errors
    /// When an error's tool has rules Valgrind would refuse, or `on` fails.
    pub fn feed<E>(
        &mut self,
        item: &LogItem,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), ReplayError<E>> {
        match item {
            LogItem::Preamble(p) => {
                if self.procs.get(&p.pid).is_some_and(|proc| proc.active) {
                    // The same PID starts again (an exec): the earlier run is over.
                    self.end_process(p.pid, on)?;
                }
                let run = RunOptions::parse(&p.options);
                self.check_recorded(p, &run, on)?;
                let proc = self.procs.entry(p.pid).or_default();
                proc.mangled =
                    self.format == LogFormat::Xml && p.options.iter().any(|o| o == "--demangle=no");
                // A text preamble lists Valgrind's options only with `-v`, which also lists
                // every object loaded and unloaded from here on: frames printed with a
                // source line can then be placed among the objects the log shows.
                proc.preamble(self.format == LogFormat::Text && run.known && !run.keep_debuginfo);
                proc.run = run;
                if let Some(t) = p.tool {
                    proc.tool = Some(t);
                }
            }
            LogItem::Error(err) => self.error(err, on)?,
            LogItem::ObjectLoaded { pid, path } => {
                self.procs.entry(*pid).or_default().object(path, None);
            }
            LogItem::ObjectUnloaded {
                pid,
                path,
                start,
                end,
            } => {
                self.procs
                    .entry(*pid)
                    .or_default()
                    .object(path, Some((*start, *end)));
            }
            LogItem::ContextCount {
                pid,
                count,
                error_line,
            } => {
                if let Some(proc) = self.procs.get_mut(pid) {
                    proc.occurrences(*error_line, *count);
                }
            }
            LogItem::Summary(s) => {
                if let Some(proc) = self.procs.get_mut(&s.pid) {
                    proc.summary(*s);
                }
            }
            LogItem::ProcessEnd { pid } => self.end_process(*pid, on)?,
            LogItem::Warning { line, message, .. } => on(Event::Warning {
                line: Some(*line),
                message: message.clone(),
            })
            .map_err(ReplayError::Handler)?,
            _ => {}
        }
        Ok(())
    }

    /// The log is over: every process still open ends. Returns the log's totals.
    ///
    /// # Errors
    /// When `on` fails.
    pub fn finish<E>(
        mut self,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<Tally, ReplayError<E>> {
        let mut pids: Vec<Option<u32>> = self.procs.keys().copied().collect();
        pids.sort_unstable();
        for pid in pids {
            self.end_process(pid, on)?;
        }
        self.emit(Vec::new(), on)?;
        Ok(self.tally)
    }

    /// Say once per log when a process was recorded with another depth or release than
    /// the rules of this log are read for (a flag that overrides the log, or a later
    /// process that differs from the first).
    fn check_recorded<E>(
        &mut self,
        pre: &crate::logs::record::Preamble,
        run: &RunOptions,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), ReplayError<E>> {
        let used = self.rules.settings(self.group);
        let who = pre
            .pid
            .map_or_else(String::new, |p| format!(" (process {p})"));
        if !self.warned_callers
            && let Some(recorded) = recorded::stated_depth(run)
            && recorded != used.num_callers
        {
            self.warned_callers = true;
            on(Event::Warning {
                line: None,
                message: format!(
                    "this log{who} was recorded with --num-callers={recorded}, but its rules are read as with --num-callers={}: Valgrind cut them at {recorded}",
                    used.num_callers
                ),
            })
            .map_err(ReplayError::Handler)?;
        }
        if !self.warned_release
            && let Some(text) = pre.valgrind_version.as_deref()
            && let Some(recorded) = recorded::release_version(text)
            && recorded != used.version
        {
            self.warned_release = true;
            on(Event::Warning {
                line: None,
                message: format!(
                    "this log{who} was recorded by Valgrind {text}, but its rules are loaded as Valgrind {} loads them",
                    used.version
                ),
            })
            .map_err(ReplayError::Handler)?;
        }
        Ok(())
    }

    fn error<E>(
        &mut self,
        err: &ErrorRecord,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), ReplayError<E>> {
        let proc = self.procs.entry(err.pid).or_default();
        let tool = err.tool.or(proc.tool).unwrap_or(self.default_tool);
        let rules = self
            .rules
            .tool_in(self.group, tool)
            .map_err(|e| ReplayError::Refused(e.clone()))?;
        proc.objects.observe(err);
        let input = MatchInput::from_record_with(err, proc.mangled, Some(&proc.objects));
        if input.demangled_names && !self.warned_demangled {
            self.warned_demangled = true;
            on(Event::Warning {
                line: None,
                message: "this log shows only demangled function names (no --gen-suppressions blocks, no XML with --demangle=no): `fun:` patterns are decided by demangling them as Valgrind does where only one mangled name shows that way; the rest are approximate".to_owned(),
            })
            .map_err(ReplayError::Handler)?;
        }
        let matched = self.cache.get_or_insert_with(tool, &input, |scratch| {
            matches(&rules.set, tool, &input, scratch)
        });
        if self.opts.inputs {
            on(Event::Input {
                record: err,
                input: &input,
                rules,
                hidden: !matched.cands.yes.is_empty(),
            })
            .map_err(ReplayError::Handler)?;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push_back(None);
        let pending = Pending {
            seq,
            evidence: ErrorEvidence {
                line: err.line,
                pid: err.pid,
                tool,
                kind: err.kind.clone(),
                leak_kind: err.leak.map(|l| l.kind),
                truncated: err.truncated || err.cut,
                suppressed: Truth::No,
                possible: Vec::new(),
                likely: None,
                why: Why::none(),
                // Taken while the record is at hand: a loss record's verdict may come later.
                signature: self.opts.signatures.then(|| signature(err)),
                shadowed: Vec::new(),
            },
            matched,
            base_why: if err.truncated {
                Why::FRAMES
            } else {
                Why::none()
            },
        };
        let mut decided = Vec::new();
        let proc = self.procs.entry(err.pid).or_default();
        match err.leak {
            Some(loss) if tool == Tool::Memcheck => {
                proc.loss_record(rules, loss, pending, &mut decided);
            }
            _ => proc.error(rules, pending, &mut decided),
        }
        self.emit(decided, on)
    }

    fn end_process<E>(
        &mut self,
        pid: Option<u32>,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), ReplayError<E>> {
        let Some(proc) = self.procs.remove(&pid) else {
            return Ok(());
        };
        let (rules, group) = (self.rules, self.group);
        let mut decided = Vec::new();
        let ended = proc.end(&|t| rules.tool_in(group, t).ok(), &mut decided);
        for (slot, c) in ended.counts {
            if let Some(r) = self.tally.rules.get_mut(slot) {
                r.add(c);
            }
        }
        for (set, n) in &ended.uncertain {
            for &slot in set.iter() {
                if let Some(r) = self.tally.rules.get_mut(slot) {
                    r.add_possible(Some(*n));
                }
            }
        }
        let mut unbounded = ended.unbounded;
        // A count without bound stays so: mark each kind of leak rules and each tool once.
        let leaks = ended.unbounded_leaks & !self.unbounded_leaks;
        if leaks != 0
            && let Ok(r) = rules.tool_in(group, Tool::Memcheck)
        {
            unbounded.extend(r.leak_rules(leaks).map(|id| r.slot(id)));
            self.unbounded_leaks |= leaks;
        }
        for tool in ended.unbounded_tools {
            if let (Ok(r), false) = (
                rules.tool_in(group, tool),
                self.unbounded_tools.contains(&tool),
            ) {
                unbounded.extend(
                    (0..r.set.rules.len()).map(|id| {
                        r.slot(credit::RuleId::try_from(id).unwrap_or(credit::RuleId::MAX))
                    }),
                );
                self.unbounded_tools.push(tool);
            }
        }
        for slot in unbounded {
            if let Some(r) = self.tally.rules.get_mut(slot) {
                r.hits_max = None;
            }
        }
        if let Some(note) = ended.note {
            let who = pid.map_or_else(String::new, |p| format!("process {p}: "));
            on(Event::Warning {
                line: None,
                message: format!("{who}{note}"),
            })
            .map_err(ReplayError::Handler)?;
        }
        self.emit(decided, on)
    }

    /// Queue decided verdicts and report every verdict whose earlier ones are reported.
    fn emit<E>(
        &mut self,
        decided: Vec<Decided>,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), ReplayError<E>> {
        for (seq, ev) in decided {
            let at = usize::try_from(seq - self.front).unwrap_or(usize::MAX);
            if let Some(slot) = self.queue.get_mut(at) {
                *slot = Some(ev);
            }
        }
        while let Some(Some(_)) = self.queue.front() {
            if let Some(Some(ev)) = self.queue.pop_front() {
                self.front += 1;
                self.tally.count(&ev);
                on(Event::Error(&ev)).map_err(ReplayError::Handler)?;
            }
        }
        Ok(())
    }
}

/// What the matcher says about `input`: the rules that match or may match it, in load
/// order, and why each one that may is undecided.
fn matches(
    set: &crate::matcher::RuleSet,
    tool: Tool,
    input: &MatchInput,
    scratch: &mut crate::matcher::stack::Scratch,
) -> Matched {
    let mut m = Matched::default();
    let hidden = Hidden::of(input);
    for (id, truth) in set.all_matches_in(tool, input, scratch) {
        match truth {
            Truth::Yes => m.cands.yes.push(id),
            Truth::Unknown => {
                m.cands.maybe.push(id);
                m.maybe_why
                    .push((id, unknown_facts(&set.rules[id as usize], input, hidden)));
            }
            Truth::No => {}
        }
    }
    m
}

/// Which kinds of facts some frame of an input does not show.
#[derive(Debug, Clone, Copy)]
struct Hidden {
    fun: bool,
    obj: bool,
    src: bool,
}

impl Hidden {
    fn of(input: &MatchInput) -> Self {
        let any =
            |f: &dyn Fn(&crate::matcher::input::InputFrame) -> bool| input.frames.iter().any(f);
        Self {
            fun: any(&|f| !matches!(f.fun, Known::Yes(_))),
            obj: any(&|f| !matches!(f.obj, Known::Yes(_))),
            src: any(&|f| !matches!(f.src, Known::Yes(_))),
        }
    }
}

/// The facts `rule` needs that `input` does not show (`hidden`): why its verdict is
/// unknown.
fn unknown_facts(rule: &Rule, input: &MatchInput, hidden: Hidden) -> Why {
    let mut why = Why::none();
    for p in &rule.frames {
        match p {
            Pattern::Fun(g) if !g.matches_any() && hidden.fun => why.insert(Why::NAME),
            Pattern::Obj(g) if !g.matches_any() && hidden.obj => why.insert(Why::OBJECT),
            Pattern::Src(..) if hidden.src => why.insert(Why::SOURCE),
            _ => {}
        }
    }
    let concrete = rule
        .frames
        .iter()
        .filter(|p| !matches!(p, Pattern::Ellipsis))
        .count();
    let reaches_past = concrete > input.frames.len()
        || rule
            .frames
            .iter()
            .skip_while(|p| !matches!(p, Pattern::Ellipsis))
            .any(|p| !matches!(p, Pattern::Ellipsis));
    if input.open_ended && (reaches_past || why.is_empty()) {
        why.insert(Why::FRAMES);
    }
    why
}

/// A demangled name without its parameter list, qualifiers and clone suffix, with template
/// arguments elided: `ns::f<…>` for `ns::f<int>(int) const [clone .isra.0]`. Enough to tell
/// frames apart in a summary line.
fn short_name(name: &str) -> String {
    let mut s = name;
    if let Some(at) = s.find(" [clone ") {
        s = &s[..at];
    }
    s = s.trim_end_matches(" const");
    // Drop the parameter list: the last top-level parenthesised group at the end.
    if s.ends_with(')') {
        let mut depth = 0usize;
        for (i, c) in s.char_indices().rev() {
            match c {
                ')' => depth += 1,
                '(' => {
                    depth -= 1;
                    if depth == 0 {
                        if i > 0 {
                            s = &s[..i];
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // Elide template arguments (keeping `operator<` and friends as they are).
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' if !out.ends_with("operator") => {
                if depth == 0 {
                    out.push_str("<…>");
                }
                depth += 1;
            }
            '>' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

/// What groups an error in a summary: its first frames below allocator and interceptor
/// frames (Valgrind's `vgpreload_*` objects), as the log prints them.
fn signature(err: &ErrorRecord) -> String {
    let mut parts: Vec<String> = Vec::new();
    let interceptor = |obj: Option<&[u8]>| {
        obj.is_some_and(|o| {
            o.rsplit(|&b| b == b'/')
                .next()
                .is_some_and(|base| base.starts_with(b"vgpreload_"))
        })
    };
    let frames: Vec<_> = err.stack.iter().collect();
    let skip = frames
        .iter()
        .take_while(|f| interceptor(f.obj))
        .count()
        .min(frames.len().saturating_sub(1));
    for f in frames.iter().skip(skip).take(3) {
        let text = match (f.fun, f.obj) {
            (Some(fun), _) => short_name(&String::from_utf8_lossy(fun)),
            (None, Some(obj)) => format!(
                "??? (in {})",
                String::from_utf8_lossy(obj.rsplit(|&b| b == b'/').next().unwrap_or(obj))
            ),
            (None, None) => "???".to_owned(),
        };
        parts.push(text);
    }
    parts.join(" < ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::text::TextReader;
    use crate::matcher::RuleFile;
    use crate::supp::kinds::Version;

    /// A loss record of `bytes` bytes allocated by `fun` (through `site`).
    fn record(i: u32, n: u32, bytes: u32, kind: &str, fun: &str) -> String {
        format!(
            "==7== {bytes} bytes in 1 blocks are {kind} in loss record {i} of {n}\n==7==    at 0x4848899: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n==7==    by 0x10915E: site (t.c:3)\n==7==    by 0x1091{i:02}: {fun} (t.c:{i})\n==7==    by 0x109200: main (t.c:40)\n==7== \n"
        )
    }

    const PREAMBLE: &str = "==7== Memcheck, a memory error detector\n==7== Command: ./t\n==7== \n";

    fn replay(log: &str, rules: &str) -> (Vec<ErrorEvidence>, Tally, Vec<String>) {
        let rules = Rules::load(
            vec![RuleFile {
                path: "r.supp".into(),
                source: rules.as_bytes().to_vec(),
            }],
            RulesOptions {
                version: Version::new(19).expect("3.19"),
                num_callers: 12,
                go_on: false,
            },
        );
        let mut r = LogReplay::new(&rules, LogFormat::Text, ReplayOptions::default());
        let mut rows = Vec::new();
        let mut warnings = Vec::new();
        let mut on = |ev: Event<'_>| -> Result<(), ()> {
            match ev {
                Event::Error(e) => rows.push(e.clone()),
                Event::Warning { message, .. } => warnings.push(message),
                Event::Input { .. } => {}
            }
            Ok(())
        };
        for item in TextReader::new(log.as_bytes()) {
            r.feed(&item.expect("item"), &mut on).expect("feed");
        }
        let tally = r.finish(&mut on).expect("finish");
        (rows, tally, warnings)
    }

    /// `a` (loaded first) takes every leak through `site`; `b`, searched first, only
    /// `leak1`'s.
    const COMPETING: &str = "{\n a\n Memcheck:Leak\n fun:malloc\n fun:site\n}\n{\n b\n Memcheck:Leak\n fun:malloc\n fun:site\n fun:leak1\n}\n";

    #[test]
    fn tied_records_make_the_credit_a_range() {
        // Printed order: leak1 (a, b) then leak2 (a): b takes leak1, a leak2. The other
        // order gives both to a. Tied in size: either can happen.
        let log = format!(
            "{PREAMBLE}{}{}",
            record(1, 2, 32, "definitely lost", "leak1"),
            record(2, 2, 32, "definitely lost", "leak2")
        );
        let (rows, tally, _) = replay(&log, COMPETING);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].possible.clone(), rows[0].likely),
            (vec![0, 1], Some(1))
        );
        assert!(rows[0].approximate() && rows[0].why == Why::ORDER);
        assert_eq!(rows[1].credited(), Some(0));
        let counts = |slot: usize| (tally.rules[slot].hits, tally.rules[slot].hits_max);
        assert_eq!(counts(0), (1, Some(2)));
        assert_eq!(counts(1), (0, Some(1)));
        // Not tied (different sizes): the order is known and both credits are certain.
        let log = format!(
            "{PREAMBLE}{}{}",
            record(1, 2, 32, "definitely lost", "leak1"),
            record(2, 2, 48, "definitely lost", "leak2")
        );
        let (rows, tally, _) = replay(&log, COMPETING);
        assert_eq!((rows[0].credited(), rows[1].credited()), (Some(1), Some(0)));
        assert_eq!((tally.rules[0].hits, tally.rules[0].hits_max), (1, Some(1)));
    }

    #[test]
    fn records_the_log_leaves_out_bound_the_counts() {
        // Records 1 and 3 of 3 are printed; record 2 was matched by Valgrind unseen, and
        // may have been a leak through `site` too: `a` may have taken it.
        let log = format!(
            "{PREAMBLE}{}{}",
            record(1, 3, 16, "definitely lost", "leak2"),
            record(3, 3, 64, "definitely lost", "leak2")
        );
        let (rows, tally, _) = replay(&log, COMPETING);
        assert!(rows.iter().all(|r| r.credited() == Some(0)));
        assert_eq!((tally.rules[0].hits, tally.rules[0].hits_max), (2, Some(3)));
        assert_eq!((tally.rules[1].hits, tally.rules[1].hits_max), (0, Some(1)));
        // No record printed at all, options unknown: no bound for leak rules.
        let (_, tally, _) = replay(PREAMBLE, COMPETING);
        assert_eq!(tally.rules[0].hits_max, None);
    }

    #[test]
    fn repeats_count_within_the_summary_bound() {
        let cond = "==7== Conditional jump or move depends on uninitialised value(s)\n==7==    at 0x109100: branchy (t.c:5)\n==7==    by 0x109200: main (t.c:40)\n==7== \n";
        let rules = "{\n c\n Memcheck:Cond\n fun:branchy\n}\n";
        let summary = "==7== ERROR SUMMARY: 5 errors from 1 contexts (suppressed: 0 from 0)\n";
        let (_, tally, _) = replay(&format!("{PREAMBLE}{cond}{summary}"), rules);
        // One context printed, five occurrences counted: Valgrind credits 1 to 5.
        assert_eq!((tally.rules[0].hits, tally.rules[0].hits_max), (1, Some(5)));
        let (_, tally, _) = replay(&format!("{PREAMBLE}{cond}"), rules);
        assert_eq!(tally.rules[0].hits_max, None, "no summary: no bound");
        // Recorded with suppressions: those errors are not in the log.
        let suppressed = "==7== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 3 from 1)\n";
        let (_, tally, warnings) = replay(&format!("{PREAMBLE}{cond}{suppressed}"), rules);
        assert_eq!((tally.rules[0].hits, tally.rules[0].hits_max), (0, None));
        assert!(
            warnings.iter().any(|w| w.contains("suppressed 3 errors")),
            "{warnings:?}"
        );
    }

    /// Errors whose credit is uncertain are counted per set of possible rules and added to
    /// each rule of the set when the process ends; repeats of such a context count for
    /// every rule of its set.
    #[test]
    fn uncertain_credits_count_for_every_possible_rule() {
        let cond = |pid: u32, line: u32| {
            format!(
                "=={pid}== Conditional jump or move depends on uninitialised value(s)\n=={pid}==    at 0x109100: branchy (t.c:{line})\n=={pid}==    by 0x109200: main (t.c:40)\n=={pid}== \n"
            )
        };
        // `a` surely matches; `b`, searched first, may (the frames below main are hidden).
        let rules = "{\n a\n Memcheck:Cond\n fun:branchy\n}\n{\n b\n Memcheck:Cond\n ...\n obj:/lib/x.so\n}\n{\n c\n Memcheck:Cond\n fun:other\n}\n";
        // Six occurrences of three contexts: the first's count says it had four.
        let log = format!(
            "{PREAMBLE}{}{}{}==7== ERROR SUMMARY: 6 errors from 3 contexts (suppressed: 0 from 0)\n",
            cond(7, 5),
            cond(7, 6),
            cond(7, 5)
        );
        let rules = Rules::load(
            vec![RuleFile {
                path: "r.supp".into(),
                source: rules.as_bytes().to_vec(),
            }],
            RulesOptions {
                version: Version::new(19).expect("3.19"),
                num_callers: 12,
                go_on: false,
            },
        );
        let mut r = LogReplay::new(&rules, LogFormat::Text, ReplayOptions::default());
        let mut rows = Vec::new();
        let mut on = |ev: Event<'_>| -> Result<(), ()> {
            if let Event::Error(e) = ev {
                rows.push(e.clone());
            }
            Ok(())
        };
        for item in TextReader::new(log.as_bytes()) {
            r.feed(&item.expect("item"), &mut on).expect("feed");
        }
        r.feed(
            &LogItem::ContextCount {
                pid: Some(7),
                count: 4,
                error_line: 4,
            },
            &mut on,
        )
        .expect("feed");
        let tally = r.finish(&mut on).expect("finish");
        assert_eq!(rows.len(), 3);
        assert!(
            rows.iter()
                .all(|e| e.possible == [0, 1] && e.credited().is_none())
        );
        // Three rows and three more occurrences, each possibly either rule's.
        for slot in [0, 1] {
            assert_eq!(
                (tally.rules[slot].hits, tally.rules[slot].hits_max),
                (0, Some(6)),
                "rule {slot}"
            );
        }
        assert_eq!((tally.rules[2].hits, tally.rules[2].hits_max), (0, Some(0)));
    }

    /// A log is replayed with the rules of its group, and says once where a process was
    /// recorded with another release or depth than those rules are loaded for.
    #[test]
    fn a_log_says_where_its_recording_differs_from_its_rules() {
        let v = |m| Version::new(m).expect("modelled");
        let log = "==7== Memcheck, a memory error detector\n==7== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n==7== Command: ./t\n==7== \n--7-- Valgrind options:\n--7--    --num-callers=3\n--7--    -v\n--7-- Contents of /proc/version:\n==7== Conditional jump or move depends on uninitialised value(s)\n==7==    at 0x109100: a (t.c:5)\n==7==    by 0x109200: b (t.c:40)\n==7==    by 0x109300: c (t.c:50)\n==7== \n==7== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)\n";
        // Cut at 3 frames, `deep` (4 frames) is `a, b, c` and matches; read at 12 it needs a
        // fourth frame, `d`, which the log (recorded at 3) cannot show.
        let rules = "{\n deep\n Memcheck:Cond\n fun:a\n fun:b\n fun:c\n fun:d\n}\n";
        let groups = [
            Settings {
                version: v(27),
                num_callers: 12,
            },
            Settings {
                version: v(19),
                num_callers: 3,
            },
        ];
        let rules = Rules::load_groups(
            vec![RuleFile {
                path: "r.supp".into(),
                source: rules.as_bytes().to_vec(),
            }],
            &groups,
            false,
        );
        let run = |group| {
            let mut r =
                LogReplay::new(&rules, LogFormat::Text, ReplayOptions::default()).in_group(group);
            let mut rows = Vec::new();
            let mut warnings = Vec::new();
            let mut on = |ev: Event<'_>| -> Result<(), ()> {
                match ev {
                    Event::Error(e) => rows.push(e.suppressed),
                    Event::Warning { message, .. } => warnings.push(message),
                    Event::Input { .. } => {}
                }
                Ok(())
            };
            for item in TextReader::new(log.as_bytes()) {
                r.feed(&item.expect("item"), &mut on).expect("feed");
            }
            r.finish(&mut on).expect("finish");
            (rows, warnings)
        };
        let (rows, warnings) = run(1);
        assert_eq!(rows, [Truth::Yes]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let (rows, warnings) = run(0);
        assert_eq!(rows, [Truth::No]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("--num-callers=3") && warnings[0].contains("=12"));
        assert!(warnings[1].contains("Valgrind 3.19.0") && warnings[1].contains("3.27"));
    }

    #[test]
    fn short_names() {
        assert_eq!(
            short_name(
                "pybind11::cpp_function::initialize_generic(std::unique_ptr<a, b>&&, char const*)"
            ),
            "pybind11::cpp_function::initialize_generic"
        );
        assert_eq!(
            short_name("void ns::f<int>(int) const [clone .isra.0]"),
            "void ns::f<…>"
        );
        assert_eq!(short_name("malloc"), "malloc");
        assert_eq!(short_name("(below main)"), "(below main)");
        assert_eq!(
            short_name("torch::f(_object*)::{lambda(int)#2}::operator()(int) const"),
            "torch::f(_object*)::{lambda(int)#2}::operator()"
        );
    }
}
