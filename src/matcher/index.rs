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
    obj: Keyed,
    /// Object globs keyed by the literal start of their last path component.
    obj_component: Keyed,
}

impl Anchors {
    fn add(&mut self, p: &Pattern, id: u32) -> bool {
        match p {
            Pattern::Fun(g) => add_glob(&mut self.fun, g, id),
            Pattern::Obj(g) => add_glob(&mut self.obj, g, id) || add_component(&mut self.obj_component, g, id),
            Pattern::Src(..) | Pattern::Ellipsis => false,
        }
    }

    fn lookup(&self, f: &InputFrame, out: &mut Vec<u32>) {
        self.lookup_frame(f, true, out);
    }

    fn lookup_frame(&self, f: &InputFrame, with_obj: bool, out: &mut Vec<u32>) {
        match &f.fun {
            Known::Yes(n) => self.fun.lookup(n, out),
            Known::Unknown => out.extend_from_slice(&self.fun.all),
        }
        if !with_obj {
            return;
        }
        match &f.obj {
            Known::Yes(path) => {
                self.obj.lookup(path, out);
                if !self.obj_component.is_empty() {
                    for (i, _) in path.iter().enumerate().filter(|(_, b)| **b == b'/') {
                        self.obj_component.lookup(&path[i + 1..], out);
                    }
                }
            }
            Known::Unknown => {
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

fn add_glob(k: &mut Keyed, g: &Glob, id: u32) -> bool {
    if g.is_literal() {
        k.add_exact(g.as_bytes(), id);
        return true;
    }
    let p = g.literal_prefix();
    if p.is_empty() {
        return false;
    }
    k.add_prefix(p, id);
    true
}

/// `*/NAME…`: any match has a `/` followed by NAME's literal start.
fn add_component(k: &mut Keyed, g: &Glob, id: u32) -> bool {
    let pat = g.as_bytes();
    let Some(slash) = pat.iter().rposition(|&b| b == b'/') else { return false };
    let comp = &pat[slash + 1..];
    let lit = &comp[..comp.iter().position(|&b| b == b'*' || b == b'?').unwrap_or(comp.len())];
    if lit.is_empty() {
        return false;
    }
    // The literal start only has to begin some component (the match may continue past it).
    k.add_prefix(lit, id);
    true
}

#[derive(Debug, Default, Clone)]
struct Bucket {
    top: Anchors,
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
    /// Index `rules`.
    #[must_use]
    pub fn new(rules: &[Rule]) -> Self {
        let mut idx = Self::default();
        for (i, rule) in rules.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            let lead = rule.frames.iter().take_while(|p| matches!(p, Pattern::Ellipsis)).count();
            for key in kind_keys(rule) {
                let b = idx.buckets[slot(rule.tool)].entry(key.to_vec()).or_default();
                let keyed = match rule.frames.get(lead) {
                    Some(anchor) if lead == 0 => b.top.add(anchor, id),
                    Some(anchor) => b.anywhere.add(anchor, id),
                    None => false,
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
        let Some(b) = self.buckets[slot(tool)].get(input.kind.kind.as_bytes()) else { return out };
        out.extend_from_slice(&b.other);
        match input.frames.first() {
            Some(top) => b.top.lookup(top, &mut out),
            // No frame shown: only an open-ended input can still match a concrete pattern.
            None if input.open_ended => b.top.all(&mut out),
            None => {}
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
