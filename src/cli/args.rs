//! What was typed (clap derive). Commands resolve these into their own options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use vgsupp::config::Expiry;

/// Manage Valgrind suppression files exactly as Valgrind reads them: format and lint
/// them, replay logs against them, and generate rules for third-party noise.
#[derive(Debug, Parser)]
#[command(name = "vgsupp", version, long_about = None, propagate_version = true)]
#[command(
    about = "Manage Valgrind suppression files exactly as Valgrind reads them: format and lint them (fmt, check), replay logs against them (match), and generate rules for third-party noise (gen)"
)]
#[command(
    after_help = "Examples:\n  vgsupp check examples/             lint every .supp/.sup file under examples/\n  vgsupp fmt --check suppressions/    fail (exit 1) and show a diff when a file is not formatted\n  vgsupp check --format sarif a.supp  SARIF 2.1.0 for code-scanning uploads\n  vgsupp check --explain VS106        what a diagnostic code means\n  vgsupp match -s a.supp valgrind.log which rule hides each error of the log\n  vgsupp gen valgrind.log --first-party 'my_ext*' -o third-party.supp  \n                                      rules for the errors outside your code\n\nExit codes: 0 clean, 1 findings (errors, or files fmt --check would change), 2 could not run."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Print only findings and errors (no progress or summary on stderr).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more about what is being done.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// When to use colour (`auto`: only on a terminal, and never with NO_COLOR set).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The project's settings file (default: `vgsupp.yaml` in the working directory or the
    /// nearest directory above it). Flags beat it; it beats the defaults.
    #[arg(long, global = true, value_name = "PATH", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Read no `vgsupp.yaml`.
    #[arg(long, global = true)]
    pub no_config: bool,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal without NO_COLOR.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Format suppression files canonically, in place (atomic writes).
    ///
    /// Formatting changes only whitespace and the spelling of valid `match-leak-kinds:`
    /// sets: Valgrind loads exactly the same records from the result.
    Fmt(FmtArgs),
    /// Check suppression files: what Valgrind refuses (VS1xx), silently ignores (VS2xx),
    /// their sidecars' provenance (VS4xx, when `NAME.supp.yaml` exists) and style (VS9xx).
    Check(CheckArgs),
    /// Replay logs against suppression files: which rule (if any) hides each error, with
    /// Valgrind's first-match semantics, and per-rule hit counts.
    Match(MatchArgs),
    /// Write suppressions for the third-party errors of logs, and show the first-party
    /// bugs and what needs review.
    ///
    /// Every error gets a verdict: keep (first-party bug), review (third-party code reached
    /// from first-party code, or what the log leaves undecided) or suppress. Rules are
    /// generalised (version-free object globs, stable API anchors), deduplicated, and
    /// checked with the matcher not to match any kept or reviewed error of the logs
    /// before anything is written. Code it cannot place is reviewed, never suppressed.
    Gen(GenArgs),
    /// Valgrind as a CI gate: exit 1 when an unsuppressed error is first-party (gen's
    /// keep), never on third-party noise; exit 2 when a log misses evidence (cut, killed,
    /// crashed). Reports for people, JSON, SARIF, JUnit, GitHub and GitLab.
    Gate(GateArgs),
    /// Classify every rule from the evidence of logs (used, stale, unverifiable, shadowed,
    /// expired); with --write, remove stale rules byte for byte and retire their
    /// provenance.
    Prune(PruneArgs),
    /// Record a review of rules in their sidecar: a new `expires`, who, why and when.
    Renew(RenewArgs),
    /// Run a command under Memcheck with what the verdicts need, keep its logs, and gate
    /// them (`vgsupp run -s SUPP --first-party GLOB -- python -m pytest tests/`).
    Run(RunArgs),
    /// The curated suppression packs compiled into vgsupp (CUDA, libtorch, CPython, …),
    /// usable wherever a suppression file is taken as `-s profile:NAME`.
    #[command(subcommand)]
    Profiles(ProfilesCommand),
    /// Print shell completions.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `vgsupp profiles`.
#[derive(Debug, Subcommand)]
pub enum ProfilesCommand {
    /// Every pack: its name, rule count and what it covers.
    List,
    /// Print a pack's suppression file (or, with `--sidecar`, its provenance YAML).
    Show {
        /// The pack's name (see `vgsupp profiles list`).
        name: String,
        /// Print the `NAME.supp.yaml` sidecar: each rule's origin, reason and source logs.
        #[arg(long)]
        sidecar: bool,
    },
}

/// Which files to take from the paths given.
#[derive(Debug, Args)]
pub struct WalkArgs {
    /// Files or directories (walked for suppression files). Default: the current directory.
    pub paths: Vec<PathBuf>,
    /// File-name glob for suppression files found in directories (repeatable; replaces
    /// `suppressions:` of vgsupp.yaml, and the default `*.supp` and `*.sup`). Files named
    /// explicitly are always taken.
    #[arg(long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
}

/// `vgsupp fmt`.
#[derive(Debug, Args)]
pub struct FmtArgs {
    #[command(flatten)]
    pub walk: WalkArgs,
    /// Write nothing; exit 1 and print a unified diff for each file that is not formatted.
    #[arg(long)]
    pub check: bool,
    /// Write nothing; print a unified diff for each file that is not formatted.
    #[arg(long)]
    pub diff: bool,
}

/// `vgsupp check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub walk: WalkArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// The Valgrind release whose behaviour to apply (3.14 … 3.27; default: `valgrind:` of
    /// vgsupp.yaml, else 3.27).
    #[arg(long, value_name = "VERSION")]
    pub valgrind: Option<String>,
    /// Report rules whose sidecar `expires` date is this many days away or less (VS404;
    /// default: `sidecar.expiring-within` of vgsupp.yaml, else 14).
    #[arg(long, value_name = "DAYS")]
    pub expiring_within: Option<u32>,
    /// The tool that will read the files (repeatable). Default: every tool each file names.
    #[arg(long, value_enum)]
    pub tool: Vec<ToolArg>,
    /// Valgrind's --num-callers (frames beyond it are dropped at load time).
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=500))]
    pub num_callers: u32,
    /// Do not report style findings (VS9xx).
    #[arg(long)]
    pub no_style: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub strict: bool,
    /// Explain a diagnostic code (e.g. VS106) and exit.
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
    /// A Valgrind log (file or directory, text or XML, gzip; repeatable) to judge the
    /// rules by, as `vgsupp prune` does: stale (VS501), shadowed (VS502) and unverifiable
    /// (VS503) rules.
    #[arg(long, value_name = "PATH")]
    pub logs: Vec<PathBuf>,
    /// The project's own code (repeatable), as for `gen`: rules that match it are VS307.
    /// Default: `first-party:` of vgsupp.yaml (not checked when neither says).
    #[arg(long = "first-party", value_name = "GLOB")]
    pub first_party: Vec<String>,
}

/// `--format` values of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// rustc-like, with source excerpts.
    Human,
    /// The stable JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions annotations (the 10 most severe: GitHub shows 10 per step).
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
}

/// `--tool` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolArg {
    /// Memcheck.
    Memcheck,
    /// Helgrind.
    Helgrind,
    /// DRD.
    Drd,
}

impl ToolArg {
    /// The tool.
    pub const fn tool(self) -> vgsupp::supp::Tool {
        match self {
            Self::Memcheck => vgsupp::supp::Tool::Memcheck,
            Self::Helgrind => vgsupp::supp::Tool::Helgrind,
            Self::Drd => vgsupp::supp::Tool::Drd,
        }
    }
}

/// `vgsupp match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// A suppression file or directory, or `profile:NAME` for a bundled pack (`vgsupp
    /// profiles list`); repeat `-s` for several, in `--suppressions` order.
    #[arg(
        short = 's',
        long = "suppressions",
        value_name = "SUPP",
        required = true
    )]
    pub suppressions: Vec<PathBuf>,
    /// Valgrind logs (text or XML, plain or gzip) or directories of logs.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Output format (human: with `--errors`, one line per error and loss record before
    /// the summary).
    #[arg(long, value_enum, default_value_t = MatchFormat::Human)]
    pub format: MatchFormat,
    /// Also load Valgrind's default.supp after the files given, as Valgrind does unless run
    /// with `--default-suppressions=no` (its rules then come first in the search order).
    #[arg(long)]
    pub default_suppressions: bool,
    /// Where default.supp is (default: the first of /usr/libexec/valgrind/default.supp,
    /// /usr/lib/valgrind/default.supp, /usr/local/libexec/valgrind/default.supp).
    #[arg(long, value_name = "PATH", requires = "default_suppressions")]
    pub default_supp_path: Option<PathBuf>,
    /// Show frame by frame why this rule (name, or FILE:LINE) matches each error or not.
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// The Valgrind release whose loader reads the rules (3.14 … 3.27). Default: the
    /// release that recorded each log (its preamble says), else `valgrind:` of
    /// vgsupp.yaml, else 3.27.
    #[arg(long = "valgrind", value_name = "VERSION")]
    pub valgrind_flag: Option<String>,
    /// The release of flag > vgsupp.yaml > default, set by `commands::dispatch`.
    #[arg(skip)]
    pub valgrind: String,
    /// Where [`MatchArgs::valgrind`] came from, set by `commands::dispatch`.
    #[arg(skip)]
    pub valgrind_origin: Option<vgsupp::config::Origin>,
    /// Valgrind's --num-callers when the logs were recorded (the rules are cut to it).
    /// Default: as each log says (`-v` text logs and XML list it), else 12.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub num_callers: Option<u32>,
    /// The tool that recorded the logs (repeatable): only its loader verdicts decide
    /// whether Valgrind would have run with the files. Default: the tool each log names
    /// (Memcheck where it names none).
    #[arg(long, value_enum)]
    pub tool: Vec<ToolArg>,
    /// Human output: one line per error and loss record before the summary.
    #[arg(long)]
    pub errors: bool,
    /// Replay even when Valgrind would refuse a suppression file, abort on it, or crash on
    /// one of its rules (what `vgsupp check` reports as fatal): the broken records are
    /// skipped and each problem is a warning. Without it, such files stop the run (exit 2).
    #[arg(long)]
    pub keep_going: bool,
}

/// `vgsupp gen`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  vgsupp gen valgrind.log --first-party 'my_ext*' -o third-party.supp\n  vgsupp gen valgrind.xml --first-party 'src/**' --first-party 'libmy_ext.so*'\n  vgsupp gen import-torch.log --no-first-party -o baseline.supp\n  vgsupp gen logs/ -s known.supp --format json\n\nA frame is first-party when its object or its source file matches a --first-party glob; third-party when an origin profile claims its object, source or function; otherwise vgsupp cannot place it, and errors that rest on it are reviewed, never suppressed (--unknown suppress opts in; a profile in vgsupp.yaml claims one library).\n\nGlobs follow .gitignore, ripgrep and fd: a glob without `/` matches the last path component, the file name of an object or a source ('my_ext*' matches my_ext.cpython-311-x86_64-linux-gnu.so and my_ext.cpp; '*.cpp' every C++ source); a glob with `/` matches the whole path or a directory above it: absolute ('/opt/mine/**'), anywhere ('**/src/**'), or else relative to the project directory ('src/**', 'build/lib*.so'). `*` stays within a component, `**` spans components. A text log prints sources by file name only, and hides the object of every frame it prints with a source line: name patterns decide those frames; XML shows every object and every source's directory.\n\nWhen no frame of the logs is first-party, gen writes nothing and exits 2, unless --no-first-party says the logs have none.\n\nWriting (-o): a new OUT.supp is created. An existing one is appended to, as if it were also given with -s: its rules count as existing rules (errors they hide get no rule, new rules they cover are dropped, a name already taken gets a suffix), and its bytes, comments included, stay as they are, the new rules after them; when nothing new is found it is left untouched. --force replaces it instead. Only a regular file is written: a directory, FIFO, socket or device is refused (exit 2); a symlink is followed (the link stays a link, the sidecar goes beside its target), unless it leads out of the project. Everything is checked before anything is written (OUT.supp loads in Valgrind, OUT.supp.yaml reads), and the two files are renamed into place together: if the second rename fails, the first file is put back.\n\nProvenance (OUT.supp.yaml): each rule's origin, reason, owner, created and expires dates, the logs it came from (path relative to the sidecar's directory, SHA-256) and the command with its effective settings."
)]
pub struct GenArgs {
    /// Valgrind logs (text or XML, plain or gzip) or directories of logs.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Write the rules to this file, and their provenance to OUT.supp.yaml beside it (both
    /// or neither; see below). Without it, nothing is written.
    #[arg(short = 'o', long = "output", value_name = "OUT.supp")]
    pub output: Option<PathBuf>,
    /// Replace an existing OUT.supp instead of appending to it: its rules are not read (not
    /// even when -s names it), and the sidecar entries of rules no longer in it move under
    /// `retired:`.
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Existing suppression files (repeatable; `profile:NAME` for a bundled pack): errors
    /// they hide get no rule, and new rules they subsume are dropped.
    #[arg(short = 's', long = "suppressions", value_name = "SUPP")]
    pub suppressions: Vec<PathBuf>,
    /// First-party code (repeatable): a frame is first-party when its object or its source
    /// file matches. A glob without `/` matches a file name (`'my_ext*'`, `'libfoo.so*'`,
    /// `'*.cpp'`); one with `/` the whole path or a directory above it: absolute (`/opt/x/**`),
    /// anywhere (`'**/src/**'`), or else relative to the project directory (`'src/**'`).
    /// `*` stays within a path component, `**` spans them. Text logs show only the file
    /// names of sources: name patterns decide them. Default: `first-party:` of vgsupp.yaml,
    /// else everything under the project directory (where vgsupp.yaml is, else the
    /// working directory), which yields to the built-in profiles.
    #[arg(
        long = "first-party",
        value_name = "GLOB",
        conflicts_with = "no_first_party"
    )]
    pub first_party: Vec<String>,
    /// The logs have no first-party code (a baseline of library noise, e.g. `import
    /// torch`): write rules although no frame is first-party.
    #[arg(long = "no-first-party")]
    pub no_first_party: bool,
    /// What to do with errors that rest on code no glob or profile places (a hidden object,
    /// a `???` frame, a library no profile knows): review them (the default), or suppress
    /// them as `third-party`. Per library, a profile in vgsupp.yaml is the finer choice.
    #[arg(long, value_enum, default_value_t = UnknownArg::Review)]
    pub unknown: UnknownArg,
    /// How general the rules are.
    #[arg(long, value_enum, default_value_t = StyleArg::Anchored)]
    pub style: StyleArg,
    /// Who answers for the rules (recorded in their provenance).
    #[arg(long, value_name = "OWNER")]
    pub owner: Option<String>,
    /// When the rules must be looked at again: in DAYS from today, or `never` (no
    /// `expires` is written). Default: `expires-in:` of vgsupp.yaml, else 90.
    #[arg(long = "expires-in", value_name = "DAYS|never", value_parser = parse_expiry)]
    pub expires_in: Option<Expiry>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MatchFormat::Human)]
    pub format: MatchFormat,
    /// The Valgrind release whose loader reads the rules (3.14 … 3.27; default: the
    /// release that recorded the logs, else 3.27).
    #[arg(long, value_name = "VERSION")]
    pub valgrind: Option<String>,
    /// Valgrind's --num-callers when the logs were recorded (default: as the logs say, or
    /// 12).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub num_callers: Option<u32>,
}

/// `vgsupp gate`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  vgsupp gate logs/ -s profile:cuda -s third-party.supp --first-party 'my_ext*'\n  vgsupp gate vg.xml --first-party 'src/**' --format sarif -o vgsupp.sarif\n  vgsupp gate logs/ --baseline vgsupp-baseline.yaml --format junit -o vgsupp-junit.xml\n\nExit codes: 1 when an unsuppressed first-party error of a failing kind is found (default: every kind except still-reachable leaks; reviewed errors, which may or may not be yours, are warnings unless --fail-on review); 2 when a log misses evidence (cut, killed, crashed, partly unreadable, or Valgrind stopped showing errors) and nothing failed, unless --allow-incomplete; 2 when a log or a file cannot be read; else 0.\n\nAn error a -s rule may hide (the log hides what decides it) counts as not suppressed. Third-party errors no rule hides are reported by origin and kind with the `vgsupp gen` command that would cover them; they never fail the gate. Identical errors (same kind and first-party frames: function, source file name) are folded across processes and logs, with their count.\n\nBaselines: --write-baseline FILE records today's failing errors (count, owner, reason, expires); --baseline FILE makes them pass, count by count (a second identical error is new), until their entry expires; --update-baseline rewrites FILE with fixed errors removed (never from an incomplete log) and adds nothing."
)]
pub struct GateArgs {
    /// Valgrind logs (text or XML, plain or gzip) or directories of logs.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Suppression files (repeatable; `profile:NAME` for a bundled pack): the errors they
    /// hide pass. Default: `gate.suppressions` of vgsupp.yaml.
    #[arg(short = 's', long = "suppressions", value_name = "SUPP")]
    pub suppressions: Vec<PathBuf>,
    /// First-party code (repeatable), as for `gen`: a glob without `/` matches an object's
    /// or a source file's name, one with `/` a path. Default: `first-party:` of
    /// vgsupp.yaml, else everything under the project directory.
    #[arg(long = "first-party", value_name = "GLOB")]
    pub first_party: Vec<String>,
    /// What fails (repeatable, comma-separated): `errors` (every kind that is not a
    /// leak), an error kind (`Addr`, `Value`, `Cond`, `Param`, `Free`, `Overlap`, `Jump`,
    /// …), leak kinds (`definite`, `indirect`, `possible`, `reachable`, `leaks`),
    /// `review` (errors that may be yours fail too), `all`. Default: `gate.fail-on` of
    /// vgsupp.yaml, else `errors,definite,indirect,possible`.
    #[arg(long = "fail-on", value_name = "KIND")]
    pub fail_on: Vec<String>,
    /// Known errors that pass until their entry expires (see below). Default:
    /// `gate.baseline` of vgsupp.yaml.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write today's failing errors to FILE as a baseline (with --owner, --reason,
    /// --expires-in); entries of --baseline keep their owner, reason and expiry.
    #[arg(long = "write-baseline", value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Rewrite the baseline file (--baseline, or `gate.baseline`) with fixed errors
    /// removed and counts lowered; nothing is added. Refused when a log misses evidence.
    #[arg(long = "update-baseline")]
    pub update_baseline: bool,
    /// Who answers for new baseline entries.
    #[arg(long, value_name = "OWNER")]
    pub owner: Option<String>,
    /// Why new baseline entries are accepted.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// When new baseline entries expire: in DAYS from today, or `never`. Default:
    /// `expires-in:` of vgsupp.yaml, else 90.
    #[arg(long = "expires-in", value_name = "DAYS|never", value_parser = parse_expiry)]
    pub expires_in: Option<Expiry>,
    /// Pass (exit 0) on what was read when a log misses evidence and nothing failed
    /// (also `gate.allow-incomplete: true` in vgsupp.yaml).
    #[arg(long = "allow-incomplete")]
    pub allow_incomplete: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = GateFormat::Human)]
    pub format: GateFormat,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The directory report paths are relative to (SARIF, GitLab, GitHub). Default:
    /// `gate.source-root` of vgsupp.yaml, else the git repository's root, else the
    /// project directory.
    #[arg(long = "source-root", value_name = "DIR")]
    pub source_root: Option<PathBuf>,
    /// SARIF `runAutomationDetails.id`: one per configuration, so uploads of several
    /// jobs do not replace each other's alerts (default: `vgsupp/gate/`).
    #[arg(long = "automation-id", value_name = "ID")]
    pub automation_id: Option<String>,
    /// What to do with errors that rest on code no glob or profile places: review them
    /// (the default), or count them as third-party noise.
    #[arg(long, value_enum, default_value_t = UnknownArg::Review)]
    pub unknown: UnknownArg,
    /// The Valgrind release whose loader reads the rules (default: the logs' release).
    #[arg(long, value_name = "VERSION")]
    pub valgrind: Option<String>,
    /// Valgrind's --num-callers when the logs were recorded (default: as the logs say, or
    /// 12).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub num_callers: Option<u32>,
}

/// `vgsupp prune`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  vgsupp prune third-party.supp --logs ci-logs/\n  vgsupp prune suppressions/ --logs cuda12/ --logs cuda13/ --logs cpu/ --write\n  vgsupp prune a.supp --logs logs/ --write --expired --format json\n\nStatuses: used (some log credits the rule, or may: hits..hits_max), stale (nothing matched it in logs that exercised what it targets: its tool ran, a leak search for a leak rule, an object matching each obj: pattern loaded, or for a rule without one the program its provenance names), unverifiable (no log exercised it with whole evidence: never removed), shadowed (it matches errors, but an earlier rule surely took each one), and expired (past `expires` in the sidecar). Logs recorded with the file (`-v` text, XML) give Valgrind's own counts; other logs are replayed, and a rule counts as absent from one only if no error hidden by other rules could have been its. Logs of several environments combine by intersection: a rule used in any is used.\n\nWithout --write nothing is written: the diff --write would apply is printed. --write removes stale rules (and, with --expired, expired ones) with the comment block above each, leaving every other byte as it is (checked by reloading the file as Valgrind does), moves their sidecar entries under `retired:` with the reason and date, and updates `seen:` of used rules; both files are replaced together. A rule whose sidecar entry says `keep: REASON` is never removed. Running it again changes nothing."
)]
pub struct PruneArgs {
    /// Suppression files or directories of them.
    #[arg(required = true, value_name = "SUPP")]
    pub suppressions: Vec<PathBuf>,
    /// Valgrind logs (text or XML, plain or gzip) or directories of logs (repeatable).
    #[arg(long, required = true, num_args = 1.., value_name = "PATH")]
    pub logs: Vec<PathBuf>,
    /// Remove the stale rules (and expired ones with --expired) and update the sidecars.
    #[arg(long)]
    pub write: bool,
    /// Remove expired rules too (with --write; reported either way).
    #[arg(long)]
    pub expired: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = PruneFormat::Human)]
    pub format: PruneFormat,
    /// The Valgrind release whose loader reads the rules (default: the logs' release).
    #[arg(long, value_name = "VERSION")]
    pub valgrind: Option<String>,
    /// Valgrind's --num-callers when the logs were recorded (default: as the logs say, or
    /// 12).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub num_callers: Option<u32>,
}

/// How `prune` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PruneFormat {
    /// One line per rule that is not used, a summary and the diff.
    Human,
    /// One JSON object (PRODUCT.md §2).
    Json,
}

/// `vgsupp renew`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  vgsupp renew cuda-driver.Param.ioctl.cuInit --days 90 --reason 'still seen with driver 550' --owner @ml-infra\n\nThe rules are looked up by name in the suppression files of -s (default: `suppressions:` of vgsupp.yaml under the current directory). Each gets `expires:` today + DAYS and `reviewed: {date, by, reason}` in its sidecar (created when missing); --owner also sets `owner:`, and an entry without a `reason:` takes the review's. A name found in no file, or in several, is refused and nothing is written."
)]
pub struct RenewArgs {
    /// Rule names.
    #[arg(required = true, value_name = "RULE")]
    pub rules: Vec<String>,
    /// Days from today until the rules expire again.
    #[arg(long, required = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=36500))]
    pub days: u32,
    /// Why the rules stay.
    #[arg(long, required = true, value_name = "TEXT")]
    pub reason: String,
    /// Who answers for them from now on (also recorded as the reviewer).
    #[arg(long, value_name = "OWNER")]
    pub owner: Option<String>,
    /// Who reviewed them (default: --owner, else $USER or $LOGNAME).
    #[arg(long, value_name = "WHO")]
    pub by: Option<String>,
    /// Suppression files or directories to look in.
    #[arg(short = 's', long = "suppressions", value_name = "SUPP")]
    pub suppressions: Vec<PathBuf>,
}

/// `vgsupp run`.
#[derive(Debug, Args)]
#[command(
    after_help = "Valgrind runs as: valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all --track-origins=yes --num-callers=40 --error-limit=no --trace-children=yes --child-silent-after-fork=yes --gen-suppressions=all --xml=yes --xml-file=DIR/vg.%p.xml --log-file=DIR/vg.%p.log [--suppressions=FILE…] CMD ARGS…, one XML log per process (and a text log where Valgrind wrote one outside the XML; empty ones are removed, so DIR can be given to `vgsupp gate` as it is). A -s profile:NAME pack is written into DIR for Valgrind to read. PYTHONMALLOC=malloc is set when CMD is Python (CPython's advice for Valgrind). The XML logs are then gated as by `vgsupp gate`, and its exit code is run's; Valgrind missing or failing to start is exit 2."
)]
pub struct RunArgs {
    /// Suppression files (repeatable; `profile:NAME` for a bundled pack): Valgrind reads
    /// them, and the gate counts what they hide as suppressed. Default:
    /// `gate.suppressions` of vgsupp.yaml.
    #[arg(short = 's', long = "suppressions", value_name = "SUPP")]
    pub suppressions: Vec<PathBuf>,
    /// First-party code (repeatable), as for `gate`.
    #[arg(long = "first-party", value_name = "GLOB")]
    pub first_party: Vec<String>,
    /// Where the logs are kept (default: `.vgsupp/runs/DATE-TIME-PID/` in the project).
    #[arg(long = "logs-dir", value_name = "DIR")]
    pub logs_dir: Option<PathBuf>,
    /// Also write rules for the third-party noise no rule hides to this file (as
    /// `vgsupp gen LOGS -o OUT.supp`).
    #[arg(long = "gen", value_name = "OUT.supp")]
    pub r#gen: Option<PathBuf>,
    /// What fails, as for `gate`.
    #[arg(long = "fail-on", value_name = "KIND")]
    pub fail_on: Vec<String>,
    /// Known errors that pass until their entry expires, as for `gate`.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Pass on what was read when a log misses evidence and nothing failed.
    #[arg(long = "allow-incomplete")]
    pub allow_incomplete: bool,
    /// Report format, as for `gate`.
    #[arg(long, value_enum, default_value_t = GateFormat::Human)]
    pub format: GateFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The directory report paths are relative to, as for `gate`.
    #[arg(long = "source-root", value_name = "DIR")]
    pub source_root: Option<PathBuf>,
    /// SARIF `runAutomationDetails.id`, as for `gate`.
    #[arg(long = "automation-id", value_name = "ID")]
    pub automation_id: Option<String>,
    /// The Valgrind program (default: `valgrind` on PATH).
    #[arg(long = "valgrind-bin", value_name = "PATH", default_value = "valgrind")]
    pub valgrind_bin: PathBuf,
    /// The command and its arguments.
    #[arg(required = true, last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// `--format` values of `gate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    /// For people: failures with their stacks, then warnings and noise.
    Human,
    /// The stable JSON contract.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// JUnit XML, one test case per first-party error.
    Junit,
    /// GitHub workflow annotations (the 10 most important) and a Markdown step summary.
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
}

/// `--unknown` values of `gen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnknownArg {
    /// Review errors that rest on code vgsupp cannot place.
    Review,
    /// Suppress them, as the origin `third-party`.
    Suppress,
}

/// `--expires-in DAYS|never`.
fn parse_expiry(s: &str) -> Result<Expiry, String> {
    s.parse()
}

/// `--style` values of `gen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StyleArg {
    /// Every frame as Valgrind's own gen block has it (objects version-free).
    Exact,
    /// The first frame below the allocator pinned, continued to a stable API frame.
    Anchored,
    /// The first frame below the allocator pinned by its object.
    Object,
}

/// `--format` values of `match` and `gen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatchFormat {
    /// For people: a summary of what was found, grouped.
    Human,
    /// The stable JSON contract.
    Json,
}
