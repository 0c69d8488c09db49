//! Origin profiles (PRODUCT.md §4): which objects and source files belong to which origin.
//!
//! The built-in profiles were written from the paths the real recordings show
//! (`../shared/fixtures/`): pip wheels under `site-packages/nvidia/*/lib` and
//! `site-packages/torch/lib`, a CPython built under `/opt/python/3.11.7` with its
//! `lib-dynload`, numpy's vendored `numpy.libs`, Debian's `/usr/lib/x86_64-linux-gnu` and
//! the driver in `…/nvidia/current/libcuda.so.535.…`. Globs are `globset` globs on the
//! whole path (`*` also matches `/`), so `*/libcuda.so*` holds wherever a distribution,
//! a wheel or a container puts the driver.
//!
//! Extra profiles come from `vgsupp.yaml` as plain data ([`Profile`]); they are tried
//! before the built-in ones, so a user can claim any object for an origin of their own.

/// An origin profile: the objects and source files that belong to `name`.
///
/// The same shape as the `profiles:` entries of `vgsupp.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The origin's name (`cuda-driver`, `vendor-blas`), used in rule names and provenance.
    pub name: String,
    /// Globs on object paths.
    pub objects: Vec<String>,
    /// Globs on source file paths (for frames a text log prints without their object).
    pub sources: Vec<String>,
}

/// The origin of first-party code (what the user declares with `--first-party`).
pub const FIRST_PARTY: &str = "first-party";
/// The origin of code no profile claims and the user did not declare: still third-party.
pub const THIRD_PARTY: &str = "third-party";
/// Valgrind's allocator and interceptor replacements (`vgpreload_*`).
pub const ALLOCATOR: &str = "allocator";

/// One built-in profile: object globs, source globs, and (built-in only) globs on function
/// names, which name the origin of a frame whose object the log hides.
pub(crate) struct Builtin {
    pub(crate) name: &'static str,
    pub(crate) objects: &'static [&'static str],
    pub(crate) sources: &'static [&'static str],
    pub(crate) functions: &'static [&'static str],
}

/// The built-in profiles, in the order they are tried (more specific first: libgomp lives
/// in `torch/lib`, the driver under `/usr/lib`).
pub(crate) const BUILTIN: &[Builtin] = &[
    Builtin {
        name: ALLOCATOR,
        objects: &["*/vgpreload_*"],
        sources: &[],
        functions: &[],
    },
    Builtin {
        name: "cuda-driver",
        objects: &["*/libcuda.so*", "*/libnvidia-*"],
        sources: &[],
        functions: &[],
    },
    Builtin {
        name: "cuda-libs",
        objects: &[
            "*/libcudart*",
            "*/libcublas*",
            "*/libcudnn*",
            "*/libnccl*",
            "*/libcufft*",
            "*/libcurand*",
            "*/libcusparse*",
            "*/libcusolver*",
            "*/libnvrtc*",
            "*/libnvJitLink*",
            "*/libcupti*",
            "*/libnvToolsExt*",
            "*/libnvtx*",
            "*/libnvvm*",
            "*/libcufile*",
            "*/libnvshmem*",
            "*/libnvperf*",
            "*/site-packages/nvidia/*",
            "*/site-packages/cuda/*",
            "*/cuda/lib64/*",
            "*/cuda-[0-9]*/lib64/*",
            "*/cuda/targets/*",
        ],
        sources: &[],
        functions: &[],
    },
    Builtin {
        name: "openmp-blas",
        objects: &[
            "*/libgomp*",
            "*/libiomp*",
            "*/libomp.so*",
            "*/libomp-*",
            "*/libmkl_*",
            "*/libopenblas*",
            "*/libscipy_openblas*",
            "*/libblas*",
            "*/liblapack*",
            "*/libgfortran*",
            "*/libquadmath*",
            "*/libtbb*",
        ],
        sources: &[],
        functions: &["GOMP_*", "omp_*", "__kmpc_*"],
    },
    Builtin {
        name: "libtorch",
        objects: &[
            "*/libtorch*",
            "*/libc10*",
            "*/libshm.so*",
            "*/libcaffe2*",
            "*/torch/_C.*",
            "*/torch/lib/*",
            "*/functorch/*",
            "*/torchvision/*",
            "*/torchaudio/*",
        ],
        sources: &["*/torch/csrc/*", "*/aten/src/*", "*/c10/*"],
        functions: &[
            "_ZN2at*",
            "_ZNK2at*",
            "_ZN3c10*",
            "_ZNK3c10*",
            "_ZN5torch*",
            "_ZNK5torch*",
            "at::*",
            "c10::*",
            "torch::*",
        ],
    },
    Builtin {
        name: "python",
        objects: &[
            "*/libpython*",
            "*/bin/python*",
            "*/lib-dynload/*",
            "*/site-packages/numpy/*",
            "*/site-packages/numpy.libs/*",
            "*/site-packages/scipy/*",
            "*/site-packages/pandas/*",
            "*/site-packages/PIL/*",
            "*/site-packages/yaml/*",
            "*/site-packages/_cffi_backend*",
            "*/site-packages/psutil/*",
            "*/site-packages/google/*",
            "*/site-packages/grpc/*",
            "*/site-packages/h5py/*",
            "*/site-packages/sklearn/*",
        ],
        // Full paths (XML `<dir>`), and CPython's own file names for text logs, which
        // show only the name (these name an origin; they never make code first-party or
        // not).
        sources: &[
            "*/Python-3*/*",
            "*/cpython/Objects/*",
            "*/cpython/Python/*",
            "*/cpython/Modules/*",
            "*/cpython/Include/*",
            "pycore_*.h",
            "*object.c",
            "*object.c.h",
            "*module.c",
            "*module.c.h",
            "ceval*.c",
            "obmalloc.c",
            "pythonrun.c",
            "pylifecycle.c",
            "pystate.c",
            "import.c",
            "import.c.h",
            "importdl.c",
            "dynload_shlib.c",
            "marshal.c",
            "marshal.c.h",
            "compile.c",
            "Python-ast.c",
            "codecs.c",
            "fileutils.c",
            "modsupport.c",
            "structseq.c",
            "thread_pthread.h",
            "bltinmodule.c.h",
        ],
        functions: &["Py*", "_Py*"],
    },
    Builtin {
        name: "system",
        objects: &[
            "*/ld-linux*",
            "*/ld64.so*",
            "*/libc.so*",
            "*/libc-2.*",
            "*/libm.so*",
            "*/libm-2.*",
            "*/libmvec*",
            "*/libstdc++*",
            "*/libgcc_s*",
            "*/libpthread*",
            "*/libdl.so*",
            "*/libdl-*",
            "*/librt.so*",
            "*/libutil.so*",
            "*/libresolv*",
            "*/libnss_*",
            "/usr/lib/*",
            "/usr/lib64/*",
            "/lib/*",
            "/lib64/*",
        ],
        // glibc's own build directories, as Debian's libc6-dbg names them (XML `<dir>`),
        // and its file names for text logs.
        sources: &[
            "dl-*.c",
            "dl-*.h",
            "rtld*.c",
            "rtld-*.h",
            "libc_start_call_main.h",
            "libc-start.c",
            "pthread_*.c",
            "allocatestack.c",
            "*-sse2*.S",
            "*-avx*.S",
            "*-evex*.S",
            "tls_get_addr.S",
            "strdup.c",
            "dlopen.c",
            "dlerror.c",
            "do-rel.h",
            "./elf/*",
            "./csu/*",
            "./string/*",
            "./nptl/*",
            "./stdlib/*",
            "./dlfcn/*",
            "./io/*",
            "./malloc/*",
            "./misc/*",
            "./posix/*",
            "./libio/*",
            "*/glibc-*/*",
        ],
        functions: &["_dl_*", "__libc_*", "(below main)"],
    },
];

impl Profile {
    /// The built-in profiles as plain data (without their function-name globs).
    #[must_use]
    pub fn builtin() -> Vec<Self> {
        BUILTIN
            .iter()
            .map(|b| Self {
                name: b.name.to_owned(),
                objects: b.objects.iter().map(|s| (*s).to_owned()).collect(),
                sources: b.sources.iter().map(|s| (*s).to_owned()).collect(),
            })
            .collect()
    }
}
