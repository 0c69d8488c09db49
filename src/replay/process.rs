//! What a replay keeps about one process of a log: its run's options, the search order of
//! each tool it used, the tie group of loss records being read, the loss records the log left
//! out, the credits of its error contexts (for their occurrence counts) and its rule counts.
//! All of it is dropped when the process ends, so a log of many processes costs no more per
//! line than a log of one.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::logs::record::{ErrorSummary, LossRecord};
use crate::matcher::Truth;
use crate::matcher::objects::ObjectMap;
use crate::replay::cache::Matched;
use crate::replay::credit::{KindMask, Outcome, SearchOrder};
use crate::replay::evidence::{ErrorEvidence, RuleCounts, Why};
use crate::replay::options::RunOptions;
use crate::replay::rules::{ALL_KINDS, Slot, ToolRules, kind_bit};
use crate::supp::kinds::Tool;

/// An error whose verdict waits for the rest of its tie group.
#[derive(Debug)]
pub(crate) struct Pending {
    /// Its place in the log's output order.
    pub(crate) seq: u64,
    /// Its row, without the verdict yet.
    pub(crate) evidence: ErrorEvidence,
    /// What the matcher said: the rules that match or may match, and for each that may,
    /// the facts it needs that the log hides (shared by every error with the same input).
    pub(crate) matched: Arc<Matched>,
    /// Why the error itself cannot be matched surely (cut off).
    pub(crate) base_why: Why,
}

/// What sorts loss records in a leak search: total bytes, state and blocks, in one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LeakKey {
    search: u64,
    bytes: u64,
    kind: crate::supp::model::LeakKind,
    blocks: u64,
}

/// One tool's state in one process.
#[derive(Debug)]
pub(crate) struct ToolState {
    pub(crate) tool: Tool,
    order: SearchOrder,
    /// The tie group being read, its key, and the kinds of unprinted records that may lie
    /// in it.
    group: Vec<Pending>,
    key: Option<LeakKey>,
    group_hidden: KindMask,
    /// The last loss record printed: its number, the search's record count, the search.
    last_loss: Option<(u64, u64)>,
    search: u64,
    /// The leak kinds printed in the current search.
    printed: KindMask,
    /// Loss records the log left out: how many, per set of kinds they may have.
    hidden_counts: Vec<(KindMask, u64)>,
}

impl ToolState {
    fn new(tool: Tool, rules: usize) -> Self {
        Self {
            tool,
            order: SearchOrder::new(rules),
            group: Vec::new(),
            key: None,
            group_hidden: 0,
            last_loss: None,
            search: 0,
            printed: 0,
            hidden_counts: Vec::new(),
        }
    }
}

/// The credit of an error context, for the occurrence count that comes later. A process
/// may print hundreds of thousands of errors, most of them with one of a few credits: the
/// rules are kept once per process ([`SlotSets`]), a context only numbers them.
#[derive(Debug, Clone, Copy)]
struct Context {
    /// The rules it may be credited to.
    possible: SetId,
    /// It is surely credited (to the set's only rule).
    certain: bool,
    counted: bool,
}

type SetId = u32;

/// Sets of rules, each kept once.
#[derive(Debug, Default)]
struct SlotSets {
    sets: Vec<Arc<[Slot]>>,
    ids: HashMap<Arc<[Slot]>, SetId>,
}

impl SlotSets {
    fn intern(&mut self, set: &[Slot]) -> SetId {
        if let Some(&id) = self.ids.get(set) {
            return id;
        }
        let id = SetId::try_from(self.sets.len()).unwrap_or(SetId::MAX);
        let set: Arc<[Slot]> = set.into();
        self.sets.push(Arc::clone(&set));
        self.ids.insert(set, id);
        id
    }

    fn get(&self, id: SetId) -> &[Slot] {
        self.sets.get(id as usize).map_or(&[], |s| s)
    }
}

/// A process's rule counts. An error whose credit is uncertain may be credited to any of
/// its possible rules, up to hundreds with a real rule set, and a process repeats the same
/// few sets: such errors are counted per set, and the sets are added to the rules' counts
/// when the process ends (the sums are the same).
#[derive(Debug, Default)]
struct Credits {
    counts: HashMap<Slot, RuleCounts>,
    /// The rule sets of uncertain credits and of error contexts.
    sets: SlotSets,
    /// How many errors may be credited to any rule of each set.
    uncertain: HashMap<SetId, u64>,
}

impl Credits {
    fn count(&mut self, slot: Slot) -> &mut RuleCounts {
        self.counts.entry(slot).or_default()
    }

    /// The counts, and the uncertain credits: how many errors may be credited to any rule
    /// of each set.
    fn into_parts(self) -> (HashMap<Slot, RuleCounts>, Vec<Uncertain>) {
        let uncertain = self
            .uncertain
            .into_iter()
            .filter(|&(_, n)| n > 0)
            .filter_map(|(set, n)| Some((Arc::clone(self.sets.sets.get(set as usize)?), n)))
            .collect();
        (self.counts, uncertain)
    }
}

/// A `Reading syms` line (no range) or a `Discarding syms` line (its range).
type ObjectEvent = (Vec<u8>, Option<(u64, u64)>);

/// One process.
#[derive(Debug, Default)]
pub(crate) struct Proc {
    pub(crate) tool: Option<Tool>,
    /// Its function names are the matcher's (XML with `--demangle=no`).
    pub(crate) mangled: bool,
    pub(crate) run: RunOptions,
    /// What the log shows of the objects loaded, for frames printed with a source line.
    pub(crate) objects: ObjectMap,
    /// Loads and unloads read before the preamble said whether they are all listed.
    early_loads: Vec<ObjectEvent>,
    /// The preamble was read.
    preamble: bool,
    tools: Vec<ToolState>,
    contexts: HashMap<u64, Context>,
    summary: Option<ErrorSummary>,
    credits: Credits,
    /// Repeats already counted from occurrence counts.
    counted_extra: u64,
    /// Any error or record was replayed.
    pub(crate) active: bool,
}

/// A verdict ready to go out in log order.
pub(crate) type Decided = (u64, ErrorEvidence);

/// The state of `tool` among a process's tools, created when first used.
fn tool_state<'a>(
    tools: &'a mut Vec<ToolState>,
    tool: Tool,
    rules: &ToolRules,
) -> &'a mut ToolState {
    let at = match tools.iter().position(|t| t.tool == tool) {
        Some(at) => at,
        None => {
            tools.push(ToolState::new(tool, rules.set.rules.len()));
            tools.len() - 1
        }
    };
    &mut tools[at]
}

impl Proc {
    /// The preamble was read: whether every load and unload of the process is listed.
    pub(crate) fn preamble(&mut self, loads_listed: bool) {
        self.preamble = true;
        self.objects = if loads_listed {
            ObjectMap::with_loads_listed()
        } else {
            ObjectMap::new()
        };
        for (path, unload) in std::mem::take(&mut self.early_loads) {
            self.object(&path, unload);
        }
    }

    /// `Reading syms from PATH` (`unload` is `None`) or `Discarding syms at A-B in PATH`.
    pub(crate) fn object(&mut self, path: &[u8], unload: Option<(u64, u64)>) {
        if !self.preamble {
            // A reader may hand these out before the preamble that says how to use them. A
            // process with no preamble (a forked child, an excerpt) never lists them all, so
            // they are of no use there: keep a bounded number.
            if self.early_loads.len() < 4096 {
                self.early_loads.push((path.to_vec(), unload));
            }
            return;
        }
        match unload {
            None => self.objects.observe_loaded(path),
            Some((start, end)) => self.objects.observe_unloaded(path, start, end),
        }
    }

    /// Replay an error (not a loss record): any tie group of the tool ends first.
    pub(crate) fn error(&mut self, rules: &ToolRules, p: Pending, out: &mut Vec<Decided>) {
        self.active = true;
        let line = p.evidence.line;
        let tool = p.evidence.tool;
        let ts = tool_state(&mut self.tools, tool, rules);
        close_group(ts, rules, &mut self.credits, out);
        let decided = decide(ts, rules, vec![p], 0, &mut self.credits);
        for (_, ev) in &decided {
            let possible = self.credits.sets.intern(&ev.possible);
            self.contexts.insert(
                line,
                Context {
                    possible,
                    certain: ev.credited().is_some(),
                    counted: false,
                },
            );
        }
        out.extend(decided);
    }

    /// Replay a loss record: it joins the tie group being read or starts the next one;
    /// records the log left out (gaps in the numbering) are accounted for.
    pub(crate) fn loss_record(
        &mut self,
        rules: &ToolRules,
        loss: LossRecord,
        p: Pending,
        out: &mut Vec<Decided>,
    ) {
        self.active = true;
        let hidden_kinds = self.run.hidden();
        let tool = p.evidence.tool;
        let ts = tool_state(&mut self.tools, tool, rules);
        let numbered = loss.index > 0 && loss.total >= loss.index;
        // Records left out before this one, and whether a new search began.
        let mut gap = 0;
        let mut new_search = false;
        match ts.last_loss {
            _ if !numbered => {}
            Some((i, n)) if loss.index > i && loss.total == n => gap = loss.index - i - 1,
            last => {
                if let Some((i, n)) = last {
                    // The previous search is over: its records after `i` were left out,
                    // and may tie with its last group.
                    let mask = gap_kinds(hidden_kinds, ts.printed);
                    let tail = n.saturating_sub(i);
                    if tail > 0 {
                        ts.group_hidden |= mask;
                        add_hidden(ts, mask, tail);
                    }
                }
                new_search = true;
                gap = loss.index - 1;
            }
        }
        if new_search {
            close_group(ts, rules, &mut self.credits, out);
            ts.search += 1;
            ts.printed = 0;
        }
        if numbered {
            ts.last_loss = Some((loss.index, loss.total));
        }
        ts.printed |= kind_bit(loss.kind);
        let mask = gap_kinds(hidden_kinds, ts.printed);
        if gap > 0 {
            // They lie between the previous record and this one, and may tie with either.
            ts.group_hidden |= mask;
            add_hidden(ts, mask, gap);
        }
        let key = LeakKey {
            search: ts.search,
            bytes: loss.bytes,
            kind: loss.kind,
            blocks: loss.blocks,
        };
        if ts.key != Some(key) {
            close_group(ts, rules, &mut self.credits, out);
            ts.key = Some(key);
            if gap > 0 {
                ts.group_hidden = mask;
            }
        }
        ts.group.push(p);
    }

    /// `N errors in context …` / `<errorcounts>`: the context at `line` occurred `count`
    /// times; its rule takes the other occurrences too.
    pub(crate) fn occurrences(&mut self, line: u64, count: u64) {
        let Some(ctx) = self.contexts.get_mut(&line) else {
            return;
        };
        if ctx.counted {
            return;
        }
        ctx.counted = true;
        let extra = count.saturating_sub(1);
        self.counted_extra += extra;
        let credits = &mut self.credits;
        match *credits.sets.get(ctx.possible) {
            [slot] if ctx.certain => {
                let c = credits.count(slot);
                c.hits += extra;
                c.add_possible(Some(extra));
            }
            _ => *credits.uncertain.entry(ctx.possible).or_default() += extra,
        }
    }

    pub(crate) fn summary(&mut self, s: ErrorSummary) {
        self.summary = Some(s);
    }

    /// The process is over: decide what waits, bound what the log did not show, and return
    /// its rule counts, the rules whose count has no bound, and a note when the log hides
    /// errors that Valgrind matched.
    pub(crate) fn end<'t>(
        mut self,
        rules: &dyn Fn(Tool) -> Option<&'t ToolRules>,
        out: &mut Vec<Decided>,
    ) -> Ended {
        let mut unbounded: Vec<Slot> = Vec::new();
        let mut unbounded_leaks = 0;
        let mut unbounded_tools = Vec::new();
        let hidden_kinds = self.run.hidden();
        let memcheck = self.tool.unwrap_or(Tool::Memcheck) == Tool::Memcheck;
        if memcheck && !self.tools.iter().any(|t| t.last_loss.is_some()) {
            // No loss record printed: how many Valgrind matched cannot be told.
            unbounded_leaks = hidden_kinds;
        }
        for ts in &mut self.tools {
            let Some(r) = rules(ts.tool) else { continue };
            if let Some((i, n)) = ts.last_loss {
                // Records after the last one printed were left out.
                let mask = gap_kinds(hidden_kinds, ts.printed);
                let tail = n.saturating_sub(i);
                if tail > 0 {
                    ts.group_hidden |= mask;
                    add_hidden(ts, mask, tail);
                }
            }
            close_group(ts, r, &mut self.credits, out);
            for &(mask, n) in &ts.hidden_counts {
                for id in r.leak_rules(mask) {
                    self.credits.count(r.slot(id)).add_possible(Some(n));
                }
            }
        }
        // Occurrences of contexts the log gave no count for: at most all the repeats the
        // summary counts (errors − contexts), less those already counted.
        let bound = self.summary.map(|s| {
            s.errors
                .saturating_sub(s.contexts)
                .saturating_sub(self.counted_extra)
        });
        // Adding nothing changes no count.
        if bound != Some(0) {
            let mut sets: Vec<SetId> = self
                .contexts
                .values()
                .filter(|c| !c.counted)
                .map(|c| c.possible)
                .collect();
            sets.sort_unstable();
            sets.dedup();
            let mut uncounted: Vec<Slot> = sets
                .into_iter()
                .flat_map(|id| self.credits.sets.get(id).iter().copied())
                .collect();
            uncounted.sort_unstable();
            uncounted.dedup();
            match bound {
                Some(b) => {
                    for slot in uncounted {
                        self.credits.count(slot).add_possible(Some(b));
                    }
                }
                None => unbounded.extend(uncounted),
            }
        }
        let mut note = None;
        if let Some(s) = self.summary
            && s.suppressed > 0
        {
            // Errors Valgrind suppressed while recording are not in the log, yet they were
            // matched and moved rules in the search order: no credit here is certain, and
            // any rule of the process's tools may have taken them.
            note = Some(format!(
                "Valgrind suppressed {} errors while recording this process: they are not in the log, so its rule credits are only bounds",
                s.suppressed
            ));
            for c in self.credits.counts.values_mut() {
                c.hits = 0;
            }
            unbounded_tools.extend(self.tools.iter().map(|ts| ts.tool));
        }
        unbounded.sort_unstable();
        unbounded.dedup();
        let (counts, uncertain) = self.credits.into_parts();
        Ended {
            counts,
            uncertain,
            unbounded,
            unbounded_leaks,
            unbounded_tools,
            note,
        }
    }
}

/// A set of rules, and how many errors may be credited to any of them.
pub(crate) type Uncertain = (Arc<[Slot]>, u64);

/// What an ended process leaves: its rule counts, the rules whose count has no bound, and a
/// note for the user.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) counts: HashMap<Slot, RuleCounts>,
    /// Errors that may be credited to any rule of a set: so many for each rule of it.
    pub(crate) uncertain: Vec<Uncertain>,
    pub(crate) unbounded: Vec<Slot>,
    /// Memcheck's leak rules of these kinds have no bound either (every process without a
    /// loss record says so: the replay applies each kind once, not once per process).
    pub(crate) unbounded_leaks: KindMask,
    /// Every rule of these tools has no bound.
    pub(crate) unbounded_tools: Vec<Tool>,
    pub(crate) note: Option<String>,
}

/// The kinds records left out of a search may have: those Valgrind does not print and that
/// were not printed in it. When every kind is printed, records are missing for a reason the
/// log does not show (a cut excerpt, `--max-loss-records-output`): any kind.
fn gap_kinds(hidden: KindMask, printed: KindMask) -> KindMask {
    match hidden & !printed {
        0 => ALL_KINDS,
        m => m,
    }
}

fn add_hidden(ts: &mut ToolState, mask: KindMask, n: u64) {
    if mask == 0 || n == 0 {
        return;
    }
    match ts.hidden_counts.iter_mut().find(|(m, _)| *m == mask) {
        Some((_, c)) => *c += n,
        None => ts.hidden_counts.push((mask, n)),
    }
}

/// Decide the tie group being read, if any.
fn close_group(
    ts: &mut ToolState,
    rules: &ToolRules,
    credits: &mut Credits,
    out: &mut Vec<Decided>,
) {
    let hidden = std::mem::take(&mut ts.group_hidden);
    ts.key = None;
    if ts.group.is_empty() {
        if hidden != 0 {
            ts.order.hidden(hidden);
        }
        return;
    }
    let group = std::mem::take(&mut ts.group);
    out.extend(decide(ts, rules, group, hidden, credits));
}

/// Evaluate errors as one tie group and turn the outcomes into rows and counts.
fn decide(
    ts: &mut ToolState,
    rules: &ToolRules,
    group: Vec<Pending>,
    hidden: KindMask,
    credits: &mut Credits,
) -> Vec<Decided> {
    let cands: Vec<&_> = group.iter().map(|p| &p.matched.cands).collect();
    let outcomes = ts.order.group(&cands, hidden, |id| rules.kinds(id));
    group
        .into_iter()
        .zip(outcomes)
        .map(|(p, o)| {
            let ev = finish(p, &o, rules, credits);
            (ev.0, ev.1)
        })
        .collect()
}

fn finish(p: Pending, o: &Outcome, rules: &ToolRules, credits: &mut Credits) -> Decided {
    let mut ev = p.evidence;
    ev.suppressed = if o.surely_suppressed {
        Truth::Yes
    } else if o.possible.is_empty() {
        Truth::No
    } else {
        Truth::Unknown
    };
    let mut why = Why::none();
    if ev.suppressed != Truth::No {
        why.insert(p.base_why);
    }
    let mut yes_possible = 0;
    // Both in rule order (as the credit reasoning gives them): walk them together.
    let sorted = o.possible.is_sorted();
    let mut maybe = p.matched.maybe_why.iter().peekable();
    for &id in &o.possible {
        let why_maybe = if sorted {
            while maybe.next_if(|&&(m, _)| m < id).is_some() {}
            maybe.next_if(|&&(m, _)| m == id).map(|&(_, w)| w)
        } else {
            p.matched.why_maybe(id)
        };
        match why_maybe {
            Some(w) => why.insert(w),
            None => yes_possible += 1,
        }
    }
    if yes_possible > 1 {
        why.insert(Why::ORDER);
    }
    let mut possible: Vec<Slot> = o.possible.iter().map(|&id| rules.slot(id)).collect();
    if !possible.is_sorted() {
        possible.sort_unstable();
    }
    match o.certain() {
        Some(id) => {
            let c = credits.count(rules.slot(id));
            c.hits += 1;
            c.add_possible(Some(1));
        }
        None if possible.is_empty() => {}
        None => {
            let set = credits.sets.intern(&possible);
            *credits.uncertain.entry(set).or_default() += 1;
        }
    }
    if o.surely_suppressed {
        // A rule that surely matches yet is not among the possible winners is behind a
        // rule that surely matches and is certainly ahead of it.
        ev.shadowed = p
            .matched
            .cands
            .yes
            .iter()
            .filter(|id| !o.possible.contains(id))
            .map(|&id| rules.slot(id))
            .collect();
        ev.shadowed.sort_unstable();
    }
    ev.possible = possible;
    ev.likely = o.likely.map(|id| rules.slot(id));
    ev.why = if ev.approximate() { why } else { Why::none() };
    if ev.suppressed == Truth::Yes {
        // Only errors that may show are grouped in summaries.
        ev.signature = None;
    }
    (p.seq, ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_rule_sets_are_kept_once() {
        let mut sets = SlotSets::default();
        let a = sets.intern(&[3, 7]);
        let b = sets.intern(&[]);
        assert_eq!(sets.intern(&[3, 7]), a);
        assert_ne!(a, b);
        assert_ne!(sets.intern(&[7, 3]), a);
        assert_eq!(sets.get(a), [3, 7]);
        assert!(sets.get(b).is_empty());
        assert_eq!(sets.sets.len(), 3);
    }
}
