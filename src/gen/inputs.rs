//! The matcher inputs of every error of a log, kept compactly: the guarantee checks rules
//! against every kept **and** reviewed error, and an error suppressed at first may be
//! reviewed later (when every rule for it would hide another one), so every error's input
//! must stay at hand. Frames repeat across the errors of a log (the same library frames,
//! the same interpreter loop), so each distinct frame is stored once and an error keeps
//! 4 bytes per frame.

use rustc_hash::FxHashMap;

use crate::matcher::MatchInput;
use crate::matcher::input::{ErrorKind, InputFrame};
use crate::supp::kinds::Tool;

/// One error's input, by frame ids.
#[derive(Debug, Clone)]
struct Stored {
    tool: Tool,
    kind: ErrorKind,
    frames: Box<[u32]>,
    open_ended: bool,
    hidden_below_main: bool,
    demangled_names: bool,
}

/// The inputs of one log's errors, by row (see the module documentation).
#[derive(Debug, Default)]
pub struct InputStore {
    frames: Vec<InputFrame>,
    index: FxHashMap<InputFrame, u32>,
    rows: Vec<Stored>,
}

impl InputStore {
    /// Keep `input` (of an error of `tool`) as the next row's.
    pub fn push(&mut self, tool: Tool, input: &MatchInput) {
        let frames = input
            .frames
            .iter()
            .map(|f| {
                if let Some(&id) = self.index.get(f) {
                    return id;
                }
                let id = u32::try_from(self.frames.len()).unwrap_or(u32::MAX);
                self.frames.push(f.clone());
                self.index.insert(f.clone(), id);
                id
            })
            .collect();
        self.rows.push(Stored {
            tool,
            kind: input.kind.clone(),
            frames,
            open_ended: input.open_ended,
            hidden_below_main: input.hidden_below_main,
            demangled_names: input.demangled_names,
        });
    }

    /// How many rows are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `row`'s tool and input, rebuilt.
    #[must_use]
    pub fn get(&self, row: usize) -> Option<(Tool, MatchInput)> {
        let s = self.rows.get(row)?;
        let frames = s
            .frames
            .iter()
            .filter_map(|&id| self.frames.get(id as usize).cloned())
            .collect();
        Some((
            s.tool,
            MatchInput {
                kind: s.kind.clone(),
                frames,
                open_ended: s.open_ended,
                hidden_below_main: s.hidden_below_main,
                demangled_names: s.demangled_names,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::input::{Known, SrcInfo};

    #[test]
    fn inputs_round_trip_and_share_frames() {
        let frame = |f: &str| InputFrame {
            fun: Known::Yes(f.as_bytes().to_vec()),
            obj: Known::Unknown,
            src: Known::Yes(SrcInfo::None),
        };
        let a = MatchInput {
            kind: ErrorKind {
                kind: "Leak".into(),
                ..ErrorKind::default()
            },
            frames: vec![frame("malloc"), frame("f"), frame("main")],
            open_ended: true,
            hidden_below_main: true,
            demangled_names: false,
        };
        let b = MatchInput {
            frames: vec![frame("malloc"), frame("g"), frame("main")],
            open_ended: false,
            ..a.clone()
        };
        let mut s = InputStore::default();
        s.push(Tool::Memcheck, &a);
        s.push(Tool::Helgrind, &b);
        assert_eq!(s.len(), 2);
        assert_eq!(s.frames.len(), 4, "shared frames are stored once");
        assert_eq!(s.get(0), Some((Tool::Memcheck, a)));
        assert_eq!(s.get(1), Some((Tool::Helgrind, b)));
        assert_eq!(s.get(2), None);
    }
}
