//! The structural parser: builds the lossless [`SuppFile`] model (valgrind-semantics.md §1.2).
//!
//! It reads records the way Valgrind's loader does for the tool a record names, but never
//! stops: a line Valgrind would refuse becomes a [`Role::Junk`] line or an [`Item::Stray`]
//! item, and parsing goes on. Whether Valgrind accepts the file is decided by
//! [`crate::supp::loader`], which is exact per tool, release and `--num-callers`; this model
//! is what the formatter and the linter walk.

use crate::supp::kinds::{self, Tool};
use crate::supp::lines::{self, Lines, PhysLine};
use crate::supp::model::{Extra, Item, Record, RecordLine, Role, SuppFile, ToolLine};
use crate::supp::syntax;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Outside,
    Name,
    Tool,
    /// After the tool line: `extra` says whether an extra line may come first; `known`
    /// whether the record names a tool that reads suppressions (so that a `{` in its body
    /// means a missing `}`), and `kind` which extra line applies.
    Body {
        first: bool,
        extra: Option<ExtraKind>,
        known: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExtraKind {
    Param,
    Leak,
    Fishy,
}

/// Where a line sits in the file's structure, as [`classify`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// A blank line outside any record.
    Blank,
    /// A comment line outside any record.
    Comment,
    /// A non-blank, non-comment line outside any record.
    Stray,
    /// A line of a record; [`Role::Open`] starts a new record.
    Record(Role),
}

/// Streaming classification of every physical line: the parser's state machine without
/// building the model. [`parse`] collects it; the formatter can consume it directly.
#[derive(Debug, Clone)]
pub struct Classify<'a> {
    src: &'a [u8],
    lines: Lines<'a>,
    state: State,
}

/// Classify the lines of `src` one by one.
#[must_use]
pub const fn classify(src: &[u8]) -> Classify<'_> {
    Classify {
        src,
        lines: Lines::new(src),
        state: State::Outside,
    }
}

impl Iterator for Classify<'_> {
    type Item = (PhysLine, Placement);

    fn next(&mut self) -> Option<Self::Item> {
        let line = self.lines.next()?;
        let text = line.text.slice(self.src);
        if self.state == State::Outside {
            let placement = if line.is_blank() {
                Placement::Blank
            } else if lines::is_comment(text) {
                Placement::Comment
            } else if lines::c_str(text) == b"{" {
                self.state = State::Name;
                Placement::Record(Role::Open)
            } else {
                Placement::Stray
            };
            return Some((line, placement));
        }
        if line.is_blank() {
            return Some((line, Placement::Record(Role::Blank)));
        }
        if lines::is_comment(text) {
            return Some((line, Placement::Record(Role::Comment)));
        }
        let c = lines::c_str(text);
        let (role, next) = match self.state {
            // Lines outside records were handled above.
            State::Outside => (Role::Junk, State::Outside),
            State::Name if c == b"}" => (Role::Close, State::Outside),
            State::Name => (Role::Name, State::Tool),
            State::Tool if c == b"}" => (Role::Close, State::Outside),
            State::Tool => tool_role(c, &line),
            // A `{` where a frame should be: the previous record lacks its `}`.
            State::Body { known: true, .. } if c == b"{" => (Role::Open, State::Name),
            State::Body { .. } if c == b"}" => (Role::Close, State::Outside),
            State::Body {
                first,
                extra,
                known,
            } => {
                let body = State::Body {
                    first: false,
                    extra,
                    known,
                };
                let extra_role = if first {
                    extra.and_then(|k| extra_role(k, c, &line))
                } else {
                    None
                };
                match extra_role {
                    Some(role) => (role, body),
                    None => match syntax::frame(c, line.text.start) {
                        Some(frame) if known => (Role::Frame(frame), body),
                        _ => (Role::Junk, body),
                    },
                }
            }
        };
        self.state = next;
        Some((line, Placement::Record(role)))
    }
}

/// Parse a suppression file into its lossless model. Never fails: every byte of `source`
/// is kept, and problems are left for the loader and the linter to report.
#[must_use]
pub fn parse(source: Vec<u8>) -> SuppFile {
    let mut items = Vec::new();
    let mut record: Vec<RecordLine> = Vec::new();
    let flush = |record: &mut Vec<RecordLine>, items: &mut Vec<Item>| {
        if !record.is_empty() {
            items.push(Item::Record(Record {
                lines: std::mem::take(record),
            }));
        }
    };
    for (line, placement) in classify(&source) {
        let role = match placement {
            Placement::Record(role) => role,
            outside => {
                flush(&mut record, &mut items);
                items.push(match outside {
                    Placement::Blank => Item::Blank(line),
                    Placement::Comment => Item::Comment(line),
                    _ => Item::Stray(line),
                });
                continue;
            }
        };
        if role == Role::Open {
            flush(&mut record, &mut items);
        }
        let closes = role == Role::Close;
        record.push(RecordLine { line, role });
        if closes {
            flush(&mut record, &mut items);
        }
    }
    flush(&mut record, &mut items);
    SuppFile { source, items }
}

fn tool_role(c: &[u8], line: &PhysLine) -> (Role, State) {
    let tl = syntax::tool_line(c, line.text.start);
    let (known, extra) = match tl {
        ToolLine::Split { tools, kind } => {
            let src_tools = &c[tools.start - line.text.start..tools.end - line.text.start];
            let kind_text = &c[kind.start - line.text.start..kind.end - line.text.start];
            let known = Tool::ALL
                .iter()
                .any(|t| kinds::tool_name_present(t.supp_name().as_bytes(), src_tools));
            let memcheck =
                kinds::tool_name_present(Tool::Memcheck.supp_name().as_bytes(), src_tools);
            let extra = match kind_text {
                _ if !memcheck => None,
                b"Param" => Some(ExtraKind::Param),
                b"Leak" => Some(ExtraKind::Leak),
                b"FishyValue" => Some(ExtraKind::Fishy),
                _ => None,
            };
            (known, extra)
        }
        ToolLine::Malformed => (false, None),
    };
    (
        Role::Tool(tl),
        State::Body {
            first: true,
            extra,
            known,
        },
    )
}

/// The extra-line role of the first body line, when the kind reads one and the line is not
/// a location line (`VG_(get_line)`, §1.6).
fn extra_role(kind: ExtraKind, c: &[u8], line: &PhysLine) -> Option<Role> {
    if syntax::is_location_line(c) {
        return None;
    }
    let base = line.text.start;
    let extra = match kind {
        ExtraKind::Param => Extra::Param(line.text.with_len(c.len())),
        ExtraKind::Leak => {
            let (list, set) =
                syntax::leak_kinds_line(c, base).unwrap_or((line.text.with_len(c.len()), None));
            Extra::LeakKinds(crate::supp::model::LeakKindsLine { list, set })
        }
        ExtraKind::Fishy => Extra::Fishy(syntax::fishy(c, base)),
    };
    Some(Role::Extra(extra))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supp::model::Frame;

    fn roles(src: &str) -> Vec<String> {
        let f = parse(src.as_bytes().to_vec());
        let mut out = Vec::new();
        for item in &f.items {
            match item {
                Item::Blank(_) => out.push("blank".to_owned()),
                Item::Comment(_) => out.push("comment".to_owned()),
                Item::Stray(_) => out.push("stray".to_owned()),
                Item::Record(r) => {
                    let v: Vec<&str> = r
                        .lines
                        .iter()
                        .map(|l| match &l.role {
                            Role::Open => "{",
                            Role::Name => "name",
                            Role::Tool(_) => "tool",
                            Role::Extra(_) => "extra",
                            Role::Frame(Frame::Ellipsis) => "...",
                            Role::Frame(_) => "frame",
                            Role::Comment => "#",
                            Role::Blank => "_",
                            Role::Close => "}",
                            Role::Junk => "junk",
                        })
                        .collect();
                    out.push(v.join(" "));
                }
            }
        }
        out
    }

    #[test]
    fn simple_record() {
        assert_eq!(
            roles(
                "# c\n{\n n\n Memcheck:Leak\n match-leak-kinds: definite\n fun:malloc\n ...\n}\n"
            ),
            vec!["comment", "{ name tool extra frame ... }"]
        );
    }

    #[test]
    fn src_is_not_an_extra_line_for_param_it_is() {
        // §1.6: `src:` is not a location line, so Param takes it as its string.
        assert_eq!(
            roles("{\nn\nMemcheck:Param\nsrc:x.c\nfun:f\n}\n"),
            vec!["{ name tool extra frame }"]
        );
        assert_eq!(
            roles("{\nn\nMemcheck:Addr4\nsrc:x.c\n}\n"),
            vec!["{ name tool frame }"]
        );
    }

    #[test]
    fn missing_close_before_next_record() {
        assert_eq!(
            roles("{\na\nMemcheck:Cond\nfun:f\n{\nb\nMemcheck:Cond\nfun:g\n}\n"),
            vec!["{ name tool frame", "{ name tool frame }"]
        );
    }

    #[test]
    fn other_tool_bodies_are_junk() {
        assert_eq!(
            roles("{\na\nmemcheck:Cond\n{\nfoo\n}\n"),
            vec!["{ name tool junk junk }"]
        );
    }

    #[test]
    fn stray_and_comments_inside() {
        assert_eq!(
            roles("x\n{\n# c\na\n\nMemcheck:Cond\nfun:f\n}\n"),
            vec!["stray", "{ # name _ tool frame }"]
        );
    }

    #[test]
    fn name_may_be_a_brace() {
        assert_eq!(
            roles("{\n{\nMemcheck:Cond\nfun:f\n}\n"),
            vec!["{ name tool frame }"]
        );
    }
}
