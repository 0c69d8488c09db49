//! Where text goes: results to stdout, human messages to stderr, colour only when wanted.

use std::io::{IsTerminal as _, Write as _};

use super::args::{ColorChoice, GlobalArgs};

/// The process's output channels and settings.
pub struct Output {
    quiet: bool,
    verbose: bool,
    color: bool,
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

    /// Write a result to stdout (ignoring a closed pipe).
    pub fn stdout(&self, s: &str) {
        let mut lock = std::io::stdout().lock();
        let _ = lock.write_all(s.as_bytes());
        let _ = lock.flush();
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
}
