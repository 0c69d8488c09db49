//! One module per command; each takes resolved options and returns an [`Exit`].

mod check;
mod fmt;
mod r#gen;
mod matching;

use anyhow::Result;
use clap::CommandFactory as _;

use super::args::{Cli, Command};
use super::exit::Exit;
use super::output::Output;

/// Run the command the user chose.
pub fn dispatch(cli: Cli, out: &Output) -> Result<Exit> {
    match cli.command {
        Command::Fmt(a) => fmt::run(&a, out),
        Command::Check(a) => check::run(&a, out),
        Command::Match(a) => matching::run(&a, out),
        Command::Gen(a) => r#gen::run(&a, out),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "vgsupp", &mut buf);
            out.stdout(&String::from_utf8_lossy(&buf))?;
            Ok(Exit::Clean)
        }
    }
}
