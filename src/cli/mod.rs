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
            out.error(&causes(&err));
            Exit::Error.into()
        }
    }
}

/// An error and its causes on one line, `: `-separated, each stated once: an error whose
/// message already ends with its cause (`{path}: {source}`, and also returning that
/// source) would otherwise print the cause twice (`… Is a directory (os error 21): Is a
/// directory (os error 21)`).
fn causes(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let said = cause.to_string();
        if said.is_empty() || text.ends_with(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::causes;

    #[test]
    fn each_cause_is_said_once() {
        // What `std::fs::read` of a directory gives, under an error type that prints its
        // source and also returns it, under a context.
        #[derive(Debug, thiserror::Error)]
        #[error("{path}: {source}")]
        struct Both {
            path: String,
            source: std::io::Error,
        }
        let io = std::io::Error::from_raw_os_error(21);
        let shown = io.to_string();
        let err = anyhow::Error::new(Both {
            path: "out.supp".to_owned(),
            source: io,
        })
        .context("cannot write `out.supp`");
        assert_eq!(
            causes(&err),
            format!("cannot write `out.supp`: out.supp: {shown}")
        );
        assert_eq!(
            format!("{err:#}").matches(&shown).count(),
            2,
            "anyhow's own"
        );
        // Distinct causes are all kept.
        let err = anyhow::anyhow!("inner").context("outer");
        assert_eq!(causes(&err), "outer: inner");
    }
}
