//! Scalars: what a plain scalar resolves to (YAML 1.2 core schema), and which texts may be
//! written in which style so that they read back unchanged.

/// What a scalar resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// `~`, `null`, or nothing.
    Null,
    /// `true` / `false`.
    Bool,
    /// An integer (decimal, `0o`, `0x`).
    Int,
    /// A float (`1.5`, `1e3`, `.inf`, `.nan`).
    Float,
    /// Anything else, and every quoted or block scalar.
    Str,
}

impl Resolved {
    /// For messages: `null`, `a boolean`, …
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool => "a boolean",
            Self::Int => "an integer",
            Self::Float => "a number",
            Self::Str => "a string",
        }
    }
}

/// What the plain scalar `text` resolves to under the YAML 1.2 core schema.
#[must_use]
pub fn resolve_plain(text: &str) -> Resolved {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => return Resolved::Bool,
        _ => {}
    }
    if is_int(text) {
        Resolved::Int
    } else if is_float(text) {
        Resolved::Float
    } else {
        Resolved::Str
    }
}

fn digits(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_digit(radix))
}

fn is_int(t: &str) -> bool {
    if let Some(h) = t.strip_prefix("0x") {
        return digits(h, 16);
    }
    if let Some(o) = t.strip_prefix("0o") {
        return digits(o, 8);
    }
    digits(t.strip_prefix(['-', '+']).unwrap_or(t), 10)
}

fn is_float(t: &str) -> bool {
    if matches!(t, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    if matches!(t, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            (int.is_empty() && digits(frac, 10))
                || (digits(int, 10) && (frac.is_empty() || digits(frac, 10)))
        }
        None => digits(mantissa, 10),
    };
    mantissa_ok && exp.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10))
}

/// Whether YAML's printable set holds `c` (what may appear unescaped in any style).
#[must_use]
pub const fn is_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{feff}')
}

/// Whether `text` can be written as a plain scalar (in block context, or in flow context
/// when `flow`) and read back as the same text. Conservative: a `false` costs only quotes.
#[must_use]
pub fn plain_syntax_ok(text: &str, flow: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if text.starts_with(' ') || text.ends_with([' ', ':']) {
        return false;
    }
    if ",[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if "-?:".contains(first) {
        // `-1`, `?x`, `:x` are plain when a "safe" character follows (YAML 1.2
        // ns-plain-first); `- x` is a sequence item.
        let next = text.chars().nth(1);
        let safe = next.is_some_and(|c| {
            let flow_indicator = flow && matches!(c, ',' | '[' | ']' | '{' | '}');
            !(matches!(c, ' ' | '\t') || flow_indicator)
        });
        if !safe {
            return false;
        }
    }
    if text.contains(": ")
        || text.contains(" #")
        || text.starts_with("...")
        || text.starts_with("---")
    {
        return false;
    }
    if flow && text.contains([',', '[', ']', '{', '}']) {
        return false;
    }
    if flow && text.ends_with(['-', '?']) {
        // `{log: a -}`: readers take `-}` for the start of another scalar.
        return false;
    }
    // No line breaks, tabs or anything outside the printable set, and no characters that
    // YAML 1.1 readers take as line breaks.
    text.chars()
        .all(|c| is_printable(c) && !matches!(c, '\n' | '\t' | '\u{85}' | '\u{2028}' | '\u{2029}'))
}

/// Whether the string `text` can be written plain and still be read as this string, by
/// YAML 1.2 readers (core schema) and by YAML 1.1 readers (`yes`, `on`, dates, `1:30`).
#[must_use]
pub fn plain_string_ok(text: &str) -> bool {
    plain_syntax_ok(text, true) && resolve_plain(text) == Resolved::Str && !yaml11_special(text)
}

/// Scalars a YAML 1.1 reader resolves to something other than a string.
fn yaml11_special(t: &str) -> bool {
    let lower = t.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "=" | "<<"
    ) {
        return true;
    }
    let b = t.as_bytes();
    // Timestamps start with a four-digit year; sexagesimal numbers look like `1:30`; 1.1
    // also has `0b` binary and `_` separators in numbers.
    let year_like = b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-';
    let sexagesimal = t.contains(':')
        && t.trim_start_matches(['-', '+'])
            .split(':')
            .all(|p| digits(p, 10) || p.contains('.'));
    let numberish = t
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+'))
        && t.contains('_');
    year_like || sexagesimal || numberish || t.starts_with("0b")
}

/// Whether `text` can be written single-quoted (one line, printable).
#[must_use]
pub fn single_quoted_ok(text: &str) -> bool {
    text.chars()
        .all(|c| is_printable(c) && !matches!(c, '\n' | '\t' | '\u{85}' | '\u{2028}' | '\u{2029}'))
}

/// Whether `text` can be written as a literal block (`|`) and read back unchanged: several
/// lines of printable characters, the first non-empty one not starting with a space or tab (the block's
/// indentation is taken from its first non-empty line), no carriage returns.
#[must_use]
pub fn literal_ok(text: &str) -> bool {
    let body = text.trim_end_matches('\n');
    !body.is_empty()
        && text.contains('\n')
        && text
            .chars()
            .all(|c| is_printable(c) && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'))
        && body
            .split('\n')
            .find(|line| !line.is_empty())
            .is_some_and(|first| !first.starts_with([' ', '\t']))
}

/// `text` double-quoted, every character outside the printable set (and `"`, `\`) escaped.
#[must_use]
pub fn double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if is_printable(c) && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}') => {
                out.push(c);
            }
            c if u32::from(c) <= 0xff => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) <= 0xffff => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_schema() {
        for (t, r) in [
            ("", Resolved::Null),
            ("~", Resolved::Null),
            ("True", Resolved::Bool),
            ("yes", Resolved::Str),
            ("12", Resolved::Int),
            ("-3", Resolved::Int),
            ("0x1F", Resolved::Int),
            ("0o17", Resolved::Int),
            ("0o18", Resolved::Str),
            ("3.19", Resolved::Float),
            ("3.19.0", Resolved::Str),
            ("1e3", Resolved::Float),
            (".5", Resolved::Float),
            ("5.", Resolved::Float),
            ("-.inf", Resolved::Float),
            (".", Resolved::Str),
            ("2026-11-30", Resolved::Str),
            ("535.104.05", Resolved::Str),
        ] {
            assert_eq!(resolve_plain(t), r, "{t:?}");
        }
    }

    #[test]
    fn plain_strings() {
        for ok in [
            "cuda-driver",
            "3.19.0",
            "python test_ext.py",
            "a:b",
            "x#y",
            "ml-infra",
        ] {
            assert!(plain_string_ok(ok), "{ok}");
        }
        for quoted in [
            "",
            "12",
            "3.11",
            "yes",
            "On",
            "2026-11-30",
            "@ml-infra",
            "a: b",
            "a #b",
            "- x",
            " x",
            "x ",
            "x:",
            "1:30",
            "[x]",
            "a,b",
            "null",
            "tab\there",
            "line\nbreak",
            "1_000",
            "-",
            "*alias",
            "!tag",
            "...",
        ] {
            assert!(!plain_string_ok(quoted), "{quoted:?}");
        }
        assert!(plain_syntax_ok("a,b", false));
        assert!(!plain_syntax_ok("a,b", true));
    }

    #[test]
    fn escapes() {
        assert_eq!(
            double_quoted("a\"b\\c\nd\u{1}\u{feff}"),
            "\"a\\\"b\\\\c\\nd\\x01\\ufeff\""
        );
        assert!(literal_ok("a\nb\n") && literal_ok("a\n\n  b"));
        assert!(!literal_ok("one line") && !literal_ok(" a\nb") && !literal_ok("\n\ta\nb"));
        assert!(!literal_ok("a\r\nb"));
        assert!(!literal_ok("\n\n"));
    }
}
