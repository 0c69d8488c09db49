//! Rule index: by tool and kind, then by the literal prefix of the top frame's pattern, so
//! that matching an error costs the rules that can match it, not all rules (issue 3, §7).

use std::collections::HashMap;

use crate::matcher::input::{Known, MatchInput};
use crate::matcher::rule::{Pattern, Rule};
use crate::supp::kinds::Tool;

/// Rules keyed by the top frame's literal text or literal prefix.
#[derive(Debug, Default, Clone)]
struct Keyed {
    exact: HashMap<Vec<u8>, Vec<u32>>,
    prefix: HashMap<Vec<u8>, Vec<u32>>,
    prefix_lens: Vec<usize>,
    all: Vec<u32>,
}

impl Keyed {
    fn add(&mut self, glob: &crate::matcher::wildcard::Glob, id: u32) -> bool {
        if glob.is_literal() {
            self.exact.entry(glob.as_bytes().to_vec()).or_default().push(id);
        } else {
            let p = glob.literal_prefix();
            if p.is_empty() {
                return false;
            }
            self.prefix.entry(p.to_vec()).or_default().push(id);
            if !self.prefix_lens.contains(&p.len()) {
                self.prefix_lens.push(p.len());
            }
        }
        self.all.push(id);
        true
    }

    fn candidates(&self, name: &Known<Vec<u8>>, out: &mut Vec<u32>) {
        match name {
            Known::Yes(n) => {
                if let Some(v) = self.exact.get(n.as_slice()) {
                    out.extend_from_slice(v);
                }
                for &len in &self.prefix_lens {
                    if let Some(v) = n.get(..len).and_then(|p| self.prefix.get(p)) {
                        out.extend_from_slice(v);
                    }
                }
            }
            Known::Unknown => out.extend_from_slice(&self.all),
        }
    }
}

#[derive(Debug, Default, Clone)]
struct Bucket {
    fun: Keyed,
    obj: Keyed,
    other: Vec<u32>,
}

/// The index over a rule set.
#[derive(Debug, Default, Clone)]
pub struct Index {
    buckets: HashMap<(Tool, Vec<u8>), Bucket>,
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
            for key in kind_keys(rule) {
                let b = idx.buckets.entry((rule.tool, key.to_vec())).or_default();
                let keyed = match rule.frames.first() {
                    Some(Pattern::Fun(g)) => b.fun.add(g, id),
                    Some(Pattern::Obj(g)) => b.obj.add(g, id),
                    _ => false,
                };
                if !keyed {
                    b.other.push(id);
                }
            }
        }
        idx
    }

    /// Ids of the rules of `tool` that may match `input` (unsorted, without duplicates).
    #[must_use]
    pub fn candidates(&self, tool: Tool, input: &MatchInput) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(b) = self.buckets.get(&(tool, input.kind.kind.as_bytes().to_vec())) else { return out };
        out.extend_from_slice(&b.other);
        match input.frames.first() {
            Some(top) => {
                b.fun.candidates(&top.fun, &mut out);
                b.obj.candidates(&top.obj, &mut out);
            }
            // No frame shown: only an open-ended input can still match a concrete pattern.
            None if input.open_ended => {
                out.extend_from_slice(&b.fun.all);
                out.extend_from_slice(&b.obj.all);
            }
            None => {}
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
