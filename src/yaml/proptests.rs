//! Property: any tree written and read back is the same tree, and writing what was read is
//! stable (a second rewrite changes no byte).

use proptest::prelude::*;

use super::read::{Limits, read};
use super::tree::{Document, Entry, Item, Map, Node, Notes, Scalar, Seq, Style, Value};
use super::write::write;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,12}",
        "[a-z0-9 .:#'\"\\-]{0,10}",
        prop::sample::select(vec![
            "",
            "12",
            "3.19",
            "null",
            "~",
            "true",
            "yes",
            "a: b",
            "#x",
            "x #y",
            "- x",
            "@o",
            "\n",
            " lead",
            "x\n\ny\n",
            "x\n",
            "a\nb",
            "it's",
            "\t",
            "\r\n",
            "\u{85}",
            "\u{feff}",
            "...",
            "---",
            "[a, b]",
            "{a: 1}",
            "*x",
            "&x",
            "!x",
            "%x",
            "|",
            ">",
            "\\",
            "1:30",
            "2026-11-30",
            "0x1F",
            "a -",
            "a ?",
            "-a",
            "?a",
            ":a",
            "a -b",
            ".inf",
            "\u{1}",
        ])
        .prop_map(str::to_owned),
    ]
}

fn style() -> impl Strategy<Value = Style> {
    prop::sample::select(vec![
        Style::Plain,
        Style::SingleQuoted,
        Style::DoubleQuoted,
        Style::Literal,
        Style::Folded,
    ])
}

fn notes() -> impl Strategy<Value = Notes> {
    (
        any::<bool>(),
        prop::collection::vec("[ -~]{0,8}", 0..2),
        prop::option::of("[ -~]{0,8}"),
    )
        .prop_map(|(blank_before, before, trailing)| Notes {
            blank_before,
            before,
            trailing,
        })
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = (text(), style())
        .prop_map(|(text, style)| Node::new(Value::Scalar(Scalar { text, style })));
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            (
                prop::collection::vec((text(), inner.clone(), notes()), 0..5),
                any::<bool>()
            )
                .prop_map(|(entries, flow)| {
                    let mut map = Map {
                        entries: Vec::new(),
                        flow,
                    };
                    for (key, value, notes) in entries {
                        if map.get(&key).is_none() {
                            map.entries.push(Entry {
                                key,
                                value,
                                line: 0,
                                notes,
                            });
                        }
                    }
                    Node::new(Value::Map(map))
                }),
            (prop::collection::vec((inner, notes()), 0..5), any::<bool>()).prop_map(
                |(items, flow)| {
                    Node::new(Value::Seq(Seq {
                        items: items
                            .into_iter()
                            .map(|(node, notes)| Item { node, notes })
                            .collect(),
                        flow,
                    }))
                }
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn written_trees_read_back_the_same(root in node(), end in prop::collection::vec("[ -~]{0,8}", 0..2)) {
        let doc = Document { root: Some(root), end_comments: end };
        let out = write(&doc);
        let back = read(out.as_bytes(), &Limits::SIDECAR)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{out}")))?;
        let same = match (&doc.root, &back.root) {
            (Some(a), Some(b)) => a.same(b),
            _ => false,
        };
        prop_assert!(same, "not the same tree:\n{}\n{:?}", out, back.root);
        let again = write(&back);
        let back2 = read(again.as_bytes(), &Limits::SIDECAR)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{again}")))?;
        prop_assert_eq!(write(&back2), again);
    }
}
