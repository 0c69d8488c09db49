//! `examples/torch-extension/`: the seed scenario's extension must be the one the recordings
//! in `../shared/fixtures/torch/` were made from, line for line, since its bugs are known
//! there by source line (the ground truth of `../shared/fixtures/README.md`).

use std::collections::BTreeSet;

use crate::common::{repo, shared_fixture};
use vgsupp::logs::detect;
use vgsupp::logs::record::LogItem;

const SOURCE: &str = "examples/torch-extension/src/leaky_ext.cpp";

fn source() -> Vec<String> {
    std::fs::read_to_string(repo(SOURCE))
        .expect("leaky_ext.cpp")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The function whose body holds 1-based `line`: the nearest definition above it at column
/// 0 (`… name(…) {`, or `PYBIND11_MODULE(…) {`), or `None` when a closing brace at column
/// 0 comes first (the line is outside every function).
fn enclosing_function(src: &[String], line: usize) -> Option<String> {
    for l in src[..line].iter().rev() {
        if l.starts_with('}') {
            return None;
        }
        let starts_code = l.starts_with(|c: char| c.is_ascii_alphabetic());
        if starts_code && l.trim_end().ends_with('{') {
            let head = &l[..l.find('(')?];
            let name = head.rsplit([' ', '*', '&']).next()?;
            return Some(name.to_owned());
        }
    }
    None
}

/// The source function Valgrind's frame name `fun` stands for: `tensor_leak(long)` is
/// `tensor_leak`; pybind11's module functions come from the `PYBIND11_MODULE` macro.
fn source_function(fun: &str) -> &str {
    let name = fun.split('(').next().unwrap_or(fun);
    if name.starts_with("pybind11_init_") || name.starts_with("pybind11_exec_") {
        "PYBIND11_MODULE"
    } else {
        name
    }
}

#[test]
fn ground_truth_lines_hold_their_bugs() {
    let src = source();
    // (line, function, what the line does): the fixtures README's table.
    let table: &[(usize, &str, &str)] = &[
        (11, "dangerous_function", "float* data = new float[1000];"),
        (17, "safe_function", "void safe_function() {"),
        (18, "safe_function", "float* data = new float[1000];"),
        (19, "safe_function", "delete[] data;"),
        (24, "uninit_branch", "int* flags = new int[4];"),
        (26, "uninit_branch", "if (flags[2] > 0) {"),
        (36, "uninit_return", "long* values = new long[4];"),
        (37, "uninit_return", "long value = values[1];"),
        (44, "overflow", "float* buf = new float[1000];"),
        (46, "overflow", "buf[1000] = 1.0f;"),
        (48, "overflow", "sum += buf[1000];"),
        (55, "mismatched_delete", "int* items = new int[10];"),
        (57, "mismatched_delete", "delete items;"),
        (62, "use_after_free", "float* p = new float[8];"),
        (64, "use_after_free", "delete[] p;"),
        (65, "use_after_free", "return p[0];"),
        (71, "torch_ops", "auto a = torch::rand({n, n});"),
        (73, "torch_ops", "return torch::matmul(a, b);"),
        (
            82,
            "tensor_leak",
            "auto* handle = new torch::Tensor(torch::zeros({n}));",
        ),
        (
            101,
            "PYBIND11_MODULE",
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {",
        ),
        (
            102,
            "PYBIND11_MODULE",
            r#"m.def("run_leak", &dangerous_function, "Leaks new float[1000]");"#,
        ),
    ];
    for &(line, function, text) in table {
        assert_eq!(src[line - 1].trim(), text, "line {line}");
        assert_eq!(
            enclosing_function(&src, line).as_deref(),
            Some(function),
            "line {line}"
        );
    }
}

#[test]
fn docstrings_keep_the_recorded_template_lengths() {
    // pybind11 names `char [N]` in the mangled names of each binding's frames: the
    // recordings' N for each function, from their frames.
    let src = source().join("\n");
    let want = [
        ("dangerous_function", 22),
        ("uninit_branch", 37),
        ("uninit_return", 41),
        ("overflow", 34),
        ("mismatched_delete", 27),
        ("use_after_free", 19),
        ("torch_ops", 36),
        ("tensor_leak", 34),
    ];
    for (function, n) in want {
        let def = src
            .lines()
            .find(|l| l.contains(&format!("&{function},")))
            .unwrap_or_else(|| panic!("no m.def of {function}"));
        let doc = def.rsplit(", \"").next().expect("docstring");
        let doc = doc.trim_end_matches(");").trim_end_matches('"');
        assert_eq!(doc.len() + 1, n, "{function}: {doc:?}");
    }
}

/// Every frame of `leaky_ext.cpp` in a recording lies in the function it names.
fn frames_lie_in_their_functions(fixture: &str, test: &str) -> Option<BTreeSet<(String, u32)>> {
    let path = shared_fixture(fixture, test)?;
    let src = source();
    let (_, items) = detect::read_all(&path).expect("fixture");
    let mut seen = BTreeSet::new();
    for item in &items {
        let LogItem::Error(e) = item else { continue };
        let stacks = std::iter::once(&e.stack).chain(e.aux.iter().map(|a| &a.stack));
        for frame in stacks.flat_map(|s| s.iter()) {
            if frame.file != Some(b"leaky_ext.cpp".as_slice()) {
                continue;
            }
            let fun = String::from_utf8_lossy(frame.fun.expect("named")).into_owned();
            let line = frame.line.expect("line");
            seen.insert((fun, line));
        }
    }
    for (fun, line) in &seen {
        assert_eq!(
            enclosing_function(&src, *line as usize).as_deref(),
            Some(source_function(fun)),
            "{fixture}: {fun} at leaky_ext.cpp:{line}"
        );
    }
    Some(seen)
}

#[test]
fn every_recorded_frame_lies_in_its_function() {
    let test = "every_recorded_frame_lies_in_its_function";
    if let Some(seen) = frames_lie_in_their_functions("fixtures/torch/leaky-ext.txt.gz", test) {
        let lines: BTreeSet<u32> = seen.iter().map(|(_, l)| *l).collect();
        assert_eq!(
            lines.into_iter().collect::<Vec<_>>(),
            [
                11, 24, 26, 36, 44, 46, 48, 55, 57, 62, 64, 65, 71, 73, 82, 101, 102
            ]
        );
    }
    frames_lie_in_their_functions("fixtures/torch/leaky-ext-article-command.txt.gz", test);
}

#[test]
fn enclosing_functions_are_found_by_their_definitions() {
    let src: Vec<String> = [
        "int f(int x) {",
        "    if (x) {",
        "        return 1;",
        "    }",
        "}",
        "// between",
        "at::Tensor* g(long n) {",
        "    return nullptr;",
        "}",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(enclosing_function(&src, 3).as_deref(), Some("f"));
    assert_eq!(enclosing_function(&src, 6), None);
    assert_eq!(enclosing_function(&src, 8).as_deref(), Some("g"));
    assert_eq!(source_function("tensor_leak(long)"), "tensor_leak");
    assert_eq!(
        source_function("pybind11_exec_leaky_ext(_object*)"),
        "PYBIND11_MODULE"
    );
}
