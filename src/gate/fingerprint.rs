//! A stable identity for an error: its kind and its normalised first-party frames, so the
//! same bug is the same error in every run, whatever moved around it.
//!
//! What goes in: the kind without its size (`Addr`, `Leak`; a `Param` error with its
//! parameter), then per first-party frame of every stack (the error's, the block's, the
//! origin's) its demangled function and its source file's name (only frames of the
//! user's own source files when there are any). The object's name stands
//! in for the file only where a frame has no source line: a text log hides the object of
//! every frame it prints with a line, so naming it there would give the text and the XML
//! log of one run different identities. Nothing that moves when code moves goes in: no
//! line numbers, addresses, sizes, byte or block counts, loss-record numbers, PIDs or
//! directories. An error with no first-party frame (a reviewed one: code that cannot be
//! placed) is identified by the first frames of its own stack, the same way.

use sha2::{Digest as _, Sha256};

use super::policy::base_kind;
use crate::r#gen::detail::{Detail, DetailFrame};

/// Frames of an error's own stack that identify it when none is first-party.
const FALLBACK_FRAMES: usize = 8;

/// The fingerprint: 32 hex digits.
#[must_use]
pub fn fingerprint(kind: &str, detail: &Detail) -> String {
    let mut text = String::from("vgsupp-fingerprint-1\n");
    text.push_str(base_kind(kind));
    if base_kind(kind) == "Param"
        && let Some(p) = &detail.param
    {
        text.push(' ');
        text.push_str(p);
    }
    text.push('\n');
    let all = || detail.stacks.iter().flat_map(|s| &s.frames);
    // The user's own lines where there are any: a library header compiled into a
    // first-party object (pybind11's `cast.h`) is first-party by its object in an XML
    // log, and unplaced in a text log, which hides the object.
    let own: Vec<&DetailFrame> = all().filter(|f| f.own_line).collect();
    let first_party: Vec<&DetailFrame> = if own.is_empty() {
        all().filter(|f| f.first_party).collect()
    } else {
        own
    };
    let frames: Vec<&DetailFrame> = if first_party.is_empty() {
        detail
            .stacks
            .first()
            .map(|s| s.frames.iter().take(FALLBACK_FRAMES).collect())
            .unwrap_or_default()
    } else {
        first_party
    };
    for f in frames {
        text.push_str(&frame_key(f));
        text.push('\n');
    }
    let digest = Sha256::digest(text.as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// One frame's part: `function | file` (or `function | object` without a source line).
fn frame_key(f: &DetailFrame) -> String {
    let function = f.function.as_deref().unwrap_or("???");
    match (f.file_name(), f.object_name()) {
        (Some(file), _) => format!("{function} | {file}"),
        (None, Some(obj)) => format!("{function} | obj {obj}"),
        (None, None) => format!("{function} |"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r#gen::detail::{DetailStack, StackRole};

    fn frame(function: &str, file: Option<&str>, line: u32, first_party: bool) -> DetailFrame {
        DetailFrame {
            ip: Some(0x4000 + u64::from(line)),
            function: Some(function.into()),
            object: Some("/tmp/build-1234/libleaky.so".into()),
            dir: Some("/home/ci/src".into()),
            file: file.map(Into::into),
            line: Some(line),
            first_party,
            own_line: first_party,
        }
    }

    fn detail(line: u32) -> Detail {
        Detail {
            stacks: vec![DetailStack {
                label: format!(
                    "{line} bytes in 1 blocks are definitely lost in loss record {line} of 90"
                ),
                role: StackRole::Error,
                frames: vec![
                    frame("malloc", Some("vg_replace_malloc.c"), 381, false),
                    frame("leak(int)", Some("leaky.cpp"), line, true),
                    frame("main", Some("main.c"), line + 7, true),
                ],
            }],
            param: None,
        }
    }

    #[test]
    fn lines_addresses_and_sizes_do_not_change_it() {
        let a = fingerprint("Leak", &detail(11));
        assert_eq!(a.len(), 32);
        assert_eq!(a, fingerprint("Leak", &detail(21)));
        let mut moved = detail(11);
        moved.stacks[0].frames[1].object = Some("/other/libleaky.so.2".into());
        moved.stacks[0].frames[1].dir = None;
        assert_eq!(a, fingerprint("Leak", &moved));
    }

    #[test]
    fn kind_function_and_file_do() {
        let a = fingerprint("Addr4", &detail(11));
        assert_eq!(a, fingerprint("Addr8", &detail(11)));
        assert_ne!(a, fingerprint("Leak", &detail(11)));
        let mut renamed = detail(11);
        renamed.stacks[0].frames[1].function = Some("leak2(int)".into());
        assert_ne!(a, fingerprint("Addr4", &renamed));
        let mut other_file = detail(11);
        other_file.stacks[0].frames[1].file = Some("other.cpp".into());
        assert_ne!(a, fingerprint("Addr4", &other_file));
    }
}
