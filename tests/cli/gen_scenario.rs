//! The stand-in scenario for `vgsupp gen`, recorded with the real Valgrind.
//!
//! `tests/valgrind-gen/` holds small C and C++ sources that stand in for the seed scenario's
//! stack (see the README there): a stripped CUDA driver `…/x86_64-linux-gnu/libcuda.so.<driver>`
//! that the runtime `dlopen`s and unloads again, a stripped runtime
//! `…/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12`, a C++ `…/torch/lib/libc10.so`
//! with namespaces and GCC clones, a first-party extension with four bugs, and an
//! interpreter that loads them as `import torch; import ext` does. [`Scenario::build`]
//! compiles them into a temporary directory at realistic install paths, in two variants
//! ([`A`], [`B`]) with other version numbers and install folders, as an upgrade would;
//! [`Scenario::record`] runs the interpreter under Memcheck.
//!
//! [`INTENDED`] lists every error the scenario makes on purpose, with the verdict `gen` must
//! reach (PRODUCT.md §4); the tests here check that each recording of each variant holds
//! exactly those, where they are meant to be. `gen` is then asserted on the same logs: its
//! rules, given back to Valgrind with [`Scenario::record_with`], must hide every *suppress*
//! error and no *keep* error, on both variants.
//!
//! Skipped when Valgrind is absent (`VGSUPP_REQUIRE_VALGRIND=1` makes that a failure);
//! gcc, g++ and strip are then required.

#![allow(dead_code)] // the helpers are for `gen`'s tests too

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{repo, valgrind_available};
use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, Frame, LogFormat, LogItem};
use vgsupp::supp::model::LeakKind;

/// One build of the stand-in stack: the versions and install folders an upgrade changes.
/// Paths are relative to the scenario's temporary root.
#[derive(Debug)]
pub struct Variant {
    /// A short name (`a`, `b`).
    pub name: &'static str,
    /// The driver version in the library's file name (`libcuda.so.535.104.05`).
    pub driver: &'static str,
    /// The folder the driver is installed in.
    pub driver_dir: &'static str,
    /// `STANDIN_DRIVER_VERSION` (`535104`).
    pub driver_number: u32,
    /// `STANDIN_RUNTIME_VERSION` (`12040` for CUDA 12.4).
    pub runtime_number: u32,
    /// The interpreter, as `opt/python/3.11.7/bin/python3.11`.
    pub python: &'static str,
    /// `X.Y`, as in `lib/pythonX.Y/site-packages` and the extension's file name.
    pub python_version: &'static str,
    /// The virtual environment holding torch and the CUDA wheels.
    pub venv: &'static str,
    /// The extension's project folder (its `src/` and `build/lib/`).
    pub project: &'static str,
    /// Flags libc10 is compiled with (they decide GCC's clones).
    pub c10_flags: &'static [&'static str],
}

/// The first build: driver 535, CUDA 12.4, CPython 3.11 from `/opt/python`, a venv in a home.
pub const A: Variant = Variant {
    name: "a",
    driver: "535.104.05",
    driver_dir: "usr/lib/x86_64-linux-gnu",
    driver_number: 535_104,
    runtime_number: 12040,
    python: "opt/python/3.11.7/bin/python3.11",
    python_version: "3.11",
    venv: "home/dev/venv",
    project: "home/dev/standin_ext",
    c10_flags: &["-O2"],
};

/// The second build: driver 550 in a container's driver mount, CUDA 12.8, CPython 3.12
/// from pyenv, the venv and the project elsewhere; libc10 at -O3 with a second
/// specialisation, so the same leak comes from `[clone .constprop.1]`.
pub const B: Variant = Variant {
    name: "b",
    driver: "550.54.15",
    driver_dir: "run/nvidia/driver/usr/lib/x86_64-linux-gnu",
    driver_number: 550_054,
    runtime_number: 12080,
    python: "home/dev/.pyenv/versions/3.12.1/bin/python3.12",
    python_version: "3.12",
    venv: "opt/stack2/venv",
    project: "opt/stack2/standin_ext",
    c10_flags: &["-O3", "-DSTANDIN_VARIANT_B"],
};

/// How a log is recorded: the options of the fixtures' recordings
/// (`../shared/fixtures/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    /// Text, a `--gen-suppressions=all` block after every error, `-v`.
    Text,
    /// The same as XML (`<suppression>` in every `<error>`).
    Xml,
    /// The seed article's command: text, no gen blocks, demangled names only.
    Demangled,
}

impl Recording {
    /// Every kind of recording.
    pub const ALL: [Self; 3] = [Self::Text, Self::Xml, Self::Demangled];

    /// The log's file name.
    #[must_use]
    pub const fn file_name(self) -> &'static str {
        match self {
            Self::Text => "standin.txt",
            Self::Xml => "standin.xml",
            Self::Demangled => "standin-demangled.txt",
        }
    }

    /// Valgrind's options for this recording, writing to `log`.
    fn options(self, log: &Path) -> Vec<OsString> {
        let mut v: Vec<OsString> = [
            "--tool=memcheck",
            "--leak-check=full",
            "--show-leak-kinds=all",
            "--track-origins=yes",
        ]
        .map(OsString::from)
        .to_vec();
        let file = |flag: &str| {
            let mut s = OsString::from(flag);
            s.push(log);
            s
        };
        match self {
            Self::Text => {
                v.extend(["--gen-suppressions=all", "--num-callers=40", "-v"].map(OsString::from));
                v.push(file("--log-file="));
            }
            Self::Xml => {
                v.extend(
                    [
                        "--gen-suppressions=all",
                        "--num-callers=40",
                        "-v",
                        "--xml=yes",
                    ]
                    .map(OsString::from),
                );
                v.push(file("--xml-file="));
            }
            Self::Demangled => {
                v.push("--verbose".into());
                v.push(file("--log-file="));
            }
        }
        v
    }
}

/// A library of the stand-in stack, for [`Want`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lib {
    /// `…/x86_64-linux-gnu/libcuda.so.<driver>` (stripped).
    Driver,
    /// `…/nvidia/cuda_runtime/lib/libcudart.so.12` (stripped).
    Runtime,
    /// `…/torch/lib/libc10.so` (symbols, no debug information).
    C10,
}

/// A frame an intended error's stack must show (the stack may hold others between).
#[derive(Debug, Clone, Copy)]
pub enum Want {
    /// A frame of the extension at this line of `standin_ext.cpp`.
    Line(u32),
    /// A frame of a function (the name as printed, demangled; this is a prefix of it) in a
    /// library; text logs print the object of such frames (no source line).
    Fun(&'static str, Lib),
    /// A `???` frame in a library (a stripped function).
    Unknown(Lib),
    /// A `???` frame without an object: code of a library unloaded before the leak check.
    Unloaded,
    /// A frame of a function of the system libraries, allocator wrappers or the
    /// interpreter (a prefix of its name; no object checked).
    Any(&'static str),
}

/// What `gen` must do with an error (PRODUCT.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A first-party bug: no written rule may match it.
    Keep,
    /// Third-party code reached from first-party code where the user may be at fault (a
    /// leak of an object allocated for the caller): reported, not suppressed.
    Review,
    /// Third-party noise: hidden by the written rules.
    Suppress,
}

/// An error the scenario makes on purpose.
#[derive(Debug)]
pub struct Intended {
    /// A short name.
    pub id: &'static str,
    /// What `gen` must do with it.
    pub verdict: Verdict,
    /// [`ErrorRecord::kind`]: `Leak`, `Addr4`, `Cond`, `Param`.
    pub kind: &'static str,
    /// For a leak: its kind, and its bytes (direct + indirect) where every variant agrees.
    pub leak: Option<(LeakKind, Option<u64>)>,
    /// For a `Param` error: the parameter.
    pub param: Option<&'static str>,
    /// Frames of its stack, top first.
    pub frames: &'static [Want],
    /// Frames of its aux or origin stack, top first (empty: none checked).
    pub aux: &'static [Want],
}

const C10_CHECKED_NUMEL: &str = "c10::checked_numel(long const*, unsigned long)";
const C10_MAKE_STORAGE: &str = "c10::make_storage(unsigned long)";
const C10_KERNEL_TABLE: &str = "c10::detail::(anonymous namespace)::make_kernel_table(char const*, int, int) [clone .constprop.";

/// Every error the scenario makes on purpose, in both variants and every recording. The
/// logs hold others too, all third-party: the loader's and libstdc++'s allocations
/// (still reachable, in `ld-linux-x86-64.so.2` and `libstdc++.so.6`).
pub const INTENDED: &[Intended] = &[
    // First-party: the extension's bugs (tests/valgrind-gen/standin_ext.cpp).
    Intended {
        id: "leak_floats",
        verdict: Verdict::Keep,
        kind: "Leak",
        leak: Some((LeakKind::Definite, Some(4000))),
        param: None,
        frames: &[Want::Any("operator new[]"), Want::Line(19)],
        aux: &[],
    },
    Intended {
        id: "read_past_end",
        verdict: Verdict::Keep,
        kind: "Addr4",
        leak: None,
        param: None,
        frames: &[Want::Line(27)],
        aux: &[Want::Any("operator new[]"), Want::Line(25)],
    },
    Intended {
        id: "uninit_into_c10",
        verdict: Verdict::Keep,
        kind: "Cond",
        leak: None,
        param: None,
        frames: &[Want::Fun(C10_CHECKED_NUMEL, Lib::C10), Want::Line(37)],
        aux: &[Want::Any("operator new[]"), Want::Line(35)],
    },
    Intended {
        id: "leak_handle",
        verdict: Verdict::Keep,
        kind: "Leak",
        leak: Some((LeakKind::Definite, Some(1064))),
        param: None,
        frames: &[Want::Any("operator new("), Want::Line(50)],
        aux: &[],
    },
    // The handle's storage, allocated by c10 for the extension: indirectly lost.
    Intended {
        id: "leak_handle.storage",
        verdict: Verdict::Review,
        kind: "Leak",
        leak: Some((LeakKind::Indirect, Some(24))),
        param: None,
        frames: &[
            Want::Any("operator new("),
            Want::Fun(C10_MAKE_STORAGE, Lib::C10),
            Want::Line(50),
        ],
        aux: &[],
    },
    Intended {
        id: "leak_handle.data",
        verdict: Verdict::Review,
        kind: "Leak",
        leak: Some((LeakKind::Indirect, Some(1024))),
        param: None,
        frames: &[
            Want::Any("posix_memalign"),
            Want::Fun("c10::alloc_cpu(unsigned long)", Lib::C10),
            Want::Fun(C10_MAKE_STORAGE, Lib::C10),
            Want::Line(50),
        ],
        aux: &[],
    },
    // The CUDA driver (stripped, unloaded before the leak check).
    Intended {
        id: "driver.ioctl",
        verdict: Verdict::Suppress,
        kind: "Param",
        leak: None,
        param: Some("ioctl(generic)"),
        frames: &[
            Want::Any("ioctl"),
            Want::Unknown(Lib::Driver),
            Want::Fun("cuInit", Lib::Driver),
            Want::Unknown(Lib::Runtime),
            Want::Any("__pthread_once_slow"),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
            Want::Line(57),
        ],
        aux: &[Want::Unknown(Lib::Driver)],
    },
    Intended {
        id: "driver.cond",
        verdict: Verdict::Suppress,
        kind: "Cond",
        leak: None,
        param: None,
        frames: &[
            Want::Unknown(Lib::Driver),
            Want::Fun("cuInit", Lib::Driver),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
            Want::Line(57),
        ],
        aux: &[Want::Any("malloc"), Want::Unknown(Lib::Driver)],
    },
    Intended {
        id: "driver.leak.devices",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Definite, Some(36))),
        param: None,
        frames: &[
            Want::Any("calloc"),
            Want::Unloaded,
            Want::Unknown(Lib::Runtime),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
            Want::Line(57),
        ],
        aux: &[],
    },
    Intended {
        id: "driver.leak.scratch",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Definite, Some(96))),
        param: None,
        frames: &[
            Want::Any("malloc"),
            Want::Unloaded,
            Want::Unknown(Lib::Runtime),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
            Want::Line(57),
        ],
        aux: &[],
    },
    // The CUDA runtime (stripped).
    Intended {
        id: "runtime.state",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Reachable, Some(40))),
        param: None,
        frames: &[
            Want::Any("calloc"),
            Want::Unknown(Lib::Runtime),
            Want::Any("__pthread_once_slow"),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
            Want::Line(57),
        ],
        aux: &[],
    },
    Intended {
        id: "runtime.error_strings",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Definite, Some(94))),
        param: None,
        frames: &[
            Want::Any("calloc"),
            Want::Unknown(Lib::Runtime),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
            Want::Line(57),
        ],
        aux: &[],
    },
    Intended {
        id: "runtime.error_strings.a",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Indirect, Some(12))),
        param: None,
        frames: &[
            Want::Any("malloc"),
            Want::Any("strdup"),
            Want::Unknown(Lib::Runtime),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
        ],
        aux: &[],
    },
    Intended {
        id: "runtime.error_strings.b",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Indirect, Some(18))),
        param: None,
        frames: &[
            Want::Any("malloc"),
            Want::Any("strdup"),
            Want::Unknown(Lib::Runtime),
            Want::Fun("cudaGetDeviceCount", Lib::Runtime),
        ],
        aux: &[],
    },
    // libc10: static initialisation and its own uninitialised read.
    Intended {
        id: "c10.registry",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Reachable, Some(136))),
        param: None,
        frames: &[
            Want::Any("operator new("),
            Want::Fun("_GLOBAL__sub_I_libc10.cpp", Lib::C10),
            Want::Any("call_init"),
        ],
        aux: &[],
    },
    Intended {
        id: "c10.kernel_table.cpu",
        verdict: Verdict::Suppress,
        kind: "Leak",
        leak: Some((LeakKind::Definite, Some(256))),
        param: None,
        frames: &[
            Want::Any("operator new[]"),
            Want::Fun(C10_KERNEL_TABLE, Lib::C10),
            Want::Fun("c10::detail::register_operators()", Lib::C10),
            Want::Any("call_init"),
        ],
        aux: &[],
    },
    Intended {
        id: "c10.kernel_table.meta",
        verdict: Verdict::Suppress,
        kind: "Leak",
        // 256 bytes in A (the same table twice), 384 in B (another shape).
        leak: Some((LeakKind::Definite, None)),
        param: None,
        frames: &[
            Want::Any("operator new[]"),
            Want::Fun(C10_KERNEL_TABLE, Lib::C10),
            Want::Fun("c10::detail::register_operators()", Lib::C10),
            Want::Any("call_init"),
        ],
        aux: &[],
    },
    Intended {
        id: "c10.cpu_caps",
        verdict: Verdict::Suppress,
        kind: "Cond",
        leak: None,
        param: None,
        frames: &[
            Want::Fun("c10::impl::CpuCaps::probe()", Lib::C10),
            Want::Line(64),
        ],
        aux: &[
            Want::Any("malloc"),
            Want::Fun("c10::impl::CpuCaps::probe()", Lib::C10),
        ],
    },
];

/// The stand-in stack, built at realistic paths under a temporary root.
pub struct Scenario {
    /// Removed with the scenario, unless `VGSUPP_KEEP_SCENARIO=1` (then it is left for a
    /// person to look at, and its path printed).
    dir: Option<tempfile::TempDir>,
    root: PathBuf,
    /// The variant built.
    pub variant: &'static Variant,
    /// The interpreter.
    pub python: PathBuf,
    /// `…/lib/pythonX.Y/site-packages`.
    pub site_packages: PathBuf,
    /// The driver, `…/x86_64-linux-gnu/libcuda.so.<driver>`.
    pub driver: PathBuf,
    /// The runtime, `…/nvidia/cuda_runtime/lib/libcudart.so.12`.
    pub runtime: PathBuf,
    /// `…/torch/lib/libc10.so`.
    pub c10: PathBuf,
    /// The extension's project folder (Valgrind runs there).
    pub project: PathBuf,
    /// The extension, relative to [`Scenario::project`].
    pub extension: PathBuf,
    /// Where the logs are written.
    pub logs: PathBuf,
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (the scenario needs gcc, g++ and strip)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Says `msg` on the real stderr (the harness hides what passing tests print with
/// `eprintln!`).
fn say(msg: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{msg}");
}

fn mkdir(p: &Path) {
    std::fs::create_dir_all(p).unwrap_or_else(|e| panic!("mkdir {}: {e}", p.display()));
}

fn source(name: &str) -> PathBuf {
    repo(&format!("tests/valgrind-gen/{name}"))
}

impl Scenario {
    /// Builds `variant`, or `None` (the test is skipped, and says so) when Valgrind is not
    /// installed.
    #[must_use]
    pub fn build_if_valgrind(variant: &'static Variant, test: &str) -> Option<Self> {
        if !valgrind_available() {
            say(&format!("{test}: skipped: valgrind is not installed"));
            return None;
        }
        Some(Self::build(variant))
    }

    /// Compiles the stand-in stack of `variant` into a new temporary root.
    ///
    /// # Panics
    /// When a compiler or `strip` is missing or fails.
    #[must_use]
    pub fn build(variant: &'static Variant) -> Self {
        let mut dir = Some(tempfile::tempdir().expect("tmp"));
        // Valgrind prints objects by their resolved paths: so are they compared.
        let root = std::fs::canonicalize(dir.as_ref().expect("tmp").path()).expect("canonical");
        if std::env::var("VGSUPP_KEEP_SCENARIO").is_ok_and(|v| v == "1") {
            let kept = dir.take().expect("tmp").keep();
            say(&format!(
                "gen_scenario: variant {} kept in {}",
                variant.name,
                kept.display()
            ));
        }
        let root = &root;
        let python = root.join(variant.python);
        let site_packages = root.join(variant.venv).join(format!(
            "lib/python{}/site-packages",
            variant.python_version
        ));
        let driver_dir = root.join(variant.driver_dir);
        let driver = driver_dir.join(format!("libcuda.so.{}", variant.driver));
        let runtime_dir = site_packages.join("nvidia/cuda_runtime/lib");
        let runtime = runtime_dir.join("libcudart.so.12");
        let c10_dir = site_packages.join("torch/lib");
        let c10 = c10_dir.join("libc10.so");
        let project = root.join(variant.project);
        let tag = variant.python_version.replace('.', "");
        let extension = PathBuf::from(format!(
            "build/lib/standin_ext.cpython-{tag}-x86_64-linux-gnu.so"
        ));
        let logs = root.join("logs");
        for d in [
            python.parent().expect("bin"),
            &driver_dir,
            &runtime_dir,
            &c10_dir,
            &project.join("src"),
            &project.join("build/lib"),
            &logs,
        ] {
            mkdir(d);
        }

        // The C libraries are built -O0: optimised, GCC would see through the blocks they
        // never initialise or never free, and drop the very errors they are here to make.
        // Stripped, nobody can tell.
        // The driver: stripped, its soname the one the runtime asks for.
        run(Command::new("gcc")
            .args(["-O0", "-fPIC", "-shared", "-fvisibility=hidden"])
            .arg("-Wl,-soname,libcuda.so.1")
            .arg(format!(
                "-DSTANDIN_DRIVER_VERSION={}",
                variant.driver_number
            ))
            .arg("-o")
            .arg(&driver)
            .arg(source("libcuda.c")));
        run(Command::new("strip").arg("--strip-all").arg(&driver));
        std::os::unix::fs::symlink(
            driver.file_name().expect("name"),
            driver_dir.join("libcuda.so.1"),
        )
        .expect("symlink libcuda.so.1");

        // The runtime: stripped too.
        run(Command::new("gcc")
            .args(["-O0", "-fPIC", "-shared", "-fvisibility=hidden"])
            .arg("-Wl,-soname,libcudart.so.12")
            .arg(format!(
                "-DSTANDIN_RUNTIME_VERSION={}",
                variant.runtime_number
            ))
            .arg("-o")
            .arg(&runtime)
            .arg(source("libcudart.c"))
            .args(["-ldl", "-lpthread"]));
        run(Command::new("strip").arg("--strip-all").arg(&runtime));

        // libc10: symbols but no debug information, as the wheel ships it.
        run(Command::new("g++")
            .args(variant.c10_flags)
            .args(["-fPIC", "-shared", "-fvisibility=hidden"])
            .arg("-Wl,-soname,libc10.so")
            .arg("-o")
            .arg(&c10)
            .arg(source("libc10.cpp")));

        // The extension: first-party, -O0 -g, compiled from its project as setup.py does.
        let ext_src = project.join("src/standin_ext.cpp");
        std::fs::copy(source("standin_ext.cpp"), &ext_src).expect("copy the extension");
        run(Command::new("g++")
            .current_dir(&project)
            .args(["-O0", "-g", "-fPIC", "-shared", "-o"])
            .arg(&extension)
            .arg("src/standin_ext.cpp")
            .arg("-L")
            .arg(&c10_dir)
            .arg("-lc10")
            .arg("-L")
            .arg(&runtime_dir)
            .arg("-l:libcudart.so.12"));

        // The interpreter (debug information, like the fixtures' CPython).
        run(Command::new("gcc")
            .args(["-O0", "-g", "-o"])
            .arg(&python)
            .arg(source("python_standin.c"))
            .arg("-ldl"));

        Self {
            dir,
            root: root.clone(),
            variant,
            python,
            site_packages,
            driver,
            runtime,
            c10,
            project,
            extension,
            logs,
        }
    }

    /// The temporary root everything is installed under.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A library's installed path.
    #[must_use]
    pub fn lib(&self, lib: Lib) -> &Path {
        match lib {
            Lib::Driver => &self.driver,
            Lib::Runtime => &self.runtime,
            Lib::C10 => &self.c10,
        }
    }

    /// Records the scenario as `how` into [`Scenario::logs`]; returns the log's path.
    #[must_use]
    pub fn record(&self, how: Recording) -> PathBuf {
        self.record_with(how, how.file_name(), &[])
    }

    /// Records the scenario as `how` into `logs/NAME`, with more Valgrind options (e.g.
    /// `--suppressions=FILE` to replay `gen`'s rules); returns the log's path.
    #[must_use]
    pub fn record_with(&self, how: Recording, name: &str, extra: &[OsString]) -> PathBuf {
        let log = self.logs.join(name);
        // Only what the interpreter needs: the driver is found on the library path, as
        // the real one is. Valgrind's exit status is the program's (0).
        run(Command::new("valgrind")
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("LC_ALL", "C")
            .env("LD_LIBRARY_PATH", self.driver.parent().expect("driver dir"))
            .args(how.options(&log))
            .args(extra)
            .arg(&self.python)
            .arg(&self.site_packages)
            .arg(&self.extension));
        log
    }
}

/// The errors and loss records of a log.
#[must_use]
pub fn errors(log: &Path) -> (LogFormat, Vec<ErrorRecord>) {
    let (format, items) =
        detect::read_all(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let errors = items
        .into_iter()
        .filter_map(|i| match i {
            LogItem::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    (format, errors)
}

fn text(b: Option<&[u8]>) -> &str {
    b.map_or("", |b| std::str::from_utf8(b).unwrap_or(""))
}

/// Whether `frame` is what `want` asks for in `scenario`'s stack.
fn frame_is(frame: &Frame<'_>, want: Want, scenario: &Scenario) -> bool {
    let obj_is = |lib: Lib| {
        frame
            .obj
            .is_some_and(|o| Path::new(text(Some(o))) == scenario.lib(lib))
    };
    match want {
        Want::Line(n) => text(frame.file) == "standin_ext.cpp" && frame.line == Some(n),
        Want::Fun(prefix, lib) => text(frame.fun).starts_with(prefix) && obj_is(lib),
        Want::Unknown(lib) => frame.fun.is_none() && obj_is(lib),
        // Text prints `???` alone; XML only the address.
        Want::Unloaded => frame.fun.is_none() && frame.obj.is_none() && frame.file.is_none(),
        Want::Any(prefix) => text(frame.fun).starts_with(prefix),
    }
}

/// Whether the frames `wants` appear in `frames`, in order (others may lie between).
fn stack_shows<'a>(
    frames: impl Iterator<Item = Frame<'a>>,
    wants: &[Want],
    scenario: &Scenario,
) -> bool {
    let mut wants = wants.iter().peekable();
    for f in frames {
        match wants.peek() {
            Some(&&w) if frame_is(&f, w, scenario) => {
                wants.next();
            }
            Some(_) => {}
            None => break,
        }
    }
    wants.peek().is_none()
}

/// Whether `error` is the intended error `want`.
#[must_use]
pub fn is(error: &ErrorRecord, want: &Intended, scenario: &Scenario) -> bool {
    if error.kind != want.kind {
        return false;
    }
    if let Some((kind, bytes)) = want.leak {
        let Some(leak) = error.leak else {
            return false;
        };
        if leak.kind != kind || bytes.is_some_and(|b| b != leak.bytes) {
            return false;
        }
    }
    if want
        .param
        .is_some_and(|p| error.param.as_deref() != Some(p.as_bytes()))
    {
        return false;
    }
    if !stack_shows(error.stack.iter(), want.frames, scenario) {
        return false;
    }
    want.aux.is_empty()
        || error
            .aux
            .iter()
            .any(|a| stack_shows(a.stack.iter(), want.aux, scenario))
}

/// Which intended error each of `errors` is: `None` for a report not in [`INTENDED`] (the
/// loader's and libstdc++'s). Each intended error claims at most one report, the first
/// that is it, in the order of [`INTENDED`].
#[must_use]
pub fn classify(scenario: &Scenario, errors: &[ErrorRecord]) -> Vec<Option<&'static Intended>> {
    let mut out: Vec<Option<&'static Intended>> = vec![None; errors.len()];
    for want in INTENDED {
        let free = (0..errors.len()).find(|&i| out[i].is_none() && is(&errors[i], want, scenario));
        if let Some(i) = free {
            out[i] = Some(want);
        }
    }
    out
}

/// The ids of the intended errors with one of `verdicts`, in the order of [`INTENDED`].
#[must_use]
pub fn ids_with(verdicts: &[Verdict]) -> Vec<&'static str> {
    INTENDED
        .iter()
        .filter(|i| verdicts.contains(&i.verdict))
        .map(|i| i.id)
        .collect()
}

/// The first frame below allocator and interceptor frames (Valgrind's replacements in
/// `vgpreload_*`; in text logs they print `(in …/vgpreload_memcheck-amd64-linux.so)`), and
/// whether it is the extension's.
fn first_party_at_top(error: &ErrorRecord) -> bool {
    error
        .stack
        .iter()
        .find(|f| !text(f.obj).contains("/vgpreload_"))
        .is_some_and(|f| text(f.file) == "standin_ext.cpp")
}

/// Checks that `log`, recorded from `scenario`, holds every intended error exactly once,
/// and that every other report is third-party noise of the system libraries.
fn check_log(scenario: &Scenario, how: Recording, log: &Path) {
    let (format, errors) = errors(log);
    let name = format!("{} {:?}", scenario.variant.name, how);
    assert_eq!(
        format,
        if how == Recording::Xml {
            LogFormat::Xml
        } else {
            LogFormat::Text
        },
        "{name}"
    );
    let claimed = classify(scenario, &errors);
    for want in INTENDED {
        let at = claimed
            .iter()
            .filter(|c| c.is_some_and(|c| c.id == want.id))
            .count();
        assert_eq!(at, 1, "{name}: {} is not in {}", want.id, log.display());
        // Each is reported once; in A the two c10 kernel tables look alike.
        if !want.id.starts_with("c10.kernel_table.") {
            let hits = errors.iter().filter(|e| is(e, want, scenario)).count();
            assert_eq!(hits, 1, "{name}: {} is reported {hits} times", want.id);
        }
    }
    for (e, _) in errors.iter().zip(&claimed).filter(|(_, c)| c.is_none()) {
        // Nothing else is first-party, and nothing else comes from the stand-in libraries
        // or the extension: the rest is the loader's and libstdc++'s.
        let objects_and_files: Vec<String> = e
            .stack
            .iter()
            .map(|f| format!("{} {}", text(f.obj), text(f.file)))
            .collect();
        assert!(
            !objects_and_files.iter().any(|s| s.contains("standin_ext")
                || s.contains("libcuda.so")
                || s.contains("libc10.so")),
            "{name}: unintended error at line {}: {} {objects_and_files:?}",
            e.line,
            e.what
        );
        assert!(!first_party_at_top(e), "{name}: {}", e.what);
        assert_eq!(
            e.kind, "Leak",
            "{name}: unintended {} at line {}",
            e.what, e.line
        );
    }
    // Gen blocks: one per report in the text and XML recordings, none in the article's.
    let with_block = errors.iter().filter(|e| e.suppression.is_some()).count();
    match how {
        Recording::Text | Recording::Xml => assert_eq!(with_block, errors.len(), "{name}"),
        Recording::Demangled => assert_eq!(with_block, 0, "{name}"),
    }
}

/// Checks the paths and names that tell the variants apart, as an upgrade changes them.
fn check_variant_names(scenario: &Scenario, log: &Path) {
    let raw = std::fs::read_to_string(log).expect("log");
    let v = scenario.variant;
    let other = if v.name == A.name { &B } else { &A };
    assert!(
        raw.contains(&format!("libcuda.so.{}", v.driver)),
        "{}",
        v.name
    );
    assert!(
        !raw.contains(&format!("libcuda.so.{}", other.driver)),
        "{}",
        v.name
    );
    assert!(
        raw.contains(&format!("/lib/python{}/site-packages/", v.python_version)),
        "{}",
        v.name
    );
    assert!(!raw.contains(other.venv), "{}", v.name);
    // GCC's clone numbers: A has one specialisation of make_kernel_table, B two.
    let clone1 = raw.contains("[clone .constprop.1]");
    assert_eq!(
        clone1,
        v.name == B.name,
        "{}: .constprop.1 in the log",
        v.name
    );
    assert!(raw.contains("[clone .constprop.0]"), "{}", v.name);
}

fn scenario_records_what_it_intends(variant: &'static Variant) {
    let test = format!("gen_scenario::variant_{}", variant.name);
    let Some(scenario) = Scenario::build_if_valgrind(variant, &test) else {
        return;
    };
    for how in Recording::ALL {
        let log = scenario.record(how);
        check_log(&scenario, how, &log);
        check_variant_names(&scenario, &log);
    }
}

#[test]
fn variant_a_records_what_it_intends() {
    scenario_records_what_it_intends(&A);
}

#[test]
fn variant_b_records_what_it_intends() {
    scenario_records_what_it_intends(&B);
}

#[test]
fn intended_errors_are_distinct_and_first_party_ones_keep() {
    // Every id once; the keep errors are the extension's bugs, each at its source line.
    let mut ids: Vec<&str> = INTENDED.iter().map(|i| i.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), INTENDED.len());
    let keep: Vec<&str> = INTENDED
        .iter()
        .filter(|i| i.verdict == Verdict::Keep)
        .map(|i| i.id)
        .collect();
    assert_eq!(
        keep,
        [
            "leak_floats",
            "read_past_end",
            "uninit_into_c10",
            "leak_handle"
        ]
    );
    let ext = std::fs::read_to_string(source("standin_ext.cpp")).expect("source");
    let line = |n: usize| ext.lines().nth(n - 1).expect("line").trim();
    assert_eq!(line(19), "float* data = new float[1000];");
    assert_eq!(line(25), "int* values = new int[16];");
    assert_eq!(line(27), "int last = values[16];");
    assert_eq!(line(35), "auto* sizes = new std::int64_t[2];");
    assert_eq!(line(37), "std::int64_t n = c10::checked_numel(sizes, 2);");
    assert_eq!(
        line(50),
        "auto* h = new Handle{c10::make_storage(1024), 7};"
    );
    assert_eq!(line(57), "int rc = cudaGetDeviceCount(&count);");
    assert_eq!(line(64), "return c10::cpu_capability();");
}

#[test]
fn rules_given_back_to_valgrind_hide_what_they_match() {
    // The workflow gen's end-to-end test follows, with hand-written rules: the driver's
    // errors by object, and everything below the runtime's entry point.
    let Some(scenario) = Scenario::build_if_valgrind(&A, "gen_scenario::rules_given_back") else {
        return;
    };
    let rules = scenario.logs.join("cuda.supp");
    std::fs::write(
        &rules,
        "{\n   standin.driver.param\n   Memcheck:Param\n   ioctl(generic)\n   fun:ioctl\n   \
         obj:*/libcuda.so*\n}\n\
         {\n   standin.driver.cond\n   Memcheck:Cond\n   obj:*/libcuda.so*\n}\n\
         {\n   standin.runtime.leaks\n   Memcheck:Leak\n   match-leak-kinds: all\n   ...\n   \
         fun:cudaGetDeviceCount\n}\n",
    )
    .expect("rules");
    let mut option = OsString::from("--suppressions=");
    option.push(&rules);
    let log = scenario.record_with(Recording::Text, "with-rules.txt", &[option]);
    let (_, errors) = errors(&log);
    // In log order; compared as sets.
    let mut found: Vec<&str> = classify(&scenario, &errors)
        .into_iter()
        .flatten()
        .map(|i| i.id)
        .collect();
    found.sort_unstable();
    let hidden = [
        "driver.ioctl",
        "driver.cond",
        "driver.leak.devices",
        "driver.leak.scratch",
        "runtime.state",
        "runtime.error_strings",
        "runtime.error_strings.a",
        "runtime.error_strings.b",
    ];
    let mut expected: Vec<&str> = INTENDED
        .iter()
        .map(|i| i.id)
        .filter(|id| !hidden.contains(id))
        .collect();
    expected.sort_unstable();
    assert_eq!(found, expected);
    // Valgrind says which rules it used, and how often.
    let (_, items) = detect::read_all(&log).expect("log");
    let used: Vec<(String, u64)> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::Used(u) => Some((String::from_utf8_lossy(&u.name).into_owned(), u.count)),
            _ => None,
        })
        .collect();
    for name in [
        "standin.driver.param",
        "standin.driver.cond",
        "standin.runtime.leaks",
    ] {
        assert!(used.iter().any(|(n, c)| n == name && *c > 0), "{used:?}");
    }
}
