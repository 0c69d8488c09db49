//! Opening a log: gzip detected by its magic bytes, XML or text by its first non-blank
//! bytes; a large plain file is read on several threads (`logs::parallel`,
//! `logs::xml::parallel`). A file that turns out to hold nothing Valgrind writes ends
//! with [`ReadError::NotALog`] (see [`Check`]).

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
        Source::Parallel(reader) => Box::new(Checked::new(reader, Check::new(log.name, false))),
        #[cfg(unix)]
        Source::ParallelXml(reader) => Box::new(Checked::new(reader, Check::new(log.name, false))),
    };
    Ok((format, items))
}

/// An open log, for [`Log::for_each_ref`].
pub struct Log {
    format: LogFormat,
    source: Source,
    /// The log as named in errors.
    name: String,
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
        // The items of a plain source are checked as they are iterated.
        #[cfg(unix)]
        let mut check = Check::new(self.name, false);
        #[cfg(unix)]
        let mut checked = |item: Result<&LogItem, ReadError>| {
            check.note(item.as_ref().ok().copied());
            f(item)
        };
        match self.source {
            Source::Items(items) => {
                for item in items {
                    match item {
                        Ok(item) => f(Ok(&item))?,
                        Err(e) => f(Err(e))?,
                    }
                }
                return Ok(());
            }
            #[cfg(unix)]
            Source::Parallel(reader) => reader.for_each_ref(&mut checked)?,
            #[cfg(unix)]
            Source::ParallelXml(reader) => reader.for_each_ref(&mut checked)?,
        }
        #[cfg(unix)]
        match check.verdict() {
            Some(e) => f(Err(e)),
            None => Ok(()),
        }
    }
}

/// Tells a Valgrind log from a file that only looks like one (an empty file, program
/// output, a binary file), from the items its reader gives: a log is one when at least
/// one item is something Valgrind wrote — a preamble (text: a process's first lines,
/// `Memcheck, a memory error detector`, `Using Valgrind-…`, `Command: …`; XML: a
/// `<valgrindoutput>` document), an error or loss record (an excerpt without its
/// preamble is a log), a summary, a `used_suppression` count, a listing entry, a
/// `FATAL:`/`valgrind:` message, a `-v` line (`Reading syms from …`, `Reading
/// suppressions file: …`). A reader's own warnings (binary data, damage) and the end of
/// a process it adds prove nothing. The verdict comes at the end of the input: a text
/// log may begin with any amount of program output, so no prefix of it decides.
#[derive(Debug)]
pub struct Check {
    name: String,
    empty: bool,
    /// Something Valgrind wrote was seen, or reading failed (which is reported instead).
    decided: bool,
}

impl Check {
    /// A check of the log named `name`; `empty` when it holds no bytes at all.
    #[must_use]
    pub const fn new(name: String, empty: bool) -> Self {
        Self {
            name,
            empty,
            decided: false,
        }
    }

    /// Takes note of the next item, or (`None`) of a read error.
    pub fn note(&mut self, item: Option<&LogItem>) {
        if !self.decided {
            self.decided = item.is_none_or(from_valgrind);
        }
    }

    /// At the end of the input: [`ReadError::NotALog`] when nothing Valgrind wrote was
    /// seen and reading did not fail.
    #[must_use]
    pub fn verdict(&self) -> Option<ReadError> {
        (!self.decided).then(|| ReadError::NotALog {
            path: self.name.clone(),
            empty: self.empty,
        })
    }
}

/// Whether Valgrind wrote `item` (see [`Check`]).
const fn from_valgrind(item: &LogItem) -> bool {
    !matches!(item, LogItem::Warning { .. } | LogItem::ProcessEnd { .. })
}

/// Items, ending with [`ReadError::NotALog`] when [`Check`] says so.
struct Checked<I> {
    inner: I,
    check: Check,
    done: bool,
}

impl<I> Checked<I> {
    const fn new(inner: I, check: Check) -> Self {
        Self {
            inner,
            check,
            done: false,
        }
    }
}

impl<I: Iterator<Item = Result<LogItem, ReadError>>> Iterator for Checked<I> {
    type Item = Result<LogItem, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.inner.next() {
            Some(item) => {
                self.check.note(item.as_ref().ok());
                Some(item)
            }
            None => {
                self.done = true;
                self.check.verdict().map(Err)
            }
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
            return Ok(Log {
                format,
                source,
                name,
            });
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
        name,
    })
}

/// Choose the reader for an already-open stream. The items end with
/// [`ReadError::NotALog`] when the stream holds nothing Valgrind wrote ([`Check`]).
///
/// # Errors
/// When the first bytes cannot be read.
pub fn from_reader(
    mut reader: Box<dyn BufRead>,
    name: &str,
) -> std::io::Result<(LogFormat, Items)> {
    let format = sniff(&mut reader)?;
    let empty = reader.fill_buf()?.is_empty();
    let check = Check::new(name.to_owned(), empty);
    let items: Items = match format {
        LogFormat::Xml => Box::new(Checked::new(XmlReader::new(reader).with_name(name), check)),
        LogFormat::Text => Box::new(Checked::new(TextReader::new(reader).with_name(name), check)),
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
