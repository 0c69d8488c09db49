//! `vgsupp profiles list|show`: the curated packs compiled into the binary.

use anyhow::Result;

use crate::cli::args::ProfilesCommand;
use crate::cli::exit::Exit;
use crate::cli::output::Output;
use vgsupp::packs::{self, PACKS};

pub fn run(cmd: &ProfilesCommand, out: &Output) -> Result<Exit> {
    match cmd {
        ProfilesCommand::List => out.stdout(&list())?,
        ProfilesCommand::Show { name, sidecar } => {
            let pack = packs::find(name).ok_or_else(|| packs::UnknownPack(name.clone()))?;
            let bytes = if *sidecar { pack.sidecar } else { pack.supp };
            out.stdout(&String::from_utf8_lossy(bytes))?;
        }
    }
    Ok(Exit::Clean)
}

/// One aligned line per pack: name, rule count, description.
fn list() -> String {
    let width = PACKS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut s = format!("{:<width$}  {:>5}  DESCRIPTION\n", "NAME", "RULES");
    for p in &PACKS {
        s.push_str(&format!(
            "{:<width$}  {:>5}  {}\n",
            p.name,
            p.rule_count(),
            p.description
        ));
    }
    s.push_str("\nUse one wherever a suppression file is taken: -s profile:NAME\n");
    s
}
