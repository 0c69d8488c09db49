//! The `vgsupp` binary: parse arguments, run the command, exit with its code.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
