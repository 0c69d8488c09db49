//! The XML reader on small documents: kinds, damage, caps, multiple documents.

use std::fmt::Write as _;
use std::io::{self, Read};

use memchr::memmem;

use super::elements::char_ref;
use super::kinds::error_kind;
use super::*;
use crate::logs::record::{
    ErrorRecord, ErrorSummary, Frame, GenFrame, GenFrames, GenSuppression, LogItem, LossRecord,
    UsedSuppression,
};
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

fn read(input: &[u8]) -> Vec<LogItem> {
    XmlReader::new(input)
        .map(|r| r.expect("no I/O error"))
        .collect()
}

fn errors(items: &[LogItem]) -> Vec<&ErrorRecord> {
    items.iter().filter_map(LogItem::as_error).collect()
}

fn warnings(items: &[LogItem]) -> Vec<(u64, &str)> {
    items.iter().filter_map(LogItem::as_warning).collect()
}

const HEAD: &str = r#"<?xml version="1.0"?>

<valgrindoutput>

<protocolversion>4</protocolversion>
<protocoltool>memcheck</protocoltool>

<preamble>
  <line>Memcheck, a memory error detector</line>
  <line>Using Valgrind-3.19.0-8d3c8034b8-20220411 and LibVEX; rerun with -h for copyright info</line>
  <line>Command: ./errs arg</line>
</preamble>

<pid>4242</pid>
<ppid>4241</ppid>
<tool>memcheck</tool>

<args>
  <vargv>
    <exe>/usr/bin/valgrind.bin</exe>
    <arg>--xml=yes</arg>
    <arg>--gen-suppressions=all</arg>
    <arg>--suppressions=my &amp; co.supp</arg>
    <arg>--demangle=no</arg>
  </vargv>
  <argv>
    <exe>./errs</exe>
    <arg>arg</arg>
  </argv>
</args>

<status>
  <state>RUNNING</state>
  <time>00:00:00:00.020 </time>
</status>

"#;

const READ_ERROR: &str = r#"<error>
  <unique>0x1a</unique>
  <tid>1</tid>
  <kind>InvalidRead</kind>
  <what>Invalid read of size 4</what>
  <stack>
    <frame>
      <ip>0x109171</ip>
      <obj>/src/demo/errs</obj>
      <fn>tget&lt;int&gt;</fn>
      <dir>/src/demo</dir>
      <file>errs.c</file>
      <line>11</line>
    </frame>
    <frame>
      <ip>0x1091A0</ip>
      <obj>/src/demo/errs</obj>
      <fn>main</fn>
    </frame>
  </stack>
  <auxwhat>Address 0x4a8c068 is 0 bytes after a block of size 40 alloc'd</auxwhat>
  <stack>
    <frame>
      <ip>0x48437B4</ip>
      <obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj>
      <fn>malloc</fn>
    </frame>
  </stack>
  <suppression>
    <sname>insert_a_suppression_name_here</sname>
    <skind>Memcheck:Addr4</skind>
    <sframe> <fun>tget&lt;int&gt;</fun> </sframe>
    <sframe> <obj>*</obj> </sframe>
    <rawtext>
<![CDATA[
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:tget<int>
   obj:*
}
]]>
    </rawtext>
  </suppression>
</error>

  <suppression>
    <sname>insert_a_suppression_name_here</sname>
    <skind>Memcheck:Addr4</skind>
    <sframe> <fun>tget&lt;int&gt;</fun> </sframe>
    <sframe> <obj>*</obj> </sframe>
    <rawtext>
<![CDATA[
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:tget<int>
   obj:*
}
]]>
    </rawtext>
  </suppression>
"#;

const LEAK_ERROR: &str = r#"<error>
  <unique>0x2</unique>
  <tid>1</tid>
  <kind>Leak_DefinitelyLost</kind>
  <xwhat>
    <text>1,064 (40 direct, 1,024 indirect) bytes in 1 blocks are definitely lost in loss record 3 of 7</text>
    <leakedbytes>1064</leakedbytes>
    <leakedblocks>1</leakedblocks>
  </xwhat>
  <stack>
    <frame>
      <ip>0x48437B4</ip>
      <obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj>
      <fn>malloc</fn>
    </frame>
  </stack>
</error>

"#;

const TAIL: &str = r#"<status>
  <state>FINISHED</state>
  <time>00:00:00:00.520 </time>
</status>

<errorcounts>
  <pair>
    <count>1</count>
    <unique>0x1a</unique>
  </pair>
</errorcounts>

<suppcounts>
  <pair>
    <count>3</count>
    <name>rule &lt;1&gt; &amp; more</name>
  </pair>
</suppcounts>

</valgrindoutput>

"#;

fn doc() -> String {
    format!("{HEAD}{READ_ERROR}{LEAK_ERROR}{TAIL}")
}

#[test]
fn reads_a_memcheck_document() {
    let items = read(doc().as_bytes());
    assert!(warnings(&items).is_empty(), "{items:#?}");
    let LogItem::Preamble(p) = &items[0] else {
        panic!("{items:#?}")
    };
    assert_eq!(p.pid, Some(4242));
    assert_eq!(p.ppid, Some(4241));
    assert_eq!(p.tool, Some(Tool::Memcheck));
    assert_eq!(p.valgrind_version.as_deref(), Some("3.19.0"));
    assert_eq!(p.command.as_deref(), Some("./errs arg"));
    assert_eq!(
        p.options,
        [
            "--xml=yes",
            "--gen-suppressions=all",
            "--suppressions=my & co.supp",
            "--demangle=no"
        ]
    );
    assert_eq!(
        items[1],
        LogItem::SuppressionFile {
            pid: Some(4242),
            path: b"my & co.supp".to_vec()
        }
    );
    let errs = errors(&items);
    assert_eq!(errs.len(), 2);
    let e = errs[0];
    assert_eq!(e.line, 37);
    assert_eq!(e.pid, Some(4242));
    assert_eq!(e.tool, Some(Tool::Memcheck));
    assert_eq!(e.unique, Some(0x1a));
    assert_eq!(e.tid, Some(1));
    assert_eq!(e.kind, "Addr4");
    assert_eq!(e.xml_kind.as_deref(), Some("InvalidRead"));
    assert_eq!(e.what, "Invalid read of size 4");
    assert_eq!(e.size, Some(4));
    assert_eq!(e.stack.len(), 2);
    assert_eq!(
        e.stack.get(0).expect("frame"),
        Frame {
            ip: Some(0x109171),
            fun: Some(&b"tget<int>"[..]),
            obj: Some(&b"/src/demo/errs"[..]),
            dir: Some(&b"/src/demo"[..]),
            file: Some(&b"errs.c"[..]),
            line: Some(11),
        }
    );
    assert_eq!(e.stack.get(1).expect("frame").file, None);
    assert_eq!(e.aux.len(), 1);
    assert_eq!(
        e.aux[0].what,
        "Address 0x4a8c068 is 0 bytes after a block of size 40 alloc'd"
    );
    assert!(!e.aux[0].origin);
    assert_eq!(
        e.aux[0].stack.get(0).expect("frame").fun,
        Some(&b"malloc"[..])
    );
    assert_eq!(
        e.suppression,
        Some(GenSuppression {
            kind_line: b"Memcheck:Addr4".to_vec(),
            extra: None,
            frames: [GenFrame::Fun(b"tget<int>"), GenFrame::Obj(b"*")]
                .into_iter()
                .try_fold(GenFrames::new(), |mut g, f| g.push(f).map(|()| g))
                .expect("fits"),
        })
    );
    let leak = errs[1];
    assert_eq!(leak.kind, "Leak");
    assert_eq!(
        leak.leak,
        Some(LossRecord {
            kind: LeakKind::Definite,
            bytes: 1064,
            blocks: 1,
            index: 3,
            total: 7
        })
    );
    assert_eq!(leak.suppression, None);
    assert_eq!(
        items.last(),
        Some(&LogItem::Used(UsedSuppression {
            pid: Some(4242),
            count: 3,
            name: b"rule <1> & more".to_vec(),
            file: None,
            line: None,
            leak: None,
        }))
    );
    // `<errorcounts>`: the error of `<unique>0x1a</unique>` occurred once.
    assert_eq!(
        items[items.len() - 2],
        LogItem::ContextCount {
            pid: Some(4242),
            count: 1,
            error_line: errs[0].line
        }
    );
    assert_eq!(items.len(), 6);
}

#[test]
fn the_duplicate_suppression_is_counted_once() {
    let input = doc();
    let mut r = XmlReader::new(input.as_bytes());
    let n = r.by_ref().count();
    assert_eq!(n, 6);
    assert_eq!(
        *r.stats(),
        XmlStats {
            documents: 1,
            errors: 2,
            suppressions: 1,
            duplicate_suppressions: 1,
            warnings: 0
        }
    );
}

#[test]
fn kinds_map_like_mc_get_error_name() {
    let k = |xml: &str, what: &str| error_kind(xml, what.as_bytes(), None, (None, None), false);
    assert_eq!(k("InvalidWrite", "Invalid write of size 1").name, "Addr1");
    assert_eq!(k("InvalidRead", "Invalid read of size 32").size, Some(32));
    assert_eq!(
        k("UninitValue", "Use of uninitialised value of size 8").name,
        "Value8"
    );
    assert_eq!(k("UninitCondition", "Conditional jump …").name, "Cond");
    let p = k(
        "SyscallParam",
        "Syscall param write(buf) points to uninitialised byte(s)",
    );
    assert_eq!(
        (p.name.as_str(), p.param.as_deref()),
        ("Param", Some(&b"write(buf)"[..]))
    );
    let p = k(
        "SyscallParam",
        "Syscall param sendmsg(msg.msg_iov[0]) points to unaddressable byte(s)",
    );
    assert_eq!(p.param.as_deref(), Some(&b"sendmsg(msg.msg_iov[0])"[..]));
    let p = k(
        "SyscallParam",
        "Syscall param exit_group(status) contains uninitialised byte(s)",
    );
    assert_eq!(p.param.as_deref(), Some(&b"exit_group(status)"[..]));
    for (xml, name) in [
        ("ClientCheck", "User"),
        ("InvalidFree", "Free"),
        ("MismatchedFree", "Free"),
        ("InvalidJump", "Jump"),
        ("Overlap", "Overlap"),
        ("InvalidMemPool", "Mempool"),
        ("CoreMemError", "CoreMem"),
        ("ReallocSizeZero", "ReallocZero"),
        ("InvalidSizeAndAlignment", "BadAlign"),
        ("InvalidAlignment", "BadAlign"),
        ("InvalidSize", "BadSize"),
        ("MismatchedAllocateDeallocateSize", "SizeMismatch"),
        ("MismatchedAllocateDeallocateAlignment", "AlignMismatch"),
        ("Race", "Race"),
        ("UnlockBogus", "UnlockBogus"),
        ("ConflictingAccess", "ConflictingAccess"),
        ("FdNotClosed", "FdNotClosed"),
    ] {
        assert_eq!(k(xml, "").name, name, "{xml}");
    }
    let new = error_kind("InvalidSize", b"", None, (None, None), true);
    assert_eq!(new.name, "UnsafeZeroSize");
    let f = k(
        "FishyValue",
        "Argument 'size' of function malloc has a fishy (possibly negative) value: -1",
    );
    assert_eq!(f.fishy, Some((b"malloc".to_vec(), b"size".to_vec())));
    let f = error_kind(
        "FishyValue",
        b"?",
        Some(b"calloc(nmemb)"),
        (None, None),
        false,
    );
    assert_eq!(f.fishy, Some((b"calloc".to_vec(), b"nmemb".to_vec())));
    let l = k(
        "Leak_StillReachable",
        "1,024 bytes in 2 blocks are still reachable in loss record 12 of 3,456",
    );
    assert_eq!(
        l.leak,
        Some(LossRecord {
            kind: LeakKind::Reachable,
            bytes: 1024,
            blocks: 2,
            index: 12,
            total: 3456
        })
    );
    let l = k(
        "Leak_IndirectlyLost",
        "8 bytes in 1 blocks are indirectly lost in new loss record 2 of 9",
    );
    assert_eq!(
        l.leak.map(|r| (r.kind, r.index)),
        Some((LeakKind::Indirect, 2))
    );
}

#[test]
fn the_generated_kind_wins() {
    let input = format!(
        "{HEAD}<error><unique>0x1</unique><tid>1</tid><kind>InvalidSize</kind>\
             <what>x</what><stack><frame><ip>0x1</ip></frame></stack><suppression>\
             <sname>n</sname><skind>Memcheck:UnsafeZeroSize</skind><sframe><obj>*</obj>\
             </sframe></suppression></error>{TAIL}"
    );
    let items = read(input.as_bytes());
    assert_eq!(errors(&items)[0].kind, "UnsafeZeroSize");
}

#[test]
fn raw_bytes_survive() {
    let mut input = format!("{HEAD}<error><unique>0x1a</unique><tid>1</tid>").into_bytes();
    input.extend_from_slice(
        b"<kind>InvalidRead</kind><what>Invalid read of size 4 in caf\xe9</what><stack>\
              <frame><ip>0x1</ip><obj>/tmp/caf\xe9/x</obj><fn>f\xff\xfe&amp;\xe9</fn>\
              <dir>/tmp/caf\xc3\xa9</dir><file>\xe9.c</file><line>3</line></frame></stack>\
              <suppression><sname>n</sname><skind>Memcheck:Addr4</skind>\
              <sframe><fun>f\xff\xfe&amp;\xe9</fun></sframe><rawtext><![CDATA[\xe9]]></rawtext>\
              </suppression></error>",
    );
    input.extend_from_slice(TAIL.as_bytes());
    let items = read(&input);
    assert!(warnings(&items).is_empty(), "{items:#?}");
    let e = errors(&items)[0];
    let f = &e.stack.get(0).expect("frame");
    assert_eq!(f.obj, Some(&b"/tmp/caf\xe9/x"[..]));
    assert_eq!(f.fun, Some(&b"f\xff\xfe&\xe9"[..]));
    assert_eq!(f.dir, Some("/tmp/café".as_bytes()));
    assert_eq!(f.file, Some(&b"\xe9.c"[..]));
    assert_eq!(e.what, "Invalid read of size 4 in caf\u{fffd}");
    assert_eq!(
        e.suppression.as_ref().map(|s| s.frames.to_vec()),
        Some(vec![GenFrame::Fun(b"f\xff\xfe&\xe9")])
    );
}

/// Hands out its input `n` bytes at a time, to split tokens and UTF-8 sequences.
struct Chunked<'a> {
    data: &'a [u8],
    n: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.n.min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn chunk_boundaries_do_not_matter() {
    let mut input = doc().into_bytes();
    let at = memmem::find(&input, b"<fn>main").expect("fn main") + 4;
    input.splice(at..at, b"caf\xc3\xa9\xe9\xe9".iter().copied());
    let whole = read(&input);
    for n in [1, 2, 3, 7, 64] {
        let chunked = io::BufReader::with_capacity(n, Chunked { data: &input, n });
        let items: Vec<_> = XmlReader::new(chunked).map(Result::unwrap).collect();
        assert_eq!(items, whole, "chunks of {n}");
    }
    let e = errors(&whole)[0];
    assert_eq!(
        e.stack.get(1).expect("frame").fun,
        Some(&b"caf\xc3\xa9\xe9\xe9main"[..])
    );
}

/// Frames written unlike Valgrind writes them (the fast path leaves them to the tokens).
fn odd_frames() -> Vec<String> {
    let frame = "<frame>\n      <ip>0x1091A0</ip>\n      <obj>/src/demo/errs</obj>\n      <fn>main</fn>\n    </frame>";
    let variants = [
        "<fn>tget&lt;int&gt; &amp; &#x41;&#66; &foo; a&b &</fn>",
        "<fn>x</fn><fn>y</fn>",
        "<fn a=\"1\">x</fn>",
        "<fn/>",
        "<!-- c --><fn>x</fn>",
        "<fn><![CDATA[<x>]]></fn>",
        "<fn>x</fx>",
        "<other>x</other>",
        "<line>12</line><line>x</line><dir>d</dir><file>f</file><file>g</file><ip>1</ip><ip>2</ip><ip>3</ip><ip>4</ip>",
        "\u{feff}<fn>x</fn>",
        "<fn>x</fn >",
        "junk",
        "<frame><fn>nested</fn></frame>",
    ];
    let sframe = "<sframe> <obj>*</obj> </sframe>";
    assert!(doc().contains(frame) && doc().contains(sframe));
    let mut docs = vec![doc()];
    for v in variants {
        let odd = frame.replace("<fn>main</fn>", v);
        docs.push(doc().replace(frame, &odd));
        let odd = sframe.replace("<obj>*</obj>", &v.replace("fn", "fun"));
        docs.push(doc().replacen(sframe, &odd, 1));
    }
    docs
}

#[test]
fn frames_read_fast_as_token_by_token() {
    let mut docs: Vec<Vec<u8>> = odd_frames().into_iter().map(String::into_bytes).collect();
    for dir in ["tests/data/logs/xml", "tests/data/match"] {
        for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
            if entry.path().extension().is_some_and(|e| e == "xml") {
                docs.push(std::fs::read(entry.path()).expect("test log"));
            }
        }
    }
    assert!(docs.len() > 30, "{}", docs.len());
    let fast_frames =
        |items: &[LogItem]| errors(items).iter().map(|e| e.stack.len()).sum::<usize>();
    let mut frames = 0;
    for input in &docs {
        let fast = read(input);
        let tokens: Vec<_> = XmlReader::new(&input[..])
            .token_by_token()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            fast,
            tokens,
            "{}",
            String::from_utf8_lossy(&input[..input.len().min(2000)])
        );
        // Frames cut by the end of what was read go the token path.
        for n in [7, 100] {
            let chunked = io::BufReader::with_capacity(n, Chunked { data: input, n });
            let items: Vec<_> = XmlReader::new(chunked).map(Result::unwrap).collect();
            assert_eq!(items, fast, "chunks of {n}");
        }
        frames += fast_frames(&fast);
    }
    assert!(frames > 1000, "{frames}");
}

#[test]
fn concatenated_documents() {
    let second = doc().replace("<pid>4242</pid>", "<pid>77</pid>");
    let input = format!("{}{second}", doc());
    let items = read(input.as_bytes());
    assert!(warnings(&items).is_empty(), "{items:#?}");
    let pids: Vec<_> = errors(&items).iter().map(|e| e.pid).collect();
    assert_eq!(pids, [Some(4242), Some(4242), Some(77), Some(77)]);
    let preambles = items
        .iter()
        .filter(|i| matches!(i, LogItem::Preamble(_)))
        .count();
    assert_eq!(preambles, 2);
    let lines: Vec<_> = errors(&items).iter().map(|e| e.line).collect();
    let offset = doc().lines().count() as u64;
    assert_eq!(lines, [37, 99, 37 + offset, 99 + offset]);
}

#[test]
fn error_lines_are_those_of_the_start_tags() {
    let input = doc();
    let expected: Vec<u64> = input
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "<error>")
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let items = read(input.as_bytes());
    let lines: Vec<_> = errors(&items).iter().map(|e| e.line).collect();
    assert_eq!(lines, expected);
}

#[test]
fn byte_order_marks_between_documents() {
    let input = format!("\u{feff}{}\u{feff}{}", doc(), doc());
    let items = read(input.as_bytes());
    assert!(warnings(&items).is_empty(), "{items:#?}");
    assert_eq!(errors(&items).len(), 4);
}

#[test]
fn cut_inside_an_error() {
    let full = doc();
    let cut = &full[..full.find("<leakedbytes>").expect("leak")];
    let items = read(cut.as_bytes());
    assert_eq!(errors(&items).len(), 1);
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{items:#?}");
    let last = cut.lines().count() as u64;
    assert_eq!(w[0].0, last);
    assert!(
        w[0].1.contains("inside the <error> that starts at line 99"),
        "{}",
        w[0].1
    );
    assert!(matches!(items.last(), Some(LogItem::Warning { .. })));
}

#[test]
fn cut_anywhere_never_panics_and_warns() {
    let full = doc();
    let bytes = full.as_bytes();
    let mut kept_cut = 0;
    for end in (0..bytes.len()).step_by(7) {
        let items = read(&bytes[..end]);
        let complete = memmem::find_iter(&bytes[..end], b"</error>").count();
        let errs = errors(&items);
        // An error cut short is kept once a frame of its own stack was read.
        assert!(
            errs.len() == complete || errs.len() == complete + 1,
            "cut at {end}"
        );
        if errs.len() > complete {
            kept_cut += 1;
            let e = errs[complete];
            assert!(!e.kind.is_empty() && !e.stack.is_empty(), "cut at {end}");
            let stack_closed = memmem::rfind(&bytes[..end], b"</stack>")
                > memmem::rfind(&bytes[..end], b"<error>");
            assert_eq!(e.truncated, !stack_closed, "cut at {end}");
        }
        assert!(!warnings(&items).is_empty(), "cut at {end}: {items:#?}");
    }
    assert!(kept_cut > 20, "{kept_cut}");
}

#[test]
fn cut_inside_a_tag() {
    let full = doc();
    let cut = &full[..full.find("<leakedbytes>").expect("leak") + 5];
    let items = read(cut.as_bytes());
    assert_eq!(errors(&items).len(), 1);
    assert_eq!(warnings(&items).len(), 1);
}

#[test]
fn cut_then_another_document() {
    let full = doc();
    let cut = &full[..full.find("<leakedbytes>").expect("leak") + 5];
    let input = format!("{cut}{full}");
    let items = read(input.as_bytes());
    assert_eq!(errors(&items).len(), 3, "{items:#?}");
    let w = warnings(&items);
    assert_eq!(w.len(), 2, "{w:#?}");
    assert!(w[0].1.contains("<error> at line 99 is cut"), "{}", w[0].1);
    // The cut tag swallows the `<?xml …?>`: the cut shows where `<valgrindoutput>` starts.
    assert_eq!(w[1].0, cut.lines().count() as u64 + 2);
    // Cut between tags, and in the duplicate suppression.
    for marker in ["<leakedbytes>", "  <suppression>\n    <sname>"] {
        let at = full.rfind(marker).expect("marker");
        let input = format!("{}{full}", &full[..at]);
        let items = read(input.as_bytes());
        assert_eq!(errors(&items).len(), 3, "{marker}");
        assert!(!warnings(&items).is_empty());
        let docs = items
            .iter()
            .filter(|i| matches!(i, LogItem::Preamble(_)))
            .count();
        assert_eq!(docs, 2);
    }
}

#[test]
fn a_document_stopped_by_a_fatal_error() {
    let input = format!("{HEAD}</valgrindoutput>");
    let items = read(input.as_bytes());
    assert!(matches!(items[0], LogItem::Preamble(_)));
    assert!(matches!(items[1], LogItem::SuppressionFile { .. }));
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, HEAD.lines().count() as u64 + 1);
    assert!(w[0].1.contains("without <status> FINISHED"), "{}", w[0].1);
}

#[test]
fn mismatched_tags_skip_to_the_next_error() {
    let bad = READ_ERROR.replace("<file>errs.c</file>", "<file>errs.c</fn>");
    let input = format!("{HEAD}{bad}{LEAK_ERROR}{TAIL}");
    let items = read(input.as_bytes());
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].kind, "Leak");
    let w = warnings(&items);
    assert_eq!(w.len(), 2, "{w:#?}");
    assert!(
        w[0].1
            .contains("the <error> it cuts short: it is skipped (no frame of its stack was read)"),
        "{}",
        w[0].1
    );
    // Its `<errorcounts>` entry has no error to count.
    assert!(
        w[1].1
            .contains("<unique>0x1a, whose <error> is not in this document")
    );
    assert!(matches!(items.last(), Some(LogItem::Used(_))));
}

#[test]
fn an_error_inside_an_error() {
    let cut = &READ_ERROR[..READ_ERROR.find("<line>11").expect("line")];
    let input = format!("{HEAD}{cut}{READ_ERROR}{LEAK_ERROR}{TAIL}");
    let items = read(input.as_bytes());
    // Cut inside its first frame: the outer error has no frame to keep.
    assert_eq!(errors(&items).len(), 2, "{items:#?}");
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].1.contains("inside the <error> at line 37")
            && w[0]
                .1
                .contains("it is skipped (no frame of its stack was read)"),
        "{}",
        w[0].1
    );
    assert!(matches!(items.last(), Some(LogItem::Used(_))));
    // Cut inside its `<suppression>`: its stack ended, it is kept, without the block.
    let cut = &READ_ERROR[..READ_ERROR.find("<sname>").expect("sname") + 9];
    let input = format!("{HEAD}{cut}{READ_ERROR}{LEAK_ERROR}{TAIL}");
    let items = read(input.as_bytes());
    let errs = errors(&items);
    assert_eq!(errs.len(), 3, "{items:#?}");
    assert_eq!((errs[0].line, errs[0].truncated), (37, false));
    assert!(errs[0].suppression.is_none(), "the cut block is left out");
    assert_eq!(warnings(&items).len(), 1);
}

#[test]
fn a_fragment_without_document() {
    let items = read(format!("{READ_ERROR}{LEAK_ERROR}").as_bytes());
    assert_eq!(errors(&items).len(), 2);
    assert!(!items.iter().any(|i| matches!(i, LogItem::Preamble(_))));
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].1.contains("not inside a <valgrindoutput>"),
        "{}",
        w[0].1
    );
}

#[test]
fn garbage_between_errors() {
    let mut input = format!("{HEAD}{READ_ERROR}").into_bytes();
    input.extend_from_slice(b"==123== some stderr line\n\x00\x01\xff<<</ >\x7f<!x ]]>\n");
    input.extend_from_slice(format!("{LEAK_ERROR}{TAIL}").as_bytes());
    let items = read(&input);
    assert_eq!(errors(&items).len(), 2, "{items:#?}");
    assert_eq!(warnings(&items).len(), 1, "{items:#?}");
    assert!(matches!(items.last(), Some(LogItem::Used(_))));
}

#[test]
fn binary_input_is_not_a_log() {
    let input: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let items = read(&input);
    assert!(errors(&items).is_empty());
    assert!(!warnings(&items).is_empty());
    assert!(
        read(b"")
            .iter()
            .all(|i| matches!(i, LogItem::Warning { .. }))
    );
    assert_eq!(read(b"").len(), 1);
}

#[test]
fn deep_nesting_is_refused() {
    let mut input = format!("{HEAD}<error><unique>0x1</unique>");
    input.push_str(&"<a>".repeat(100_000));
    input.push_str(&"</a>".repeat(100_000));
    input.push_str(&format!("</error>{LEAK_ERROR}{TAIL}"));
    let items = read(input.as_bytes());
    assert_eq!(errors(&items).len(), 1);
    let w = warnings(&items);
    assert!(w[0].1.contains("nested deeper"), "{w:#?}");
}

#[test]
fn huge_text_is_cut_or_skipped() {
    let big = "x".repeat(TEXT_CAP + 10);
    let input = READ_ERROR.replace("<fn>main</fn>", &format!("<fn>{big}</fn>"));
    let items = read(format!("{HEAD}{input}{TAIL}").as_bytes());
    let e = errors(&items)[0];
    assert_eq!(
        e.stack.get(1).expect("frame").fun.map(<[u8]>::len),
        Some(TEXT_CAP)
    );
    assert_eq!(warnings(&items).len(), 1, "{:#?}", warnings(&items));
    assert!(
        warnings(&items)[0].1.contains("longer than 1 MiB: cut"),
        "{:#?}",
        warnings(&items)
    );

    // The cap is checked per chunk read, so it may be passed by up to one chunk.
    let huge = "y".repeat(usize::try_from(EVENT_CAP).expect("fits") + (1 << 20));
    let input = READ_ERROR.replace("<fn>main</fn>", &format!("<fn>{huge}</fn>"));
    let items = read(format!("{HEAD}{input}{LEAK_ERROR}{TAIL}").as_bytes());
    let errs = errors(&items);
    // The error is cut short where its second frame is refused: kept with the first.
    assert_eq!(errs.len(), 2);
    assert_eq!(
        (
            errs[0].kind.as_str(),
            errs[0].stack.len(),
            errs[0].truncated
        ),
        ("Addr4", 1, true)
    );
    assert_eq!(errs[1].kind, "Leak");
    let w = warnings(&items);
    assert!(w[0].1.contains("longer than 16 MiB"), "{w:#?}");
    assert!(
        w[0].1.contains(
            "the <error> it cuts short: it is kept with the 1 frames read, marked truncated"
        ),
        "{w:#?}"
    );
}

#[test]
fn protocol_6_summaries() {
    let input = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>6</protocolversion>
<protocoltool>memcheck</protocoltool>
<preamble>
  <line>Using Valgrind-3.26.0 and LibVEX; rerun with -h for copyright info</line>
</preamble>
<pid>9</pid>
<ppid>1</ppid>
<tool>memcheck</tool>
<status><state>RUNNING</state><time>00:00:00:00.020 </time></status>
<error>
  <unique>0x0</unique>
  <tid>1</tid>
  <kind>ReallocSizeZero</kind>
  <what>realloc() with size 0</what>
  <stack><frame><ip>0x1</ip></frame></stack>
</error>
<error>
  <unique>0x1</unique>
  <tid>1</tid>
  <kind>InvalidSize</kind>
  <what>Unsafe allocation with size of zero is implementation-defined</what>
  <stack><frame><ip>0x1</ip></frame></stack>
</error>
<status><state>FINISHED</state><time>00:00:00:00.120 </time></status>
<heap_summary>
  <memory_in_use_at_exit><bytes>1,024</bytes><blocks>5</blocks></memory_in_use_at_exit>
  <total_heap_usage><allocs>5</allocs><frees>0</frees><bytes_allocated>1,720</bytes_allocated></total_heap_usage>
</heap_summary>
<all_heap_blocks_freed>false</all_heap_blocks_freed>
<leak_summary>
  <definitely_lost><bytes>48</bytes><in_blocks>3</in_blocks></definitely_lost>
  <suppressed><bytes>0</bytes><in_blocks>0</in_blocks></suppressed>
</leak_summary>
<errorcounts>
</errorcounts>
<suppcounts>
</suppcounts>
<error_summary>
 <errors>1,234</errors>
 <error_contexts>2</error_contexts>
 <suppressed>3</suppressed>
 <suppressed_contexts>3</suppressed_contexts>
</error_summary>
</valgrindoutput>
"#;
    let items = read(input.as_bytes());
    assert!(warnings(&items).is_empty(), "{items:#?}");
    let kinds: Vec<_> = errors(&items).iter().map(|e| e.kind.clone()).collect();
    assert_eq!(kinds, ["ReallocZero", "UnsafeZeroSize"]);
    assert_eq!(
        items.last(),
        Some(&LogItem::Summary(ErrorSummary {
            pid: Some(9),
            errors: 1234,
            contexts: 2,
            suppressed: 3,
            suppressed_contexts: 3
        }))
    );
}

#[test]
fn helgrind_and_drd_errors() {
    let hg = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>4</protocolversion>
<protocoltool>helgrind</protocoltool>
<pid>5</pid><ppid>1</ppid><tool>helgrind</tool>
<status><state>RUNNING</state></status>
<announcethread><hthreadid>2</hthreadid><stack><frame><ip>0x1</ip></frame></stack></announcethread>
<error>
  <unique>0x0</unique>
  <tid>2</tid>
  <kind>Race</kind>
  <xwhat><text>Possible data race during read of size 4 at 0x10C060 by thread #3</text><hthreadid>3</hthreadid></xwhat>
  <stack><frame><ip>0x2</ip><fn>worker</fn></frame></stack>
  <xauxwhat><text>This conflicts with a previous write of size 4 by thread #2</text><hthreadid>2</hthreadid></xauxwhat>
  <stack><frame><ip>0x3</ip><fn>worker</fn></frame></stack>
  <auxwhat>Address 0x10c060 is 0 bytes inside data symbol "counter"</auxwhat>
</error>
<error>
  <unique>0x4</unique>
  <tid>2</tid>
  <kind>ConflictingAccess</kind>
  <what>Conflicting load by thread 3 at 0x0010c060 size 4</what>
  <stack><frame><ip>0x2</ip></frame></stack>
  <auxwhat>Allocation context: BSS section of /tmp/race</auxwhat>
  <other_segment_start><stack><frame><ip>0x9</ip></frame></stack></other_segment_start>
  <other_segment_end></other_segment_end>
</error>
<clientmsg><tid>1</tid><text>hello</text></clientmsg>
<fatal_signal>
  <tid>1</tid>
  <signo>11</signo>
  <signame>SIGSEGV</signame>
  <sicode>2</sicode>
  <event>Bad permissions for mapped region</event>
  <siaddr>0x1234</siaddr>
  <stack><frame><ip>0x1234</ip></frame></stack>
</fatal_signal>
<status><state>FINISHED</state></status>
</valgrindoutput>
"#;
    let items = read(hg.as_bytes());
    assert!(warnings(&items).is_empty(), "{items:#?}");
    let errs = errors(&items);
    assert_eq!(errs[0].kind, "Race");
    assert_eq!(errs[0].tool, Some(Tool::Helgrind));
    assert_eq!(
        errs[0].what,
        "Possible data race during read of size 4 at 0x10C060 by thread #3"
    );
    let aux: Vec<_> = errs[0]
        .aux
        .iter()
        .map(|a| (a.what.as_str(), a.stack.len()))
        .collect();
    assert_eq!(
        aux,
        [
            (
                "This conflicts with a previous write of size 4 by thread #2",
                1
            ),
            (
                "Address 0x10c060 is 0 bytes inside data symbol \"counter\"",
                0
            )
        ]
    );
    assert_eq!(errs[1].kind, "ConflictingAccess");
    let aux: Vec<_> = errs[1]
        .aux
        .iter()
        .map(|a| (a.what.as_str(), a.stack.len()))
        .collect();
    assert_eq!(
        aux,
        [
            ("Allocation context: BSS section of /tmp/race", 0),
            ("other_segment_start", 1)
        ]
    );
    let fatal = items.iter().find_map(|i| match i {
        LogItem::Fatal { pid, line, message } => Some((*pid, *line, message.as_str())),
        _ => None,
    });
    assert_eq!(
        fatal,
        Some((
            Some(5),
            29,
            "Process terminating with default action of signal 11 (SIGSEGV): Bad \
                 permissions for mapped region at address 0x1234 (thread 1)"
        ))
    );
}

#[test]
fn origins_are_marked() {
    let input = READ_ERROR.replace(
        "Address 0x4a8c068 is 0 bytes after a block of size 40 alloc'd",
        "Uninitialised value was created by a heap allocation",
    );
    let items = read(format!("{HEAD}{input}{TAIL}").as_bytes());
    assert!(errors(&items)[0].aux[0].origin);
}

#[test]
fn an_io_error_ends_the_iteration() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let d = doc();
            let d = d.as_bytes();
            if self.0 >= 600 {
                return Err(io::Error::other("disk on fire"));
            }
            let n = out.len().min(600 - self.0);
            out[..n].copy_from_slice(&d[self.0..self.0 + n]);
            self.0 += n;
            Ok(n)
        }
    }
    let items: Vec<_> = XmlReader::new(io::BufReader::new(Failing(0)))
        .with_name("log.xml")
        .collect();
    let last = items.last().expect("items");
    let Err(ReadError::Io { path, source }) = last else {
        panic!("{items:?}")
    };
    assert_eq!(path, "log.xml");
    assert_eq!(source.to_string(), "disk on fire");
}

#[test]
fn references() {
    assert_eq!(char_ref(b"#x41"), Some('A'));
    assert_eq!(char_ref(b"#65"), Some('A'));
    assert_eq!(char_ref(b"#0"), None);
}

#[test]
fn many_warnings_are_capped() {
    let mut input = String::from(HEAD);
    for _ in 0..300 {
        let _ = writeln!(input, "{}junk", READ_ERROR.replace("</fn>", "</fx>"));
    }
    let items = read(input.as_bytes());
    assert_eq!(
        warnings(&items).len(),
        usize::try_from(MAX_WARNINGS).expect("fits") + 1
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Random edits of a valid log never panic, and every error returned is complete.
    #[test]
    fn mutated_logs_never_panic(
        edits in proptest::collection::vec((0usize..4000, proptest::prelude::any::<u8>()), 1..12),
        cut in 0usize..5000,
    ) {
        let mut input = doc().into_bytes();
        for (at, b) in edits {
            let at = at % input.len();
            match b % 3 {
                0 => input[at] = b,
                1 => { input.remove(at); }
                _ => input.insert(at, b),
            }
        }
        input.truncate(cut.max(1));
        let n = XmlReader::new(&input[..]).count();
        proptest::prop_assert!(n > 0);
    }
}
