//! `vgsupp fmt`: canonical formatting in place, or `--check`/`--diff`. A binary file
//! (`vgsupp::supp::binary`) is never rewritten nor diffed: it is named as an error, the
//! other files are still formatted, and the run exits 2.

use anyhow::Result;

use crate::cli::args::FmtArgs;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;
use vgsupp::supp::{binary, format_source};

pub fn run(args: &FmtArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    let paths = files::collect(&args.walk.paths, &settings.suppressions.value)?;
    let write = !args.check && !args.diff;
    let mut changed = 0_usize;
    let mut refused = 0_usize;
    for path in &paths {
        let name = files::display(path);
        let source = files::read(path)?;
        if let Some(found) = binary::detect(&source) {
            // Formatting changes whitespace around the lines Valgrind reads; in a binary
            // file those bytes are data, and Valgrind refuses or ignores it either way.
            out.error(&format!(
                "{name}: {found}, not a suppression file: not formatted (see `vgsupp check {name}`)"
            ));
            refused += 1;
            continue;
        }
        let formatted = format_source(&source);
        if formatted == source {
            out.verbose(&format!("unchanged {name}"));
            continue;
        }
        changed += 1;
        if write {
            files::write_atomic(path, &formatted)?;
            out.status(&format!("formatted {name}"));
        } else {
            out.stdout(&files::unified_diff(&name, &source, &formatted))?;
            if args.check {
                out.status(&format!("would reformat {name}"));
            }
        }
    }
    out.status(&summary(write, changed, paths.len() - refused));
    Ok(if refused > 0 {
        Exit::Error
    } else if args.check && changed > 0 {
        Exit::Findings
    } else {
        Exit::Clean
    })
}

/// The last status line: what changed, or that nothing had to.
fn summary(write: bool, changed: usize, total: usize) -> String {
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    if changed == 0 {
        return format!("{} already formatted", files(total));
    }
    let verb = if write { "formatted" } else { "would reformat" };
    format!("{verb} {changed} of {}", files(total))
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summary_lines() {
        assert_eq!(summary(false, 0, 1), "1 file already formatted");
        assert_eq!(summary(true, 0, 3), "3 files already formatted");
        assert_eq!(summary(false, 1, 1), "would reformat 1 of 1 file");
        assert_eq!(summary(true, 2, 5), "formatted 2 of 5 files");
    }
}
