//! The errors a process has shown, by identity, so that the `N errors in context i of C:`
//! listing that `-s`/`-v` print after the first summary can be tied to the error printed
//! earlier ([`LogItem::ContextCount`](crate::logs::LogItem::ContextCount)).
//!
//! Valgrind prints a listed context with the same code, from the same recorded context, as
//! when it first showed it: the header text and the IPs of the stack are the same. Only
//! non-leak contexts are listed, so loss records are not remembered. Memory is bounded:
//! at most [`MAX_SHOWN`] errors per process (Valgrind shows at most 1,000 contexts unless
//! `--error-limit=no`), released with the process.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

use crate::logs::record::ErrorRecord;

/// At most this many shown errors are remembered per process.
pub(super) const MAX_SHOWN: usize = 10_000;

/// And at most this many bytes of their headers and IPs.
const MAX_SHOWN_BYTES: usize = 16 << 20;

/// What identifies a shown error in the listing: its header and the IPs of its stack, top
/// first (`u64::MAX` for a frame without one).
#[derive(Debug, Clone, Copy)]
pub(super) struct Identity<'a> {
    what: &'a [u8],
    rec: &'a ErrorRecord,
}

impl<'a> Identity<'a> {
    pub(super) fn of(rec: &'a ErrorRecord) -> Self {
        Self {
            what: rec.what.as_bytes(),
            rec,
        }
    }

    fn ips(&self) -> impl Iterator<Item = u64> + 'a {
        self.rec.stack.iter().map(|f| f.ip.unwrap_or(u64::MAX))
    }

    fn hash(&self) -> u64 {
        let mut h = FxHasher::default();
        self.what.hash(&mut h);
        for ip in self.ips() {
            ip.hash(&mut h);
        }
        h.finish()
    }
}

/// [`Identity::hash`] of an identity stored as `what` and `ips`.
fn raw_hash(what: &[u8], ips: &[u64]) -> u64 {
    let mut h = FxHasher::default();
    what.hash(&mut h);
    for ip in ips {
        ip.hash(&mut h);
    }
    h.finish()
}

impl Identity<'_> {
    /// Whether this identity is `what` and `ips`.
    fn is(&self, what: &[u8], ips: &[u64]) -> bool {
        self.what == what && self.rec.stack.len() == ips.len() && self.ips().eq(ips.iter().copied())
    }

    /// Whether this identity (a copy cut short) is the start of `what` and `ips`: the same
    /// header, the first frames of the stack.
    fn starts(&self, what: &[u8], ips: &[u64]) -> bool {
        self.what == what
            && self.rec.stack.len() <= ips.len()
            && self.ips().zip(ips.iter().copied()).all(|(a, b)| a == b)
    }

    /// Whether `other` is this identity, or (`prefix`) this identity cut short.
    pub(super) fn matches(&self, other: &Identity<'_>, prefix: bool) -> bool {
        let ips: Vec<u64> = self.ips().collect();
        if prefix {
            other.starts(self.what, &ips)
        } else {
            other.is(self.what, &ips)
        }
    }
}

/// Where errors of one identity were shown: the first and the last, and whether more than
/// once (a context seen again after its code was unloaded and reloaded, or a log that
/// repeats itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    first: u64,
    last: u64,
    several: bool,
}

/// What a listed error is, among the errors shown before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// The error shown at this line.
    At(u64),
    /// None of the remembered errors.
    Nothing,
    /// Several errors with the same identity: which one is listed is unknown.
    Several,
}

/// One identity remembered: where its header and IPs are in the arenas, where it was
/// shown, and the next entry with the same hash.
#[derive(Debug, Clone, Copy)]
struct Entry {
    what: (u32, u32),
    ips: (u32, u32),
    seen: Seen,
    next: Option<u32>,
}

/// The errors one process has shown. Shared between a state and the states guessed from
/// it (parallel reading): cloned only when one of them remembers more. Identities are
/// stored back to back (one allocation for all, not two per error: a log with many errors
/// remembers one per error).
#[derive(Debug, Clone, Default)]
pub(super) struct ShownErrors {
    /// The first entry of each identity hash.
    by_hash: FxHashMap<u64, u32>,
    entries: Vec<Entry>,
    text: Vec<u8>,
    ips: Vec<u64>,
    /// More than [`MAX_SHOWN`] errors (or [`MAX_SHOWN_BYTES`]) were shown: later ones are
    /// not remembered.
    pub(super) full: bool,
    /// The largest line remembered (lines are renumbered only when one is a chunk's).
    top: u64,
}

/// [`Seen`] as a lookup answers it.
fn found(seen: &Seen) -> Found {
    if seen.several {
        Found::Several
    } else {
        Found::At(seen.first)
    }
}

/// `a` as a range of offsets.
fn range(a: (u32, u32)) -> std::ops::Range<usize> {
    a.0 as usize..a.0 as usize + a.1 as usize
}

impl ShownErrors {
    /// How many errors are remembered.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    fn what(&self, e: &Entry) -> &[u8] {
        &self.text[range(e.what)]
    }

    fn entry_ips(&self, e: &Entry) -> &[u64] {
        &self.ips[range(e.ips)]
    }

    /// The entry of identity `id`.
    fn get(&self, id: &Identity<'_>, hash: u64) -> Option<usize> {
        let mut at = self.by_hash.get(&hash).copied();
        while let Some(i) = at {
            let e = &self.entries[i as usize];
            if id.is(self.what(e), self.entry_ips(e)) {
                return Some(i as usize);
            }
            at = e.next;
        }
        None
    }

    /// The entry of the identity `what`, `ips`.
    fn lookup(&self, what: &[u8], ips: &[u64]) -> Option<usize> {
        let mut at = self.by_hash.get(&raw_hash(what, ips)).copied();
        while let Some(i) = at {
            let x = &self.entries[i as usize];
            if self.what(x) == what && self.entry_ips(x) == ips {
                return Some(i as usize);
            }
            at = x.next;
        }
        None
    }

    /// Adds an identity not remembered yet; false (and `full` set) when there is no room.
    fn add(&mut self, what: &[u8], ips: impl Iterator<Item = u64>, hash: u64, seen: Seen) -> bool {
        let room = self.entries.len() < MAX_SHOWN
            && self.text.len() + what.len() + 8 * self.ips.len() < MAX_SHOWN_BYTES;
        if !room {
            self.full = true;
            return false;
        }
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let what_at = (to_u32(self.text.len()), to_u32(what.len()));
        self.text.extend_from_slice(what);
        let start = self.ips.len();
        self.ips.extend(ips);
        let ips_at = (to_u32(start), to_u32(self.ips.len() - start));
        let i = to_u32(self.entries.len());
        let next = self.by_hash.insert(hash, i);
        self.entries.push(Entry {
            what: what_at,
            ips: ips_at,
            seen,
            next,
        });
        self.top = self.top.max(seen.last);
        true
    }

    /// Remembers the error `rec`, shown at its line, when fewer than [`MAX_SHOWN`] are
    /// remembered (`before` more are remembered elsewhere: a guess of those shown before);
    /// false when the cap was reached by this error (the caller warns once).
    pub(super) fn remember(this: &mut Arc<Self>, before: usize, rec: &ErrorRecord) -> bool {
        if this.full {
            return true;
        }
        let s = Arc::make_mut(this);
        let line = rec.line;
        let id = Identity::of(rec);
        let hash = id.hash();
        if let Some(i) = s.get(&id, hash) {
            let e = &mut s.entries[i].seen;
            e.several = true;
            e.last = line;
            s.top = s.top.max(line);
            return true;
        }
        if before + s.entries.len() >= MAX_SHOWN {
            s.full = true;
            return false;
        }
        let seen = Seen {
            first: line,
            last: line,
            several: false,
        };
        s.add(id.what, id.ips(), hash, seen)
    }

    /// The shown error `rec` (a listed copy) repeats.
    pub(super) fn find(&self, rec: &ErrorRecord) -> Found {
        let id = Identity::of(rec);
        self.get(&id, id.hash())
            .map_or(Found::Nothing, |i| found(&self.entries[i].seen))
    }

    /// [`Self::find`] for a listed copy cut short: the shown errors with its header whose
    /// stack starts with its frames.
    pub(super) fn find_prefix(&self, rec: &ErrorRecord) -> Found {
        let id = Identity::of(rec);
        let mut result = Found::Nothing;
        for e in &self.entries {
            if id.starts(self.what(e), self.entry_ips(e)) {
                result = match (result, e.seen.several) {
                    (Found::Nothing, false) => Found::At(e.seen.first),
                    _ => return Found::Several,
                };
            }
        }
        result
    }

    /// Renumbers the lines at or after `from` with `f` (a chunk's lines, see
    /// `super::resume`).
    pub(super) fn renumber(this: &mut Arc<Self>, from: u64, f: impl Fn(u64) -> u64) {
        if this.top < from {
            return;
        }
        let s = Arc::make_mut(this);
        for e in &mut s.entries {
            if e.seen.first >= from {
                e.seen.first = f(e.seen.first);
            }
            if e.seen.last >= from {
                e.seen.last = f(e.seen.last);
            }
        }
        s.top = f(s.top);
    }

    /// The errors shown up to the end of a chunk: `start`, those shown before it, and
    /// `chunk`, those it showed (read from a guess of `start`).
    pub(super) fn merge_chunk(start: &Arc<Self>, chunk: &Self) -> Arc<Self> {
        if chunk.entries.is_empty() && !chunk.full {
            return Arc::clone(start);
        }
        let mut merged = Arc::clone(start);
        let m = Arc::make_mut(&mut merged);
        m.full |= chunk.full;
        for e in &chunk.entries {
            let (what, ips) = (chunk.what(e), chunk.entry_ips(e));
            match m.lookup(what, ips) {
                Some(i) => {
                    let s = &mut m.entries[i].seen;
                    s.several = true;
                    s.last = e.seen.last;
                    m.top = m.top.max(e.seen.last);
                }
                // Past the cap, no error shown later is remembered.
                None if start.full => {}
                None => {
                    m.add(what, ips.iter().copied(), raw_hash(what, ips), e.seen);
                }
            }
        }
        merged
    }
}

impl PartialEq for ShownErrors {
    /// The same identities, shown at the same lines (whatever the order they were stored
    /// in).
    fn eq(&self, other: &Self) -> bool {
        self.full == other.full
            && self.entries.len() == other.entries.len()
            && self.entries.iter().all(|e| {
                let (what, ips) = (self.what(e), self.entry_ips(e));
                other
                    .lookup(what, ips)
                    .is_some_and(|i| other.entries[i].seen == e.seen)
            })
    }
}

impl Eq for ShownErrors {}

/// What the errors of `a` and then `b` answer together.
pub(super) fn either(a: Found, b: Found) -> Found {
    match (a, b) {
        (Found::Nothing, x) | (x, Found::Nothing) => x,
        _ => Found::Several,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::record::{Frame, Stack};

    fn error(line: u64, what: &str, ips: &[u64]) -> ErrorRecord {
        let mut stack = Stack::new();
        for &ip in ips {
            stack
                .push(Frame {
                    ip: Some(ip),
                    fun: Some(b"f"),
                    ..Frame::default()
                })
                .expect("small");
        }
        ErrorRecord {
            line,
            what: what.to_owned(),
            stack,
            ..ErrorRecord::default()
        }
    }

    #[test]
    fn listed_copies_find_the_error_shown_first() {
        let mut shown = Arc::new(ShownErrors::default());
        assert!(ShownErrors::remember(
            &mut shown,
            0,
            &error(3, "Invalid read of size 4", &[1, 2])
        ));
        assert!(ShownErrors::remember(
            &mut shown,
            0,
            &error(9, "Invalid read of size 4", &[1, 3])
        ));
        assert!(ShownErrors::remember(
            &mut shown,
            0,
            &error(20, "Invalid read of size 8", &[1, 2])
        ));
        // The same header and IPs: the error at line 3, whatever the lines around it.
        assert_eq!(
            shown.find(&error(40, "Invalid read of size 4", &[1, 2])),
            Found::At(3)
        );
        assert_eq!(
            shown.find(&error(40, "Invalid read of size 4", &[1])),
            Found::Nothing
        );
        assert_eq!(
            shown.find(&error(40, "Invalid read of size 2", &[1, 2])),
            Found::Nothing
        );
        // A copy cut after its first frame: two candidates; after its second, one.
        assert_eq!(
            shown.find_prefix(&error(40, "Invalid read of size 4", &[1])),
            Found::Several
        );
        assert_eq!(
            shown.find_prefix(&error(40, "Invalid read of size 4", &[1, 3])),
            Found::At(9)
        );
        // Shown twice: which one a listed copy repeats is unknown.
        assert!(ShownErrors::remember(
            &mut shown,
            0,
            &error(50, "Invalid read of size 8", &[1, 2])
        ));
        assert_eq!(
            shown.find(&error(60, "Invalid read of size 8", &[1, 2])),
            Found::Several
        );
    }

    #[test]
    fn memory_is_capped() {
        let mut shown = Arc::new(ShownErrors::default());
        for i in 0..MAX_SHOWN as u64 {
            assert!(ShownErrors::remember(
                &mut shown,
                0,
                &error(i + 1, "Cond", &[i])
            ));
        }
        assert!(!ShownErrors::remember(
            &mut shown,
            0,
            &error(0, "Cond", &[u64::MAX - 1])
        ));
        assert!(shown.full);
        assert!(ShownErrors::remember(
            &mut shown,
            0,
            &error(0, "Cond", &[u64::MAX - 2])
        ));
        assert_eq!(shown.len(), MAX_SHOWN);
    }

    #[test]
    fn a_chunk_merges_onto_the_errors_shown_before_it() {
        // Shown before the chunk: at lines 5 and 6.
        let mut start = Arc::new(ShownErrors::default());
        ShownErrors::remember(&mut start, 0, &error(5, "Cond", &[1]));
        ShownErrors::remember(&mut start, 0, &error(6, "Cond", &[2]));
        // The chunk shows `[1]` again and `[3]`.
        let mut chunk = Arc::new(ShownErrors::default());
        ShownErrors::remember(&mut chunk, 0, &error(120, "Cond", &[1]));
        ShownErrors::remember(&mut chunk, 0, &error(130, "Cond", &[3]));
        let merged = ShownErrors::merge_chunk(&start, &chunk);
        assert_eq!(merged.find(&error(0, "Cond", &[1])), Found::Several);
        assert_eq!(merged.find(&error(0, "Cond", &[2])), Found::At(6));
        assert_eq!(merged.find(&error(0, "Cond", &[3])), Found::At(130));
        // Nothing shown in the chunk: the errors before it, shared.
        let merged = ShownErrors::merge_chunk(&start, &ShownErrors::default());
        assert!(Arc::ptr_eq(&merged, &start));
        // Lookups across a guess and a chunk's own.
        assert_eq!(either(Found::Nothing, Found::At(3)), Found::At(3));
        assert_eq!(either(Found::At(2), Found::At(3)), Found::Several);
        assert_eq!(either(Found::Several, Found::Nothing), Found::Several);
        // The cap counts the errors remembered elsewhere.
        let mut near = Arc::new(ShownErrors::default());
        assert!(!ShownErrors::remember(
            &mut near,
            MAX_SHOWN,
            &error(1, "Cond", &[9])
        ));
        assert!(near.full);
    }

    #[test]
    fn the_bytes_remembered_are_capped_too() {
        let mut shown = Arc::new(ShownErrors::default());
        let long = "x".repeat(1 << 20);
        let mut kept = 0;
        while ShownErrors::remember(&mut shown, 0, &error(kept + 1, &long, &[kept])) {
            kept += 1;
            assert!(kept < 100);
        }
        assert!(shown.full);
        assert_eq!(shown.len(), 15);
        // Equal by content whatever the order the identities were stored in.
        let mut a = Arc::new(ShownErrors::default());
        let mut b = Arc::new(ShownErrors::default());
        ShownErrors::remember(&mut a, 0, &error(1, "Cond", &[1]));
        ShownErrors::remember(&mut a, 0, &error(2, "Cond", &[2]));
        ShownErrors::remember(&mut b, 0, &error(2, "Cond", &[2]));
        assert_ne!(a, b);
        ShownErrors::remember(&mut b, 0, &error(1, "Cond", &[1]));
        assert_eq!(a, b);
    }

    #[test]
    fn sharing_and_renumbering() {
        let mut a = Arc::new(ShownErrors::default());
        ShownErrors::remember(&mut a, 0, &error(5, "Cond", &[1]));
        let mut b = Arc::clone(&a);
        ShownErrors::renumber(&mut b, 100, |l| l + 1000);
        assert!(
            Arc::ptr_eq(&a, &b),
            "nothing at or after line 100: not copied"
        );
        ShownErrors::remember(&mut b, 0, &error(150, "Cond", &[2]));
        assert!(!Arc::ptr_eq(&a, &b));
        ShownErrors::renumber(&mut b, 100, |l| l + 1000);
        assert_eq!(b.find(&error(0, "Cond", &[1])), Found::At(5));
        assert_eq!(b.find(&error(0, "Cond", &[2])), Found::At(1150));
        assert_eq!(a.find(&error(0, "Cond", &[2])), Found::Nothing);
    }
}
