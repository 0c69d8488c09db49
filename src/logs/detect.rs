//! Opening a log: gzip detected by its magic bytes, XML or text by its first non-blank
//! bytes; a large plain file is read on several threads (`logs::parallel`,
//! `logs::xml::parallel`).

use std::io::{BufRead, BufReader};
use std::path::Path;

#[cfg(unix)]
use crate::logs::parallel::ParallelTextReader;
use crate::logs::record::{LogFormat, LogItem, ReadError};
use crate::logs::text::TextReader;
use crate::logs::xml::XmlReader;
#[cfg(unix)]
use crate::logs::xml::parallel::ParallelXmlReader;

/// The items of a log, streamed.
pub type Items = Box<dyn Iterator<Item = Result<LogItem, ReadError>>>;

const BUF: usize = 1 << 20;

/// Uncompressed logs at least this large are read on several threads (gzip streams are
/// read by one: they cannot be entered in the middle).
#[cfg(unix)]
const PARALLEL_MIN: u64 = 8 << 20;

/// How many threads read one large log: `VGSUPP_READ_THREADS` when set (1 reads on the
/// calling thread only), else the available cores, at most 8.
#[cfg(unix)]
fn read_threads() -> usize {
    std::env::var("VGSUPP_READ_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map_or(1, std::num::NonZero::get)
                .min(8)
        })
}

/// Open `path`, decompressing gzip and choosing the reader from the content.
///
/// # Errors
/// When the file cannot be opened or its first bytes cannot be read.
pub fn open(path: &Path) -> Result<(LogFormat, Items), ReadError> {
    let log = open_log(path)?;
    let format = log.format;
    let items: Items = match log.source {
        Source::Items(items) => items,
        #[cfg(unix)]
        Source::Parallel(reader) => reader,
        #[cfg(unix)]
        Source::ParallelXml(reader) => reader,
    };
    Ok((format, items))
}

/// An open log, for [`Log::for_each_ref`].
pub struct Log {
    format: LogFormat,
    source: Source,
}

enum Source {
    Items(Items),
    #[cfg(unix)]
    Parallel(Box<ParallelTextReader>),
    #[cfg(unix)]
    ParallelXml(Box<ParallelXmlReader>),
}

impl Log {
    /// The log's format.
    #[must_use]
    pub const fn format(&self) -> LogFormat {
        self.format
    }

    /// Calls `f` with every item in order, by reference (a read error as `Err`), and stops
    /// at the first `Err` that `f` returns. For a large log read on several threads this is
    /// faster than iterating (see [`ParallelTextReader::for_each_ref`]).
    ///
    /// # Errors
    /// What `f` returns.
    pub fn for_each_ref<E>(
        self,
        mut f: impl FnMut(Result<&LogItem, ReadError>) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.source {
            Source::Items(items) => {
                for item in items {
                    match item {
                        Ok(item) => f(Ok(&item))?,
                        Err(e) => f(Err(e))?,
                    }
                }
                Ok(())
            }
            #[cfg(unix)]
            Source::Parallel(reader) => reader.for_each_ref(f),
            #[cfg(unix)]
            Source::ParallelXml(reader) => reader.for_each_ref(f),
        }
    }
}

/// Open `path` like [`open`], for reading with [`Log::for_each_ref`].
///
/// # Errors
/// When the file cannot be opened or its first bytes cannot be read.
pub fn open_log(path: &Path) -> Result<Log, ReadError> {
    let name = path.display().to_string();
    let io = |source| ReadError::Io {
        path: name.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut raw = BufReader::with_capacity(BUF, file);
    let gz = raw.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    #[cfg(unix)]
    if !gz {
        let format = sniff(&mut raw).map_err(io)?;
        let threads = read_threads();
        let meta = raw.get_ref().metadata().map_err(io)?;
        if threads > 1 && meta.is_file() && meta.len() >= PARALLEL_MIN {
            let file = raw.into_inner();
            let source = match format {
                LogFormat::Text => Source::Parallel(Box::new(ParallelTextReader::new(
                    file,
                    &name,
                    threads,
                    crate::logs::parallel::DEFAULT_CHUNK,
                )?)),
                LogFormat::Xml => Source::ParallelXml(Box::new(ParallelXmlReader::new(
                    file,
                    &name,
                    threads,
                    crate::logs::xml::parallel::DEFAULT_CHUNK,
                )?)),
            };
            return Ok(Log { format, source });
        }
    }
    let reader: Box<dyn BufRead> = if gz {
        Box::new(BufReader::with_capacity(
            BUF,
            flate2::read::MultiGzDecoder::new(raw),
        ))
    } else {
        Box::new(raw)
    };
    let (format, items) = from_reader(reader, &name).map_err(io)?;
    Ok(Log {
        format,
        source: Source::Items(items),
    })
}

/// Choose the reader for an already-open stream.
///
/// # Errors
/// When the first bytes cannot be read.
pub fn from_reader(
    mut reader: Box<dyn BufRead>,
    name: &str,
) -> std::io::Result<(LogFormat, Items)> {
    let format = sniff(&mut reader)?;
    let items: Items = match format {
        LogFormat::Xml => Box::new(XmlReader::new(reader).with_name(name)),
        LogFormat::Text => Box::new(TextReader::new(reader).with_name(name)),
    };
    Ok((format, items))
}

/// XML when the first non-blank bytes are `<?xml` or `<valgrindoutput`, or, in an excerpt
/// (after a Markdown code fence line, if any), the start of an error: `<error>`, `<unique>`
/// or `<kind>`.
fn sniff(reader: &mut dyn BufRead) -> std::io::Result<LogFormat> {
    let buf = reader.fill_buf()?;
    Ok(if looks_like_xml(buf) {
        LogFormat::Xml
    } else {
        LogFormat::Text
    })
}

/// See [`sniff`].
fn looks_like_xml(buf: &[u8]) -> bool {
    let mut head = buf.trim_ascii_start();
    if head.starts_with(b"```") || head.starts_with(b"~~~") {
        let line_end = head.iter().position(|b| *b == b'\n').unwrap_or(head.len());
        let fence = &head[..line_end];
        // `` ```xml `` or a bare fence; a fence with a log line glued to it is text.
        if fence[3..]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b.is_ascii_whitespace())
        {
            head = head[line_end..].trim_ascii_start();
        }
    }
    [
        &b"<?xml"[..],
        b"<valgrindoutput",
        b"<error>",
        b"<unique>",
        b"<kind>",
    ]
    .iter()
    .any(|p| head.starts_with(p))
}

/// Read everything (for tests and small logs).
///
/// # Errors
/// The first read error.
pub fn read_all(path: &Path) -> Result<(LogFormat, Vec<LogItem>), ReadError> {
    let (format, items) = open(path)?;
    Ok((format, items.collect::<Result<Vec<_>, _>>()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_by_its_first_bytes() {
        for xml in [
            &b"<?xml version=\"1.0\"?>\n<valgrindoutput>"[..],
            b"\n  <valgrindoutput>",
            b"```\n<kind>Leak_PossiblyLost</kind>",
            b"```xml\n<error>\n  <unique>0x1</unique>",
            b"<unique>0x1</unique>",
        ] {
            assert!(looks_like_xml(xml), "{}", String::from_utf8_lossy(xml));
        }
        for text in [
            &b"==1== Memcheck, a memory error detector"[..],
            b"```==60070== Memcheck, a memory error detector\n<kind>",
            b"```\n==1== <kind>",
            b"<details><summary>valgrind log</summary>",
            b"",
        ] {
            assert!(!looks_like_xml(text), "{}", String::from_utf8_lossy(text));
        }
    }
}
