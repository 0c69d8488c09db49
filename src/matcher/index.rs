//! Rule index: by tool and kind, then by the literal text of frames any match of a rule
//! must contain, so that matching an error costs the rules that can match it, not all rules
//! (issue 3; PRODUCT.md §7).
//!
//! A rule's *anchors* are frames every match must meet. A concrete frame before the first
//! `...` must match the error's frame at its depth; a concrete frame after a `...` must
//! match some frame (or one the log hides, when the input is open-ended). Anchors are keyed
//! by what any match must contain: a literal name or path, a literal prefix (`_ZN5torch*`,
//! `/usr/lib/*`), or for object globs like `*/libcuda.so*` the literal start of the last
//! path component, which must start some component of the object's path (a `*` crosses
//! `/`, so it may not be the last one). A rule is keyed on its most selective anchor at a
//! depth and its most selective anchor anywhere; with both it is a candidate only when both
//! may match. Real rule sets need both: thousands of rules start with `fun:malloc`,
//! `fun:*alloc` or `...`, and are told apart only by a frame further down. Rules without
//! any key are checked for every error of their kind.

use rustc_hash::FxHashMap as HashMap;

use crate::matcher::demangle;
use crate::matcher::input::{InputFrame, Known, MatchInput};
use crate::matcher::rule::{Pattern, Rule};
use crate::matcher::stack::Scratch;
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

    fn lookup(&self, f: &InputFrame, out: &mut Vec<u32>, scratch: &mut Scratch) {
        self.lookup_frame(f, true, out, scratch);
    }

    fn lookup_frame(
        &self,
        f: &InputFrame,
        with_obj: bool,
        out: &mut Vec<u32>,
        scratch: &mut Scratch,
    ) {
        let table = std::ptr::from_ref(self).addr();
        match &f.fun {
            Known::Yes(n) => scratch.name_rules(table, true, n, out, |out| self.fun.lookup(n, out)),
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
            Known::Yes(path) => {
                scratch.name_rules(table, false, path, out, |out| obj_lookup(path, out));
            }
            // A large set: what this table gives for it is kept.
            Known::OneOf(paths) if paths.len() >= 8 => {
                let key = (std::ptr::from_ref(self).addr(), Scratch::set_id(paths));
                let ids = scratch.set_rules.entry(key).or_insert_with(|| {
                    let mut ids = Vec::new();
                    paths.iter().for_each(|p| obj_lookup(p, &mut ids));
                    ids.sort_unstable();
                    ids.dedup();
                    ids
                });
                out.extend_from_slice(ids);
            }
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

/// Whether two frames show the same object: sets of candidates are compared by identity
/// (the same set is usually the same allocation, and comparing hundreds of paths to find
/// two sets equal costs more than looking the second up).
fn same_object(a: &Known<Vec<u8>>, b: &Known<Vec<u8>>) -> bool {
    match (a, b) {
        (Known::OneOf(x), Known::OneOf(y)) => std::sync::Arc::ptr_eq(x, y),
        _ => a == b,
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
const MAX_ANCHOR_DEPTH: usize = 24;

/// A frame of a rule that may serve as its anchor: any match of the rule must match it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Anchor<'a> {
    /// `Some(d)`: a frame before any `...`, which must match the input's frame `d`. `None`:
    /// a frame after a `...`, which must match some frame (or one the log hides).
    depth: Option<usize>,
    key: Key<'a>,
}

/// The frames of a rule that may anchor it, with their index in the rule: its leading
/// concrete frames (before any `...`) at their depth, and every frame after a `...`
/// anywhere.
fn anchors(rule: &Rule) -> Vec<(usize, Anchor<'_>)> {
    let first_star = rule
        .frames
        .iter()
        .position(|p| matches!(p, Pattern::Ellipsis))
        .unwrap_or(rule.frames.len());
    let fixed = rule.frames[..first_star]
        .iter()
        .take(MAX_ANCHOR_DEPTH)
        .enumerate()
        .filter_map(|(d, p)| {
            key_of(p).map(|key| {
                (
                    d,
                    Anchor {
                        depth: Some(d),
                        key,
                    },
                )
            })
        });
    let anywhere = rule
        .frames
        .iter()
        .enumerate()
        .skip(first_star + 1)
        .filter_map(|(i, p)| key_of(p).map(|key| (i, Anchor { depth: None, key })));
    fixed.chain(anywhere).collect()
}

/// How many candidates an anchor is expected to bring, relative to others: the rules that
/// share its key (they come together), weighed by how often such a key meets an error. A
/// frame anywhere is compared with every frame of the error; a prefix admits more names
/// than a literal; objects are hidden more often than function names (then every object
/// anchor is a candidate).
fn cost(anchor: &Anchor<'_>, sharing: usize) -> usize {
    let mut w = sharing;
    if anchor.depth.is_none() {
        w *= 4;
    }
    if anchor.key.prefix {
        w *= 8;
    }
    if anchor.key.table != Table::Fun {
        w *= 2;
    }
    w
}

#[derive(Debug, Default, Clone)]
struct Bucket {
    /// Anchors at a fixed depth from the top frame (rules without leading `...`).
    at: Vec<Anchors>,
    /// Anchors after a `...`: they may match any frame.
    anywhere: Anchors,
    other: Vec<u32>,
}

/// Where a rule is keyed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Nowhere: a candidate for every error of its kind.
    #[default]
    Nowhere,
    /// On a frame at a depth.
    At,
    /// On a frame anywhere.
    Anywhere,
    /// On both: a candidate only when both say it may match.
    Both,
}

/// The index over a rule set.
#[derive(Debug, Default, Clone)]
pub struct Index {
    /// Per tool (in `Tool::ALL` order), per error kind.
    buckets: [HashMap<Vec<u8>, Bucket>; 3],
    /// Where each rule is keyed, by id.
    placement: Vec<Placement>,
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
    /// Index `rules`. A rule is keyed on the most selective of the frames any match must
    /// contain (the key fewest rules share, weighed by [`cost`]): one of its first
    /// concrete frames at its depth, and a frame after a `...` anywhere. With both, it is a
    /// candidate only when both may match; so a set in which every rule starts with
    /// `fun:malloc`, `fun:*alloc` or `...` is still split by the frames below.
    #[must_use]
    pub fn new(rules: &[Rule]) -> Self {
        let mut idx = Self::default();
        let mut counts: HashMap<Anchor<'_>, usize> = HashMap::default();
        for rule in rules {
            for (_, a) in anchors(rule) {
                *counts.entry(a).or_default() += 1;
            }
        }
        for (i, rule) in rules.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            let all = anchors(rule);
            // The cheapest of each kind; among equals, the shallowest.
            let best = |at_depth: bool| {
                all.iter()
                    .filter(|(_, a)| a.depth.is_some() == at_depth)
                    .min_by_key(|(at, a)| (cost(a, counts.get(a).copied().unwrap_or(0)), *at))
                    .map(|&(at, a)| (at, a))
            };
            let (fixed, anywhere) = (best(true), best(false));
            let mut placement = Placement::Nowhere;
            for key in kind_keys(rule) {
                let b = idx.buckets[slot(rule.tool)]
                    .entry(key.to_vec())
                    .or_default();
                let at = fixed.is_some_and(|(at, a)| {
                    let d = a.depth.unwrap_or(0);
                    if b.at.len() <= d {
                        b.at.resize_with(d + 1, Anchors::default);
                    }
                    b.at[d].add(&rule.frames[at], id)
                });
                let anywhere = anywhere.is_some_and(|(at, _)| b.anywhere.add(&rule.frames[at], id));
                placement = match (at, anywhere) {
                    (true, true) => Placement::Both,
                    (true, false) => Placement::At,
                    (false, true) => Placement::Anywhere,
                    (false, false) => {
                        b.other.push(id);
                        Placement::Nowhere
                    }
                };
            }
            idx.placement.push(placement);
        }
        idx
    }

    /// Ids of the rules of `tool` that may match `input` (sorted, without duplicates).
    #[must_use]
    pub fn candidates(&self, tool: Tool, input: &MatchInput) -> Vec<u32> {
        self.candidates_in(tool, input, &mut Scratch::default())
    }

    /// [`Index::candidates`], keeping what a large set of objects gives in `scratch`.
    pub(crate) fn candidates_in(
        &self,
        tool: Tool,
        input: &MatchInput,
        scratch: &mut Scratch,
    ) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(b) = self.buckets[slot(tool)].get(input.kind.kind.as_bytes()) else {
            return out;
        };
        let mut at = Vec::new();
        for (depth, anchors) in b.at.iter().enumerate() {
            match input.frames.get(depth) {
                Some(f) => anchors.lookup(f, &mut at, scratch),
                // Beyond the frames shown: only an open-ended input can still match.
                None if input.open_ended => anchors.all(&mut at),
                None => {}
            }
        }
        let mut anywhere = Vec::new();
        if input.open_ended {
            // The anchor may be among the frames the log hides.
            b.anywhere.all(&mut anywhere);
        } else {
            let mut prev: Option<&InputFrame> = None;
            // The sets of objects looked up (by address: the input holds them).
            let mut sets: Vec<usize> = Vec::new();
            for f in &input.frames {
                // Consecutive frames often share an object, and frames far apart the same
                // set of candidate objects: look each up once.
                let mut new_obj = prev.is_none_or(|p| !same_object(&p.obj, &f.obj));
                if let (true, Known::OneOf(set)) = (new_obj, &f.obj) {
                    let at = Scratch::set_id(set);
                    new_obj = !sets.contains(&at);
                    if new_obj {
                        sets.push(at);
                    }
                }
                b.anywhere.lookup_frame(f, new_obj, &mut anywhere, scratch);
                prev = Some(f);
            }
        }
        at.sort_unstable();
        at.dedup();
        anywhere.sort_unstable();
        anywhere.dedup();
        // A rule keyed twice is a candidate only when both of its keys say so.
        let placement = |id: u32| self.placement.get(id as usize).copied();
        out.extend_from_slice(&b.other);
        out.extend(at.iter().copied().filter(|&id| {
            placement(id) != Some(Placement::Both) || anywhere.binary_search(&id).is_ok()
        }));
        out.extend(
            anywhere
                .iter()
                .copied()
                .filter(|&id| placement(id) == Some(Placement::Anywhere)),
        );
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::input::{ErrorKind, SrcInfo};
    use crate::matcher::{RuleFile, RuleSet, Truth};
    use crate::supp::kinds::Version;
    use proptest::prelude::*;

    /// `fun:` patterns: literals (C, mangled with a unique display, a constructor that has
    /// twins), prefixes, suffix and `?` globs, `*`.
    const FUNS: &[&str] = &[
        "malloc",
        "calloc",
        "foo",
        "bar",
        "main",
        "_ZN3foo3barEv",
        "_ZN3fooC1Ev",
        "_ZN3foo*",
        "*alloc",
        "?alloc",
        "ma*",
        "*",
    ];
    /// `obj:` patterns: literal paths, a component glob, a prefix, a suffix-only glob, `*`.
    const OBJS: &[&str] = &[
        "/usr/lib/libc.so.6",
        "/opt/libx.so.1",
        "*/libx.so*",
        "/usr/*",
        "*.so.6",
        "*",
    ];

    fn pattern_line() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => Just("...".to_owned()),
            5 => proptest::sample::select(FUNS).prop_map(|f| format!("fun:{f}")),
            3 => proptest::sample::select(OBJS).prop_map(|o| format!("obj:{o}")),
            1 => Just("src:f.c:3".to_owned()),
        ]
    }

    /// A rule file: each rule a kind and up to 12 frames (so some anchors lie deep).
    fn rules() -> impl Strategy<Value = String> {
        let rule = (
            proptest::sample::select(&["Addr4", "Leak", "Cond"][..]),
            proptest::collection::vec(pattern_line(), 1..12),
        );
        proptest::collection::vec(rule, 1..24).prop_map(|rules| {
            let mut s = String::new();
            for (i, (kind, frames)) in rules.iter().enumerate() {
                s.push_str(&format!("{{\n r{i}\n Memcheck:{kind}\n"));
                for f in frames {
                    s.push_str(&format!(" {f}\n"));
                }
                s.push_str("}\n");
            }
            s
        })
    }

    fn name() -> impl Strategy<Value = Known<Vec<u8>>> {
        let shown = |s: &str| s.as_bytes().to_vec();
        prop_oneof![
            6 => proptest::sample::select(&["malloc", "calloc", "foo", "bar", "main", "_ZN3foo3barEv", "_ZN3fooC1Ev", "baz"][..])
                .prop_map(|n| Known::Yes(n.as_bytes().to_vec())),
            2 => (proptest::sample::select(&["foo::bar()", "foo::foo()", "qux::f(int)", "_ZN3weird"][..]), any::<bool>())
                .prop_map(move |(d, maybe_inlined)| Known::Demangled { shown: shown(d), maybe_inlined }),
            1 => Just(Known::Unknown),
        ]
    }

    fn object() -> impl Strategy<Value = Known<Vec<u8>>> {
        // Sorted, as sets of candidate objects are; sets of 8 or more are kept by a scratch.
        let paths = &[
            "/home/a.out",
            "/opt/a/liby.so",
            "/opt/b/libz.so.2",
            "/opt/libx.so.1",
            "/opt/sub/libx.so",
            "/usr/lib/libc.so.6",
            "/usr/lib/libm.so.6",
            "/usr/lib/libx.so.3",
            "/usr/local/lib/libq.so",
        ][..];
        prop_oneof![
            5 => proptest::sample::select(&paths[..6]).prop_map(|p| Known::Yes(p.as_bytes().to_vec())),
            2 => proptest::sample::subsequence(paths, 2..=9).prop_map(|ps| {
                Known::OneOf(ps.iter().map(|p| p.as_bytes().to_vec()).collect::<Vec<_>>().into())
            }),
            1 => Just(Known::Unknown),
        ]
    }

    fn input() -> impl Strategy<Value = MatchInput> {
        let frame = (name(), object()).prop_map(|(fun, obj)| InputFrame {
            fun,
            obj,
            src: Known::Yes(SrcInfo::At(b"f.c".to_vec(), 3)),
        });
        (
            proptest::sample::select(&["Addr4", "Leak", "Cond"][..]),
            proptest::collection::vec(frame, 0..14),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(kind, frames, open_ended, below_main)| MatchInput {
                kind: ErrorKind {
                    kind: kind.to_owned(),
                    leak: (kind == "Leak").then_some(crate::supp::model::LeakKind::Definite),
                    ..ErrorKind::default()
                },
                frames,
                open_ended,
                hidden_below_main: open_ended && below_main,
                demangled_names: true,
            })
    }

    /// The rules Valgrind would load (records it refuses, such as a `Leak` whose first
    /// frame is `src:`, are left out).
    fn load(text: &str) -> RuleSet {
        RuleSet::load_recovering(
            vec![RuleFile {
                path: "r.supp".into(),
                source: text.as_bytes().to_vec(),
            }],
            &[Tool::Memcheck],
            Version::new(19).expect("3.19"),
            500,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The index never drops a rule that matches or may match: every rule whose verdict
        /// is not `No` (checked against every rule) is a candidate. What a scratch kept
        /// across the inputs changes nothing.
        #[test]
        fn candidates_hold_every_rule_that_may_match(text in rules(), inputs in proptest::collection::vec(input(), 1..6)) {
            let set = load(&text);
            let mut kept = Scratch::across_inputs();
            // Inputs again, sharing their sets of objects with the first ones.
            let again: Vec<MatchInput> = inputs.iter().rev().cloned().collect();
            for input in inputs.iter().chain(&again) {
                let cands = set.candidates(Tool::Memcheck, input);
                prop_assert_eq!(&set.index.candidates_in(Tool::Memcheck, input, &mut kept), &cands);
                prop_assert_eq!(set.all_matches_in(Tool::Memcheck, input, &mut kept), set.all_matches(Tool::Memcheck, input));
                prop_assert!(cands.is_sorted() && cands.windows(2).all(|w| w[0] != w[1]));
                for id in 0..u32::try_from(set.rules.len()).expect("few") {
                    if set.rule_matches(id, input) != Truth::No {
                        prop_assert!(cands.binary_search(&id).is_ok(), "rule {id} dropped for {input:?}\n{text}");
                    }
                }
            }
        }
    }

    fn set_of(rules: &[&str]) -> RuleSet {
        let mut s = String::new();
        for (i, r) in rules.iter().enumerate() {
            s.push_str(&format!("{{\n r{i}\n Memcheck:Leak\n"));
            for f in r.split(' ') {
                s.push_str(&format!(" {f}\n"));
            }
            s.push_str("}\n");
        }
        load(&s)
    }

    fn leak(frames: &[(&str, &str)], open_ended: bool) -> MatchInput {
        MatchInput {
            kind: ErrorKind {
                kind: "Leak".into(),
                leak: Some(crate::supp::model::LeakKind::Definite),
                ..ErrorKind::default()
            },
            frames: frames
                .iter()
                .map(|(f, o)| InputFrame {
                    fun: Known::Yes(f.as_bytes().to_vec()),
                    obj: Known::Yes(o.as_bytes().to_vec()),
                    src: Known::Yes(SrcInfo::None),
                })
                .collect(),
            open_ended,
            hidden_below_main: open_ended,
            demangled_names: false,
        }
    }

    /// Real rule sets lead with `fun:*alloc`, `fun:malloc` or `...`: such rules are keyed
    /// on a frame below, and a rule keyed on a frame at a depth and one anywhere is a
    /// candidate only when both may match.
    #[test]
    fn rules_are_split_by_the_frames_below_their_first() {
        let set = set_of(&[
            "fun:*alloc ... fun:g_type_register_static",
            "fun:malloc ... fun:XOpenDisplay",
            "fun:malloc_zone_?alloc ... fun:_read_images",
            "... obj:*/libX11.so*",
            "fun:*alloc fun:* fun:* fun:* fun:* fun:* fun:* fun:* fun:* fun:* fun:snd_config_load1",
        ]);
        let stack = |top: &str, below: &str| {
            leak(
                &[
                    (
                        top,
                        "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so",
                    ),
                    ("f", "/opt/libx.so"),
                    (below, "/opt/libx.so"),
                ],
                false,
            )
        };
        let cands = |i: &MatchInput| set.candidates(Tool::Memcheck, i);
        assert!(cands(&stack("malloc", "other")).is_empty());
        assert_eq!(cands(&stack("calloc", "g_type_register_static")), [0]);
        assert_eq!(cands(&stack("malloc", "XOpenDisplay")), [1]);
        assert_eq!(cands(&stack("malloc_zone_malloc", "_read_images")), [2]);
        let mut x11 = stack("malloc", "other");
        x11.frames[2].obj = Known::Yes(b"/usr/lib/libX11.so.6".to_vec());
        assert_eq!(cands(&x11), [3]);
        // Open-ended: any frame after a `...` may be hidden, and so may the frame at depth
        // 10; but the frame at depth 0 is shown and decides.
        let mut open = stack("malloc", "other");
        open.open_ended = true;
        assert_eq!(cands(&open), [0, 1, 3, 4]);
        open.frames[0].fun = Known::Yes(b"free".to_vec());
        assert_eq!(cands(&open), [0, 3, 4]);
        // The deep literal keys the rule of ten frames.
        let mut deep: Vec<(&str, &str)> = vec![("malloc", "/o"); 10];
        deep.push(("snd_config_load1", "/o"));
        assert_eq!(cands(&leak(&deep, false)), [4]);
        deep[10].0 = "other";
        assert!(cands(&leak(&deep, false)).is_empty());
    }

    /// A frame the log shows demangled is looked up by its display; one whose object is
    /// one of several is looked up under each.
    #[test]
    fn demangled_names_and_object_sets_find_their_rules() {
        let set = set_of(&[
            "fun:malloc ... fun:_ZN3foo3barEv",
            "fun:malloc ... obj:/opt/libx.so.1",
            "fun:malloc ... fun:_ZN3baz*",
        ]);
        let mut i = leak(&[("malloc", "/a"), ("f", "/b")], false);
        assert!(set.candidates(Tool::Memcheck, &i).is_empty());
        i.frames[1].fun = Known::Demangled {
            shown: b"foo::bar()".to_vec(),
            maybe_inlined: false,
        };
        // Its display, and the mangled prefix that may demangle to anything.
        assert_eq!(set.candidates(Tool::Memcheck, &i), [0, 2]);
        i.frames[1].fun = Known::Demangled {
            shown: b"qux::f()".to_vec(),
            maybe_inlined: false,
        };
        assert_eq!(set.candidates(Tool::Memcheck, &i), [2]);
        i.frames[1].obj = Known::OneOf(vec![b"/a".to_vec(), b"/opt/libx.so.1".to_vec()].into());
        assert_eq!(set.candidates(Tool::Memcheck, &i), [1, 2]);
        i.frames[1].obj = Known::Unknown;
        assert_eq!(set.candidates(Tool::Memcheck, &i), [1, 2]);
    }
}
