//! `vgsupp prune`: classify every rule from the evidence of logs, and with `--write`
//! remove the stale ones (byte for byte, through the edit layer) and retire their
//! provenance, the `.supp` and its `.supp.yaml` replaced together.

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, anyhow, bail};
use serde::Serialize;

use super::verdicts::Logs;
use crate::cli::args::{PruneArgs, PruneFormat};
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;
use vgsupp::date::Date;
use vgsupp::evidence::{Classified, EvidenceSink, Foreign, LogEvidence, RuleMeta, Status};
use vgsupp::matcher::RuleFile;
use vgsupp::replay::rules::{Rules, RulesOptions};
use vgsupp::replay::run::{LogJob, LogsOptions, collect_logs};
use vgsupp::sidecar::store::{self, Staged};
use vgsupp::sidecar::{Seen, Sidecar};
use vgsupp::supp::edit;

/// One suppression file being pruned, with its sidecar.
struct File {
    path: PathBuf,
    shown: String,
    /// A bundled pack (`profile:NAME`): judged, never written.
    pack: bool,
    sidecar: Option<Sidecar>,
    sidecar_path: PathBuf,
}

/// What happens to a rule.
struct Judged {
    c: Classified,
    expired: Option<Date>,
    keep: Option<String>,
    remove: Option<String>,
}

pub fn run(args: &PruneArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    let (paths, rule_files) = files::rule_files(&args.suppressions)?;
    let logs = Logs::collect(&args.logs)?;
    let version = logs.version(settings);
    let num_callers = logs.num_callers(args.num_callers);
    let mut supp_files = Vec::with_capacity(paths.len());
    for (path, rf) in paths.iter().zip(&rule_files) {
        let pack = rf.path.starts_with(vgsupp::packs::PREFIX);
        let sidecar_path = store::path_for(path);
        let sidecar = if pack {
            None
        } else {
            match store::read(&sidecar_path)? {
                Some(d) => {
                    for p in &d.problems {
                        out.warning(&format!(
                            "{}:{}: {} (kept as written)",
                            files::display(&sidecar_path),
                            p.line,
                            p.kind
                        ));
                    }
                    Some(d.sidecar)
                }
                None => None,
            }
        };
        supp_files.push(File {
            path: path.clone(),
            shown: rf.path.clone(),
            pack,
            sidecar,
            sidecar_path,
        });
    }
    if args.write && supp_files.iter().any(|f| f.pack) {
        bail!("--write cannot change a bundled pack (profile:NAME): give files to write");
    }
    let sidecars: Vec<Option<&Sidecar>> = supp_files.iter().map(|f| f.sidecar.as_ref()).collect();
    let (rules, evidence, classified) =
        judge(rule_files, &sidecars, &logs, version, num_callers, out)?;
    let entry = |slot: usize| {
        let info = &rules.table[slot];
        supp_files[info.file]
            .sidecar
            .as_ref()
            .and_then(|s| s.rule(&String::from_utf8_lossy(&info.name)))
    };
    let today = clock::today()?;
    let judged: Vec<Judged> = classified
        .into_iter()
        .map(|c| {
            let e = entry(c.slot);
            let expired = e.and_then(|e| e.expires).filter(|d| *d < today);
            let keep = e.and_then(|e| e.keep.clone());
            let remove = if keep.is_some() {
                None
            } else if c.status == Status::Stale {
                Some(format!("stale: {}", c.reason))
            } else if args.expired
                && let Some(d) = expired
            {
                Some(format!("expired on {d}"))
            } else {
                None
            };
            Judged {
                c,
                expired,
                keep,
                remove,
            }
        })
        .collect();

    // The new files.
    let mut staged: Vec<(PathBuf, Vec<u8>, Vec<u8>)> = Vec::new();
    let mut diffs = String::new();
    for (fi, f) in supp_files.iter().enumerate() {
        if f.pack {
            continue;
        }
        let mine: Vec<&Judged> = judged
            .iter()
            .filter(|j| rules.table[j.c.slot].file == fi)
            .collect();
        let remove: Vec<usize> = mine
            .iter()
            .filter(|j| j.remove.is_some())
            .map(|j| rules.table[j.c.slot].record as usize)
            .collect();
        let old = &rules.files[fi].source;
        let new_supp = if remove.is_empty() {
            old.clone()
        } else {
            let parsed = vgsupp::supp::parse(old.clone());
            let body = edit::remove_and_append(&parsed, &remove, b"")
                .with_context(|| format!("`{}`", f.shown))?;
            let gone = |_, i: u32| remove.contains(&(i as usize));
            edit::prove(old, &body, &gone, b"", version, num_callers)
                .with_context(|| format!("nothing was written to `{}`", f.shown))?;
            body
        };
        if new_supp != *old {
            diffs.push_str(&files::unified_diff(&f.shown, old, &new_supp));
        }
        if let Some(side) = &f.sidecar {
            let mut side = side.clone();
            for j in &mine {
                let name = String::from_utf8_lossy(&rules.table[j.c.slot].name).into_owned();
                if let Some(why) = &j.remove {
                    side.retire_removed(&name, today, why);
                } else if j.c.status == Status::Used
                    && let Some(e) = side.rule_mut(&name)
                {
                    let s = e.seen.get_or_insert_with(Seen::default);
                    s.first = Some(s.first.map_or(today, |d| d.min(today)));
                    s.last = Some(s.last.map_or(today, |d| d.max(today)));
                    s.hits = Some(s.hits.unwrap_or(0).max(j.c.hits));
                    s.logs = Some(s.logs.unwrap_or(0).max(j.c.logs_used));
                }
            }
            let old_side = std::fs::read(&f.sidecar_path).unwrap_or_default();
            let new_side = vgsupp::sidecar::encode(&side)
                .with_context(|| format!("`{}`", files::display(&f.sidecar_path)))?;
            if new_supp != *old || new_side.as_bytes() != old_side {
                staged.push((f.path.clone(), new_supp, new_side.into_bytes()));
            }
        } else if new_supp != *old {
            staged.push((f.path.clone(), new_supp, Vec::new()));
        }
    }

    let removed = judged.iter().filter(|j| j.remove.is_some()).count();
    let mut written = false;
    let mut sidecars_written = 0;
    if args.write && !staged.is_empty() {
        let mut files_to_commit = Vec::new();
        for (path, supp, side) in &staged {
            files_to_commit.push(Staged::new(path, supp, &settings.project)?);
            let fi = supp_files
                .iter()
                .position(|f| &f.path == path)
                .unwrap_or_default();
            if supp_files[fi].sidecar.is_some() {
                sidecars_written += 1;
                files_to_commit.push(Staged::new(
                    &supp_files[fi].sidecar_path,
                    side,
                    &settings.project,
                )?);
            }
        }
        store::commit(files_to_commit)?;
        written = true;
    }

    match args.format {
        PruneFormat::Json => {
            out.stdout(&json(&rules, &supp_files, &judged, &evidence, written)?)?;
        }
        PruneFormat::Human => {
            human(&rules, &supp_files, &judged, &evidence, out)?;
            if !diffs.is_empty() && !args.write {
                out.stdout(&diffs)?;
            }
            let rules_word = if removed == 1 { "rule" } else { "rules" };
            let sidecars = match sidecars_written {
                0 => String::new(),
                1 => "; 1 sidecar updated".to_owned(),
                n => format!("; {n} sidecars updated"),
            };
            let verb = if written && removed > 0 {
                format!("removed {removed} {rules_word}{sidecars}")
            } else if written {
                format!("nothing to remove{sidecars} (`seen:` of used rules)")
            } else if args.write || removed == 0 {
                "nothing to remove".to_owned()
            } else {
                format!("would remove {removed} {rules_word} (run with --write)")
            };
            out.status(&verb);
        }
    }
    Ok(Exit::Clean)
}

/// Read `logs` against the rules of `rule_files` (with their sidecars, for the programs
/// a rule's provenance names) and classify every rule: the rules, each log's evidence and
/// each rule's verdict (`prune`, `check --logs`).
pub(super) fn judge(
    rule_files: Vec<RuleFile>,
    sidecars: &[Option<&Sidecar>],
    logs: &Logs,
    version: vgsupp::supp::Version,
    num_callers: u32,
    out: &Output,
) -> Result<(Rules, Vec<LogEvidence>, Vec<Classified>)> {
    let rules = Rules::load(
        rule_files,
        RulesOptions {
            version,
            num_callers,
            go_on: false,
        },
    );
    let jobs: Vec<LogJob<'_>> = logs.paths.iter().map(|p| LogJob::single(p)).collect();
    let opts = LogsOptions {
        threads: rayon::current_num_threads(),
        hash: true,
        ..LogsOptions::default()
    };
    let evidence: Vec<LogEvidence> = collect_logs(&jobs, &rules, opts, |i, _| {
        EvidenceSink::new(&logs.names[i])
    })
    .map_err(|e| anyhow!("{e}"))?;
    for l in &evidence {
        if !l.gaps.is_empty() {
            let gaps: Vec<&str> = l.gaps.iter().map(|g| g.as_str()).collect();
            out.warning(&format!(
                "{} misses evidence ({}): no rule is called stale from it",
                l.name,
                gaps.join(", ")
            ));
        }
    }
    let defaults: Vec<Vec<u8>> = files::DEFAULT_SUPP
        .iter()
        .filter(|p| Path::new(p).is_file())
        .map(|p| p.as_bytes().to_vec())
        .collect();
    let foreign = Foreign::load(&evidence, &rules, &defaults, |p| {
        std::fs::read(Path::new(std::ffi::OsStr::from_bytes(p))).ok()
    });
    let meta: Vec<RuleMeta> = rules
        .table
        .iter()
        .map(|info| RuleMeta {
            programs: sidecars
                .get(info.file)
                .copied()
                .flatten()
                .and_then(|s| s.rule(&String::from_utf8_lossy(&info.name)))
                .and_then(|e| e.generated.as_ref())
                .map(|g| {
                    g.from
                        .iter()
                        .filter_map(|s| s.command.as_deref()?.split_whitespace().next())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    let classified = vgsupp::evidence::classify(&rules, &evidence, &meta, &foreign);
    Ok((rules, evidence, classified))
}

fn human(
    rules: &Rules,
    supp_files: &[File],
    judged: &[Judged],
    evidence: &[LogEvidence],
    out: &Output,
) -> Result<()> {
    let mut by: HashMap<Status, usize> = HashMap::new();
    let mut text = String::new();
    for j in judged {
        *by.entry(j.c.status).or_default() += 1;
        let info = &rules.table[j.c.slot];
        let mut extra = String::new();
        if let Some(d) = j.expired {
            extra.push_str(&format!(" [expired {d}]"));
        }
        if let Some(k) = &j.keep {
            extra.push_str(&format!(" [keep: {k}]"));
        }
        text.push_str(&format!(
            "{:<12} {}:{} {} — {}{extra}\n",
            j.c.status.as_str(),
            supp_files[info.file].shown,
            info.line,
            String::from_utf8_lossy(&info.name),
            j.c.reason
        ));
    }
    out.stdout(&text)?;
    let n = |s| by.get(&s).copied().unwrap_or(0);
    let expired = judged.iter().filter(|j| j.expired.is_some()).count();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    out.status(&format!(
        "{}, {}: {} used, {} stale, {} unverifiable, {} shadowed; {} expired",
        plural(judged.len(), "rule", "rules"),
        plural(evidence.len(), "log", "logs"),
        n(Status::Used),
        n(Status::Stale),
        n(Status::Unverifiable),
        n(Status::Shadowed),
        expired
    ));
    Ok(())
}

#[derive(Serialize)]
struct JsonRule<'a> {
    name: String,
    file: &'a str,
    line: u32,
    status: &'static str,
    hits: u64,
    hits_max: Option<u64>,
    valgrind_count: u64,
    logs_used: u64,
    logs_exercised: u64,
    expired: bool,
    keep: Option<&'a str>,
    removed: bool,
    reason: &'a str,
}

#[derive(Serialize)]
struct JsonLog<'a> {
    log: &'a str,
    sha256: Option<&'a str>,
    valgrind: Option<&'a str>,
    commands: &'a [String],
    options: &'a [String],
    suppression_files: Vec<String>,
    environment: &'a std::collections::BTreeMap<String, String>,
    objects: usize,
    errors: u64,
    gaps: Vec<&'static str>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    rules: Vec<JsonRule<'a>>,
    logs: Vec<JsonLog<'a>>,
    written: bool,
}

fn json(
    rules: &Rules,
    supp_files: &[File],
    judged: &[Judged],
    evidence: &[LogEvidence],
    written: bool,
) -> Result<String> {
    let report = JsonReport {
        rules: judged
            .iter()
            .map(|j| {
                let info = &rules.table[j.c.slot];
                JsonRule {
                    name: String::from_utf8_lossy(&info.name).into_owned(),
                    file: &supp_files[info.file].shown,
                    line: info.line,
                    status: j.c.status.as_str(),
                    hits: j.c.hits,
                    hits_max: j.c.hits_max,
                    valgrind_count: j.c.counted,
                    logs_used: j.c.logs_used,
                    logs_exercised: j.c.logs_exercised,
                    expired: j.expired.is_some(),
                    keep: j.keep.as_deref(),
                    removed: j.remove.is_some() && written,
                    reason: &j.c.reason,
                }
            })
            .collect(),
        logs: evidence
            .iter()
            .map(|l| JsonLog {
                log: &l.name,
                sha256: l.sha256.as_deref(),
                valgrind: l.valgrind.as_deref(),
                commands: &l.commands,
                options: &l.options,
                suppression_files: l
                    .suppression_files
                    .iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect(),
                environment: &l.environment,
                objects: l.objects.len(),
                errors: l.errors,
                gaps: l.gaps.iter().map(|g| g.as_str()).collect(),
            })
            .collect(),
        written,
    };
    let mut s = serde_json::to_string_pretty(&report).context("serializing the report")?;
    s.push('\n');
    Ok(s)
}
