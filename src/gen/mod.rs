//! `vgsupp gen`: suppressions for third-party false positives that hide nothing real
//! (PRODUCT.md §4).
//!
//! The pipeline, one module per step:
//!
//! * [`crate::origin`] (its own module, shared with the commands that come after `gen`):
//!   whose code each frame is — first-party, an origin a profile claims, or unknown;
//! * [`frames`]: an error's frames as the matcher sees them, placed;
//! * [`verdict`]: keep / review / suppress, and the source line it rests on;
//! * [`generalise`], [`anchor`], [`candidate`]: the rule for a suppressed error in the
//!   chosen [`Style`] — version-free objects, stable API anchors;
//! * [`collect`]: one log, read through the replay library ([`crate::replay`]);
//! * [`subsume`], [`guard`], [`select`]: coarsening, deduplication, subsumption (also by
//!   the `-s` files) and the guarantee that no rule matches a kept error;
//! * [`names`], [`provenance`]: `ORIGIN.KIND.ANCHOR` names and what the sidecar records.
//!
//! The library reads logs and returns [`Generated`]; it writes nothing (the CLI writes the
//! file and renders the report).

pub mod anchor;
pub mod candidate;
pub mod collect;
pub mod detail;
pub mod frames;
pub mod generalise;
pub mod guard;
pub mod inputs;
pub mod names;
pub mod provenance;
pub mod select;
pub mod subsume;
pub mod verdict;

use std::collections::BTreeMap;
use std::path::Path;

pub use crate::origin::{Classifier, ClassifyError, FirstParty, Profile, UnknownCode};
pub use candidate::Style;
pub use collect::{Collector, LogPart};
pub use provenance::LogFacts;
pub use verdict::{Reason, Verdict};

use crate::logs::record::{LogFormat, LossRecord, ReadError};
use crate::matcher::{RefusedFile, RuleFile};
use crate::replay::{
    LogError, LogJob, LogsOptions, ReplayOptions, Rules, RulesOptions, Slot, collect_logs,
};
use crate::supp::kinds::{Tool, Version};
use candidate::Kinds;

/// What `gen` is asked for.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// What is first-party: globs on objects and source paths ([`crate::origin::glob`]).
    pub first_party: FirstParty,
    /// Extra origin profiles (tried before the built-in ones).
    pub profiles: Vec<Profile>,
    /// The project directory, which relative globs are resolved from.
    pub project: Option<std::path::PathBuf>,
    /// What to do with code no glob or profile places.
    pub unknown: UnknownCode,
    /// How general the rules are.
    pub style: Style,
    /// The Valgrind release whose loader reads the rules (the `-s` files and the
    /// generated ones).
    pub version: Version,
    /// The `--num-callers` the logs were recorded with (rules are cut to it on load).
    pub num_callers: u32,
    /// Who answers for the rules (`--owner`), for their provenance.
    pub owner: Option<String>,
    /// In how many days the rules must be looked at again (`--expires-in`; `None`:
    /// never).
    pub expires_in: Option<u32>,
    /// The command that generates the rules, with its effective settings, for their
    /// provenance (`generated.tool`); the caller builds it (the library does not read
    /// its process's arguments). `None`: `vgsupp VERSION gen --style STYLE`.
    pub command: Option<String>,
}

impl Style {
    /// The `--style` value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Anchored => "anchored",
            Self::Object => "object",
        }
    }
}

/// Why `gen` cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A glob of the first-party globs or of a profile does not compile.
    #[error(transparent)]
    Classify(#[from] ClassifyError),
    /// A `-s` file Valgrind would refuse (for an error's tool).
    #[error(transparent)]
    Refused(RefusedFile),
    /// The generated rules do not load (a bug in `gen`; nothing is written).
    #[error("the generated rules do not load: {0}")]
    Candidates(RefusedFile),
    /// A log cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// One error or loss record of the logs, with its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Index of its log.
    pub log: usize,
    /// Its line in the log.
    pub line: u64,
    /// Its process.
    pub pid: Option<u32>,
    /// Its tool.
    pub tool: Tool,
    /// Its suppression kind (`Leak`, `Cond`, `Addr4`).
    pub kind: String,
    /// Its loss record, for a leak.
    pub leak: Option<LossRecord>,
    /// Its header (`Invalid read of size 4`).
    pub what: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why.
    pub reason: Reason,
    /// The origin of the frame the verdict rests on (the rule's origin when suppressed).
    pub origin: crate::origin::OriginId,
    /// That frame's source line (`leaky_ext.cpp:11`).
    pub location: Option<String>,
    /// That frame's function, as printed.
    pub function: Option<String>,
    /// The rule of the `-s` files that surely hides it (a slot of the existing rules).
    pub existing: Option<Slot>,
    /// A rule of the `-s` files that may hide it (what the log hides decides).
    pub existing_maybe: Option<Slot>,
    /// The generated rule that hides it (index into [`Generated::rules`]), for a
    /// suppressed error. No generated rule hides a kept or reviewed error.
    pub rule: Option<usize>,
}

/// One log a rule was generated from (the sidecar's `generated.from`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLog {
    /// The log, as named to the user.
    pub log: String,
    /// Its SHA-256, when hashed.
    pub sha256: Option<String>,
    /// Valgrind's version.
    pub valgrind: Option<String>,
    /// The program's command line.
    pub command: Option<String>,
    /// The errors of this log the rule hides.
    pub errors: u64,
}

/// Why a generated rule exists: what the sidecar writer needs for it (PRODUCT.md §3:
/// `origin`, `reason`, `owner`, `expires` from `expires_in_days` and the day it is
/// written, `generated: {tool, from, environment}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// What made it (`vgsupp 0.1.0 gen --style anchored`).
    pub tool: String,
    /// Who answers for it.
    pub owner: Option<String>,
    /// In how many days from its creation it must be looked at again.
    pub expires_in_days: Option<u32>,
    /// The origin profile (`cuda-driver`, `libtorch`, …).
    pub origin: String,
    /// Why it exists, specific to the origin and the kind.
    pub reason: String,
    /// The logs it comes from.
    pub from: Vec<SourceLog>,
    /// Versions read from the object paths of those logs (`libcuda`, `libcudart`,
    /// `cuda`, `python`, `torch`).
    pub environment: Vec<(String, String)>,
}

/// A rule `gen` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenRule {
    /// Its name (`ORIGIN.KIND.ANCHOR`, unique in the file).
    pub name: String,
    /// Its shape.
    pub shape: candidate::Shape,
    /// Its leak kinds (for a `Leak` rule).
    pub kinds: Kinds,
    /// Its record, canonically formatted.
    pub record: Vec<u8>,
    /// The errors of the logs it hides (those it was generated for).
    pub errors: u64,
    /// Why it exists.
    pub provenance: Provenance,
}

/// What `gen` found.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The logs, in the order given.
    pub logs: Vec<LogFacts>,
    /// Every error, in log order.
    pub rows: Vec<Row>,
    /// The rules, in file order.
    pub rules: Vec<GenRule>,
    /// Warnings: log index, line, message.
    pub warnings: Vec<(usize, Option<u64>, String)>,
    /// Origin names, by [`crate::origin::OriginId`].
    pub origins: Vec<String>,
}

impl Generated {
    /// The name of an origin id.
    #[must_use]
    pub fn origin(&self, id: crate::origin::OriginId) -> &str {
        self.origins
            .get(usize::from(id))
            .map_or(crate::origin::profile::THIRD_PARTY, String::as_str)
    }

    /// The suppression file: every rule, canonically formatted.
    #[must_use]
    pub fn file(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, r) in self.rules.iter().enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            out.extend_from_slice(&r.record);
        }
        crate::supp::format::format_source(&out)
    }
}

/// `gen` set up: the classifier, the style and the `-s` rules.
pub struct Generator {
    pub(crate) classifier: Classifier,
    pub(crate) style: Style,
    owner: Option<String>,
    expires_in: Option<u32>,
    command: String,
    pub(crate) existing: Rules,
    version: Version,
    pub(crate) num_callers: u32,
    /// Verdicts and report details only: no candidate rules, no matcher inputs kept
    /// ([`Generator::reporting`]).
    pub(crate) reporting: bool,
}

impl Generator {
    /// Set up for `opts`, with the `-s` files `existing` (in `--suppressions` order).
    ///
    /// # Errors
    /// When a glob does not compile.
    pub fn new(opts: &GenOptions, existing: Vec<RuleFile>) -> Result<Self, GenError> {
        let classifier = Classifier::new(
            &opts.first_party,
            &opts.profiles,
            opts.project.as_deref(),
            opts.unknown,
        )?;
        let existing = Rules::load(
            existing,
            RulesOptions {
                version: opts.version,
                num_callers: opts.num_callers,
                go_on: false,
            },
        );
        Ok(Self {
            classifier,
            style: opts.style,
            owner: opts.owner.clone(),
            expires_in: opts.expires_in,
            command: opts.command.clone().unwrap_or_else(|| {
                format!(
                    "vgsupp {} gen --style {}",
                    env!("CARGO_PKG_VERSION"),
                    opts.style.as_str()
                )
            }),
            existing,
            version: opts.version,
            num_callers: opts.num_callers,
            reporting: false,
        })
    }

    /// For a report of the verdicts (`vgsupp gate`), not rules: collectors build no
    /// candidate rule and keep no matcher input, and record every kept or reviewed
    /// error's stacks ([`LogPart::details`]) and the log's gaps and fatal ends. A
    /// suppressed error keeps its verdict without a rule. [`Generator::finish`] is not
    /// for such parts.
    #[must_use]
    pub const fn reporting(mut self) -> Self {
        self.reporting = true;
        self
    }

    /// The loaded `-s` rules.
    #[must_use]
    pub const fn existing(&self) -> &Rules {
        &self.existing
    }

    /// How generated rules are loaded for the guarantee.
    pub(crate) const fn rules_options(&self) -> RulesOptions {
        RulesOptions {
            version: self.version,
            num_callers: self.num_callers,
            go_on: false,
        }
    }

    /// A collector for log number `log`, named `name`, in `format`.
    #[must_use]
    pub fn collector(&self, log: usize, name: &str, format: LogFormat) -> Collector<'_> {
        Collector::new(self, log, name, format)
    }

    /// Read the logs at `paths` (shown as `names`) through the replay of the `-s` rules,
    /// in parallel; with `hash`, each log's SHA-256 goes into its facts.
    ///
    /// # Errors
    /// The first log (in the order given) that cannot be read, or that has errors of a
    /// tool whose `-s` files Valgrind would refuse.
    pub fn read_logs(
        &self,
        paths: &[&Path],
        names: &[String],
        hash: bool,
    ) -> Result<Vec<LogPart>, GenError> {
        let jobs: Vec<LogJob<'_>> = paths.iter().map(|p| LogJob::single(p)).collect();
        let opts = LogsOptions {
            replay: ReplayOptions {
                inputs: true,
                signatures: false,
            },
            hash,
            ..LogsOptions::default()
        };
        collect_logs(&jobs, &self.existing, opts, |i, format| {
            self.collector(i, names.get(i).map_or("", String::as_str), format)
        })
        .map_err(|e| match e {
            LogError::Read(e) => GenError::Read(e),
            LogError::Refused(r) => GenError::Refused(r),
            LogError::Sink(never) => match never {},
        })
    }

    /// Select the rules from the logs' parts (in log order).
    ///
    /// # Errors
    /// When the generated rules do not load (a bug: nothing may be written then).
    pub fn finish(&self, parts: Vec<LogPart>) -> Result<Generated, GenError> {
        let logs: Vec<LogFacts> = parts.iter().map(|p| p.facts.clone()).collect();
        let warnings = parts
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.warnings.iter().map(move |(l, m)| (i, *l, m.clone())))
            .collect();
        let selected = select::select(self, parts)?;
        let mut rows = selected.rows;
        let environment: Vec<(String, String)> = {
            let mut all = BTreeMap::new();
            for l in &logs {
                for (k, v) in &l.environment {
                    all.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            all.into_iter().collect()
        };
        // Rules in a stable order: origin, kind, label, body.
        let mut order: Vec<usize> = (0..selected.rules.len()).collect();
        let key = |i: usize| {
            let (c, k, _) = &selected.rules[i];
            (
                self.classifier.origin_name(c.origin).to_owned(),
                c.shape.kind.clone(),
                c.label.clone(),
                candidate::record("", &c.shape, *k),
            )
        };
        order.sort_by_cached_key(|&i| key(i));
        let mut new_index = vec![0usize; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let bases: Vec<String> = order
            .iter()
            .map(|&i| {
                let (c, _, _) = &selected.rules[i];
                names::base(
                    self.classifier.origin_name(c.origin),
                    &c.shape.kind,
                    c.shape.extra.as_deref(),
                    &c.label,
                )
            })
            .collect();
        let bodies: Vec<Vec<u8>> = order
            .iter()
            .map(|&i| {
                let (c, k, _) = &selected.rules[i];
                candidate::record("", &c.shape, *k)
            })
            .collect();
        let alternates: Vec<Option<String>> = order
            .iter()
            .map(|&i| {
                let (c, _, _) = &selected.rules[i];
                let parts: Vec<&str> = [names::allocator(&c.shape), c.pin.as_deref()]
                    .into_iter()
                    .flatten()
                    .chain(std::iter::once(c.label.as_str()))
                    .collect();
                (parts.len() > 1).then(|| {
                    names::base(
                        self.classifier.origin_name(c.origin),
                        &c.shape.kind,
                        c.shape.extra.as_deref(),
                        &parts.join("."),
                    )
                })
            })
            .collect();
        let unique = names::unique(&bases, &alternates, &bodies);
        let rules = order
            .iter()
            .zip(unique)
            .map(|(&i, name)| {
                let (c, kinds, members) = &selected.rules[i];
                let origin = self.classifier.origin_name(c.origin).to_owned();
                let kinds_text = candidate::kinds_text(*kinds);
                let mut per_log: BTreeMap<usize, u64> = BTreeMap::new();
                for &row in members {
                    *per_log.entry(rows[row].log).or_default() += 1;
                }
                let from = per_log
                    .into_iter()
                    .map(|(log, errors)| SourceLog {
                        log: logs[log].name.clone(),
                        sha256: logs[log].sha256.clone(),
                        valgrind: logs[log].valgrind.clone(),
                        command: logs[log].command.clone(),
                        errors,
                    })
                    .collect();
                GenRule {
                    record: crate::supp::format::format_source(&candidate::record(
                        &name, &c.shape, *kinds,
                    )),
                    name,
                    shape: c.shape.clone(),
                    kinds: *kinds,
                    errors: members.len() as u64,
                    provenance: Provenance {
                        tool: self.command.clone(),
                        owner: self.owner.clone(),
                        expires_in_days: self.expires_in,
                        reason: provenance::reason(
                            &origin,
                            &c.shape.kind,
                            c.shape.extra.as_deref(),
                            &kinds_text,
                            &c.label,
                        ),
                        origin,
                        from,
                        environment: environment.clone(),
                    },
                }
            })
            .collect();
        for r in &mut rows {
            if let Some(k) = r.rule {
                r.rule = Some(new_index[k]);
            }
        }
        let origins = self.classifier.origin_names().to_vec();
        Ok(Generated {
            logs,
            rows,
            rules,
            warnings,
            origins,
        })
    }
}
