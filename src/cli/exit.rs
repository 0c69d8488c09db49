//! Exit codes: 0 clean, 1 findings, 2 could not run (I/O, usage).

/// What a command concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Nothing to report.
    Clean,
    /// Findings at error level (or files that `fmt --check` would change).
    Findings,
    /// The command could not run.
    Error,
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        Self::from(match e {
            Exit::Clean => 0,
            Exit::Findings => 1,
            Exit::Error => 2,
        })
    }
}
