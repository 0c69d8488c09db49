//! The command-line edge: arguments, configuration, I/O, output and exit codes. Only this
//! module prints or exits.

mod args;
mod clock;
mod commands;
mod exit;
mod files;
mod output;
mod settings;

use clap::Parser as _;

pub use exit::Exit;

/// Parse the command line, run the command and map the outcome to an exit code.
pub fn run() -> std::process::ExitCode {
    let args = match args::Cli::try_parse() {
        Ok(a) => a,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Error.into()
            } else {
                Exit::Clean.into()
            };
        }
    };
    let out = output::Output::new(&args.global);
    match commands::dispatch(args, &out) {
        Ok(code) => code.into(),
        Err(err) => {
            out.error(&format!("{err:#}"));
            Exit::Error.into()
        }
    }
}
