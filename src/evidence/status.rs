//! Each rule's status from the evidence of every log (PRODUCT.md §5).
//!
//! Per log, a rule is
//! * **credited** when Valgrind counted it (the log was recorded with its file) or the
//!   replay may credit it an error (`hits_max` > 0, or no bound);
//! * **exercised** when the log ran what it targets: its tool, a leak search for a leak
//!   rule, an object matching each of its `obj:` patterns (or, for a rule without one, the
//!   program its provenance names, when it names one);
//! * **cleanly absent** when it is exercised, not credited, and nothing it could have taken
//!   is out of sight: the log is whole (not cut, unfinished, capped or dropped) and either
//!   was recorded with the rule's file (Valgrind's count of zero is exact: never the first
//!   match) or every error another rule hid from it is one this rule cannot match.
//!
//! A rule is `used` when any log credits it; `shadowed` when it surely matches errors and
//! an earlier rule surely took every one; `stale` when at least one log has it cleanly
//! absent; `unverifiable` otherwise. Logs of several environments combine by
//! intersection: a rule is stale only when no environment credits it, so a rule used on
//! the CUDA 12 runner and absent on the CUDA 13 one is used.

use std::collections::{BTreeSet, HashMap};

use super::{Foreign, LogEvidence, file_name};
use crate::matcher::algebra::rules_meet;
use crate::matcher::rule::{Pattern, Rule};
use crate::matcher::wildcard::glob_match;
use crate::replay::RuleCounts;
use crate::replay::rules::{Rules, Slot};
use crate::supp::kinds::Tool;

/// What a rule's sidecar adds to the evidence.
#[derive(Debug, Clone, Default)]
pub struct RuleMeta {
    /// The programs (file names of commands) its provenance says it was seen in: a rule
    /// without `obj:` patterns is exercised only by logs of those programs, when any.
    pub programs: Vec<String>,
}

/// A rule's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Some log credits it, or may.
    Used,
    /// Nothing could have matched it where the logs exercised what it targets.
    Stale,
    /// No log exercised it with whole evidence: it is not judged.
    Unverifiable,
    /// It matches errors, but an earlier rule surely took each of them.
    Shadowed,
}

impl Status {
    /// The name in reports (`used`, `stale`, `unverifiable`, `shadowed`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Used => "used",
            Self::Stale => "stale",
            Self::Unverifiable => "unverifiable",
            Self::Shadowed => "shadowed",
        }
    }
}

/// One rule's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// The rule.
    pub slot: Slot,
    /// Its status.
    pub status: Status,
    /// Errors certainly credited to it: Valgrind's counts plus the replay's certain
    /// credits.
    pub hits: u64,
    /// The most that may be (`None`: no bound).
    pub hits_max: Option<u64>,
    /// Of `hits`, Valgrind's own counts.
    pub counted: u64,
    /// Logs that credit it (or may).
    pub logs_used: u64,
    /// Logs that exercised it.
    pub logs_exercised: u64,
    /// Logs where it is cleanly absent.
    pub logs_absent: u64,
    /// Distinct environments of those logs.
    pub environments: usize,
    /// Errors an earlier rule surely took from it, and that rule.
    pub shadowed: Option<(u64, Slot)>,
    /// One sentence: why this status.
    pub reason: String,
}

/// Every loaded reading of each rule, by slot (a record several tools read has one per
/// tool).
#[must_use]
pub fn variants(rules: &Rules) -> Vec<Vec<&Rule>> {
    let mut out: Vec<Vec<&Rule>> = vec![Vec::new(); rules.table.len()];
    for tool in Tool::ALL {
        if let Ok(tr) = rules.tool(tool) {
            for (id, r) in tr.set.rules.iter().enumerate() {
                let slot = tr.slot(u32::try_from(id).unwrap_or(u32::MAX));
                if let Some(v) = out.get_mut(slot) {
                    v.push(r);
                }
            }
        }
    }
    out
}

/// Whether a log shows a name a glob matches (objects or functions, sorted), memoised
/// per log and glob: rules share their globs.
struct Seen<'a> {
    memo: HashMap<(usize, &'a [u8], bool), bool>,
}

impl<'a> Seen<'a> {
    fn shows(&mut self, log: usize, names: &[Vec<u8>], glob: &'a [u8], object: bool) -> bool {
        *self.memo.entry((log, glob, object)).or_insert_with(|| {
            if glob.iter().any(|&b| b == b'*' || b == b'?') {
                names.iter().any(|n| glob_match(glob, n))
            } else {
                names.binary_search_by(|n| n.as_slice().cmp(glob)).is_ok()
            }
        })
    }
}

/// A rule's `obj:` (or `fun:`) globs that name something (not only `*`).
fn named_globs(rule: &Rule, object: bool) -> Vec<&[u8]> {
    rule.frames
        .iter()
        .filter_map(|p| match p {
            Pattern::Obj(g) if object => Some(g.as_bytes()),
            Pattern::Fun(g) if !object => Some(g.as_bytes()),
            _ => None,
        })
        .filter(|g| !g.iter().all(|&b| b == b'*'))
        .collect()
}

/// Why log `at` does not exercise a rule (the first reason found), or `None` when it does.
fn not_exercised<'a>(
    seen: &mut Seen<'a>,
    at: usize,
    log: &LogEvidence,
    rule: &'a Rule,
    programs: &[String],
) -> Option<String> {
    if !log.tools.contains(&rule.tool) {
        return Some(format!("no log ran {}", rule.tool.supp_name()));
    }
    if rule.kind == b"Leak" && !log.leak_check {
        return Some("no log searched for leaks".to_owned());
    }
    let globs = |object: bool| named_globs(rule, object);
    let objs = globs(true);
    for g in &objs {
        if !seen.shows(at, &log.objects, g, true) {
            return Some(format!(
                "no log loaded an object matching `{}`",
                String::from_utf8_lossy(g)
            ));
        }
    }
    if !objs.is_empty() {
        return None;
    }
    if !programs.is_empty() {
        let ran = log.commands.iter().any(|c| {
            let prog = c.split_whitespace().next().unwrap_or("");
            programs
                .iter()
                .any(|p| file_name(prog.as_bytes()) == file_name(p.as_bytes()))
        });
        if !ran {
            return Some(format!("no log ran {}", programs.join(" or ")));
        }
        return None;
    }
    // Neither objects nor a program: the code ran where a frame shows each function the
    // rule names (a rule for another platform's functions is never judged here).
    for g in globs(false) {
        if !seen.shows(at, &log.functions, g, false) {
            return Some(format!(
                "no log shows a frame in a function matching `{}`",
                String::from_utf8_lossy(g)
            ));
        }
    }
    None
}

/// What an exercising log shows of a rule's targets, for the reason of a stale rule.
fn targets(rule: &Rule, programs: &[String]) -> String {
    let named = |object: bool| -> Vec<String> {
        named_globs(rule, object)
            .into_iter()
            .map(|g| format!("`{}`", String::from_utf8_lossy(g)))
            .fold(Vec::new(), |mut v: Vec<String>, g| {
                if !v.contains(&g) {
                    v.push(g);
                }
                v
            })
    };
    // At most three names: the reason is one line.
    let list = |v: &[String]| match v {
        [a, b, c, _, ..] => format!("{a}, {b}, {c} and {} more", v.len() - 3),
        [init @ .., last] if !init.is_empty() => format!("{} and {last}", init.join(", ")),
        _ => v.join(""),
    };
    let objs = named(true);
    if !objs.is_empty() {
        return format!("loaded {}", list(&objs));
    }
    if !programs.is_empty() {
        return format!("ran {}", programs.join(" or "));
    }
    let funs = named(false);
    if !funs.is_empty() {
        return format!("ran {}", list(&funs));
    }
    if rule.kind == b"Leak" {
        return "searched for leaks".to_owned();
    }
    format!("ran {}", rule.tool.supp_name())
}

/// Classify every rule of `rules` from `logs` (in any order: the result is the same),
/// with `meta` per slot (missing entries: no provenance) and the rules that hid errors
/// from the logs (`foreign`).
#[must_use]
pub fn classify(
    rules: &Rules,
    logs: &[LogEvidence],
    meta: &[RuleMeta],
    foreign: &Foreign,
) -> Vec<Classified> {
    let our_rules = variants(rules);
    let none = RuleMeta::default();
    // Per log: slot → counts, and slot → shadowed.
    let counts: Vec<HashMap<Slot, RuleCounts>> = logs
        .iter()
        .map(|l| l.counts.iter().copied().collect())
        .collect();
    let shadowed: Vec<HashMap<Slot, (u64, Slot)>> = logs
        .iter()
        .map(|l| l.shadowed.iter().map(|&(s, n, by)| (s, (n, by))).collect())
        .collect();
    // What hid errors from each log, looked up once: `None` for a rule unknown.
    let hid: Vec<Vec<Option<Vec<&Rule>>>> = logs
        .iter()
        .map(|l| {
            l.used
                .iter()
                .filter(|u| u.count > 0)
                .map(|u| foreign.lookup(u, rules, &our_rules))
                .collect()
        })
        .collect();
    let mut seen = Seen {
        memo: HashMap::new(),
    };
    let mut out = Vec::with_capacity(rules.table.len());
    for (slot, info) in rules.table.iter().enumerate() {
        let m = meta.get(slot).unwrap_or(&none);
        let readings = &our_rules[slot];
        let base = file_name(rules.files[info.file].path.as_bytes());
        let mut c = Classified {
            slot,
            status: Status::Unverifiable,
            hits: 0,
            hits_max: Some(0),
            counted: 0,
            logs_used: 0,
            logs_exercised: 0,
            logs_absent: 0,
            environments: 0,
            shadowed: None,
            reason: String::new(),
        };
        let mut envs: BTreeSet<String> = BTreeSet::new();
        let mut why_not: Option<String> = None;
        let (mut incomplete, mut hidden) = (0u64, 0u64);
        let mut hidden_by: Option<String> = None;
        for (i, log) in logs.iter().enumerate() {
            let with = log.recorded_with(base);
            let counted: u64 = if with {
                log.used
                    .iter()
                    .filter(|u| {
                        u.name == info.name
                            && u.file.as_deref().is_none_or(|f| file_name(f) == base)
                            && u.line.is_none_or(|l| l == info.line)
                    })
                    .map(|u| u.count)
                    .sum()
            } else {
                0
            };
            let replay = counts[i].get(&slot).copied().unwrap_or_default();
            let credited = counted > 0 || replay.hits > 0 || replay.hits_max != Some(0);
            c.counted += counted;
            c.hits += counted + replay.hits;
            c.hits_max = c
                .hits_max
                .zip(replay.hits_max)
                .map(|(a, b)| a + b + counted);
            if let Some(&(n, by)) = shadowed[i].get(&slot) {
                let s = c.shadowed.get_or_insert((0, by));
                s.0 += n;
            }
            if credited {
                c.logs_used += 1;
                c.logs_exercised += 1;
                continue;
            }
            let reason = readings
                .iter()
                .map(|r| not_exercised(&mut seen, i, log, r, &m.programs))
                .try_fold(None::<String>, |first, r| match r {
                    None => Err(()),
                    Some(w) => Ok(first.or(Some(w))),
                });
            match reason {
                Ok(w) => {
                    if why_not.is_none() {
                        why_not = w.or_else(|| Some("no reading of it loads".to_owned()));
                    }
                    continue;
                }
                Err(()) => c.logs_exercised += 1,
            }
            if !log.gaps.is_empty() {
                incomplete += 1;
                continue;
            }
            if !with {
                if log.hidden_unknown {
                    hidden += 1;
                    hidden_by.get_or_insert_with(|| {
                        format!(
                            "{} suppressed errors without saying which rule took them (recorded without -v)",
                            log.name
                        )
                    });
                    continue;
                }
                let blocking =
                    log.used
                        .iter()
                        .filter(|u| u.count > 0)
                        .zip(&hid[i])
                        .find(|(_, found)| match found {
                            None => true,
                            Some(found) => found.iter().any(|f| {
                                readings
                                    .iter()
                                    .any(|r| !std::ptr::eq(*r, *f) && rules_meet(r, f))
                            }),
                        });
                if let Some((u, _)) = blocking {
                    hidden += 1;
                    hidden_by.get_or_insert_with(|| {
                        format!(
                            "rule `{}` hid {} errors in {} that this rule may match",
                            String::from_utf8_lossy(&u.name),
                            u.count,
                            log.name
                        )
                    });
                    continue;
                }
            }
            c.logs_absent += 1;
            envs.insert(log.environment_key());
        }
        c.environments = envs.len();
        let logs_word = |n: u64| if n == 1 { "log" } else { "logs" };
        let hits_word = |n: u64| if n == 1 { "hit" } else { "hits" };
        if c.logs_used > 0 {
            c.status = Status::Used;
            c.reason = if c.hits_max == Some(c.hits) {
                format!(
                    "{} {} in {} {}",
                    c.hits,
                    hits_word(c.hits),
                    c.logs_used,
                    logs_word(c.logs_used)
                )
            } else {
                let max = c.hits_max.map_or_else(|| "?".to_owned(), |m| m.to_string());
                format!(
                    "{}..{} hits in {} {} (the logs leave some credits open)",
                    c.hits,
                    max,
                    c.logs_used,
                    logs_word(c.logs_used)
                )
            };
        } else if let Some((n, by)) = c.shadowed {
            c.status = Status::Shadowed;
            let errors = if n == 1 { "error" } else { "errors" };
            c.reason = match rules.table.get(by) {
                Some(_) => format!(
                    "matches {n} {errors}, each surely taken first by {}",
                    rules.describe(by)
                ),
                None => format!("matches {n} {errors}, each surely taken first by another rule"),
            };
        } else if c.logs_absent > 0 {
            c.status = Status::Stale;
            let what = readings
                .first()
                .map_or_else(String::new, |r| targets(r, &m.programs));
            let env = if c.environments > 1 {
                format!(" ({} environments)", c.environments)
            } else {
                String::new()
            };
            c.reason = format!(
                "0 hits in {} {} that {what}{env}",
                c.logs_absent,
                logs_word(c.logs_absent)
            );
        } else {
            c.status = Status::Unverifiable;
            c.reason = if c.logs_exercised == 0 {
                why_not.unwrap_or_else(|| "no log given".to_owned())
            } else if hidden > 0 {
                hidden_by.unwrap_or_default()
            } else {
                format!(
                    "the {incomplete} {} that exercised it are incomplete (cut, unfinished or capped)",
                    logs_word(incomplete)
                )
            };
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::UsedCount;
    use crate::logs::record::Gap;
    use crate::matcher::RuleFile;
    use crate::replay::rules::RulesOptions;

    fn rules(src: &str) -> Rules {
        Rules::load(
            vec![RuleFile {
                path: "a.supp".into(),
                source: src.as_bytes().to_vec(),
            }],
            RulesOptions {
                version: crate::supp::Version::default(),
                num_callers: 12,
                go_on: false,
            },
        )
    }

    fn log(name: &str, objects: &[&str]) -> LogEvidence {
        LogEvidence {
            name: name.into(),
            tools: vec![Tool::Memcheck],
            objects: objects.iter().map(|o| o.as_bytes().to_vec()).collect(),
            leak_check: true,
            ..LogEvidence::default()
        }
    }

    fn status(r: &Rules, logs: &[LogEvidence]) -> Status {
        let foreign = Foreign::default();
        classify(r, logs, &[], &foreign)[0].status
    }

    #[test]
    fn environments_combine_by_intersection_and_gaps_never_make_stale() {
        let r = rules("{\n   foo\n   Memcheck:Cond\n   obj:*/libfoo.so\n}\n");
        let mut used = log("cuda12", &["/opt/libfoo.so"]);
        used.counts = vec![(
            0,
            RuleCounts {
                hits: 1,
                hits_max: Some(1),
            },
        )];
        let absent = log("cuda13", &["/opt/libfoo.so"]);
        let cpu = log("cpu", &["/usr/lib/libc.so.6"]);
        assert_eq!(status(&r, std::slice::from_ref(&absent)), Status::Stale);
        assert_eq!(status(&r, &[used.clone(), absent.clone()]), Status::Used);
        assert_eq!(status(&r, std::slice::from_ref(&cpu)), Status::Unverifiable);
        assert_eq!(status(&r, &[cpu, absent.clone()]), Status::Stale);
        let mut cut = absent.clone();
        cut.gaps.insert(Gap::Truncated);
        assert_eq!(status(&r, &[cut]), Status::Unverifiable);
        let mut quiet = absent.clone();
        quiet.hidden_unknown = true;
        assert_eq!(status(&r, &[quiet]), Status::Unverifiable);
        // Another rule hid errors: this one is absent only if it could not have matched
        // them; a rule the logs cannot show is taken as one it could.
        let mut hid = absent;
        hid.used = vec![UsedCount {
            file: Some(b"/elsewhere/other.supp".to_vec()),
            line: Some(2),
            name: b"other".to_vec(),
            count: 3,
        }];
        assert_eq!(status(&r, &[hid]), Status::Unverifiable);
    }

    #[test]
    fn rules_without_objects_need_their_functions_seen() {
        let r = rules("{\n   f\n   Memcheck:Cond\n   fun:decode\n   fun:main\n}\n");
        let mut seen = log("a", &[]);
        seen.functions = vec![b"decode".to_vec(), b"main".to_vec()];
        assert_eq!(status(&r, &[seen]), Status::Stale);
        let mut other = log("b", &[]);
        other.functions = vec![b"main".to_vec()];
        assert_eq!(status(&r, &[other]), Status::Unverifiable);
    }
}
