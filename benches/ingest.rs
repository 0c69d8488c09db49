//! Log ingest throughput: the reader alone (no matching, no output), sequential and on
//! several threads, on a log given on the command line (text or XML, by its content).
//!
//! ```text
//! cargo bench --bench ingest -- LOG [RUNS] [sequential|parallel]
//! ```
//!
//! For each reader it prints the best wall time of RUNS (default 3), the process CPU time
//! (user + system, from /proc/self/stat) of that run, MB/s (1 MB = 10^6 bytes) of both, and
//! how many errors it read. `bench/logs.sh` runs it next to `wc -l` on the same file.
//! Uses the binary's allocator (mimalloc) so that the figures are the binary's.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::io::BufReader;
use std::time::{Duration, Instant};

use vgsupp::logs::LogItem;
use vgsupp::logs::parallel::{DEFAULT_CHUNK, ParallelTextReader};
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
