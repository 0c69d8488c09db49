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
    /// Versions read from object paths (see [`environment`]).
    pub environment: BTreeMap<String, String>,
}

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

    /// An object path was seen (loaded, or in a frame).
    pub fn object(&mut self, path: &[u8]) {
        for (k, v) in environment(path) {
            self.environment.entry(k).or_insert(v);
        }
    }
}

/// Versions an object path shows: `libcuda` (the driver, `libcuda.so.535.104.05`),
/// `libcudart` (`libcudart.so.12`), `cuda` (a wheel's `nvidia/cu13` directory), `python`
/// (`libpython3.11.so`, `python3.11`, `cpython-311`), `torch` (`torch-2.5.1…` or
/// `pytorch-2.5.1…` directories of wheels and conda packages).
#[must_use]
pub fn environment(path: &[u8]) -> Vec<(String, String)> {
    let path = String::from_utf8_lossy(path);
    let mut out = Vec::new();
    let name = path.rsplit('/').next().unwrap_or(&path);
    let so_version = |prefix: &str| {
        name.strip_prefix(prefix)
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
            .map(str::to_owned)
    };
    if let Some(v) = so_version("libcuda.so.") {
        out.push(("libcuda".to_owned(), v));
    }
    if let Some(v) = so_version("libcudart.so.") {
        out.push(("libcudart".to_owned(), v));
    }
    for comp in path.split('/') {
        if let Some(v) = comp.strip_prefix("cu")
            && !v.is_empty()
            && v.len() <= 3
            && v.bytes().all(|b| b.is_ascii_digit())
        {
            out.push(("cuda".to_owned(), v.to_owned()));
        }
        for prefix in ["torch-", "pytorch-"] {
            if let Some(rest) = comp.strip_prefix(prefix) {
                let v: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let v = v.trim_end_matches('.');
                if v.contains('.') {
                    out.push(("torch".to_owned(), v.to_owned()));
                }
            }
        }
    }
    let python = name
        .strip_prefix("libpython")
        .or_else(|| name.strip_prefix("python"))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect::<String>()
                .trim_end_matches('.')
                .to_owned()
        })
        .filter(|v| v.contains('.'))
        .or_else(|| {
            let at = name.find(".cpython-")?;
            let digits: String = name[at + 9..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (digits.len() >= 2).then(|| format!("{}.{}", &digits[..1], &digits[1..]))
        });
    if let Some(v) = python {
        out.push(("python".to_owned(), v));
    }
    out
}

/// A reason specific to the origin and the kind of error a rule hides.
#[must_use]
pub fn reason(origin: &str, kind: &str, leak_kinds: &str, label: &str) -> String {
    let leak = kind == "Leak";
    let reachable_only = leak && leak_kinds == "reachable";
    let uninit = kind == "Cond" || kind.starts_with("Value");
    let access = kind.starts_with("Addr") || kind == "Jump";
    let what = match origin {
        "cuda-driver" if kind == "Param" => {
            "libcuda passes ioctl buffers that the kernel driver fills; Memcheck cannot see the kernel's writes"
        }
        "cuda-driver" if uninit => {
            "libcuda reads memory the kernel driver wrote through ioctl and mmap; Memcheck cannot see those writes"
        }
        "cuda-driver" if leak => {
            "libcuda keeps its driver state from initialisation until exit, and its pointers sit in memory Memcheck does not scan (or the library is unloaded before the leak check)"
        }
        "cuda-libs" if leak => {
            "the CUDA runtime and libraries keep their one-time initialisation (module tables, handles, kernel registration) for the life of the process"
        }
        "cuda-libs" if uninit || kind == "Param" => {
            "the CUDA runtime and libraries pass buffers the driver fills, which Memcheck cannot see"
        }
        "libtorch" if reachable_only => {
            "libtorch registers operators, dispatch keys and singletons when it is loaded and keeps them until exit"
        }
        "libtorch" if leak => {
            "libtorch's static initialisers and caches allocate objects that live until exit and are never freed"
        }
        "libtorch" if uninit => {
            "libtorch copies structures with padding and unset optional fields that it never reads for a decision"
        }
        "python" if leak => {
            "CPython keeps interned strings, type objects, modules and pymalloc arenas for the life of the interpreter and does not free them at exit"
        }
        "python" if uninit || access => {
            "pymalloc's address_in_range() reads memory it does not own on purpose (CPython's Misc/README.valgrind)"
        }
        "openmp-blas" if leak => {
            "the OpenMP runtime keeps its thread pool and per-thread state until exit"
        }
        "openmp-blas" => {
            "the OpenMP/BLAS runtime's optimised kernels read whole vectors past the data they use"
        }
        "system" if leak => {
            "glibc and the dynamic loader keep per-thread (TLS) and dlopen state until exit"
        }
        "system" if access || uninit => {
            "glibc's and ld.so's optimised string functions read whole words past the end of a string, within the same page"
        }
        "allocator" => "Valgrind's own allocator replacement",
        _ if leak => "memory allocated by third-party code that is still held or not freed at exit",
        _ => "reported inside third-party code that the project does not build",
    };
    format!(
        "{what} (`{label}`, {kind}{})",
        if leak {
            format!(" {leak_kinds}")
        } else {
            String::new()
        }
    )
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
        let r = reason("cuda-driver", "Param", "", "cuInit");
        assert!(r.contains("ioctl") && r.contains("cuInit"), "{r}");
        let r = reason("libtorch", "Leak", "reachable", "call_init");
        assert!(
            r.contains("registers operators") && r.ends_with("(`call_init`, Leak reachable)"),
            "{r}"
        );
        assert_ne!(
            reason("python", "Leak", "definite", "x"),
            reason("python", "Cond", "", "x")
        );
        assert!(reason("vendor", "Addr8", "", "f").contains("third-party"));
    }
}
