//! Objects of frames that a text log prints with a source line (`fn (file.c:12)`), and so
//! without their object, inferred from the frames that do show one (issue 9 item 3).
//!
//! The facts used, each checked in Valgrind 3.19's source (`m_debuginfo/debuginfo.c`) or
//! by experiment (tests/data/objects/):
//!
//! * `obj:` compares with `VG_(get_objname)`: the object whose text range holds the IP, or,
//!   at the current epoch only, the file of the mapping that holds it.
//! * An object is mapped as one contiguous reservation (the dynamic loader maps all of its
//!   segments inside one), and mappings alive at the same time never overlap.
//! * All frames of one stack are resolved at that stack's epoch.
//! * A frame with a source line has debug info: Valgrind found a `DebugInfo` whose text
//!   holds its IP. Without `--keep-debuginfo=yes`, an unloaded object's `DebugInfo` is
//!   freed (`Discarding syms at …`), so every frame printed with a source line or an
//!   object lies in an object loaded **when the stack is printed**.
//! * With `-v`, `Reading syms from PATH` is printed for every object whose symbols are
//!   read, and `Discarding syms at A-B in PATH` for every one that is unloaded.
//!
//! Hence two kinds of evidence:
//!
//! 1. **Within one stack** (always sound, one mapping per object at a time assumed): an IP
//!    between two IPs of the same stack that show the same object is in that object.
//! 2. **Across the process**, only when the log lists every load and unload (`-v`, from
//!    the process's start, `--keep-debuginfo=no`): the objects loaded *now* are known, and
//!    each one's observed IPs (frames that show it) bound its reservation. An IP inside an
//!    object's observed extent is in it; an object whose extent lies beyond another
//!    object's observed IP is not. What is left is a closed set of candidates: the nearest
//!    observed objects on either side and every loaded object never observed.
//!
//! Whatever contradicts the model (an object observed after it was unloaded, two observed
//! extents that overlap) switches the map to within-stack evidence for good.

use std::collections::BTreeMap;
use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::logs::record::{ErrorRecord, GenFrame, Stack};
use crate::matcher::input::Known;

type PathId = u32;

/// Candidate sets by (left, right) observed neighbour.
type CandidateCache = FxHashMap<(Option<PathId>, Option<PathId>), Known<Vec<u8>>>;

/// What one entry of the address index says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    /// Last observed address (inclusive); the key is the first.
    hi: u64,
    path: PathId,
    /// An extent of a loaded object (`true`), or one observed IP of a mapping that may not
    /// be contiguous with its other IPs (a file with no symbols read, or an object loaded
    /// twice): it only separates.
    extent: bool,
}

/// Per-path facts.
#[derive(Debug, Clone, Default)]
struct PathState {
    /// Loaded now, how many times (`Reading syms from` minus `Discarding syms`).
    alive: u32,
    /// It was loaded at some time.
    ever_loaded: bool,
    /// Key of its extent in the index, while it is loaded once and observed.
    extent: Option<u64>,
    /// It has separator points in the index.
    points: bool,
}

/// The objects of one process, fed in log order (see the module documentation).
///
/// Feed it [`ObjectMap::observe_loaded`] and [`ObjectMap::observe_unloaded`] for the
/// process's `Reading syms` / `Discarding syms` lines, and [`ObjectMap::observe`] for every
/// error (before preparing that error's matcher input, so that its own frames count).
#[derive(Debug, Default)]
pub struct ObjectMap {
    /// Loads and unloads are listed (cross-stack evidence allowed).
    listed: bool,
    paths: Vec<Vec<u8>>,
    ids: FxHashMap<Vec<u8>, PathId>,
    state: Vec<PathState>,
    index: BTreeMap<u64, Entry>,
    /// Candidate sets by (left, right) neighbour, valid until the next change.
    candidates: Mutex<CandidateCache>,
}

impl ObjectMap {
    /// A map for a log that does not list loads (no `-v`, an excerpt, a forked child, or
    /// `--keep-debuginfo=yes`): only within-stack evidence.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A map for a process whose log lists every load and unload from its start: `-v`,
    /// the process's preamble read, and `--keep-debuginfo=no` (the default; its options
    /// are printed with `-v`).
    #[must_use]
    pub fn with_loads_listed() -> Self {
        Self {
            listed: true,
            ..Self::default()
        }
    }

    /// Whether cross-stack evidence is in use (loads listed and nothing contradicted).
    #[must_use]
    pub const fn loads_listed(&self) -> bool {
        self.listed
    }

    fn id(&mut self, path: &[u8]) -> PathId {
        if let Some(&id) = self.ids.get(path) {
            return id;
        }
        let id = PathId::try_from(self.paths.len()).unwrap_or(PathId::MAX);
        self.paths.push(path.to_vec());
        self.ids.insert(path.to_vec(), id);
        self.state.push(PathState::default());
        id
    }

    fn changed(&mut self) {
        if let Ok(c) = self.candidates.get_mut() {
            c.clear();
        }
    }

    /// The evidence contradicts the model: keep only within-stack evidence.
    fn give_up(&mut self) {
        self.listed = false;
        self.index.clear();
        self.changed();
    }

    /// `Reading syms from PATH`: `path` was loaded.
    pub fn observe_loaded(&mut self, path: &[u8]) {
        if !self.listed {
            return;
        }
        let id = self.id(path);
        let st = &mut self.state[id as usize];
        st.alive += 1;
        st.ever_loaded = true;
        if st.alive > 1
            && let Some(key) = st.extent.take()
        {
            // Two copies loaded: IPs can no longer be told apart by copy. The old extent
            // stays as a separator (that copy is still loaded).
            st.points = true;
            if let Some(e) = self.index.get_mut(&key) {
                e.extent = false;
            }
        }
        self.changed();
    }

    /// `Discarding syms at START-END in PATH`: `path` was unloaded (END as printed: one
    /// past its text). A range of `0x0-0x0` (an object whose symbols were never read)
    /// changes nothing.
    pub fn observe_unloaded(&mut self, path: &[u8], start: u64, end: u64) {
        if !self.listed || start >= end {
            return;
        }
        let id = self.id(path);
        let st = &mut self.state[id as usize];
        if st.alive == 0 {
            // Never listed as loaded: the listing is not complete.
            self.give_up();
            return;
        }
        st.alive -= 1;
        let key = st.extent.take();
        let points = std::mem::take(&mut st.points);
        if let Some(key) = key {
            self.index.remove(&key);
        }
        if points {
            self.index.retain(|_, e| e.path != id);
        }
        self.changed();
    }

    /// Record what `err`'s stacks show: every frame that shows its object, and the gen
    /// block's `obj:` lines where they align with the frames.
    pub fn observe(&mut self, err: &ErrorRecord) {
        if !self.listed {
            return;
        }
        let gen_aligned = err
            .suppression
            .as_ref()
            .filter(|b| b.frames.len() == err.stack.len());
        for (i, f) in err.stack.iter().enumerate() {
            let Some(ip) = f.ip else { continue };
            let obj = f
                .obj
                .or_else(|| match gen_aligned.and_then(|b| b.frames.get(i)) {
                    Some(GenFrame::Obj(p)) if p != b"*" => Some(p),
                    _ => None,
                });
            if let Some(obj) = obj {
                self.observe_ip(ip, obj);
            }
        }
        for aux in &err.aux {
            for f in aux.stack.iter() {
                if let (Some(ip), Some(obj)) = (f.ip, f.obj) {
                    self.observe_ip(ip, obj);
                }
            }
        }
    }

    /// An IP shown in `obj` by a stack printed now.
    pub fn observe_ip(&mut self, ip: u64, obj: &[u8]) {
        if !self.listed || obj == b"???" {
            return;
        }
        let id = self.id(obj);
        let st = self.state[id as usize].clone();
        if st.alive == 0 && st.ever_loaded {
            // Shown after it was unloaded: not what the model says.
            self.give_up();
            return;
        }
        if st.alive == 1 {
            let (lo, hi) = match st
                .extent
                .and_then(|k| self.index.get(&k).map(|e| (k, e.hi)))
            {
                Some((lo, hi)) if (lo..=hi).contains(&ip) => return,
                Some((lo, hi)) => (lo.min(ip), hi.max(ip)),
                None => (ip, ip),
            };
            // Another object observed inside the new extent contradicts contiguity.
            if self.overlaps_other(lo, hi, id) {
                self.give_up();
                return;
            }
            if let Some(k) = st.extent {
                self.index.remove(&k);
            }
            self.index.insert(
                lo,
                Entry {
                    hi,
                    path: id,
                    extent: true,
                },
            );
            self.state[id as usize].extent = Some(lo);
        } else {
            // A mapping without symbols read (Valgrind names it from the address space
            // manager), or one of two copies: a separator only.
            if self.index.get(&ip).is_some_and(|e| e.path == id) {
                return;
            }
            if self.overlaps_other(ip, ip, id) {
                self.give_up();
                return;
            }
            self.index.insert(
                ip,
                Entry {
                    hi: ip,
                    path: id,
                    extent: false,
                },
            );
            self.state[id as usize].points = true;
        }
        self.changed();
    }

    /// Whether an entry of another path overlaps `lo..=hi`.
    fn overlaps_other(&self, lo: u64, hi: u64, id: PathId) -> bool {
        let from_left = self
            .index
            .range(..lo)
            .next_back()
            .is_some_and(|(_, e)| e.path != id && e.hi >= lo);
        from_left || self.index.range(lo..=hi).any(|(_, e)| e.path != id)
    }

    /// What is known of the object of each frame of `stack` (printed now) from its IP, the
    /// stack's other frames and the process's evidence. Callers use it for frames that do
    /// not show their object but have a source line.
    #[must_use]
    pub fn infer(&self, stack: &Stack) -> Vec<Known<Vec<u8>>> {
        let mut shown: Vec<(u64, &[u8])> = stack
            .iter()
            .filter_map(|f| Some((f.ip?, f.obj?)))
            .filter(|(_, o)| *o != b"???")
            .collect();
        shown.sort_unstable();
        stack
            .iter()
            .map(|f| match f.ip {
                Some(ip) => self.infer_ip(ip, &shown),
                None => Known::Unknown,
            })
            .collect()
    }

    fn infer_ip(&self, ip: u64, shown: &[(u64, &[u8])]) -> Known<Vec<u8>> {
        // 1. Within the stack.
        let at = shown.partition_point(|&(a, _)| a < ip);
        let below = at.checked_sub(1).and_then(|i| shown.get(i));
        let above = shown.get(at);
        if let Some(&(a, o)) = above
            && (a == ip || below.is_some_and(|&(_, b)| b == o))
            && !self.is_double(o)
        {
            return Known::Yes(o.to_vec());
        }
        if !self.listed {
            return Known::Unknown;
        }
        // 2. Across the process.
        let left = self.index.range(..=ip).next_back().map(|(_, e)| *e);
        let right = self.index.range(ip..).next().map(|(_, e)| *e);
        if let Some(l) = left
            && l.extent
            && l.hi >= ip
        {
            return Known::Yes(self.paths[l.path as usize].clone());
        }
        let key = (left.map(|e| e.path), right.map(|e| e.path));
        if let Ok(mut cache) = self.candidates.lock() {
            if let Some(k) = cache.get(&key) {
                return k.clone();
            }
            let k = self.candidates_between(key.0, key.1);
            cache.insert(key, k.clone());
            return k;
        }
        self.candidates_between(key.0, key.1)
    }

    fn is_double(&self, obj: &[u8]) -> bool {
        self.ids
            .get(obj)
            .is_some_and(|&id| self.state[id as usize].alive > 1)
    }

    /// Loaded objects that may hold an IP whose nearest observed neighbours are `left`
    /// and `right`: those two (when loaded) and every loaded object whose IPs do not
    /// bound it (never observed, or loaded twice).
    fn candidates_between(&self, left: Option<PathId>, right: Option<PathId>) -> Known<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = self
            .state
            .iter()
            .enumerate()
            .filter(|(i, st)| {
                let id = PathId::try_from(*i).ok();
                st.alive > 0 && (st.alive > 1 || st.extent.is_none() || id == left || id == right)
            })
            .map(|(i, _)| self.paths[i].clone())
            .collect();
        out.sort_unstable();
        match out.len() {
            // Every frame lies in some loaded object: an empty set contradicts the model.
            0 => Known::Unknown,
            1 => Known::Yes(out.swap_remove(0)),
            _ => Known::OneOf(out.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::record::{Frame, Stack};

    fn stack(frames: &[(u64, Option<&str>, bool)]) -> Stack {
        let mut s = Stack::new();
        for &(ip, obj, line) in frames {
            s.push(Frame {
                ip: Some(ip),
                fun: Some(b"f"),
                obj: obj.map(str::as_bytes),
                dir: None,
                file: line.then_some(&b"f.c"[..]),
                line: line.then_some(1),
            })
            .expect("fits");
        }
        s
    }

    fn err(frames: &[(u64, Option<&str>, bool)]) -> ErrorRecord {
        ErrorRecord {
            stack: stack(frames),
            ..ErrorRecord::default()
        }
    }

    fn yes(s: &str) -> Known<Vec<u8>> {
        Known::Yes(s.as_bytes().to_vec())
    }

    #[test]
    fn within_one_stack() {
        let m = ObjectMap::new();
        let s = stack(&[
            (0x100, Some("/a"), false),
            (0x150, None, true),
            (0x200, Some("/a"), false),
            (0x900, None, true),
            (0x1000, Some("/b"), false),
        ]);
        let k = m.infer(&s);
        assert_eq!(k[1], yes("/a"));
        // Between /a and /b: not known without the process's listing.
        assert_eq!(k[3], Known::Unknown);
    }

    #[test]
    fn across_the_process() {
        let mut m = ObjectMap::with_loads_listed();
        for p in ["/exe", "/a", "/b", "/never"] {
            m.observe_loaded(p.as_bytes());
        }
        m.observe(&err(&[
            (0x100, Some("/a"), false),
            (0x1000, Some("/b"), false),
        ]));
        m.observe(&err(&[
            (0x300, Some("/a"), false),
            (0x1400, Some("/b"), false),
        ]));
        let k = m.infer(&stack(&[
            (0x200, None, true),
            (0x1200, None, true),
            (0x800, None, true),
        ]));
        assert_eq!(k[0], yes("/a"));
        assert_eq!(k[1], yes("/b"));
        // Between /a's and /b's extents: either, or an object never observed.
        let Known::OneOf(c) = &k[2] else {
            panic!("{:?}", k[2])
        };
        let c: Vec<&[u8]> = c.iter().map(Vec::as_slice).collect();
        assert_eq!(c, [&b"/a"[..], b"/b", b"/exe", b"/never"]);
        // Past /b, /a is excluded (an IP of /b lies between).
        let k = m.infer(&stack(&[(0x2000, None, true)]));
        let Known::OneOf(c) = &k[0] else {
            panic!("{:?}", k[0])
        };
        assert!(!c.iter().any(|p| p == b"/a"));
        // Once everything is observed, the set narrows to the neighbours.
        m.observe(&err(&[
            (0x10, Some("/exe"), false),
            (0x5000, Some("/never"), false),
        ]));
        let k = m.infer(&stack(&[(0x800, None, true)]));
        let Known::OneOf(c) = &k[0] else {
            panic!("{:?}", k[0])
        };
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn unload_and_reload_over_the_range() {
        let mut m = ObjectMap::with_loads_listed();
        m.observe_loaded(b"/exe");
        m.observe_loaded(b"/plugin1");
        m.observe(&err(&[
            (0x100, Some("/exe"), false),
            (0x5000, Some("/plugin1"), false),
            (0x5100, Some("/plugin1"), false),
        ]));
        assert_eq!(m.infer(&stack(&[(0x5050, None, true)]))[0], yes("/plugin1"));
        m.observe_unloaded(b"/plugin1", 0x4000, 0x6000);
        m.observe_loaded(b"/plugin2");
        // /plugin1 is gone: its old extent says nothing; /plugin2 was never observed.
        let k = m.infer(&stack(&[(0x5050, None, true)]));
        let Known::OneOf(c) = &k[0] else {
            panic!("{:?}", k[0])
        };
        let c: Vec<&[u8]> = c.iter().map(Vec::as_slice).collect();
        assert_eq!(c, [&b"/exe"[..], b"/plugin2"]);
        // Showing /plugin1 now contradicts the listing: within-stack evidence only.
        m.observe(&err(&[(0x5000, Some("/plugin1"), false)]));
        assert!(!m.loads_listed());
        assert_eq!(m.infer(&stack(&[(0x5050, None, true)]))[0], Known::Unknown);
    }

    #[test]
    fn two_copies_never_decide() {
        let mut m = ObjectMap::with_loads_listed();
        m.observe_loaded(b"/a");
        m.observe(&err(&[
            (0x100, Some("/a"), false),
            (0x200, Some("/a"), false),
        ]));
        m.observe_loaded(b"/a");
        assert_eq!(m.infer(&stack(&[(0x150, None, true)]))[0], yes("/a"));
        // … still /a as the only object loaded; with another one, undecided.
        m.observe_loaded(b"/b");
        let k = m.infer(&stack(&[
            (0x150, None, true),
            (0x100, Some("/a"), false),
            (0x200, Some("/a"), false),
        ]));
        assert!(matches!(k[0], Known::OneOf(_)), "{:?}", k[0]);
    }

    #[test]
    fn overlapping_extents_give_up() {
        let mut m = ObjectMap::with_loads_listed();
        m.observe_loaded(b"/a");
        m.observe_loaded(b"/b");
        m.observe(&err(&[
            (0x100, Some("/a"), false),
            (0x300, Some("/a"), false),
        ]));
        m.observe(&err(&[(0x200, Some("/b"), false)]));
        assert!(!m.loads_listed());
    }
}
