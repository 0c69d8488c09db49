//! The same run read twice: an XML log (every frame shows its object) and the same log as
//! Valgrind's text would show it (objects hidden on frames with a source line). Replayed
//! against competing rules, wherever both readings are decided they must agree on whether an
//! error is suppressed and on the rule Valgrind credits: a reading that knows less may decide
//! less, never differently.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::{repo, root};
use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, Frame, GenFrame, LogFormat, LogItem, Stack};
use vgsupp::matcher::RuleFile;
use vgsupp::replay::{ErrorEvidence, Event, LogReplay, ReplayOptions, Rules, RulesOptions};
use vgsupp::supp::Version;

/// `stack` with the object of every frame that has a source line removed.
fn hide_objects(stack: &Stack) -> Stack {
    let mut out = Stack::new();
    for f in stack.iter() {
        let f = Frame {
            obj: if f.file.is_some() { None } else { f.obj },
            ..f
        };
        if out.push(f).is_err() {
            break;
        }
    }
    out
}

/// An item as a text log shows it.
fn as_text(item: &LogItem) -> LogItem {
    match item {
        LogItem::Error(e) => {
            let mut t: ErrorRecord = e.clone();
            t.xml_kind = None;
            t.stack = hide_objects(&e.stack);
            for a in &mut t.aux {
                a.stack = hide_objects(&a.stack);
            }
            LogItem::Error(t)
        }
        other => other.clone(),
    }
}

fn basename(p: &[u8]) -> &[u8] {
    p.rsplit(|&b| b == b'/').next().unwrap_or(p)
}

/// Rules that compete for the log's errors, from their `--gen-suppressions` blocks: each
/// block cut to its first two frames, and for each object the error's stack shows in text
/// too (frames without a source line), `...` then that object.
fn competing_rules(items: &[LogItem]) -> String {
    let mut out = String::new();
    let mut seen = BTreeSet::new();
    for (n, e) in items.iter().filter_map(LogItem::as_error).enumerate() {
        let Some(block) = &e.suppression else {
            continue;
        };
        let kind = String::from_utf8_lossy(&block.kind_line).into_owned();
        let extra = block
            .extra
            .as_ref()
            .map(|x| format!("   {}\n", String::from_utf8_lossy(x)))
            .unwrap_or_default();
        let frames: Vec<String> = block
            .frames
            .iter()
            .take(2)
            .map(|f| match f {
                GenFrame::Fun(n) => format!("   fun:{}\n", String::from_utf8_lossy(n)),
                GenFrame::Obj(o) => format!("   obj:{}\n", String::from_utf8_lossy(o)),
            })
            .collect();
        let body = format!("   {kind}\n{extra}{}", frames.concat());
        if seen.insert(body.clone()) {
            out.push_str(&format!("{{\n   top2-{n}\n{body}}}\n"));
        }
        // The first frame's function, then the second frame's object: in the text reading,
        // decided only where the stack itself tells the object.
        if let (Some(GenFrame::Fun(f0)), Some(obj)) =
            (block.frames.first(), e.stack.get(1).and_then(|f| f.obj))
        {
            let body = format!(
                "   {kind}\n{extra}   fun:{}\n   obj:{}\n",
                String::from_utf8_lossy(f0),
                String::from_utf8_lossy(obj)
            );
            if seen.insert(body.clone()) {
                out.push_str(&format!("{{\n   fun-then-obj-{n}\n{body}}}\n"));
            }
        }
        for f in e.stack.iter().filter(|f| f.file.is_none()) {
            let Some(obj) = f.obj else { continue };
            let body = format!(
                "   {kind}\n{extra}   ...\n   obj:*/{}\n",
                String::from_utf8_lossy(basename(obj))
            );
            if seen.insert(body.clone()) {
                out.push_str(&format!("{{\n   in-obj-{n}\n{body}}}\n"));
            }
        }
    }
    out
}

fn replay(rules: &Rules, format: LogFormat, items: &[LogItem]) -> Vec<ErrorEvidence> {
    let mut r = LogReplay::new(rules, format, ReplayOptions::default());
    let mut rows = Vec::new();
    let mut on = |ev: Event<'_>| -> Result<(), ()> {
        if let Event::Error(e) = ev {
            rows.push(e.clone());
        }
        Ok(())
    };
    for item in items {
        r.feed(item, &mut on).expect("replay");
    }
    r.finish(&mut on).expect("finish");
    rows
}

/// (errors, decided in XML, decided in text, decided in both)
fn compare(log: &Path) -> (usize, usize, usize, usize) {
    let (format, items) = detect::read_all(log).expect("log");
    assert_eq!(format, LogFormat::Xml);
    let rules_text = competing_rules(&items);
    assert!(!rules_text.is_empty(), "{}: no gen blocks", log.display());
    let rules = Rules::load(
        vec![RuleFile {
            path: "competing.supp".into(),
            source: rules_text.into_bytes(),
        }],
        RulesOptions {
            version: Version::new(19).expect("3.19"),
            num_callers: 40,
            go_on: true,
        },
    );
    let xml = replay(&rules, LogFormat::Xml, &items);
    let text_items: Vec<LogItem> = items.iter().map(as_text).collect();
    let text = replay(&rules, LogFormat::Text, &text_items);
    assert_eq!(xml.len(), text.len());
    let (mut dx, mut dt, mut both) = (0, 0, 0);
    for (x, t) in xml.iter().zip(&text) {
        dx += usize::from(!x.approximate());
        dt += usize::from(!t.approximate());
        if !x.approximate() && !t.approximate() {
            both += 1;
            assert_eq!(
                (x.suppressed, x.credited()),
                (t.suppressed, t.credited()),
                "{}:{}: XML and text disagree",
                log.display(),
                x.line
            );
        }
    }
    (xml.len(), dx, dt, both)
}

#[test]
fn xml_and_its_text_rendering_agree_wherever_both_decide() {
    let mut logs: Vec<PathBuf> = ["basic", "libuse", "cxx"]
        .iter()
        .map(|p| repo(&format!("tests/data/match/{p}/baseline.xml")))
        .collect();
    logs.push(repo("tests/data/logs/xml/cudart12-libcuda535.xml"));
    let torch = root().join("../shared/fixtures/torch/leaky-ext.xml.gz");
    if std::env::var("VGSUPP_RENDER_TORCH").is_ok_and(|v| v == "1") {
        // 575 MB of XML: slow in a debug build, so only on request.
        logs.push(torch);
    }
    let mut decided_in_both = 0;
    for log in &logs {
        let (n, dx, dt, both) = compare(log);
        eprintln!(
            "match_render: {}: {n} errors, decided: XML {dx}, text {dt}, both {both}",
            log.display()
        );
        assert!(dx > 0, "{}: the XML decides something", log.display());
        decided_in_both += both;
    }
    assert!(decided_in_both > 0);
}
