//! What `vgsupp gen` prints. Human: the kept bugs grouped by source line first, then what
//! needs review grouped by why (each reason said once) and then by place, then one line
//! per generated rule with its error count, then the totals per log. JSON: the contract
//! of PRODUCT.md §2 (`errors`, `rules`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::Result;
use serde::Serialize;

use vgsupp::r#gen::{Generated, Generator, Row, Verdict};
use vgsupp::supp::model::LeakKind;

/// How many groups of reviewed errors the human report lists.
const SHOWN_REVIEW: usize = 40;

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn leak_word(k: LeakKind) -> &'static str {
    k.token()
}

/// `1 error`, `2 errors`.
fn plural(n: usize, what: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {what}{s}", thousands(n as u64))
}

/// `Leak (possible)`, `Cond`, `Addr4`.
fn kind_text(r: &Row) -> String {
    match r.leak {
        Some(l) => format!("{} ({})", r.kind, leak_word(l.kind)),
        None => r.kind.clone(),
    }
}

/// Rows grouped by the source line their verdict rests on (rows without one by their
/// function), in source order.
fn by_location<'a>(rows: impl Iterator<Item = &'a Row>) -> Vec<(String, Vec<&'a Row>)> {
    let mut groups: BTreeMap<(String, u64, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        let key = match &r.location {
            Some(loc) => {
                let (file, line) = loc.rsplit_once(':').unwrap_or((loc, "0"));
                (file.to_owned(), line.parse().unwrap_or(0), loc.clone())
            }
            None => {
                let f = r
                    .function
                    .clone()
                    .unwrap_or_else(|| "(no source line)".to_owned());
                ("\u{10ffff}".to_owned(), 0, f)
            }
        };
        groups.entry(key).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|((_, _, label), rows)| (label, rows))
        .collect()
}

/// `N errors at K source lines`, with the rows that have no source line (grouped by
/// function, or all together) counted apart: `N errors: A at K source lines, B at P
/// places without a source line`.
fn where_counted(groups: &[(String, Vec<&Row>)], line: &str) -> String {
    let total: usize = groups.iter().map(|(_, rows)| rows.len()).sum();
    let (with, without): (Vec<_>, Vec<_>) = groups
        .iter()
        .partition(|(_, rows)| rows[0].location.is_some());
    let rows = |gs: &[&(String, Vec<&Row>)]| gs.iter().map(|(_, r)| r.len()).sum::<usize>();
    if without.is_empty() {
        return format!("{} at {}", plural(total, "error"), plural(with.len(), line));
    }
    let apart = format!(
        "{} at {} without a source line",
        thousands(rows(&without) as u64),
        plural(without.len(), "place")
    );
    if with.is_empty() {
        return format!("{}, {apart}", plural(total, "error"));
    }
    format!(
        "{}: {} at {}, {apart}",
        plural(total, "error"),
        thousands(rows(&with) as u64),
        plural(with.len(), line)
    )
}

/// What a group of rows is: its kinds with counts, and for leaks the bytes lost.
fn group_detail(rows: &[&Row]) -> String {
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        *kinds.entry(kind_text(r)).or_default() += 1;
    }
    let kinds: Vec<String> = kinds
        .into_iter()
        .map(|(k, n)| if n > 1 { format!("{k} ×{n}") } else { k })
        .collect();
    let bytes: u64 = rows.iter().filter_map(|r| r.leak.map(|l| l.bytes)).sum();
    let blocks: u64 = rows.iter().filter_map(|r| r.leak.map(|l| l.blocks)).sum();
    let mut out = kinds.join(", ");
    if rows.iter().all(|r| r.leak.is_some()) {
        let _ = write!(
            out,
            "  {} bytes in {} blocks",
            thousands(bytes),
            thousands(blocks)
        );
    } else if let Some(r) = rows.iter().find(|r| r.leak.is_none()) {
        let _ = write!(out, "  {}", r.what);
    }
    out
}

/// `log:line`, and how many more.
fn where_text(g: &Generated, rows: &[&Row]) -> String {
    let first = rows[0];
    let more = if rows.len() > 1 {
        format!(" +{} more", rows.len() - 1)
    } else {
        String::new()
    };
    format!("[{}:{}{more}]", g.logs[first.log].name, first.line)
}

pub fn human(g: &Generated, generator: &Generator, written: Option<&str>) -> String {
    let mut s = String::new();
    let keep: Vec<&Row> = g
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Keep)
        .collect();
    let groups = by_location(keep.iter().copied());
    let _ = writeln!(
        s,
        "Kept (first-party bugs): {}",
        where_counted(&groups, "source line")
    );
    let width = groups
        .iter()
        .map(|(l, _)| l.len())
        .max()
        .unwrap_or(0)
        .min(40);
    for (loc, rows) in &groups {
        let function = rows[0].function.as_deref().map(short).unwrap_or_default();
        let _ = writeln!(
            s,
            "  {loc:<width$}  {}  {function}  {}",
            group_detail(rows),
            where_text(g, rows)
        );
        existing_warnings(&mut s, rows, generator, width);
    }
    let review: Vec<&Row> = g
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Review)
        .collect();
    let _ = writeln!(
        s,
        "\nReview (no rule written): {} at {}",
        plural(review.len(), "error"),
        plural(by_location(review.iter().copied()).len(), "place")
    );
    // Each reason once, the most frequent first, then its places.
    let mut reasons: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in &review {
        reasons.entry(r.reason.text()).or_default().push(r);
    }
    let mut reasons: Vec<(String, Vec<&Row>)> = reasons.into_iter().collect();
    reasons.sort_by_key(|(_, rows)| std::cmp::Reverse(rows.len()));
    for (reason, rows) in &reasons {
        let groups = by_location(rows.iter().copied());
        let _ = writeln!(
            s,
            "  {} at {} — {}",
            plural(rows.len(), "error"),
            plural(groups.len(), "place"),
            reason
        );
        let width = groups
            .iter()
            .map(|(l, _)| l.len())
            .max()
            .unwrap_or(0)
            .min(40);
        for (loc, rows) in groups.iter().take(SHOWN_REVIEW) {
            let _ = writeln!(
                s,
                "    {loc:<width$}  {}  {}",
                group_detail(rows),
                where_text(g, rows)
            );
            existing_warnings(&mut s, rows, generator, width + 2);
        }
        if groups.len() > SHOWN_REVIEW {
            let _ = writeln!(
                s,
                "    … {} more places (--format json lists every error)",
                groups.len() - SHOWN_REVIEW
            );
        }
    }
    let covered: u64 = g.rules.iter().map(|r| r.errors).sum();
    let _ = writeln!(
        s,
        "\nRules: {} for {}{}",
        thousands(g.rules.len() as u64),
        plural(usize::try_from(covered).unwrap_or(usize::MAX), "error"),
        match written {
            Some(p) => format!(", written to {p}"),
            None => " (not written: give -o FILE)".to_owned(),
        }
    );
    for r in &g.rules {
        let _ = writeln!(s, "  {:>9}  {}", thousands(r.errors), r.name);
    }
    let _ = writeln!(s);
    for (i, log) in g.logs.iter().enumerate() {
        let rows: Vec<&Row> = g.rows.iter().filter(|r| r.log == i).collect();
        let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count() as u64;
        let by_rule = rows
            .iter()
            .filter(|r| r.verdict == Verdict::Suppress && r.existing.is_none())
            .count() as u64;
        let by_existing = count(Verdict::Suppress) - by_rule;
        let mut rules: Vec<usize> = rows
            .iter()
            .filter(|r| r.verdict == Verdict::Suppress)
            .filter_map(|r| r.rule)
            .collect();
        rules.sort_unstable();
        rules.dedup();
        let _ = writeln!(
            s,
            "{}: {}: {} kept, {} to review, {} suppressed ({} by {} new rules{})",
            log.name,
            plural(usize::try_from(log.errors).unwrap_or(usize::MAX), "error"),
            thousands(count(Verdict::Keep)),
            thousands(count(Verdict::Review)),
            thousands(count(Verdict::Suppress)),
            thousands(by_rule),
            thousands(rules.len() as u64),
            if by_existing > 0 {
                format!(", {} by -s rules", thousands(by_existing))
            } else {
                String::new()
            }
        );
    }
    s
}

/// The `-s` rules that hide (or may hide) kept or reviewed rows: one warning line each.
fn existing_warnings(s: &mut String, rows: &[&Row], generator: &Generator, width: usize) {
    let mut seen = std::collections::BTreeSet::new();
    for r in rows {
        let (slot, how) = match (r.existing, r.existing_maybe) {
            (Some(slot), _) => (slot, "hidden"),
            (None, Some(slot)) => (slot, "maybe hidden (what the log hides decides)"),
            (None, None) => continue,
        };
        if !seen.insert((slot, how)) {
            continue;
        }
        let name = String::from_utf8_lossy(&generator.existing().table[slot].name);
        let _ = writeln!(
            s,
            "  {:width$}  warning: {how} by `{name}` of the -s files",
            ""
        );
    }
}

/// A function name without its parameter list, for a report line.
fn short(f: &str) -> String {
    vgsupp::r#gen::names::short(f)
}

#[derive(Serialize)]
struct JsonRow<'a> {
    log: &'a str,
    line: u64,
    kind: String,
    leak_kind: Option<&'static str>,
    verdict: &'static str,
    origin: &'a str,
    location: Option<&'a str>,
    rule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hidden_by: Option<HiddenBy>,
}

/// A `-s` rule that hides (or may hide) a kept or reviewed error.
#[derive(Serialize)]
struct HiddenBy {
    name: String,
    file: String,
    line: u32,
    surely: bool,
}

#[derive(Serialize)]
struct JsonRule<'a> {
    name: &'a str,
    errors: u64,
    origin: &'a str,
}

#[derive(Serialize)]
struct Json<'a> {
    errors: Vec<JsonRow<'a>>,
    rules: Vec<JsonRule<'a>>,
}

fn hidden_by(generator: &Generator, slot: vgsupp::replay::Slot, surely: bool) -> HiddenBy {
    let rules = generator.existing();
    let rule = &rules.table[slot];
    HiddenBy {
        name: String::from_utf8_lossy(&rule.name).into_owned(),
        file: rules
            .files
            .get(rule.file)
            .map(|f| f.path.clone())
            .unwrap_or_default(),
        line: rule.line,
        surely,
    }
}

pub fn json(g: &Generated, generator: &Generator) -> Result<String> {
    let errors = g
        .rows
        .iter()
        .map(|r| JsonRow {
            log: &g.logs[r.log].name,
            line: r.line,
            kind: format!("{}:{}", r.tool.supp_name(), r.kind),
            leak_kind: r.leak.map(|l| leak_word(l.kind)),
            verdict: r.verdict.as_str(),
            origin: g.origin(r.origin),
            location: r.location.as_deref(),
            rule: match (r.rule, r.existing) {
                (Some(k), _) => Some(g.rules[k].name.clone()),
                (None, Some(slot)) if r.verdict == Verdict::Suppress => Some(
                    String::from_utf8_lossy(&generator.existing().table[slot].name).into_owned(),
                ),
                _ => None,
            },
            hidden_by: match (r.verdict, r.existing, r.existing_maybe) {
                (Verdict::Suppress, ..) => None,
                (_, Some(slot), _) => Some(hidden_by(generator, slot, true)),
                (_, None, Some(slot)) => Some(hidden_by(generator, slot, false)),
                _ => None,
            },
        })
        .collect();
    let rules = g
        .rules
        .iter()
        .map(|r| JsonRule {
            name: &r.name,
            errors: r.errors,
            origin: &r.provenance.origin,
        })
        .collect();
    let mut out = serde_json::to_string(&Json { errors, rules })?;
    out.push('\n');
    Ok(out)
}
