//! What `gen` and `gate` (and `run`, through them) set up the same way before reading a
//! log: the logs and their names, the release and depth the rules are loaded as (the
//! logs' own unless the user set them), whose code is first-party, and the options of
//! gen's verdicts.

use std::path::PathBuf;

use anyhow::{Context as _, Result};

use crate::cli::args::UnknownArg;
use crate::cli::files;
use vgsupp::config::{Origin, Resolved};
use vgsupp::r#gen::{GenOptions, Style};
use vgsupp::origin::{FirstParty, UnknownCode};
use vgsupp::replay::recorded;
use vgsupp::supp::Version;

/// The logs a command reads.
pub struct Logs {
    /// The files, directories walked.
    pub paths: Vec<PathBuf>,
    /// Each as shown to the user.
    pub names: Vec<String>,
    /// What their preambles say together: the oldest release and the deepest stack.
    pub recorded: recorded::Combined,
}

impl Logs {
    /// The logs of `args` (files, or directories walked); each must open, so that a
    /// missing one stops the command before any work.
    ///
    /// # Errors
    /// When none is found or one cannot be opened.
    pub fn collect(args: &[PathBuf]) -> Result<Self> {
        let paths = files::collect_logs(args)?;
        if paths.is_empty() {
            anyhow::bail!("no logs found in the paths given");
        }
        for p in &paths {
            std::fs::File::open(p).with_context(|| format!("cannot read `{}`", p.display()))?;
        }
        let names = paths.iter().map(|p| files::display(p)).collect();
        let recorded =
            recorded::Combined::of(&paths.iter().map(|p| recorded::read(p)).collect::<Vec<_>>());
        Ok(Self {
            paths,
            names,
            recorded,
        })
    }

    /// The paths, borrowed.
    pub fn path_refs(&self) -> Vec<&std::path::Path> {
        self.paths.iter().map(PathBuf::as_path).collect()
    }

    /// The release the rules are read as: the one the user chose (flag or vgsupp.yaml),
    /// else the logs' oldest, else the default.
    pub fn version(&self, settings: &Resolved) -> Version {
        self.given_version(settings)
            .or(self.recorded.version)
            .unwrap_or_default()
    }

    /// The release the user chose, if any.
    pub fn given_version(&self, settings: &Resolved) -> Option<Version> {
        (settings.valgrind.origin != Origin::Default).then_some(settings.valgrind.value)
    }

    /// The depth the rules are cut to: `--num-callers`, else the logs' deepest, else
    /// Valgrind's default.
    pub fn num_callers(&self, flag: Option<u32>) -> u32 {
        flag.or(self.recorded.num_callers).unwrap_or(12)
    }
}

/// First-party code as resolved: the globs the user declared, else the project.
pub fn first_party(settings: &Resolved) -> FirstParty {
    if settings.first_party.origin == Origin::Default {
        FirstParty::project(&settings.project)
    } else {
        FirstParty::declared(settings.first_party.value.clone())
    }
}

/// `--unknown`.
pub const fn unknown(arg: UnknownArg) -> UnknownCode {
    match arg {
        UnknownArg::Review => UnknownCode::Review,
        UnknownArg::Suppress => UnknownCode::Suppress,
    }
}

/// Gen's options for these logs; provenance (owner, expiry, command) is left unset.
pub fn options(
    logs: &Logs,
    settings: &Resolved,
    first_party: FirstParty,
    unknown_arg: UnknownArg,
    style: Style,
    num_callers: Option<u32>,
) -> GenOptions {
    GenOptions {
        first_party,
        profiles: settings.profiles.clone(),
        project: Some(settings.project.clone()),
        unknown: unknown(unknown_arg),
        style,
        version: logs.version(settings),
        num_callers: logs.num_callers(num_callers),
        owner: None,
        expires_in: None,
        command: None,
    }
}
