//! The tree a YAML document is read into: ordered mappings, sequences and scalars, each
//! scalar with the style it was written in, each entry with the comments written around it.
//!
//! Keys are strings (vgsupp's files never need other keys). Mappings keep their entries in
//! file order; a mapping or sequence remembers whether it was written in flow style
//! (`{a: 1}`), so a rewrite looks like what was read.

use super::scalar::{self, Resolved};

/// A document: its root node and the comments after the last entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Document {
    /// The root node; `None` for a document with no content (empty, or only comments).
    pub root: Option<Node>,
    /// Comment lines after the last entry (text after `#`).
    pub end_comments: Vec<String>,
}

/// A node and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// What it holds.
    pub value: Value,
    /// The 1-based line it starts on; 0 for nodes made by code.
    pub line: u32,
}

/// A node's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A scalar.
    Scalar(Scalar),
    /// A sequence.
    Seq(Seq),
    /// A mapping.
    Map(Map),
}

/// A scalar's text and the style it is (or will be) written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// The value, escapes and folding resolved.
    pub text: String,
    /// How it was written.
    pub style: Style,
}

/// How a scalar is written. Only plain scalars are resolved to null, booleans and numbers
/// (YAML 1.2 core schema); every other style is a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `text`.
    Plain,
    /// `'text'`.
    SingleQuoted,
    /// `"text"`.
    DoubleQuoted,
    /// `|` block.
    Literal,
    /// `>` block (rewritten as a literal block, which keeps the same text).
    Folded,
}

/// A mapping: entries in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Map {
    /// The entries.
    pub entries: Vec<Entry>,
    /// Written as `{…}`.
    pub flow: bool,
}

/// One `key: value` of a mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Node,
    /// The 1-based line of the key; 0 for entries made by code.
    pub line: u32,
    /// Comments and spacing around it.
    pub notes: Notes,
}

/// A sequence.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Seq {
    /// The items.
    pub items: Vec<Item>,
    /// Written as `[…]`.
    pub flow: bool,
}

/// One item of a sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The item.
    pub node: Node,
    /// Comments and spacing around it.
    pub notes: Notes,
}

/// What is written around an entry or item besides its content: the comment lines directly
/// above it, a comment at the end of its first line, and whether a blank line precedes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Notes {
    /// A blank line precedes it (or its comments).
    pub blank_before: bool,
    /// Whole-line comments directly above it, each the text after `#`.
    pub before: Vec<String>,
    /// The comment at the end of its first line, the text after `#`.
    pub trailing: Option<String>,
}

impl Node {
    /// A node made by code.
    #[must_use]
    pub const fn new(value: Value) -> Self {
        Self { value, line: 0 }
    }

    /// A string scalar, written plain where that reads back as the same string, else
    /// double-quoted.
    #[must_use]
    pub fn string(text: &str) -> Self {
        Self::new(Value::Scalar(Scalar::string(text)))
    }

    /// A plain scalar that is meant to resolve to what it says (a number, a date).
    #[must_use]
    pub fn plain(text: &str) -> Self {
        Self::new(Value::Scalar(Scalar {
            text: text.to_owned(),
            style: Style::Plain,
        }))
    }

    /// An empty block mapping.
    #[must_use]
    pub fn map() -> Self {
        Self::new(Value::Map(Map::default()))
    }

    /// The scalar, if it is one.
    #[must_use]
    pub const fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The mapping, if it is one.
    #[must_use]
    pub const fn as_map(&self) -> Option<&Map> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The mapping, mutably, if it is one.
    pub const fn as_map_mut(&mut self) -> Option<&mut Map> {
        match &mut self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The sequence, if it is one.
    #[must_use]
    pub const fn as_seq(&self) -> Option<&Seq> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// Whether it is a null scalar (`~`, `null`, or nothing at all).
    #[must_use]
    pub fn is_null(&self) -> bool {
        self.as_scalar()
            .is_some_and(|s| s.resolve() == Resolved::Null)
    }

    /// What kind of value it is, for messages: `a mapping`, `a string`, …
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match &self.value {
            Value::Map(_) => "a mapping",
            Value::Seq(_) => "a sequence",
            Value::Scalar(s) => s.resolve().name(),
        }
    }

    /// Whether two nodes hold the same data: same keys in the same order, same scalars as
    /// the YAML core schema resolves them. Lines, comments and styles that do not change a
    /// value are ignored.
    #[must_use]
    pub fn same(&self, other: &Self) -> bool {
        match (&self.value, &other.value) {
            (Value::Scalar(a), Value::Scalar(b)) => a.same(b),
            (Value::Seq(a), Value::Seq(b)) => {
                a.items.len() == b.items.len()
                    && a.items
                        .iter()
                        .zip(&b.items)
                        .all(|(x, y)| x.node.same(&y.node))
            }
            (Value::Map(a), Value::Map(b)) => a.same(b),
            _ => false,
        }
    }
}

impl Scalar {
    /// A string, written plain where that reads back as the same string (also for YAML 1.1
    /// readers), else double-quoted.
    #[must_use]
    pub fn string(text: &str) -> Self {
        let style = if scalar::plain_string_ok(text) {
            Style::Plain
        } else {
            Style::DoubleQuoted
        };
        Self {
            text: text.to_owned(),
            style,
        }
    }

    /// What it resolves to under the YAML 1.2 core schema.
    #[must_use]
    pub fn resolve(&self) -> Resolved {
        if self.style == Style::Plain {
            scalar::resolve_plain(&self.text)
        } else {
            Resolved::Str
        }
    }

    /// Same resolved type and the same text (any two nulls are the same).
    #[must_use]
    pub fn same(&self, other: &Self) -> bool {
        let kind = self.resolve();
        kind == other.resolve() && (kind == Resolved::Null || self.text == other.text)
    }
}

impl Map {
    /// The entry for `key`, if any.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries.iter().find(|e| e.key == key).map(|e| &e.value)
    }

    /// The entry for `key`, mutably, if any.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.entries
            .iter_mut()
            .find(|e| e.key == key)
            .map(|e| &mut e.value)
    }

    /// The position of `key`'s entry, if any.
    #[must_use]
    pub fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.key == key)
    }

    /// Remove `key`'s entry, returning it.
    pub fn remove(&mut self, key: &str) -> Option<Entry> {
        self.position(key).map(|i| self.entries.remove(i))
    }

    /// Set `key` to `value`: an existing entry keeps its place and its comments; a new one
    /// goes right after the last entry whose key is in `after` (keys that come before it in
    /// the schema), or first when none is there.
    pub fn set(&mut self, key: &str, value: Node, after: &[&str]) {
        if let Some(node) = self.get_mut(key) {
            *node = value;
            return;
        }
        let at = self
            .entries
            .iter()
            .rposition(|e| after.contains(&e.key.as_str()))
            .map_or(0, |i| i + 1);
        self.entries.insert(at, Entry::new(key, value));
    }

    /// Append `key: value` (no check for an existing `key`).
    pub fn push(&mut self, key: &str, value: Node) {
        self.entries.push(Entry::new(key, value));
    }

    /// Same keys in the same order with the same values.
    #[must_use]
    pub fn same(&self, other: &Self) -> bool {
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|(a, b)| a.key == b.key && a.value.same(&b.value))
    }
}

impl Entry {
    /// An entry made by code.
    #[must_use]
    pub fn new(key: &str, value: Node) -> Self {
        Self {
            key: key.to_owned(),
            value,
            line: 0,
            notes: Notes::default(),
        }
    }
}

impl Seq {
    /// A sequence of the nodes, made by code.
    #[must_use]
    pub fn of(nodes: impl IntoIterator<Item = Node>, flow: bool) -> Self {
        Self {
            items: nodes
                .into_iter()
                .map(|node| Item {
                    node,
                    notes: Notes::default(),
                })
                .collect(),
            flow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_keeps_place_or_follows_the_schema() {
        let mut m = Map::default();
        m.set("b", Node::string("1"), &["a"]);
        m.set("a", Node::string("0"), &[]);
        m.set("d", Node::string("3"), &["a", "b", "c"]);
        m.push("x", Node::string("unknown"));
        m.set("c", Node::string("2"), &["a", "b"]);
        let keys: Vec<&str> = m.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "x"]);
        m.set("b", Node::string("one"), &["a"]);
        assert_eq!(
            m.get("b")
                .and_then(Node::as_scalar)
                .map(|s| s.text.as_str()),
            Some("one")
        );
        assert_eq!(m.position("b"), Some(1));
    }

    #[test]
    fn same_compares_resolved_scalars() {
        let plain12 = Node::plain("12");
        let quoted12 = Node::string("12");
        assert_eq!(
            quoted12.as_scalar().map(|s| s.style),
            Some(Style::DoubleQuoted)
        );
        assert!(!plain12.same(&quoted12), "an integer is not a string");
        let a = Node::plain("abc");
        let b = Node::new(Value::Scalar(Scalar {
            text: "abc".into(),
            style: Style::SingleQuoted,
        }));
        assert!(a.same(&b));
        assert!(Node::plain("~").is_null() && Node::plain("").is_null());
        assert!(!Node::string("null").is_null());
    }
}
