use super::*;
use proptest::prelude::*;

fn cls(fp: &[&str]) -> Classifier {
    Classifier::new(
        &FirstParty::declared(fp.iter().map(|s| (*s).to_owned()).collect()),
        &[],
        Some(Path::new("/home/dev/proj")),
        UnknownCode::Review,
    )
    .expect("compiles")
}

fn name(c: &Classifier, p: Party) -> String {
    match p {
        Party::Unknown(_) => "unknown".to_owned(),
        p => c.origin_name(p.origin()).to_owned(),
    }
}

#[test]
fn objects_of_the_recordings() {
    let c = cls(&["leaky_ext*"]);
    let name = |p: &str| name(&c, c.object(p.as_bytes()));
    assert_eq!(
        name("/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"),
        "allocator"
    );
    assert_eq!(
        name("/home/dev/leaky_ext/build/lib/leaky_ext.cpython-311-x86_64-linux-gnu.so"),
        "first-party"
    );
    assert_eq!(
        name("/home/dev/libcuda-535/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.309.01"),
        "cuda-driver"
    );
    assert_eq!(
        name("/home/dev/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcublasLt.so.13"),
        "cuda-libs"
    );
    assert_eq!(
        name("/home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12"),
        "cuda-libs"
    );
    assert_eq!(
        name("/home/dev/venv/lib/python3.11/site-packages/torch/lib/libgomp.so.1"),
        "openmp-blas"
    );
    assert_eq!(
        name("/home/dev/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so"),
        "libtorch"
    );
    assert_eq!(
        name(
            "/home/dev/venv/lib/python3.11/site-packages/torch/_C.cpython-311-x86_64-linux-gnu.so"
        ),
        "libtorch"
    );
    assert_eq!(
        name("/opt/python/3.11.7/lib/libpython3.11.so.1.0"),
        "python"
    );
    assert_eq!(name("/opt/python/3.11.7/bin/python3.11"), "python");
    assert_eq!(
        name(
            "/opt/python/3.11.7/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so"
        ),
        "python"
    );
    assert_eq!(
        name(
            "/home/dev/venv/lib/python3.11/site-packages/numpy.libs/libscipy_openblas64_-32a4b2a6.so"
        ),
        "openmp-blas"
    );
    assert_eq!(
        name(
            "/home/dev/venv/lib/python3.11/site-packages/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so"
        ),
        "python"
    );
    assert_eq!(
        name("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"),
        "system"
    );
    assert_eq!(name("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13"), "system");
    // Code no profile claims is unknown, not third-party.
    assert_eq!(name("/opt/vendor/libfoo.so"), "unknown");
    assert_eq!(
        c.object(b"/opt/vendor/libfoo.so"),
        Party::Unknown(Unplaced::Unclaimed)
    );
}

#[test]
fn opting_in_makes_unknown_code_the_catch_all() {
    let c = Classifier::new(
        &FirstParty::declared(vec!["my_ext*".into()]),
        &[],
        None,
        UnknownCode::Suppress,
    )
    .expect("compiles");
    assert_eq!(
        c.object(b"/opt/vendor/libfoo.so"),
        Party::Third(THIRD_PARTY_ID)
    );
    let f = FrameSeen {
        object: ObjectSeen::Missing(None),
        dir: None,
        file: None,
        function: None,
    };
    assert_eq!(
        c.place(&f, &mut Cache::default()),
        Party::Third(THIRD_PARTY_ID)
    );
}

#[test]
fn extra_profiles_come_before_the_builtin_ones() {
    let c = Classifier::new(
        &FirstParty::none(),
        &[Profile {
            name: "vendor-blas".into(),
            objects: vec!["libopenblas*".into()],
            sources: vec!["**/OpenBLAS/**".into()],
            functions: vec!["vblas_*".into()],
        }],
        None,
        UnknownCode::Review,
    )
    .expect("compiles");
    assert_eq!(
        name(&c, c.object(b"/usr/lib/libopenblas.so.0")),
        "vendor-blas"
    );
    let s = c.source(Some(b"/build/OpenBLAS/kernel"), b"gemm.c");
    assert_eq!(s.origin.map(|o| c.origin_name(o)), Some("vendor-blas"));
    assert_eq!(
        c.function(b"vblas_gemm").map(|o| c.origin_name(o)),
        Some("vendor-blas")
    );
    // Valgrind's own objects stay the allocator's even if a profile claims them.
    let c = Classifier::new(
        &FirstParty::declared(vec!["/usr/**".into()]),
        &[Profile {
            name: "x".into(),
            objects: vec!["*".into()],
            sources: vec![],
            functions: vec![],
        }],
        None,
        UnknownCode::Review,
    )
    .expect("compiles");
    assert_eq!(
        c.object(b"/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"),
        Party::Third(ALLOCATOR_ID)
    );
}

#[test]
fn relative_profile_globs_resolve_from_the_project() {
    let c = Classifier::new(
        &FirstParty::none(),
        &[Profile {
            name: "vendored".into(),
            objects: vec!["third_party/**".into()],
            sources: vec![],
            functions: vec![],
        }],
        Some(Path::new("/home/me/proj")),
        UnknownCode::Review,
    )
    .expect("compiles");
    assert_eq!(
        name(&c, c.object(b"/home/me/proj/third_party/lib/libz.so")),
        "vendored"
    );
    assert_eq!(
        name(&c, c.object(b"/elsewhere/third_party/libq.so")),
        "unknown"
    );
}

#[test]
fn the_default_first_party_yields_to_profiles() {
    let c = Classifier::new(
        &FirstParty::project(Path::new("/home/me/proj")),
        &[],
        Some(Path::new("/home/me/proj")),
        UnknownCode::Review,
    )
    .expect("compiles");
    assert_eq!(
        name(
            &c,
            c.object(b"/home/me/proj/.venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so")
        ),
        "libtorch"
    );
    assert_eq!(c.object(b"/home/me/proj/build/libmine.so"), Party::First);
    assert_eq!(name(&c, c.object(b"/home/me/other/libmine.so")), "unknown");
    // A declared glob beats a profile.
    let c = cls(&["libtorch_mine*"]);
    assert_eq!(c.object(b"/x/libtorch_mine.so"), Party::First);
    // The default's escaping: a project path with glob characters.
    let c = Classifier::new(
        &FirstParty::project(Path::new("/w[1]/p")),
        &[],
        None,
        UnknownCode::Review,
    )
    .expect("compiles");
    assert_eq!(c.object(b"/w[1]/p/lib.so"), Party::First);
    assert_ne!(c.object(b"/w1/p/lib.so"), Party::First);
}

fn frame<'a>(
    object: ObjectSeen<'a>,
    dir: Option<&'a [u8]>,
    file: Option<&'a [u8]>,
    function: Option<&'a [u8]>,
) -> FrameSeen<'a> {
    FrameSeen {
        object,
        dir,
        file,
        function,
    }
}

#[test]
fn frames_are_placed_by_object_or_source() {
    let c = cls(&["*my_ext*"]);
    let mut cache = Cache::default();
    let mut place = |f: FrameSeen<'_>| c.place(&f, &mut cache);
    // A library built from several sources: the object is first-party though the source
    // does not match.
    assert_eq!(
        place(frame(
            ObjectSeen::Shown(b"/p/build/libmy_ext.so"),
            Some(b"/p/src"),
            Some(b"helpers.c"),
            Some(b"helper")
        )),
        Party::First
    );
    // The same frame in a text log: the object hidden, the source fails the glob:
    // unknown, not third-party.
    assert_eq!(
        place(frame(
            ObjectSeen::Hidden(None),
            None,
            Some(b"helpers.c"),
            Some(b"helper")
        )),
        Party::Unknown(Unplaced::HiddenObject)
    );
    // … unless the log narrows its object down to first-party ones.
    let set = vec![b"/p/build/libmy_ext.so".to_vec()];
    assert_eq!(
        place(frame(
            ObjectSeen::Hidden(Some(&set)),
            None,
            Some(b"helpers.c"),
            None
        )),
        Party::First
    );
    // An XML log: the source's directory matches a glob with `/`.
    let c2 = cls(&["/p/src/**"]);
    assert_eq!(
        c2.place(
            &frame(
                ObjectSeen::Shown(b"/p/build/libwidget.so"),
                Some(b"/p/src"),
                Some(b"widget.c"),
                None
            ),
            &mut Cache::default()
        ),
        Party::First
    );
    // An object whose name differs from its source.
    let c3 = cls(&["ext.cpp"]);
    assert_eq!(
        c3.place(
            &frame(
                ObjectSeen::Shown(b"/p/my_ext.cpython-311-x86_64-linux-gnu.so"),
                None,
                Some(b"ext.cpp"),
                None
            ),
            &mut Cache::default()
        ),
        Party::First
    );
    // A `???` frame of an unloaded library.
    assert_eq!(
        place(frame(ObjectSeen::Missing(None), None, None, None)),
        Party::Unknown(Unplaced::NoObject)
    );
    // … unless the log names the object it was unloaded from.
    assert_eq!(
        place(frame(
            ObjectSeen::Missing(Some(b"/p/plugins/my_ext_plugin.so")),
            None,
            None,
            None
        )),
        Party::First
    );
    // Claimed by source, or by function, where the object is hidden.
    assert_eq!(
        name(
            &c,
            place(frame(
                ObjectSeen::Hidden(None),
                None,
                Some(b"ceval.c"),
                Some(b"_PyEval_EvalFrameDefault")
            ))
        ),
        "python"
    );
    assert_eq!(
        name(
            &c,
            place(frame(
                ObjectSeen::Hidden(None),
                None,
                Some(b"TensorBody.h"),
                Some(b"_ZN2at6Tensor5emptyEv")
            ))
        ),
        "libtorch"
    );
    // Candidates of one origin name it; of several, they do not.
    let torch = vec![
        b"/v/torch/lib/libc10.so".to_vec(),
        b"/v/torch/lib/libtorch_cpu.so".to_vec(),
    ];
    assert_eq!(
        name(
            &c,
            place(frame(
                ObjectSeen::Hidden(Some(&torch)),
                None,
                Some(b"x.cpp"),
                None
            ))
        ),
        "libtorch"
    );
    let mixed = vec![
        b"/v/torch/lib/libc10.so".to_vec(),
        b"/opt/vendor/libv.so".to_vec(),
    ];
    assert_eq!(
        place(frame(
            ObjectSeen::Hidden(Some(&mixed)),
            None,
            Some(b"x.cpp"),
            None
        )),
        Party::Unknown(Unplaced::HiddenObject)
    );
}

#[test]
fn sources_decide_by_full_path_or_by_name() {
    let c = cls(&["leaky_ext*"]);
    assert_eq!(c.source(None, b"leaky_ext.cpp").first_party, Truth::Yes);
    assert_eq!(c.source(None, b"ceval.c").first_party, Truth::No);
    assert_eq!(
        c.source(Some(b"/home/dev/leaky_ext/src"), b"leaky_ext.cpp")
            .first_party,
        Truth::Yes
    );
    // pybind11's headers compiled into the extension are not its sources.
    assert_eq!(
        c.source(
            Some(b"/home/dev/venv/lib/python3.11/site-packages/torch/include/pybind11"),
            b"cast.h"
        )
        .first_party,
        Truth::No
    );
    // A directory glob cannot decide on a bare name.
    let d = cls(&["/home/dev/proj/**"]);
    assert_eq!(d.source(None, b"leaky_ext.cpp").first_party, Truth::Unknown);
    assert_eq!(
        d.source(Some(b"/home/dev/proj/src"), b"x.cpp").first_party,
        Truth::Yes
    );
    let none = cls(&[]);
    assert_eq!(none.source(None, b"x.cpp").first_party, Truth::No);
    assert!(!none.has_first_party());
}

#[test]
fn source_profiles_name_third_party_origins() {
    let c = cls(&[]);
    let o = c.source(
        Some(b"/tmp/python-build.20260509073455.222/Python-3.11.7/Objects"),
        b"obmalloc.c",
    );
    assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("python"));
    // Text logs: the file name alone.
    let o = c.source(None, b"longobject.c");
    assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("python"));
    let o = c.source(None, b"dl-init.c");
    assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("system"));
    let o = c.source(None, b"dl-object.c");
    assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("system"));
    let o = c.source(Some(b"./elf/./elf"), b"dl-open.c");
    assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("system"));
    assert_eq!(c.source(None, b"leaky_ext.cpp").origin, None);
}

#[test]
fn function_names_suggest_an_origin() {
    let c = cls(&[]);
    let f = |n: &str| {
        c.function(n.as_bytes())
            .map(|o| c.origin_name(o).to_owned())
    };
    assert_eq!(f("PyUnicode_New").as_deref(), Some("python"));
    assert_eq!(f("_PyObject_Malloc").as_deref(), Some("python"));
    assert_eq!(f("_ZN3c109alloc_cpuEm").as_deref(), Some("libtorch"));
    assert_eq!(
        f("at::native::empty_cpu(long)").as_deref(),
        Some("libtorch")
    );
    assert_eq!(f("GOMP_parallel").as_deref(), Some("openmp-blas"));
    assert_eq!(f("uninit_branch()"), None);
}

#[test]
fn bad_globs_are_reported() {
    let e = Classifier::new(
        &FirstParty::declared(vec!["a[".into()]),
        &[],
        None,
        UnknownCode::Review,
    )
    .err()
    .expect("refused");
    assert!(e.to_string().contains("--first-party"), "{e}");
}

/// Object paths, source names and functions, mixing what the profiles know and what they
/// do not.
fn object_path() -> impl Strategy<Value = Vec<u8>> {
    let dirs = prop::sample::select(vec![
        "/usr/lib/x86_64-linux-gnu",
        "/home/dev/venv/lib/python3.11/site-packages/torch/lib",
        "/opt/vendor",
        "/home/dev/proj/build",
        "/tmp",
    ]);
    let names = prop::sample::select(vec![
        "libc.so.6",
        "libtorch_cpu.so",
        "libfoo.so",
        "libmy_ext.so",
        "my_ext.cpython-311-x86_64-linux-gnu.so",
        "libcuda.so.535",
        "host",
    ]);
    (dirs, names).prop_map(|(d, n)| format!("{d}/{n}").into_bytes())
}

fn source_name() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(
        prop::sample::select(vec![
            "ceval.c",
            "helpers.c",
            "my_ext.c",
            "ext.cpp",
            "vector.tcc",
            "dl-open.c",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
    )
}

fn function_name() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(
        prop::sample::select(vec![
            "PyList_New",
            "helper",
            "_ZN3c106detail3fooEv",
            "vendor_alloc",
            "GOMP_parallel",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
    )
}

proptest! {
    /// A frame is never "not first-party" without a positive claim by a profile: of its
    /// object (or every candidate object), its source or its function.
    #[test]
    fn not_first_party_only_by_a_positive_claim(
        shown in prop::option::of(object_path()),
        candidates in prop::collection::vec(object_path(), 0..4),
        missing in any::<bool>(),
        file in source_name(),
        dir in prop::option::of(prop::sample::select(vec!["/home/dev/proj/src", "/usr/include", "./elf"])),
        function in function_name(),
        globs in prop::sample::subsequence(vec!["my_ext*", "libmy_ext.so", "/home/dev/proj/**", "src/**", "**/my_ext*.c"], 0..3),
    ) {
        let c = cls(&globs);
        let object = match (&shown, missing) {
            (Some(p), false) => ObjectSeen::Shown(p),
            (Some(p), true) => ObjectSeen::Missing(Some(p)),
            (None, true) => ObjectSeen::Missing(None),
            (None, false) => ObjectSeen::Hidden((!candidates.is_empty()).then_some(&candidates[..])),
        };
        let f = FrameSeen { object, dir: dir.map(str::as_bytes), file: file.as_deref(), function: function.as_deref() };
        let party = c.place(&f, &mut Cache::default());
        if party.first_party() == Truth::No {
            let claimed_object = match object {
                ObjectSeen::Shown(p) | ObjectSeen::Missing(Some(p)) => matches!(c.object(p), Party::Third(_)),
                ObjectSeen::Hidden(Some(set)) => set.iter().all(|p| matches!(c.object(p), Party::Third(_))),
                _ => false,
            };
            let claimed_source = f.file.is_some_and(|s| c.source(f.dir, s).origin.is_some());
            let claimed_function = f.function.is_some_and(|n| c.function(n).is_some());
            prop_assert!(claimed_object || claimed_source || claimed_function, "{party:?} without a claim");
        }
        // And a frame whose object or source matches a declared glob is first-party.
        let object_fp = match object {
            ObjectSeen::Shown(p) | ObjectSeen::Missing(Some(p)) => c.first_party_globs().matches_path(p),
            _ => false,
        };
        let source_fp = f.file.is_some_and(|s| c.first_party_globs().matches_source(f.dir, s) == Truth::Yes);
        if (object_fp || source_fp) && !matches!(c.object(shown.as_deref().unwrap_or(b"/x")), Party::Third(ALLOCATOR_ID)) {
            prop_assert_eq!(party, Party::First);
        }
    }

    /// A glob without `/` matches by the last path component, wherever the file lies.
    #[test]
    fn slash_free_globs_match_by_last_component(
        name in "[a-z_]{1,8}(\\.so|\\.c|\\.cpp)?",
        cut in 0usize..8,
        dirs in prop::collection::vec("[a-z_]{1,6}", 0..4),
        other in "[A-Z]{1,4}",
    ) {
        // A glob from the name: a prefix of it and `*`.
        let cut = cut.min(name.len());
        let glob = format!("{}*", &name[..cut]);
        let g = PathGlobs::new(&[glob.as_str()], None, "t").expect("compiles");
        let dir: String = dirs.iter().map(|d| format!("/{d}")).collect();
        let path = format!("{dir}/{name}");
        prop_assert!(g.matches_path(path.as_bytes()));
        prop_assert_eq!(g.matches_source(None, name.as_bytes()), Truth::Yes);
        prop_assert_eq!(g.matches_source(Some(dir.as_bytes()), name.as_bytes()), Truth::Yes);
        // A name that does not match is not matched by any directory named like the glob.
        let miss = format!("/{name}/{other}");
        if cut > 0 {
            prop_assert!(!g.matches_path(miss.as_bytes()));
        }
    }
}
