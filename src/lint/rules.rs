//! `VS2xx`: what Valgrind silently ignores or can never match (PRODUCT.md §6,
//! valgrind-semantics.md §7.2). Each check walks the lossless model.

use crate::catalogue::Lint;
use crate::diagnostic::Diagnostic;
use crate::lint::CheckOptions;
use crate::supp::kinds::{self, ERRORLESS_TOOLS, Tool};
use crate::supp::lines::{self, PhysLine};
use crate::supp::model::{Extra, Frame, Record, Role, Span, SuppFile, ToolLine};
use crate::supp::syntax;

struct Ctx<'a> {
    name: &'a str,
    src: &'a [u8],
    opts: &'a CheckOptions,
    out: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn at(
        &mut self,
        code: Lint,
        line: &PhysLine,
        span: Span,
        message: String,
        help: Option<String>,
    ) {
        let column = u32::try_from(span.start.saturating_sub(line.span.start) + 1).unwrap_or(1);
        let mut d = Diagnostic::new(code, self.name, line.number, column, message);
        d.span = Some(span);
        d.help = help;
        self.out.push(d);
    }

    fn lossy(&self, span: Span) -> String {
        String::from_utf8_lossy(lines::c_str(span.slice(self.src))).into_owned()
    }
}

/// Run every `VS2xx` check over the records of `file`.
#[must_use]
pub fn check_records(name: &str, file: &SuppFile, opts: &CheckOptions) -> Vec<Diagnostic> {
    let mut cx = Ctx {
        name,
        src: &file.source,
        opts,
        out: Vec::new(),
    };
    for record in file.records() {
        check_record(&mut cx, record);
    }
    cx.out
}

fn check_record(cx: &mut Ctx<'_>, record: &Record) {
    let Some((tool_rl, ToolLine::Split { tools, kind })) = record.tool_line() else {
        return;
    };
    let tool_line = tool_rl.line;
    let list = lines::c_str(tools.slice(cx.src));
    let kind_text = kind.slice(cx.src);
    let reads: Vec<Tool> = Tool::ALL
        .into_iter()
        .filter(|t| kinds::tool_name_present(t.supp_name().as_bytes(), list))
        .collect();

    if missing_name(cx, record, tool_line) {
        return;
    }
    tool_list(cx, &tool_line, tools, list);
    if reads.is_empty() {
        // Valgrind skips the record for every tool: its body is never read.
        return;
    }
    if reads.contains(&Tool::Memcheck) && kind_text == b"CoreMem" {
        cx.at(
            Lint::CoreMemNeverMatches,
            &tool_line,
            kind,
            "`Memcheck:CoreMem` is accepted but can never match".to_owned(),
            None,
        );
    }
    if let Some((rl, extra)) = record.extra() {
        extra_checks(cx, &rl.line, extra);
    }
    let mut count = 0_u32;
    for rl in &record.lines {
        if !matches!(rl.role, Role::Frame(_) | Role::Junk) {
            continue;
        }
        count += 1;
        // With --num-callers=500 frame 501 is fatal (VS111), not dropped.
        if count == cx.opts.num_callers.saturating_add(1)
            && (cx.opts.num_callers as usize) < crate::supp::loader::DEEPEST_BACKTRACE
        {
            cx.at(
                Lint::FramesBeyondNumCallers,
                &rl.line,
                rl.line.text,
                format!("frames from here on are beyond --num-callers={} and dropped by Valgrind at load time", cx.opts.num_callers),
                Some("Valgrind matches prefixes: the top frames are enough".to_owned()),
            );
        }
        if let Role::Frame(frame) = rl.role {
            frame_checks(cx, &rl.line, frame);
        }
    }
}

/// `VS203`: the name line is missing, so the kind line became the name (§1.3, P49).
fn missing_name(cx: &mut Ctx<'_>, record: &Record, tool_line: PhysLine) -> bool {
    let Some(name_rl) = record.name_line() else {
        return false;
    };
    let name = lines::c_str(name_rl.line.text.slice(cx.src));
    let tool_text = lines::c_str(tool_line.text.slice(cx.src));
    let looks_like_kind_line = match syntax::tool_line(name, 0) {
        ToolLine::Split { tools, kind } => {
            let (t, k) = (tools.slice(name), kind.slice(name));
            Tool::ALL.iter().any(|tool| {
                kinds::tool_name_present(tool.supp_name().as_bytes(), t)
                    && kinds::kind_since(*tool, k).is_some()
            })
        }
        ToolLine::Malformed => false,
    };
    let frame_as_tool = syntax::frame(tool_text, 0).is_some();
    if looks_like_kind_line && frame_as_tool {
        cx.at(
            Lint::MissingName,
            &name_rl.line,
            name_rl.line.text,
            format!(
                "record has no name line: Valgrind takes `{}` as the name and skips the record",
                String::from_utf8_lossy(name)
            ),
            Some("add a name line after `{`".to_owned()),
        );
        return true;
    }
    false
}

/// `VS201`/`VS202`/`VS210`: every entry of the tool list (§1.4).
fn tool_list(cx: &mut Ctx<'_>, line: &PhysLine, tools: Span, list: &[u8]) {
    let v = cx.opts.version;
    let mut offset = 0;
    for entry in list.split(|&b| b == b',') {
        let span = Span::new(tools.start + offset, tools.start + offset + entry.len());
        offset += entry.len() + 1;
        if entry.is_empty() {
            continue;
        }
        let shown = String::from_utf8_lossy(entry);
        if let Some(tool) = Tool::ALL
            .into_iter()
            .find(|t| t.supp_name().as_bytes() == entry)
        {
            if !kinds::tool_name_present(entry, list) {
                cx.at(
                    Lint::ToolNeverRecognised,
                    line,
                    span,
                    format!("`{shown}` is never recognised: an earlier entry contains `{}`, and Valgrind looks only at the first occurrence", tool.supp_name()),
                    Some(format!("put `{}` first or remove the entry that contains it", tool.supp_name())),
                );
            }
            continue;
        }
        if entry == b"core" || entry == b"CoreError" {
            let current = kinds::core_tool_name(v);
            if entry != current.as_bytes() {
                let msg = if entry == b"CoreError" {
                    format!(
                        "`CoreError:` suppressions exist only from Valgrind 3.23; {v} skips this record"
                    )
                } else {
                    format!(
                        "`core:` was replaced by `CoreError:` in Valgrind 3.23; {v} skips this record"
                    )
                };
                cx.at(Lint::CoreKindNotInVersion, line, span, msg, None);
            }
            continue;
        }
        if ERRORLESS_TOOLS.iter().any(|t| t.as_bytes() == entry) {
            cx.at(
                Lint::UnknownTool,
                line,
                span,
                format!("tool `{shown}` reads no suppression files"),
                None,
            );
            continue;
        }
        let trimmed = shown.trim();
        let suggestion = Tool::ALL
            .into_iter()
            .find(|t| t.supp_name().eq_ignore_ascii_case(trimmed));
        let help = suggestion.map(|t| {
            format!(
                "did you mean `{}`? Tool names are case-sensitive and not trimmed",
                t.supp_name()
            )
        });
        cx.at(
            Lint::UnknownTool,
            line,
            span,
            format!("unknown tool `{shown}`: Valgrind silently skips it"),
            help,
        );
    }
}

fn has_wildcard(s: &[u8]) -> bool {
    s.iter().any(|&b| b == b'*' || b == b'?')
}

/// `VS207`/`VS209`: the extra line.
fn extra_checks(cx: &mut Ctx<'_>, line: &PhysLine, extra: Extra) {
    match extra {
        Extra::Param(s) if has_wildcard(s.slice(cx.src)) => {
            let msg = format!(
                "Param string `{}` is compared exactly: `*` and `?` are not wildcards here",
                cx.lossy(s)
            );
            cx.at(Lint::WildcardInExtra, line, s, msg, None);
        }
        Extra::Fishy(Some(f))
            if has_wildcard(f.function.slice(cx.src)) || has_wildcard(f.argument.slice(cx.src)) =>
        {
            cx.at(Lint::WildcardInExtra, line, line.text, "FishyValue function and argument are compared exactly: `*` and `?` are not wildcards here".to_owned(), None);
        }
        Extra::LeakKinds(lk) if lk.set.is_some_and(|s| s.none) => {
            cx.at(
                Lint::LeakKindsNone,
                line,
                lk.list,
                "`match-leak-kinds: none` never matches anything".to_owned(),
                None,
            );
        }
        _ => {}
    }
}

/// `VS204`/`VS205`/`VS206`/`VS211`/`VS212`: one frame line.
fn frame_checks(cx: &mut Ctx<'_>, line: &PhysLine, frame: Frame) {
    let (pat, what) = match frame {
        Frame::Fun(s) => (s, "fun"),
        Frame::Obj(s) => (s, "obj"),
        Frame::Src { file, .. } => (file, "src"),
        Frame::Ellipsis => return,
    };
    let text = lines::c_str(pat.slice(cx.src));
    if text.first().is_some_and(|b| lines::is_space(*b)) {
        cx.at(
            Lint::SpaceAfterColon,
            line,
            pat,
            format!("`{what}:` pattern starts with whitespace, which is part of the pattern"),
            Some(format!(
                "write `{what}:{}`",
                String::from_utf8_lossy(text).trim_start()
            )),
        );
        return;
    }
    if let Some(pos) =
        memchr::memmem::find(text, b" #").or_else(|| memchr::memmem::find(text, b"\t#"))
    {
        let span = Span::new(pat.start + pos, pat.start + text.len());
        cx.at(
            Lint::TrailingComment,
            line,
            span,
            "Valgrind has no trailing comments: this text is part of the pattern".to_owned(),
            Some("move the comment to its own line".to_owned()),
        );
        return;
    }
    match frame {
        Frame::Obj(_) if !text.starts_with(b"/") && !text.starts_with(b"*") && text != b"???" => {
            cx.at(
                Lint::ObjNotAPath,
                line,
                pat,
                format!(
                    "`obj:{}` can never match: object names are absolute paths",
                    String::from_utf8_lossy(text)
                ),
                Some("use `obj:*/NAME` to match the file anywhere".to_owned()),
            );
        }
        Frame::Fun(_) if looks_demangled(text) => {
            cx.at(
                Lint::DemangledName,
                line,
                pat,
                "`fun:` patterns match mangled names; this looks demangled".to_owned(),
                Some(
                    "use the mangled name from `--gen-suppressions=all` or a `*` wildcard"
                        .to_owned(),
                ),
            );
        }
        Frame::Src { .. } if text.contains(&b'/') => {
            cx.at(
                Lint::SrcWithDirectory,
                line,
                pat,
                "`src:` compares only the file name, never a directory".to_owned(),
                text.rsplit(|&b| b == b'/')
                    .next()
                    .map(|base| format!("write `src:{}`", String::from_utf8_lossy(base))),
            );
        }
        _ => {}
    }
}

/// A demangled C++ name: `::`, or a parameter list / spaces (but not `(below main)`).
fn looks_demangled(name: &[u8]) -> bool {
    if name == b"(below main)" {
        return false;
    }
    memchr::memmem::find(name, b"::").is_some() || name.contains(&b'(') || name.contains(&b' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str) -> Vec<String> {
        let f = crate::supp::parse(src.as_bytes().to_vec());
        let mut v: Vec<String> = check_records("t.supp", &f, &CheckOptions::default())
            .iter()
            .map(|d| d.rule.code.to_string())
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn tool_lists() {
        assert_eq!(codes("{\nr\nmemcheck:Leak\nfun:f\n}\n"), vec!["VS201"]);
        assert_eq!(
            codes("{\nr\nHelgrind, Memcheck:Leak\nfun:f\n}\n"),
            vec!["VS201"]
        );
        assert_eq!(
            codes("{\nr\nMemcheckX,Memcheck:Leak\nfun:f\n}\n"),
            vec!["VS201", "VS202"]
        );
        assert_eq!(
            codes("{\nr\nMemcheck,Helgrind:Race\nfun:f\n}\n"),
            Vec::<&str>::new()
        );
        assert_eq!(
            codes("{\nr\nCoreError:FdNotClosed\nfun:f\n}\n"),
            Vec::<&str>::new()
        );
        assert_eq!(codes("{\nr\ncore:Foo\nfun:f\n}\n"), vec!["VS210"]);
    }

    #[test]
    fn frames() {
        assert_eq!(codes("{\nr\nMemcheck:Cond\nfun: f\n}\n"), vec!["VS204"]);
        assert_eq!(codes("{\nr\nMemcheck:Cond\nfun:f # c\n}\n"), vec!["VS205"]);
        assert_eq!(
            codes("{\nr\nMemcheck:Cond\nobj:libc.so.6\nobj:???\nobj:*/x\n}\n"),
            vec!["VS206"]
        );
        assert_eq!(
            codes("{\nr\nMemcheck:Cond\nfun:ns::f(int)\nfun:(below main)\n}\n"),
            vec!["VS211"]
        );
        assert_eq!(
            codes("{\nr\nMemcheck:Cond\nsrc:a/b.c:3\n}\n"),
            vec!["VS212"]
        );
    }

    #[test]
    fn extras_and_kinds() {
        assert_eq!(
            codes("{\nr\nMemcheck:Param\nwrite(*)\nfun:f\n}\n"),
            vec!["VS207"]
        );
        assert_eq!(
            codes("{\nr\nMemcheck:Leak\nmatch-leak-kinds: none\nfun:f\n}\n"),
            vec!["VS209"]
        );
        assert_eq!(codes("{\nr\nMemcheck:CoreMem\nfun:f\n}\n"), vec!["VS208"]);
    }

    #[test]
    fn missing_name_and_depth() {
        assert_eq!(
            codes("{\nMemcheck:Leak\nfun:malloc\nfun:g\n}\n"),
            vec!["VS203"]
        );
        let deep = format!("{{\nr\nMemcheck:Cond\n{}}}\n", "fun:f\n".repeat(13));
        assert_eq!(codes(&deep), vec!["VS213"]);
    }
}
