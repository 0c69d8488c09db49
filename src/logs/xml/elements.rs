//! Element names and small text parsers.

use crate::logs::bytes::{hex_number, parse_num, trim};
use crate::supp::kinds::Tool;

/// Known element names. Meaning depends on the parent (`<line>` in a frame or a preamble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum El {
    Doc,
    ProtocolVersion,
    ProtocolTool,
    Preamble,
    Line,
    Pid,
    Ppid,
    Tool,
    Args,
    Vargv,
    Argv,
    Exe,
    Arg,
    Status,
    State,
    Error,
    Unique,
    Tid,
    Kind,
    What,
    XWhat,
    Text,
    LeakedBytes,
    LeakedBlocks,
    AuxWhat,
    XAuxWhat,
    Stack,
    Frame,
    Ip,
    Obj,
    Fn,
    Dir,
    File,
    Suppression,
    SKind,
    SKaux,
    SFrame,
    Fun,
    SuppCounts,
    Pair,
    Count,
    Name,
    ErrorSummary,
    Errors,
    ErrorContexts,
    Suppressed,
    SuppressedContexts,
    FatalSignal,
    AnnounceThread,
    HThreadId,
    IsRootThread,
    ErrorCounts,
    Signo,
    Signame,
    Event,
    Siaddr,
    /// An element this reader does not use.
    Other,
    /// An unknown element directly in `<error>` (DRD's `<other_segment_start>`): a `<stack>`
    /// in it is an aux stack.
    ErrOther,
    /// Inside a skipped subtree.
    Skip,
}

/// What an element is to the reader.
#[derive(Debug, Clone, Copy)]
pub(super) enum Role {
    Container,
    Leaf,
    ErrOther,
    Skip,
}

impl El {
    pub(super) const fn name(self) -> &'static str {
        match self {
            Self::Doc => "valgrindoutput",
            Self::Preamble => "preamble",
            Self::Args => "args",
            Self::Vargv => "vargv",
            Self::Argv => "argv",
            Self::Status => "status",
            Self::Error => "error",
            Self::XWhat => "xwhat",
            Self::XAuxWhat => "xauxwhat",
            Self::Stack => "stack",
            Self::Frame => "frame",
            Self::Suppression => "suppression",
            Self::SFrame => "sframe",
            Self::SuppCounts => "suppcounts",
            Self::Pair => "pair",
            Self::ErrorSummary => "error_summary",
            Self::FatalSignal => "fatal_signal",
            Self::AnnounceThread => "announcethread",
            Self::ErrorCounts => "errorcounts",
            _ => "element",
        }
    }
}

const K_FRAME: u64 = key(b"frame");
const K_IP: u64 = key(b"ip");
const K_OBJ: u64 = key(b"obj");
const K_FN: u64 = key(b"fn");
const K_DIR: u64 = key(b"dir");
const K_FILE: u64 = key(b"file");
const K_LINE: u64 = key(b"line");
const K_STACK: u64 = key(b"stack");
const K_SFRAME: u64 = key(b"sframe");
const K_FUN: u64 = key(b"fun");
const K_ERROR: u64 = key(b"error");
const K_UNIQUE: u64 = key(b"unique");
const K_TID: u64 = key(b"tid");
const K_KIND: u64 = key(b"kind");
const K_WHAT: u64 = key(b"what");
const K_XWHAT: u64 = key(b"xwhat");
const K_TEXT: u64 = key(b"text");
const K_AUXWHAT: u64 = key(b"auxwhat");
const K_XAUXWHAT: u64 = key(b"xauxwhat");
const K_SKIND: u64 = key(b"skind");
const K_SKAUX: u64 = key(b"skaux");
const K_PREAMBLE: u64 = key(b"preamble");
const K_PID: u64 = key(b"pid");
const K_PPID: u64 = key(b"ppid");
const K_TOOL: u64 = key(b"tool");
const K_ARGS: u64 = key(b"args");
const K_VARGV: u64 = key(b"vargv");
const K_ARGV: u64 = key(b"argv");
const K_EXE: u64 = key(b"exe");
const K_ARG: u64 = key(b"arg");
const K_STATUS: u64 = key(b"status");
const K_STATE: u64 = key(b"state");
const K_PAIR: u64 = key(b"pair");
const K_COUNT: u64 = key(b"count");
const K_NAME: u64 = key(b"name");
const K_ERRORS: u64 = key(b"errors");
const K_SIGNO: u64 = key(b"signo");
const K_SIGNAME: u64 = key(b"signame");
const K_EVENT: u64 = key(b"event");
const K_SIADDR: u64 = key(b"siaddr");

/// `name` (at most 8 bytes) as one number, for matching it in one comparison.
const fn key(name: &[u8]) -> u64 {
    let mut k = 0;
    let mut i = 0;
    while i < name.len() {
        k |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// What an element is, by its name (the hottest lookup of the reader: a name of at most 8
/// bytes is matched as one number).
pub(super) fn classify(name: &[u8]) -> El {
    if name.len() <= 8 {
        return match key(name) {
            K_FRAME => El::Frame,
            K_IP => El::Ip,
            K_OBJ => El::Obj,
            K_FN => El::Fn,
            K_DIR => El::Dir,
            K_FILE => El::File,
            K_LINE => El::Line,
            K_STACK => El::Stack,
            K_SFRAME => El::SFrame,
            K_FUN => El::Fun,
            K_ERROR => El::Error,
            K_UNIQUE => El::Unique,
            K_TID => El::Tid,
            K_KIND => El::Kind,
            K_WHAT => El::What,
            K_XWHAT => El::XWhat,
            K_TEXT => El::Text,
            K_AUXWHAT => El::AuxWhat,
            K_XAUXWHAT => El::XAuxWhat,
            K_SKIND => El::SKind,
            K_SKAUX => El::SKaux,
            K_PREAMBLE => El::Preamble,
            K_PID => El::Pid,
            K_PPID => El::Ppid,
            K_TOOL => El::Tool,
            K_ARGS => El::Args,
            K_VARGV => El::Vargv,
            K_ARGV => El::Argv,
            K_EXE => El::Exe,
            K_ARG => El::Arg,
            K_STATUS => El::Status,
            K_STATE => El::State,
            K_PAIR => El::Pair,
            K_COUNT => El::Count,
            K_NAME => El::Name,
            K_ERRORS => El::Errors,
            K_SIGNO => El::Signo,
            K_SIGNAME => El::Signame,
            K_EVENT => El::Event,
            K_SIADDR => El::Siaddr,
            _ => El::Other,
        };
    }
    match name {
        b"leakedbytes" => El::LeakedBytes,
        b"leakedblocks" => El::LeakedBlocks,
        b"suppression" => El::Suppression,
        b"valgrindoutput" => El::Doc,
        b"protocolversion" => El::ProtocolVersion,
        b"protocoltool" => El::ProtocolTool,
        b"suppcounts" => El::SuppCounts,
        b"error_summary" => El::ErrorSummary,
        b"error_contexts" => El::ErrorContexts,
        b"suppressed" => El::Suppressed,
        b"suppressed_contexts" => El::SuppressedContexts,
        b"fatal_signal" => El::FatalSignal,
        b"announcethread" => El::AnnounceThread,
        b"hthreadid" => El::HThreadId,
        b"isrootthread" => El::IsRootThread,
        b"errorcounts" => El::ErrorCounts,
        _ => El::Other,
    }
}

/// Whitespace only, allowing byte-order marks (one may start each document of a
/// concatenation).
pub(super) fn is_blank(mut text: &[u8]) -> bool {
    const BOM: &[u8] = "\u{feff}".as_bytes();
    loop {
        text = text.trim_ascii_start();
        match text.strip_prefix(BOM) {
            Some(rest) => text = rest,
            None => return text.is_empty(),
        }
    }
}

pub(super) fn parse_tool(text: &[u8]) -> Option<Tool> {
    std::str::from_utf8(trim(text)).ok()?.parse().ok()
}

/// The text a reference `&name;` stands for, in up to three pieces: the five XML entities
/// and character references are replaced, an unknown entity is kept as written.
pub(super) fn expand_ref<'a>(name: &'a [u8], tmp: &'a mut [u8; 4]) -> [&'a [u8]; 3] {
    let one: &'static [u8] = match name {
        b"lt" => b"<",
        b"gt" => b">",
        b"amp" => b"&",
        b"quot" => b"\"",
        b"apos" => b"'",
        _ => {
            return match char_ref(name) {
                Some(c) => [c.encode_utf8(tmp).as_bytes(), b"", b""],
                None => [b"&", name, b";"],
            };
        }
    };
    [one, b"", b""]
}

/// `#NN` / `#xHH` character references.
pub(super) fn char_ref(name: &[u8]) -> Option<char> {
    let num = name.strip_prefix(b"#")?;
    let n = match num.strip_prefix(b"x") {
        Some(hex) => hex_number(hex)?,
        None => parse_num(num)?,
    };
    char::from_u32(u32::try_from(n).ok()?).filter(|&c| c != '\0')
}
