//! `vgsupp renew`: record a review of rules in their sidecars — a new `expires`, who
//! reviewed them, why, and when — so that an expiring rule is kept on purpose, not by
//! default.

use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::cli::args::RenewArgs;
use crate::cli::clock;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;
use vgsupp::sidecar::store::{self, Staged};
use vgsupp::sidecar::{Review, RuleEntry, Sidecar};
use vgsupp::supp::parse;

pub fn run(args: &RenewArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    let paths: Vec<PathBuf> = if args.suppressions.is_empty() {
        files::collect(
            std::slice::from_ref(&settings.project),
            &settings.suppressions.value,
        )?
    } else {
        files::collect(&args.suppressions, &settings.suppressions.value)?
    };
    // Where each name is defined.
    let mut found: Vec<Vec<usize>> = vec![Vec::new(); args.rules.len()];
    for (fi, path) in paths.iter().enumerate() {
        let parsed = parse(files::read(path)?);
        for r in parsed.records() {
            let Some(name) = r.name(&parsed.source) else {
                continue;
            };
            for (i, want) in args.rules.iter().enumerate() {
                if name == want.as_bytes() && !found[i].contains(&fi) {
                    found[i].push(fi);
                }
            }
        }
    }
    let mut problems = Vec::new();
    for (i, want) in args.rules.iter().enumerate() {
        match found[i].as_slice() {
            [] => problems.push(format!("no rule `{want}` in the suppression files")),
            [_] => {}
            many => problems.push(format!(
                "rule `{want}` is in {} files ({}): renew it with -s naming one",
                many.len(),
                many.iter()
                    .map(|&f| files::display(&paths[f]))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    if !problems.is_empty() {
        bail!("{}; nothing was written", problems.join("; "));
    }
    let today = clock::today()?;
    let Some(expires) = today.add_days(i64::from(args.days)) else {
        bail!("--days {} is out of range", args.days);
    };
    let by = args.by.clone().or_else(|| args.owner.clone()).or_else(|| {
        ["USER", "LOGNAME"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
    });
    let mut staged = Vec::new();
    for (fi, path) in paths.iter().enumerate() {
        let names: Vec<&String> = args
            .rules
            .iter()
            .enumerate()
            .filter(|(i, _)| found[*i] == [fi])
            .map(|(_, n)| n)
            .collect();
        if names.is_empty() {
            continue;
        }
        let side_path = store::path_for(path);
        let mut side = match store::read(&side_path)? {
            Some(d) => d.sidecar,
            None => Sidecar::new(),
        };
        for name in names {
            if side.rule(name).is_none() {
                side.rules.push(RuleEntry::new(name));
            }
            if let Some(e) = side.rule_mut(name) {
                e.expires = Some(expires);
                if let Some(o) = &args.owner {
                    e.owner = Some(o.clone());
                }
                // An entry without a reason takes the review's: why the rule stays.
                if e.reason.is_none() {
                    e.reason = Some(args.reason.clone());
                }
                let r = e.reviewed.get_or_insert_with(Review::default);
                r.date = Some(today);
                r.by.clone_from(&by);
                r.reason = Some(args.reason.clone());
            }
            out.status(&format!(
                "renewed `{name}` until {expires} ({})",
                files::display(&side_path)
            ));
        }
        let text = vgsupp::sidecar::encode(&side)?;
        staged.push(Staged::new(&side_path, text.as_bytes(), &settings.project)?);
    }
    store::commit(staged)?;
    Ok(Exit::Clean)
}
