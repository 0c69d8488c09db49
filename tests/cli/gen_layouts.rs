//! `gen` on small programs with planted first-party bugs, in the layouts where it used to
//! write rules that hid them (issue 14, items 1 and 2), built and recorded here under the
//! real Valgrind: the rules are given back to Valgrind, and every planted bug must still
//! be reported. Sources: `tests/valgrind-layouts/` (each bug's line says `BUG`).
//!
//! The third-party code is a vendor library and its host program, declared in the test's
//! `vgsupp.yaml` as the profile `vendor`; first-party code lives under the project
//! directory.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use vgsupp::logs::detect;
use vgsupp::logs::record::LogItem;

use crate::common::{repo, valgrind_available, vgsupp};

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (the layouts need gcc, g++ and valgrind)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn say(msg: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{msg}");
}

fn source(name: &str) -> PathBuf {
    repo(&format!("tests/valgrind-layouts/{name}"))
}

/// The planted bugs of some sources: (file name, line) of every line that says `BUG`.
fn bugs(files: &[&str]) -> BTreeSet<(String, u32)> {
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(source(f)).expect("source");
        for (i, line) in text.lines().enumerate() {
            if line.contains("BUG") {
                out.insert(((*f).to_owned(), u32::try_from(i + 1).expect("line")));
            }
        }
    }
    assert!(!out.is_empty(), "{files:?} plant no bug");
    out
}

/// Every (file name, line) a log's errors show in their stacks — and, for a loss record,
/// `("N bytes", 0)`, which names a leak whose frames a log cannot show (an unloaded
/// plugin's) — and the functions shown.
fn shown(log: &Path) -> (BTreeSet<(String, u32)>, BTreeSet<String>) {
    let (_, items) = detect::read_all(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let mut at = BTreeSet::new();
    let mut functions = BTreeSet::new();
    for item in items {
        let LogItem::Error(e) = item else { continue };
        if let Some(l) = e.leak {
            at.insert((format!("{} bytes", l.bytes), 0));
        }
        for f in e.stack.iter() {
            if let (Some(file), Some(line)) = (f.file, f.line) {
                let name = file.rsplit(|&b| b == b'/').next().unwrap_or(file);
                at.insert((String::from_utf8_lossy(name).into_owned(), line));
            }
            if let Some(fun) = f.fun {
                functions.insert(String::from_utf8_lossy(fun).into_owned());
            }
        }
    }
    (at, functions)
}

/// The vendor's library and host, and the project directory with its `vgsupp.yaml`.
struct Lab {
    _dir: tempfile::TempDir,
    /// Numbers the rule files written, so that no run writes onto another's.
    runs: std::cell::Cell<u32>,
    vendor: PathBuf,
    project: PathBuf,
    logs: PathBuf,
}

impl Lab {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tmp");
        // Valgrind prints objects by their resolved paths.
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let vendor = root.join("vendor");
        let project = root.join("proj");
        let logs = root.join("logs");
        for d in [
            &vendor,
            &project.join("src"),
            &project.join("widget"),
            &project.join("build"),
            &logs,
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        // The vendor's code: -O0 (its leak must survive), symbols but no debug info.
        run(Command::new("gcc")
            .args(["-O0", "-fPIC", "-shared", "-o"])
            .arg(vendor.join("libvendor.so"))
            .arg(source("vendor.c")));
        run(Command::new("gcc")
            .args(["-O0", "-o"])
            .arg(vendor.join("host"))
            .arg(source("host.c"))
            .arg("-L")
            .arg(&vendor)
            .arg(format!("-Wl,-rpath,{}", vendor.display()))
            .args(["-lvendor", "-ldl"]));
        std::fs::write(
            project.join("vgsupp.yaml"),
            "profiles:\n  - name: vendor\n    objects: [\"libvendor.so*\", \"**/vendor/host\"]\n",
        )
        .expect("vgsupp.yaml");
        Self {
            _dir: dir,
            runs: std::cell::Cell::new(0),
            vendor,
            project,
            logs,
        }
    }

    /// Compile first-party `sources` (copied to `dir` under the project) into
    /// `build/OBJECT`, -O0 -g, from the project directory as a build system does.
    fn build(&self, object: &str, dir: &str, sources: &[&str]) -> PathBuf {
        let mut rel = Vec::new();
        for s in sources {
            let to = self.project.join(dir).join(s);
            std::fs::copy(source(s), &to).expect("copy");
            rel.push(format!("{dir}/{s}"));
        }
        let out = self.project.join("build").join(object);
        let cc = if sources.iter().any(|s| s.ends_with(".cpp")) {
            "g++"
        } else {
            "gcc"
        };
        run(Command::new(cc)
            .current_dir(&self.project)
            .args(["-O0", "-g", "-fPIC", "-shared", "-o"])
            .arg(&out)
            .args(&rel)
            .arg("-L")
            .arg(&self.vendor)
            .arg("-lvendor"));
        out
    }

    /// Run the host on `plugin` under Valgrind into `logs/NAME` (XML when the name ends
    /// in `.xml`), with `extra` options; `close` unloads the plugin before exit.
    fn record(&self, name: &str, plugin: &Path, close: bool, extra: &[&str]) -> PathBuf {
        let log = self.logs.join(name);
        let mut args: Vec<OsString> = vec![
            "--leak-check=full".into(),
            "--show-leak-kinds=all".into(),
            "--gen-suppressions=all".into(),
            "--num-callers=30".into(),
        ];
        if name.ends_with(".xml") {
            args.push("--xml=yes".into());
            args.push(format!("--xml-file={}", log.display()).into());
            args.push(format!("--log-file={}.txt", log.display()).into());
        } else {
            args.push(format!("--log-file={}", log.display()).into());
        }
        args.extend(extra.iter().map(OsString::from));
        let mut cmd = Command::new("valgrind");
        cmd.current_dir(&self.project)
            .env("LC_ALL", "C")
            .args(args)
            .arg(self.vendor.join("host"))
            .arg(plugin);
        if close {
            cmd.arg("close");
        }
        run(&mut cmd);
        log
    }

    /// `vgsupp gen LOG -o OUT ARGS…` from the project directory: its exit code and JSON.
    fn generate(&self, log: &Path, out: &Path, args: &[&str]) -> (i32, Option<Value>, String) {
        let o = vgsupp()
            .current_dir(&self.project)
            .arg("gen")
            .arg(log)
            .arg("-o")
            .arg(out)
            .args(["--format", "json"])
            .args(args)
            .output()
            .expect("run gen");
        let json = serde_json::from_slice(&o.stdout).ok();
        (
            o.status.code().unwrap_or(-1),
            json,
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }
}

/// How a layout's log is recorded.
#[derive(Clone, Copy, Debug)]
enum Rec {
    Text,
    Verbose,
    Xml,
}

impl Rec {
    fn name(self, layout: &str) -> String {
        match self {
            Self::Text => format!("{layout}.txt"),
            Self::Verbose => format!("{layout}-v.txt"),
            Self::Xml => format!("{layout}.xml"),
        }
    }

    fn extra(self) -> &'static [&'static str] {
        match self {
            Self::Verbose => &["-v"],
            _ => &[],
        }
    }
}

/// What `gen` is expected to do with a layout's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Write rules; every planted bug is kept or reviewed.
    Rules,
    /// Exit 2, nothing written: no frame is first-party.
    NoFirstParty,
}

/// Record `layout` as `rec`, run `gen` with `args`, give the rules back to Valgrind, and
/// check that every planted bug is still reported and that the vendor's own leak is gone.
#[allow(clippy::too_many_arguments)]
fn check(
    lab: &Lab,
    layout: &str,
    plugin: &Path,
    close: bool,
    planted: &BTreeSet<(String, u32)>,
    rec: Rec,
    args: &[&str],
    expect: Expect,
) {
    let log = lab.record(&rec.name(layout), plugin, close, rec.extra());
    let (before, _) = shown(&log);
    assert!(
        planted.is_subset(&before),
        "{layout} {rec:?}: the recording lacks planted bugs: {:?}",
        planted.difference(&before).collect::<Vec<_>>()
    );
    let n = lab.runs.get() + 1;
    lab.runs.set(n);
    let tag = format!("{n:02}");
    let out = lab.logs.join(format!("{layout}-{rec:?}-{tag}.supp"));
    let (code, json, err) = lab.generate(&log, &out, args);
    match expect {
        Expect::NoFirstParty => {
            assert_eq!(code, 2, "{layout} {rec:?} {args:?}: {err}");
            assert!(
                err.contains("no frame of these logs is first-party"),
                "{err}"
            );
            assert!(
                !out.exists(),
                "{layout} {rec:?} {args:?}: nothing is written"
            );
            say(&format!(
                "{layout} {rec:?} {args:?}: no first-party frame: exit 2, nothing written"
            ));
            return;
        }
        Expect::Rules => assert_eq!(code, 0, "{layout} {rec:?} {args:?}: {err}"),
    }
    let json = json.expect("json");
    let rules = json["rules"].as_array().expect("rules").len();
    assert!(rules > 0, "{layout} {rec:?}: the vendor's leak gets a rule");
    // Every row at a planted line is kept or reviewed, never suppressed.
    for row in json["errors"].as_array().expect("errors") {
        if let Some(loc) = row["location"].as_str()
            && planted.iter().any(|(f, l)| loc == format!("{f}:{l}"))
        {
            assert_ne!(row["verdict"], "suppress", "{layout} {rec:?}: {row}");
        }
    }
    let again = lab.record(
        &format!("{layout}-{rec:?}-{tag}-again.txt"),
        plugin,
        close,
        &[&format!("--suppressions={}", out.display())],
    );
    let (after, functions) = shown(&again);
    let hidden: Vec<_> = planted.difference(&after).collect();
    assert!(
        hidden.is_empty(),
        "{layout} {rec:?} {args:?}: the generated rules hide planted bugs {hidden:?}\n{}",
        std::fs::read_to_string(&out).unwrap_or_default()
    );
    assert!(
        !functions.contains("vendor_init"),
        "{layout} {rec:?}: the vendor's own leak is suppressed"
    );
    let kept = json["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter(|r| r["verdict"] == "keep")
        .count();
    let review = json["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter(|r| r["verdict"] == "review")
        .count();
    say(&format!(
        "{layout} {rec:?} {args:?}: {kept} kept, {review} reviewed, {rules} rules; Valgrind with them still shows all {} planted bugs",
        planted.len()
    ));
}

/// Layout 1: `libmy_ext.so` from `my_ext.c` and `helpers.c`, the glob naming `my_ext`; and
/// item 2's vendor case: a first-party leak through the vendor's public allocator, which
/// the vendor's own leak shares its static allocator with.
#[test]
fn a_library_of_several_sources_and_a_vendor_allocator() {
    if !valgrind_available() {
        say("gen_layouts: skipped: valgrind is not installed");
        return;
    }
    let lab = Lab::new();
    let lib = lab.build("libmy_ext.so", "src", &["my_ext.c", "helpers.c"]);
    let planted = bugs(&["my_ext.c", "helpers.c"]);
    for rec in [Rec::Text, Rec::Verbose, Rec::Xml] {
        for style in ["anchored", "object", "exact"] {
            check(
                &lab,
                "several-sources",
                &lib,
                false,
                &planted,
                rec,
                &["--first-party", "*my_ext*", "--style", style],
                Expect::Rules,
            );
        }
    }
}

/// Layout 2: an extension whose object (`my_ext.cpython-311-…so`) is named unlike its source.
#[test]
fn an_object_named_unlike_its_source() {
    if !valgrind_available() {
        say("gen_layouts: skipped: valgrind is not installed");
        return;
    }
    let lab = Lab::new();
    let ext = lab.build(
        "my_ext.cpython-311-x86_64-linux-gnu.so",
        "src",
        &["ext.cpp"],
    );
    let planted = bugs(&["ext.cpp"]);
    // The object's name: the XML log shows it for every frame.
    check(
        &lab,
        "renamed",
        &ext,
        false,
        &planted,
        Rec::Xml,
        &["--first-party", "my_ext*"],
        Expect::Rules,
    );
    // A text log hides it: nothing is first-party, and gen says so.
    check(
        &lab,
        "renamed",
        &ext,
        false,
        &planted,
        Rec::Text,
        &["--first-party", "my_ext*"],
        Expect::NoFirstParty,
    );
    check(
        &lab,
        "renamed",
        &ext,
        false,
        &planted,
        Rec::Verbose,
        &["--first-party", "my_ext*"],
        Expect::NoFirstParty,
    );
    // Told the logs have none: what it cannot place is reviewed, not suppressed.
    check(
        &lab,
        "renamed",
        &ext,
        false,
        &planted,
        Rec::Text,
        &["--no-first-party"],
        Expect::Rules,
    );
    // Naming the source too decides the text log.
    check(
        &lab,
        "renamed",
        &ext,
        false,
        &planted,
        Rec::Text,
        &["--first-party", "my_ext*", "--first-party", "ext.cpp"],
        Expect::Rules,
    );
}

/// Layout 3: a source under `widget/` in `libgui.so`, text and XML, with globs on the
/// source's name and on its directory.
#[test]
fn sources_by_name_and_by_directory_in_text_and_xml() {
    if !valgrind_available() {
        say("gen_layouts: skipped: valgrind is not installed");
        return;
    }
    let lab = Lab::new();
    let gui = lab.build("libgui.so", "widget", &["widget.c"]);
    let planted = bugs(&["widget.c"]);
    for rec in [Rec::Text, Rec::Xml] {
        check(
            &lab,
            "widget",
            &gui,
            false,
            &planted,
            rec,
            &["--first-party", "widget*"],
            Expect::Rules,
        );
    }
    // A directory: XML gives every source's directory; a text log only the file name.
    for glob in ["**/widget/**", "widget/"] {
        check(
            &lab,
            "widget",
            &gui,
            false,
            &planted,
            Rec::Xml,
            &["--first-party", glob],
            Expect::Rules,
        );
        check(
            &lab,
            "widget",
            &gui,
            false,
            &planted,
            Rec::Text,
            &["--first-party", glob],
            Expect::NoFirstParty,
        );
    }
    // Relative to the project directory (where vgsupp.yaml is).
    check(
        &lab,
        "widget",
        &gui,
        false,
        &planted,
        Rec::Xml,
        &["--first-party", "widget/*.c"],
        Expect::Rules,
    );
}

/// Layout 4: a first-party plugin that the host unloads before the leak check.
#[test]
fn a_plugin_unloaded_before_the_leak_check() {
    if !valgrind_available() {
        say("gen_layouts: skipped: valgrind is not installed");
        return;
    }
    let lab = Lab::new();
    let plugin = lab.build("plugin.so", "src", &["plugin.c"]);
    // Unloaded before the leak check, its frames are `???`: its two leaks are told by
    // their sizes (57 and 58 bytes, plugin.c's `BUG` line).
    assert_eq!(bugs(&["plugin.c"]).len(), 1);
    let planted: BTreeSet<(String, u32)> =
        [("57 bytes".to_owned(), 0), ("58 bytes".to_owned(), 0)].into();
    // Without -v nothing says what the `???` frames were: no frame is first-party.
    check(
        &lab,
        "unloaded",
        &plugin,
        true,
        &planted,
        Rec::Text,
        &["--first-party", "plugin*"],
        Expect::NoFirstParty,
    );
    check(
        &lab,
        "unloaded",
        &plugin,
        true,
        &planted,
        Rec::Xml,
        &["--first-party", "plugin*"],
        Expect::NoFirstParty,
    );
    // … and told there is none, they are reviewed, not suppressed.
    for rec in [Rec::Text, Rec::Xml] {
        check(
            &lab,
            "unloaded",
            &plugin,
            true,
            &planted,
            rec,
            &["--no-first-party"],
            Expect::Rules,
        );
    }
    // -v lists the unload: the frames are the plugin's.
    check(
        &lab,
        "unloaded",
        &plugin,
        true,
        &planted,
        Rec::Verbose,
        &["--first-party", "plugin*"],
        Expect::Rules,
    );
}

/// Layout 5: globs that match nothing, typed the ways users type them.
#[test]
fn globs_that_match_nothing() {
    if !valgrind_available() {
        say("gen_layouts: skipped: valgrind is not installed");
        return;
    }
    let lab = Lab::new();
    let lib = lab.build("libprog.so", "src", &["prog.c", "lib.c"]);
    let planted = bugs(&["prog.c", "lib.c"]);
    for glob in ["libmy_lib.so", "my_lib*", "out/*", "/nowhere/**"] {
        for rec in [Rec::Text, Rec::Xml] {
            check(
                &lab,
                "nothing",
                &lib,
                false,
                &planted,
                rec,
                &["--first-party", glob],
                Expect::NoFirstParty,
            );
        }
    }
    // `build/*` is relative to the project directory: it matches the object, which the
    // XML log shows and the text log hides.
    check(
        &lab,
        "nothing",
        &lib,
        false,
        &planted,
        Rec::Xml,
        &["--first-party", "build/*"],
        Expect::Rules,
    );
    check(
        &lab,
        "nothing",
        &lib,
        false,
        &planted,
        Rec::Text,
        &["--first-party", "build/*"],
        Expect::NoFirstParty,
    );
    // The default: the project directory. XML shows the objects under it.
    check(
        &lab,
        "nothing",
        &lib,
        false,
        &planted,
        Rec::Xml,
        &[],
        Expect::Rules,
    );
}
