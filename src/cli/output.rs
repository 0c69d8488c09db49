//! Where text goes: results to stdout, human messages to stderr, colour only when wanted.

use std::io::{IsTerminal as _, Write as _};

use anyhow::Result;

use super::args::{ColorChoice, GlobalArgs};

/// The process's output channels and settings.
pub struct Output {
    quiet: bool,
    verbose: bool,
    color: bool,
    /// Results go to stderr (a second command's report, under the first's on stdout).
    results_to_stderr: bool,
}

impl Output {
    /// From the global flags and the environment.
    pub fn new(g: &GlobalArgs) -> Self {
        let color = match g.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Self {
            quiet: g.quiet,
            verbose: g.verbose,
            color,
            results_to_stderr: false,
        }
    }

    /// The same settings, with results on stderr: for a command run inside another, whose
    /// report must not mix with the other's on stdout (`run --gen`).
    pub const fn results_on_stderr(&self) -> Self {
        Self {
            quiet: self.quiet,
            verbose: self.verbose,
            color: false,
            results_to_stderr: true,
        }
    }

    /// Whether `-q` was given.
    pub const fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Whether to colour stdout.
    pub const fn color(&self) -> bool {
        self.color
    }

    /// Write a result to stdout.
    ///
    /// A closed pipe (`vgsupp check | head`) is not an error: the reader has all it
    /// wanted, so the rest is dropped quietly and the command ends with its own exit code,
    /// as `match` does. Any other failure (a full disk, `/dev/full`) would leave truncated
    /// output behind an exit code that says all went well, so it is an error (exit 2).
    ///
    /// # Errors
    /// When stdout cannot be written, other than a closed pipe.
    pub fn stdout(&self, s: &str) -> Result<()> {
        if self.results_to_stderr {
            let _ = std::io::stderr().write_all(s.as_bytes());
            return Ok(());
        }
        let mut lock = std::io::stdout().lock();
        match lock.write_all(s.as_bytes()).and_then(|()| lock.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(anyhow::Error::new(e).context("cannot write to stdout"))
            }
            _ => Ok(()),
        }
    }

    /// A status message on stderr, unless `-q`.
    pub fn status(&self, s: &str) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr(), "{s}");
        }
    }

    /// A message on stderr only with `-v`.
    pub fn verbose(&self, s: &str) {
        if self.verbose {
            let _ = writeln!(std::io::stderr(), "{s}");
        }
    }

    /// An error on stderr (always).
    pub fn error(&self, s: &str) {
        let _ = writeln!(std::io::stderr(), "vgsupp: error: {s}");
    }

    /// A warning that must not go unseen, on stderr (even with `-q`).
    pub fn warning(&self, s: &str) {
        let _ = writeln!(std::io::stderr(), "vgsupp: warning: {s}");
    }
}
