//! `vgsupp fmt`: canonical formatting in place, or `--check`/`--diff`.

use anyhow::Result;

use crate::cli::args::FmtArgs;
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::supp::format_source;

pub fn run(args: &FmtArgs, out: &Output) -> Result<Exit> {
    let paths = files::collect(&args.walk.paths, &args.walk.globs)?;
    let write = !args.check && !args.diff;
    let mut changed = 0_usize;
    for path in &paths {
        let name = files::display(path);
        let source = files::read(path)?;
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
            out.stdout(&unified_diff(&name, &source, &formatted));
            if args.check {
                out.status(&format!("would reformat {name}"));
            }
        }
    }
    let total = paths.len();
    let verb = if write { "formatted" } else { "would reformat" };
    out.status(&format!(
        "{verb} {changed} of {total} file{}",
        if total == 1 { "" } else { "s" }
    ));
    Ok(if args.check && changed > 0 {
        Exit::Findings
    } else {
        Exit::Clean
    })
}

/// A unified diff (3 lines of context) of a file's formatting; bytes that are not UTF-8 are
/// shown lossily.
fn unified_diff(name: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let (a, b) = if name.starts_with('/') {
        (name.to_owned(), name.to_owned())
    } else {
        (format!("a/{name}"), format!("b/{name}"))
    };
    let mut s = diff
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}
