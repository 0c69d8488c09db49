//! `vgsupp gate`: Valgrind as a CI quality gate (PRODUCT.md §1–§2). An unsuppressed
//! first-party error fails it; third-party noise that no rule hides is reported, grouped,
//! never failing; a log that misses evidence never lets it pass.
//!
//! The verdicts are `gen`'s ([`crate::gen::verdict`]), read by the same collector in its
//! reporting mode ([`Generator::reporting`]): no rule is built, so the gate costs about
//! what `match` does. This module turns the rows into [`Assessment`]: findings folded by
//! [`fingerprint`] across processes and logs, a [`baseline`] applied count by count, and
//! what the logs lack.

pub mod baseline;
pub mod fingerprint;
pub mod kinds;
pub mod policy;

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::FxHashMap;

pub use baseline::{Baseline, BaselineError};
pub use policy::{Policy, PolicyError};

use crate::date::Date;
use crate::r#gen::detail::Detail;
use crate::r#gen::{GenError, GenOptions, Generator, LogPart, Reason, Verdict};
use crate::logs::record::Gap;
use crate::matcher::RuleFile;
use crate::replay::Rules;
use crate::supp::model::LeakKind;

/// The gate set up: the verdicts' generator and the policy.
pub struct Gate {
    generator: Generator,
    policy: Policy,
}

/// How a finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// It fails the gate.
    Fail,
    /// Shown, not failing: a reviewed error, or a kind the policy does not fail on.
    Warn,
    /// Known: the baseline covers every occurrence.
    Baselined,
}

impl Status {
    /// `fail`, `warn`, `baselined`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Fail => "fail",
            Self::Warn => "warn",
            Self::Baselined => "baselined",
        }
    }
}

/// Where one occurrence of an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    /// Its log (index into [`Assessment::logs`]).
    pub log: usize,
    /// Its line there.
    pub line: u64,
    /// Its process.
    pub pid: Option<u32>,
}

/// At most this many occurrences of a finding are listed (all are counted).
pub const MAX_OCCURRENCES: usize = 50;

/// A first-party error (or one that may be the user's), its identical occurrences
/// folded.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Its fingerprint.
    pub fingerprint: String,
    /// How it stands.
    pub status: Status,
    /// Its suppression kind (`Leak`, `Addr4`).
    pub kind: String,
    /// Its leak kind, for a leak (the worst of its occurrences).
    pub leak_kind: Option<LeakKind>,
    /// Its header, from the first occurrence (`Invalid read of size 4`).
    pub what: String,
    /// `keep` (a first-party bug) or `review` (may be the user's).
    pub verdict: Verdict,
    /// Why.
    pub reason: Reason,
    /// The function the verdict rests on.
    pub function: Option<String>,
    /// Its source line (`leaky_ext.cpp:11`).
    pub location: Option<String>,
    /// Every stack of the first occurrence.
    pub detail: Detail,
    /// The first [`MAX_OCCURRENCES`] occurrences, in log order.
    pub occurrences: Vec<Occurrence>,
    /// How many occurrences in all.
    pub count: u64,
    /// How many of them the baseline covers.
    pub baselined: u64,
    /// A `-s` rule that may hide it, described (`name (file:line)`): the log hides what
    /// decides it, so it counts as not suppressed.
    pub maybe_suppressed: Option<String>,
    /// Whether the policy fails on its kind (a `Warn` finding may be of a failing kind
    /// and only reviewed).
    pub kind_fails: bool,
}

/// Third-party errors of one origin and kind that no rule hides.
#[derive(Debug, Clone)]
pub struct Noise {
    /// The origin (`cuda-driver`, `cpython`, `third-party`).
    pub origin: String,
    /// The suppression kind.
    pub kind: String,
    /// The leak kind, for leaks.
    pub leak_kind: Option<LeakKind>,
    /// How many errors.
    pub count: u64,
    /// The first one.
    pub first: Occurrence,
    /// The function its verdict rests on (of the first one).
    pub function: Option<String>,
}

/// What one log gave.
#[derive(Debug, Clone)]
pub struct LogSummary {
    /// The log, as named to the user.
    pub name: String,
    /// Its errors and loss records.
    pub errors: u64,
    /// Where it misses evidence: line, how, why.
    pub gaps: Vec<(u64, Gap, String)>,
    /// Processes that ended on a fatal signal or error: line, message.
    pub fatal: Vec<(u64, String)>,
    /// The program's command line, from the preamble.
    pub command: Option<String>,
    /// Valgrind's version.
    pub valgrind: Option<String>,
    /// Frames of its errors that are first-party.
    pub first_party_frames: u64,
}

impl LogSummary {
    /// Whether a verdict on the whole run cannot be made from it: it was cut, ends
    /// early, was partly unreadable, or a process ended on a fatal signal.
    #[must_use]
    pub fn incomplete(&self) -> bool {
        !self.gaps.is_empty() || !self.fatal.is_empty()
    }
}

/// How the baseline was used.
#[derive(Debug, Clone, Default)]
pub struct BaselineUse {
    /// Per entry: how many occurrences it covered.
    pub used: Vec<u64>,
    /// Entries past `expires` (they covered nothing).
    pub expired: Vec<usize>,
}

/// What the gate concluded.
#[derive(Debug, Clone)]
pub struct Assessment {
    /// The logs, in the order given.
    pub logs: Vec<LogSummary>,
    /// First-party findings: failures first, then warnings, then baselined; each by
    /// log order of its first occurrence.
    pub findings: Vec<Finding>,
    /// Unsuppressed third-party noise, largest group first.
    pub noise: Vec<Noise>,
    /// Errors a `-s` rule surely hides.
    pub suppressed: u64,
    /// The baseline, when one was given.
    pub baseline: Option<BaselineUse>,
    /// The policy applied.
    pub policy: Policy,
    /// Warnings of the readers and the replay: log, line, message.
    pub warnings: Vec<(usize, Option<u64>, String)>,
}

impl Assessment {
    /// Findings that fail the gate.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.status == Status::Fail)
    }

    /// Whether the gate fails.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.failures().next().is_some()
    }

    /// Whether some log misses evidence.
    #[must_use]
    pub fn incomplete(&self) -> bool {
        self.logs.iter().any(LogSummary::incomplete)
    }

    /// Errors and loss records read.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.logs.iter().map(|l| l.errors).sum()
    }
}

impl Gate {
    /// Set up for `opts` (first-party code, profiles, release, depth; the style is not
    /// used), the `-s` files `existing` and `policy`.
    ///
    /// # Errors
    /// When a glob does not compile.
    pub fn new(
        opts: &GenOptions,
        existing: Vec<RuleFile>,
        policy: Policy,
    ) -> Result<Self, GenError> {
        Ok(Self {
            generator: Generator::new(opts, existing)?.reporting(),
            policy,
        })
    }

    /// The loaded `-s` rules.
    #[must_use]
    pub const fn existing(&self) -> &Rules {
        self.generator.existing()
    }

    /// Read the logs at `paths` (shown as `names`), in parallel.
    ///
    /// # Errors
    /// The first log that cannot be read, or that has errors of a tool whose `-s` files
    /// Valgrind would refuse.
    pub fn read_logs(&self, paths: &[&Path], names: &[String]) -> Result<Vec<LogPart>, GenError> {
        self.generator.read_logs(paths, names, false)
    }

    /// The verdict on the logs' parts (in log order), with `baseline` applied as of
    /// `today`.
    #[must_use]
    pub fn assess(
        &self,
        parts: Vec<LogPart>,
        baseline: Option<&Baseline>,
        today: Date,
    ) -> Assessment {
        let mut logs = Vec::with_capacity(parts.len());
        let mut warnings = Vec::new();
        let mut findings: Vec<Finding> = Vec::new();
        let mut by_print: FxHashMap<(String, Status), usize> = FxHashMap::default();
        let mut noise: BTreeMap<(String, String, Option<LeakKind>), Noise> = BTreeMap::new();
        let mut suppressed = 0u64;
        let rules = self.generator.existing();
        for (i, part) in parts.into_iter().enumerate() {
            warnings.extend(part.warnings.iter().map(|(l, m)| (i, *l, m.clone())));
            logs.push(LogSummary {
                name: part.facts.name.clone(),
                errors: part.facts.errors,
                gaps: part.gaps.clone(),
                fatal: part.fatal.clone(),
                command: part.facts.command.clone(),
                valgrind: part.facts.valgrind.clone(),
                first_party_frames: part.facts.first_party_frames,
            });
            for (row, detail) in part.rows.into_iter().zip(part.details) {
                let at = Occurrence {
                    log: i,
                    line: row.line,
                    pid: row.pid,
                };
                if row.existing.is_some() {
                    suppressed += 1;
                    continue;
                }
                let leak_kind = row.leak.map(|l| l.kind);
                let detail = match (row.verdict, detail) {
                    (Verdict::Keep | Verdict::Review, Some(d)) => *d,
                    _ => {
                        let origin = self.generator.classifier.origin_name(row.origin).to_owned();
                        let n = noise
                            .entry((origin.clone(), row.kind.clone(), leak_kind))
                            .or_insert_with(|| Noise {
                                origin,
                                kind: row.kind.clone(),
                                leak_kind,
                                count: 0,
                                first: at,
                                function: row.function.clone(),
                            });
                        n.count += 1;
                        continue;
                    }
                };
                let kind_fails = self.policy.selects(&row.kind, leak_kind);
                let status = if kind_fails && (row.verdict == Verdict::Keep || self.policy.review) {
                    Status::Fail
                } else {
                    Status::Warn
                };
                let print = fingerprint::fingerprint(&row.kind, &detail);
                let maybe = row.existing_maybe.map(|s| rules.describe(s));
                match by_print.get(&(print.clone(), status)) {
                    Some(&k) => {
                        let f = &mut findings[k];
                        f.count += 1;
                        if f.occurrences.len() < MAX_OCCURRENCES {
                            f.occurrences.push(at);
                        }
                        // The worst leak kind of its occurrences.
                        f.leak_kind = match (f.leak_kind, leak_kind) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                        if f.maybe_suppressed.is_none() {
                            f.maybe_suppressed = maybe;
                        }
                    }
                    None => {
                        by_print.insert((print.clone(), status), findings.len());
                        findings.push(Finding {
                            fingerprint: print,
                            status,
                            kind: row.kind,
                            leak_kind,
                            what: row.what,
                            verdict: row.verdict,
                            reason: row.reason,
                            function: row.function,
                            location: row.location,
                            detail,
                            occurrences: vec![at],
                            count: 1,
                            baselined: 0,
                            maybe_suppressed: maybe,
                            kind_fails,
                        });
                    }
                }
            }
        }
        let baseline_use = baseline.map(|b| apply_baseline(b, &mut findings, today));
        findings.sort_by_key(|f| (f.status, f.occurrences[0].log, f.occurrences[0].line));
        let mut noise: Vec<Noise> = noise.into_values().collect();
        noise.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then((a.first.log, a.first.line).cmp(&(b.first.log, b.first.line)))
        });
        Assessment {
            logs,
            findings,
            noise,
            suppressed,
            baseline: baseline_use,
            policy: self.policy,
            warnings,
        }
    }
}

/// Cover findings by the baseline's live entries, count by count: a finding every
/// occurrence of which is covered becomes [`Status::Baselined`]; one with more
/// occurrences than its entry allows keeps its status (the extra ones are new).
fn apply_baseline(b: &Baseline, findings: &mut [Finding], today: Date) -> BaselineUse {
    let mut used = vec![0u64; b.entries.len()];
    let mut expired = Vec::new();
    let mut left: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, e) in b.entries.iter().enumerate() {
        if e.expired(today) {
            expired.push(i);
        } else {
            left.entry(e.fingerprint.as_str()).or_default().push(i);
        }
    }
    // Failing findings first: what the baseline is for.
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by_key(|&i| findings[i].status);
    for i in order {
        let f = &mut findings[i];
        let Some(entries) = left.get(f.fingerprint.as_str()) else {
            continue;
        };
        for &e in entries {
            let room = b.entries[e].count - used[e];
            let take = room.min(f.count - f.baselined);
            used[e] += take;
            f.baselined += take;
        }
        if f.baselined == f.count {
            f.status = Status::Baselined;
        }
    }
    BaselineUse { used, expired }
}

/// The baseline of an assessment's failing findings (`--write-baseline`): one entry per
/// finding with its count, `owner`, `reason` and `expires` as given. Entries of `old`
/// for the same fingerprint keep their owner, reason and expiry.
#[must_use]
pub fn baseline_of(
    a: &Assessment,
    old: Option<&Baseline>,
    owner: Option<&str>,
    reason: Option<&str>,
    expires: Option<Date>,
) -> Baseline {
    let entries = a
        .findings
        .iter()
        .filter(|f| f.status != Status::Warn)
        .map(|f| {
            let prior = old.and_then(|b| b.entries.iter().find(|e| e.fingerprint == f.fingerprint));
            let primary = f.detail.primary();
            baseline::Entry {
                fingerprint: f.fingerprint.clone(),
                kind: f.kind.clone(),
                function: f
                    .function
                    .clone()
                    .or_else(|| primary.and_then(|p| p.function.clone())),
                file: primary.and_then(|p| p.file_name().map(str::to_owned)),
                count: f.count,
                owner: prior
                    .and_then(|p| p.owner.clone())
                    .or_else(|| owner.map(str::to_owned)),
                reason: prior
                    .and_then(|p| p.reason.clone())
                    .or_else(|| reason.map(str::to_owned)),
                expires: prior.and_then(|p| p.expires).or(expires),
                line: 0,
            }
        })
        .collect();
    Baseline { entries }
}

/// The baseline with fixed errors removed (`--update-baseline`): each entry's count
/// lowered to what it covered this time; entries that covered nothing are dropped.
/// Nothing is added. `None` when the logs miss evidence: what a cut log does not show
/// is not fixed.
#[must_use]
pub fn updated_baseline(a: &Assessment, b: &Baseline) -> Option<Baseline> {
    if a.incomplete() {
        return None;
    }
    let usage = a.baseline.as_ref()?;
    let entries = b
        .entries
        .iter()
        .zip(&usage.used)
        .enumerate()
        .filter_map(|(i, (e, &used))| {
            if usage.expired.contains(&i) {
                // Expired entries stay for their owner to renew or drop.
                return Some(e.clone());
            }
            (used > 0).then(|| baseline::Entry {
                count: used,
                line: 0,
                ..e.clone()
            })
        })
        .collect();
    Some(Baseline { entries })
}
