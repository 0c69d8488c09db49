//! Writing a [`Sidecar`] back: the model is written into the tree it was read from, so
//! what the model does not hold stays where it was.
//!
//! - A known field that is set replaces its value in place (the old value is kept as it
//!   was written when it says the same, so `valgrind: 3.19.0` stays plain); a new one goes
//!   after the fields that precede it in the schema.
//! - A known field that is unset is removed only when its old value was valid: a value
//!   that did not fit the schema (a [`super::Problem`]) is never destroyed.
//! - Unknown keys keep their place and value; comments stay with their entries.
//! - Rules and retired rules keep their place; new ones are appended in model order; an
//!   entry that was not a mapping (never decoded) is kept as it was.

use crate::date::Date;
use crate::yaml::{self, Entry, Item, Map, Node, Seq, Value};

use super::{
    GENERATED_KEYS, Generated, RETIRED_KEYS, REVIEW_KEYS, RULE_KEYS, Retired, Review, RuleEntry,
    SEEN_KEYS, SOURCE_KEYS, Seen, Sidecar, Source, VERSION,
};

/// Why a sidecar cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Its version is not the one this vgsupp writes.
    #[error("the sidecar is version {0}; this vgsupp writes version {VERSION} only")]
    UnknownVersion(u64),
}

/// The YAML text of `sidecar`.
///
/// # Errors
/// When its version is not [`VERSION`]: rewriting a file of another schema could lose what
/// that schema means.
pub fn encode(sidecar: &Sidecar) -> Result<String, EncodeError> {
    if sidecar.version != VERSION {
        return Err(EncodeError::UnknownVersion(sidecar.version));
    }
    let mut doc = sidecar.doc.clone();
    let mut top = doc
        .root
        .as_ref()
        .and_then(Node::as_map)
        .cloned()
        .unwrap_or_default();
    put(&mut top, "version", Some(Node::plain("1")), &[], |_| true);
    let rules: Vec<(String, Map, yaml::Notes)> = sidecar
        .rules
        .iter()
        .map(|r| (r.name.clone(), rule_node(r), r.notes.clone()))
        .collect();
    named_entries(&mut top, "rules", &rules, &TOP_KEYS_BEFORE_RULES);
    let retired: Vec<(String, Map, yaml::Notes)> = sidecar
        .retired
        .iter()
        .map(|r| (r.name.clone(), retired_node(r), r.notes.clone()))
        .collect();
    named_entries(&mut top, "retired", &retired, &TOP_KEYS_BEFORE_RETIRED);
    doc.root = Some(Node {
        value: Value::Map(top),
        line: doc.root.as_ref().map_or(0, |n| n.line),
    });
    Ok(yaml::write(&doc))
}

const TOP_KEYS_BEFORE_RULES: [&str; 1] = ["version"];
const TOP_KEYS_BEFORE_RETIRED: [&str; 2] = ["version", "rules"];

/// Write a mapping of named entries (`rules:`, `retired:`) into `top[key]`.
fn named_entries(top: &mut Map, key: &str, entries: &[(String, Map, yaml::Notes)], after: &[&str]) {
    let old = top.get(key);
    let old_map = old.and_then(Node::as_map);
    if entries.is_empty() && old.is_some_and(|n| old_map.is_none() && !n.is_null()) {
        // Not a mapping, and nothing to write: leave it for the user to see.
        return;
    }
    if entries.is_empty() && old.is_none() {
        return;
    }
    let mut out = Map {
        entries: Vec::new(),
        flow: false,
    };
    let mut written = vec![false; entries.len()];
    for e in old_map.map(|m| m.entries.as_slice()).unwrap_or_default() {
        if let Some(i) = entries.iter().position(|(name, ..)| *name == e.key) {
            written[i] = true;
            out.entries.push(named(&entries[i], e.line));
        } else if !(e.value.as_map().is_some() || e.value.is_null()) {
            // Never decoded (a problem was reported): keep it.
            out.entries.push(e.clone());
        }
    }
    for (i, entry) in entries.iter().enumerate() {
        if !written[i] {
            out.entries.push(named(entry, 0));
        }
    }
    put(top, key, Some(Node::new(Value::Map(out))), after, |_| true);
}

fn named((name, map, notes): &(String, Map, yaml::Notes), line: u32) -> Entry {
    Entry {
        key: name.clone(),
        value: Node::new(Value::Map(map.clone())),
        line,
        notes: notes.clone(),
    }
}

/// Set or remove a known key. `valid` says whether an old value fits the schema (only
/// then may an unset field remove it).
fn put(m: &mut Map, key: &str, value: Option<Node>, after: &[&str], valid: fn(&Node) -> bool) {
    match value {
        Some(new) => {
            let keep = m.get(key).is_some_and(|old| old.same(&new));
            if !keep {
                m.set(key, new, after);
            }
        }
        None => {
            if m.get(key).is_some_and(valid) {
                m.remove(key);
            }
        }
    }
}

/// The keys of `keys` before `key` (where a new `key` goes).
fn before<'a>(keys: &'a [&'a str], key: &str) -> &'a [&'a str] {
    &keys[..keys.iter().position(|k| *k == key).unwrap_or(keys.len())]
}

fn valid_string(n: &Node) -> bool {
    n.as_scalar().is_some() || n.is_null()
}

fn valid_date(n: &Node) -> bool {
    n.is_null()
        || n.as_scalar()
            .is_some_and(|s| s.text.parse::<Date>().is_ok())
}

fn valid_count(n: &Node) -> bool {
    n.is_null()
        || n.as_scalar()
            .is_some_and(|s| s.style == yaml::Style::Plain && s.text.parse::<u64>().is_ok())
}

fn valid_map(n: &Node) -> bool {
    n.is_null() || n.as_map().is_some()
}

/// A string field: an old scalar with the same text is kept as it was written.
fn put_str(m: &mut Map, keys: &[&str], key: &str, value: Option<&String>) {
    let same = value.is_some_and(|v| {
        m.get(key)
            .and_then(Node::as_scalar)
            .is_some_and(|s| s.text == *v && !m.get(key).is_some_and(Node::is_null))
    });
    if !same {
        put(
            m,
            key,
            value.map(|v| Node::string(v)),
            before(keys, key),
            valid_string,
        );
    }
}

fn put_date(m: &mut Map, keys: &[&str], key: &str, value: Option<Date>) {
    let same = value.is_some_and(|v| {
        m.get(key)
            .and_then(Node::as_scalar)
            .is_some_and(|s| s.text == v.to_string())
    });
    if !same {
        put(
            m,
            key,
            value.map(|d| Node::plain(&d.to_string())),
            before(keys, key),
            valid_date,
        );
    }
}

fn put_count(m: &mut Map, keys: &[&str], key: &str, value: Option<u64>) {
    put(
        m,
        key,
        value.map(|n| Node::plain(&n.to_string())),
        before(keys, key),
        valid_count,
    );
}

fn put_map(m: &mut Map, keys: &[&str], key: &str, value: Option<Map>) {
    put(
        m,
        key,
        value.map(|v| Node::new(Value::Map(v))),
        before(keys, key),
        valid_map,
    );
}

/// A rule's entry: its node as read, with the model's fields written in.
pub(crate) fn rule_node(r: &RuleEntry) -> Map {
    let mut m = r.node.clone();
    let k = &RULE_KEYS;
    put_str(&mut m, k, "fingerprint", r.fingerprint.as_ref());
    put_str(&mut m, k, "origin", r.origin.as_ref());
    put_str(&mut m, k, "reason", r.reason.as_ref());
    put_str(&mut m, k, "owner", r.owner.as_ref());
    put_str(&mut m, k, "tracking", r.tracking.as_ref());
    put_date(&mut m, k, "created", r.created);
    put_date(&mut m, k, "expires", r.expires);
    put_str(&mut m, k, "keep", r.keep.as_ref());
    put_map(&mut m, k, "reviewed", r.reviewed.as_ref().map(review_node));
    put_map(
        &mut m,
        k,
        "generated",
        r.generated.as_ref().map(generated_node),
    );
    put_map(&mut m, k, "seen", r.seen.as_ref().map(seen_node));
    m
}

fn retired_node(r: &Retired) -> Map {
    let mut m = r.node.clone();
    put_date(&mut m, &RETIRED_KEYS, "retired", r.retired);
    put_str(&mut m, &RETIRED_KEYS, "why", r.why.as_ref());
    m
}

fn generated_node(g: &Generated) -> Map {
    let mut m = g.node.clone();
    let k = &GENERATED_KEYS;
    put_str(&mut m, k, "tool", g.tool.as_ref());
    let from = from_seq(m.get("from"), &g.from);
    put(&mut m, "from", from, before(k, "from"), |n| {
        n.is_null() || n.as_seq().is_some()
    });
    let env = environment_map(m.get("environment"), &g.environment);
    put(
        &mut m,
        "environment",
        env,
        before(k, "environment"),
        valid_map,
    );
    m
}

/// `from:` — old mapping items are replaced, in order, by the model's sources; items that
/// were not mappings stay; further sources are appended (in flow style, one per line).
fn from_seq(old: Option<&Node>, sources: &[Source]) -> Option<Node> {
    let old_seq = old.and_then(Node::as_seq);
    if sources.is_empty()
        && old_seq.is_none_or(|s| s.items.iter().all(|i| i.node.as_map().is_some()))
    {
        return None;
    }
    let mut next = sources.iter();
    let mut items = Vec::new();
    for item in old_seq.map(|s| s.items.as_slice()).unwrap_or_default() {
        if item.node.as_map().is_some() {
            if let Some(src) = next.next() {
                items.push(Item {
                    node: Node::new(Value::Map(source_node(src))),
                    notes: item.notes.clone(),
                });
            }
        } else {
            items.push(item.clone());
        }
    }
    let mut seq = Seq {
        items,
        flow: old_seq.is_some_and(|s| s.flow),
    };
    seq.items.extend(
        Seq::of(
            next.map(|src| Node::new(Value::Map(source_node(src)))),
            false,
        )
        .items,
    );
    Some(Node::new(Value::Seq(seq)))
}

fn source_node(s: &Source) -> Map {
    let mut m = s.node.clone();
    if m.entries.is_empty() {
        m.flow = true;
    }
    let k = &SOURCE_KEYS;
    put_str(&mut m, k, "log", s.log.as_ref());
    put_str(&mut m, k, "sha256", s.sha256.as_ref());
    put_str(&mut m, k, "valgrind", s.valgrind.as_ref());
    put_str(&mut m, k, "command", s.command.as_ref());
    put_count(&mut m, k, "errors", s.errors);
    m
}

/// `environment:` — entries keep their place and comments; values that were not scalars
/// stay; new keys are appended.
fn environment_map(old: Option<&Node>, env: &[(String, String)]) -> Option<Node> {
    let old_map = old.and_then(Node::as_map);
    if env.is_empty() && old_map.is_none() {
        return None;
    }
    let mut m = Map {
        entries: Vec::new(),
        flow: old_map.is_none_or(|m| m.flow),
    };
    for e in old_map.map(|m| m.entries.as_slice()).unwrap_or_default() {
        match env.iter().find(|(k, _)| *k == e.key) {
            Some((_, v)) => {
                let mut e = e.clone();
                let same = e.value.as_scalar().is_some_and(|s| s.text == *v) && !e.value.is_null();
                if !same {
                    e.value = Node::string(v);
                }
                m.entries.push(e);
            }
            None if e.value.as_scalar().is_none() || e.value.is_null() => m.entries.push(e.clone()),
            None => {}
        }
    }
    for (k, v) in env {
        if m.get(k).is_none() {
            m.push(k, Node::string(v));
        }
    }
    Some(Node::new(Value::Map(m)))
}

fn review_node(r: &Review) -> Map {
    let mut m = r.node.clone();
    if m.entries.is_empty() {
        m.flow = true;
    }
    let k = &REVIEW_KEYS;
    put_date(&mut m, k, "date", r.date);
    put_str(&mut m, k, "by", r.by.as_ref());
    put_str(&mut m, k, "reason", r.reason.as_ref());
    m
}

fn seen_node(s: &Seen) -> Map {
    let mut m = s.node.clone();
    if m.entries.is_empty() {
        m.flow = true;
    }
    let k = &SEEN_KEYS;
    put_date(&mut m, k, "first", s.first);
    put_date(&mut m, k, "last", s.last);
    put_count(&mut m, k, "hits", s.hits);
    put_count(&mut m, k, "logs", s.logs);
    m
}
