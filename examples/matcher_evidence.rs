//! Measures how much of a log the matcher decides, and checks inferred objects against an
//! XML log's (issue 9, items 3 and 5). A development harness, not part of the CLI.
//!
//! ```text
//! cargo run --release --example matcher_evidence -- [OPTIONS] LOG [-s RULES]...
//!   --no-gen     ignore --gen-suppressions blocks (a demangled-only log)
//!   --as-text    read an XML log as Valgrind's text shows it: objects hidden on frames
//!                with a source line
//!   --objects    infer hidden objects (ObjectMap); `Reading syms` / `Discarding syms`
//!                lines of the raw log are fed in log order
//!   --all-loaded (XML) treat every object the log shows as loaded from the start
//!   --check      (XML) compare every inferred object with the XML's
//!   --before     treat demangled names as unknown (the matcher before issue 9)
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result, bail};
use vgsupp::logs::detect;
use vgsupp::logs::record::{ErrorRecord, Frame, LogItem, Stack};
use vgsupp::matcher::input::Known;
use vgsupp::matcher::objects::ObjectMap;
use vgsupp::matcher::{MatchInput, RuleFile, RuleSet, Truth};
use vgsupp::replay::credit::{Candidates, SearchOrder};
use vgsupp::supp::kinds::{Tool, Version};

/// A `Reading syms` / `Discarding syms` line.
enum Event {
    Loaded(Vec<u8>),
    Unloaded(Vec<u8>, u64, u64),
}

/// The load events of a raw text log, by line, with their PID.
fn load_events(path: &Path) -> Result<Vec<(u64, u32, Event)>> {
    let file = std::fs::File::open(path)?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut out = Vec::new();
    let mut last_read: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut failed: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    for (n, line) in BufReader::new(reader).split(b'\n').enumerate() {
        let line = line?;
        let Some(rest) = line.strip_prefix(b"--") else {
            continue;
        };
        let Some(end) = rest.iter().position(|&b| b == b'-') else {
            continue;
        };
        let Ok(pid) = std::str::from_utf8(&rest[..end])
            .unwrap_or("")
            .parse::<u32>()
        else {
            continue;
        };
        let body = &rest[end..];
        let body = body.strip_prefix(b"-- ").unwrap_or(body);
        let line_no = n as u64 + 1;
        if let Some(p) = body.strip_prefix(b"Reading syms from ") {
            // A read that failed ("ELF section outside all mapped regions") is tried again
            // when the object's next segment is mapped: the same load, announced twice.
            let retry = failed.get(&pid).is_some_and(|f: &Vec<u8>| f == p);
            failed.remove(&pid);
            last_read.insert(pid, p.to_vec());
            if !retry {
                out.push((line_no, pid, Event::Loaded(p.to_vec())));
            }
        } else if body.starts_with(b"ELF section outside all mapped regions") {
            if let Some(p) = last_read.get(&pid) {
                failed.insert(pid, p.clone());
            }
        } else if let Some(r) = body.strip_prefix(b"Discarding syms at ") {
            let s = String::from_utf8_lossy(r);
            let Some((range, rest)) = s.split_once(" in ") else {
                continue;
            };
            let Some((a, b)) = range.split_once('-') else {
                continue;
            };
            let hex = |x: &str| u64::from_str_radix(x.trim_start_matches("0x"), 16).ok();
            let path = rest.rsplit_once(" (have_dinfo").map_or(rest, |(p, _)| p);
            if let (Some(a), Some(b)) = (hex(a), hex(b)) {
                out.push((
                    line_no,
                    pid,
                    Event::Unloaded(path.as_bytes().to_vec(), a, b),
                ));
            }
        }
    }
    Ok(out)
}

/// `err` as Valgrind's text shows it: no object on frames with a source line.
fn as_text(err: &ErrorRecord) -> ErrorRecord {
    let hide = |s: &Stack| -> Stack {
        let mut out = Stack::new();
        for f in s.iter() {
            let f = Frame {
                obj: if f.file.is_some() { None } else { f.obj },
                ..f
            };
            if out.push(f).is_err() {
                break;
            }
        }
        out
    };
    let mut e = err.clone();
    e.xml_kind = None;
    e.stack = hide(&err.stack);
    for a in &mut e.aux {
        a.stack = hide(&a.stack);
    }
    e
}

#[derive(Default)]
struct Check {
    hidden: u64,
    decided: u64,
    wrong: u64,
    one_of: u64,
    one_of_missing: u64,
    unknown: u64,
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut no_gen, mut text, mut objects, mut all_loaded, mut check) =
        (false, false, false, false, false);
    // Demangled names undecided, as before issue 9.
    let mut before = false;
    let mut log = None;
    let mut rules = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-gen" => no_gen = true,
            "--as-text" => text = true,
            "--objects" => objects = true,
            "--all-loaded" => all_loaded = true,
            "--check" => check = true,
            "--before" => before = true,
            "-s" => rules.push(args.next().context("-s needs a file")?),
            _ if log.is_none() => log = Some(a),
            _ => bail!("unexpected argument {a}"),
        }
    }
    let log = log.context("no log")?;
    let files = rules
        .iter()
        .map(|p| {
            Ok(RuleFile {
                path: p.clone(),
                source: std::fs::read(p)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let set = RuleSet::load(
        files,
        &[Tool::Memcheck],
        Version::new(19).context("3.19")?,
        40,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let path = Path::new(&log);
    let raw = std::fs::read(path).unwrap_or_default();
    let keep_debuginfo = raw.windows(21).any(|w| w == b"--keep-debuginfo=yes");
    drop(raw);
    let events = if objects {
        load_events(path)?
    } else {
        Vec::new()
    };
    let listed_pids: std::collections::BTreeSet<u32> = events.iter().map(|e| e.1).collect();
    let (_, items) = detect::open(path)?;
    let items: Vec<LogItem> = items.collect::<Result<_, _>>()?;
    let mut every_obj: BTreeMap<Option<u32>, Vec<Vec<u8>>> = BTreeMap::new();
    if all_loaded {
        for e in items.iter().filter_map(LogItem::as_error) {
            let v = every_obj.entry(e.pid).or_default();
            for f in e
                .stack
                .iter()
                .chain(e.aux.iter().flat_map(|a| a.stack.iter()))
            {
                if let Some(o) = f.obj
                    && o != b"???"
                    && !v.iter().any(|x| x == o)
                {
                    v.push(o.to_vec());
                }
            }
        }
    }
    let mut maps: BTreeMap<Option<u32>, ObjectMap> = BTreeMap::new();
    let mut orders: BTreeMap<Option<u32>, SearchOrder> = BTreeMap::new();
    let mut next_event = 0;
    let (mut errors, mut approximate, mut suppressed) = (0u64, 0u64, 0u64);
    let mut chk = Check::default();
    for item in &items {
        let Some(err) = item.as_error() else { continue };
        let map = maps.entry(err.pid).or_insert_with(|| {
            let listed = err.pid.is_some_and(|p| listed_pids.contains(&p)) || all_loaded;
            let mut m = if objects && listed && !keep_debuginfo {
                ObjectMap::with_loads_listed()
            } else {
                ObjectMap::new()
            };
            for o in every_obj.get(&err.pid).into_iter().flatten() {
                m.observe_loaded(o);
            }
            m
        });
        while let Some((line, pid, ev)) = events.get(next_event) {
            if *line > err.line {
                break;
            }
            if Some(*pid) == err.pid {
                match ev {
                    Event::Loaded(p) => map.observe_loaded(p),
                    Event::Unloaded(p, a, b) => map.observe_unloaded(p, *a, *b),
                }
            }
            next_event += 1;
        }
        let mut shown = if text { as_text(err) } else { err.clone() };
        if no_gen {
            shown.suppression = None;
        }
        if objects {
            map.observe(&shown);
        }
        let mut input = MatchInput::from_record_with(&shown, false, objects.then_some(&*map));
        if before {
            for f in &mut input.frames {
                if matches!(f.fun, Known::Demangled { .. }) {
                    f.fun = Known::Unknown;
                }
            }
        }
        if check {
            for (i, (truth, f)) in err.stack.iter().zip(shown.stack.iter()).enumerate() {
                if f.obj.is_some() || f.file.is_none() {
                    continue;
                }
                chk.hidden += 1;
                // A text log has no truth: count what was inferred only.
                let truth = truth.obj.unwrap_or(b"");
                match input.frames.get(i).map(|f| &f.obj) {
                    Some(Known::Yes(o)) => {
                        chk.decided += 1;
                        if o != truth && !truth.is_empty() {
                            chk.wrong += 1;
                            eprintln!(
                                "WRONG line {}: frame {i} ip {:?}: inferred {} but XML says {}",
                                err.line,
                                f.ip,
                                String::from_utf8_lossy(o),
                                String::from_utf8_lossy(truth)
                            );
                        }
                    }
                    Some(Known::OneOf(c)) => {
                        chk.one_of += 1;
                        if !truth.is_empty() && !c.iter().any(|o| o == truth) {
                            chk.one_of_missing += 1;
                        }
                    }
                    _ => chk.unknown += 1,
                }
            }
        }
        let tool = err.tool.unwrap_or(Tool::Memcheck);
        let mut cands = Candidates::default();
        for (id, t) in set.all_matches(tool, &input) {
            match t {
                Truth::Yes => cands.yes.push(id),
                Truth::Unknown => cands.maybe.push(id),
                Truth::No => {}
            }
        }
        // One error at a time (no tie groups): what the log's facts decide, not the order.
        let v = orders
            .entry(err.pid)
            .or_insert_with(|| SearchOrder::new(set.rules.len()))
            .group(&[cands], 0, |_| 0)
            .remove(0);
        errors += 1;
        approximate += u64::from(v.certain().is_none() && !v.possible.is_empty());
        suppressed += u64::from(v.surely_suppressed);
    }
    println!(
        "{log}: errors {errors}, suppressed {suppressed}, approximate {approximate} ({:.1} %)",
        100.0 * approximate as f64 / errors.max(1) as f64
    );
    if check {
        println!(
            "  hidden objects {}: decided {} (wrong {}), candidate sets {} (truth missing {}), unknown {}",
            chk.hidden, chk.decided, chk.wrong, chk.one_of, chk.one_of_missing, chk.unknown
        );
    }
    for (pid, m) in &maps {
        if objects && !m.loads_listed() && listed_pids.contains(&pid.unwrap_or(0)) {
            println!("  pid {pid:?}: the evidence contradicted the listing; within-stack only");
        }
    }
    Ok(())
}
