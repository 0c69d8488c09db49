//! Origin profiles (PRODUCT.md §4): which objects and source files belong to which origin.
//!
//! The built-in profiles were written from the paths the real recordings show
//! (`../shared/fixtures/`): pip wheels under `site-packages/nvidia/*/lib` and
//! `site-packages/torch/lib`, a CPython built under `/opt/python/3.11.7` with its
//! `lib-dynload`, numpy's vendored `numpy.libs`, Debian's `/usr/lib/x86_64-linux-gnu` and
//! the driver in `…/nvidia/current/libcuda.so.535.…`. Globs follow [`super::glob`]: a
//! glob without `/` matches a file name (`libcuda.so*` holds wherever a distribution, a
//! wheel or a container puts the driver), `**/…` a path anywhere, `/…` an absolute one.
//! Built-in globs are never relative.
//!
//! Extra profiles come from `vgsupp.yaml` as plain data ([`Profile`]); they are tried
//! before the built-in ones, so a user can claim any object, source file or function for
//! an origin of their own (relative globs there are resolved from the project directory).

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
    /// Globs on function names (mangled, C, or as displayed), for frames whose object the
    /// log hides.
    pub functions: Vec<String>,
}

/// The origin of first-party code (what the user declares with `--first-party`).
pub const FIRST_PARTY: &str = "first-party";
/// The origin of code no profile claims and the user did not declare: unknown code, which
/// `gen` reviews unless told to suppress it (`--unknown suppress`), then under this name.
pub const THIRD_PARTY: &str = "third-party";
/// Code no glob or profile places (what an error rests on when `gen` reviews it as such).
pub const UNKNOWN: &str = "unknown";
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
        objects: &["vgpreload_*"],
        sources: &[],
        functions: &[],
    },
    Builtin {
        name: "cuda-driver",
        objects: &["libcuda.so*", "libnvidia-*"],
        sources: &[],
        functions: &[],
    },
    Builtin {
        name: "cuda-libs",
        objects: &[
            "libcudart*",
            "libcublas*",
            "libcudnn*",
            "libnccl*",
            "libcufft*",
            "libcurand*",
            "libcusparse*",
            "libcusolver*",
            "libnvrtc*",
            "libnvJitLink*",
            "libcupti*",
            "libnvToolsExt*",
            "libnvtx*",
            "libnvvm*",
            "libcufile*",
            "libnvshmem*",
            "libnvperf*",
            "**/site-packages/nvidia/**",
            "**/site-packages/cuda/**",
            "**/cuda/lib64/**",
            "**/cuda-[0-9]*/lib64/**",
            "**/cuda/targets/**",
        ],
        sources: &[],
        functions: &[],
    },
    Builtin {
        name: "openmp-blas",
        objects: &[
            "libgomp*",
            "libiomp*",
            "libomp.so*",
            "libomp-*",
            "libmkl_*",
            "libopenblas*",
            "libscipy_openblas*",
            "libblas*",
            "liblapack*",
            "libgfortran*",
            "libquadmath*",
            "libtbb*",
        ],
        sources: &[],
        functions: &["GOMP_*", "omp_*", "__kmpc_*"],
    },
    Builtin {
        name: "libtorch",
        objects: &[
            "libtorch*",
            "libc10*",
            "libshm.so*",
            "libcaffe2*",
            "**/torch/_C.*",
            "**/torch/lib/**",
            "**/functorch/**",
            "**/torchvision/**",
            "**/torchaudio/**",
        ],
        sources: &["**/torch/csrc/**", "**/aten/src/**", "**/c10/**"],
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
            "libpython*",
            "**/bin/python*",
            "**/lib-dynload/**",
            "**/site-packages/numpy/**",
            "**/site-packages/numpy.libs/**",
            "**/site-packages/scipy/**",
            "**/site-packages/pandas/**",
            "**/site-packages/PIL/**",
            "**/site-packages/yaml/**",
            "**/site-packages/_cffi_backend*",
            "**/site-packages/psutil/**",
            "**/site-packages/google/**",
            "**/site-packages/grpc/**",
            "**/site-packages/h5py/**",
            "**/site-packages/sklearn/**",
        ],
        // Full paths (XML `<dir>`), and CPython's own file names for text logs, which
        // show only the name. A text log's bare file name is a claim only when CPython's
        // name is its own: generic names a project may use too (`main.c`, `call.c`,
        // `import.c`, `object.c`, `errors.c`, `compile.c`, `codecs.c`, `abstract.c`,
        // `frame.c`, `thread.c`, `exceptions.c`) claim nothing; their frames are claimed
        // by CPython's function names below.
        sources: &[
            "**/Python-3*/**",
            "**/cpython/Objects/**",
            "**/cpython/Python/**",
            "**/cpython/Modules/**",
            "**/cpython/Include/**",
            "pycore_*.h",
            "python.c",
            "ceval*.c",
            "ceval_*.h",
            "bytecodes.c",
            "generated_cases.c.h",
            "obmalloc.c",
            "pythonrun.c",
            "pylifecycle.c",
            "pystate.c",
            "import.c.h",
            "importdl.c",
            "dynload_shlib.c",
            "marshal.c",
            "marshal.c.h",
            "Python-ast.c",
            "modsupport.c",
            "structseq.c",
            "thread_pthread.h",
            "bltinmodule.c",
            "bltinmodule.c.h",
            "sysmodule.c",
            "initconfig.c",
            "pathconfig.c",
            "symtable.c",
            "getargs.c",
            "pyarena.c",
            "pytime.c",
            "pyhash.c",
            "bytes_methods.c",
            "unicodectype.c",
            "unicode_format.h",
            "boolobject.c",
            "bytearrayobject.c",
            "bytesobject.c",
            "capsule.c",
            "cellobject.c",
            "classobject.c",
            "codeobject.c",
            "complexobject.c",
            "descrobject.c",
            "dictobject.c",
            "dictobject.c.h",
            "enumobject.c",
            "fileobject.c",
            "floatobject.c",
            "frameobject.c",
            "funcobject.c",
            "genericaliasobject.c",
            "genobject.c",
            "iterobject.c",
            "listobject.c",
            "listobject.c.h",
            "longobject.c",
            "longobject.c.h",
            "memoryobject.c",
            "methodobject.c",
            "moduleobject.c",
            "namespaceobject.c",
            "odictobject.c",
            "rangeobject.c",
            "setobject.c",
            "sliceobject.c",
            "tupleobject.c",
            "typeobject.c",
            "typevarobject.c",
            "unicodeobject.c",
            "unionobject.c",
            "weakrefobject.c",
            "gcmodule.c",
            "posixmodule.c",
            "_collectionsmodule.c",
            "_functoolsmodule.c",
            "itertoolsmodule.c",
            "_threadmodule.c",
            "_iomodule.c",
            "_abc.c",
            "_abc.c.h",
            "_pickle.c",
            "_datetimemodule.c",
            "_asynciomodule.c",
            "_randommodule.c",
            "_struct.c",
            "_struct.c.h",
            "_operator.c",
            "timemodule.c",
            "errnomodule.c",
            "socketmodule.c",
            "mathmodule.c",
            "callproc.c",
            "_ctypes.c",
            "_ssl.c",
            "textio.c",
            "textio.c.h",
            "fileio.c",
            "fileio.c.h",
            "sre.c",
            "sre.c.h",
        ],
        // The C API (`Py…`, `_Py…`) and CPython's own static functions that the generic
        // file names above hold.
        functions: &[
            "Py*",
            "_Py*",
            "pymain_*",
            "object_vacall",
            "import_find_and_load",
            "import_name",
            "_imp_*",
            "exec_builtin_or_dynamic",
            "exec_code_in_module",
            "init_importlib*",
            "cfunction_vectorcall_*",
            "cfunction_call",
            "method_vectorcall_*",
            "slot_tp_*",
        ],
    },
    Builtin {
        name: "system",
        objects: &[
            "ld-linux*",
            "ld64.so*",
            "libc.so*",
            "libc-2.*",
            "libm.so*",
            "libm-2.*",
            "libmvec*",
            "libstdc++*",
            "libgcc_s*",
            "libpthread*",
            "libdl.so*",
            "libdl-*",
            "librt.so*",
            "libutil.so*",
            "libresolv*",
            "libnss_*",
            "/usr/lib/**",
            "/usr/lib64/**",
            "/lib/**",
            "/lib64/**",
            // The system's own programs, which a traced program starts (Python's `ctypes`
            // runs `/sbin/ldconfig -p` on `import torch`; `system()` runs `/bin/sh`).
            "/usr/bin/**",
            "/usr/sbin/**",
            "/bin/**",
            "/sbin/**",
            "/usr/libexec/**",
        ],
        // glibc's file names, for text logs (XML shows every frame's object, which
        // decides; its `<dir>`s are relative to glibc's build tree: `./elf/./elf`).
        sources: &[
            "dl-*.c",
            "dl-*.h",
            "rtld*.c",
            "rtld-*.h",
            "libc_start_call_main.h",
            "libc-start.c",
            "pthread_create.c",
            "pthread_once.c",
            "pthread_join_common.c",
            "pthread_mutex_lock.c",
            "pthread_mutex_unlock.c",
            "pthread_cond_wait.c",
            "pthread_key_create.c",
            "pthread_setspecific.c",
            "pthread_getspecific.c",
            "pthread_kill.c",
            "allocatestack.c",
            "*-sse2*.S",
            "*-avx*.S",
            "*-evex*.S",
            "tls_get_addr.S",
            "strdup.c",
            "dlopen.c",
            "dlerror.c",
            "do-rel.h",
            "**/glibc-*/**",
        ],
        functions: &["_dl_*", "__libc_*", "(below main)"],
    },
];

impl Profile {
    /// The built-in profiles as plain data.
    #[must_use]
    pub fn builtin() -> Vec<Self> {
        BUILTIN
            .iter()
            .map(|b| Self {
                name: b.name.to_owned(),
                objects: b.objects.iter().map(|s| (*s).to_owned()).collect(),
                sources: b.sources.iter().map(|s| (*s).to_owned()).collect(),
                functions: b.functions.iter().map(|s| (*s).to_owned()).collect(),
            })
            .collect()
    }
}
