//! From every log's candidates to the rules written (PRODUCT.md §4):
//!
//! 1. **Coarsen** (`anchored` only, leaks only): candidates that share their
//!    `object`-style pin (`fun:malloc` + `obj:*/libtorch_cpu.so*`) but name more than
//!    [`COARSEN_AT`] different anchors are replaced by that one object rule: a library with
//!    many entry points needs one rule, not one per entry point, and the object rule
//!    survives new entry points in the next release.
//! 2. **Deduplicate** (one rule per shape, leak kinds merged) and drop candidates
//!    **subsumed** by another candidate or by a rule of the `-s` files.
//! 3. **The guarantee**: the candidates are checked against every kept and every reviewed
//!    error ([`super::guard`]); an error whose rule may match one is given a narrower rule
//!    — coarse → anchored → the shortest prefix of its exact stack that matches none of
//!    them — and, when even its whole stack would, it is reviewed instead (and so is
//!    protected in turn). Repeat until no candidate may match a kept or reviewed error.

use rustc_hash::{FxHashMap, FxHashSet};

use super::candidate::{ExactStack, Kinds, Pat, Shape, compile, kind_bit};
use super::collect::LogPart;
use super::guard;
use super::subsume::{covers, rule_covers};
use super::verdict::{Reason, Verdict};
use super::{GenError, Generator, Row};
use crate::matcher::stack::{Hashes, Scratch, stack_matches_in};
use crate::matcher::{MatchInput, Truth};
use crate::replay::Slot;
use crate::supp::kinds::Tool;

/// A group of candidates sharing an object pin is coarsened past this many anchors.
pub const COARSEN_AT: usize = 3;

/// A candidate of all logs.
#[derive(Debug, Clone)]
pub struct Cand {
    /// Its shape.
    pub shape: Shape,
    /// Whose code it hides.
    pub origin: crate::origin::OriginId,
    /// What names it.
    pub label: String,
    /// The pinned frame's label, when named after an anchor below it.
    pub pin: Option<String>,
}

/// How narrow a row's rule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Coarse,
    Chosen,
    Finer,
    Exact(u32),
}

#[derive(Debug, Clone)]
struct RowRule {
    row: usize,
    chosen: u32,
    coarse: Option<u32>,
    finer: Option<u32>,
    level: Level,
}

impl RowRule {
    fn current(&self) -> u32 {
        match self.level {
            Level::Coarse => self.coarse.unwrap_or(self.chosen),
            Level::Chosen => self.chosen,
            Level::Finer => self.finer.unwrap_or(self.chosen),
            Level::Exact(id) => id,
        }
    }
}

/// The selection's result.
pub struct Selected {
    /// Every error, with its final verdict; `rule` indexes `rules`.
    pub rows: Vec<Row>,
    /// The rules: candidate, leak kinds, errors hidden.
    pub rules: Vec<(Cand, Kinds, Vec<usize>)>,
}

struct Table {
    cands: Vec<Cand>,
    index: FxHashMap<Shape, u32>,
}

impl Table {
    fn intern(&mut self, c: Cand) -> u32 {
        if let Some(&id) = self.index.get(&c.shape) {
            return id;
        }
        let id = u32::try_from(self.cands.len()).unwrap_or(u32::MAX);
        self.index.insert(c.shape.clone(), id);
        self.cands.push(c);
        id
    }
}

/// Concrete frames of a shape (its `...` excluded): fewer is more general.
fn concrete(s: &Shape) -> usize {
    s.frames.iter().filter(|p| **p != Pat::Ellipsis).count()
}

/// A kept or reviewed error as the guarantee compares rules with it: its matcher input
/// with the hashes of its names, computed once (not once per rule and prefix tried).
struct Guarded<'a> {
    tool: Tool,
    input: &'a MatchInput,
    hashes: Hashes,
}

impl<'a> Guarded<'a> {
    fn all(kept: &[(Tool, &'a MatchInput)]) -> Vec<Self> {
        kept.iter()
            .map(|&(tool, input)| Self {
                tool,
                input,
                hashes: Hashes::of(input),
            })
            .collect()
    }

    /// Whether a rule of `shape`'s tool and kind may apply to it, the stack and the
    /// leak kind aside.
    fn same_kind(&self, shape: &Shape) -> bool {
        let extra_ok =
            shape.kind != "Param" || self.input.kind.param.as_deref() == shape.extra.as_deref();
        self.tool == shape.tool && self.input.kind.kind == shape.kind && extra_ok
    }
}

/// The exact stacks of the logs' suppressed errors and every error's matcher input, by row
/// of all logs.
struct ExactStore {
    /// Per part: its first row, and the part (only its `lines`, `exact` and `inputs` are
    /// left).
    parts: Vec<(usize, LogPart)>,
}

impl ExactStore {
    fn part(&self, row: usize) -> Option<(usize, &LogPart)> {
        let at = self
            .parts
            .partition_point(|(base, _)| *base <= row)
            .checked_sub(1)?;
        let (base, part) = &self.parts[at];
        Some((row - base, part))
    }

    fn get(&self, row: usize) -> Option<ExactStack> {
        let (local, part) = self.part(row)?;
        part.exact_stack(local)
    }

    fn input(&self, row: usize) -> Option<(Tool, MatchInput)> {
        let (local, part) = self.part(row)?;
        part.inputs.get(local)
    }
}

/// The matcher inputs of the kept and reviewed rows, rebuilt once each.
#[derive(Default)]
struct Protected {
    inputs: FxHashMap<usize, (Tool, MatchInput)>,
}

impl Protected {
    /// The inputs of every row not suppressed (kept or reviewed), in row order.
    fn of<'a>(&'a mut self, rows: &[Row], store: &ExactStore) -> Vec<(Tool, &'a MatchInput)> {
        let wanted: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.verdict != Verdict::Suppress)
            .map(|(i, _)| i)
            .collect();
        for &i in &wanted {
            if !self.inputs.contains_key(&i)
                && let Some(input) = store.input(i)
            {
                self.inputs.insert(i, input);
            }
        }
        wanted
            .iter()
            .filter_map(|i| self.inputs.get(i).map(|(t, input)| (*t, input)))
            .collect()
    }
}

/// Run the selection over the logs' parts.
///
/// # Errors
/// When the candidates do not load (a bug).
pub fn select(generator: &Generator, parts: Vec<LogPart>) -> Result<Selected, GenError> {
    let mut table = Table {
        cands: Vec::new(),
        index: FxHashMap::default(),
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut rules: Vec<RowRule> = Vec::new();
    let mut store = ExactStore { parts: Vec::new() };
    for mut part in parts {
        let base = rows.len();
        let map: Vec<u32> = std::mem::take(&mut part.table)
            .into_iter()
            .map(|c| {
                table.intern(Cand {
                    shape: c.shape,
                    origin: c.origin,
                    label: c.label,
                    pin: c.pin,
                })
            })
            .collect();
        for (i, c) in part.cands.iter().enumerate() {
            if let Some(c) = c {
                rules.push(RowRule {
                    row: base + i,
                    chosen: map[c.shape as usize],
                    coarse: c.coarse.map(|k| map[k as usize]),
                    finer: c.finer.map(|k| map[k as usize]),
                    level: Level::Chosen,
                });
            }
        }
        rows.append(&mut part.rows);
        part.cands = Vec::new();
        store.parts.push((base, part));
    }
    coarsen(&mut rules, &table, generator.style);
    let existing = existing_rules(generator);
    let mut protected = Protected::default();
    let (survivors, owner) = loop {
        // Kept and reviewed errors; rows reviewed by the last round count from now on.
        let kept = protected.of(&rows, &store);
        let (survivors, owner) = dedup(&table, &rules, &rows, &existing);
        let cands: Vec<(&Shape, Kinds)> = survivors
            .iter()
            .map(|(id, k)| (&table.cands[*id as usize].shape, *k))
            .collect();
        let hits = guard::matches(&cands, &kept, generator.rules_options())
            .map_err(GenError::Candidates)?;
        // Per conflicting candidate, the leak kinds of the errors it would hide: its rows
        // of other kinds keep it (without them, the merged kinds no longer match).
        let conflicting: FxHashMap<u32, Kinds> = survivors
            .iter()
            .zip(&hits)
            .filter(|(_, h)| !h.is_empty())
            .map(|((id, _), h)| {
                let kinds = h.iter().fold(0, |acc, &(i, _)| {
                    acc | kept[i].1.kind.leak.map_or(Kinds::MAX, kind_bit)
                });
                (*id, kinds)
            })
            .collect();
        if conflicting.is_empty() {
            break (survivors, owner);
        }
        narrow(
            &mut table,
            &mut rules,
            &mut rows,
            &conflicting,
            &kept,
            &store,
            generator.num_callers as usize,
        );
    };
    // Rows whose rule was subsumed by a `-s` rule: hidden already.
    let mut out_rules: Vec<(Cand, Kinds, Vec<usize>)> = Vec::new();
    let mut final_of: FxHashMap<u32, usize> = FxHashMap::default();
    for (id, kinds) in &survivors {
        final_of.insert(*id, out_rules.len());
        out_rules.push((table.cands[*id as usize].clone(), *kinds, Vec::new()));
    }
    for r in &rules {
        if rows[r.row].verdict != Verdict::Suppress {
            continue;
        }
        match owner.get(&r.current()) {
            Some(Owner::Cand(id)) => {
                if let Some(&k) = final_of.get(id) {
                    out_rules[k].2.push(r.row);
                    rows[r.row].rule = Some(k);
                }
            }
            Some(Owner::Existing(slot)) => {
                rows[r.row].existing = Some(*slot);
                rows[r.row].reason = Reason::Existing;
            }
            None => {}
        }
    }
    out_rules.retain(|r| !r.2.is_empty());
    // Indexes moved: number the rows' rules again.
    for (k, r) in out_rules.iter().enumerate() {
        for &row in &r.2 {
            rows[row].rule = Some(k);
        }
    }
    Ok(Selected {
        rows,
        rules: out_rules,
    })
}

/// Step 1: rows whose coarse group names many anchors start at the coarse rule. Leaks
/// only: a leak's first frame says whose allocation it is, while an uninitialised value or
/// a bad pointer used in a library may be its caller's — there a rule keeps naming the
/// function (`fun:`), not the whole library.
fn coarsen(rules: &mut [RowRule], table: &Table, style: super::Style) {
    if style != super::Style::Anchored {
        return;
    }
    let leak = |id: u32| table.cands[id as usize].shape.kind == "Leak";
    let mut groups: FxHashMap<u32, FxHashSet<u32>> = FxHashMap::default();
    for r in rules.iter() {
        groups
            .entry(r.coarse.unwrap_or(r.chosen))
            .or_default()
            .insert(r.chosen);
    }
    for r in rules.iter_mut() {
        if let Some(k) = r.coarse
            && leak(k)
            && groups.get(&k).is_some_and(|g| g.len() > COARSEN_AT)
        {
            r.level = Level::Coarse;
        }
    }
}

/// Who hides a candidate's errors after deduplication and subsumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// A surviving candidate.
    Cand(u32),
    /// A rule of the `-s` files.
    Existing(Slot),
}

/// The existing rules, with their slots, per tool.
fn existing_rules(generator: &Generator) -> Vec<(Slot, &crate::matcher::rule::Rule)> {
    let mut out = Vec::new();
    for tool in Tool::ALL {
        if let Ok(t) = generator.existing.tool(tool) {
            for (id, rule) in t.set.rules.iter().enumerate() {
                out.push((t.slot(u32::try_from(id).unwrap_or(u32::MAX)), rule));
            }
        }
    }
    out
}

/// Step 2: the distinct current candidates with their merged leak kinds; the survivors of
/// subsumption, and who owns each candidate.
fn dedup(
    table: &Table,
    rules: &[RowRule],
    rows: &[Row],
    existing: &[(Slot, &crate::matcher::rule::Rule)],
) -> (Vec<(u32, Kinds)>, FxHashMap<u32, Owner>) {
    let mut kinds: FxHashMap<u32, Kinds> = FxHashMap::default();
    for r in rules {
        let row = &rows[r.row];
        if row.verdict != Verdict::Suppress {
            continue;
        }
        let k = row.leak.map_or(0, |l| kind_bit(l.kind));
        *kinds.entry(r.current()).or_default() |= k;
    }
    let mut order: Vec<(u32, Kinds)> = kinds.into_iter().collect();
    // General first (a wider rule absorbs the narrower ones after it), then by shape, so
    // that the result does not depend on the order of the logs.
    order.sort_by(|a, b| {
        let (sa, sb) = (
            &table.cands[a.0 as usize].shape,
            &table.cands[b.0 as usize].shape,
        );
        concrete(sa).cmp(&concrete(sb)).then_with(|| sa.cmp(sb))
    });
    let mut survivors: Vec<(u32, Kinds)> = Vec::new();
    // Survivors by what a wider rule shares with the rules it covers (see `bucket`):
    // comparing every pair would be quadratic in thousands of exact rules.
    let mut buckets: FxHashMap<Bucket<'_>, Vec<(u32, Kinds)>> = FxHashMap::default();
    let mut owner: FxHashMap<u32, Owner> = FxHashMap::default();
    for (id, k) in order {
        let shape = &table.cands[id as usize].shape;
        if let Some((slot, _)) = existing.iter().find(|(_, r)| rule_covers(r, shape, k)) {
            owner.insert(id, Owner::Existing(*slot));
            continue;
        }
        let by = bucket_keys(shape).find_map(|key| {
            buckets
                .get(&key)?
                .iter()
                .find(|(s, sk)| covers(&table.cands[*s as usize].shape, *sk, shape, k))
        });
        match by {
            Some(&(s, _)) => {
                owner.insert(id, Owner::Cand(s));
            }
            None => {
                owner.insert(id, Owner::Cand(id));
                survivors.push((id, k));
                buckets.entry(bucket(shape)).or_default().push((id, k));
            }
        }
    }
    // The covers the buckets miss (a wider rule's `...` between the frames a narrower one
    // names in a row): survivors of one tool and kind compared pairwise — there are few.
    // Of two rules that cover each other the first stays.
    let shape = |id: u32| &table.cands[id as usize].shape;
    let mut by_kind: FxHashMap<(Tool, &str), Vec<usize>> = FxHashMap::default();
    for (i, (id, _)) in survivors.iter().enumerate() {
        let s = shape(*id);
        by_kind
            .entry((s.tool, s.kind.as_str()))
            .or_default()
            .push(i);
    }
    let mut gone: FxHashMap<u32, u32> = FxHashMap::default();
    for group in by_kind.values() {
        for &j in group {
            let (b, bk) = survivors[j];
            let wider = group.iter().find(|&&i| {
                let (a, ak) = survivors[i];
                i != j
                    && !gone.contains_key(&a)
                    && covers(shape(a), ak, shape(b), bk)
                    && (i < j || !covers(shape(b), bk, shape(a), ak))
            });
            if let Some(&i) = wider {
                gone.insert(b, survivors[i].0);
            }
        }
    }
    if !gone.is_empty() {
        let last = |mut id: u32| {
            while let Some(&w) = gone.get(&id) {
                id = w;
            }
            id
        };
        for o in owner.values_mut() {
            if let Owner::Cand(s) = o {
                *s = last(*s);
            }
        }
        survivors.retain(|(id, _)| !gone.contains_key(id));
    }
    (survivors, owner)
}

/// Where a survivor is filed for the subsumption check: its kind and its frames up to its
/// second concrete one. A wider rule covers a narrower one frame by frame, and the rules
/// `gen` writes name a frame the same way whatever their style, so a rule that covers
/// another shares those frames with it, or is shorter. (A cover this misses only leaves a
/// redundant rule in the file.)
type Bucket<'a> = (Tool, &'a str, Option<&'a [u8]>, &'a [Pat]);

fn bucket(shape: &Shape) -> Bucket<'_> {
    let end = shape
        .frames
        .iter()
        .enumerate()
        .filter(|(_, p)| **p != Pat::Ellipsis)
        .nth(1)
        .map_or(shape.frames.len(), |(i, _)| i + 1);
    (
        shape.tool,
        shape.kind.as_str(),
        shape.extra.as_deref(),
        &shape.frames[..end],
    )
}

/// The buckets a survivor covering `shape` may be filed in: those of `shape`'s prefixes
/// (a wider rule is a prefix of it, or shares its first two concrete frames).
fn bucket_keys(shape: &Shape) -> impl Iterator<Item = Bucket<'_>> {
    let full = bucket(shape);
    (1..=full.3.len()).map(move |n| (full.0, full.1, full.2, &full.3[..n]))
}

/// Step 3: rows whose candidate may match a kept error get a narrower one.
fn narrow(
    table: &mut Table,
    rules: &mut [RowRule],
    rows: &mut [Row],
    conflicting: &FxHashMap<u32, Kinds>,
    kept: &[(Tool, &MatchInput)],
    store: &ExactStore,
    max_frames: usize,
) {
    let kept = Guarded::all(kept);
    // Rows with the same rule and the same exact stack get the same prefix: found once.
    let mut found: FxHashMap<(u32, ExactStack), Option<Shape>> = FxHashMap::default();
    for r in rules.iter_mut() {
        let Some(&kinds) = conflicting.get(&r.current()) else {
            continue;
        };
        // A leak of a kind the rule would not need: it stays (see `select`).
        if let Some(l) = rows[r.row].leak
            && kinds & kind_bit(l.kind) == 0
        {
            continue;
        }
        if r.level == Level::Coarse {
            r.level = Level::Chosen;
            continue;
        }
        if r.level == Level::Chosen && r.finer.is_some() {
            r.level = Level::Finer;
            continue;
        }
        let chosen = &table.cands[r.chosen as usize];
        let prefix = store.get(r.row).and_then(|stack| {
            if let Level::Exact(_) = r.level {
                return None;
            }
            found
                .entry((r.chosen, stack))
                .or_insert_with_key(|(_, stack)| {
                    safe_prefix(&chosen.shape, stack, &kept, r.level, max_frames)
                })
                .clone()
        });
        match prefix {
            Some(shape) => {
                let cand = Cand {
                    shape,
                    origin: chosen.origin,
                    label: chosen.label.clone(),
                    pin: chosen.pin.clone(),
                };
                r.level = Level::Exact(table.intern(cand));
            }
            None => {
                let row = &mut rows[r.row];
                row.verdict = Verdict::Review;
                row.reason = Reason::WouldHideKept;
            }
        }
    }
}

/// The shortest prefix of an error's exact frames (longer than the current one when that
/// is already exact) that may match no kept error.
fn safe_prefix(
    chosen: &Shape,
    stack: &ExactStack,
    kept: &[Guarded<'_>],
    level: Level,
    max_frames: usize,
) -> Option<Shape> {
    let pats = &stack.frames;
    if let Level::Exact(_) = level {
        // The exact prefix conflicts once loaded (cut at --num-callers): every longer one
        // is cut the same way.
        return None;
    }
    // Only errors of the rule's tool and kind can conflict, whatever its frames.
    let relevant: Vec<&Guarded<'_>> = kept.iter().filter(|g| g.same_kind(chosen)).collect();
    // The allocator frames and the first two frames below them, at least.
    let from = (stack.alloc + 2).clamp(1, pats.len().max(1));
    // Valgrind keeps the first --num-callers lines of a rule: a longer one is no narrower.
    for n in from..=pats.len().min(max_frames) {
        let shape = Shape {
            frames: pats[..n].to_vec(),
            ..chosen.clone()
        };
        let compiled = compile(&shape);
        // The scratch keeps verdicts by the pattern's address: it serves one compiled
        // shape (across the inputs), never the next, which may reuse the address.
        let mut scratch = Scratch::default();
        if !relevant
            .iter()
            .any(|g| stack_matches_in(&compiled, g.input, &g.hashes, &mut scratch) != Truth::No)
        {
            return Some(shape);
        }
    }
    None
}
