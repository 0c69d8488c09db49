//! Log ingest throughput: the reader alone (no matching, no output), sequential and on
//! several threads, on a log given on the command line (text or XML, by its content).
//!
//! ```text
//! cargo bench --bench ingest -- LOG [RUNS] [sequential|parallel]
//! cargo bench --bench ingest -- LOG [RUNS] share [CHUNK_BYTES]
//! ```
//!
//! For each reader it prints the best wall time of RUNS (default 3), the process CPU time
//! (user + system, from /proc/self/stat) of that run, MB/s (1 MB = 10^6 bytes) of both, and
//! how many errors it read. `bench/logs.sh` runs it next to `wc -l` on the same file.
//!
//! `share` measures what tests cannot assert: the share of chunks the parallel reader
//! takes from its reader threads (the rest the consumer reads again, because the guess a
//! chunk was read with was wrong), which depends on how far the scheduler lets the threads
//! run ahead of the consumer. It reads the log RUNS times as the binary does (free
//! schedule, `CHUNK_BYTES` chunks, default 1 MiB) and once in lockstep (the freshest guesses:
//! the share the guesses allow), and prints each run's figures and the spread.
//! `INGEST_ITEM_NS=N` makes the consumer spend N ns per error (as `match` does replaying
//! it), which lets the threads run further ahead.
//! Uses the binary's allocator (mimalloc) so that the figures are the binary's.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::io::BufReader;
use std::time::{Duration, Instant};

use vgsupp::logs::LogItem;
use vgsupp::logs::parallel::{DEFAULT_CHUNK, ParallelStats, ParallelTextReader, Schedule};
use vgsupp::logs::text::TextReader;
use vgsupp::logs::xml::XmlReader;
use vgsupp::logs::xml::parallel::{DEFAULT_CHUNK as XML_CHUNK, ParallelXmlReader};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// User + system CPU time of this process so far (Linux; clock ticks of 10 ms).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn count(items: impl Iterator<Item = Result<LogItem, vgsupp::logs::ReadError>>) -> usize {
    items.filter(|i| matches!(i, Ok(LogItem::Error(_)))).count()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(path) = args.first() else {
        eprintln!("usage: cargo bench --bench ingest -- LOG [RUNS] [sequential|parallel]");
        return;
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    // Only this reader (to profile one of them), when named.
    let only = args.get(2).map(String::as_str);
    if only == Some("share") {
        let chunk = args
            .get(3)
            .and_then(|c| c.parse().ok())
            .unwrap_or(DEFAULT_CHUNK);
        share(path, runs, chunk);
        return;
    }
    let size = std::fs::metadata(path).unwrap().len() as f64 / 1e6;
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    type Reader = fn(&str, usize) -> usize;
    let xml = is_xml(path);
    let xml_readers: [(&str, Reader); 2] = [
        ("sequential", |p, _| {
            let f = std::fs::File::open(p).unwrap();
            count(XmlReader::new(BufReader::with_capacity(1 << 20, f)))
        }),
        ("parallel", |p, threads| {
            let f = std::fs::File::open(p).unwrap();
            let reader = ParallelXmlReader::new(f, p, threads, XML_CHUNK).unwrap();
            let mut n = 0;
            reader
                .for_each_ref(|i| {
                    n += usize::from(matches!(i, Ok(LogItem::Error(_))));
                    Ok::<(), ()>(())
                })
                .unwrap();
            n
        }),
    ];
    let text_readers: [(&str, Reader); 2] = [
        ("sequential", |p, _| {
            let f = std::fs::File::open(p).unwrap();
            count(TextReader::new(BufReader::with_capacity(1 << 20, f)))
        }),
        ("parallel", |p, threads| {
            let f = std::fs::File::open(p).unwrap();
            let mut n = 0;
            ParallelTextReader::new(f, p, threads, DEFAULT_CHUNK)
                .unwrap()
                .for_each_ref(|i| {
                    n += usize::from(matches!(i, Ok(LogItem::Error(_))));
                    Ok::<(), ()>(())
                })
                .unwrap();
            n
        }),
    ];
    let readers: &[(&str, Reader)] = if xml { &xml_readers } else { &text_readers };
    let format = if xml { "XML" } else { "text" };
    println!("{path}: {size:.0} MB {format}, {threads} cores");
    for &(name, read) in readers {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let mut best: Option<(Duration, Duration, usize)> = None;
        for _ in 0..runs {
            let (c0, t0) = (cpu_time(), Instant::now());
            let n = read(path, threads);
            let (wall, cpu) = (t0.elapsed(), cpu_time().saturating_sub(c0));
            if best.is_none_or(|b| wall < b.0) {
                best = Some((wall, cpu, n));
            }
        }
        let (wall, cpu, n) = best.unwrap();
        println!(
            "{name:<11} wall {:6.3} s ({:5.0} MB/s)  cpu {:6.2} s ({:5.0} MB/s per core)  {n} errors",
            wall.as_secs_f64(),
            size / wall.as_secs_f64(),
            cpu.as_secs_f64(),
            size / cpu.as_secs_f64().max(0.001),
        );
    }
}

/// Whether the log starts like an XML log.
fn is_xml(path: &str) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let head = head[..n].trim_ascii_start();
    head.starts_with(b"<?xml") || head.starts_with(b"<valgrindoutput")
}

/// Reads `path` on every core with `schedule` and `chunk`-byte chunks, as the binary does
/// (`for_each_ref`), spending `INGEST_ITEM_NS` per error: how the chunks were read.
fn read_stats(path: &str, schedule: Schedule, chunk: u64, item_ns: u64) -> ParallelStats {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let f = std::fs::File::open(path).unwrap();
    let work = |i: Result<&LogItem, vgsupp::logs::ReadError>| {
        if item_ns > 0 && matches!(i, Ok(LogItem::Error(_))) {
            let t = Instant::now();
            while t.elapsed() < Duration::from_nanos(item_ns) {
                std::hint::spin_loop();
            }
        }
        Ok::<(), ()>(())
    };
    let (done, stats) = if is_xml(path) {
        ParallelXmlReader::with_schedule(f, path, threads, chunk, schedule)
            .unwrap()
            .for_each_ref_stats(work)
    } else {
        ParallelTextReader::with_schedule(f, path, threads, chunk, schedule)
            .unwrap()
            .for_each_ref_stats(work)
    };
    done.unwrap();
    stats
}

/// The percentage of the chunks with a sync line of their own whose items came from the
/// reader threads (the others were read again by the consumer, or, once it read alone,
/// read by it only).
fn percent(s: &ParallelStats) -> f64 {
    let own = s.chunks.saturating_sub(s.empty);
    if own == 0 {
        return 100.0;
    }
    100.0 * s.accepted as f64 / own as f64
}

fn show(label: &str, s: &ParallelStats) -> String {
    format!(
        "{label:<13} {:5.1}% of chunks from the reader threads ({} taken, {} read again, {} empty, of {}){}",
        percent(s),
        s.accepted,
        s.reread,
        s.empty,
        s.chunks,
        if s.alone { "; then read alone" } else { "" }
    )
}

/// See the module documentation.
fn share(path: &str, runs: usize, chunk: u64) {
    let item_ns: u64 = std::env::var("INGEST_ITEM_NS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!(
        "{path}: chunks of {chunk} bytes, {threads} cores, {item_ns} ns per error in the consumer"
    );
    let lockstep = read_stats(path, Schedule::Lockstep, chunk, item_ns);
    println!("{}", show("lockstep", &lockstep));
    let mut shares = Vec::new();
    let mut alone = 0;
    for run in 1..=runs {
        let s = read_stats(path, Schedule::Free, chunk, item_ns);
        println!("{}", show(&format!("free, run {run}"), &s));
        shares.push(percent(&s));
        alone += usize::from(s.alone);
    }
    shares.sort_by(f64::total_cmp);
    if let (Some(min), Some(max)) = (shares.first(), shares.last()) {
        println!(
            "share (free): min {min:.1}%, median {:.1}%, max {max:.1}%; read alone in {alone} of {runs} runs; lockstep {:.1}%",
            shares[shares.len() / 2],
            percent(&lockstep)
        );
    }
}
