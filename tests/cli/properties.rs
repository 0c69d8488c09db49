//! Property tests of the model, the formatter and the loader on generated files.
//!
//! The invariants live in `fuzz/src/checks.rs`, shared with the `cargo fuzz` targets so that
//! both harnesses check exactly the same thing: the model keeps every byte and covers every
//! line once, formatting is idempotent and canonical and changes nothing Valgrind loads, and
//! the strict loader is the recovering loader cut at its verdict. Inputs the fuzzers found
//! are kept in `tests/data/fuzz-regressions/` and replayed here.

use std::path::Path;

use proptest::prelude::*;
use proptest::strategy::ValueTree as _;
use proptest::test_runner::TestCaseError;
use vgsupp::matcher::input::{ErrorKind, InputFrame, Known, SrcInfo};
use vgsupp::matcher::{MatchInput, RuleFile, RuleSet, Truth};
use vgsupp::supp::model::LeakKind;
use vgsupp::supp::{self, LoadOptions, Tool, Version};

#[allow(dead_code)]
#[path = "../../fuzz/src/checks.rs"]
mod checks;

#[path = "../../fuzz/src/log_checks.rs"]
mod log_checks;

#[path = "../../fuzz/src/yaml_checks.rs"]
mod yaml_checks;

use crate::common::{files_in, repo};

fn prop(check: Result<(), String>) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

// ---------------------------------------------------------------------------------------
// Strategies.

const NAMES: &[&str] = &[
    "leak-1",
    "my suppression",
    "cuda-driver.Param.ioctl.cuInit",
    "<insert_a_suppression_name_here>",
    "fun:looks_like_a_frame",
    "{",
    "name # not a comment",
    "with:colons:in:it",
    "Memcheck:Cond",
    // Last, so that clean records can leave it out.
    "}",
];

const TOOL_LINES: &[&str] = &[
    "Memcheck:Cond",
    "Memcheck:Leak",
    "Memcheck:Leak",
    "Memcheck:Param",
    "Memcheck:FishyValue",
    "Memcheck:Addr4",
    "Memcheck:Value8",
    "Memcheck:Free",
    "Memcheck:ReallocZero",
    "Memcheck:BadSize",
    "Memcheck:UnsafeZeroSize",
    "Memcheck:CoreMem",
    "Helgrind:Race",
    "Helgrind:FreeMemLock",
    "Helgrind:Dubious",
    "drd:ConflictingAccess",
    "drd:MutexErr",
    "Memcheck,Helgrind:Addr4",
    "Helgrind,Memcheck:Race",
    "Memcheck,drd:Leak",
    ",Memcheck:Addr4",
    "Memcheck,MemcheckX:Addr4",
    "CoreError:FdBadClose",
    "CoreError:FdBadUse",
    "core:X",
    // Broken ones.
    "Memcheck:Addr4:x",
    "Memcheck: Addr4",
    "Memcheck :Addr4",
    "memcheck:Cond",
    "DRD:ConflictingAccess",
    "MemcheckX,Memcheck:Addr4",
    "Helgrind, Memcheck:Addr4",
    ":Addr4",
    "Memcheck",
    "Memcheck:Bogus",
    "Massif:Whatever",
];

const EXTRAS: &[&str] = &[
    "match-leak-kinds: definite",
    "match-leak-kinds:possible,,definite",
    "match-leak-kinds:\treachable,indirect",
    "match-leak-kinds: all",
    "match-leak-kinds: none",
    "match-leak-kinds: definite, possible",
    "match-leak-kinds: Definite",
    "match-leak-kinds: all,definite",
    "match-leak-kinds: ",
    "match-leak-kinds :definite",
    "write(buf)",
    "sendmsg(msg.msg_iov[0])",
    "malloc(size)",
    "malloc(size)junk",
    "malloc(size",
    "src:x.c",
    "}",
];

fn valid_frame() -> impl Strategy<Value = String> {
    let ident = "[A-Za-z_][A-Za-z0-9_*?]{0,12}";
    prop_oneof![
        4 => ident.prop_map(|s| format!("fun:{s}")),
        2 => "[/a-z0-9_.*-]{0,16}".prop_map(|s| format!("obj:{s}")),
        1 => ("[a-z_]{1,8}\\.c", prop::option::of(0_u32..2000))
            .prop_map(|(f, l)| l.map_or_else(|| format!("src:{f}"), |l| format!("src:{f}:{l}"))),
        2 => Just("...".to_owned()),
    ]
}

fn frame() -> impl Strategy<Value = String> {
    prop_oneof![
        9 => valid_frame(),
        1 => prop::sample::select(vec![
            "....", "fun: leaf_read", "fun:", "obj:*", "src:f.c:11x", "src:f.c:", "} x", "{",
            "frame", "fun:a # b", "fun:f\u{7f}", "fun:\u{e9}t\u{e9}",
        ])
        .prop_map(str::to_owned),
    ]
}

/// What may go between two lines of a record: usually nothing, else blank or comment lines.
fn filler() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        6 => Just(Vec::new()),
        1 => prop::collection::vec(
            prop_oneof![Just(String::new()), "# [ -~]{0,20}", Just("#".to_owned())],
            1..3,
        ),
    ]
}

/// The lines of one record, with filler (blank and comment lines) between them.
fn assemble(
    head: [&str; 2],
    tool: Option<&str>,
    extra: Option<&str>,
    frames: &[String],
    close: Option<&str>,
    fill: Vec<Vec<String>>,
) -> Vec<String> {
    let mut lines = vec![head[0].to_owned()];
    let mut fill = fill.into_iter();
    let mut push = |lines: &mut Vec<String>, line: &str| {
        lines.extend(fill.next().unwrap_or_default());
        lines.push(line.to_owned());
    };
    push(&mut lines, head[1]);
    for line in tool.iter().chain(&extra) {
        push(&mut lines, line);
    }
    for f in frames {
        push(&mut lines, f);
    }
    if let Some(close) = close {
        push(&mut lines, close);
    }
    lines
}

/// A record Valgrind accepts (or skips) under every tool with the default options.
fn clean_record() -> impl Strategy<Value = Vec<String>> {
    let kind = prop_oneof![
        4 => prop::sample::select(vec![
            "Memcheck:Cond", "Memcheck:Addr4", "Memcheck:Value8", "Memcheck:Free",
            "Memcheck:Overlap", "Helgrind:Race", "Helgrind:LockOrder", "drd:ConflictingAccess",
            "drd:MutexErr", "Massif:Anything", "memcheck:Skipped", "Foo,Bar:Baz",
        ])
        .prop_map(|t| (t, None)),
        2 => prop::option::of(prop::sample::select(vec![
            "match-leak-kinds: definite",
            "match-leak-kinds:possible,,definite",
            "match-leak-kinds:\treachable,indirect",
            "match-leak-kinds: all",
            "match-leak-kinds: none",
            "match-leak-kinds:reachable,possible,indirect,definite",
        ]))
        .prop_map(|e| ("Memcheck:Leak", e)),
        1 => prop::sample::select(vec!["write(buf)", "ioctl(generic)", "src:not-a-frame.c"])
            .prop_map(|e| ("Memcheck:Param", Some(e))),
        1 => prop::sample::select(vec!["malloc(size)", "calloc(nmemb)junk"])
            .prop_map(|e| ("Memcheck:FishyValue", Some(e))),
    ];
    (
        prop::sample::select(&NAMES[..NAMES.len() - 1]),
        kind,
        prop::collection::vec(valid_frame(), 1..=15),
        prop::collection::vec(filler(), 20),
    )
        .prop_map(|(name, (tool, extra), mut frames, fill)| {
            if frames.iter().all(|f| f == "...") {
                frames.push("fun:main".to_owned());
            }
            assemble(["{", name], Some(tool), extra, &frames, Some("}"), fill)
        })
}

/// A record with any of the mistakes Valgrind refuses or silently skips.
fn record() -> impl Strategy<Value = Vec<String>> {
    (
        prop_oneof![20 => Just("{"), 1 => Just("{ x"), 1 => Just("{ # c")],
        prop::sample::select(NAMES),
        prop::option::weighted(0.97, prop::sample::select(TOOL_LINES)),
        prop::option::weighted(0.3, prop::sample::select(EXTRAS)),
        prop::collection::vec(frame(), 0..=15),
        prop_oneof![12 => Just(Some("}")), 1 => Just(None), 1 => Just(Some("}}"))],
        prop::collection::vec(filler(), 20),
    )
        .prop_map(|(open, name, tool, extra, frames, close, fill)| {
            assemble([open, name], tool, extra, &frames, close, fill)
        })
}

/// One top-level element: a record, a comment, a blank line or a junk line.
fn element() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        9 => clean_record(),
        3 => record(),
        2 => "# [ -~]{0,30}".prop_map(|c| vec![c]),
        2 => Just(vec![String::new()]),
        1 => prop::sample::select(vec!["junk", "}", "fun:stray", "...", "{{", "\u{0}"])
            .prop_map(|s| vec![s.to_owned()]),
    ]
}

/// Leading or trailing whitespace for one line.
fn space() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "", "", "", " ", "   ", "\t", " \t ", "\u{b}", "\u{c}", "\r",
    ])
}

/// A structurally plausible suppression file.
fn supp_file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(element(), 0..8),
        prop::bool::ANY,
        prop::bool::weighted(0.8),
        prop::collection::vec((space(), space()), 200),
    )
        .prop_map(|(elements, crlf, final_newline, spaces)| {
            let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let lines: Vec<String> = elements.into_iter().flatten().collect();
            let mut out = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                let (lead, trail) = spaces[i % spaces.len()];
                out.extend_from_slice(lead.as_bytes());
                out.extend_from_slice(line.as_bytes());
                out.extend_from_slice(trail.as_bytes());
                if i + 1 < lines.len() || final_newline {
                    out.extend_from_slice(eol);
                }
            }
            out
        })
}

/// Arbitrary bytes, biased towards the language's tokens.
fn byte_soup() -> impl Strategy<Value = Vec<u8>> {
    const TOKENS: &[&[u8]] = &[
        b"{",
        b"}",
        b"\n",
        b"\r\n",
        b"\r",
        b" ",
        b"\t",
        b"#",
        b"fun:",
        b"obj:",
        b"src:",
        b"...",
        b":",
        b",",
        b"Memcheck",
        b"Helgrind",
        b"drd",
        b"CoreError",
        b"Leak",
        b"Param",
        b"Cond",
        b"FishyValue",
        b"match-leak-kinds:",
        b"definite",
        b"all",
        b"(",
        b")",
        b"\0",
        b"x",
    ];
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..400),
        prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|t| t.concat()),
    ]
}

/// XML-log-like bytes: lines of Valgrind's XML (documents, errors, frames written plainly
/// and oddly, suppressions, counts, announcements) in any order, with CRLF, references,
/// CDATA and garbage mixed in, maybe cut.
fn xml_soup() -> impl Strategy<Value = Vec<u8>> {
    const LINES: &[&str] = &[
        "<?xml version=\"1.0\"?>",
        "<valgrindoutput>",
        "<valgrindoutput>",
        "</valgrindoutput>",
        "<protocolversion>4</protocolversion>",
        "<pid>7</pid>",
        "<pid>8</pid>",
        "<tool>memcheck</tool>",
        "<preamble><line>Using Valgrind-3.19.0 and LibVEX</line></preamble>",
        "<status><state>RUNNING</state></status>",
        "<status><state>FINISHED</state></status>",
        "<error>",
        "<error>",
        "<error>",
        "</error>",
        "</error>",
        "  <unique>0x1</unique>",
        "  <unique>0x2</unique>",
        "  <kind>InvalidRead</kind>",
        "  <kind>Leak_DefinitelyLost</kind>",
        "  <what>Invalid read of size 4</what>",
        "  <xwhat><text>8 bytes in 1 blocks are definitely lost in loss record 1 of 2</text></xwhat>",
        "  <stack>",
        "  </stack>",
        "    <frame>",
        "    </frame>",
        "      <ip>0x1</ip>",
        "      <fn>f&lt;int&gt;</fn>",
        "      <obj>/lib/x.so</obj>",
        "    <frame><ip>0x2</ip><fn>g</fn><dir>/d</dir><file>a.c</file><line>3</line></frame>",
        "    <frame> <fn a=\"1\">h</fn> </frame>",
        "    <frame><fn>&#x41;&bad; & x</fn><!-- c --></frame>",
        "  <auxwhat>Address 0x1 is 0 bytes after a block</auxwhat>",
        "  <suppression>",
        "  </suppression>",
        "    <skind>Memcheck:Addr4</skind>",
        "    <sframe> <fun>f</fun> </sframe>",
        "    <sframe> <obj>*</obj> </sframe>",
        "    <rawtext><![CDATA[{ fun:f }]]></rawtext>",
        "<announcethread><hthreadid>1</hthreadid><isrootthread></isrootthread></announcethread>",
        "</announcethread>",
        "<errorcounts><pair><count>3</count><unique>0x1</unique></pair></errorcounts>",
        "<suppcounts><pair><count>1</count><name>r</name></pair></suppcounts>",
        "<fatal_signal><tid>1</tid><signo>11</signo></fatal_signal>",
        "",
        "",
        "junk < & >",
        "\u{feff}",
        "\u{0}\u{1}\u{fffd}",
    ];
    let line = (
        prop::sample::select(LINES),
        prop::sample::select(&["\n", "\n", "\n", "\r\n"][..]),
    )
        .prop_map(|(l, e)| format!("{l}{e}"));
    (prop::collection::vec(line, 0..300), any::<usize>()).prop_map(|(lines, cut)| {
        let mut bytes = lines.concat().into_bytes();
        if cut % 3 == 0 && !bytes.is_empty() {
            bytes.truncate(cut % bytes.len());
        }
        bytes
    })
}

/// Log-like text: lines of Valgrind's prefixes, messages, frames and suppression blocks
/// in any order, with program output, CI time stamps, CRLF and binary bytes mixed in.
fn log_soup() -> impl Strategy<Value = Vec<u8>> {
    const LEADS: &[&str] = &[
        "",
        "",
        "",
        "==7== ",
        "==7== ",
        "==7== ",
        "==8== ",
        "--7-- ",
        "**7** ",
        "==7==",
        "2024-05-01T10:00:00.1Z ==7== ",
        "> ==7== ",
        "==00:00:00:01.234 7== ",
    ];
    const BODIES: &[&str] = &[
        "",
        "Memcheck, a memory error detector",
        "Helgrind, a thread error detector",
        "Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info",
        "Command: ./a.out",
        "Parent PID: 1",
        "Invalid read of size 4",
        "Invalid free() / delete / delete[] / realloc()",
        "Conditional jump or move depends on uninitialised value(s)",
        "Syscall param write(buf) points to uninitialised byte(s)",
        "8 bytes in 1 blocks are definitely lost in loss record 1 of 2",
        "   at 0x4C2B955: malloc (vg_replace_malloc.c:711)",
        "   by 0x1: f (a.c:1)",
        "   by 0x2: g (in /lib/x.so)",
        "   by 0x3: ???",
        " Address 0x1 is 0 bytes after a block of size 4 alloc'd",
        " Uninitialised value was created by a heap allocation",
        "{",
        "   <insert_a_suppression_name_here>",
        "   Memcheck:Addr4",
        "   Memcheck:Leak",
        "   match-leak-kinds: definite",
        "   fun:f",
        "   obj:/lib/x.so",
        "}",
        "Thread 2:",
        "HEAP SUMMARY:",
        "ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)",
        "used_suppression:      1 my rule x.supp:3",
        "Reading suppressions file: /usr/libexec/valgrind/default.supp",
        "Process terminating with default action of signal 11 (SIGSEGV)",
        "valgrind: m_x.c:1 (f): Assertion 'x' failed.",
        "program output",
        "\u{0}\u{1}\u{fffd}",
    ];
    let line = (
        prop::sample::select(LEADS),
        prop::sample::select(BODIES),
        prop::sample::select(&["\n", "\n", "\n", "\r\n"][..]),
    )
        .prop_map(|(l, b, e)| format!("{l}{b}{e}"));
    (prop::collection::vec(line, 0..200), any::<bool>()).prop_map(|(lines, cut)| {
        let mut bytes = lines.concat().into_bytes();
        if cut {
            // A log cut anywhere (Valgrind killed).
            bytes.truncate(bytes.len() * 2 / 3);
        }
        bytes
    })
}

fn options() -> impl Strategy<Value = LoadOptions> {
    (
        prop::sample::select(Tool::ALL.to_vec()),
        14_u8..=27,
        1_u32..=500,
    )
        .prop_map(|(tool, minor, num_callers)| LoadOptions {
            tool,
            version: Version::new(minor).expect("3.14 ..= 3.27"),
            num_callers,
        })
}

fn small_num_callers() -> impl Strategy<Value = LoadOptions> {
    (options(), 1_u32..=4).prop_map(|(o, nc)| LoadOptions {
        num_callers: nc,
        ..o
    })
}

// ---------------------------------------------------------------------------------------
// Properties.

/// 256 cases per property (a few seconds in all); `PROPTEST_CASES=N` runs more.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Parsing keeps every byte and covers every line exactly once, in order.
    #[test]
    fn model_is_lossless(src in prop_oneof![supp_file(), byte_soup()]) {
        let file = supp::parse(src.clone());
        prop(checks::check_model(&src, &file))?;
    }

    /// Formatting is idempotent, canonical, and leaves what Valgrind loads unchanged.
    #[test]
    fn format_round_trips(src in supp_file()) {
        prop(checks::check_format(&src).map(drop))?;
    }

    /// The same on byte soup.
    #[test]
    fn format_round_trips_on_soup(src in byte_soup()) {
        prop(checks::check_format(&src).map(drop))?;
    }

    /// Formatting leaves the loaded records and the verdict unchanged for any release and
    /// `--num-callers`, not just the defaults.
    #[test]
    fn format_keeps_load_for_any_options(src in supp_file(), opts in prop_oneof![options(), small_num_callers()]) {
        let out = supp::format(&supp::parse(src.clone()));
        prop(checks::check_same_load(&src, &out, opts))?;
    }

    /// The log readers never fail on bytes in memory, keep line numbers in the log, and
    /// the parallel reader gives exactly the sequential reader's items for any chunk size.
    #[test]
    fn log_readers_hold_their_invariants(
        log in prop_oneof![3 => log_soup(), 2 => xml_soup(), 1 => byte_soup()],
        chunk in 1u64..400,
    ) {
        prop(log_checks::check_logs(&log, chunk))?;
    }

    /// The strict loader is the recovering loader cut at its verdict, and both are sane.
    #[test]
    fn loader_strict_matches_recovering(
        src in prop_oneof![3 => supp_file(), 1 => byte_soup()],
        opts in prop_oneof![options(), small_num_callers()],
    ) {
        prop(checks::check_loader(&src, opts))?;
    }
}

// ---------------------------------------------------------------------------------------
// The rule index: `RuleSet::candidates` must return every rule that a brute-force scan
// (`rule_matches` over all rules) says matches or may match. Rules are built from the
// pattern shapes the index keys on (literals, prefix `*`, `?`, inner `*`, obj globs like
// `*/libfoo.so*`, `src:`, leading and inner `...`) over a small vocabulary, so that they
// often match the generated inputs; inputs have facts the log did not show
// (`Known::Unknown`) and may be open-ended.

const FUNS: &[&str] = &[
    "malloc",
    "calloc",
    "foo",
    "foo_bar",
    "fob",
    "_ZN3foo3barEv",
    "main",
    "(below main)",
    "???",
    "operator new(unsigned long)",
    "_Znwm",
    "_ZNK2ns3Box3getEi",
    "_Z3fooi",
];

/// Names as a log without gen blocks shows them (demangled), some of which FUNS mangles.
const SHOWN: &[&str] = &[
    "foo::bar()",
    "operator new(unsigned long)",
    "ns::Box::get(int) const",
    "foo(int)",
    "foo(int) [clone .isra.0]",
    "void f<int>(int)",
    "ns::Box::Box(int)",
];

const OBJS: &[&str] = &[
    "/usr/lib/libfoo.so.1.2",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/opt/app/bin/app",
    "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so",
    "/opt/lib/libfoo.so",
    "???",
];

/// A glob derived from `name`: the literal, a literal prefix then `*`, `*` then a suffix,
/// an inner `*`, a `?` for one character, or `*` alone.
fn glob_of(pool: &'static [&'static str]) -> impl Strategy<Value = String> {
    (prop::sample::select(pool), 0_usize..6, 0_usize..8).prop_map(|(name, shape, at)| {
        let n = name.len();
        let k = at.min(n);
        match shape {
            0 | 1 => name.to_owned(),
            2 => format!("{}*", &name[..k]),
            3 => format!("*{}", &name[k..]),
            4 if n >= 2 => format!("{}*{}", &name[..k.min(n - 1)], &name[n - 1..]),
            5 if k < n => format!("{}?{}", &name[..k], &name[k + 1..]),
            _ => "*".to_owned(),
        }
    })
}

fn index_frame() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => glob_of(FUNS).prop_map(|g| format!("fun:{g}")),
        3 => glob_of(OBJS).prop_map(|g| format!("obj:{g}")),
        2 => prop::sample::select(vec![
            "*/libfoo.so*", "*/lib*/lib*.so.*", "/usr/*", "*libc*", "*/app", "/opt/*/lib*",
            "*vgpreload*", "*/opt*", "*/usr/lib*", "*/bin/*",
        ])
        .prop_map(|g| format!("obj:{g}")),
        1 => prop::sample::select(vec![
            "foo.c", "foo.c:12", "*.c", "*", "bar.cc:7", "f??.c", "vg_replace_malloc.c",
        ])
        .prop_map(|g| format!("src:{g}")),
        3 => Just("...".to_owned()),
    ]
}

/// One record: a kind line (Memcheck or Helgrind), its extra line, 1 to 10 frames
/// (at least one that is not `...`, else Valgrind refuses the file).
fn index_rule() -> impl Strategy<Value = String> {
    let kinds = prop::sample::select(vec![
        ("Memcheck:Addr4", None),
        ("Memcheck:Leak", None),
        ("Memcheck:Leak", Some("match-leak-kinds: definite,possible")),
        ("Memcheck:Cond", None),
        ("Memcheck:Value0", None),
        ("Memcheck:Param", Some("write(buf)")),
        ("Memcheck:CoreMem", None),
        ("Memcheck:BadSize", None),
        ("Memcheck:UnsafeZeroSize", None),
        ("Helgrind:Race", None),
        ("drd,Helgrind:Race", None),
    ]);
    (kinds, prop::collection::vec(index_frame(), 1..11)).prop_map(|((kind, extra), mut frames)| {
        if frames.iter().all(|f| f == "...") {
            frames.push("fun:malloc".to_owned());
        }
        // After a kind line, a `src:` line is not a location (§1.4): Valgrind would read it
        // as the record's extra line.
        if frames[0].starts_with("src:") {
            frames.insert(0, "...".to_owned());
        }
        let mut r = format!("{{\n   rule\n   {kind}\n");
        if let Some(x) = extra {
            r.push_str(&format!("   {x}\n"));
        }
        for f in frames {
            r.push_str(&format!("   {f}\n"));
        }
        r.push_str("}\n");
        r
    })
}

fn known<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Known<T>> {
    prop_oneof![4 => s.prop_map(Known::Yes), 1 => Just(Known::Unknown)]
}

fn input_frame() -> impl Strategy<Value = InputFrame> {
    let fun = prop_oneof![
        4 => prop::sample::select(FUNS).prop_map(|s| s.as_bytes().to_vec()),
        1 => "[a-z_]{1,6}".prop_map(String::into_bytes),
    ];
    let obj = prop_oneof![
        4 => prop::sample::select(OBJS).prop_map(|s| s.as_bytes().to_vec()),
        1 => "/[a-z]{1,3}/lib[a-z]{1,3}\\.so(\\.[0-9])?".prop_map(String::into_bytes),
    ];
    let src = prop_oneof![
        3 => (prop::sample::select(vec!["foo.c", "bar.cc", "fox.c"]), 1_u32..20)
            .prop_map(|(f, l)| SrcInfo::At(f.as_bytes().to_vec(), l)),
        1 => Just(SrcInfo::None),
    ];
    // A demangled display (only its mangled forms are matched), or a closed set of objects.
    let fun = prop_oneof![
        4 => known(fun),
        1 => (prop::sample::select(SHOWN), prop::bool::ANY).prop_map(|(s, maybe_inlined)| {
            Known::Demangled {
                shown: s.as_bytes().to_vec(),
                maybe_inlined,
            }
        }),
    ];
    let obj = prop_oneof![
        4 => known(obj),
        1 => prop::sample::subsequence(OBJS, 2..=3).prop_map(|set| {
            let mut v: Vec<Vec<u8>> = set.iter().map(|o| o.as_bytes().to_vec()).collect();
            v.sort();
            Known::OneOf(v.into())
        }),
    ];
    (fun, obj, known(src)).prop_map(|(fun, obj, src)| InputFrame { fun, obj, src })
}

fn match_input() -> impl Strategy<Value = MatchInput> {
    let kind = prop::sample::select(vec![
        "Addr4",
        "Leak",
        "Cond",
        "Param",
        "CoreMem",
        "BadSize",
        "UnsafeZeroSize",
        "Race",
    ]);
    (
        kind,
        prop::sample::select(LeakKind::ALL.to_vec()),
        prop::bool::ANY,
        prop::collection::vec((input_frame(), 0_u8..4), 0..12),
        prop::bool::ANY,
    )
        .prop_map(|(kind, leak, param_ok, frames, open_ended)| MatchInput {
            kind: ErrorKind {
                kind: kind.to_owned(),
                leak: (kind == "Leak").then_some(leak),
                param: (kind == "Param").then(|| {
                    if param_ok {
                        b"write(buf)".to_vec()
                    } else {
                        b"read(buf)".to_vec()
                    }
                }),
                fishy: None,
            },
            frames: repeat_neighbours(frames),
            open_ended,
            ..MatchInput::default()
        })
}

/// Real stacks repeat a neighbour's function (recursion) or object (a library's frames
/// in a row): a frame whose tag is 0 takes the previous frame's function, 1 its object.
fn repeat_neighbours(tagged: Vec<(InputFrame, u8)>) -> Vec<InputFrame> {
    let mut out: Vec<InputFrame> = Vec::with_capacity(tagged.len());
    for (mut f, tag) in tagged {
        if let Some(prev) = out.last() {
            match tag {
                0 => f.fun = prev.fun.clone(),
                1 => f.obj = prev.obj.clone(),
                _ => {}
            }
        }
        out.push(f);
    }
    out
}

/// A record built from `input` itself, so that rules often match or may match: its kind,
/// then for each of its frames (as many as `choices` says, one past the end when there
/// are more choices than frames) a literal, a glob or `...` taken from that frame. A fact
/// the input does not show gives a literal from the pools.
fn derived_rule(input: &MatchInput, choices: &[u8]) -> String {
    let (kind, extra) = match input.kind.kind.as_str() {
        "Leak" => ("Memcheck:Leak", None),
        "Cond" => ("Memcheck:Value0", None),
        "Param" => ("Memcheck:Param", Some("write(buf)")),
        "Race" => ("Helgrind:Race", None),
        "CoreMem" => ("Memcheck:CoreMem", None),
        "BadSize" => ("Memcheck:BadSize", None),
        "UnsafeZeroSize" => ("Memcheck:UnsafeZeroSize", None),
        _ => ("Memcheck:Addr4", None),
    };
    let text = |k: &Known<Vec<u8>>, or: &str| match k {
        Known::Yes(b) => String::from_utf8_lossy(b).into_owned(),
        Known::OneOf(set) => set.first().map_or_else(
            || or.to_owned(),
            |b| String::from_utf8_lossy(b).into_owned(),
        ),
        Known::Demangled { .. } | Known::Unknown => or.to_owned(),
    };
    let mut frames = Vec::new();
    for (i, &c) in choices.iter().enumerate() {
        let Some(f) = input.frames.get(i) else {
            frames.push("fun:*".to_owned());
            break;
        };
        let fun = text(&f.fun, "foo");
        let obj = text(&f.obj, "/opt/lib/libfoo.so");
        // Any component of the path: `*/NAME*` globs are keyed on the component they
        // start, which need not be the last.
        let parts: Vec<&str> = obj.split('/').filter(|p| !p.is_empty()).collect();
        let part = parts
            .get(usize::from(c / 8) % parts.len().max(1))
            .copied()
            .unwrap_or("");
        frames.push(match c % 8 {
            0 => format!("fun:{fun}"),
            1 => format!("obj:{obj}"),
            2 => format!("fun:{}*", &fun[..fun.len().min(2)]),
            3 => format!("obj:*/{}*", &part[..part.len().min(4)]),
            4 => "...".to_owned(),
            5 => match &f.src {
                Known::Yes(SrcInfo::At(file, line)) => {
                    format!("src:{}:{line}", String::from_utf8_lossy(file))
                }
                _ => "src:foo.c".to_owned(),
            },
            6 => "fun:*".to_owned(),
            _ => "obj:*".to_owned(),
        });
    }
    if frames.iter().all(|f| f == "...") {
        frames.push("fun:*".to_owned());
    }
    if frames[0].starts_with("src:") {
        frames.insert(0, "...".to_owned());
    }
    let mut r = format!("{{\n   derived\n   {kind}\n");
    if let Some(x) = extra {
        r.push_str(&format!("   {x}\n"));
    }
    for f in frames {
        r.push_str(&format!("   {f}\n"));
    }
    r.push_str("}\n");
    r
}

/// Inputs, and rules: random ones plus two derived from each input.
fn index_case() -> impl Strategy<Value = (Vec<String>, Vec<MatchInput>)> {
    (
        prop::collection::vec(index_rule(), 0..8),
        prop::collection::vec(
            (
                match_input(),
                prop::collection::vec(prop::collection::vec(0_u8..64, 1..6), 2),
            ),
            1..4,
        ),
    )
        .prop_map(|(mut rules, derived)| {
            let mut inputs = Vec::new();
            for (input, choices) in derived {
                for c in &choices {
                    rules.push(derived_rule(&input, c));
                }
                inputs.push(input);
            }
            (rules, inputs)
        })
}

fn index_set(rules: &[String]) -> RuleSet {
    RuleSet::load(
        vec![RuleFile {
            path: "gen.supp".to_owned(),
            source: rules.concat().into_bytes(),
        }],
        &[Tool::Memcheck, Tool::Helgrind],
        // 3.27: `BadSize` and its new name `UnsafeZeroSize` are both kinds there.
        Version::default(),
        12,
    )
    .expect("generated rules are valid")
}

/// Rules of `tool` that the brute-force scan says match or may match, and that the index
/// did not return.
fn missed_by_index(set: &RuleSet, tool: Tool, input: &MatchInput) -> Vec<u32> {
    let candidates: std::collections::BTreeSet<u32> =
        set.candidates(tool, input).into_iter().collect();
    (0..u32::try_from(set.rules.len()).expect("few rules"))
        .filter(|&id| set.rules[id as usize].tool == tool)
        .filter(|&id| set.rule_matches(id, input) != Truth::No)
        .filter(|id| !candidates.contains(id))
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// The index never hides a rule that matches or may match.
    #[test]
    fn rule_index_returns_every_match((rules, inputs) in index_case()) {
        let set = index_set(&rules);
        for input in &inputs {
            for tool in [Tool::Memcheck, Tool::Helgrind] {
                let missed = missed_by_index(&set, tool, input);
                prop_assert!(
                    missed.is_empty(),
                    "{tool:?}: rules {missed:?} match or may match but are not candidates\n{}\n{input:#?}",
                    rules.concat()
                );
            }
        }
    }
}

/// The property above is not vacuous: the generated rules often match the generated
/// inputs, some only maybe, and the index does narrow them.
#[test]
fn rule_index_property_sees_matches() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = index_case();
    let (mut cases, mut matched, mut unknown, mut narrowed) = (0, 0, 0, 0);
    for _ in 0..400 {
        let (rules, inputs) = strategy.new_tree(&mut runner).expect("value").current();
        let set = index_set(&rules);
        let input = &inputs[0];
        let verdicts: Vec<Truth> = (0..set.rules.len())
            .filter(|&i| set.rules[i].tool == Tool::Memcheck)
            .map(|i| set.rule_matches(u32::try_from(i).expect("few"), input))
            .collect();
        cases += 1;
        matched += usize::from(verdicts.contains(&Truth::Yes));
        unknown += usize::from(verdicts.contains(&Truth::Unknown));
        narrowed += usize::from(set.candidates(Tool::Memcheck, input).len() < verdicts.len());
        assert!(missed_by_index(&set, Tool::Memcheck, input).is_empty());
    }
    eprintln!(
        "{cases} cases: {matched} with a match, {unknown} with an undecided one, {narrowed} narrowed"
    );
    assert!(
        matched * 4 >= cases && unknown * 4 >= cases && narrowed * 4 >= cases,
        "{cases} cases: {matched} with a match, {unknown} with an undecided one, {narrowed} narrowed"
    );
}

// ---------------------------------------------------------------------------------------
// Inputs found by fuzzing or review.

fn regression_files() -> Vec<std::path::PathBuf> {
    let dir = repo("tests/data/fuzz-regressions");
    if !dir.is_dir() {
        return Vec::new();
    }
    files_in(&dir, &[])
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "supp"))
        .collect()
}

/// Inputs the `logs` fuzz target found (its first byte picks the chunk size).
#[test]
fn log_fuzz_regressions() {
    let dir = repo("tests/data/fuzz-regressions/logs");
    let files = files_in(&dir, &[]);
    assert!(!files.is_empty(), "no log regressions in {}", dir.display());
    for path in files {
        let data = std::fs::read(&path).expect("read regression");
        let (chunk, log) = match data.split_first() {
            Some((c, rest)) => (1 + u64::from(*c % 128), rest),
            None => (1, &data[..]),
        };
        if let Err(e) = log_checks::check_logs(log, chunk) {
            panic!("{}: {e}", name_of(&path));
        }
    }
}

/// Inputs the `sidecar` and `config` fuzz targets found, through both readers' checks.
#[test]
fn yaml_fuzz_regressions() {
    let dir = repo("tests/data/fuzz-regressions/yaml");
    let files = files_in(&dir, &[]);
    assert!(
        !files.is_empty(),
        "no YAML regressions in {}",
        dir.display()
    );
    for path in files {
        let data = std::fs::read(&path).expect("read regression");
        for check in [
            yaml_checks::check_sidecar,
            yaml_checks::check_config,
            yaml_checks::check_baseline,
        ] {
            if let Err(e) = check(&data) {
                panic!("{}: {e}", name_of(&path));
            }
        }
    }
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every check, for every tool, a few releases and `--num-callers` values.
fn check_all(src: &[u8]) -> Result<(), String> {
    let out = checks::check_format(src)?;
    for tool in Tool::ALL {
        for minor in [14, 19, 22, 23, 25, 27] {
            for num_callers in [1, 2, 12, 500] {
                let version = Version::new(minor).expect("3.14 ..= 3.27");
                let opts = LoadOptions {
                    tool,
                    version,
                    num_callers,
                };
                checks::check_loader(src, opts)?;
                checks::check_loader(&out, opts)?;
                checks::check_same_load(src, &out, opts)?;
            }
        }
    }
    Ok(())
}

/// Every input found by fuzzing or review (including the formatter's former bugs with a
/// last line without `\n` and with trailing whitespace at the 51200-character limit).
#[test]
fn fuzz_regressions_pass_every_check() {
    let mut failures = Vec::new();
    for path in regression_files() {
        let name = name_of(&path);
        let src = std::fs::read(&path).expect("read regression file");
        if let Err(e) = check_all(&src) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Real Valgrind (`get_nbnc_line`, checked with 3.19) returns the last line of a file that
/// has no final `\n` as read: trailing whitespace is not stripped and a leading `#` does not
/// make it a comment. (The loader got this wrong before b46b75b.)
#[test]
fn final_line_without_newline_is_taken_as_read() {
    use vgsupp::supp::LoadError::{BadLocation, ExpectedOpenBrace};
    let cases = [
        // (file, Valgrind's error, Valgrind's `near line N`)
        ("bug-eof-comment.supp", ExpectedOpenBrace, 5),
        ("bug-eof-trailing-space.supp", BadLocation, 4),
    ];
    let mut failures = Vec::new();
    for (name, error, line) in cases {
        let src =
            std::fs::read(repo(&format!("tests/data/fuzz-regressions/{name}"))).expect("read");
        let res = supp::load(&src, LoadOptions::new(Tool::Memcheck), false);
        let got = res.verdict().map(|p| (p.error, p.valgrind_line));
        if got != Some((error, line)) {
            failures.push(format!(
                "{name}: expected {:?}, got {got:?}",
                Some((error, line))
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
