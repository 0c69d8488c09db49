//! Reading one log for `gen`: the replay library hands out every error as the matcher sees
//! it (with the objects it inferred for the process) and the verdict of the `-s` rules;
//! each error gets its frames classified, a verdict and, when it is to be suppressed, a
//! candidate rule that surely matches it.
//!
//! Memory: one [`Row`] per error and one entry per distinct candidate; every error's
//! matcher input, its frames interned ([`InputStore`]: the guarantee checks rules against
//! every kept and reviewed error, and a suppressed one may become reviewed). A suppressed
//! error also keeps its exact stack, as ids of distinct frame lines (4 bytes a frame), for
//! the rare rule that must be made narrower: cheaper than reading the log again.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::candidate::{self, Built, ExactStack, Kinds, NoRule, Pat, Shape, kind_bit};
use super::detail::{self, Detail, DetailStack, StackRole};
use super::frames::{self, Cache, ProcessObjects};
use super::inputs::InputStore;
use super::provenance::LogFacts;
use super::verdict::{self, Reason, Verdict};
use super::{Generator, Row};
use crate::logs::record::{ErrorRecord, Gap, LogFormat, LogItem};
use crate::matcher::rule::Pattern;
use crate::matcher::stack::stack_matches;
use crate::matcher::{MatchInput, Truth};
use crate::origin::{OriginId, Party};
use crate::replay::options::RunOptions;
use crate::replay::{Event, LogEnd, ReplaySink};
use crate::supp::kinds::Tool;

/// A candidate of one log.
#[derive(Debug, Clone)]
pub struct LocalCand {
    /// Its shape.
    pub shape: Shape,
    /// Leak kinds of the errors it was built for.
    pub kinds: Kinds,
    /// Whose code it hides.
    pub origin: OriginId,
    /// What names it.
    pub label: String,
    /// The pinned frame's label, when named after an anchor below it.
    pub pin: Option<String>,
}

/// What a row's candidates are, before selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCands {
    /// The candidate in the chosen style.
    pub shape: u32,
    /// Its `object`-style coarsening, if different.
    pub coarse: Option<u32>,
    /// The anchored rule an `object` rule is narrowed to first, if different.
    pub finer: Option<u32>,
}

/// What one log gave.
#[derive(Debug, Default)]
pub struct LogPart {
    /// Its facts (preamble, objects, error count).
    pub facts: LogFacts,
    /// Its errors, in log order.
    pub rows: Vec<Row>,
    /// Candidates per row (`None` for rows not suppressed by a candidate).
    pub cands: Vec<Option<RowCands>>,
    /// Its candidates.
    pub table: Vec<LocalCand>,
    /// Every row's matcher input (what the guarantee checks rules against).
    pub inputs: InputStore,
    /// Warnings (the reader's and the replay's), with the log's line.
    pub warnings: Vec<(Option<u64>, String)>,
    /// The distinct frame lines of the exact stacks.
    pub lines: Vec<Box<[u8]>>,
    /// Per row, the exact stack of a suppressed error: its allocator frames and line ids.
    pub exact: Vec<Option<(u16, Box<[u32]>)>>,
    /// Reporting only ([`Generator::reporting`]): per row, the stacks of a kept or
    /// reviewed error.
    pub details: Vec<Option<Box<Detail>>>,
    /// Where the log misses evidence (every gap the reader reported: line, how, why).
    pub gaps: Vec<(u64, Gap, String)>,
    /// Processes that ended on a fatal signal or a Valgrind error (line, message).
    pub fatal: Vec<(u64, String)>,
}

impl LogPart {
    /// The exact stack of row `row` (of this part), if it was kept.
    #[must_use]
    pub fn exact_stack(&self, row: usize) -> Option<ExactStack> {
        let (alloc, ids) = self.exact.get(row)?.as_ref()?;
        Some(ExactStack {
            alloc: usize::from(*alloc),
            frames: ids
                .iter()
                .map(|&id| {
                    Pat::from_line(
                        self.lines
                            .get(id as usize)
                            .map_or(&b"obj:*"[..], |l| &l[..]),
                    )
                })
                .collect(),
        })
    }
}

/// At most this many warnings are kept per log.
const MAX_WARNINGS: usize = 50;

/// Per-process facts gathered from items (not errors).
#[derive(Default)]
struct Procs {
    map: FxHashMap<Option<u32>, ProcessObjects>,
    none: ProcessObjects,
}

impl Procs {
    fn of(&self, pid: Option<u32>) -> &ProcessObjects {
        self.map.get(&pid).unwrap_or(&self.none)
    }

    /// Facts from items other than errors: preambles, loads and unloads.
    fn observe(
        &mut self,
        generator: &Generator,
        format: LogFormat,
        item: &LogItem,
        facts: &mut LogFacts,
    ) {
        match item {
            LogItem::Preamble(p) => {
                let run = RunOptions::parse(&p.options);
                let procs = self.map.entry(p.pid).or_default();
                procs.loads_listed = format == LogFormat::Text && run.known && !run.keep_debuginfo;
                facts.preamble(p, &run);
            }
            LogItem::ObjectLoaded { pid, path } => {
                let procs = self.map.entry(*pid).or_default();
                if generator.classifier.object_is_first_party(path) {
                    procs.first_party_loaded = true;
                    facts.first_party_loaded(path);
                }
                facts.object(path);
            }
            LogItem::ObjectUnloaded {
                pid,
                path,
                start,
                end,
            } => {
                let procs = self.map.entry(*pid).or_default();
                if procs.unloaded.len() < 4096 {
                    procs.unloaded.push((*start, *end, path.as_slice().into()));
                }
            }
            LogItem::ProcessEnd { pid } => {
                self.map.remove(pid);
            }
            _ => {}
        }
    }
}

/// The collection of one log: the [`ReplaySink`] `gen` and `gate` read each log into
/// ([`crate::replay::run_logs`]).
pub struct Collector<'g> {
    generator: &'g Generator,
    log: usize,
    format: LogFormat,
    procs: Procs,
    state: State,
}

/// What the event handler works on.
struct State {
    cache: Cache,
    part: LogPart,
    index: FxHashMap<Shape, u32>,
    compiled: Vec<Option<Vec<Pattern>>>,
    /// Rows waiting for the `-s` rules' verdict, in log order, each with whether the
    /// replay already knew it surely hidden ([`Event::Input`]'s `hidden`).
    pending: VecDeque<(usize, bool)>,
    /// Exact-stack lines, interned.
    line_index: FxHashMap<Box<[u8]>, u32>,
    /// Objects' line ids (their glob is made once).
    object_lines: FxHashMap<Box<[u8]>, u32>,
    scratch: Vec<u8>,
}

impl<'g> Collector<'g> {
    pub(super) fn new(generator: &'g Generator, log: usize, name: &str, format: LogFormat) -> Self {
        Self {
            generator,
            log,
            format,
            procs: Procs::default(),
            state: State {
                cache: Cache::default(),
                part: LogPart {
                    facts: LogFacts::new(name),
                    ..LogPart::default()
                },
                index: FxHashMap::default(),
                compiled: Vec::new(),
                pending: VecDeque::new(),
                line_index: FxHashMap::default(),
                object_lines: FxHashMap::default(),
                scratch: Vec::new(),
            },
        }
    }
}

impl ReplaySink for Collector<'_> {
    type Output = LogPart;
    type Error = std::convert::Infallible;

    fn item(&mut self, item: &LogItem) -> Result<(), Self::Error> {
        self.procs.observe(
            self.generator,
            self.format,
            item,
            &mut self.state.part.facts,
        );
        match item {
            LogItem::Warning {
                line,
                message,
                gap: Some(gap),
            } if self.state.part.gaps.len() < MAX_WARNINGS => {
                self.state.part.gaps.push((*line, *gap, message.clone()));
            }
            LogItem::Fatal { line, message, .. } if self.state.part.fatal.len() < MAX_WARNINGS => {
                self.state.part.fatal.push((*line, message.clone()));
            }
            _ => {}
        }
        Ok(())
    }

    fn event(&mut self, ev: Event<'_>) -> Result<(), Self::Error> {
        self.state
            .event(self.generator, self.log, self.format, &self.procs, ev);
        Ok(())
    }

    fn finish(mut self, end: LogEnd) -> Result<LogPart, Self::Error> {
        self.state.part.facts.sha256 = end.sha256;
        Ok(self.state.part)
    }
}

impl State {
    fn event(
        &mut self,
        generator: &Generator,
        log: usize,
        format: LogFormat,
        procs: &Procs,
        ev: Event<'_>,
    ) {
        match ev {
            Event::Input {
                record,
                input,
                hidden,
                ..
            } => {
                let procs = procs.of(record.pid);
                self.error(generator, log, format, procs, record, input, hidden);
            }
            Event::Error(e) => {
                let Some((row, hidden)) = self.pending.pop_front() else {
                    return;
                };
                debug_assert!(
                    !hidden || e.suppressed == Truth::Yes,
                    "the replay said an error was surely hidden, then did not suppress it"
                );
                if e.suppressed == Truth::Unknown {
                    // A `-s` rule may hide it: said for kept and reviewed errors; a
                    // suppressed one still gets its own rule.
                    let r = &mut self.part.rows[row];
                    r.existing_maybe = e.likely.or_else(|| e.possible.first().copied());
                    return;
                }
                if e.suppressed != Truth::Yes {
                    return;
                }
                let Some(slot) = e.credited().or(e.likely) else {
                    return;
                };
                let r = &mut self.part.rows[row];
                r.existing = Some(slot);
                if let Some(d) = self.part.details.get_mut(row) {
                    // Hidden: no report shows it.
                    *d = None;
                }
                if r.verdict == Verdict::Suppress {
                    // Hidden already: no rule is needed for it.
                    r.reason = Reason::Existing;
                    if let Some(c) = self.part.cands.get_mut(row) {
                        *c = None;
                    }
                    if let Some(e) = self.part.exact.get_mut(row) {
                        *e = None;
                    }
                }
            }
            Event::Warning { line, message } => {
                if self.part.warnings.len() < MAX_WARNINGS {
                    self.part.warnings.push((line, message));
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn error(
        &mut self,
        generator: &Generator,
        log: usize,
        format: LogFormat,
        procs: &ProcessObjects,
        err: &ErrorRecord,
        input: &MatchInput,
        hidden: bool,
    ) {
        let tool = err.tool.unwrap_or(Tool::Memcheck);
        if generator.reporting && hidden {
            // A `-s` rule surely hides it: a report never shows it, so its frames need
            // no placing (most of a gated log is such noise).
            self.part.facts.errors += 1;
            self.part.rows.push(row_of(
                log,
                err,
                tool,
                verdict::Decision {
                    verdict: Verdict::Suppress,
                    reason: Reason::Existing,
                    origin: crate::origin::classify::UNKNOWN_ID,
                    location: None,
                    function: None,
                },
            ));
            self.part.details.push(None);
            self.pending.push_back((self.part.rows.len() - 1, true));
            return;
        }
        let classifier = &generator.classifier;
        let f = frames::of_error(err, input, procs, classifier, &mut self.cache);
        let origins: Vec<_> = err
            .aux
            .iter()
            .filter(|a| a.origin)
            .map(|a| {
                frames::of_stack(
                    &a.stack,
                    format == LogFormat::Xml,
                    procs,
                    classifier,
                    &mut self.cache,
                )
            })
            .collect();
        for fr in f.iter().chain(origins.iter().flatten()) {
            match fr.party {
                Party::First => self.part.facts.first_party_frames += 1,
                Party::Unknown(why) => {
                    self.part.facts.undecided_frames += 1;
                    // What a user may name: the object no profile claims, else the source.
                    let name = match (why, fr.obj, fr.file) {
                        (
                            crate::origin::Unplaced::Unclaimed,
                            frames::Obj::Shown(p) | frames::Obj::Missing(Some(p)),
                            _,
                        )
                        | (_, _, Some(p)) => crate::origin::glob::last_component(p),
                        _ => b"???",
                    };
                    self.part.facts.unplaced(why, name);
                }
                Party::Third(_) => {}
            }
        }
        let mut d = verdict::decide(err, &f, &origins);
        if generator.reporting {
            let detail = (d.verdict != Verdict::Suppress)
                .then(|| Box::new(self.detail(err, format, procs, classifier, &f)));
            self.part.facts.errors += 1;
            self.part.rows.push(row_of(log, err, tool, d));
            self.part.details.push(detail);
            self.pending.push_back((self.part.rows.len() - 1, false));
            return;
        }
        let mut cands = None;
        if d.verdict == Verdict::Suppress {
            match self.candidate(generator, err, tool, &f, input) {
                Ok(c) => {
                    d.origin = self.part.table[c.shape as usize].origin;
                    cands = Some(c);
                }
                Err(_) => {
                    d.verdict = Verdict::Review;
                    d.reason = Reason::NoRule;
                }
            }
        }
        let row = self.part.rows.len();
        self.part.facts.errors += 1;
        self.part.inputs.push(tool, input);
        self.part.rows.push(row_of(log, err, tool, d));
        let exact = cands.is_some().then(|| self.exact_stack(&f));
        self.part.cands.push(cands);
        self.part.exact.push(exact);
        self.pending.push_back((row, hidden));
    }

    /// Every stack of an error a report shows.
    fn detail(
        &mut self,
        err: &ErrorRecord,
        format: LogFormat,
        procs: &ProcessObjects,
        classifier: &crate::origin::Classifier,
        own: &[frames::FrameFacts<'_>],
    ) -> Detail {
        let mut stacks = vec![DetailStack {
            label: err.what.clone(),
            role: StackRole::Error,
            frames: own.iter().map(detail::frame).collect(),
        }];
        for a in &err.aux {
            let f = frames::of_stack(
                &a.stack,
                format == LogFormat::Xml,
                procs,
                classifier,
                &mut self.cache,
            );
            if f.is_empty() && !a.origin {
                continue;
            }
            stacks.push(DetailStack {
                label: a.what.clone(),
                role: if a.origin {
                    StackRole::Origin
                } else {
                    StackRole::Block
                },
                frames: f.iter().map(detail::frame).collect(),
            });
        }
        Detail {
            stacks,
            param: err
                .param
                .as_deref()
                .map(|p| String::from_utf8_lossy(p).into_owned()),
        }
    }

    /// An error's exact stack, as interned line ids.
    fn exact_stack(&mut self, f: &[frames::FrameFacts<'_>]) -> (u16, Box<[u32]>) {
        let (alloc, lines) = candidate::exact_lines(f);
        let ids = lines
            .into_iter()
            .map(|line| {
                if let candidate::ExactLine::Obj(path) = line
                    && let Some(&id) = self.object_lines.get(path)
                {
                    return id;
                }
                self.scratch.clear();
                candidate::write_exact_line(line, &mut self.scratch);
                let id = match self.line_index.get(&self.scratch[..]) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(self.part.lines.len()).unwrap_or(u32::MAX);
                        let text: Box<[u8]> = self.scratch.as_slice().into();
                        self.part.lines.push(text.clone());
                        self.line_index.insert(text, id);
                        id
                    }
                };
                if let candidate::ExactLine::Obj(path) = line {
                    self.object_lines.insert(path.into(), id);
                }
                id
            })
            .collect();
        (u16::try_from(alloc).unwrap_or(u16::MAX), ids)
    }

    /// The candidate for a suppressed error, checked to surely match it: in the chosen
    /// style, else exact, else none.
    fn candidate(
        &mut self,
        generator: &Generator,
        err: &ErrorRecord,
        tool: Tool,
        f: &[frames::FrameFacts<'_>],
        input: &MatchInput,
    ) -> Result<RowCands, NoRule> {
        let kinds = err.leak.map_or(0, |l| kind_bit(l.kind));
        // Valgrind keeps the first --num-callers frame lines of a rule: no more are written.
        let callers = generator.num_callers as usize;
        let mut built = candidate::build(err, tool, f, generator.style, &generator.classifier)?;
        built.shape.frames.truncate(callers);
        if let Some(c) = self.register(&built, kinds, input) {
            return Ok(c);
        }
        // The log hides something the rule relies on: the exact rule, if that matches.
        let mut exact =
            candidate::build(err, tool, f, candidate::Style::Exact, &generator.classifier)?;
        exact.shape.frames.truncate(callers);
        self.register(&exact, kinds, input).ok_or(NoRule::NoPin)
    }

    fn intern(
        &mut self,
        shape: &Shape,
        kinds: Kinds,
        origin: OriginId,
        label: &str,
        pin: Option<&str>,
    ) -> u32 {
        if let Some(&id) = self.index.get(shape) {
            self.part.table[id as usize].kinds |= kinds;
            return id;
        }
        let id = u32::try_from(self.part.table.len()).unwrap_or(u32::MAX);
        self.part.table.push(LocalCand {
            shape: shape.clone(),
            kinds,
            origin,
            label: label.to_owned(),
            pin: pin.map(str::to_owned),
        });
        self.compiled.push(None);
        self.index.insert(shape.clone(), id);
        id
    }

    /// Intern a built rule if it surely matches `input`.
    fn register(&mut self, built: &Built, kinds: Kinds, input: &MatchInput) -> Option<RowCands> {
        let id = match self.index.get(&built.shape) {
            Some(&id) => id,
            None => self.intern(
                &built.shape,
                0,
                built.origin,
                &built.label,
                built.pin.as_deref(),
            ),
        };
        let compiled =
            self.compiled[id as usize].get_or_insert_with(|| candidate::compile(&built.shape));
        if stack_matches(compiled, input) != Truth::Yes {
            return None;
        }
        self.part.table[id as usize].kinds |= kinds;
        let coarse = built.coarse.as_ref().map(|c| {
            let label = coarse_label(c, &built.label);
            self.intern(c, kinds, built.origin, &label, None)
        });
        // Anchored below the pin: labelled after the anchor's frame, which the shape
        // names last.
        let finer = built.finer.as_ref().map(|f| {
            let label = anchor_label(f, &built.label);
            self.intern(f, kinds, built.origin, &label, Some(&built.label))
        });
        Some(RowCands {
            shape: id,
            coarse,
            finer,
        })
    }
}

/// The row of an error with its verdict (no `-s` verdict yet, no rule).
fn row_of(log: usize, err: &ErrorRecord, tool: Tool, d: verdict::Decision) -> Row {
    Row {
        log,
        line: err.line,
        pid: err.pid,
        tool,
        kind: err.kind.clone(),
        leak: err.leak,
        what: err.what.clone(),
        verdict: d.verdict,
        reason: d.reason,
        origin: d.origin,
        location: d.location,
        function: d.function,
        existing: None,
        existing_maybe: None,
        rule: None,
    }
}

/// The label of an anchored shape: its anchor's name, shortened.
fn anchor_label(shape: &Shape, fallback: &str) -> String {
    match shape.frames.last() {
        Some(Pat::Fun(g)) => {
            let name = g.strip_suffix(b"*").unwrap_or(g);
            let shown = match crate::matcher::demangle::display(name) {
                crate::matcher::demangle::Display::Demangled(s) => s,
                _ => String::from_utf8_lossy(name).into_owned(),
            };
            super::names::short(&shown)
        }
        _ => fallback.to_owned(),
    }
}

/// The label of a coarse (object-style) shape: its last frame's object or function.
fn coarse_label(shape: &Shape, fallback: &str) -> String {
    match shape.frames.last() {
        Some(Pat::Obj(g)) if g != b"*" => candidate::object_label(g),
        _ => fallback.to_owned(),
    }
}
