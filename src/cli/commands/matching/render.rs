//! What `vgsupp match` prints: JSON rows and rules (the contract of docs/formats.md), one
//! human line per error (`--errors`), and the human summary (the default): errors that are
//! not suppressed, grouped; rules by hits; totals.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use crate::cli::args::MatchFormat;
use vgsupp::matcher::Truth;
use vgsupp::replay::{ErrorEvidence, RuleCounts, Rules, Slot, Tally};
use vgsupp::supp::Tool;

/// One error of the output, borrowed from the verdict and the rules' JSON, so a row costs
/// no allocation beyond its `why` list. Field order is the JSON contract's
/// (docs/formats.md).
#[derive(Serialize)]
pub(super) struct ErrorRow<'a> {
    log: &'a str,
    line: u64,
    pid: Option<u32>,
    kind: Kind<'a>,
    leak_kind: Option<&'static str>,
    suppressed_by: Option<&'a RawValue>,
    suppressed: &'static str,
    approximate: bool,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<Vec<&'static str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<Candidates<'a>>,
    /// For human lines: the rule `suppressed_by` names.
    #[serde(skip)]
    likely: Option<Slot>,
    #[serde(skip)]
    refs: &'a RuleRefs<'a>,
}

/// Every rule as the JSON object that names it in a row (`{"name":…,"file":…,"line":…}`),
/// serialized once: rows name the same rules again and again (hundreds of candidates per
/// row with real rule sets), and escaping their names each time was most of the cost of a
/// row.
pub(super) struct RuleRefs<'a> {
    /// The rules.
    pub(super) rules: &'a Rules,
    json: Vec<Box<RawValue>>,
}

impl<'a> RuleRefs<'a> {
    pub(super) fn new(rules: &'a Rules) -> serde_json::Result<Self> {
        let json = (0..rules.table.len())
            .map(|slot| serde_json::value::to_raw_value(&rule_ref(rules, slot)))
            .collect::<serde_json::Result<_>>()?;
        Ok(Self { rules, json })
    }

    fn json(&self, slot: Slot) -> &RawValue {
        &self.json[slot]
    }
}

/// A row's candidate rules, written from their serialized JSON.
struct Candidates<'a> {
    slots: &'a [Slot],
    refs: &'a RuleRefs<'a>,
}

impl Serialize for Candidates<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.slots.iter().map(|&slot| self.refs.json(slot)))
    }
}

/// `Tool:Kind` (`Memcheck:Leak`), written out without building the string.
struct Kind<'a> {
    tool: Tool,
    kind: &'a str,
}

impl std::fmt::Display for Kind<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.tool.supp_name(), self.kind)
    }
}

impl Serialize for Kind<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // serde_json escapes each piece as it comes: the same bytes as a formatted String.
        s.collect_str(self)
    }
}

#[derive(Serialize)]
struct RuleRef<'a> {
    name: Cow<'a, str>,
    file: &'a str,
    line: u32,
}

fn rule_ref(rules: &Rules, slot: Slot) -> RuleRef<'_> {
    let r = &rules.table[slot];
    RuleRef {
        name: String::from_utf8_lossy(&r.name),
        file: &rules.files[r.file].path,
        line: r.line,
    }
}

/// A rule in the JSON `rules` list.
#[derive(Serialize)]
pub(super) struct RuleOut<'a> {
    name: Cow<'a, str>,
    file: &'a str,
    line: u32,
    hits: u64,
    hits_max: Option<u64>,
}

/// Every rule with its counts, in file and record order.
pub(super) fn rules_out<'a>(rules: &'a Rules, tally: &Tally) -> Vec<RuleOut<'a>> {
    rules
        .table
        .iter()
        .enumerate()
        .map(|(slot, r)| {
            let c = tally.rules.get(slot).copied().unwrap_or_default();
            RuleOut {
                name: String::from_utf8_lossy(&r.name),
                file: &rules.files[r.file].path,
                line: r.line,
                hits: c.hits,
                hits_max: c.hits_max,
            }
        })
        .collect()
}

impl<'a> ErrorRow<'a> {
    pub(super) fn new(log: &'a str, e: &'a ErrorEvidence, refs: &'a RuleRefs<'a>) -> Self {
        let approximate = e.approximate();
        Self {
            log,
            line: e.line,
            pid: e.pid,
            kind: Kind {
                tool: e.tool,
                kind: &e.kind,
            },
            leak_kind: e.leak_kind.map(|k| k.token()),
            suppressed_by: e.likely.map(|s| refs.json(s)),
            suppressed: suppressed_word(e.suppressed),
            approximate,
            truncated: e.truncated,
            why: approximate.then(|| e.why.names().collect()),
            candidates: approximate.then_some(Candidates {
                slots: &e.possible,
                refs,
            }),
            likely: e.likely,
            refs,
        }
    }

    /// Append the row as `format` prints it. A JSON row starts with `,`: the log's worker
    /// cannot know whether an earlier log printed rows, so the writer drops the comma
    /// before the document's first row.
    pub(super) fn encode(&self, format: MatchFormat, out: &mut Vec<u8>) -> std::io::Result<()> {
        match format {
            MatchFormat::Json => {
                out.push(b',');
                serde_json::to_writer(&mut *out, self)?;
            }
            MatchFormat::Human => {
                write!(out, "{}:{}", self.log, self.line)?;
                if let Some(p) = self.pid {
                    write!(out, " [{p}]")?;
                }
                write!(out, " {}", self.kind)?;
                if let Some(k) = self.leak_kind {
                    write!(out, " ({k})")?;
                }
                let likely = self.likely.map(|s| rule_ref(self.refs.rules, s));
                match (likely, self.candidates.as_ref().map(|c| c.slots)) {
                    (Some(r), Some(c)) if c.len() > 1 => write!(
                        out,
                        ": suppressed, by `{}` ({}:{}) or {} other rule(s)",
                        r.name,
                        r.file,
                        r.line,
                        c.len() - 1
                    )?,
                    (Some(r), _) => {
                        write!(out, ": suppressed by `{}` ({}:{})", r.name, r.file, r.line)?;
                    }
                    (None, Some(c)) if !c.is_empty() => write!(
                        out,
                        ": maybe suppressed (by {} rule(s) the log cannot decide)",
                        c.len()
                    )?,
                    (None, _) => out.extend_from_slice(b": not suppressed"),
                }
                if self.truncated {
                    out.extend_from_slice(b" [truncated]");
                }
                if let Some(why) = &self.why {
                    write!(out, " (approximate: {})", why.join(", "))?;
                }
                out.push(b'\n');
            }
        }
        Ok(())
    }
}

/// A row's `suppressed`: whether Valgrind suppresses the error — `yes`, `no`, or `maybe`
/// when it depends on what the log hides (docs/formats.md).
const fn suppressed_word(t: Truth) -> &'static str {
    match t {
        Truth::Yes => "yes",
        Truth::No => "no",
        Truth::Unknown => "maybe",
    }
}

/// Errors not surely suppressed, grouped by kind and first frames, for the summary.
#[derive(Debug, Default)]
pub(super) struct Groups {
    groups: HashMap<GroupKey, Group>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct GroupKey {
    maybe: bool,
    tool: Tool,
    kind: String,
    leak: Option<&'static str>,
    frames: String,
}

#[derive(Debug, Clone)]
struct Group {
    count: u64,
    /// The first error: (log index, line) and the log's name.
    first: (usize, u64),
    first_log: String,
}

impl Groups {
    /// Count an error of log `log` (index `index` in the run).
    pub(super) fn add(&mut self, index: usize, log: &str, e: &ErrorEvidence) {
        if e.suppressed == Truth::Yes {
            return;
        }
        let key = GroupKey {
            maybe: e.suppressed == Truth::Unknown,
            tool: e.tool,
            kind: e.kind.clone(),
            leak: e.leak_kind.map(|k| k.token()),
            frames: e.signature.clone().unwrap_or_default(),
        };
        let at = (index, e.line);
        let g = self.groups.entry(key).or_insert_with(|| Group {
            count: 0,
            first: at,
            first_log: log.to_owned(),
        });
        g.count += 1;
        if at < g.first {
            g.first = at;
            log.clone_into(&mut g.first_log);
        }
    }

    /// Merge another worker's groups.
    pub(super) fn merge(&mut self, other: Self) {
        for (k, g) in other.groups {
            match self.groups.get_mut(&k) {
                Some(mine) => {
                    mine.count += g.count;
                    if g.first < mine.first {
                        mine.first = g.first;
                        mine.first_log = g.first_log;
                    }
                }
                None => {
                    self.groups.insert(k, g);
                }
            }
        }
    }
}

/// How many groups the summary lists per section.
const SHOWN_GROUPS: usize = 20;

/// `1234567` as `1,234,567`.
pub(super) fn thousands(n: u64) -> String {
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

fn max_text(c: RuleCounts) -> String {
    c.hits_max.map_or_else(|| "?".to_owned(), thousands)
}

/// Whether the summary says that hidden objects leave verdicts undecided: when at least
/// 1% of the rows are (a few such rows say so in their own `why`).
fn hidden_objects_matter(tally: &Tally) -> bool {
    tally.hidden_objects > 0 && tally.hidden_objects * 100 >= tally.errors
}

/// The human summary: totals, errors not suppressed (grouped), rules by hits.
pub(super) fn summary(
    w: &mut impl Write,
    rules: &Rules,
    tally: &Tally,
    groups: &Groups,
    logs: usize,
) -> std::io::Result<()> {
    let not = tally.errors - tally.suppressed - tally.maybe_suppressed;
    writeln!(
        w,
        "{} errors and loss records in {} log{}: {} suppressed, {} not suppressed{}{}{}",
        thousands(tally.errors),
        thousands(logs as u64),
        if logs == 1 { "" } else { "s" },
        thousands(tally.suppressed),
        thousands(not),
        if tally.maybe_suppressed > 0 {
            format!(
                ", {} may or may not be suppressed",
                thousands(tally.maybe_suppressed)
            )
        } else {
            String::new()
        },
        if tally.credit_uncertain > 0 {
            format!(
                "; for {} of the suppressed the credited rule is uncertain",
                thousands(tally.credit_uncertain)
            )
        } else {
            String::new()
        },
        if tally.truncated > 0 {
            format!(
                "; {} cut off by the end of their log",
                thousands(tally.truncated)
            )
        } else {
            String::new()
        },
    )?;
    if hidden_objects_matter(tally) {
        writeln!(
            w,
            "\n{} of these verdicts are undecided because a text log does not show the object of a frame printed with its source line: record with --xml=yes (XML prints every frame's object) to decide them.",
            thousands(tally.hidden_objects)
        )?;
    }
    for (maybe, title) in [
        (false, "Not suppressed"),
        (
            true,
            "May or may not be suppressed (the logs hide what decides it)",
        ),
    ] {
        let mut section: Vec<(&GroupKey, &Group)> = groups
            .groups
            .iter()
            .filter(|(k, _)| k.maybe == maybe)
            .collect();
        if section.is_empty() {
            continue;
        }
        section.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.1.first.cmp(&b.1.first)));
        let total: u64 = section.iter().map(|(_, g)| g.count).sum();
        writeln!(
            w,
            "\n{title}: {} in {} group{} (kind and first frames){}:",
            thousands(total),
            thousands(section.len() as u64),
            if section.len() == 1 { "" } else { "s" },
            if section.len() > SHOWN_GROUPS {
                format!(", the {SHOWN_GROUPS} largest")
            } else {
                String::new()
            }
        )?;
        for (k, g) in section.iter().take(SHOWN_GROUPS) {
            let kind = match k.leak {
                Some(l) => format!("{}:{} ({l})", k.tool.supp_name(), k.kind),
                None => format!("{}:{}", k.tool.supp_name(), k.kind),
            };
            writeln!(
                w,
                "{:>9}  {kind}  {}  [{}:{}]",
                thousands(g.count),
                if k.frames.is_empty() {
                    "(no frames)"
                } else {
                    &k.frames
                },
                g.first_log,
                g.first.1
            )?;
        }
        if section.len() > SHOWN_GROUPS {
            writeln!(
                w,
                "      …  {} more groups (--errors lists every error)",
                thousands((section.len() - SHOWN_GROUPS) as u64)
            )?;
        }
    }
    let mut used: Vec<(Slot, RuleCounts)> = tally
        .rules
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, c)| c.hits > 0 || c.hits_max != Some(0))
        .collect();
    if !rules.table.is_empty() {
        used.sort_by(|a, b| {
            b.1.hits
                .cmp(&a.1.hits)
                .then_with(|| {
                    b.1.hits_max
                        .unwrap_or(u64::MAX)
                        .cmp(&a.1.hits_max.unwrap_or(u64::MAX))
                })
                .then(a.0.cmp(&b.0))
        });
        writeln!(
            w,
            "\nRules ({} of {} may have matched; Valgrind's count lies between hits and max, ? = no bound):",
            thousands(used.len() as u64),
            thousands(rules.table.len() as u64)
        )?;
        if !used.is_empty() {
            writeln!(w, "{:>9} {:>9}  rule", "hits", "max")?;
        }
        for (slot, c) in &used {
            writeln!(
                w,
                "{:>9} {:>9}  {}",
                thousands(c.hits),
                max_text(*c),
                rules.describe(*slot)
            )?;
        }
        let unused = rules.table.len() - used.len();
        if unused > 0 {
            writeln!(
                w,
                "{:>9} rule{} matched nothing",
                thousands(unused as u64),
                if unused == 1 { "" } else { "s" }
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vgsupp::matcher::RuleFile;
    use vgsupp::replay::{RulesOptions, Why};
    use vgsupp::supp::Version;

    /// A row as it was serialized before rules were serialized once: each rule built and
    /// escaped in place. Rows must keep these bytes.
    #[derive(Serialize)]
    struct Reference<'a> {
        log: &'a str,
        line: u64,
        pid: Option<u32>,
        kind: Kind<'a>,
        leak_kind: Option<&'static str>,
        suppressed_by: Option<RuleRef<'a>>,
        suppressed: &'static str,
        approximate: bool,
        truncated: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<Vec<&'static str>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        candidates: Option<Vec<RuleRef<'a>>>,
    }

    #[test]
    fn rows_keep_their_bytes() {
        // Names that JSON escapes, and one that is not UTF-8.
        let mut supp = b"{\n plain\n Memcheck:Leak\n fun:malloc\n}\n{\n quote \"and\" \\ back\ttab\n Memcheck:Leak\n fun:malloc\n}\n".to_vec();
        supp.extend_from_slice(b"{\n bad \xff utf8 \xe2\x82\n Memcheck:Leak\n fun:calloc\n}\n");
        let rules = Rules::load(
            vec![RuleFile {
                path: "dir/\"odd\".supp".into(),
                source: supp,
            }],
            RulesOptions {
                version: Version::new(19).expect("3.19"),
                num_callers: 12,
                go_on: false,
            },
        );
        let refs = RuleRefs::new(&rules).expect("serializes");
        let base = ErrorEvidence {
            line: 12,
            pid: Some(7),
            tool: Tool::Memcheck,
            kind: "Leak".into(),
            leak_kind: Some(vgsupp::supp::model::LeakKind::Definite),
            truncated: false,
            suppressed: Truth::Yes,
            possible: vec![1],
            likely: Some(1),
            why: Why::none(),
            signature: None,
            shadowed: Vec::new(),
        };
        let mut rows = vec![base.clone()];
        let mut e = base.clone();
        e.possible = vec![0, 1, 2];
        e.likely = Some(2);
        e.why = Why::ORDER | Why::OBJECT;
        rows.push(e);
        let mut e = base.clone();
        e.suppressed = Truth::Unknown;
        e.possible = vec![0, 2];
        e.likely = None;
        e.why = Why::FRAMES;
        e.truncated = true;
        e.pid = None;
        e.leak_kind = None;
        rows.push(e);
        let mut e = base;
        e.suppressed = Truth::No;
        e.possible.clear();
        e.likely = None;
        rows.push(e);
        for e in &rows {
            let mut got = Vec::new();
            ErrorRow::new("a \"log\".txt", e, &refs)
                .encode(MatchFormat::Json, &mut got)
                .expect("encodes");
            let approximate = e.approximate();
            let want = Reference {
                log: "a \"log\".txt",
                line: e.line,
                pid: e.pid,
                kind: Kind {
                    tool: e.tool,
                    kind: &e.kind,
                },
                leak_kind: e.leak_kind.map(|k| k.token()),
                suppressed_by: e.likely.map(|s| rule_ref(&rules, s)),
                suppressed: match e.suppressed {
                    Truth::Yes => "yes",
                    Truth::No => "no",
                    Truth::Unknown => "maybe",
                },
                approximate,
                truncated: e.truncated,
                why: approximate.then(|| e.why.names().collect()),
                candidates: approximate
                    .then(|| e.possible.iter().map(|&s| rule_ref(&rules, s)).collect()),
            };
            let mut want_bytes = b",".to_vec();
            serde_json::to_writer(&mut want_bytes, &want).expect("serializes");
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want_bytes)
            );
        }
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
