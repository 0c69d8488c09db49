//! What the matcher said about each distinct error input, kept so that an error seen again
//! is not matched again.
//!
//! Which rules match an error, and which facts the undecided ones need, depend only on the
//! error's [`MatchInput`] and the tool's rule set, so a repeated input has the same answer:
//! reusing it is exact. Real logs repeat a lot — the same leak stack in many loss records
//! (a 137 MB torch log has 19,908 errors and 4,757 distinct inputs), the same error in every
//! process of a test suite — and matching one input against ~3,000 real rules costs far more
//! than looking it up.
//!
//! A key is the input's kind data and its frames, each frame written as the numbers of its
//! function, object and source facts in interning tables (a 60-frame stack is a 720-byte
//! key, not a copy of its names). A set of candidate objects ([`Known::OneOf`]) can hold
//! hundreds of paths and is shared by many frames: it is numbered by its contents once per
//! allocation, then found by address (the cache keeps each such set alive, so an address
//! it knows is never reused for another set). Memory is bounded: past [`BUDGET`] bytes of
//! keys, facts and answers, everything is dropped and the cache fills again.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::matcher::input::{InputFrame, Known, MatchInput, SrcInfo};
use crate::matcher::stack::Scratch;
use crate::replay::credit::{Candidates, RuleId};
use crate::replay::evidence::Why;
use crate::supp::kinds::Tool;

/// What the matcher says about one input: the rules that match or may match it, and for
/// each that may, the facts it needs that the log hides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Matched {
    /// Rules that surely match and rules that may match, each in load order.
    pub(crate) cands: Candidates,
    /// For each rule of `cands.maybe`, in the same order: why its verdict is unknown.
    pub(crate) maybe_why: Vec<(RuleId, Why)>,
}

impl Matched {
    /// Why rule `id` (one of `cands.maybe`) is undecided; `None` for a rule that surely
    /// matches.
    pub(crate) fn why_maybe(&self, id: RuleId) -> Option<Why> {
        self.maybe_why
            .binary_search_by_key(&id, |&(m, _)| m)
            .ok()
            .map(|at| self.maybe_why[at].1)
    }

    fn bytes(&self) -> usize {
        size_of::<Self>()
            + 4 * (self.cands.yes.len() + self.cands.maybe.len())
            + size_of::<(RuleId, Why)>() * self.maybe_why.len()
    }
}

/// How many bytes the cache may hold (keys, interned frames and answers, with an estimate
/// of the tables' own overhead) before it starts over. Well inside the 100 MB a `match`
/// run is held to; enough for every distinct input of the torch fixture.
pub(crate) const BUDGET: usize = 16 << 20;

/// Bytes a table entry costs besides what it points to (hash, control byte, alignment).
const ENTRY_OVERHEAD: usize = 32;

/// Facts numbered by their contents.
#[derive(Debug)]
struct Numbers<T> {
    ids: HashMap<T, u32>,
}

impl<T> Default for Numbers<T> {
    fn default() -> Self {
        Self {
            ids: HashMap::default(),
        }
    }
}

impl<T: std::hash::Hash + Eq + Clone> Numbers<T> {
    /// The number of `fact`, and the bytes a new entry costs (0 if it was known).
    fn id(&mut self, fact: &T, bytes: impl FnOnce(&T) -> usize) -> (u32, usize) {
        if let Some(&id) = self.ids.get(fact) {
            return (id, 0);
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(fact.clone(), id);
        (id, bytes(fact) + ENTRY_OVERHEAD)
    }
}

/// The cache of one log's replay (all of its processes and tools).
#[derive(Debug)]
pub(crate) struct MatchCache {
    funs: Numbers<Known<Vec<u8>>>,
    objs: Numbers<Known<Vec<u8>>>,
    srcs: Numbers<Known<SrcInfo>>,
    /// Sets of objects by address, and the sets themselves (kept alive while here).
    set_addrs: HashMap<usize, u32>,
    pinned: Vec<Arc<[Vec<u8>]>>,
    /// What the matcher keeps about those sets from input to input: valid while they are
    /// pinned here, so dropped with them.
    scratch: Scratch,
    answers: HashMap<Box<[u8]>, Arc<Matched>>,
    bytes: usize,
    budget: usize,
    /// The key being built (kept to reuse its allocation).
    key: Vec<u8>,
    hits: u64,
    misses: u64,
}

impl Default for MatchCache {
    fn default() -> Self {
        Self::with_budget(BUDGET)
    }
}

impl MatchCache {
    /// A cache that starts over past `budget` bytes.
    pub(crate) fn with_budget(budget: usize) -> Self {
        Self {
            funs: Numbers::default(),
            objs: Numbers::default(),
            srcs: Numbers::default(),
            set_addrs: HashMap::default(),
            pinned: Vec::new(),
            scratch: Scratch::across_inputs(),
            answers: HashMap::default(),
            bytes: 0,
            budget,
            key: Vec::new(),
            hits: 0,
            misses: 0,
        }
    }

    /// The answer for `input` under `tool`'s rules: the one kept for an equal input, or
    /// what `compute` returns (then kept). `compute` may keep what it learns of the
    /// input's sets of objects in the scratch it is given, for later inputs: those sets
    /// are kept alive while the scratch is.
    pub(crate) fn get_or_insert_with(
        &mut self,
        tool: Tool,
        input: &MatchInput,
        compute: impl FnOnce(&mut Scratch) -> Matched,
    ) -> Arc<Matched> {
        if self.bytes + self.scratch.bytes() > self.budget {
            // Numbers are only meaningful with their tables: drop everything.
            let (hits, misses) = (self.hits, self.misses);
            *self = Self::with_budget(self.budget);
            (self.hits, self.misses) = (hits, misses);
        }
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        self.encode(tool, input, &mut key);
        let answer = if let Some(m) = self.answers.get(key.as_slice()) {
            self.hits += 1;
            Arc::clone(m)
        } else {
            self.misses += 1;
            let m = Arc::new(compute(&mut self.scratch));
            self.bytes += key.len() + m.bytes() + ENTRY_OVERHEAD;
            self.answers.insert(key.as_slice().into(), Arc::clone(&m));
            m
        };
        self.key = key;
        answer
    }

    /// How many inputs were answered from the cache and how many were matched.
    #[cfg(test)]
    pub(crate) const fn stats(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// The numbers of `frame`'s facts, each added to its table if new.
    fn frame_ids(&mut self, frame: &InputFrame) -> [u32; 3] {
        let (fun, a) = self.funs.id(&frame.fun, known_bytes);
        let (src, b) = self.srcs.id(&frame.src, src_bytes);
        self.bytes += a + b;
        let obj = match &frame.obj {
            Known::OneOf(set) => {
                let addr = Arc::as_ptr(set).cast::<u8>().addr();
                if let Some(&id) = self.set_addrs.get(&addr) {
                    id
                } else {
                    // Numbered by its contents (another allocation of the same set gets
                    // the same number), then known by its address, kept alive here.
                    let (id, c) = self.objs.id(&frame.obj, known_bytes);
                    self.pinned.push(Arc::clone(set));
                    self.set_addrs.insert(addr, id);
                    self.bytes += c + known_bytes(&frame.obj) + ENTRY_OVERHEAD;
                    id
                }
            }
            other => {
                let (id, c) = self.objs.id(other, known_bytes);
                self.bytes += c;
                id
            }
        };
        [fun, obj, src]
    }

    /// Write a key that equals another input's exactly when the inputs are equal: every
    /// variable-length field is preceded by its length.
    fn encode(&mut self, tool: Tool, input: &MatchInput, key: &mut Vec<u8>) {
        let MatchInput {
            kind,
            frames,
            open_ended,
            hidden_below_main,
            demangled_names,
        } = input;
        key.push(match tool {
            Tool::Memcheck => 0,
            Tool::Helgrind => 1,
            Tool::Drd => 2,
        });
        bytes(key, kind.kind.as_bytes());
        key.push(kind.leak.map_or(0, |k| 1 + k as u8));
        match &kind.param {
            Some(p) => {
                key.push(1);
                bytes(key, p);
            }
            None => key.push(0),
        }
        match &kind.fishy {
            Some((f, a)) => {
                key.push(1);
                bytes(key, f);
                bytes(key, a);
            }
            None => key.push(0),
        }
        key.push(
            u8::from(*open_ended)
                | (u8::from(*demangled_names) << 1)
                | (u8::from(*hidden_below_main) << 2),
        );
        len(key, frames.len());
        for f in frames {
            for id in self.frame_ids(f) {
                key.extend_from_slice(&id.to_le_bytes());
            }
        }
    }
}

fn len(key: &mut Vec<u8>, n: usize) {
    key.extend_from_slice(&u64::try_from(n).unwrap_or(u64::MAX).to_le_bytes());
}

fn bytes(key: &mut Vec<u8>, b: &[u8]) {
    len(key, b.len());
    key.extend_from_slice(b);
}

/// The heap bytes of a name, a path or a set of them, roughly.
fn known_bytes(k: &Known<Vec<u8>>) -> usize {
    match k {
        Known::Yes(v) => v.len(),
        Known::OneOf(vs) => vs.iter().map(|v| v.len() + 24).sum(),
        Known::Demangled { shown, .. } => shown.len(),
        Known::Unknown => 0,
    }
}

/// The heap bytes of a source fact, roughly.
fn src_bytes(k: &Known<SrcInfo>) -> usize {
    let one = |s: &SrcInfo| match s {
        SrcInfo::At(file, _) => file.len() + 32,
        SrcInfo::None => 32,
    };
    match k {
        Known::Yes(s) => one(s),
        Known::OneOf(vs) => vs.iter().map(one).sum(),
        Known::Demangled { .. } | Known::Unknown => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::input::ErrorKind;
    use crate::supp::model::LeakKind;

    fn frame(fun: &str) -> InputFrame {
        InputFrame {
            fun: Known::Yes(fun.as_bytes().to_vec()),
            obj: Known::Yes(b"/lib/x.so".to_vec()),
            src: Known::Yes(SrcInfo::None),
        }
    }

    fn input(kind: &str, funs: &[&str]) -> MatchInput {
        MatchInput {
            kind: ErrorKind {
                kind: kind.to_owned(),
                ..ErrorKind::default()
            },
            frames: funs.iter().map(|f| frame(f)).collect(),
            ..MatchInput::default()
        }
    }

    fn answer(id: RuleId) -> Matched {
        Matched {
            cands: Candidates {
                yes: vec![id],
                maybe: Vec::new(),
            },
            maybe_why: Vec::new(),
        }
    }

    /// Every field of the input is part of the key: inputs that differ anywhere get their
    /// own answers, equal inputs share one.
    #[test]
    fn equal_inputs_share_an_answer_and_different_ones_do_not() {
        let base = input("Addr4", &["f", "main"]);
        let mut variants = vec![base.clone()];
        let mut v = base.clone();
        v.kind.kind = "Addr8".into();
        variants.push(v);
        let mut v = base.clone();
        v.kind.leak = Some(LeakKind::Definite);
        variants.push(v);
        let mut v = base.clone();
        v.kind.leak = Some(LeakKind::Reachable);
        variants.push(v);
        let mut v = base.clone();
        v.kind.param = Some(b"write(buf)".to_vec());
        variants.push(v);
        let mut v = base.clone();
        v.kind.fishy = Some((b"malloc".to_vec(), b"size".to_vec()));
        variants.push(v);
        let mut v = base.clone();
        // The same bytes split differently between the two fishy fields.
        v.kind.fishy = Some((b"mallocs".to_vec(), b"ize".to_vec()));
        variants.push(v);
        let mut v = base.clone();
        v.open_ended = true;
        variants.push(v);
        let mut v = base.clone();
        v.demangled_names = true;
        variants.push(v);
        let mut v = base.clone();
        v.frames.pop();
        variants.push(v);
        let mut v = base.clone();
        v.frames.swap(0, 1);
        variants.push(v);
        let mut v = base.clone();
        v.frames[1].obj = Known::Unknown;
        variants.push(v);
        let mut v = base.clone();
        v.frames[1].obj = Known::OneOf(vec![b"/a".to_vec(), b"/b".to_vec()].into());
        variants.push(v);
        let mut v = base.clone();
        v.frames[0].fun = Known::Demangled {
            shown: b"f".to_vec(),
            maybe_inlined: false,
        };
        variants.push(v);
        let mut v = base.clone();
        v.frames[0].src = Known::Yes(SrcInfo::At(b"f.c".to_vec(), 3));
        variants.push(v);

        let mut cache = MatchCache::default();
        for (i, v) in variants.iter().enumerate() {
            let id = RuleId::try_from(i).expect("small");
            let got = cache.get_or_insert_with(Tool::Memcheck, v, |_| answer(id));
            assert_eq!(
                got.cands.yes,
                [id],
                "variant {i} answered as another: {v:?}"
            );
        }
        assert_eq!(cache.stats(), (0, variants.len() as u64));
        // Asked again (a fresh copy of each): every answer comes from the cache.
        for (i, v) in variants.iter().enumerate() {
            let id = RuleId::try_from(i).expect("small");
            let got = cache.get_or_insert_with(Tool::Memcheck, &v.clone(), |_| answer(999));
            assert_eq!(got.cands.yes, [id]);
        }
        assert_eq!(cache.stats().0, variants.len() as u64);
        // Another tool's rules give other answers.
        let got = cache.get_or_insert_with(Tool::Helgrind, &base, |_| answer(777));
        assert_eq!(got.cands.yes, [777]);
    }

    /// A set of candidate objects is known by its address once numbered: another
    /// allocation of the same set gets the same number, a set with other contents another.
    #[test]
    fn object_sets_are_numbered_by_contents_and_found_by_address() {
        let set = |paths: &[&str]| -> Known<Vec<u8>> {
            Known::OneOf(
                paths
                    .iter()
                    .map(|p| p.as_bytes().to_vec())
                    .collect::<Vec<_>>()
                    .into(),
            )
        };
        let with = |obj: Known<Vec<u8>>| {
            let mut i = input("Leak", &["malloc", "f"]);
            i.frames[1].obj = obj;
            i
        };
        let mut cache = MatchCache::default();
        let a = with(set(&["/a", "/b"]));
        assert_eq!(
            cache
                .get_or_insert_with(Tool::Memcheck, &a, |_| answer(1))
                .cands
                .yes,
            [1]
        );
        // The same allocation, and another with the same paths: the same answer.
        assert_eq!(
            cache
                .get_or_insert_with(Tool::Memcheck, &a.clone(), |_| answer(2))
                .cands
                .yes,
            [1]
        );
        let b = with(set(&["/a", "/b"]));
        assert_eq!(
            cache
                .get_or_insert_with(Tool::Memcheck, &b, |_| answer(3))
                .cands
                .yes,
            [1]
        );
        // Other paths: another answer, even once the first sets are gone.
        drop((a, b));
        for paths in [&["/a", "/c"][..], &["/a", "/b", "/c"], &["/b", "/a"]] {
            let c = with(set(paths));
            assert_eq!(
                cache
                    .get_or_insert_with(Tool::Memcheck, &c, |_| answer(4))
                    .cands
                    .yes,
                [4],
                "{paths:?}"
            );
            let fresh = MatchCache::default().get_or_insert_with(Tool::Memcheck, &c, |_| answer(4));
            assert_eq!(fresh.cands.yes, [4]);
        }
        assert_eq!(cache.stats(), (2, 4));
    }

    #[test]
    fn the_budget_bounds_memory_and_answers_stay_right() {
        let mut cache = MatchCache::with_budget(4096);
        for round in 0..3 {
            for i in 0..200u32 {
                let name = format!("f{i}");
                let got = cache.get_or_insert_with(
                    Tool::Memcheck,
                    &input("Addr4", &[name.as_str(), "main"]),
                    |_| answer(i),
                );
                assert_eq!(got.cands.yes, [i], "round {round}");
                assert!(cache.bytes <= 4096 + 1024, "{} bytes", cache.bytes);
            }
        }
    }

    #[test]
    fn why_maybe_finds_each_undecided_rule() {
        let m = Matched {
            cands: Candidates {
                yes: vec![2],
                maybe: vec![1, 5, 9],
            },
            maybe_why: vec![(1, Why::OBJECT), (5, Why::FRAMES), (9, Why::NAME)],
        };
        assert_eq!(m.why_maybe(5), Some(Why::FRAMES));
        assert_eq!(m.why_maybe(9), Some(Why::NAME));
        assert_eq!(m.why_maybe(2), None);
    }
}
