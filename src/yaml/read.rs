//! Reading a YAML document into a [`Document`], bounded.
//!
//! The events come from `saphyr-parser`; this module builds the tree without recursion and
//! refuses, with the line where it happens: aliases (`*name`, so that a small file cannot
//! expand into gigabytes: the "billion laughs"), nesting deeper than [`Limits::max_depth`],
//! scalars longer than [`Limits::max_scalar`], files larger than [`Limits::max_bytes`],
//! more than [`Limits::max_nodes`] nodes, more than one document, keys that are not
//! scalars, and duplicate keys. Comments and blank lines, which the parser does not report,
//! are taken from the source lines ([`super::source`]) and attached to the entry below
//! them.

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use super::source::SourceLines;
use super::tree::{Document, Entry, Item, Map, Node, Notes, Scalar, Seq, Style, Value};

/// Bounds on what one document may cost to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes in the file.
    pub max_bytes: usize,
    /// Mappings and sequences open at once.
    pub max_depth: usize,
    /// Characters in one scalar (key or value).
    pub max_scalar: usize,
    /// Nodes (scalars, mappings, sequences) in the document.
    pub max_nodes: usize,
}

impl Limits {
    /// Limits for a sidecar: room for tens of thousands of rules with their provenance.
    pub const SIDECAR: Self = Self {
        max_bytes: 32 << 20,
        max_depth: 16,
        max_scalar: 64 << 10,
        max_nodes: 2_000_000,
    };

    /// Limits for `vgsupp.yaml`, a hand-written file of a few dozen settings.
    pub const CONFIG: Self = Self {
        max_bytes: 1 << 20,
        max_depth: 8,
        max_scalar: 16 << 10,
        max_nodes: 100_000,
    };
}

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct ReadError {
    /// The 1-based line where reading stopped (1 for problems of the whole file).
    pub line: u32,
    /// What went wrong.
    pub kind: ReadErrorKind,
}

/// What went wrong reading a document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadErrorKind {
    /// The bytes are not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// The file is larger than the limit.
    #[error("the file is {size} bytes, more than the {limit} allowed")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// YAML syntax error.
    #[error("invalid YAML: {0}")]
    Syntax(String),
    /// An alias.
    #[error("aliases (`*name`) are not allowed: vgsupp does not expand them")]
    Alias,
    /// Nesting deeper than the limit.
    #[error("nested more than {0} levels deep")]
    TooDeep(usize),
    /// A scalar longer than the limit.
    #[error("a value of {size} characters, more than the {limit} allowed")]
    ScalarTooLarge {
        /// Its length in characters.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// More nodes than the limit.
    #[error("more than {0} values")]
    TooManyNodes(usize),
    /// A second document (`---`).
    #[error("more than one YAML document")]
    SeveralDocuments,
    /// A mapping key that is a mapping or a sequence.
    #[error("a key that is not a scalar")]
    ComplexKey,
    /// The same key twice in one mapping.
    #[error("duplicate key `{key}` (first at line {first})")]
    DuplicateKey {
        /// The key.
        key: String,
        /// The line of its first occurrence.
        first: u32,
    },
}

/// Read one YAML document within `limits`.
///
/// # Errors
/// When the bytes are not a YAML document vgsupp accepts (see the module documentation).
pub fn read(src: &[u8], limits: &Limits) -> Result<Document, ReadError> {
    if src.len() > limits.max_bytes {
        return Err(ReadError {
            line: 1,
            kind: ReadErrorKind::TooLarge {
                size: src.len(),
                limit: limits.max_bytes,
            },
        });
    }
    let text = std::str::from_utf8(src).map_err(|e| ReadError {
        line: line_of_byte(src, e.valid_up_to()),
        kind: ReadErrorKind::NotUtf8,
    })?;
    Builder::new(text, limits).run()
}

fn line_of_byte(src: &[u8], at: usize) -> u32 {
    let breaks = src[..at.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(breaks + 1).unwrap_or(u32::MAX)
}

fn line_u32(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// An open mapping or sequence.
enum Frame {
    Map {
        map: Map,
        line: u32,
        /// The key read and waiting for its value.
        key: Option<PendingKey>,
        /// The notes this mapping gets as a sequence item.
        item_notes: Notes,
    },
    Seq {
        seq: Seq,
        line: u32,
        item_notes: Notes,
    },
}

struct PendingKey {
    key: String,
    line: u32,
    notes: Notes,
    /// Where the key ends (line, column): a block collection's comment follows `key:`.
    end: (u32, usize),
}

struct Builder<'a> {
    text: &'a str,
    lines: SourceLines<'a>,
    limits: &'a Limits,
    stack: Vec<Frame>,
    root: Option<Node>,
    nodes: usize,
    documents: usize,
    /// Lines that may be whole-line comments, in order, and the next one to look at.
    comment_lines: Vec<u32>,
    next_comment: usize,
    /// Lines inside multi-line scalars (never comments or blank separators), as ranges.
    inside_scalars: Vec<(u32, u32)>,
}

impl<'a> Builder<'a> {
    fn new(text: &'a str, limits: &'a Limits) -> Self {
        let lines = SourceLines::new(text);
        let comment_lines = (1..=lines.count())
            .filter(|&n| lines.comment(n).is_some())
            .collect();
        Self {
            text,
            lines,
            limits,
            stack: Vec::new(),
            root: None,
            nodes: 0,
            documents: 0,
            comment_lines,
            next_comment: 0,
            inside_scalars: Vec::new(),
        }
    }

    fn run(mut self) -> Result<Document, ReadError> {
        let mut parser = Parser::new_from_str(self.text).keep_tags(true);
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(|e| ReadError {
                line: line_u32(e.marker().line()),
                kind: ReadErrorKind::Syntax(e.info().to_owned()),
            })?;
            self.event(event, span)?;
        }
        let end = self.lines.count().saturating_add(1);
        let end_comments = self.take_comments_before(end).before;
        Ok(Document {
            root: self.root,
            end_comments,
        })
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), ReadError> {
        let line = line_u32(span.start.line());
        let fail = |kind| Err(ReadError { line, kind });
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return fail(ReadErrorKind::SeveralDocuments);
                }
            }
            Event::Alias(_) => return fail(ReadErrorKind::Alias),
            Event::Scalar(text, style, _anchor, tag) => {
                self.count_node(line)?;
                let size = text.chars().count();
                if size > self.limits.max_scalar {
                    return fail(ReadErrorKind::ScalarTooLarge {
                        size,
                        limit: self.limits.max_scalar,
                    });
                }
                self.note_scalar_lines(style, &span);
                // `!!str 12` is the string "12"; other tags are not kept.
                let is_str_tag = tag.is_some_and(|t| t.is_yaml_core_schema() && t.suffix == "str");
                let style = match style {
                    ScalarStyle::Plain if is_str_tag => Style::DoubleQuoted,
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                };
                let block = matches!(style, Style::Literal | Style::Folded);
                self.scalar(text.into_owned(), style, block, &span)?;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                self.count_node(line)?;
                if self.stack.len() >= self.limits.max_depth {
                    return fail(ReadErrorKind::TooDeep(self.limits.max_depth));
                }
                if matches!(self.stack.last(), Some(Frame::Map { key: None, .. })) {
                    return fail(ReadErrorKind::ComplexKey);
                }
                let item_notes = if matches!(self.stack.last(), Some(Frame::Seq { .. })) {
                    self.take_comments_before(line)
                } else {
                    Notes::default()
                };
                // A flow collection's span covers its `[` or `{`; a block one is empty.
                let flow = span.end.index() > span.start.index();
                self.stack
                    .push(if matches!(event, Event::MappingStart(..)) {
                        Frame::Map {
                            map: Map {
                                entries: Vec::new(),
                                flow,
                            },
                            line,
                            key: None,
                            item_notes,
                        }
                    } else {
                        Frame::Seq {
                            seq: Seq {
                                items: Vec::new(),
                                flow,
                            },
                            line,
                            item_notes,
                        }
                    });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Ok(());
                };
                let (node, flow, item_notes) = match frame {
                    Frame::Map {
                        map,
                        line,
                        item_notes,
                        ..
                    } => {
                        let flow = map.flow;
                        (
                            Node {
                                value: Value::Map(map),
                                line,
                            },
                            flow,
                            item_notes,
                        )
                    }
                    Frame::Seq {
                        seq,
                        line,
                        item_notes,
                    } => {
                        let flow = seq.flow;
                        (
                            Node {
                                value: Value::Seq(seq),
                                line,
                            },
                            flow,
                            item_notes,
                        )
                    }
                };
                // A flow collection may have a comment after its closing bracket; a block
                // one's comment follows its key (`key:   # note`).
                let trailing = if flow {
                    // The end event's span starts at the closing bracket.
                    self.trailing_after(span.start.line(), span.start.col() + 1, false)
                } else {
                    None
                };
                self.attach(node, item_notes, trailing, true);
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
        Ok(())
    }

    fn count_node(&mut self, line: u32) -> Result<(), ReadError> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(ReadError {
                line,
                kind: ReadErrorKind::TooManyNodes(self.limits.max_nodes),
            });
        }
        Ok(())
    }

    /// A scalar: a key when a mapping waits for one, else a value.
    fn scalar(
        &mut self,
        text: String,
        style: Style,
        block: bool,
        span: &Span,
    ) -> Result<(), ReadError> {
        let line = line_u32(span.start.line());
        if let Some(Frame::Map { map, key: None, .. }) = self.stack.last() {
            if let Some(first) = map.entries.iter().find(|e| e.key == text).map(|e| e.line) {
                return Err(ReadError {
                    line,
                    kind: ReadErrorKind::DuplicateKey { key: text, first },
                });
            }
            let notes = self.take_comments_before(line);
            let end = (line_u32(span.end.line()), span.end.col());
            if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
                *key = Some(PendingKey {
                    key: text,
                    line,
                    notes,
                    end,
                });
            }
            return Ok(());
        }
        let item_notes = if matches!(self.stack.last(), Some(Frame::Seq { .. })) {
            self.take_comments_before(line)
        } else {
            Notes::default()
        };
        // A block scalar's header may carry a comment (`key: |  # note`); it is not kept.
        let trailing = if block {
            None
        } else {
            self.trailing_after(span.end.line(), span.end.col(), false)
        };
        let node = Node {
            value: Value::Scalar(Scalar { text, style }),
            line,
        };
        self.attach(node, item_notes, trailing, false);
        Ok(())
    }

    /// Put a finished node where it belongs: the value of the pending key, the next item
    /// of a sequence, or the root.
    fn attach(
        &mut self,
        node: Node,
        item_notes: Notes,
        trailing: Option<String>,
        collection: bool,
    ) {
        let key_trailing = |lines: &SourceLines<'_>, k: &PendingKey| {
            lines
                .trailing_comment(k.end.0, k.end.1, true)
                .map(str::to_owned)
        };
        match self.stack.last_mut() {
            Some(Frame::Map { map, key, .. }) => {
                let Some(k) = key.take() else {
                    return;
                };
                let mut notes = k.notes.clone();
                notes.trailing = match trailing {
                    Some(t) => Some(t),
                    // `key:  # note` above a block collection.
                    None if collection => key_trailing(&self.lines, &k),
                    None => None,
                };
                map.entries.push(Entry {
                    key: k.key,
                    value: node,
                    line: k.line,
                    notes,
                });
            }
            Some(Frame::Seq { seq, .. }) => {
                let mut notes = item_notes;
                notes.trailing = trailing;
                seq.items.push(Item { node, notes });
            }
            None => self.root = Some(node),
        }
    }

    fn trailing_after(&self, line: usize, col: usize, colon: bool) -> Option<String> {
        self.lines
            .trailing_comment(line_u32(line), col, colon)
            .map(str::to_owned)
    }

    /// Remember the lines a multi-line scalar covers: they are content, never comments or
    /// blank separators. A block scalar's (`|`, `>`) span starts at its first content line,
    /// whose indentation is the block's, and ends where the next token (or comment) starts;
    /// a `#` line indented less than the content is a comment after it.
    fn note_scalar_lines(&mut self, style: ScalarStyle, span: &Span) {
        let (start, end) = (line_u32(span.start.line()), line_u32(span.end.line()));
        if end <= start {
            return;
        }
        match style {
            ScalarStyle::Literal | ScalarStyle::Folded => {
                let content_indent = span.start.col();
                let last = (start..end)
                    .find(|&n| {
                        self.lines.comment(n).is_some() && self.lines.indent(n) < content_indent
                    })
                    .unwrap_or(end);
                if last > start {
                    self.inside_scalars.push((start, last - 1));
                }
            }
            _ => self.inside_scalars.push((start + 1, end)),
        }
    }

    fn inside_scalar(&self, line: u32) -> bool {
        self.inside_scalars
            .iter()
            .rev()
            .any(|&(a, b)| a <= line && line <= b)
    }

    /// The whole-line comments not yet attached that lie above `line`, and whether a blank
    /// line separates them (or `line`) from what precedes.
    fn take_comments_before(&mut self, line: u32) -> Notes {
        let mut notes = Notes::default();
        let mut first = line;
        while let Some(&n) = self.comment_lines.get(self.next_comment) {
            if n >= line {
                break;
            }
            self.next_comment += 1;
            if self.inside_scalar(n) {
                continue;
            }
            if let Some(text) = self.lines.comment(n) {
                if notes.before.is_empty() {
                    first = n;
                }
                notes.before.push(text.to_owned());
            }
        }
        let above = first.saturating_sub(1);
        notes.blank_before = self.lines.is_blank(above) && !self.inside_scalar(above);
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> Document {
        read(s.as_bytes(), &Limits::SIDECAR).expect("reads")
    }

    fn err(s: &str) -> ReadError {
        read(s.as_bytes(), &Limits::SIDECAR).expect_err("refused")
    }

    fn root_map(d: &Document) -> &Map {
        d.root.as_ref().and_then(Node::as_map).expect("mapping")
    }

    #[test]
    fn order_styles_and_comments() {
        let d = doc(
            "# head\nb: 1   # one\n\n# about a\na:\n  x: 'q'\n  y: |\n    l1\n    # not a comment\n  # after the block\n  z: [1, 2]  # flow\n# end\n",
        );
        let m = root_map(&d);
        let keys: Vec<&str> = m.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(m.entries[0].notes.before, [" head"]);
        assert_eq!(m.entries[0].notes.trailing.as_deref(), Some(" one"));
        assert!(m.entries[1].notes.blank_before);
        assert_eq!(m.entries[1].notes.before, [" about a"]);
        let a = m.get("a").and_then(Node::as_map).expect("a");
        assert_eq!(
            a.get("x").and_then(Node::as_scalar).map(|s| s.style),
            Some(Style::SingleQuoted)
        );
        let y = a.get("y").and_then(Node::as_scalar).expect("y");
        assert_eq!(y.text, "l1\n# not a comment\n");
        assert_eq!(a.entries[2].notes.before, [" after the block"]);
        assert_eq!(a.entries[2].notes.trailing.as_deref(), Some(" flow"));
        assert!(a.get("z").and_then(Node::as_seq).is_some_and(|s| s.flow));
        assert_eq!(d.end_comments, [" end"]);
        assert_eq!(m.entries[1].line, 5);
    }

    #[test]
    fn hostile_input_is_refused_with_a_line() {
        let bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n";
        assert_eq!(
            err(bomb),
            ReadError {
                line: 2,
                kind: ReadErrorKind::Alias
            }
        );
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(err(&deep).kind, ReadErrorKind::TooDeep(16));
        let long = format!("a: {}\n", "x".repeat(70_000));
        assert!(matches!(
            err(&long).kind,
            ReadErrorKind::ScalarTooLarge { size: 70_000, .. }
        ));
        assert_eq!(
            err("a: 1\n---\nb: 2\n").kind,
            ReadErrorKind::SeveralDocuments
        );
        assert_eq!(err("? [a]\n: 1\n").kind, ReadErrorKind::ComplexKey);
        assert_eq!(
            err("a: 1\nb: 2\na: 3\n"),
            ReadError {
                line: 3,
                kind: ReadErrorKind::DuplicateKey {
                    key: "a".into(),
                    first: 1
                }
            }
        );
        assert_eq!(err("a: [1\n").line, 2);
        assert_eq!(
            read(b"a: 1\nb: \xff\n", &Limits::SIDECAR),
            Err(ReadError {
                line: 2,
                kind: ReadErrorKind::NotUtf8
            })
        );
        let small = Limits {
            max_bytes: 4,
            ..Limits::SIDECAR
        };
        assert!(matches!(
            read(b"a: 12", &small).map_err(|e| e.kind),
            Err(ReadErrorKind::TooLarge { size: 5, limit: 4 })
        ));
        let few = Limits {
            max_nodes: 3,
            ..Limits::SIDECAR
        };
        assert!(matches!(
            read(b"a: [1, 2]", &few).map_err(|e| e.kind),
            Err(ReadErrorKind::TooManyNodes(3))
        ));
    }

    #[test]
    fn empty_and_comment_only_documents() {
        assert_eq!(doc(""), Document::default());
        let d = doc("# only\n# comments\n");
        assert!(d.root.is_none());
        assert_eq!(d.end_comments, [" only", " comments"]);
        assert!(doc("!!str 12").root.is_some_and(|n| {
            n.as_scalar()
                .is_some_and(|s| s.style == Style::DoubleQuoted)
        }));
    }
}
