//! The provenance sidecar `NAME.supp.yaml` next to `NAME.supp` (PRODUCT.md §3): why each
//! rule exists, who owns it, where it came from, when to look at it again.
//!
//! - [`decode()`] reads the bytes (bounded, see [`crate::yaml::read()`]) into a typed
//!   [`Sidecar`] and lists what does not fit the schema as [`Problem`]s;
//! - [`merge()`] adds what `gen` produced to an existing sidecar without duplicating rules or
//!   provenance, keeping what people edited;
//! - [`encode()`] writes the model back into the tree it was read from, so unknown keys (at
//!   every level, in their place), key order and comments survive;
//! - [`fingerprint()`] hashes a rule's canonical body; [`store`] finds, reads and atomically
//!   writes sidecar files;
//! - [`append()`] is what `gen` calls: the rules it wrote, with their provenance, merged
//!   into the sidecar next to its output and saved, in one call.
//!
//! Schema version 1:
//!
//! ```yaml
//! version: 1
//! rules:
//!   NAME: {fingerprint, origin, reason, owner, tracking, created, expires,
//!          generated: {tool, from: [{log, sha256, valgrind, command, errors}], environment: {…}},
//!          seen: {first, last, hits, logs}}
//! retired:
//!   NAME: {retired, why, …}
//! ```

pub mod append;
pub mod decode;
pub mod encode;
pub mod fingerprint;
pub mod merge;
pub mod store;

use std::fmt;
use std::str::FromStr;

use crate::date::Date;
use crate::yaml::{self, Map, Notes};

pub use append::{Appended, GeneratedRule, Loaded, append};
pub use decode::{Decoded, Problem, ProblemKind, SidecarError, decode};
pub use encode::{EncodeError, encode};
pub use fingerprint::fingerprint;
pub use merge::merge;

/// The schema version this vgsupp reads and writes.
pub const VERSION: u64 = 1;

/// A sidecar: its rules' provenance, in file order, and the rules retired from the file.
#[derive(Debug, Clone, Default)]
pub struct Sidecar {
    /// `version:` (1 when absent; 0 when it is not a number). Only [`VERSION`] is read
    /// and written.
    pub version: u64,
    /// `rules:`, in file order.
    pub rules: Vec<RuleEntry>,
    /// `retired:`, in file order.
    pub retired: Vec<Retired>,
    /// The document as read: unknown top-level keys, comments, layout.
    pub(crate) doc: yaml::Document,
}

/// One rule's provenance.
#[derive(Debug, Clone, Default)]
pub struct RuleEntry {
    /// The rule's name (the record's name line).
    pub name: String,
    /// Hash of the rule's canonical body ([`fingerprint()`]).
    pub fingerprint: Option<String>,
    /// The origin profile (`cuda-driver`, `python`, …).
    pub origin: Option<String>,
    /// Why the rule exists.
    pub reason: Option<String>,
    /// Who answers for it.
    pub owner: Option<String>,
    /// An issue or URL.
    pub tracking: Option<String>,
    /// When it was written.
    pub created: Option<Date>,
    /// When it must be looked at again.
    pub expires: Option<Date>,
    /// How `gen` made it.
    pub generated: Option<Generated>,
    /// Evidence of use (`prune`).
    pub seen: Option<Seen>,
    /// `keep: REASON`: `prune` never removes the rule, whatever the logs say.
    pub keep: Option<String>,
    /// The last review (`renew`): when, by whom, why, and the `expires` it set.
    pub reviewed: Option<Review>,
    /// The 1-based line of its key in the sidecar; 0 when not read from a file.
    pub line: u32,
    /// Its entry as read: unknown keys, comments.
    pub(crate) node: Map,
    pub(crate) notes: Notes,
}

/// `reviewed:` — the last time someone looked at a rule and kept it (`vgsupp renew`).
#[derive(Debug, Clone, Default)]
pub struct Review {
    /// When.
    pub date: Option<Date>,
    /// Who.
    pub by: Option<String>,
    /// Why the rule stays.
    pub reason: Option<String>,
    pub(crate) node: Map,
}

/// `generated:` — how `gen` made a rule.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// The command line that generated it (`vgsupp 0.1.0 gen --style anchored`).
    pub tool: Option<String>,
    /// The logs it was generated from.
    pub from: Vec<Source>,
    /// Versions read from the logs (`libcuda: 535.104.05`, `python: "3.11"`), in order.
    pub environment: Vec<(String, String)>,
    pub(crate) node: Map,
}

/// One log a rule was generated from.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The log's path as given.
    pub log: Option<String>,
    /// The log's SHA-256 (hex): how sources are told apart when merging.
    pub sha256: Option<String>,
    /// The Valgrind version that wrote it.
    pub valgrind: Option<String>,
    /// The command Valgrind ran.
    pub command: Option<String>,
    /// How many of its errors the rule covers.
    pub errors: Option<u64>,
    pub(crate) node: Map,
}

/// `seen:` — evidence of use.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// First seen used.
    pub first: Option<Date>,
    /// Last seen used.
    pub last: Option<Date>,
    /// Errors it hid.
    pub hits: Option<u64>,
    /// Logs it was used in.
    pub logs: Option<u64>,
    pub(crate) node: Map,
}

/// A rule removed from the suppression file, and why.
#[derive(Debug, Clone, Default)]
pub struct Retired {
    /// The rule's name.
    pub name: String,
    /// When.
    pub retired: Option<Date>,
    /// Why (`stale: 0 hits in 14 logs that loaded libcuda`).
    pub why: Option<String>,
    /// The 1-based line of its key; 0 when not read from a file.
    pub line: u32,
    pub(crate) node: Map,
    pub(crate) notes: Notes,
}

/// A field of a rule's entry, as named in the file (for required-field settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    /// `fingerprint`.
    Fingerprint,
    /// `origin`.
    Origin,
    /// `reason`.
    Reason,
    /// `owner`.
    Owner,
    /// `tracking`.
    Tracking,
    /// `created`.
    Created,
    /// `expires`.
    Expires,
    /// `generated`.
    Generated,
    /// `seen`.
    Seen,
}

impl Field {
    /// Every field, in schema order.
    pub const ALL: [Self; 9] = [
        Self::Fingerprint,
        Self::Origin,
        Self::Reason,
        Self::Owner,
        Self::Tracking,
        Self::Created,
        Self::Expires,
        Self::Generated,
        Self::Seen,
    ];

    /// The key in the file.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Fingerprint => "fingerprint",
            Self::Origin => "origin",
            Self::Reason => "reason",
            Self::Owner => "owner",
            Self::Tracking => "tracking",
            Self::Created => "created",
            Self::Expires => "expires",
            Self::Generated => "generated",
            Self::Seen => "seen",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl FromStr for Field {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|f| f.key() == s).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|f| f.key()).collect();
            format!("unknown sidecar field `{s}` (one of {})", names.join(", "))
        })
    }
}

/// Keys of a rule entry, in schema order.
pub(crate) const RULE_KEYS: [&str; 11] = [
    "fingerprint",
    "origin",
    "reason",
    "owner",
    "tracking",
    "created",
    "expires",
    "keep",
    "reviewed",
    "generated",
    "seen",
];
pub(crate) const GENERATED_KEYS: [&str; 3] = ["tool", "from", "environment"];
pub(crate) const SOURCE_KEYS: [&str; 5] = ["log", "sha256", "valgrind", "command", "errors"];
pub(crate) const SEEN_KEYS: [&str; 4] = ["first", "last", "hits", "logs"];
pub(crate) const REVIEW_KEYS: [&str; 3] = ["date", "by", "reason"];
pub(crate) const RETIRED_KEYS: [&str; 2] = ["retired", "why"];
pub(crate) const TOP_KEYS: [&str; 3] = ["version", "rules", "retired"];

impl Sidecar {
    /// An empty sidecar of the current version.
    #[must_use]
    pub fn new() -> Self {
        Self {
            version: VERSION,
            ..Self::default()
        }
    }

    /// The entry for rule `name`, if any.
    #[must_use]
    pub fn rule(&self, name: &str) -> Option<&RuleEntry> {
        self.rules.iter().find(|r| r.name == name)
    }

    /// The entry for rule `name`, mutably, if any.
    pub fn rule_mut(&mut self, name: &str) -> Option<&mut RuleEntry> {
        self.rules.iter_mut().find(|r| r.name == name)
    }

    /// Move rule `name`'s entry to `retired:` with the date and the reason; its other
    /// fields (provenance, unknown keys) go with it. Returns whether there was one.
    pub fn retire(&mut self, name: &str, on: Date, why: &str) -> bool {
        let Some(at) = self.rules.iter().position(|r| r.name == name) else {
            return false;
        };
        let rule = self.rules.remove(at);
        let node = encode::rule_node(&rule);
        self.retired.retain(|r| r.name != name);
        self.retired.push(Retired {
            name: rule.name,
            retired: Some(on),
            why: Some(why.to_owned()),
            line: 0,
            node,
            notes: rule.notes,
        });
        true
    }
}

impl Sidecar {
    /// Record that rule `name` was removed from the suppression file on `on` for `why`:
    /// its entry moves to `retired:` ([`Sidecar::retire`]), or, for a rule that had none,
    /// a retired entry with only the date and the reason is added.
    pub fn retire_removed(&mut self, name: &str, on: Date, why: &str) {
        if !self.retire(name, on, why) {
            self.retired.retain(|r| r.name != name);
            self.retired.push(Retired {
                name: name.to_owned(),
                retired: Some(on),
                why: Some(why.to_owned()),
                ..Retired::default()
            });
        }
    }
}

impl Generated {
    /// `generated:` with the command line that made the rule, no sources and no
    /// environment yet.
    #[must_use]
    pub fn new(tool: &str) -> Self {
        Self {
            tool: Some(tool.to_owned()),
            ..Self::default()
        }
    }
}

impl Source {
    /// A source log: its path as given and its SHA-256 (hex), the key merges go by.
    #[must_use]
    pub fn new(log: &str, sha256: &str) -> Self {
        Self {
            log: Some(log.to_owned()),
            sha256: Some(sha256.to_owned()),
            ..Self::default()
        }
    }
}

impl RuleEntry {
    /// An entry for rule `name` with no fields set.
    #[must_use]
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ..Self::default()
        }
    }

    /// Whether `field` is set.
    #[must_use]
    pub fn has(&self, field: Field) -> bool {
        match field {
            Field::Fingerprint => self.fingerprint.is_some(),
            Field::Origin => self.origin.is_some(),
            Field::Reason => self.reason.is_some(),
            Field::Owner => self.owner.is_some(),
            Field::Tracking => self.tracking.is_some(),
            Field::Created => self.created.is_some(),
            Field::Expires => self.expires.is_some(),
            Field::Generated => self.generated.is_some(),
            Field::Seen => self.seen.is_some(),
        }
    }

    /// Keys of its entry that vgsupp does not know, with their values, in file order.
    pub fn unknown(&self) -> impl Iterator<Item = (&str, &yaml::Node)> {
        unknown(&self.node, &RULE_KEYS)
    }
}

/// The entries of `node` whose keys are not in `known`.
fn unknown<'a>(
    node: &'a Map,
    known: &'a [&str],
) -> impl Iterator<Item = (&'a str, &'a yaml::Node)> {
    node.entries
        .iter()
        .filter(|e| !known.contains(&e.key.as_str()))
        .map(|e| (e.key.as_str(), &e.value))
}

/// Whether two maps' unknown entries are the same (keys, order, values).
fn same_unknown(a: &Map, b: &Map, known: &[&str]) -> bool {
    let (mut x, mut y) = (unknown(a, known), unknown(b, known));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some((ka, va)), Some((kb, vb))) if ka == kb && va.same(vb) => {}
            _ => return false,
        }
    }
}

// Equality is the model's: the typed fields and the unknown keys; lines, comments and
// the layout of known keys are not part of it.

impl PartialEq for Sidecar {
    fn eq(&self, other: &Self) -> bool {
        let top = |s: &Self| {
            s.doc
                .root
                .as_ref()
                .and_then(yaml::Node::as_map)
                .cloned()
                .unwrap_or_default()
        };
        self.version == other.version
            && self.rules == other.rules
            && self.retired == other.retired
            && same_unknown(&top(self), &top(other), &TOP_KEYS)
    }
}

impl PartialEq for RuleEntry {
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name
            && self.fingerprint == o.fingerprint
            && self.origin == o.origin
            && self.reason == o.reason
            && self.owner == o.owner
            && self.tracking == o.tracking
            && self.created == o.created
            && self.expires == o.expires
            && self.generated == o.generated
            && self.seen == o.seen
            && same_unknown(&self.node, &o.node, &RULE_KEYS)
    }
}

impl PartialEq for Generated {
    fn eq(&self, o: &Self) -> bool {
        self.tool == o.tool
            && self.from == o.from
            && self.environment == o.environment
            && same_unknown(&self.node, &o.node, &GENERATED_KEYS)
    }
}

impl PartialEq for Source {
    fn eq(&self, o: &Self) -> bool {
        self.log == o.log
            && self.sha256 == o.sha256
            && self.valgrind == o.valgrind
            && self.command == o.command
            && self.errors == o.errors
            && same_unknown(&self.node, &o.node, &SOURCE_KEYS)
    }
}

impl PartialEq for Seen {
    fn eq(&self, o: &Self) -> bool {
        self.first == o.first
            && self.last == o.last
            && self.hits == o.hits
            && self.logs == o.logs
            && same_unknown(&self.node, &o.node, &SEEN_KEYS)
    }
}

impl PartialEq for Retired {
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name
            && self.retired == o.retired
            && self.why == o.why
            && same_unknown(&self.node, &o.node, &RETIRED_KEYS)
    }
}

#[cfg(test)]
mod tests;
