//! Writing a [`Document`] back as YAML: block style with 2-space indentation, entries in
//! their order, comments where they were read, flow collections kept in flow style while
//! they hold only scalars and fit on a line. Every scalar is written in its own style when
//! that reads back as the same value, else double-quoted: what is written reads back as
//! the same tree (`read(write(d))` is `d`, up to comments on block scalars).

use std::fmt::Write as _;

use super::scalar::{self, Resolved};
use super::tree::{Document, Entry, Item, Map, Node, Notes, Scalar, Seq, Style, Value};

/// The longest flow collection kept on one line.
const FLOW_WIDTH: usize = 160;
/// Keys written longer than this (quotes and escapes included) are written as explicit keys
/// (`? key`): YAML limits implicit keys to 1024 characters of source.
const LONG_KEY: usize = 1000;

/// The YAML text of `doc`.
#[must_use]
pub fn write(doc: &Document) -> String {
    let mut w = Writer { out: String::new() };
    match doc.root.as_ref().map(|n| &n.value) {
        Some(Value::Map(m)) if !m.entries.is_empty() => w.map(m, 0),
        Some(Value::Seq(s)) if !s.items.is_empty() => w.seq(s, 0),
        Some(Value::Map(_)) => w.out.push_str("{}\n"),
        Some(Value::Seq(_)) => w.out.push_str("[]\n"),
        Some(Value::Scalar(s)) => {
            w.out.push_str(&inline_scalar(s, true));
            w.out.push('\n');
        }
        None => {}
    }
    for c in &doc.end_comments {
        w.comment_line(c, 0);
    }
    w.out
}

struct Writer {
    out: String,
}

impl Writer {
    fn indent(&mut self, n: usize) {
        self.out.extend(std::iter::repeat_n(' ', n));
    }

    fn comment_line(&mut self, text: &str, indent: usize) {
        self.indent(indent);
        self.out.push('#');
        self.out.push_str(&comment_text(text));
        self.out.push('\n');
    }

    /// Blank line and comments above an entry or item.
    fn notes_before(&mut self, notes: &Notes, indent: usize) {
        if notes.blank_before && !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
        for c in &notes.before {
            self.comment_line(c, indent);
        }
    }

    fn trailing(&mut self, notes: &Notes) {
        if let Some(t) = &notes.trailing {
            self.out.push_str("  #");
            self.out.push_str(&comment_text(t));
        }
    }

    fn map(&mut self, m: &Map, indent: usize) {
        for e in &m.entries {
            self.notes_before(&e.notes, indent);
            self.indent(indent);
            self.entry(e, indent);
        }
    }

    /// One entry, from its key on (the indentation is written).
    fn entry(&mut self, e: &Entry, indent: usize) {
        let key = key_text(&e.key);
        if key.chars().count() > LONG_KEY {
            self.out.push_str("? ");
            self.out.push_str(&key);
            self.out.push('\n');
            self.indent(indent);
        } else {
            self.out.push_str(&key);
        }
        self.out.push(':');
        self.value_after_key(&e.value, &e.notes, indent);
    }

    /// What follows `key:` (or `-`): an inline value, or a newline and a nested block.
    fn value_after_key(&mut self, node: &Node, notes: &Notes, indent: usize) {
        match &node.value {
            Value::Scalar(s) => {
                if let Some(block) = literal(s) {
                    self.out.push(' ');
                    self.out.push_str(&block.header);
                    self.out.push('\n');
                    for line in block.lines {
                        if !line.is_empty() {
                            self.indent(indent + 2);
                            self.out.push_str(line);
                        }
                        self.out.push('\n');
                    }
                    return;
                }
                let text = inline_scalar(s, false);
                if !text.is_empty() {
                    self.out.push(' ');
                    self.out.push_str(&text);
                }
                self.trailing(notes);
                self.out.push('\n');
            }
            Value::Map(m) if m.entries.is_empty() => self.inline_line(" {}", notes),
            Value::Seq(s) if s.items.is_empty() => self.inline_line(" []", notes),
            _ => {
                if let Some(flow) = flow_text(node) {
                    self.out.push(' ');
                    self.inline_line(&flow, notes);
                    return;
                }
                self.trailing(notes);
                self.out.push('\n');
                match &node.value {
                    Value::Map(m) => self.map(m, indent + 2),
                    Value::Seq(s) => self.seq(s, indent + 2),
                    Value::Scalar(_) => {}
                }
            }
        }
    }

    fn inline_line(&mut self, text: &str, notes: &Notes) {
        self.out.push_str(text);
        self.trailing(notes);
        self.out.push('\n');
    }

    /// A block sequence.
    ///
    /// A non-empty block collection in a sequence is written compactly, its first entry or
    /// item on the `-` line (`- key: value`, `- - x`), and the comments of that first entry
    /// or item are written above the `-`: a reader finds them there either way, since the
    /// collection starts on the `-` line.
    fn seq(&mut self, s: &Seq, indent: usize) {
        for item in &s.items {
            let chain = leading_notes(item);
            let merged = Notes {
                blank_before: chain.iter().any(|n| n.blank_before),
                before: chain
                    .iter()
                    .flat_map(|n| n.before.iter().cloned())
                    .collect(),
                trailing: None,
            };
            self.notes_before(&merged, indent);
            self.indent(indent);
            self.out.push('-');
            self.item(item, indent);
        }
    }

    fn item(&mut self, item: &Item, indent: usize) {
        match compact(item) {
            Some(Value::Map(m)) => {
                self.out.push(' ');
                for (i, e) in m.entries.iter().enumerate() {
                    if i > 0 {
                        self.notes_before(&e.notes, indent + 2);
                        self.indent(indent + 2);
                    }
                    self.entry(e, indent + 2);
                }
            }
            Some(Value::Seq(s)) => {
                self.out.push(' ');
                // The first item goes on this line; its comments were written above.
                for (i, inner) in s.items.iter().enumerate() {
                    if i > 0 {
                        self.notes_before(&inner.notes, indent + 2);
                        self.indent(indent + 2);
                    }
                    self.out.push('-');
                    self.item(inner, indent + 2);
                }
            }
            _ => self.value_after_key(&item.node, &item.notes, indent),
        }
    }
}

/// The collection an item holds when it is written compactly (`- key: value`, `- - x`): a
/// non-empty mapping or sequence that is not written in flow style.
fn compact(item: &Item) -> Option<&Value> {
    let v = &item.node.value;
    let non_empty = match v {
        Value::Map(m) => !m.entries.is_empty(),
        Value::Seq(s) => !s.items.is_empty(),
        Value::Scalar(_) => false,
    };
    (non_empty && flow_text(&item.node).is_none()).then_some(v)
}

/// The notes written above an item's `-`: its own, then those of the compact first
/// entries and items that share its line.
fn leading_notes(item: &Item) -> Vec<&Notes> {
    let mut chain = vec![&item.notes];
    let mut cur = item;
    loop {
        match compact(cur) {
            Some(Value::Map(m)) => {
                if let Some(e) = m.entries.first() {
                    chain.push(&e.notes);
                }
                return chain;
            }
            Some(Value::Seq(s)) => match s.items.first() {
                Some(first) => {
                    chain.push(&first.notes);
                    cur = first;
                }
                None => return chain,
            },
            _ => return chain,
        }
    }
}

/// A comment's text as it can be written: on one line, printable.
fn comment_text(text: &str) -> String {
    text.chars()
        .map(|c| {
            if scalar::is_printable(c) && !matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}') {
                c
            } else {
                '\u{fffd}'
            }
        })
        .collect()
}

fn key_text(key: &str) -> String {
    if scalar::plain_string_ok(key) {
        key.to_owned()
    } else {
        scalar::double_quoted(key)
    }
}

/// A scalar on one line, in its own style where that reads back the same, else
/// double-quoted. Null is written as nothing in block context, `~` in flow.
fn inline_scalar(s: &Scalar, flow: bool) -> String {
    match s.style {
        Style::Plain if s.resolve() == Resolved::Null && !flow && s.text.is_empty() => {
            String::new()
        }
        Style::Plain if s.text.is_empty() => "~".to_owned(),
        Style::Plain if scalar::plain_syntax_ok(&s.text, flow) => s.text.clone(),
        Style::SingleQuoted if scalar::single_quoted_ok(&s.text) => {
            format!("'{}'", s.text.replace('\'', "''"))
        }
        Style::Literal | Style::Folded if scalar::plain_string_ok(&s.text) => s.text.clone(),
        _ => scalar::double_quoted(&s.text),
    }
}

/// A literal block's header (`|`, `|-`, `|+`) and lines.
struct Literal<'a> {
    header: String,
    lines: Vec<&'a str>,
}

/// A block scalar written back as a literal block, when its text can be.
fn literal(s: &Scalar) -> Option<Literal<'_>> {
    if !matches!(s.style, Style::Literal | Style::Folded) || !scalar::literal_ok(&s.text) {
        return None;
    }
    let text = s.text.as_str();
    let chomp = if !text.ends_with('\n') {
        "-"
    } else if text.ends_with("\n\n") {
        "+"
    } else {
        ""
    };
    let content = text.strip_suffix('\n').unwrap_or(text);
    Some(Literal {
        header: format!("|{chomp}"),
        lines: content.split('\n').collect(),
    })
}

/// The node in flow style on one line, when it was read in flow style, holds only scalars
/// and flow collections without comments, and fits.
fn flow_text(node: &Node) -> Option<String> {
    let mut out = String::new();
    flow_into(node, &mut out, 0)?;
    (out.len() <= FLOW_WIDTH).then_some(out)
}

fn flow_into(node: &Node, out: &mut String, depth: usize) -> Option<()> {
    if out.len() > FLOW_WIDTH {
        return None;
    }
    match &node.value {
        Value::Scalar(s) => out.push_str(&inline_scalar(s, true)),
        Value::Map(m) => {
            if !m.flow || depth > 2 || m.entries.iter().any(|e| e.notes != Notes::default()) {
                return None;
            }
            out.push('{');
            for (i, e) in m.entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let key = key_text(&e.key);
                if key.chars().count() > LONG_KEY {
                    return None;
                }
                let _ = write!(out, "{key}: ");
                flow_into(&e.value, out, depth + 1)?;
            }
            out.push('}');
        }
        Value::Seq(s) => {
            if !s.flow || depth > 2 || s.items.iter().any(|i| i.notes != Notes::default()) {
                return None;
            }
            out.push('[');
            for (i, item) in s.items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow_into(&item.node, out, depth + 1)?;
            }
            out.push(']');
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::read::{Limits, read};
    use super::*;

    fn round(s: &str) -> String {
        let d = read(s.as_bytes(), &Limits::SIDECAR).expect("reads");
        let out = write(&d);
        let again = read(out.as_bytes(), &Limits::SIDECAR).expect("reads back");
        assert!(
            d.root
                .as_ref()
                .zip(again.root.as_ref())
                .is_none_or(|(a, b)| a.same(b)),
            "not the same after writing:\n{out}"
        );
        assert_eq!(write(&again), out, "writing is not stable");
        out
    }

    #[test]
    fn canonical_text_is_kept_as_is() {
        let text = "# generated by vgsupp\nversion: 1\nrules:\n  # the driver\n  cuda.Param.ioctl:\n    fingerprint: 3f2a9c1b7d0e  # body hash\n    owner: \"@ml-infra\"\n    reason: |\n      libcuda passes ioctl buffers\n      that the kernel fills\n    created: 2026-11-30\n    generated:\n      from:\n        - {log: ci/test.log, errors: 3}\n        - log: other.log\n          errors: 4\n      environment: {libcudart: \"12\", python: \"3.11\"}\n\n  empty: {}\n  list: []\n  nothing:\nretired:\n  old: {retired: 2026-12-20, why: 'stale: 0 hits'}\n# end\n";
        assert_eq!(round(text), text);
    }

    #[test]
    fn styles_that_cannot_be_kept_become_double_quoted() {
        assert_eq!(round("a: 'it''s'\nb: 'x\n  y'\n"), "a: 'it''s'\nb: 'x y'\n");
        assert_eq!(round("a: \"tab\\there\"\n"), "a: \"tab\\there\"\n");
        assert_eq!(round("a: >\n  folded\n  text\n"), "a: |\n  folded text\n");
        assert_eq!(round("a: >-\n  folded\n  text\n"), "a: folded text\n");
        assert_eq!(round("a: |2\n   lead\n  x\n"), "a: \" lead\\nx\\n\"\n");
        assert_eq!(round("a: |+\n  x\n\n\nb: 1\n"), "a: |+\n  x\n\n\nb: 1\n");
        assert_eq!(round("a: |-\n  x\n  y\n"), "a: |-\n  x\n  y\n");
        assert_eq!(round("a: [x, {b: c}]\n"), "a: [x, {b: c}]\n");
        assert_eq!(round("a: [x,\n  # c\n  y]\n"), "a:\n  - x\n  # c\n  - y\n");
        assert_eq!(
            round("- a: 1\n  b: 2\n-\n  - x\n- ~\n-\n"),
            "- a: 1\n  b: 2\n- - x\n- ~\n-\n"
        );
        assert_eq!(round("-\n  # c\n  a: 1\n"), "# c\n- a: 1\n");
        assert_eq!(round("\"a b\": 1\n\"12\": x\n"), "a b: 1\n\"12\": x\n");
        let long = format!("? {}\n: 1\n", "k".repeat(1100));
        assert_eq!(round(&long), format!("? {}\n: 1\n", "k".repeat(1100)));
        let escaped = format!("? \"{}\"\n: 1\n", "\\x05".repeat(300));
        assert!(round(&escaped).starts_with("? \"\\x05"));
    }

    #[test]
    fn comments_follow_their_entry() {
        let text = "a: 1\n\n# about b\nb:   # b's\n  c: 2\n";
        assert_eq!(round(text), "a: 1\n\n# about b\nb:  # b's\n  c: 2\n");
        let mut d = read(text.as_bytes(), &Limits::SIDECAR).expect("reads");
        if let Some(m) = d.root.as_mut().and_then(Node::as_map_mut) {
            m.remove("a");
        }
        assert_eq!(write(&d), "# about b\nb:  # b's\n  c: 2\n");
    }
}
