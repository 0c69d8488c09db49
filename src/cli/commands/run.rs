//! `vgsupp run -- CMD ARGS…`: the seed article's Valgrind command done right once — every
//! option the verdicts need, one XML and one text log per process, the project's rules —
//! then the gate on its logs.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use crate::cli::args::{GateArgs, GenArgs, MatchFormat, RunArgs, StyleArg, UnknownArg};
use crate::cli::exit::Exit;
use crate::cli::files;
use crate::cli::output::Output;
use vgsupp::config::Resolved;

/// The options the verdicts need (PRODUCT.md §2): full leak stacks of every kind, the
/// origins of uninitialised values, deep stacks, every error shown, children followed,
/// the suppression blocks. A child between `fork` and `exec` stays silent: otherwise it
/// writes a second XML document into its parent's file (Valgrind's manual: "the XML from
/// child and parent may become mixed up, which usually makes it useless"); what it runs
/// after `exec` has its own log.
const OPTIONS: [&str; 10] = [
    "--tool=memcheck",
    "--leak-check=full",
    "--show-leak-kinds=all",
    "--track-origins=yes",
    "--num-callers=40",
    "--error-limit=no",
    "--trace-children=yes",
    "--child-silent-after-fork=yes",
    "--gen-suppressions=all",
    "--xml=yes",
];

pub fn run(args: &RunArgs, settings: &Resolved, out: &Output) -> Result<Exit> {
    let Some(program) = args.command.first() else {
        bail!("no command given: vgsupp run [OPTIONS] -- CMD ARGS…");
    };
    let version = match Command::new(&args.valgrind_bin).arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Ok(o) => bail!(
            "`{} --version` failed: {}",
            args.valgrind_bin.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => bail!(
            "cannot run Valgrind (`{}`): {e}; install it (e.g. `apt-get install valgrind`) or give --valgrind-bin",
            args.valgrind_bin.display()
        ),
    };
    let dir = logs_dir(args, settings)?;
    // `--gen OUT` may be one of the rule files (vgsupp.yaml names the file it writes):
    // until it exists, Valgrind and gen go without it, and the gate reads it once written.
    let gen_target = args.r#gen.as_deref().map(absolute);
    let (rule_files, pending): (Vec<PathBuf>, Vec<PathBuf>) = settings
        .gate
        .suppressions
        .value
        .iter()
        .cloned()
        .partition(|p| p.exists() || gen_target.as_ref() != Some(&absolute(p)));
    for p in &pending {
        out.status(&format!(
            "note: {} does not exist yet: --gen writes it, and the gate reads it",
            p.display()
        ));
    }
    let rule_files = &rule_files;
    // The rules, as files Valgrind can read (a pack is written into the logs' directory).
    let (paths, _) = if rule_files.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        files::rule_files(rule_files)?
    };
    let mut supp_files = Vec::new();
    for p in &paths {
        let text = p.to_string_lossy();
        if let Some(pack) = vgsupp::packs::resolve(&text) {
            let pack = pack?;
            let file = dir.join(format!("profile-{}.supp", pack.name));
            std::fs::write(&file, pack.supp)
                .with_context(|| format!("cannot write `{}`", file.display()))?;
            supp_files.push(file);
        } else {
            supp_files.push(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()));
        }
    }
    let mut cmd = Command::new(&args.valgrind_bin);
    cmd.args(OPTIONS);
    let mut xml_file = OsString::from("--xml-file=");
    xml_file.push(dir.join("vg.%p.xml"));
    let mut log_file = OsString::from("--log-file=");
    log_file.push(dir.join("vg.%p.log"));
    cmd.arg(xml_file).arg(log_file);
    for f in &supp_files {
        let mut a = OsString::from("--suppressions=");
        a.push(f);
        cmd.arg(a);
    }
    cmd.args(&args.command);
    if is_python(program) {
        // CPython's own advice for Valgrind: its allocator hides leaks and reads freed
        // arenas on purpose.
        cmd.env("PYTHONMALLOC", "malloc");
    }
    cmd.stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    out.status(&format!(
        "vgsupp run: {version}, logs in {}",
        files::display(&dir)
    ));
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start Valgrind (`{}`)", args.valgrind_bin.display()))?;
    let status = wait_with_progress(&mut child, program, started, out)?;
    // With --xml=yes Valgrind writes its text log only when it has to say something
    // outside the XML (its own crash); an empty one is removed, so that the directory
    // holds only logs (`vgsupp gate DIR` refuses an empty file as no log).
    for text in logs_in(&dir, ".log")? {
        if std::fs::metadata(&text).is_ok_and(|m| m.len() == 0) {
            std::fs::remove_file(&text)
                .with_context(|| format!("cannot remove the empty `{}`", text.display()))?;
        }
    }
    let xml_logs = logs_in(&dir, ".xml")?;
    if xml_logs.is_empty() {
        bail!(
            "Valgrind wrote no log in {} (it failed to start: see its message above; the program exited with {status})",
            dir.display()
        );
    }
    out.status(&format!(
        "the program exited with {status} after {:.1} s; {} {} to gate",
        started.elapsed().as_secs_f64(),
        xml_logs.len(),
        if xml_logs.len() == 1 { "log" } else { "logs" }
    ));
    if let Some(target) = &args.r#gen {
        let gen_args = GenArgs {
            logs: xml_logs.clone(),
            output: Some(target.clone()),
            force: false,
            suppressions: rule_files.clone(),
            first_party: args.first_party.clone(),
            no_first_party: false,
            unknown: UnknownArg::Review,
            style: StyleArg::Anchored,
            owner: None,
            expires_in: None,
            format: MatchFormat::Human,
            valgrind: None,
            num_callers: None,
        };
        // gen's report goes to stderr: stdout is the gate's.
        super::r#gen::run(&gen_args, settings, &out.results_on_stderr())?;
    }
    // The gate reads what --gen wrote (it may have written nothing).
    let mut settings = settings.clone();
    settings
        .gate
        .suppressions
        .value
        .retain(|p| !pending.contains(p) || p.exists());
    let settings = &settings;
    let gate_args = GateArgs {
        logs: xml_logs,
        suppressions: args.suppressions.clone(),
        first_party: args.first_party.clone(),
        fail_on: args.fail_on.clone(),
        baseline: args.baseline.clone(),
        write_baseline: None,
        update_baseline: false,
        owner: None,
        reason: None,
        expires_in: None,
        allow_incomplete: args.allow_incomplete,
        format: args.format,
        output: args.output.clone(),
        source_root: args.source_root.clone(),
        automation_id: args.automation_id.clone(),
        unknown: UnknownArg::Review,
        valgrind: None,
        num_callers: None,
    };
    super::gate::run(&gate_args, settings, out)
}

/// Whether the program is a Python interpreter (`python`, `python3.11`, a venv's).
fn is_python(program: &OsString) -> bool {
    Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| {
            n.strip_prefix("python")
                .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
        })
}

/// `--logs-dir`, else `.vgsupp/runs/DATE-TIME-PID/` in the project; created empty.
fn logs_dir(args: &RunArgs, settings: &Resolved) -> Result<PathBuf> {
    let dir = match &args.logs_dir {
        Some(d) => d.clone(),
        None => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let day = vgsupp::date::Date::from_unix_days(i64::try_from(secs / 86_400)?)
                .context("the system clock is out of range")?;
            let t = secs % 86_400;
            settings.project.join(".vgsupp/runs").join(format!(
                "{day}-{:02}{:02}{:02}-{}",
                t / 3600,
                t / 60 % 60,
                t % 60,
                std::process::id()
            ))
        }
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the logs directory `{}`", dir.display()))?;
    if !logs_in(&dir, ".xml")?.is_empty() {
        bail!(
            "`{}` already holds Valgrind logs: give an empty --logs-dir (the gate would read them too)",
            dir.display()
        );
    }
    Ok(dir)
}

/// The files of `dir` whose name ends with `ext`, sorted.
fn logs_in(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read `{}`", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("vg.") && n.ends_with(ext))
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Wait for the child; on a terminal, a progress line on stderr meanwhile.
fn wait_with_progress(
    child: &mut std::process::Child,
    program: &OsString,
    started: Instant,
    out: &Output,
) -> Result<String> {
    let bar = (!out.is_quiet() && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_message(format!(
            "running {} under Memcheck",
            program.to_string_lossy()
        ));
        b.enable_steady_tick(Duration::from_millis(200));
        b
    });
    let status = child.wait().context("waiting for Valgrind")?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let _ = started;
    Ok(match (status.code(), signal_of(&status)) {
        (Some(c), _) => format!("status {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "an unknown status".to_owned(),
    })
}

#[cfg(unix)]
fn signal_of(s: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt as _;
    s.signal()
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// `p` made absolute (as given, without resolving links), to compare paths typed
/// differently.
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
