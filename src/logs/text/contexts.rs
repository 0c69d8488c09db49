//! The errors a process has shown, by identity, so that the `N errors in context i of C:`
//! listing that `-s`/`-v` print after the first summary can be tied to the error printed
//! earlier ([`LogItem::ContextCount`](crate::logs::LogItem::ContextCount)).
//!
//! Valgrind prints a listed context with the same code, from the same recorded context, as
//! when it first showed it: the header text and the IPs of the stack are the same. Only
//! non-leak contexts are listed, so loss records are not remembered. Memory is bounded:
//! at most [`MAX_SHOWN`] errors per process (Valgrind shows at most 1,000 contexts unless
//! `--error-limit=no`), released with the process.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::logs::record::ErrorRecord;

/// At most this many shown errors are remembered per process.
pub(super) const MAX_SHOWN: usize = 10_000;

/// What identifies a shown error in the listing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Identity {
    what: Box<str>,
    /// The IPs of the error's stack, top first (`u64::MAX` for a frame without one).
    ips: Box<[u64]>,
}

impl Identity {
    pub(super) fn of(rec: &ErrorRecord) -> Self {
        Self {
            what: rec.what.as_str().into(),
            ips: rec.stack.iter().map(|f| f.ip.unwrap_or(u64::MAX)).collect(),
        }
    }

    /// Whether `prefix` is this identity cut short: the same header, the stack's first
    /// frames.
    pub(super) fn starts_with(&self, prefix: &Self) -> bool {
        self.what == prefix.what && self.ips.starts_with(&prefix.ips)
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

/// The errors one process has shown. Shared between a state and the states guessed from
/// it (parallel reading): cloned only when one of them remembers more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ShownErrors {
    by_identity: FxHashMap<Identity, Seen>,
    /// More than [`MAX_SHOWN`] errors were shown: later ones are not remembered.
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

impl ShownErrors {
    /// Remembers the error `rec`, shown at its line, when fewer than [`MAX_SHOWN`] are
    /// remembered (`before` more are remembered elsewhere: a guess of those shown before);
    /// false when the cap was reached by this error (the caller warns once).
    pub(super) fn remember(this: &mut Arc<Self>, before: usize, rec: &ErrorRecord) -> bool {
        if this.full {
            return true;
        }
        let s = Arc::make_mut(this);
        if before + s.by_identity.len() >= MAX_SHOWN {
            s.full = true;
            return false;
        }
        let line = rec.line;
        s.top = s.top.max(line);
        s.by_identity
            .entry(Identity::of(rec))
            .and_modify(|e| {
                e.several = true;
                e.last = line;
            })
            .or_insert(Seen {
                first: line,
                last: line,
                several: false,
            });
        true
    }

    /// The shown error `rec` (a listed copy) repeats.
    pub(super) fn find(&self, rec: &ErrorRecord) -> Found {
        self.by_identity
            .get(&Identity::of(rec))
            .map_or(Found::Nothing, found)
    }

    /// [`Self::find`] for a listed copy cut short: the shown errors with its header whose
    /// stack starts with its frames.
    pub(super) fn find_prefix(&self, rec: &ErrorRecord) -> Found {
        let id = Identity::of(rec);
        let mut found = Found::Nothing;
        for (k, v) in &self.by_identity {
            if k.starts_with(&id) {
                found = match (found, v.several) {
                    (Found::Nothing, false) => Found::At(v.first),
                    _ => return Found::Several,
                };
            }
        }
        found
    }

    /// Renumbers the lines at or after `from` with `f` (a chunk's lines, see
    /// `super::resume`).
    pub(super) fn renumber(this: &mut Arc<Self>, from: u64, f: impl Fn(u64) -> u64) {
        if this.top < from {
            return;
        }
        let s = Arc::make_mut(this);
        for v in s.by_identity.values_mut() {
            if v.first >= from {
                v.first = f(v.first);
            }
            if v.last >= from {
                v.last = f(v.last);
            }
        }
        s.top = f(s.top);
    }

    /// How many errors are remembered.
    pub(super) fn len(&self) -> usize {
        self.by_identity.len()
    }

    /// The errors shown up to the end of a chunk: `start`, those shown before it, and
    /// `chunk`, those it showed (read from a guess of `start`).
    pub(super) fn merge_chunk(start: &Arc<Self>, chunk: &Self) -> Arc<Self> {
        if chunk.by_identity.is_empty() && !chunk.full {
            return Arc::clone(start);
        }
        let mut merged = Arc::clone(start);
        let m = Arc::make_mut(&mut merged);
        m.full |= chunk.full;
        for (id, seen) in &chunk.by_identity {
            m.top = m.top.max(seen.last);
            let room = m.by_identity.len() < MAX_SHOWN;
            match m.by_identity.get_mut(id) {
                Some(e) => {
                    e.several = true;
                    e.last = seen.last;
                }
                None if !room => m.full = true,
                None => {
                    m.by_identity.insert(id.clone(), *seen);
                }
            }
        }
        merged
    }
}

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
        assert_eq!(shown.by_identity.len(), MAX_SHOWN);
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
