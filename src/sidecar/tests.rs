//! The sidecar's round trip, unknown keys, comments, merge and rewrite of invalid values.

use proptest::prelude::*;

use super::*;
use crate::date::Date;
use crate::yaml::{Entry, Node};

/// The PRODUCT.md example, with unknown keys at every level and comments.
const DOC: &str = "# Provenance of example.supp (edited by hand too)
version: 1
team: ml-infra  # unknown top-level key
rules:
  # the driver's ioctl buffers
  cuda-driver.Param.ioctl.cuInit:
    fingerprint: 3f2a9c1b7d0e  # hash of the rule's canonical body (name excluded)
    origin: cuda-driver
    reason: libcuda passes ioctl buffers that the kernel fills; memcheck cannot see the writes
    owner: \"@ml-infra\"
    tracking: https://example.org/issues/123
    created: 2026-11-30
    expires: 2027-02-28
    reviewed-by: alice
    generated:
      tool: vgsupp 0.1.0 gen --style anchored
      from:
        - {log: ci/logs/test_ext.log, sha256: ab12, valgrind: 3.19.0, command: python test_ext.py, errors: 3, runner: gpu-7}
      environment: {libcuda: 535.104.05, libcudart: \"12\", python: \"3.11\", torch: 2.5.1}
      host: ci-3
    seen: {first: 2026-11-30, last: 2026-12-14, hits: 57, logs: 12, note: weekly}

  hand-written:
    reason: |
      glibc's dl_init reads uninitialised padding
      (see the bug below)
    owner: bob
    created: 2025-01-02
retired:
  old-rule: {retired: 2026-12-20, why: \"stale: 0 hits in 14 logs that loaded libcuda\", origin: cuda-driver}
# trailing notes stay
";

fn decoded(src: &str) -> Sidecar {
    let d = decode(src.as_bytes()).expect("reads");
    assert_eq!(d.problems, [], "{src}");
    d.sidecar
}

#[test]
fn unchanged_model_rewrites_byte_for_byte() {
    let s = decoded(DOC);
    assert_eq!(encode(&s).expect("encodes"), DOC);
    let unknown: Vec<&str> = s.rules[0].unknown().map(|(k, _)| k).collect();
    assert_eq!(unknown, ["reviewed-by"]);
}

#[test]
fn edits_touch_only_their_fields() {
    let mut s = decoded(DOC);
    let r = s.rule_mut("hand-written").expect("rule");
    r.expires = Date::new(2026, 6, 1);
    r.owner = None;
    r.fingerprint = Some("0123456789ab".into());
    s.rules[0].seen.as_mut().expect("seen").hits = Some(60);
    s.rules[0]
        .generated
        .as_mut()
        .expect("generated")
        .environment
        .push(("driver".into(), "12.8".into()));
    let out = encode(&s).expect("encodes");
    let expected = DOC
        .replace(
            "seen: {first: 2026-11-30, last: 2026-12-14, hits: 57, logs: 12, note: weekly}",
            "seen: {first: 2026-11-30, last: 2026-12-14, hits: 60, logs: 12, note: weekly}",
        )
        .replace("torch: 2.5.1}", "torch: 2.5.1, driver: \"12.8\"}")
        .replace(
            "  hand-written:\n    reason",
            "  hand-written:\n    fingerprint: 0123456789ab\n    reason",
        )
        .replace(
            "    owner: bob\n    created: 2025-01-02\n",
            "    created: 2025-01-02\n    expires: 2026-06-01\n",
        );
    assert_eq!(out, expected);
    assert_eq!(decoded(&out), s);
}

#[test]
fn invalid_values_are_never_destroyed() {
    let src = "version: 1\nrules:\n  a:\n    created: someday\n    seen: {hits: many}\n    owner: [x, y]\n  b: 7\n";
    let d = decode(src.as_bytes()).expect("reads");
    assert_eq!(d.problems.len(), 4);
    let mut s = d.sidecar;
    assert_eq!(encode(&s).expect("encodes"), src);
    s.rule_mut("a").expect("a").reason = Some("why".into());
    let out = encode(&s).expect("encodes");
    assert_eq!(
        out,
        "version: 1\nrules:\n  a:\n    reason: why\n    created: someday\n    seen: {hits: many}\n    owner: [x, y]\n  b: 7\n"
    );
}

#[test]
fn new_sidecar_and_removal_and_retire() {
    let mut s = Sidecar::new();
    let mut r = RuleEntry::new("python.Leak.PyObject_Malloc");
    r.origin = Some("python".into());
    r.reason = Some("CPython's small-object allocator keeps arenas for the process's life".into());
    r.owner = Some("@ml-infra".into());
    r.created = Date::new(2026, 11, 30);
    r.expires = Date::new(2027, 2, 28);
    r.generated = Some(Generated {
        tool: Some("vgsupp 0.1.0 gen".into()),
        from: vec![Source {
            log: Some("run.log".into()),
            sha256: Some("ff".repeat(32)),
            valgrind: Some("3.19.0".into()),
            command: Some("python t.py".into()),
            errors: Some(12),
            ..Source::default()
        }],
        environment: vec![("python".into(), "3.11".into())],
        ..Generated::default()
    });
    r.seen = Some(Seen {
        first: Date::new(2026, 11, 30),
        hits: Some(12),
        ..Seen::default()
    });
    s.rules.push(r);
    let out = encode(&s).expect("encodes");
    assert_eq!(
        out,
        format!(
            "version: 1\nrules:\n  python.Leak.PyObject_Malloc:\n    origin: python\n    reason: CPython's small-object allocator keeps arenas for the process's life\n    owner: \"@ml-infra\"\n    created: 2026-11-30\n    expires: 2027-02-28\n    generated:\n      tool: vgsupp 0.1.0 gen\n      from:\n        - {{log: run.log, sha256: {}, valgrind: 3.19.0, command: python t.py, errors: 12}}\n      environment: {{python: \"3.11\"}}\n    seen: {{first: 2026-11-30, hits: 12}}\n",
            "ff".repeat(32)
        )
    );
    assert_eq!(decoded(&out), s);

    let mut s = decoded(DOC);
    assert!(s.retire(
        "cuda-driver.Param.ioctl.cuInit",
        Date::new(2027, 1, 5).expect("date"),
        "stale"
    ));
    assert!(!s.retire("nope", Date::new(2027, 1, 5).expect("date"), "stale"));
    let out = encode(&s).expect("encodes");
    let back = decoded(&out);
    assert_eq!(back.rules.len(), 1);
    let gone = back
        .retired
        .iter()
        .find(|r| r.name == "cuda-driver.Param.ioctl.cuInit")
        .expect("retired");
    assert_eq!(gone.why.as_deref(), Some("stale"));
    assert!(out.contains("  # the driver's ioctl buffers\n  cuda-driver.Param.ioctl.cuInit:\n    retired: 2027-01-05\n    why: stale\n    fingerprint: 3f2a9c1b7d0e"), "{out}");
    assert!(
        out.contains("      host: ci-3\n"),
        "unknown keys move with the entry:\n{out}"
    );
}

#[test]
fn other_versions_are_not_rewritten() {
    let d = decode(b"version: 2\nrules: {}\n").expect("reads");
    assert_eq!(encode(&d.sidecar), Err(EncodeError::UnknownVersion(2)));
}

fn source(log: &str, sha: Option<&str>, errors: u64) -> Source {
    Source {
        log: Some(log.into()),
        sha256: sha.map(str::to_owned),
        errors: Some(errors),
        ..Source::default()
    }
}

#[test]
fn merging_generated_rules() {
    let mut s = decoded(DOC);
    let mut again = RuleEntry::new("cuda-driver.Param.ioctl.cuInit");
    again.fingerprint = Some("aaaaaaaaaaaa".into());
    again.origin = Some("cuda-libs".into());
    again.reason = Some("generated reason".into());
    again.owner = Some("@someone-else".into());
    again.created = Date::new(2026, 12, 31);
    again.expires = Date::new(2027, 3, 31);
    again.generated = Some(Generated {
        tool: Some("vgsupp 0.2.0 gen".into()),
        from: vec![
            source("elsewhere/test_ext.log", Some("ab12"), 9),
            source("ci/logs/new.log", Some("cd34"), 4),
        ],
        environment: vec![
            ("python".into(), "3.12".into()),
            ("nccl".into(), "2.21".into()),
        ],
        ..Generated::default()
    });
    again.seen = Some(Seen {
        first: Date::new(2026, 11, 1),
        last: Date::new(2026, 12, 1),
        hits: Some(3),
        logs: Some(30),
        ..Seen::default()
    });
    let mut fresh = RuleEntry::new("python.Leak.x");
    fresh.created = Date::new(2026, 12, 31);
    let done = merge(&mut s, vec![again.clone(), fresh]);
    assert_eq!(
        done,
        merge::Merged {
            added: 1,
            updated: 1
        }
    );
    let r = &s.rules[0];
    assert_eq!(r.fingerprint.as_deref(), Some("aaaaaaaaaaaa"));
    assert_eq!(r.origin.as_deref(), Some("cuda-driver"), "kept");
    assert_eq!(r.owner.as_deref(), Some("@ml-infra"), "kept");
    assert_eq!(r.created, Date::new(2026, 11, 30), "earliest");
    assert_eq!(r.expires, Date::new(2027, 2, 28), "kept");
    let g = r.generated.as_ref().expect("generated");
    assert_eq!(g.tool.as_deref(), Some("vgsupp 0.2.0 gen"));
    let logs: Vec<_> = g
        .from
        .iter()
        .map(|f| (f.log.as_deref(), f.errors))
        .collect();
    assert_eq!(
        logs,
        [
            (Some("ci/logs/test_ext.log"), Some(3)),
            (Some("ci/logs/new.log"), Some(4))
        ]
    );
    let env: Vec<&str> = g.environment.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(env, ["libcuda", "libcudart", "python", "torch", "nccl"]);
    let seen = r.seen.as_ref().expect("seen");
    assert_eq!(
        (seen.first, seen.last, seen.hits, seen.logs),
        (
            Date::new(2026, 11, 1),
            Date::new(2026, 12, 14),
            Some(57),
            Some(30)
        )
    );
    assert_eq!(
        s.rules.last().map(|r| r.name.as_str()),
        Some("python.Leak.x")
    );

    // Merging the same thing twice changes nothing more.
    let once = encode(&s).expect("encodes");
    merge(&mut s, vec![again]);
    assert_eq!(encode(&s).expect("encodes"), once);
    assert!(once.contains("reviewed-by: alice") && once.contains("runner: gpu-7"));
    assert_eq!(decoded(&once), s);
}

// ---- property: any model written and read back is the same model --------------------

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,10}",
        "[a-z0-9@:#' .\\-]{0,12}",
        prop::sample::select(vec![
            "",
            "12",
            "3.11",
            "null",
            "~",
            "yes",
            "a: b",
            "x\ny\n",
            " pad ",
            "2026-01-01"
        ])
        .prop_map(str::to_owned),
    ]
}

fn date() -> impl Strategy<Value = Date> {
    (0_i64..40_000).prop_map(|d| {
        Date::from_unix_days(d).unwrap_or_else(|| Date::new(2000, 1, 1).expect("date"))
    })
}

fn unknown_entries() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(("x-[a-z]{1,6}", text()), 0..3)
}

fn with_unknown(mut m: crate::yaml::Map, extra: Vec<(String, String)>) -> crate::yaml::Map {
    for (k, v) in extra {
        if m.get(&k).is_none() {
            m.entries.push(Entry::new(&k, Node::string(&v)));
        }
    }
    m
}

fn source_strategy() -> impl Strategy<Value = Source> {
    (
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(any::<u64>()),
        unknown_entries(),
    )
        .prop_map(|(log, sha256, valgrind, command, errors, extra)| Source {
            log,
            sha256,
            valgrind,
            command,
            errors,
            node: with_unknown(crate::yaml::Map::default(), extra),
        })
}

fn rule_strategy() -> impl Strategy<Value = RuleEntry> {
    let strings = (
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
    );
    let generated = prop::option::of((
        prop::option::of(text()),
        prop::collection::vec(source_strategy(), 0..3),
        prop::collection::btree_map("[a-z]{1,6}", text(), 0..3),
        unknown_entries(),
    ));
    let seen = prop::option::of((
        prop::option::of(date()),
        prop::option::of(date()),
        prop::option::of(any::<u64>()),
        prop::option::of(any::<u64>()),
    ));
    (
        strings,
        prop::option::of(date()),
        prop::option::of(date()),
        generated,
        seen,
        unknown_entries(),
    )
        .prop_map(
            |(
                (fingerprint, origin, reason, owner, tracking),
                created,
                expires,
                generated,
                seen,
                extra,
            )| RuleEntry {
                fingerprint,
                origin,
                reason,
                owner,
                tracking,
                created,
                expires,
                generated: generated.map(|(tool, from, env, extra)| Generated {
                    tool,
                    from,
                    environment: env.into_iter().collect(),
                    node: with_unknown(crate::yaml::Map::default(), extra),
                }),
                seen: seen.map(|(first, last, hits, logs)| Seen {
                    first,
                    last,
                    hits,
                    logs,
                    ..Seen::default()
                }),
                node: with_unknown(crate::yaml::Map::default(), extra),
                ..RuleEntry::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn written_models_read_back_the_same(
        rules in prop::collection::btree_map("\\PC{1,12}", rule_strategy(), 0..4),
    ) {
        let mut s = Sidecar::new();
        for (name, mut r) in rules {
            r.name = name;
            s.rules.push(r);
        }
        let out = encode(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let d = decode(out.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}\n{out}")))?;
        prop_assert_eq!(&d.problems, &vec![], "{}", out);
        prop_assert_eq!(&d.sidecar, &s, "{}", out);
        prop_assert_eq!(encode(&d.sidecar).map_err(|e| TestCaseError::fail(e.to_string()))?, out);
    }
}

fn notes() -> impl Strategy<Value = crate::yaml::Notes> {
    (
        any::<bool>(),
        prop::collection::vec("[ -~]{0,10}", 0..3),
        prop::option::of("[ -~]{0,10}"),
    )
        .prop_map(|(blank_before, before, trailing)| crate::yaml::Notes {
            blank_before,
            before,
            trailing,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Comments a person wrote around rules and at the end of the file survive a rewrite
    /// (with the model), and a second rewrite changes no byte.
    #[test]
    fn comments_survive_a_rewrite(
        rules in prop::collection::btree_map("[a-z][a-z.]{0,10}", (rule_strategy(), notes()), 1..4),
        end in prop::collection::vec("[ -~]{0,10}", 0..3),
    ) {
        let mut s = Sidecar::new();
        for (name, (mut r, n)) in rules {
            r.name = name;
            r.notes = n;
            s.rules.push(r);
        }
        s.doc.end_comments = end.clone();
        let out = encode(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let d = decode(out.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}\n{out}")))?;
        prop_assert_eq!(&d.sidecar, &s, "{}", out);
        for (a, b) in s.rules.iter().zip(&d.sidecar.rules) {
            prop_assert_eq!(&a.notes, &b.notes, "{}", out);
        }
        prop_assert_eq!(&d.sidecar.doc.end_comments, &end, "{}", out);
        prop_assert_eq!(encode(&d.sidecar).map_err(|e| TestCaseError::fail(e.to_string()))?, out);
    }
}
