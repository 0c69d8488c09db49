//! Invariants of the suppression-file model, the formatter and the loader.
//!
//! One source of truth for two harnesses: the `cargo fuzz` targets (`fuzz/fuzz_targets/`,
//! through `vgsupp_fuzz::checks`) and the property tests (`tests/cli/properties.rs`, which
//! includes this file with `#[path]`). Every check returns `Err(description)` instead of
//! panicking, so that proptest can shrink a failure; the fuzz targets panic on `Err`.
//!
//! The oracles here are written from valgrind-semantics.md §1, independently of
//! `vgsupp::supp::lines` and `vgsupp::supp::syntax`, so that a bug there cannot hide itself.

use vgsupp::supp::kinds::Tool;
use vgsupp::supp::loader::{LoadError, LoadOptions, LoadResult, LoadedExtra, Outcome};
use vgsupp::supp::model::{FishyExtra, Frame, Item, SuppFile};
use vgsupp::supp::{format, format_source, is_formatted, load, parse};

/// The result of a check: `Err` says what broke.
pub type Check = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// Bytes shown escaped, for failure messages.
#[must_use]
pub fn show(bytes: &[u8]) -> String {
    const MAX: usize = 600;
    let s = bytes.escape_ascii().to_string();
    if s.len() > MAX {
        format!("{}… ({} bytes)", &s[..MAX], bytes.len())
    } else {
        s
    }
}

/// `VG_(isspace)`: space, `\t`, `\n`, `\v`, `\f`, `\r`.
const fn is_vg_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `bytes` without leading and trailing `VG_(isspace)` bytes.
#[must_use]
pub fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| !is_vg_space(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| !is_vg_space(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end.max(start)]
}

/// The physical lines of `src`: split at `\n` only; a final `\n` does not start a new line.
#[must_use]
pub fn physical_lines(src: &[u8]) -> Vec<&[u8]> {
    if src.is_empty() {
        return Vec::new();
    }
    let body = src.strip_suffix(b"\n").unwrap_or(src);
    body.split(|&b| b == b'\n').collect()
}

/// The lines Valgrind's loader looks at (§1.1, `get_nbnc_line`): trimmed, non-blank, not
/// starting with `#`; except that a last line without `\n` is returned as read: its leading
/// whitespace is skipped, but its trailing whitespace is kept and a `#` does not make it a
/// comment.
#[must_use]
pub fn visible_lines(src: &[u8]) -> Vec<&[u8]> {
    let lines = physical_lines(src);
    let unterminated = !src.is_empty() && !src.ends_with(b"\n");
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if unterminated && i + 1 == lines.len() {
            let start = line
                .iter()
                .position(|&b| !is_vg_space(b))
                .unwrap_or(line.len());
            if start < line.len() {
                out.push(&line[start..]);
            }
        } else {
            let t = trim(line);
            if !t.is_empty() && t[0] != b'#' {
                out.push(t);
            }
        }
    }
    out
}

/// `VG_(parse_enum_set)` on a `match-leak-kinds:` line: the canonical spelling of the set,
/// or `None` when Valgrind refuses it (or when the line holds a NUL byte, which we do not
/// expect the formatter to respell).
#[must_use]
pub fn canonical_leak_line(line: &[u8]) -> Option<Vec<u8>> {
    const ORDER: [&[u8]; 4] = [b"definite", b"indirect", b"possible", b"reachable"];
    let list = line.strip_prefix(b"match-leak-kinds:")?;
    let start = list
        .iter()
        .position(|&b| !is_vg_space(b))
        .unwrap_or(list.len());
    let list = &list[start..];
    if list.contains(&0) || list.len() > 1000 {
        return None;
    }
    let (mut all, mut none, mut kinds) = (false, false, [false; 4]);
    for word in list.split(|&b| b == b',').filter(|w| !w.is_empty()) {
        match word {
            b"all" => all = true,
            b"none" => none = true,
            _ => kinds[ORDER.iter().position(|k| *k == word)?] = true,
        }
    }
    let any = kinds.iter().any(|&k| k);
    let spelled: Vec<u8> = match (all, none, any) {
        (true, false, false) => b"all".to_vec(),
        (false, true, false) => b"none".to_vec(),
        (false, false, true) => ORDER
            .iter()
            .zip(kinds)
            .filter(|(_, on)| *on)
            .map(|(k, _)| k.to_vec())
            .collect::<Vec<_>>()
            .join(&b","[..]),
        _ => return None,
    };
    Some([&b"match-leak-kinds: "[..], &spelled].concat())
}

/// The model keeps every byte, and its items cover every physical line exactly once, in
/// order, with spans that agree with the source.
pub fn check_model(src: &[u8], file: &SuppFile) -> Check {
    ensure!(file.source == src, "SuppFile.source differs from the input");
    let mut lines = Vec::new();
    for item in &file.items {
        match item {
            Item::Blank(l) | Item::Comment(l) | Item::Stray(l) => lines.push((*l, item_kind(item))),
            Item::Record(r) => {
                ensure!(!r.lines.is_empty(), "empty record item");
                for rl in &r.lines {
                    lines.push((rl.line, "record line"));
                }
            }
        }
    }
    let expected = physical_lines(src);
    ensure!(
        lines.len() == expected.len(),
        "items cover {} lines, the input has {}",
        lines.len(),
        expected.len()
    );
    let mut pos = 0_usize;
    for (i, ((line, what), raw)) in lines.iter().zip(&expected).enumerate() {
        let n = i + 1;
        ensure!(
            line.number as usize == n,
            "item line #{n} ({what}) has number {}",
            line.number
        );
        ensure!(
            line.span.start == pos && line.span.end == pos + raw.len(),
            "line {n}: span {:?}, expected {pos}..{}",
            line.span,
            pos + raw.len()
        );
        let has_nl = src.get(line.span.end) == Some(&b'\n');
        ensure!(
            line.has_newline == has_nl,
            "line {n}: has_newline {} is wrong",
            line.has_newline
        );
        ensure!(
            line.text.start >= line.span.start && line.text.end <= line.span.end,
            "line {n}: text span {:?} outside the line {:?}",
            line.text,
            line.span
        );
        let text = &src[line.text.start..line.text.end.max(line.text.start)];
        ensure!(
            text == trim(raw),
            "line {n}: text {} is not the trimmed line",
            show(text)
        );
        let blank = trim(raw).is_empty();
        let comment = !blank && trim(raw)[0] == b'#';
        match *what {
            "blank" => ensure!(blank, "line {n}: Blank item is not blank"),
            "comment" => ensure!(comment, "line {n}: Comment item is not a comment"),
            "stray" => ensure!(
                !blank && !comment,
                "line {n}: Stray item is blank or a comment"
            ),
            _ => {}
        }
        pos = line.span.end + usize::from(line.has_newline);
    }
    ensure!(
        pos == src.len(),
        "lines end at byte {pos}, the input has {} bytes",
        src.len()
    );
    Ok(())
}

const fn item_kind(item: &Item) -> &'static str {
    match item {
        Item::Blank(_) => "blank",
        Item::Comment(_) => "comment",
        Item::Stray(_) => "stray",
        Item::Record(_) => "record",
    }
}

/// Formatted output follows the canonical layout: LF lines, `{`/`}`/top-level lines at
/// column 0 and record lines indented 3 spaces, no trailing whitespace, no leading, trailing
/// or doubled blank line, a final `\n`. Two exceptions keep what Valgrind reads: a line whose
/// stored length reaches 51200 keeps its trailing whitespace, and a last line without `\n`
/// that Valgrind reads untrimmed and not as a comment stays without `\n`.
pub fn check_layout(out: &[u8]) -> Check {
    if out.is_empty() {
        return Ok(());
    }
    let lines = physical_lines(out);
    let unterminated = !out.ends_with(b"\n");
    if unterminated {
        let last = lines.last().copied().unwrap_or_default();
        let body = &last[last
            .iter()
            .position(|&b| !is_vg_space(b))
            .unwrap_or(last.len())..];
        ensure!(
            body.first() == Some(&b'#') || body.last().is_some_and(|&b| is_vg_space(b)),
            "formatted output lacks a final newline"
        );
    }
    let mut prev_blank = true;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if line.is_empty() {
            ensure!(
                !prev_blank,
                "formatted line {n}: leading or doubled blank line"
            );
            prev_blank = true;
            continue;
        }
        prev_blank = false;
        let body = line.strip_prefix(b"   ").unwrap_or(line);
        let kept_raw = (unterminated && n == lines.len()) || body.len() >= 51_200;
        ensure!(
            !is_vg_space(body[0]) && (kept_raw || !is_vg_space(line[line.len() - 1])),
            "formatted line {n} has stray whitespace: {}",
            show(line)
        );
    }
    ensure!(!prev_blank, "formatted output ends with a blank line");
    Ok(())
}

pub use vgsupp::supp::loader::{ExtraView, FrameView, RecordView};

fn slice(src: &[u8], span: vgsupp::supp::Span) -> Result<Vec<u8>, String> {
    src.get(span.start..span.end)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| format!("span {span:?} outside a {}-byte source", src.len()))
}

fn has_nul(v: &RecordView) -> bool {
    let frame_nul = v.frames.iter().any(|f| match f {
        FrameView::Fun(p) | FrameView::Obj(p) | FrameView::Src(p, _) => p.contains(&0),
        FrameView::Ellipsis => false,
    });
    let extra_nul = match &v.extra {
        ExtraView::Param(p) => p.contains(&0),
        ExtraView::Fishy(Some((f, a))) => f.contains(&0) || a.contains(&0),
        ExtraView::None | ExtraView::Leak(_) | ExtraView::Fishy(None) => false,
    };
    v.name.contains(&0) || v.kind.contains(&0) || frame_nul || extra_nul
}

/// The records of a load result, as bytes (the library's views), after checking that
/// every span the loader gave lies within the source.
pub fn record_views(src: &[u8], res: &LoadResult) -> Result<Vec<RecordView>, String> {
    for r in &res.records {
        let mut spans = vec![r.name, r.kind];
        match r.extra {
            LoadedExtra::Param(s) => spans.push(s),
            LoadedExtra::Fishy(Some(FishyExtra { function, argument })) => {
                spans.extend([function, argument]);
            }
            LoadedExtra::None | LoadedExtra::Leak(_) | LoadedExtra::Fishy(None) => {}
        }
        for f in &r.frames {
            match *f {
                Frame::Fun(s) | Frame::Obj(s) | Frame::Src { file: s, .. } => spans.push(s),
                Frame::Ellipsis => {}
            }
        }
        for s in spans {
            slice(src, s)?;
        }
    }
    Ok(vgsupp::supp::loader::record_views(src, res))
}

/// The error kinds of a load result, in order.
#[must_use]
pub fn error_kinds(res: &LoadResult) -> Vec<LoadError> {
    res.problems.iter().map(|p| p.error).collect()
}

/// Everything about formatting `src`: the model of input and output, idempotence, layout,
/// the Valgrind-visible lines, and, for every tool, the strict loader's records (as bytes)
/// and problems (as kinds). Returns the formatted output.
pub fn check_format(src: &[u8]) -> Result<Vec<u8>, String> {
    check_format_impl(src)
}

fn check_format_impl(src: &[u8]) -> Result<Vec<u8>, String> {
    let file = parse(src.to_vec());
    check_model(src, &file).map_err(|e| format!("model of the input: {e}"))?;
    let out = format(&file);
    let streamed = format_source(src);
    ensure!(
        streamed == out,
        "format_source differs from format(parse):\n   model: {}\nstreamed: {}",
        show(&out),
        show(&streamed)
    );
    let file2 = parse(out.clone());
    check_model(&out, &file2).map_err(|e| format!("model of the output: {e}"))?;
    let out2 = format(&file2);
    ensure!(
        out2 == out,
        "format is not idempotent:\n first: {}\nsecond: {}",
        show(&out),
        show(&out2)
    );
    ensure!(
        is_formatted(&file2),
        "is_formatted is false on formatted output {}",
        show(&out)
    );
    check_layout(&out)?;

    let reference = src;
    let (vin, vout) = (visible_lines(reference), visible_lines(&out));
    ensure!(
        vin.len() == vout.len(),
        "formatting changed the number of Valgrind-visible lines from {} to {}",
        vin.len(),
        vout.len()
    );
    for (i, (a, b)) in vin.iter().zip(&vout).enumerate() {
        ensure!(
            a == b || canonical_leak_line(a).as_deref() == Some(*b),
            "Valgrind-visible line {} changed from {} to {}",
            i + 1,
            show(a),
            show(b)
        );
    }

    for tool in Tool::ALL {
        check_same_load(reference, &out, LoadOptions::new(tool))?;
    }
    Ok(out)
}

/// The strict loader sees the same records and problem kinds in `a` and `b`.
pub fn check_same_load(a: &[u8], b: &[u8], opts: LoadOptions) -> Check {
    let (la, lb) = (load(a, opts, false), load(b, opts, false));
    let (ra, rb) = (record_views(a, &la)?, record_views(b, &lb)?);
    ensure!(
        ra == rb,
        "{}: formatting changed the loaded records:\n{ra:?}\n{rb:?}",
        opts.tool
    );
    ensure!(
        la.verdict().map(|p| p.error) == lb.verdict().map(|p| p.error),
        "{}: formatting changed the verdict from {:?} to {:?}",
        opts.tool,
        la.verdict().map(|p| p.error),
        lb.verdict().map(|p| p.error)
    );
    ensure!(
        error_kinds(&la) == error_kinds(&lb),
        "{}: formatting changed the problems from {:?} to {:?}",
        opts.tool,
        error_kinds(&la),
        error_kinds(&lb)
    );
    Ok(())
}

/// The loader with `opts`, strict and recovering: sane results, and the strict run is the
/// recovering run cut at its first problem that Valgrind stops on.
pub fn check_loader(src: &[u8], opts: LoadOptions) -> Check {
    let strict = load(src, opts, false);
    let rec = load(src, opts, true);
    let nlines = physical_lines(src).len();
    let newlines = src.iter().filter(|&&b| b == b'\n').count();

    for (mode, res) in [("strict", &strict), ("recovering", &rec)] {
        let views = record_views(src, res).map_err(|e| format!("{mode}: {e}"))?;
        for (r, v) in res.records.iter().zip(&views) {
            let max = opts.num_callers.min(500) as usize;
            ensure!(
                (1..=max).contains(&r.frames.len()),
                "{mode}: record {} has {} frames (num_callers {})",
                show(&v.name),
                r.frames.len(),
                opts.num_callers
            );
            ensure!(
                r.frames.iter().any(|f| !matches!(f, Frame::Ellipsis)),
                "{mode}: record {} has only `...` frames",
                show(&v.name)
            );
            // Valgrind's strings are C strings: a NUL ends them (so a name can be empty).
            ensure!(v.name != b"}", "{mode}: record named `}}`");
            ensure!(
                !has_nul(v),
                "{mode}: a loaded string holds a NUL byte: {v:?}"
            );
        }
        let mut last = 0_u32;
        for p in &res.problems {
            ensure!(
                p.valgrind_line as usize <= newlines,
                "{mode}: {p:?} names a line past the end"
            );
            let n = p.at.map_or(u32::MAX, |l| l.number);
            ensure!(
                n == u32::MAX || n as usize <= nlines,
                "{mode}: {p:?} is at a line past the end"
            );
            ensure!(
                n >= last,
                "{mode}: problems out of order: {:?}",
                res.problems
            );
            last = n;
        }
    }

    let fatal = |res: &LoadResult| {
        res.problems
            .iter()
            .position(|p| p.error.outcome() != Outcome::LaterCrash)
    };
    if let Some(i) = fatal(&strict) {
        ensure!(
            i + 1 == strict.problems.len(),
            "strict: problems after the verdict: {:?}",
            strict.problems
        );
    }
    let rec_verdict = rec
        .problems
        .iter()
        .find(|p| p.error.outcome() != Outcome::LaterCrash);
    ensure!(
        strict.verdict() == rec_verdict,
        "strict verdict {:?} differs from the recovering run's first {:?}",
        strict.verdict(),
        rec_verdict
    );
    let cut = fatal(&rec).map_or(rec.problems.len(), |i| i + 1);
    ensure!(
        strict.problems == rec.problems[..cut],
        "strict problems {:?} are not the recovering run's {:?}",
        strict.problems,
        &rec.problems[..cut]
    );
    ensure!(
        rec.records.len() >= strict.records.len()
            && rec.records[..strict.records.len()] == strict.records,
        "strict records are not a prefix of the recovering run's"
    );
    if strict.verdict().is_none() {
        ensure!(
            rec == strict,
            "no verdict, yet strict and recovering runs differ"
        );
    }
    Ok(())
}
