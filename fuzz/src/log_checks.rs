//! Invariants of the log readers, for any bytes.
//!
//! Shared, like `checks.rs`, by the `logs` fuzz target and the property tests
//! (`tests/cli/properties.rs` includes this file with `#[path]`). Checks return `Err` rather
//! than panicking, so that proptest can shrink a failure.

use std::io::Write as _;

use vgsupp::logs::LogItem;
use vgsupp::logs::parallel::ParallelTextReader;
use vgsupp::logs::text::TextReader;
use vgsupp::logs::xml::XmlReader;
use vgsupp::logs::xml::parallel::ParallelXmlReader;

/// The result of a check: `Err` says what broke.
pub type LogCheck = Result<(), String>;

/// Reads `data` as a text log and as an XML log, each sequentially and on two threads with
/// `chunk`-byte chunks. Nothing panics or fails (the bytes are in memory or in a temporary
/// file), every line number lies within the log, every stack and block can be walked, the
/// parallel readers give exactly the sequential readers' items, and the XML reader's fast
/// path for frames gives what reading them token by token gives.
pub fn check_logs(data: &[u8], chunk: u64) -> LogCheck {
    // Lines, counting a last one without `\n`; line numbers are 1-based.
    let lines = data.split(|b| *b == b'\n').count() as u64;
    let text: Vec<LogItem> = TextReader::new(data)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("text reader failed in memory: {e}"))?;
    for item in &text {
        check_item(item, lines).map_err(|e| format!("text: {e}"))?;
    }

    // As it reads by default (threads stop when the guesses keep failing), and with the
    // guesses used for every chunk.
    for never_alone in [false, true] {
        let mut file = tempfile::tempfile().map_err(|e| format!("tempfile: {e}"))?;
        file.write_all(data)
            .map_err(|e| format!("writing the tempfile: {e}"))?;
        let mut reader = ParallelTextReader::new(file, "log", 2, chunk)
            .map_err(|e| format!("parallel reader did not open: {e}"))?;
        if never_alone {
            reader = reader.never_alone();
        }
        let parallel: Vec<LogItem> = reader
            .collect::<Result<_, _>>()
            .map_err(|e| format!("parallel reader failed: {e}"))?;
        if parallel != text {
            let at = parallel
                .iter()
                .zip(&text)
                .position(|(p, t)| p != t)
                .unwrap_or(parallel.len().min(text.len()));
            return Err(format!(
                "chunks of {chunk} bytes (never alone: {never_alone}): the parallel reader's \
                 items differ from item {at} ({} items against {}):\nparallel: {:?}\n\
                 sequential: {:?}",
                parallel.len(),
                text.len(),
                parallel.get(at),
                text.get(at)
            ));
        }
    }

    let xml: Vec<LogItem> = XmlReader::new(data)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("XML reader failed in memory: {e}"))?;
    for item in &xml {
        check_item(item, lines).map_err(|e| format!("xml: {e}"))?;
    }
    let tokens: Vec<LogItem> = XmlReader::new(data)
        .token_by_token()
        .collect::<Result<_, _>>()
        .map_err(|e| format!("XML reader failed in memory: {e}"))?;
    same("XML frames read token by token", &tokens, &xml)?;
    for never_alone in [false, true] {
        let mut file = tempfile::tempfile().map_err(|e| format!("tempfile: {e}"))?;
        file.write_all(data)
            .map_err(|e| format!("writing the tempfile: {e}"))?;
        let mut reader = ParallelXmlReader::new(file, "log", 2, chunk)
            .map_err(|e| format!("parallel XML reader did not open: {e}"))?;
        if never_alone {
            reader = reader.never_alone();
        }
        let parallel: Vec<LogItem> = reader
            .collect::<Result<_, _>>()
            .map_err(|e| format!("parallel XML reader failed: {e}"))?;
        same(
            &format!("XML in chunks of {chunk} bytes (never alone: {never_alone})"),
            &parallel,
            &xml,
        )?;
    }
    Ok(())
}

/// `got` is `want`, item for item; else where they part.
fn same(what: &str, got: &[LogItem], want: &[LogItem]) -> LogCheck {
    if got == want {
        return Ok(());
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .unwrap_or(got.len().min(want.len()));
    Err(format!(
        "{what}: the items differ from item {at} ({} items against {}):\ngot: {:?}\n\
         want: {:?}",
        got.len(),
        want.len(),
        got.get(at),
        want.get(at)
    ))
}

fn check_item(item: &LogItem, lines: u64) -> LogCheck {
    let line = match item {
        LogItem::Error(e) => {
            let stacks = std::iter::once(&e.stack).chain(e.aux.iter().map(|a| &a.stack));
            for s in stacks {
                if s.iter().count() != s.len() || s.iter().rev().count() != s.len() {
                    return Err(format!("a stack of {} frames does not walk", s.len()));
                }
            }
            if let Some(g) = &e.suppression
                && g.frames.iter().count() != g.frames.len()
            {
                return Err("a block's frames do not walk".to_owned());
            }
            e.line
        }
        LogItem::Warning { line, .. } | LogItem::Fatal { line, .. } => *line,
        _ => return Ok(()),
    };
    if line > lines + 1 {
        return Err(format!("line {line} of a log of {lines} lines: {item:?}"));
    }
    Ok(())
}
