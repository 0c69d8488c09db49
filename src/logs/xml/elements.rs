//! Element names and small text parsers.

use super::RAW_REF;
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

pub(super) fn classify(name: &[u8]) -> El {
    match name {
        b"frame" => El::Frame,
        b"ip" => El::Ip,
        b"obj" => El::Obj,
        b"fn" => El::Fn,
        b"dir" => El::Dir,
        b"file" => El::File,
        b"line" => El::Line,
        b"stack" => El::Stack,
        b"sframe" => El::SFrame,
        b"fun" => El::Fun,
        b"error" => El::Error,
        b"unique" => El::Unique,
        b"tid" => El::Tid,
        b"kind" => El::Kind,
        b"what" => El::What,
        b"xwhat" => El::XWhat,
        b"text" => El::Text,
        b"leakedbytes" => El::LeakedBytes,
        b"leakedblocks" => El::LeakedBlocks,
        b"auxwhat" => El::AuxWhat,
        b"xauxwhat" => El::XAuxWhat,
        b"suppression" => El::Suppression,
        b"skind" => El::SKind,
        b"skaux" => El::SKaux,
        b"valgrindoutput" => El::Doc,
        b"protocolversion" => El::ProtocolVersion,
        b"protocoltool" => El::ProtocolTool,
        b"preamble" => El::Preamble,
        b"pid" => El::Pid,
        b"ppid" => El::Ppid,
        b"tool" => El::Tool,
        b"args" => El::Args,
        b"vargv" => El::Vargv,
        b"argv" => El::Argv,
        b"exe" => El::Exe,
        b"arg" => El::Arg,
        b"status" => El::Status,
        b"state" => El::State,
        b"suppcounts" => El::SuppCounts,
        b"pair" => El::Pair,
        b"count" => El::Count,
        b"name" => El::Name,
        b"error_summary" => El::ErrorSummary,
        b"errors" => El::Errors,
        b"error_contexts" => El::ErrorContexts,
        b"suppressed" => El::Suppressed,
        b"suppressed_contexts" => El::SuppressedContexts,
        b"fatal_signal" => El::FatalSignal,
        b"announcethread" => El::AnnounceThread,
        b"hthreadid" => El::HThreadId,
        b"isrootthread" => El::IsRootThread,
        b"errorcounts" => El::ErrorCounts,
        b"signo" => El::Signo,
        b"signame" => El::Signame,
        b"event" => El::Event,
        b"siaddr" => El::Siaddr,
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

/// The byte a `vgsupp-raw-XX` reference stands for.
pub(super) fn raw_ref_byte(name: &[u8]) -> Option<u8> {
    let hex = name.strip_prefix(RAW_REF)?;
    if hex.len() != 2 {
        return None;
    }
    u8::try_from(hex_number(hex)?).ok()
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
