//! Why each generated rule exists and where it came from: what the sidecar
//! (`OUT.supp.yaml`, PRODUCT.md §3) records per rule — origin, a reason specific to the
//! origin and the kind, the logs it was generated from (with their SHA-256, Valgrind
//! version, command and the rule's error count in each) and the environment the logs show
//! (driver, CUDA, Python and torch versions read from object paths).

use std::collections::BTreeMap;

use crate::logs::record::Preamble;
use crate::replay::options::RunOptions;

/// What one log says about the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogFacts {
    /// The log as named to the user.
    pub name: String,
    /// Its SHA-256 (hex), when the caller hashed it.
    pub sha256: Option<String>,
    /// Valgrind's version (`3.19.0`), from the first preamble.
    pub valgrind: Option<String>,
    /// The program's command line, from the first preamble.
    pub command: Option<String>,
    /// `--num-callers` of the run, when its options are printed.
    pub num_callers: Option<u32>,
    /// Errors and loss records read.
    pub errors: u64,
    /// Frames (of errors' own and origin stacks) that are first-party.
    pub first_party_frames: u64,
    /// Frames the log does not tell first-party or not.
    pub undecided_frames: u64,
    /// Unplaced frames by why and by the name they show (a source file's name, else an
    /// object's file name, else `???`): what a user may name in `--first-party` or a
    /// profile. At most [`MAX_UNPLACED`] names are kept.
    pub unplaced: BTreeMap<(crate::origin::Unplaced, String), u64>,
    /// First-party objects the log says were loaded (`-v`'s `Reading syms from`), at most
    /// [`MAX_UNPLACED`].
    pub first_party_loaded: std::collections::BTreeSet<String>,
    /// Versions read from object paths (see [`environment`]).
    pub environment: BTreeMap<String, String>,
}

/// At most this many names are kept in [`LogFacts::unplaced`] and
/// [`LogFacts::first_party_loaded`].
pub const MAX_UNPLACED: usize = 256;

impl LogFacts {
    /// Facts of a log named `name`, before reading it.
    #[must_use]
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ..Self::default()
        }
    }

    /// A preamble was read.
    pub fn preamble(&mut self, p: &Preamble, run: &RunOptions) {
        if self.valgrind.is_none() {
            self.valgrind.clone_from(&p.valgrind_version);
        }
        if self.command.is_none() {
            self.command.clone_from(&p.command);
        }
        if let Some(n) = run.num_callers {
            self.num_callers = Some(self.num_callers.map_or(n, |m| m.max(n)));
        }
    }

    /// An unplaced frame was seen, showing `name`.
    pub fn unplaced(&mut self, why: crate::origin::Unplaced, name: &[u8]) {
        let key = (why, String::from_utf8_lossy(name).into_owned());
        if let Some(n) = self.unplaced.get_mut(&key) {
            *n += 1;
        } else if self.unplaced.len() < MAX_UNPLACED {
            self.unplaced.insert(key, 1);
        }
    }

    /// A first-party object was loaded.
    pub fn first_party_loaded(&mut self, path: &[u8]) {
        if self.first_party_loaded.len() < MAX_UNPLACED {
            self.first_party_loaded
                .insert(String::from_utf8_lossy(path).into_owned());
        }
    }

    /// An object path was seen (loaded, or in a frame).
    pub fn object(&mut self, path: &[u8]) {
        for (k, v) in environment(path) {
            self.environment.entry(k).or_insert(v);
        }
    }
}

pub use crate::origin::environment::environment;

/// What an origin is, in a reason: the libraries a built-in profile claims, or a profile
/// of the project's own (or the catch-all `third-party`) by its name.
fn described(origin: &str) -> String {
    match origin {
        "cuda-driver" => "libcuda (the NVIDIA driver's user-space library)".to_owned(),
        "cuda-libs" => "the CUDA runtime and libraries (libcudart, cuBLAS, cuDNN, …)".to_owned(),
        "libtorch" => "libtorch".to_owned(),
        "python" => "CPython".to_owned(),
        "openmp-blas" => "the OpenMP and BLAS runtimes".to_owned(),
        "system" => "glibc and the dynamic loader".to_owned(),
        "allocator" => "Valgrind's own replacement of the allocator (vgpreload)".to_owned(),
        "third-party" => "third-party code".to_owned(),
        other => format!("third-party code (`{other}`)"),
    }
}

/// `verb` for the subject [`described`] gives `origin`: `passes` or, for the origins that
/// name several libraries, `pass`.
fn agree(origin: &str, verb: &str) -> String {
    if matches!(origin, "cuda-libs" | "openmp-blas" | "system") {
        verb.strip_suffix("es")
            .filter(|v| v.ends_with("ss"))
            .or_else(|| verb.strip_suffix('s'))
            .unwrap_or(verb)
            .to_owned()
    } else {
        verb.to_owned()
    }
}

/// What an error of `kind` is, for the reason of a rule that hides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A leak whose kinds are only `reachable`.
    Reachable,
    /// Any other leak.
    Leak,
    /// An uninitialised value used (`Cond`, `ValueN`).
    Uninit,
    /// An invalid read or write (`AddrN`).
    Access,
    /// A system call's buffer (`Param`).
    Param,
    /// Anything else (`Jump`, `Free`, `Overlap`, `FishyValue`, Helgrind's and DRD's kinds).
    Other,
}

fn class(kind: &str, leak_kinds: &str) -> Class {
    match kind {
        "Leak" if leak_kinds == "reachable" => Class::Reachable,
        "Leak" => Class::Leak,
        "Cond" => Class::Uninit,
        "Param" => Class::Param,
        k if k.starts_with("Value") => Class::Uninit,
        k if k.starts_with("Addr") => Class::Access,
        _ => Class::Other,
    }
}

/// Why a `Param` error of `call` (`write(buf)`, `ioctl(generic)`) is noise: by the system
/// call, since the buffers of `ioctl`, of `write` and of the rest are different stories.
fn param_reason(origin: &str, call: &str) -> String {
    let syscall = call.split('(').next().unwrap_or(call).trim();
    let who = described(origin);
    let passes = agree(origin, "passes");
    match syscall {
        "ioctl" if matches!(origin, "cuda-driver" | "cuda-libs") => format!(
            "{who} {passes} the NVIDIA kernel driver's private ioctl structures with padding and \
             fields the driver does not read for that request; Memcheck checks every byte the \
             ioctl number declares as input"
        ),
        "ioctl" => format!(
            "{who} {passes} an ioctl structure with padding or fields the driver does not read \
             for that request; Memcheck checks every byte the ioctl number declares as input"
        ),
        "write" | "pwrite64" | "writev" | "pwritev" | "send" | "sendto" | "sendmsg" => format!(
            "{who} {} a buffer that holds bytes never set (structure padding, unused \
             fields) with `{syscall}`; what reads it back does not use them",
            agree(origin, "writes")
        ),
        _ => format!(
            "{who} {passes} `{syscall}` memory Memcheck sees as not set (commonly structure \
             padding or unused fields); the system call does not act on those bytes"
        ),
    }
}

/// A reason specific to the origin and the kind of error a rule hides (for `Param`, to its
/// system call: `extra` is the rule's extra line, `write(buf)`). Each origin × kind says
/// only what holds for that kind: the mechanisms of leaks, of uninitialised values, of
/// invalid accesses and of system-call buffers differ, and a kind no specific text fits
/// gets the origin's general one.
#[must_use]
pub fn reason(
    origin: &str,
    kind: &str,
    extra: Option<&[u8]>,
    leak_kinds: &str,
    label: &str,
) -> String {
    let class = class(kind, leak_kinds);
    let call = extra.map(|e| String::from_utf8_lossy(e).into_owned());
    let leak = matches!(class, Class::Reachable | Class::Leak);
    let what: String = match (origin, class) {
        ("allocator", _) => format!(
            "reported in {}, with no frame of the project's code",
            described(origin)
        ),
        (_, Class::Param) => param_reason(origin, call.as_deref().unwrap_or("?")),
        ("cuda-driver", Class::Uninit) => "libcuda reads memory the kernel driver wrote through \
             ioctl and mmap; Memcheck cannot see those writes"
            .to_owned(),
        ("cuda-driver", _) if leak => "libcuda keeps its driver state from initialisation \
             until exit, and its pointers sit in memory Memcheck does not scan (or the library \
             is unloaded before the leak check)"
            .to_owned(),
        ("cuda-libs", _) if leak => "the CUDA runtime and libraries keep their one-time \
             initialisation (module tables, handles, kernel registration) for the life of the \
             process"
            .to_owned(),
        ("cuda-libs", Class::Uninit) => "the CUDA runtime and libraries read memory the \
             driver filled through ioctl and mmap, which Memcheck cannot see"
            .to_owned(),
        ("libtorch", Class::Reachable) => "libtorch registers operators, dispatch keys and \
             singletons when it is loaded and keeps them until exit"
            .to_owned(),
        ("libtorch", Class::Leak) => "libtorch's static initialisers and caches allocate \
             objects that live until exit and are never freed"
            .to_owned(),
        ("libtorch", Class::Uninit) => "an uninitialised value used inside libtorch, not in \
             the project's code: its vectorised kernels and copied structures carry padding \
             and unset fields"
            .to_owned(),
        ("python", _) if leak => "CPython keeps interned strings, type objects, modules and \
             pymalloc arenas for the life of the interpreter and does not free them at exit"
            .to_owned(),
        ("python", Class::Uninit | Class::Access) => "pymalloc's address_in_range() reads \
             memory it does not own on purpose (CPython's Misc/README.valgrind)"
            .to_owned(),
        ("openmp-blas", _) if leak => {
            "the OpenMP runtime keeps its thread pool and per-thread state until exit".to_owned()
        }
        ("openmp-blas", Class::Uninit | Class::Access) => "the OpenMP/BLAS runtime's \
             optimised kernels read whole vectors past the data they use"
            .to_owned(),
        ("system", _) if leak => {
            "glibc and the dynamic loader keep per-thread (TLS) and dlopen state until exit"
                .to_owned()
        }
        ("system", Class::Uninit | Class::Access) => "glibc's and ld.so's optimised routines \
             (string functions that read whole words, within the same page) read bytes past \
             the data they use"
            .to_owned(),
        (_, _) if leak => format!(
            "memory allocated by {} that is still held or not freed at exit",
            described(origin)
        ),
        (_, _) => format!(
            "reported inside {}, which the project does not build",
            described(origin)
        ),
    };
    let detail = match (&call, leak) {
        (Some(c), false) => format!(" {c}"),
        (_, true) => format!(" {leak_kinds}"),
        (None, false) => String::new(),
    };
    format!("{what} (`{label}`, {kind}{detail})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(p: &str) -> Vec<(String, String)> {
        environment(p.as_bytes())
    }

    #[test]
    fn versions_from_paths() {
        assert_eq!(
            env(
                "/home/dev/libcuda-535/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.309.01"
            ),
            [("libcuda".to_owned(), "535.309.01".to_owned())]
        );
        assert_eq!(
            env("/home/dev/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcudart.so.13"),
            [
                ("libcudart".to_owned(), "13".to_owned()),
                ("cuda".to_owned(), "13".to_owned())
            ]
        );
        assert_eq!(
            env("/opt/python/3.11.7/lib/libpython3.11.so.1.0"),
            [("python".to_owned(), "3.11".to_owned())]
        );
        assert_eq!(
            env("/opt/python/3.11.7/bin/python3.11"),
            [("python".to_owned(), "3.11".to_owned())]
        );
        assert_eq!(
            env("/x/lib-dynload/_ctypes.cpython-312-x86_64-linux-gnu.so"),
            [("python".to_owned(), "3.12".to_owned())]
        );
        assert_eq!(
            env("/opt/conda/pkgs/pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0/lib/libtorch_cpu.so"),
            [("torch".to_owned(), "2.1.0".to_owned())]
        );
        assert!(env("/usr/lib/x86_64-linux-gnu/libc.so.6").is_empty());
        assert!(env("/usr/lib/libcuda.so").is_empty());
    }

    #[test]
    fn reasons_are_specific() {
        let r = reason(
            "cuda-driver",
            "Param",
            Some(b"ioctl(generic)"),
            "",
            "cuInit",
        );
        assert!(r.contains("ioctl") && r.contains("cuInit"), "{r}");
        let r = reason("libtorch", "Leak", None, "reachable", "call_init");
        assert!(
            r.contains("registers operators") && r.ends_with("(`call_init`, Leak reachable)"),
            "{r}"
        );
        assert_ne!(
            reason("python", "Leak", None, "definite", "x"),
            reason("python", "Cond", None, "", "x")
        );
        assert!(reason("vendor", "Addr8", None, "", "f").contains("third-party"));
        // The rule of issue 14: a write(2) of libcuda is no ioctl.
        let r = reason("cuda-driver", "Param", Some(b"write(buf)"), "", "write");
        assert_eq!(
            r,
            "libcuda (the NVIDIA driver's user-space library) writes a buffer that holds bytes \
             never set (structure padding, unused fields) with `write`; what reads it back \
             does not use them (`write`, Param write(buf))"
        );
    }

    /// Every origin × kind the generator can write a rule for: each reason names what the
    /// kind is about and nothing another kind is about.
    #[test]
    fn every_origin_and_kind_gets_a_true_reason() {
        let origins = [
            "cuda-driver",
            "cuda-libs",
            "libtorch",
            "python",
            "openmp-blas",
            "system",
            "allocator",
            "third-party",
            "my-vendor",
        ];
        let kinds: [(&str, Option<&[u8]>, &str); 17] = [
            ("Leak", None, "definite"),
            ("Leak", None, "definite,possible"),
            ("Leak", None, "reachable"),
            ("Cond", None, ""),
            ("Value8", None, ""),
            ("Addr4", None, ""),
            ("Addr16", None, ""),
            ("Jump", None, ""),
            ("Param", Some(b"ioctl(generic)"), ""),
            ("Param", Some(b"write(buf)"), ""),
            ("Param", Some(b"sendmsg(msg.msg_iov[0])"), ""),
            ("Param", Some(b"openat(filename)"), ""),
            ("Free", None, ""),
            ("Overlap", None, ""),
            ("FishyValue", Some(b"malloc(size)"), ""),
            ("Race", None, ""),
            ("UnlockUnlocked", None, ""),
        ];
        for origin in origins {
            for (kind, extra, leak_kinds) in kinds {
                let r = reason(origin, kind, extra, leak_kinds, "anchor");
                let case = format!("{origin} × {kind} {extra:?} {leak_kinds}: {r}");
                assert!(r.ends_with(")") && r.contains("(`anchor`, "), "{case}");
                let text = r.split(" (`anchor`").next().unwrap_or_default();
                let leak = kind == "Leak";
                let uninit = kind == "Cond" || kind.starts_with("Value");
                let access = kind.starts_with("Addr");
                let param = kind == "Param";
                let call = extra.map(|e| String::from_utf8_lossy(e).into_owned());
                let syscall = call.as_deref().map(|c| c.split('(').next().unwrap_or(c));
                // ioctl buffers only for ioctl; kernel-filled memory only for uninitialised
                // values of the CUDA origins.
                if text.contains("ioctl") {
                    assert!(
                        (param && syscall == Some("ioctl"))
                            || (uninit && origin.starts_with("cuda")),
                        "{case}"
                    );
                }
                if param && origin != "allocator" {
                    assert!(
                        text.contains(&format!("`{}`", syscall.unwrap_or("?")))
                            || syscall == Some("ioctl"),
                        "{case}"
                    );
                    assert!(
                        r.ends_with(&format!("Param {})", call.as_deref().unwrap_or(""))),
                        "{case}"
                    );
                }
                // Leaks speak of memory kept or not freed; nothing else does.
                let keeps = text.contains("until exit")
                    || text.contains("not freed")
                    || text.contains("never freed")
                    || text.contains("for the life of");
                assert_eq!(keeps, leak && origin != "allocator", "{case}");
                // Reading past data or memory not owned: invalid accesses and uninitialised
                // values only (never a jump, a free, a race, a leak or a buffer).
                if text.contains("read") && (text.contains("past") || text.contains("does not own"))
                {
                    assert!(access || uninit, "{case}");
                }
                if text.contains("kernel driver wrote") || text.contains("driver filled") {
                    assert!(uninit, "{case}");
                }
                if leak {
                    assert!(r.ends_with(&format!(" {leak_kinds})")), "{case}");
                }
                // Plural subjects take plural verbs.
                for wrong in [
                    "libraries passes",
                    "libraries writes",
                    "runtimes passes",
                    "runtimes writes",
                    "loader passes",
                    "loader writes",
                ] {
                    assert!(!text.contains(wrong), "{case}");
                }
            }
        }
    }
}
