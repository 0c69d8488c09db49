//! What a report needs of an error it shows (a gate's failure, a review): every stack
//! (the access, where the block was allocated and freed, where an uninitialised value was
//! created) with each frame's function, object, source line and whether it is
//! first-party. Built only for the errors a report shows, so a log of thousands of
//! third-party errors costs nothing here.

use super::frames::{FrameFacts, Obj};
use crate::matcher::Truth;
use crate::matcher::demangle::{Display, display};

/// One frame, as a report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailFrame {
    /// The instruction pointer.
    pub ip: Option<u64>,
    /// The function, demangled (`leak_tensor(int)`), when the log names it.
    pub function: Option<String>,
    /// The object's full path, when the log shows it.
    pub object: Option<String>,
    /// The source directory (XML logs).
    pub dir: Option<String>,
    /// The source file, as printed.
    pub file: Option<String>,
    /// The source line.
    pub line: Option<u32>,
    /// First-party code (its object or source matches the first-party globs).
    pub first_party: bool,
    /// First-party code whose source file is the user's own too (not a library header
    /// compiled into it): where a report points.
    pub own_line: bool,
}

impl DetailFrame {
    /// The source file's name without its directory.
    #[must_use]
    pub fn file_name(&self) -> Option<&str> {
        self.file.as_deref().map(base_name)
    }

    /// The object's name without its directory.
    #[must_use]
    pub fn object_name(&self) -> Option<&str> {
        self.object.as_deref().map(base_name)
    }

    /// `file:line`, when known.
    #[must_use]
    pub fn location(&self) -> Option<String> {
        Some(format!("{}:{}", self.file_name()?, self.line?))
    }

    /// The source path: the directory (when the log gives it) joined with the file.
    #[must_use]
    pub fn path(&self) -> Option<String> {
        let file = self.file.as_deref()?;
        Some(match self.dir.as_deref() {
            Some(dir) if !file.starts_with('/') && !dir.is_empty() => {
                format!("{}/{file}", dir.trim_end_matches('/'))
            }
            _ => file.to_owned(),
        })
    }
}

/// One stack of an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailStack {
    /// What it is: the error's header for its own stack, else the line that introduces it
    /// (`Address 0x… is 0 bytes inside a block of size 40 free'd`).
    pub label: String,
    /// What role it plays.
    pub role: StackRole,
    /// Its frames, innermost first.
    pub frames: Vec<DetailFrame>,
}

/// The role of a stack in an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackRole {
    /// Where the error happened (for a leak: where the block was allocated).
    Error,
    /// Where the block was allocated, freed, or the address lies (`Address … is …`).
    Block,
    /// Where an uninitialised value was created (`--track-origins=yes`).
    Origin,
}

impl StackRole {
    /// `error`, `block`, `origin`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Block => "block",
            Self::Origin => "origin",
        }
    }
}

/// Every stack of an error a report shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detail {
    /// The stacks, the error's own first.
    pub stacks: Vec<DetailStack>,
    /// The system call's parameter, for a `Param` error (`write(buf)`).
    pub param: Option<String>,
}

impl Detail {
    /// The frame a report points at: the first first-party frame with a source line of
    /// the user's own (the error's stack, then the others: the origin of an uninitialised
    /// value may be the only first-party code), else any first-party frame with a line.
    #[must_use]
    pub fn primary(&self) -> Option<&DetailFrame> {
        let frames = || self.stacks.iter().flat_map(|s| &s.frames);
        frames()
            .find(|f| f.own_line && f.line.is_some())
            .or_else(|| frames().find(|f| f.first_party && f.line.is_some()))
    }
}

/// A frame's report view.
pub(crate) fn frame(f: &FrameFacts<'_>) -> DetailFrame {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let function = f.shown.or(f.fun).map(|n| match display(n) {
        Display::Demangled(s) => s,
        _ => text(n),
    });
    let object = match f.obj {
        Obj::Shown(p) | Obj::Missing(Some(p)) => Some(text(p)),
        Obj::Hidden | Obj::Missing(None) => None,
    };
    let first_party = f.first_party == Truth::Yes;
    DetailFrame {
        ip: f.ip,
        function,
        object,
        dir: f.dir.map(text),
        file: f.file.map(text),
        line: f.line,
        first_party,
        own_line: first_party && f.own_source != Truth::No,
    }
}

/// The last `/`-separated component.
fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
