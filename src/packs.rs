//! The curated suppression packs of `suppressions/`, compiled into the binary.
//!
//! Each pack holds the rules `vgsupp gen` wrote for one origin of third-party noise from
//! the real recordings (`scripts/build-packs.sh`), with its provenance sidecar. Commands take
//! them as `-s profile:NAME`; `vgsupp profiles` lists and prints them.

/// One bundled pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pack {
    /// Its name, as in `profile:NAME` and `suppressions/NAME.supp`.
    pub name: &'static str,
    /// What it covers, one line.
    pub description: &'static str,
    /// The `.supp` file's bytes.
    pub supp: &'static [u8],
    /// The `.supp.yaml` sidecar's bytes.
    pub sidecar: &'static [u8],
}

/// The prefix that names a pack where a suppression file is taken (`-s profile:NAME`).
pub const PREFIX: &str = "profile:";

/// Every pack, sorted by name.
pub const PACKS: [Pack; 6] = [
    pack!(
        "cpython",
        "The CPython interpreter and its extension modules"
    ),
    pack!(
        "cuda-driver",
        "NVIDIA driver (libcuda) and the CUDA runtime's calls into it"
    ),
    pack!(
        "cuda-libs",
        "CUDA libraries: cuBLAS, cuDNN, cuFFT, NCCL, NVRTC, ..."
    ),
    pack!(
        "libtorch",
        "PyTorch's native libraries (libc10, libtorch_cpu, libtorch_cuda, ...)"
    ),
    pack!(
        "openmp-blas",
        "OpenMP runtimes and BLAS libraries (libgomp, OpenBLAS, MKL)"
    ),
    pack!("system", "glibc, the dynamic loader and the C++ runtime"),
];

/// A [`Pack`] whose files are `suppressions/NAME.supp{,.yaml}`.
macro_rules! pack {
    ($name:literal, $description:literal) => {
        Pack {
            name: $name,
            description: $description,
            supp: include_bytes!(concat!("../suppressions/", $name, ".supp")),
            sidecar: include_bytes!(concat!("../suppressions/", $name, ".supp.yaml")),
        }
    };
}
use pack;

impl Pack {
    /// How many rules (records) the pack holds.
    pub fn rule_count(&self) -> usize {
        crate::supp::parse(self.supp.to_vec()).records().count()
    }
}

/// The pack called `name`.
pub fn find(name: &str) -> Option<&'static Pack> {
    PACKS.iter().find(|p| p.name == name)
}

/// The pack a `-s` value names (`profile:NAME`): `None` when it is not a pack reference,
/// `Some(Err(name))` when it names no pack.
pub fn resolve(arg: &str) -> Option<Result<&'static Pack, UnknownPack>> {
    let name = arg.strip_prefix(PREFIX)?;
    Some(find(name).ok_or_else(|| UnknownPack(name.to_owned())))
}

/// A `profile:NAME` that names no bundled pack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile `{0}` (the packs are: {names}; see `vgsupp profiles list`)", names = names())]
pub struct UnknownPack(pub String);

fn names() -> String {
    PACKS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_are_sorted_unique_and_non_empty() {
        let names: Vec<&str> = PACKS.iter().map(|p| p.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        for p in &PACKS {
            assert!(p.rule_count() > 0, "{} has no rules", p.name);
            assert!(!p.sidecar.is_empty(), "{} has no sidecar", p.name);
        }
    }

    #[test]
    fn resolve_tells_packs_files_and_unknown_names_apart() {
        assert_eq!(resolve("a.supp"), None);
        assert_eq!(
            resolve("profile:libtorch").map(|r| r.map(|p| p.name)),
            Some(Ok("libtorch"))
        );
        let err = resolve("profile:nope").and_then(Result::err);
        assert_eq!(err, Some(UnknownPack("nope".into())));
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("`nope`") && msg.contains("libtorch"), "{msg}");
    }

    #[test]
    fn rule_counts_match_the_files_records() {
        // The count is the records, not a count of `{` lines.
        for p in &PACKS {
            let text = String::from_utf8_lossy(p.supp);
            let opens = text.lines().filter(|l| *l == "{").count();
            assert_eq!(p.rule_count(), opens, "{}", p.name);
        }
    }
}
