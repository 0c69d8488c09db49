use proptest::prelude::*;

use super::*;
use crate::supp::parse;

const FILE: &str = "# Suppressions for the project\n\n# section: CUDA\n\n# why: the driver\n{\n   a\n   Memcheck:Cond\n   obj:*/libcuda.so*\n}\n\n{\n   b\n   Memcheck:Leak\n   fun:malloc\n}\n# about c\n{\n   c\n   Memcheck:Addr4\n   fun:f\n}\n";

fn text(span: Span) -> &'static str {
    &FILE[span.start..span.end]
}

#[test]
fn an_extent_takes_its_comment_block_and_one_blank_line() {
    let f = parse(FILE.as_bytes().to_vec());
    // `a`: its comment and the blank line above; the section comment stays.
    assert_eq!(
        text(extent(&f, 0).expect("a")),
        "\n# why: the driver\n{\n   a\n   Memcheck:Cond\n   obj:*/libcuda.so*\n}\n"
    );
    // `b`: no comment, the blank line above.
    assert_eq!(
        text(extent(&f, 1).expect("b")),
        "\n{\n   b\n   Memcheck:Leak\n   fun:malloc\n}\n"
    );
    // `c`: its comment, which follows `b` directly (it is c's, not b's).
    assert_eq!(
        text(extent(&f, 2).expect("c")),
        "# about c\n{\n   c\n   Memcheck:Addr4\n   fun:f\n}\n"
    );
    assert_eq!(extent(&f, 3), Err(EditError::NoRecord(3)));
}

#[test]
fn removing_keeps_every_other_byte_and_appending_adds_a_blank_line() {
    let f = parse(FILE.as_bytes().to_vec());
    let out = remove_and_append(&f, &[1], b"").expect("rewrite");
    assert_eq!(
        String::from_utf8_lossy(&out),
        FILE.replace("\n{\n   b\n   Memcheck:Leak\n   fun:malloc\n}\n", "")
    );
    let new = b"{\n   d\n   Memcheck:Free\n   fun:free\n}\n";
    let out = remove_and_append(&f, &[0, 2], new).expect("rewrite");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "# Suppressions for the project\n\n# section: CUDA\n\n{\n   b\n   Memcheck:Leak\n   fun:malloc\n}\n\n{\n   d\n   Memcheck:Free\n   fun:free\n}\n"
    );
    let v = Version::default();
    let removed = |_: Tool, i: u32| i == 0 || i == 2;
    prove(FILE.as_bytes(), &out, &removed, new, v, 12).expect("proven");
    // What is not the intended result is refused.
    let wrong = |_: Tool, i: u32| i == 0;
    assert!(matches!(
        prove(FILE.as_bytes(), &out, &wrong, new, v, 12),
        Err(EditError::NotProven { .. })
    ));
}

#[test]
fn the_first_record_takes_the_blank_line_after_it_and_line_ends_are_kept() {
    let src = "{\r\n   a\r\n   Memcheck:Cond\r\n   fun:f\r\n}\r\n\n{\n   b\n   Memcheck:Cond\n   fun:g\n}";
    let f = parse(src.as_bytes().to_vec());
    let out = remove_and_append(&f, &[0], b"").expect("rewrite");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "{\n   b\n   Memcheck:Cond\n   fun:g\n}"
    );
    // Appending to a file without a final line end adds one, then a blank line.
    let out =
        remove_and_append(&f, &[], b"{\n   c\n   Memcheck:Cond\n   fun:h\n}\n").expect("rewrite");
    assert!(
        String::from_utf8_lossy(&out)
            .ends_with("fun:g\n}\n\n{\n   c\n   Memcheck:Cond\n   fun:h\n}\n"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    // Everything removed, then appended: no leading blank line.
    let out = remove_and_append(&f, &[0, 1], b"{\n   c\n   Memcheck:Cond\n   fun:h\n}\n")
        .expect("rewrite");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "{\n   c\n   Memcheck:Cond\n   fun:h\n}\n"
    );
}

#[test]
fn overlapping_edits_are_refused() {
    let mut rw = Rewrite::new();
    rw.remove(Span::new(2, 6));
    rw.replace(Span::new(4, 8), b"x".to_vec());
    assert_eq!(rw.apply(b"0123456789"), Err(EditError::Overlap(4, 6)));
    let mut rw = Rewrite::new();
    rw.insert(3, b"a".to_vec());
    rw.insert(3, b"b".to_vec());
    rw.remove(Span::new(5, 7));
    assert_eq!(rw.apply(b"0123456789").expect("apply"), b"012ab34789");
    let mut rw = Rewrite::new();
    rw.remove(Span::new(5, 70));
    assert_eq!(rw.apply(b"0123456789"), Err(EditError::OutOfRange(10)));
}

/// One piece of a generated file.
#[derive(Debug, Clone)]
enum Piece {
    Blank,
    Comment(u8),
    Record(u8, bool),
    CrLf,
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        Just(Piece::Blank),
        (0u8..5).prop_map(Piece::Comment),
        (0u8..20, any::<bool>()).prop_map(|(n, helgrind)| Piece::Record(n, helgrind)),
        Just(Piece::CrLf),
    ]
}

fn render(pieces: &[Piece]) -> String {
    let mut s = String::new();
    let mut crlf = false;
    for p in pieces {
        let nl = if crlf { "\r\n" } else { "\n" };
        match p {
            Piece::Blank => s.push_str(nl),
            Piece::Comment(n) => s.push_str(&format!("# comment {n}{nl}")),
            Piece::Record(n, helgrind) => {
                let tool = if *helgrind {
                    "Helgrind:Race"
                } else {
                    "Memcheck:Leak"
                };
                s.push_str(&format!(
                    "{{{nl}   r{n}{nl}   {tool}{nl}   fun:f{n}{nl}   ...{nl}}}{nl}"
                ));
            }
            Piece::CrLf => crlf = !crlf,
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Remove any set of records: every tool's loader sees exactly the rest, and every
    /// comment of a record that stays is still there.
    #[test]
    fn removing_any_records_leaves_exactly_the_rest(
        pieces in proptest::collection::vec(piece(), 0..24),
        pick in proptest::collection::vec(any::<bool>(), 24),
        add in any::<bool>(),
    ) {
        let src = render(&pieces);
        let f = parse(src.as_bytes().to_vec());
        let n = f.records().count();
        let remove: Vec<usize> = (0..n).filter(|&i| pick[i % pick.len()]).collect();
        let added: &[u8] = if add { b"{\n   new\n   Memcheck:Free\n   fun:free\n}\n" } else { b"" };
        let out = remove_and_append(&f, &remove, added).expect("rewrite");
        let removed = |_: Tool, i: u32| remove.contains(&(i as usize));
        prove(src.as_bytes(), &out, &removed, added, Version::default(), 12)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- before\n{src}\n--- after\n{}", String::from_utf8_lossy(&out))))?;
        // The comments directly above a kept record stay, in order.
        let after = parse(out.clone());
        for (i, r) in f.records().enumerate() {
            if remove.contains(&i) {
                continue;
            }
            let ext = extent(&f, i).expect("extent");
            // The comments, without the blank line that separates them from the record
            // before (which goes with that record when it is removed).
            let mut block = &src.as_bytes()[ext.start..r.span().start];
            while let Some(rest) = block.strip_prefix(b"\n").or_else(|| block.strip_prefix(b"\r\n")) {
                block = rest;
            }
            prop_assert!(
                out.windows(block.len().max(1)).any(|w| block.is_empty() || w == block),
                "the block above record {} is gone", i
            );
        }
        prop_assert_eq!(after.records().count(), n - remove.len() + usize::from(add));
    }
}

/// Every corpus file that Memcheck loads: removing every third record is proven.
#[test]
fn corpus_files_keep_the_rest_when_records_go() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus");
    let mut files = 0;
    for entry in std::fs::read_dir(dir).expect("corpus") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "supp") {
            continue;
        }
        let src = std::fs::read(&path).expect("read");
        let opts = LoadOptions::new(Tool::Memcheck);
        if loader::load(&src, opts, false).verdict().is_some() {
            continue;
        }
        let f = parse(src.clone());
        let remove: Vec<usize> = (0..f.records().count()).step_by(3).collect();
        let out = remove_and_append(&f, &remove, b"").expect("rewrite");
        let removed = |_: Tool, i: u32| remove.contains(&(i as usize));
        prove(&src, &out, &removed, b"", opts.version, opts.num_callers)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        files += 1;
    }
    assert!(files > 50, "{files} corpus files checked");
}
