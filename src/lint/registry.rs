//! The rule registry: every check's stable code, kebab-case name, default severity and
//! documentation. Codes are never reused; `docs/rules/` is generated from this table.
//!
//! Families (PRODUCT.md §6): `VS1xx` what Valgrind's loader refuses or crashes on, `VS2xx`
//! what Valgrind silently ignores or can never match, `VS3xx` maintenance, `VS4xx` sidecar
//! provenance, `VS5xx` evidence from logs, `VS9xx` style. Later families slot in by adding
//! rows here and a check in [`crate::lint`].

use crate::diagnostic::Severity;

/// A rule's metadata and documentation.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleMeta {
    /// `VS` + three digits.
    pub code: &'static str,
    /// Kebab-case name.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// Whether findings mean Valgrind refuses the file, aborts, or crashes later.
    pub fatal_in_valgrind: bool,
    /// One line: what it finds.
    pub summary: &'static str,
    /// Why it matters (Markdown).
    pub why: &'static str,
    /// A minimal example that triggers it.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

macro_rules! rule {
    ($code:literal, $name:literal, $sev:ident, $fatal:literal, $summary:literal, $why:literal, $example:literal, $fix:literal) => {
        RuleMeta {
            code: $code,
            name: $name,
            severity: Severity::$sev,
            fatal_in_valgrind: $fatal,
            summary: $summary,
            why: $why,
            example: $example,
            fix: $fix,
        }
    };
}

/// Every rule, ordered by code.
pub static RULES: &[RuleMeta] = &[
    rule!(
        "VS101",
        "expected-open-brace",
        Error,
        true,
        "A line outside any record is not `{`.",
        "Between records Valgrind accepts only blank lines, comments and `{` alone on its line. Anything else (`{ name`, junk after `}`) stops loading with `expected '{' or end-of-file` (valgrind-semantics.md §1.2).",
        "{ my-rule\n   Memcheck:Leak\n   fun:malloc\n}",
        "Put `{` alone on its line; move text after `}` into a `#` comment on its own line."
    ),
    rule!(
        "VS102",
        "unexpected-close-brace",
        Error,
        true,
        "A record ends (or the file ends) where its name should be.",
        "Valgrind reads the first non-blank, non-comment line after `{` as the name; `}` there (or end of file) gives `unexpected '}'` (§1.3).",
        "{\n}",
        "Give the record a name line, or delete the empty braces."
    ),
    rule!(
        "VS103",
        "eof-expecting-tool",
        Error,
        true,
        "The file ends after a record's name.",
        "Valgrind needs a `TOOL:KIND` line after the name: `unexpected end-of-file (expecting tool:suppr)`.",
        "{\n   my-rule",
        "Complete the record or remove it."
    ),
    rule!(
        "VS104",
        "malformed-tool-line",
        Error,
        true,
        "The line after the name has no `:`.",
        "Valgrind splits that line at its first `:` into the tool list and the kind; without a colon it stops with `malformed 'tool1,tool2,...:supp' line` (§1.4). A missing name line often causes this too.",
        "{\n   my-rule\n   Memcheck\n   fun:f\n}",
        "Write `Memcheck:KIND` (or `Helgrind:`/`drd:`)."
    ),
    rule!(
        "VS105",
        "unknown-core-kind",
        Error,
        true,
        "A core suppression (`core:` up to 3.22, `CoreError:` from 3.23) with a kind the release does not define.",
        "Tools that need core errors check the core pseudo-tool before their own name. Valgrind 3.19–3.22 define no core kinds at all, so any `core:` record is fatal under Memcheck and Helgrind; 3.23+ know `FdBadClose`, `FdNotClosed` and (3.25+) `FdBadUse` (§1.4, §1.5).",
        "{\n   fd\n   CoreError:FdLeak\n   fun:open\n}",
        "Use a kind the target release knows, or target the release that introduced it with `--valgrind`."
    ),
    rule!(
        "VS106",
        "unknown-tool-kind",
        Error,
        true,
        "The running tool does not know the record's kind.",
        "When the tool list names the running tool, its `recognised_suppression` must accept the kind, or loading stops with `unknown tool suppression type`. Kinds are case-sensitive, the kind is everything after the first `:` (so `Memcheck: Addr4` and `Memcheck:Addr4:x` are wrong), some kinds are newer than the target release, and a record listing several tools must be valid for each (§1.4, §1.5).",
        "{\n   r\n   Memcheck,Helgrind:Addr4\n   fun:f\n}",
        "Fix the kind's spelling, drop tools the kind does not belong to, or target a newer release."
    ),
    rule!(
        "VS107",
        "eof-when-skipping",
        Error,
        true,
        "A record for another tool has no closing `}` before the end of the file.",
        "Valgrind skips records for other tools by reading up to a line that is exactly `}`; end of file first gives `unexpected end-of-file (when skipping suppression)` (§1.4).",
        "{\n   r\n   Helgrind:Race\n   fun:f",
        "Close the record with `}`."
    ),
    rule!(
        "VS108",
        "bad-extra-line",
        Error,
        true,
        "A Memcheck `Param`, `Leak` or `FishyValue` record has a missing or malformed extra line.",
        "`Param` needs the syscall-parameter string before the frames; a `Leak` line that is not a location line must be exactly `match-leak-kinds:` followed by a comma list of `definite`, `indirect`, `possible`, `reachable` (or `all`/`none` alone) without spaces; `FishyValue` needs `FUNC(ARG)`. Otherwise: `bad or missing extra suppression info` (§1.6). A `src:` line is not a location line, so it cannot directly follow `Memcheck:Leak`.",
        "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: definite, possible\n   fun:malloc\n}",
        "Write the extra line Valgrind expects, e.g. `match-leak-kinds: definite,possible`."
    ),
    rule!(
        "VS109",
        "eof-in-stack-trace",
        Error,
        true,
        "The file ends inside a record's frame list.",
        "A record needs its closing `}`: `unexpected end-of-file (when reading stack trace)` (§1.7).",
        "{\n   r\n   Memcheck:Cond\n   fun:f",
        "Close the record with `}`."
    ),
    rule!(
        "VS110",
        "missing-stack-trace",
        Error,
        true,
        "A record has no frame lines.",
        "Valgrind requires at least one `fun:`, `obj:`, `src:` or `...` line: `missing stack trace` (§1.7).",
        "{\n   r\n   Memcheck:Cond\n}",
        "Add the frames the rule should match."
    ),
    rule!(
        "VS111",
        "too-many-callers",
        Error,
        true,
        "A record has more than 500 frames within `--num-callers`.",
        "`VG_DEEPEST_BACKTRACE` is 500; frame 501 gives `too many callers in stack trace` when `--num-callers` is 500 (with fewer callers the extra frames are dropped instead; §1.7).",
        "(501 frame lines with --num-callers=500)",
        "Cut the record: Valgrind matches prefixes, so the top frames are enough."
    ),
    rule!(
        "VS112",
        "bad-location-line",
        Error,
        true,
        "A line in a frame list is not `fun:`, `obj:`, `src:` or `...`.",
        "Valgrind stops with `location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\"`. `....`, `fun` without colon, a `{` because the previous `}` is missing, or `} x` all cause it (§1.7).",
        "{\n   r\n   Memcheck:Cond\n   fun:f\n   at: g\n}",
        "Fix the frame line; check for a missing `}` above a `{`."
    ),
    rule!(
        "VS113",
        "only-wildcard-frames",
        Error,
        true,
        "Every frame Valgrind keeps is `...`.",
        "After truncation to `--num-callers`, at least one kept frame must be `fun:`, `obj:` or `src:`: `suppression must contain at least one location line which is not \"...\"` (§1.7).",
        "{\n   r\n   Memcheck:Cond\n   ...\n}",
        "Add a concrete frame near the top of the record."
    ),
    rule!(
        "VS114",
        "fishy-value-without-extra",
        Error,
        true,
        "A `Memcheck:FishyValue` record has no `FUNC(ARG)` line.",
        "It loads, but Valgrind crashes (SIGSEGV, \"the 'impossible' happened\") as soon as a FishyValue error is compared with it (§1.6, K08).",
        "{\n   r\n   Memcheck:FishyValue\n   fun:malloc\n}",
        "Add the extra line, e.g. `malloc(size)`."
    ),
    rule!(
        "VS115",
        "helgrind-free-mem-lock",
        Error,
        true,
        "A `Helgrind:FreeMemLock` record.",
        "Helgrind accepts the kind but has no match case for it: the first Helgrind error compared with it triggers an assertion and Helgrind aborts (§1.5, H02).",
        "{\n   r\n   Helgrind:FreeMemLock\n   fun:f\n}",
        "Delete the record; FreeMemLock errors cannot be suppressed."
    ),
    rule!(
        "VS116",
        "line-too-long",
        Error,
        true,
        "A line of 51,200 characters or more.",
        "Valgrind's line buffer asserts before reaching 100,000 bytes: `VG_(get_line): line longer than 100000 chars, aborting`. Leading whitespace does not count, trailing whitespace does (§1.1).",
        "fun:<51200 characters>",
        "Shorten the pattern with `*`."
    ),
    rule!(
        "VS201",
        "unknown-tool",
        Warning,
        false,
        "The tool list names a tool Valgrind does not know (or one that reads no suppressions).",
        "Tool names are case-sensitive and compared without trimming: `memcheck:`, `Memcheck :`, `Helgrind, Memcheck:` and `DRD:` match no tool, so Valgrind silently skips the record for that tool (§1.4). Tools without errors (Massif, Callgrind, …) never read suppression files.",
        "{\n   r\n   memcheck:Leak\n   fun:malloc\n}",
        "Spell the tool as Valgrind does: `Memcheck`, `Helgrind`, `drd`; no spaces around commas."
    ),
    rule!(
        "VS202",
        "tool-never-recognised",
        Warning,
        false,
        "A tool in the list is hidden by an earlier entry that contains its name.",
        "`tool_name_present` checks only the first occurrence of the name: in `MemcheckX,Memcheck:` that is inside `MemcheckX`, so Memcheck never sees the record (§1.4).",
        "{\n   r\n   MemcheckX,Memcheck:Leak\n   fun:malloc\n}",
        "Remove the entry that contains the tool's name, or put the tool first."
    ),
    rule!(
        "VS203",
        "missing-name",
        Warning,
        false,
        "The record has no name line, so Valgrind misreads it and skips it.",
        "Blank lines are skipped, so without a name the `TOOL:KIND` line becomes the name and the first frame becomes the tool line (tool `fun`), which matches no tool: the record is silently ignored (§1.3, P49).",
        "{\n   Memcheck:Leak\n   fun:malloc\n}",
        "Add a name line after `{`."
    ),
    rule!(
        "VS204",
        "space-after-colon",
        Warning,
        false,
        "A frame pattern starts with whitespace (`fun: foo`).",
        "There is no space after the colon in Valgrind's syntax: the pattern ` foo` includes the space and never matches (§1.7, M32).",
        "   fun: malloc",
        "Remove the whitespace after `fun:`/`obj:`/`src:`."
    ),
    rule!(
        "VS205",
        "trailing-comment",
        Warning,
        false,
        "A frame line ends with what looks like a `# comment`.",
        "Valgrind has no trailing comments: `fun:foo # c` is the pattern `foo # c`, which never matches `foo` (§1.1, P06).",
        "   fun:malloc # from libfoo",
        "Move the comment to its own line above."
    ),
    rule!(
        "VS206",
        "obj-not-a-path",
        Warning,
        false,
        "An `obj:` pattern starts with neither `/` nor `*`.",
        "Object names are absolute, symlink-resolved paths, so such a pattern can only match the unknown-object name `???`; `obj:libc.so.6` never matches (§2.5, M15).",
        "   obj:libcuda.so.1",
        "Use `obj:*/libcuda.so*`."
    ),
    rule!(
        "VS207",
        "wildcard-in-extra",
        Warning,
        false,
        "A `Param` or `FishyValue` extra line contains `*` or `?`.",
        "These strings are compared exactly (`strcmp`), without wildcards: `write(*)` matches nothing (§1.6, K02).",
        "   Memcheck:Param\n   write(*)",
        "Write the exact parameter string from the log, e.g. `write(buf)`."
    ),
    rule!(
        "VS208",
        "core-mem-never-matches",
        Warning,
        false,
        "A `Memcheck:CoreMem` record.",
        "Valgrind accepts the kind but reads no string for it and compares the error's string with NULL, which is never equal: it can never match (§1.5).",
        "{\n   r\n   Memcheck:CoreMem\n   fun:f\n}",
        "Delete the record."
    ),
    rule!(
        "VS209",
        "leak-kinds-none",
        Warning,
        false,
        "`match-leak-kinds: none`.",
        "The empty set is legal but the record then never matches anything (§1.6, L05).",
        "   match-leak-kinds: none",
        "Name the kinds to suppress, or delete the record."
    ),
    rule!(
        "VS210",
        "core-kind-not-in-version",
        Warning,
        false,
        "A core suppression written for another Valgrind release.",
        "`CoreError:` records exist only from 3.23 (earlier releases skip them silently); `core:` is fatal under Memcheck/Helgrind up to 3.22 and silently skipped from 3.23 (§1.4, §6).",
        "{\n   fd\n   CoreError:FdNotClosed\n   fun:open\n}",
        "Target the release that reads it with `--valgrind`, or remove the record."
    ),
    rule!(
        "VS211",
        "demangled-name",
        Warning,
        false,
        "A `fun:` pattern looks like a demangled C++ name.",
        "Valgrind matches `fun:` against mangled symbol names (`_ZN2ns3Box3getEi`), whatever `--demangle` says; `ns::Box::get(int)` never matches (§2.5, C04). Inlined frames are the exception: they use the plain unqualified name.",
        "   fun:ns::Box::get(int) const",
        "Use the mangled name (from `--gen-suppressions=all` or `--demangle=no` output), or a wildcard such as `_ZN2ns3Box3get*`."
    ),
    rule!(
        "VS212",
        "src-with-directory",
        Warning,
        false,
        "A `src:` pattern contains `/`.",
        "`src:` compares only the file-name component: `src:/full/path/errs.c:11` and `src:sub/errs.c` never match (§2.5, M22).",
        "   src:/home/dev/ext/leaky_ext.cpp:11",
        "Write the file name only: `src:leaky_ext.cpp:11`."
    ),
    rule!(
        "VS213",
        "frames-beyond-num-callers",
        Warning,
        false,
        "A record has more frames than `--num-callers`.",
        "Valgrind drops frames beyond `--num-callers` at load time without reading them (and, when `}` is missing, swallows the next records); they never take part in matching (§1.7).",
        "(13 frame lines with the default --num-callers=12)",
        "Cut the record to the frames that matter; Valgrind matches prefixes."
    ),
    rule!(
        "VS401",
        "no-provenance",
        Warning,
        false,
        "A rule has no entry in the file's sidecar (`NAME.supp.yaml`).",
        "Once a suppression file has a sidecar, every rule should say why it exists, who owns it and when to look at it again; a rule without an entry is one nobody can judge later. `vgsupp gen` writes the entry for the rules it generates.",
        "a.supp with rules `x` and `y`; a.supp.yaml:\nversion: 1\nrules:\n  x: {reason: libcuda ioctl buffers}",
        "Add an entry under `rules:` keyed by the rule's name, with at least a `reason`."
    ),
    rule!(
        "VS402",
        "orphan-provenance",
        Warning,
        false,
        "The sidecar has an entry for a rule the suppression file does not have.",
        "The rule was renamed or deleted and its provenance stayed behind; it no longer describes anything, and a later rule of that name would inherit it. Removed rules belong under `retired:` (`vgsupp prune --write` moves them there).",
        "a.supp.yaml:\nversion: 1\nrules:\n  renamed-long-ago: {reason: …}",
        "Rename the entry to the rule's new name, or move it under `retired:` with the date and why."
    ),
    rule!(
        "VS403",
        "expired",
        Error,
        false,
        "A rule's `expires` date has passed.",
        "Whoever wrote the rule asked for it to be looked at again by that date: the library it hides may have been fixed, and a suppression that outlives its reason hides real bugs. The date is compared with today (UTC; `VGSUPP_TODAY=YYYY-MM-DD` sets it).",
        "rules:\n  cuda.Param.ioctl:\n    expires: 2020-01-31",
        "Check that the rule still matches only third-party noise (`vgsupp match`), then move `expires` forward; or delete the rule."
    ),
    rule!(
        "VS404",
        "expiring-soon",
        Info,
        false,
        "A rule expires within the next days (14 by default; `--expiring-within`, `sidecar.expiring-within` in vgsupp.yaml).",
        "A notice ahead of VS403, so that the review can be planned before the check fails.",
        "rules:\n  cuda.Param.ioctl:\n    expires: 2026-06-10   # and today is 2026-06-01",
        "Review the rule and move `expires` forward, or let it expire."
    ),
    rule!(
        "VS405",
        "fingerprint-drift",
        Warning,
        false,
        "A rule was edited since its provenance was recorded: its `fingerprint` no longer matches.",
        "The fingerprint is a hash of the rule's canonical body (tool line, extra line and frames as `vgsupp fmt` writes them; the name, comments and layout do not count). A different hash means the rule now matches other errors than the ones its `reason` and `generated.from` logs describe.",
        "rules:\n  r:\n    fingerprint: 000000000000",
        "Check that the reason still holds for the edited rule, then write the fingerprint the message gives."
    ),
    rule!(
        "VS406",
        "missing-sidecar-field",
        Warning,
        false,
        "A rule's sidecar entry lacks a field the project requires (`reason` by default; `sidecar.required` in vgsupp.yaml).",
        "Required fields are the project's policy for reviewable suppressions, e.g. an `owner` to ask and an `expires` date for every rule.",
        "rules:\n  r: {owner: \"@team\"}",
        "Add the field to the rule's entry."
    ),
    rule!(
        "VS407",
        "unreadable-sidecar",
        Error,
        false,
        "The sidecar is not YAML vgsupp accepts.",
        "Syntax errors, a file that is not a mapping, and what vgsupp refuses on purpose: aliases (`*name`, which can expand a small file into gigabytes), duplicate keys, more than one document, nesting deeper than 16 levels, values over 64 KiB, files over 32 MiB. Nothing else in the sidecar is checked then.",
        "version: 1\nrules:\n  a: &x {reason: r}\n  b: *x",
        "Fix the YAML at the line given; write shared values out instead of using aliases."
    ),
    rule!(
        "VS408",
        "invalid-sidecar-value",
        Error,
        false,
        "A sidecar value does not fit the schema: a wrong type, a date that is not `YYYY-MM-DD`, a negative count, an unknown `version`.",
        "vgsupp reads the value as absent (and keeps it on rewrite), so whatever it should say (an expiry, an owner) is not in force. With an unknown `version` no rule of the file is read.",
        "rules:\n  r:\n    expires: end of March",
        "Write the value as the schema says (docs/formats.md)."
    ),
    rule!(
        "VS901",
        "not-formatted",
        Warning,
        false,
        "The file is not in canonical format.",
        "A canonical layout keeps diffs of suppression files small and reviewable. Formatting never changes what Valgrind loads.",
        "  {\n  r\n  Memcheck:Leak\n  fun:malloc\n  }",
        "Run `vgsupp fmt`."
    ),
];

/// The rule with `code` (or kebab-case `name`), if any.
#[must_use]
pub fn lookup(code: &str) -> Option<&'static RuleMeta> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

/// Render a rule's documentation page (Markdown).
#[must_use]
pub fn render_doc(r: &RuleMeta) -> String {
    format!(
        "# {code} `{name}`\n\nDefault severity: {sev}{fatal}.\n\n## What it does\n\n{summary}\n\n## Why\n\n{why}\n\n## Example\n\n```\n{example}\n```\n\n## Fix\n\n{fix}\n",
        code = r.code,
        name = r.name,
        sev = r.severity.as_str(),
        fatal = if r.fatal_in_valgrind {
            "; `fatal_in_valgrind: true`"
        } else {
            ""
        },
        summary = r.summary,
        why = r.why,
        example = r.example,
        fix = r.fix,
    )
}

/// The index page of `docs/rules/`.
#[must_use]
pub fn render_index() -> String {
    let mut s = String::from(
        "# vgsupp rules\n\nGenerated from `src/lint/registry.rs` (`cargo test` fails when this folder is stale; regenerate with `UPDATE_RULE_DOCS=1 cargo test --test cli rule_docs`).\n\n| code | name | severity | what it finds |\n|---|---|---|---|\n",
    );
    for r in RULES {
        s.push_str(&format!(
            "| [{c}]({c}.md) | `{n}` | {s} | {w} |\n",
            c = r.code,
            n = r.name,
            s = r.severity.as_str(),
            w = r.summary
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for w in RULES.windows(2) {
            assert!(w[0].code < w[1].code, "{} before {}", w[0].code, w[1].code);
        }
        let mut names: Vec<_> = RULES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
        for r in RULES {
            assert!(
                r.code.len() == 5
                    && r.code.starts_with("VS")
                    && r.code[2..].bytes().all(|b| b.is_ascii_digit())
            );
            assert!(
                r.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert_eq!(r.fatal_in_valgrind, r.code.starts_with("VS1"), "{}", r.code);
        }
    }

    #[test]
    fn code_list_snapshot() {
        let list: Vec<String> = RULES
            .iter()
            .map(|r| format!("{} {} {}", r.code, r.name, r.severity.as_str()))
            .collect();
        insta::assert_snapshot!(list.join("\n"));
    }
}
