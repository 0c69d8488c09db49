//! Adding what `gen` produced to an existing sidecar: a rule already there is merged, not
//! duplicated, and what people edited wins.
//!
//! For a rule of the same name: `generated.from` lists are merged by log (`sha256`, or
//! the log path when a source has none; a source's recorded path is kept, unless it is
//! absolute and the new one relative), the earliest `created` is kept, `reason`,
//! `owner`, `tracking`, `origin` and `expires` are kept when set (a person may have edited
//! them) and filled in when not, the `fingerprint` and `generated.tool` are the incoming
//! ones (they describe the rule as now written), `environment` keys are added, and `seen`
//! takes the earliest `first`, the latest `last` and the larger counts (the same logs
//! given twice must not count twice). Unknown keys of the existing entry stay. A new name
//! is appended.

use crate::date::Date;

use super::{Generated, RuleEntry, Seen, Sidecar, Source};

/// What a merge did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Merged {
    /// Rules appended.
    pub added: usize,
    /// Rules merged into an existing entry.
    pub updated: usize,
}

/// Merge `incoming` rules into `sidecar`.
pub fn merge(sidecar: &mut Sidecar, incoming: impl IntoIterator<Item = RuleEntry>) -> Merged {
    let mut done = Merged::default();
    for new in incoming {
        match sidecar.rule_mut(&new.name) {
            Some(old) => {
                merge_rule(old, new);
                done.updated += 1;
            }
            None => {
                sidecar.rules.push(new);
                done.added += 1;
            }
        }
    }
    done
}

fn merge_rule(old: &mut RuleEntry, new: RuleEntry) {
    if new.fingerprint.is_some() {
        old.fingerprint = new.fingerprint;
    }
    keep_or_fill(&mut old.origin, new.origin);
    keep_or_fill(&mut old.reason, new.reason);
    keep_or_fill(&mut old.owner, new.owner);
    keep_or_fill(&mut old.tracking, new.tracking);
    keep_or_fill(&mut old.expires, new.expires);
    old.created = earliest(old.created, new.created);
    old.generated = match (old.generated.take(), new.generated) {
        (Some(mut g), Some(n)) => {
            merge_generated(&mut g, n);
            Some(g)
        }
        (g, n) => g.or(n),
    };
    old.seen = match (old.seen.take(), new.seen) {
        (Some(mut s), Some(n)) => {
            merge_seen(&mut s, &n);
            Some(s)
        }
        (s, n) => s.or(n),
    };
    for e in new.node.entries {
        if old.node.get(&e.key).is_none() && !super::RULE_KEYS.contains(&e.key.as_str()) {
            old.node.entries.push(e);
        }
    }
}

fn keep_or_fill<T>(old: &mut Option<T>, new: Option<T>) {
    if old.is_none() {
        *old = new;
    }
}

fn earliest(a: Option<Date>, b: Option<Date>) -> Option<Date> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// How a source is told apart from another: its log's hash, else its path.
fn source_key(s: &Source) -> Option<&str> {
    s.sha256.as_deref().or(s.log.as_deref())
}

fn merge_generated(old: &mut Generated, new: Generated) {
    if new.tool.is_some() {
        old.tool = new.tool;
    }
    for src in new.from {
        let existing = old
            .from
            .iter_mut()
            .find(|s| source_key(s).is_some() && source_key(s) == source_key(&src));
        match existing {
            Some(s) => {
                // A path recorded absolute (where an older vgsupp ran) gives way to one
                // relative to the sidecar, which means the same on every clone.
                let absolute = |l: &Option<String>| {
                    l.as_deref()
                        .is_some_and(|l| std::path::Path::new(l).is_absolute())
                };
                if absolute(&s.log) && src.log.is_some() && !absolute(&src.log) {
                    s.log = src.log;
                } else {
                    keep_or_fill(&mut s.log, src.log);
                }
                keep_or_fill(&mut s.valgrind, src.valgrind);
                keep_or_fill(&mut s.command, src.command);
                keep_or_fill(&mut s.errors, src.errors);
            }
            None => old.from.push(src),
        }
    }
    for (k, v) in new.environment {
        if !old.environment.iter().any(|(ok, _)| *ok == k) {
            old.environment.push((k, v));
        }
    }
}

fn merge_seen(old: &mut Seen, new: &Seen) {
    old.first = earliest(old.first, new.first);
    old.last = match (old.last, new.last) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    old.hits = old.hits.max(new.hits);
    old.logs = old.logs.max(new.logs);
}
