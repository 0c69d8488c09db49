//! `vgsupp.yaml` at the command line's edge: which file (`--config`, `--no-config`, else
//! found upward from the working directory), its warnings on stderr, and the settings
//! every command resolves the same way (flag > config > default).

use std::path::Path;

use anyhow::{Context as _, Result};

use super::args::GlobalArgs;
use super::output::Output;
use vgsupp::config::{self, Config, Layer, Resolved};

/// The config in force, if any. An unreadable or invalid file stops the command.
pub fn load(global: &GlobalArgs, cwd: &Path, out: &Output) -> Result<Option<Config>> {
    if global.no_config {
        return Ok(None);
    }
    let path = match &global.config {
        Some(p) => p.clone(),
        None => match config::discover(cwd) {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let bytes =
        std::fs::read(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
    // Absolute, so that the project directory (the config's) is one whatever the path
    // given: `--config vgsupp.yaml` names the working directory, not "".
    let config = config::decode(&bytes, &cwd.join(&path))
        .with_context(|| format!("invalid config `{}`", path.display()))?;
    for w in &config.warnings {
        out.status(&format!("vgsupp: warning: {}: {w}", path.display()));
    }
    Ok(Some(config))
}

/// Resolve a command's flags over the config; with `-v`, say what is in force and why.
pub fn resolve(flags: &Layer, config: Option<&Config>, cwd: &Path, out: &Output) -> Resolved {
    let resolved = Resolved::resolve(flags, config, cwd);
    if let Some(p) = &resolved.config {
        out.verbose(&format!("config: {}", p.display()));
    }
    for line in resolved.describe() {
        out.verbose(&format!("  {line}"));
    }
    resolved
}

/// `--valgrind` as typed, parsed.
pub fn version_flag(flag: Option<&String>) -> Result<Option<vgsupp::supp::Version>> {
    flag.map(|v| v.parse().context("invalid --valgrind"))
        .transpose()
}
