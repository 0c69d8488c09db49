//! One module per command; each takes resolved options and returns an [`Exit`].

mod check;
mod fmt;
mod gate;
mod r#gen;
mod matching;
mod profiles;
mod prune;
mod renew;
mod run;
mod verdicts;

use anyhow::{Context as _, Result};
use clap::CommandFactory as _;

use super::args::{Cli, Command};
use super::exit::Exit;
use super::output::Output;
use super::settings;
use vgsupp::config::Layer;

/// Run the command the user chose, with `vgsupp.yaml` layered under its flags.
pub fn dispatch(cli: Cli, out: &Output) -> Result<Exit> {
    if let Command::Completions { shell } = cli.command {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "vgsupp", &mut buf);
        out.stdout(&String::from_utf8_lossy(&buf))?;
        return Ok(Exit::Clean);
    }
    // The packs are compiled in: no settings apply.
    if let Command::Profiles(p) = &cli.command {
        return profiles::run(p, out);
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let config = settings::load(&cli.global, &cwd, out)?;
    let config = config.as_ref();
    let walk_layer = |globs: &[String]| Layer {
        suppressions: (!globs.is_empty()).then(|| globs.to_vec()),
        ..Layer::default()
    };
    match cli.command {
        Command::Fmt(a) => {
            let s = settings::resolve(&walk_layer(&a.walk.globs), config, &cwd, out);
            fmt::run(&a, &s, out)
        }
        Command::Check(a) => {
            let flags = Layer {
                valgrind: settings::version_flag(a.valgrind.as_ref())?,
                expiring_within: a.expiring_within,
                first_party: (!a.first_party.is_empty()).then(|| a.first_party.clone()),
                ..walk_layer(&a.walk.globs)
            };
            let s = settings::resolve(&flags, config, &cwd, out);
            check::run(&a, &s, out)
        }
        Command::Match(mut a) => {
            let flags = Layer {
                valgrind: settings::version_flag(a.valgrind_flag.as_ref())?,
                ..Layer::default()
            };
            let s = settings::resolve(&flags, config, &cwd, out);
            a.valgrind = s.valgrind.value.to_string();
            a.valgrind_origin = Some(s.valgrind.origin.clone());
            matching::run(&a, out)
        }
        Command::Gen(a) => {
            let flags = Layer {
                valgrind: settings::version_flag(a.valgrind.as_ref())?,
                first_party: (!a.first_party.is_empty()).then(|| a.first_party.clone()),
                owner: a.owner.clone(),
                expires_in: a.expires_in,
                ..Layer::default()
            };
            let s = settings::resolve(&flags, config, &cwd, out);
            r#gen::run(&a, &s, out)
        }
        Command::Prune(a) => {
            let flags = Layer {
                valgrind: settings::version_flag(a.valgrind.as_ref())?,
                ..Layer::default()
            };
            let s = settings::resolve(&flags, config, &cwd, out);
            prune::run(&a, &s, out)
        }
        Command::Renew(a) => {
            let s = settings::resolve(&Layer::default(), config, &cwd, out);
            renew::run(&a, &s, out)
        }
        Command::Gate(a) => {
            let flags = Layer {
                valgrind: settings::version_flag(a.valgrind.as_ref())?,
                first_party: (!a.first_party.is_empty()).then(|| a.first_party.clone()),
                owner: a.owner.clone(),
                expires_in: a.expires_in,
                ..gate_layer(
                    &a.suppressions,
                    &a.fail_on,
                    a.baseline.as_ref(),
                    a.source_root.as_ref(),
                    a.allow_incomplete,
                )
            };
            let s = settings::resolve(&flags, config, &cwd, out);
            gate::run(&a, &s, out)
        }
        Command::Run(a) => {
            let flags = Layer {
                first_party: (!a.first_party.is_empty()).then(|| a.first_party.clone()),
                ..gate_layer(
                    &a.suppressions,
                    &a.fail_on,
                    a.baseline.as_ref(),
                    a.source_root.as_ref(),
                    a.allow_incomplete,
                )
            };
            let s = settings::resolve(&flags, config, &cwd, out);
            run::run(&a, &s, out)
        }
        // Handled above, before any config is read.
        Command::Completions { .. } | Command::Profiles(_) => Ok(Exit::Clean),
    }
}

/// The flags of `gate` and `run` that `gate:` of vgsupp.yaml also sets.
fn gate_layer(
    suppressions: &[std::path::PathBuf],
    fail_on: &[String],
    baseline: Option<&std::path::PathBuf>,
    source_root: Option<&std::path::PathBuf>,
    allow_incomplete: bool,
) -> Layer {
    Layer {
        gate_suppressions: (!suppressions.is_empty()).then(|| suppressions.to_vec()),
        fail_on: (!fail_on.is_empty()).then(|| fail_on.to_vec()),
        baseline: baseline.cloned(),
        source_root: source_root.cloned(),
        allow_incomplete: allow_incomplete.then_some(true),
        ..Layer::default()
    }
}
