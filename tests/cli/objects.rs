//! ObjectMap on a real recording: a library unloaded and another loaded over its range
//! (tests/data/objects/README.md); the XML twin gives every frame's object.

use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, LogItem};
use vgsupp::matcher::input::Known;
use vgsupp::matcher::objects::ObjectMap;

use crate::common::root;

fn errors(name: &str) -> Vec<ErrorRecord> {
    let (_, items) = detect::read_all(&root().join("tests/data/objects").join(name)).expect("read");
    items
        .into_iter()
        .filter_map(|i| match i {
            LogItem::Error(e) => Some(e),
            _ => None,
        })
        .collect()
}

#[test]
fn reload_over_an_unloaded_range() {
    let text =
        std::fs::read_to_string(root().join("tests/data/objects/reload-v.txt")).expect("read");
    let text_errors = errors("reload-v.txt");
    let xml_errors = errors("reload.xml");
    assert_eq!(text_errors.len(), xml_errors.len());
    let mut map = ObjectMap::with_loads_listed();
    let mut next = text_errors.iter().zip(&xml_errors).peekable();
    let (mut checked, mut excluded_p1) = (0, 0);
    for (n, line) in text.lines().enumerate() {
        let n = n as u64 + 1;
        while let Some((t, x)) = next.peek() {
            if t.line > n {
                break;
            }
            map.observe(t);
            let inferred = map.infer(&t.stack);
            for ((tf, xf), k) in t.stack.iter().zip(x.stack.iter()).zip(&inferred) {
                if tf.obj.is_some() || tf.file.is_none() {
                    continue;
                }
                let truth = xf.obj.expect("XML shows every object");
                match k {
                    Known::Yes(o) => assert_eq!(o, truth),
                    Known::OneOf(c) => {
                        assert!(c.iter().any(|o| o == truth), "{c:?}");
                        if t.leak.is_some() {
                            // libp1 was unloaded before the leak check: never a candidate.
                            assert!(!c.iter().any(|o| o.ends_with(b"libp1.so")));
                            excluded_p1 += 1;
                        }
                    }
                    other => panic!("{other:?}"),
                }
                checked += 1;
            }
            next.next();
        }
        if let Some(p) = line.split("Reading syms from ").nth(1) {
            map.observe_loaded(p.as_bytes());
        } else if let Some(r) = line.split("Discarding syms at ").nth(1) {
            let (range, rest) = r.split_once(" in ").expect("range");
            let (a, b) = range.split_once('-').expect("a-b");
            let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex");
            let path = rest.split(" (have_dinfo").next().expect("path");
            map.observe_unloaded(path.as_bytes(), hex(a), hex(b));
        }
    }
    assert!(map.loads_listed(), "nothing contradicted the listing");
    assert_eq!(checked, 8);
    // Two loss records, each with two frames printed with a source line (p2_leak, main).
    assert_eq!(excluded_p1, 4);
}
