//! The canonical formatter (PRODUCT.md §3, valgrind-semantics.md §7.1).
//!
//! Style: `{` and `}` at column 0, every other line of a record indented 3 spaces, LF line
//! endings, no trailing whitespace, exactly one blank line between records, comments kept
//! where they are (a comment block directly above a record stays attached to it), runs of
//! blank lines outside records collapsed to one, `match-leak-kinds:` written with one space
//! and its kinds in canonical order.
//!
//! Why it is safe: Valgrind's loader sees only the sequence of trimmed, non-blank,
//! non-comment lines (§1.1). The formatter changes whitespace around those lines and the
//! spelling of a valid leak-kind set, never their text or order, so Valgrind loads exactly
//! the same records from the output (only line numbers may change).

use crate::supp::lines::{self, PhysLine, VALGRIND_MAX_LINE};
use crate::supp::model::{Extra, Item, Role, SuppFile};
use crate::supp::parser::{Placement, classify};

const INDENT: &[u8] = b"   ";

/// What was emitted last, to decide on blank lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Record,
    Text,
}

/// Format a parsed file canonically.
#[must_use]
pub fn format(file: &SuppFile) -> Vec<u8> {
    format_lines(&file.source, file.items.iter().flat_map(ItemLines::new))
}

/// The lines of one model item with their placements (what [`classify`] would yield).
enum ItemLines<'a> {
    One(Option<(PhysLine, Placement)>),
    Record(std::slice::Iter<'a, crate::supp::model::RecordLine>),
}

impl<'a> ItemLines<'a> {
    fn new(item: &'a Item) -> Self {
        match item {
            Item::Blank(l) => Self::One(Some((*l, Placement::Blank))),
            Item::Comment(l) => Self::One(Some((*l, Placement::Comment))),
            Item::Stray(l) => Self::One(Some((*l, Placement::Stray))),
            Item::Record(r) => Self::Record(r.lines.iter()),
        }
    }
}

impl Iterator for ItemLines<'_> {
    type Item = (PhysLine, Placement);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Self::One(one) => one.take(),
            Self::Record(it) => it
                .next()
                .map(|rl| (rl.line, Placement::Record(rl.role.clone()))),
        }
    }
}

/// The canonical text of a record's body: what [`format()`] writes for its tool line, extra
/// line and frame lines (and lines it cannot classify), in order, each ending with `\n`.
/// The braces, the name line, comments and blank lines are left out, so the result changes
/// exactly when what Valgrind matches with the record changes, and formatting the file
/// never changes it (the sidecar's rule fingerprint is a hash of it).
#[must_use]
pub fn canonical_body(src: &[u8], record: &crate::supp::model::Record) -> Vec<u8> {
    let lines = record
        .lines
        .iter()
        .filter(|rl| {
            !matches!(
                rl.role,
                Role::Open | Role::Name | Role::Close | Role::Comment | Role::Blank
            )
        })
        .map(|rl| (rl.line, Placement::Record(rl.role.clone())));
    format_lines(src, lines)
}

/// Format `src` canonically without building the model: one streaming pass over
/// [`classify`]. Gives the same bytes as `format(&parse(src))`.
#[must_use]
pub fn format_source(src: &[u8]) -> Vec<u8> {
    format_lines(src, classify(src))
}

/// The bytes to write for a line, and whether to end it with `\n`.
///
/// Normally the trimmed text and a newline. Two Valgrind quirks make trimming change what
/// Valgrind does, so there the line is kept as Valgrind reads it: a line whose stored
/// length (trailing whitespace included) reaches the 51,200-character limit aborts
/// Valgrind, and a final line without `\n` is neither trimmed nor taken as a comment
/// (valgrind-semantics.md §1.1). `vgsupp check` reports both.
fn valgrind_view<'a>(line: &PhysLine, src: &'a [u8]) -> (&'a [u8], bool, bool) {
    let text = line.text.slice(src);
    let raw = &src[line.text.start..line.span.end.max(line.text.start)];
    let too_long = line.stored_len() >= VALGRIND_MAX_LINE;
    let quirky_last = !line.has_newline && (raw.len() != text.len() || lines::is_comment(text));
    if too_long || quirky_last {
        (raw, line.has_newline, true)
    } else {
        (text, true, false)
    }
}

fn format_lines(src: &[u8], lines: impl Iterator<Item = (PhysLine, Placement)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len() + src.len() / 16);
    let mut last = Last::Nothing;
    let mut blank_pending = false;
    for (line, placement) in lines {
        let (text, newline, kept_raw) = valgrind_view(&line, src);
        let role = match placement {
            Placement::Blank => {
                blank_pending = true;
                continue;
            }
            Placement::Comment | Placement::Stray => {
                if last == Last::Record || (last == Last::Text && blank_pending) {
                    out.push(b'\n');
                }
                out.extend_from_slice(text);
                if newline {
                    out.push(b'\n');
                }
                last = Last::Text;
                blank_pending = false;
                continue;
            }
            Placement::Record(role) => role,
        };
        match role {
            Role::Blank => continue,
            Role::Open => {
                if last == Last::Record || (last == Last::Text && blank_pending) {
                    out.push(b'\n');
                }
                out.extend_from_slice(text);
            }
            Role::Close => out.extend_from_slice(text),
            Role::Extra(Extra::LeakKinds(lk)) => {
                out.extend_from_slice(INDENT);
                match lk.set {
                    // Only a set Valgrind accepts is respelt; anything else is kept byte for
                    // byte so that the loader's verdict cannot change.
                    Some(set) if !kept_raw && lk.list.end == line.text.end => {
                        out.extend_from_slice(b"match-leak-kinds: ");
                        out.extend_from_slice(set.canonical().as_bytes());
                    }
                    _ => out.extend_from_slice(text),
                }
            }
            _ => {
                out.extend_from_slice(INDENT);
                out.extend_from_slice(text);
            }
        }
        if newline {
            out.push(b'\n');
        }
        last = Last::Record;
        blank_pending = false;
    }
    out
}

/// Whether `file` is already canonically formatted.
#[must_use]
pub fn is_formatted(file: &SuppFile) -> bool {
    format(file) == file.source
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supp::parser::parse;

    fn fmt(s: &str) -> String {
        let via_model = String::from_utf8(format(&parse(s.as_bytes().to_vec()))).unwrap();
        let streamed = String::from_utf8(format_source(s.as_bytes())).unwrap();
        assert_eq!(via_model, streamed);
        via_model
    }

    #[test]
    fn canonical_layout() {
        let input = "\n\n# about a\n  {  \r\n\ta\r\n Memcheck:Leak\n   match-leak-kinds:\tpossible,,definite\n\n fun:malloc   \n  }\n{\nb\nMemcheck:Cond\n# inner\nfun:f\n}";
        let expected = "# about a\n{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite,possible\n   fun:malloc\n}\n\n{\n   b\n   Memcheck:Cond\n   # inner\n   fun:f\n}\n";
        assert_eq!(fmt(input), expected);
        assert_eq!(fmt(expected), expected);
    }

    #[test]
    fn comment_separated_by_blank_stays_separated() {
        let input = "# header\n\n\n\n# about a\n{\na\nMemcheck:Cond\nfun:f\n}\n# trailing\n";
        assert_eq!(
            fmt(input),
            "# header\n\n# about a\n{\n   a\n   Memcheck:Cond\n   fun:f\n}\n\n# trailing\n"
        );
    }

    #[test]
    fn invalid_leak_kinds_are_kept() {
        let input =
            "{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite, possible\n   fun:f\n}\n";
        assert_eq!(fmt(input), input);
    }

    #[test]
    fn valgrind_quirks_are_kept() {
        // A final line without `\n` is read untrimmed and never as a comment (§1.1):
        // adding the newline would change Valgrind's verdict, so it stays as it is.
        assert_eq!(
            fmt("{\nn\nMemcheck:Cond\nfun:f\n}  "),
            "{\n   n\n   Memcheck:Cond\n   fun:f\n}  "
        );
        assert_eq!(fmt("# c"), "# c");
        assert_eq!(
            fmt("{\nn\nMemcheck:Cond\nfun:f\n}"),
            "{\n   n\n   Memcheck:Cond\n   fun:f\n}\n"
        );
        // Trailing whitespace that reaches the line limit is kept (Valgrind aborts on it).
        let long = format!(
            "{{\nn\nMemcheck:Cond\nfun:f{}\n}}\n",
            " ".repeat(VALGRIND_MAX_LINE)
        );
        let out = fmt(&long);
        assert!(out.contains(&format!("   fun:f{}\n", " ".repeat(VALGRIND_MAX_LINE))));
    }

    #[test]
    fn canonical_body_ignores_layout_name_and_comments() {
        let body = |s: &str| {
            let file = parse(s.as_bytes().to_vec());
            let r = file.records().next().expect("a record");
            String::from_utf8(canonical_body(&file.source, r)).expect("utf-8")
        };
        let a = body(
            "{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite,possible\n   fun:malloc\n}\n",
        );
        assert_eq!(
            a,
            "   Memcheck:Leak\n   match-leak-kinds: definite,possible\n   fun:malloc\n"
        );
        let b = body(
            "# c\n  {\r\n\tb\r\n Memcheck:Leak\n# inner\n   match-leak-kinds:\tpossible,definite\n\n fun:malloc   \n  }",
        );
        assert_eq!(a, b);
        assert_ne!(a, body("{\n   a\n   Memcheck:Leak\n   fun:malloc\n}\n"));
    }

    #[test]
    fn empty_file_stays_empty() {
        assert_eq!(fmt(""), "");
        assert_eq!(fmt("\n\n  \n"), "");
    }
}
