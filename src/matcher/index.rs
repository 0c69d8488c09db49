//! Rule index: by tool and kind, then by the literal text of each rule's first concrete
//! frame pattern, so that matching an error costs the rules that can match it, not all rules
//! (issue 3; PRODUCT.md §7).
//!
//! A rule's *anchor* is its first pattern frame that is not `...`. When it is the very first
//! frame it must match the error's top frame; after leading `...` it must match some frame.
//! Anchors are keyed by what any match must contain: a literal name or path, a literal prefix
//! (`_ZN5torch*`, `/usr/lib/*`), or for object globs like `*/libcuda.so*` the literal start of
//! the last path component, which must start some component of the object's path (a `*`
//! crosses `/`, so it may not be the last one). Anything else is checked for every error of
//! its kind.

use rustc_hash::FxHashMap as HashMap;

use crate::matcher::demangle;
use crate::matcher::input::{InputFrame, Known, MatchInput};
use crate::matcher::rule::{Pattern, Rule};
use crate::matcher::wildcard::Glob;
use crate::supp::kinds::Tool;

/// Rules keyed by a literal string or a literal prefix.
#[derive(Debug, Default, Clone)]
struct Keyed {
    exact: HashMap<Vec<u8>, Vec<u32>>,
    prefix: HashMap<Vec<u8>, Vec<u32>>,
    prefix_lens: Vec<usize>,
    all: Vec<u32>,
}

impl Keyed {
    fn add_exact(&mut self, key: &[u8], id: u32) {
        self.exact.entry(key.to_vec()).or_default().push(id);
        self.all.push(id);
    }

    fn add_prefix(&mut self, key: &[u8], id: u32) {
        self.prefix.entry(key.to_vec()).or_default().push(id);
        if !self.prefix_lens.contains(&key.len()) {
            self.prefix_lens.push(key.len());
        }
        self.all.push(id);
    }

    fn lookup(&self, s: &[u8], out: &mut Vec<u32>) {
        if let Some(v) = self.exact.get(s) {
            out.extend_from_slice(v);
        }
        for &len in &self.prefix_lens {
            if let Some(v) = s.get(..len).and_then(|p| self.prefix.get(p)) {
                out.extend_from_slice(v);
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.all.is_empty()
    }
}

/// Anchors of one position class (top frame, or any frame).
#[derive(Debug, Default, Clone)]
struct Anchors {
    fun: Keyed,
    /// Literal `fun:` anchors by their display (a frame the log shows demangled can only
    /// be matched by a literal whose display it is).
    fun_display: HashMap<Vec<u8>, Vec<u32>>,
    /// `fun:` anchors that may match a mangled name shown demangled without being found
    /// by display: globs whose literal start may begin `_Z`/`_R`, literals we cannot
    /// demangle.
    fun_mangled: Vec<u32>,
    obj: Keyed,
    /// Object globs keyed by the literal start of their last path component.
    obj_component: Keyed,
}

impl Anchors {
    fn add(&mut self, p: &Pattern, id: u32) -> bool {
        match key_of(p) {
            Some(Key {
                table: Table::Fun,
                bytes,
                prefix,
            }) => {
                if prefix {
                    if bytes.starts_with(b"_Z") || bytes.starts_with(b"_R") || bytes == b"_" {
                        self.fun_mangled.push(id);
                    }
                } else {
                    match demangle::display(bytes) {
                        demangle::Display::Demangled(d) => {
                            self.fun_display.entry(d.into_bytes()).or_default().push(id);
                        }
                        demangle::Display::AsIs => {}
                        demangle::Display::Unavailable => self.fun_mangled.push(id),
                    }
                }
                add_key(&mut self.fun, bytes, prefix, id)
            }
            Some(Key {
                table: Table::Obj,
                bytes,
                prefix,
            }) => add_key(&mut self.obj, bytes, prefix, id),
            Some(Key {
                table: Table::Component,
                bytes,
                prefix,
            }) => add_key(&mut self.obj_component, bytes, prefix, id),
            None => false,
        }
    }

    fn lookup(&self, f: &InputFrame, out: &mut Vec<u32>) {
        self.lookup_frame(f, true, out);
    }

    fn lookup_frame(&self, f: &InputFrame, with_obj: bool, out: &mut Vec<u32>) {
        match &f.fun {
            Known::Yes(n) => self.fun.lookup(n, out),
            Known::OneOf(names) => names.iter().for_each(|n| self.fun.lookup(n, out)),
            // A name libiberty refused is shown as is: any rule may be undecided on it.
            Known::Demangled { shown, .. }
                if shown.starts_with(b"_Z") || shown.starts_with(b"_R") =>
            {
                out.extend_from_slice(&self.fun.all);
            }
            Known::Demangled {
                shown,
                maybe_inlined,
            } => {
                if let Some(ids) = self.fun_display.get(shown) {
                    out.extend_from_slice(ids);
                }
                out.extend_from_slice(&self.fun_mangled);
                if *maybe_inlined {
                    self.fun.lookup(shown, out);
                }
            }
            Known::Unknown => out.extend_from_slice(&self.fun.all),
        }
        if !with_obj {
            return;
        }
        let obj_lookup = |path: &[u8], out: &mut Vec<u32>| {
            self.obj.lookup(path, out);
            if !self.obj_component.is_empty() {
                for (i, _) in path.iter().enumerate().filter(|(_, b)| **b == b'/') {
                    self.obj_component.lookup(&path[i + 1..], out);
                }
            }
        };
        match &f.obj {
            Known::Yes(path) => obj_lookup(path, out),
            Known::OneOf(paths) => paths.iter().for_each(|p| obj_lookup(p, out)),
            Known::Demangled { .. } | Known::Unknown => {
                out.extend_from_slice(&self.obj.all);
                out.extend_from_slice(&self.obj_component.all);
            }
        }
    }

    fn all(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.fun.all);
        out.extend_from_slice(&self.obj.all);
        out.extend_from_slice(&self.obj_component.all);
    }
}

/// Which table a key goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Table {
    Fun,
    Obj,
    Component,
}

/// What any match of a pattern frame must contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key<'a> {
    table: Table,
    bytes: &'a [u8],
    prefix: bool,
}

fn glob_key(table: Table, g: &Glob) -> Option<Key<'_>> {
    if g.is_literal() {
        return Some(Key {
            table,
            bytes: g.as_bytes(),
            prefix: false,
        });
    }
    let p = g.literal_prefix();
    (!p.is_empty()).then_some(Key {
        table,
        bytes: p,
        prefix: true,
    })
}

/// `*/NAME…`: any match has a `/` followed by NAME's literal start (a `*` crosses `/`, so
/// that component need not be the last one).
fn component_key(g: &Glob) -> Option<Key<'_>> {
    let pat = g.as_bytes();
    let slash = pat.iter().rposition(|&b| b == b'/')?;
    let comp = &pat[slash + 1..];
    let lit = &comp[..comp
        .iter()
        .position(|&b| b == b'*' || b == b'?')
        .unwrap_or(comp.len())];
    (!lit.is_empty()).then_some(Key {
        table: Table::Component,
        bytes: lit,
        prefix: true,
    })
}

fn key_of(p: &Pattern) -> Option<Key<'_>> {
    match p {
        Pattern::Fun(g) => glob_key(Table::Fun, g),
        Pattern::Obj(g) => glob_key(Table::Obj, g).or_else(|| component_key(g)),
        Pattern::Src(..) | Pattern::Ellipsis => None,
    }
}

fn add_key(k: &mut Keyed, key: &[u8], prefix: bool, id: u32) -> bool {
    if prefix {
        k.add_prefix(key, id);
    } else {
        k.add_exact(key, id);
    }
    true
}

/// How many leading frames of a rule may serve as its anchor.
const MAX_ANCHOR_DEPTH: usize = 8;

/// The keys of a rule's leading concrete frames (before any `...`), with their depth.
fn fixed_keys(rule: &Rule) -> Vec<(usize, Key<'_>)> {
    rule.frames
        .iter()
        .take_while(|p| !matches!(p, Pattern::Ellipsis))
        .take(MAX_ANCHOR_DEPTH)
        .enumerate()
        .filter_map(|(d, p)| key_of(p).map(|k| (d, k)))
        .collect()
}

#[derive(Debug, Default, Clone)]
struct Bucket {
    /// Anchors at a fixed depth from the top frame (rules without leading `...`).
    at: Vec<Anchors>,
    /// Anchors after leading `...`: they may match any frame.
    anywhere: Anchors,
    other: Vec<u32>,
}

/// The index over a rule set.
#[derive(Debug, Default, Clone)]
pub struct Index {
    /// Per tool (in `Tool::ALL` order), per error kind.
    buckets: [HashMap<Vec<u8>, Bucket>; 3],
}

const fn slot(tool: Tool) -> usize {
    match tool {
        Tool::Memcheck => 0,
        Tool::Helgrind => 1,
        Tool::Drd => 2,
    }
}

/// The error kinds a rule kind can match (empty: it never matches).
fn kind_keys(rule: &Rule) -> Vec<&[u8]> {
    match (rule.tool, rule.kind.as_slice()) {
        (Tool::Memcheck, b"Cond" | b"Value0") => vec![b"Cond"],
        (Tool::Memcheck, b"BadSize" | b"UnsafeZeroSize") => vec![b"BadSize", b"UnsafeZeroSize"],
        (Tool::Memcheck, b"CoreMem") | (Tool::Helgrind, b"FreeMemLock") => vec![],
        (_, k) => vec![k],
    }
}

impl Index {
    /// Index `rules`. A rule without leading `...` is keyed on the most selective of its
    /// first concrete frames (the key fewest rules share), so that a set in which every rule
    /// starts with `fun:malloc` is still split by the frames below it.
    #[must_use]
    pub fn new(rules: &[Rule]) -> Self {
        let mut idx = Self::default();
        let mut counts: HashMap<(usize, Key<'_>), usize> = HashMap::default();
        for rule in rules {
            for k in fixed_keys(rule) {
                *counts.entry(k).or_default() += 1;
            }
        }
        for (i, rule) in rules.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            let lead = rule
                .frames
                .iter()
                .take_while(|p| matches!(p, Pattern::Ellipsis))
                .count();
            // Prefer exact keys, then the rarest, then the shallowest.
            let best = fixed_keys(rule)
                .into_iter()
                .min_by_key(|k| (k.1.prefix, counts.get(k).copied().unwrap_or(0), k.0));
            for key in kind_keys(rule) {
                let b = idx.buckets[slot(rule.tool)]
                    .entry(key.to_vec())
                    .or_default();
                let keyed = match (lead, best) {
                    (0, Some((depth, _))) => {
                        if b.at.len() <= depth {
                            b.at.resize_with(depth + 1, Anchors::default);
                        }
                        b.at[depth].add(&rule.frames[depth], id)
                    }
                    (0, None) => false,
                    (_, _) => rule
                        .frames
                        .get(lead)
                        .is_some_and(|anchor| b.anywhere.add(anchor, id)),
                };
                if !keyed {
                    b.other.push(id);
                }
            }
        }
        idx
    }

    /// Ids of the rules of `tool` that may match `input` (sorted, without duplicates).
    #[must_use]
    pub fn candidates(&self, tool: Tool, input: &MatchInput) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(b) = self.buckets[slot(tool)].get(input.kind.kind.as_bytes()) else {
            return out;
        };
        out.extend_from_slice(&b.other);
        for (depth, anchors) in b.at.iter().enumerate() {
            match input.frames.get(depth) {
                Some(f) => anchors.lookup(f, &mut out),
                // Beyond the frames shown: only an open-ended input can still match.
                None if input.open_ended => anchors.all(&mut out),
                None => {}
            }
        }
        let mut prev: Option<&InputFrame> = None;
        for f in &input.frames {
            // Consecutive frames often share an object; look each object up once.
            let same_obj = prev.is_some_and(|p| p.obj == f.obj);
            b.anywhere.lookup_frame(f, !same_obj, &mut out);
            prev = Some(f);
        }
        if input.open_ended {
            // The anchor may be among the frames the log hides.
            b.anywhere.all(&mut out);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
