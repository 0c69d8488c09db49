//! Stacks as the readers hand them out: the frames of one stack keep their names in one
//! shared buffer, so that a stack costs two allocations instead of one to three per frame.
//!
//! Why: a 1 GB log holds some 20 million frame lines. Allocating, moving and freeing a
//! `Vec<u8>` for each printed name was a third of the text reader's time, and more once the
//! items cross threads (`logs::parallel`), where the frees come after the memory has left
//! the cache. [`Stack`] and [`GenFrames`] store spans into the buffer; their frames are
//! handed out as borrowed views ([`Frame`], [`GenFrame`]).

use std::fmt;
use std::hash::{Hash, Hasher};

/// A stack's names would exceed the 4 GiB its spans can address. Readers drop such an
/// error with a warning; no real log comes near it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the names of one stack exceed 4 GiB")]
pub struct StackFull;

/// Where a name lies in the buffer: `start..start + len`; `start == u32::MAX`: no name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    len: u32,
}

impl Span {
    const NONE: Self = Self {
        start: u32::MAX,
        len: 0,
    };

    /// `start..end` of a text of at most `NAMES_LIMIT` bytes.
    #[allow(clippy::cast_possible_truncation)] // callers' texts are shorter than u32::MAX
    pub(crate) fn of(start: usize, end: usize) -> Self {
        debug_assert!(start <= end && end <= NAMES_LIMIT);
        Self {
            start: start as u32,
            len: (end - start) as u32,
        }
    }

    /// This span moved `by` bytes further into a buffer (no name stays no name).
    fn shifted(self, by: u32) -> Self {
        if self.start == u32::MAX {
            return self;
        }
        Self {
            start: self.start + by,
            len: self.len,
        }
    }

    /// The part of `text` at this span.
    pub(crate) fn of_text(self, text: &[u8]) -> Option<&[u8]> {
        if self.start == u32::MAX {
            return None;
        }
        let start = self.start as usize;
        text.get(start..start + self.len as usize)
    }
}

/// The most bytes of names a sequence holds: spans end below `u32::MAX`, which marks "no
/// name".
const NAMES_LIMIT: usize = u32::MAX as usize - 1;

/// The shared name buffer.
#[derive(Debug, Clone)]
pub struct Names {
    bytes: Vec<u8>,
    /// [`NAMES_LIMIT`]; smaller in tests.
    limit: usize,
}

impl Default for Names {
    fn default() -> Self {
        Self {
            bytes: Vec::new(),
            limit: NAMES_LIMIT,
        }
    }
}

impl Names {
    /// Appends `name`; `Span::NONE` for `None`.
    #[inline(always)]
    fn put(&mut self, name: Option<&[u8]>) -> Result<Span, StackFull> {
        let Some(name) = name else {
            return Ok(Span::NONE);
        };
        let start = self.bytes.len();
        let end = start.checked_add(name.len()).ok_or(StackFull)?;
        if end > self.limit.min(NAMES_LIMIT) {
            return Err(StackFull);
        }
        self.bytes.extend_from_slice(name);
        #[allow(clippy::cast_possible_truncation)] // both checked above
        Ok(Span {
            start: start as u32,
            len: name.len() as u32,
        })
    }

    /// The name at `span`.
    fn get(&self, span: Span) -> Option<&[u8]> {
        span.of_text(&self.bytes)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// How one frame is stored in a [`Packed`] sequence: fixed-size fields and spans into the
/// sequence's name buffer. Implemented by [`FrameSlot`] and [`GenSlot`] only.
pub trait Slot: Copy + sealed::Sealed {
    /// The frame as handed out, borrowing the names.
    type View<'a>: Copy + fmt::Debug + PartialEq + Eq + Hash;

    /// Stores `view`, appending its names to `names`.
    ///
    /// # Errors
    /// [`StackFull`] when the names no longer fit; `names` may then hold part of them.
    fn store(view: Self::View<'_>, names: &mut Names) -> Result<Self, StackFull>;

    /// The frame, its names read from `names`.
    fn load(self, names: &Names) -> Self::View<'_>;
}

/// A sequence of frames whose names share one buffer: [`Stack`] or [`GenFrames`].
///
/// Equality, hashing and `Debug` are those of the frames it hands out, whatever the layout
/// of the buffer.
#[derive(Clone)]
pub struct Packed<S> {
    slots: Vec<S>,
    names: Names,
}

/// The frames of a stack as printed, top first.
pub type Stack = Packed<FrameSlot>;

/// The frames of a `--gen-suppressions` block, top first.
pub type GenFrames = Packed<GenSlot>;

impl<S> Default for Packed<S> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            names: Names::default(),
        }
    }
}

impl<S: Slot> Packed<S> {
    /// An empty sequence.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty sequence with room for `frames` frames and `bytes` bytes of names.
    #[must_use]
    pub fn with_capacity(frames: usize, bytes: usize) -> Self {
        Self {
            slots: Vec::with_capacity(frames),
            names: Names {
                bytes: Vec::with_capacity(bytes),
                limit: NAMES_LIMIT,
            },
        }
    }

    /// Room for frames and for bytes of names, without reallocating.
    #[must_use]
    pub fn capacity(&self) -> (usize, usize) {
        (self.slots.capacity(), self.names.bytes.capacity())
    }

    /// Bytes of the name buffer in use (a frame read from a text log keeps there its whole
    /// description, `fn (file:line)`, of which its names are parts).
    #[must_use]
    pub fn names_len(&self) -> usize {
        self.names.bytes.len()
    }

    /// The number of frames.
    #[must_use]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no frames.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Frame `i` (0: top).
    #[must_use]
    pub fn get(&self, i: usize) -> Option<S::View<'_>> {
        self.slots.get(i).map(|s| s.load(&self.names))
    }

    /// The top frame.
    #[must_use]
    pub fn first(&self) -> Option<S::View<'_>> {
        self.get(0)
    }

    /// The bottom frame.
    #[must_use]
    pub fn last(&self) -> Option<S::View<'_>> {
        self.slots.last().map(|s| s.load(&self.names))
    }

    /// The frames, top first.
    #[must_use]
    pub fn iter(&self) -> Iter<'_, S> {
        Iter {
            slots: self.slots.iter(),
            names: &self.names,
        }
    }

    /// The frames, top first, in a vector.
    #[must_use]
    pub fn to_vec(&self) -> Vec<S::View<'_>> {
        self.iter().collect()
    }

    /// Appends a frame, copying its names.
    ///
    /// # Errors
    /// [`StackFull`] when its names do not fit; the sequence is then unchanged.
    #[inline(always)]
    pub fn push(&mut self, frame: S::View<'_>) -> Result<(), StackFull> {
        let before = self.names.bytes.len();
        match S::store(frame, &mut self.names) {
            Ok(slot) => {
                self.slots.push(slot);
                Ok(())
            }
            Err(e) => {
                self.names.bytes.truncate(before);
                Err(e)
            }
        }
    }

    /// Removes every frame, keeping the allocations.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.names.bytes.clear();
    }
}

impl<S: Slot> PartialEq for Packed<S> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<S: Slot> Eq for Packed<S> {}

impl<S: Slot> Hash for Packed<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for f in self {
            f.hash(state);
        }
    }
}

impl<S: Slot> fmt::Debug for Packed<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, S: Slot> IntoIterator for &'a Packed<S> {
    type Item = S::View<'a>;
    type IntoIter = Iter<'a, S>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The frames of a [`Packed`] sequence, top first.
#[derive(Clone)]
pub struct Iter<'a, S> {
    slots: std::slice::Iter<'a, S>,
    names: &'a Names,
}

impl<'a, S: Slot> Iterator for Iter<'a, S> {
    type Item = S::View<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.slots.next().map(|s| s.load(self.names))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slots.size_hint()
    }
}

impl<S: Slot> DoubleEndedIterator for Iter<'_, S> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.slots.next_back().map(|s| s.load(self.names))
    }
}

impl<S: Slot> ExactSizeIterator for Iter<'_, S> {}

/// One stack frame as printed (`at 0xADDR: fn (file:line)` / `<frame>`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Frame<'a> {
    /// The instruction pointer.
    pub ip: Option<u64>,
    /// The function name as printed: demangled in text logs and in XML without
    /// `--demangle=no`; `None` for `???`.
    pub fun: Option<&'a [u8]>,
    /// The object (full path), when printed: text logs print it only when file and line
    /// are unknown (`(in /path/obj)`); XML prints it whenever it is known.
    pub obj: Option<&'a [u8]>,
    /// The directory of the source file (XML `<dir>`, or text with `--fullpath-after`).
    pub dir: Option<&'a [u8]>,
    /// The source file name as printed (`file.c`, or `dir/file.c` with `--fullpath-after`).
    pub file: Option<&'a [u8]>,
    /// The source line.
    pub line: Option<u32>,
}

/// How a [`Frame`] is stored in a [`Stack`].
#[derive(Debug, Clone, Copy)]
pub struct FrameSlot {
    ip: Option<u64>,
    line: Option<u32>,
    fun: Span,
    obj: Span,
    dir: Span,
    file: Span,
}

impl sealed::Sealed for FrameSlot {}

/// A frame as the parts of one text (a text log's `fn (file:line)`): offsets into it, so
/// that [`Stack::push_parts`] copies the text once rather than each name apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FrameParts {
    pub(crate) ip: Option<u64>,
    pub(crate) line: Option<u32>,
    pub(crate) fun: Span,
    pub(crate) obj: Span,
    pub(crate) dir: Span,
    pub(crate) file: Span,
}

impl FrameParts {
    /// A frame at `ip` with no names.
    pub(crate) const fn new(ip: Option<u64>) -> Self {
        Self {
            ip,
            line: None,
            fun: Span::NONE,
            obj: Span::NONE,
            dir: Span::NONE,
            file: Span::NONE,
        }
    }

    /// The frame, its names read from `text`.
    #[cfg(test)]
    pub(crate) fn view(self, text: &[u8]) -> Frame<'_> {
        Frame {
            ip: self.ip,
            fun: self.fun.of_text(text),
            obj: self.obj.of_text(text),
            dir: self.dir.of_text(text),
            file: self.file.of_text(text),
            line: self.line,
        }
    }
}

impl Stack {
    /// Appends the frame whose names are the `parts` of `text` (which must lie within
    /// it), copying `text` once.
    ///
    /// # Errors
    /// [`StackFull`] when the text does not fit; the stack is then unchanged.
    #[inline]
    pub(crate) fn push_parts(&mut self, text: &[u8], parts: &FrameParts) -> Result<(), StackFull> {
        let base = self.names.bytes.len();
        let end = base.checked_add(text.len()).ok_or(StackFull)?;
        if end > self.names.limit.min(NAMES_LIMIT) {
            return Err(StackFull);
        }
        self.names.bytes.extend_from_slice(text);
        #[allow(clippy::cast_possible_truncation)] // end is checked above
        let by = base as u32;
        self.slots.push(FrameSlot {
            ip: parts.ip,
            line: parts.line,
            fun: parts.fun.shifted(by),
            obj: parts.obj.shifted(by),
            dir: parts.dir.shifted(by),
            file: parts.file.shifted(by),
        });
        Ok(())
    }
}

impl Slot for FrameSlot {
    type View<'a> = Frame<'a>;

    fn store(f: Frame<'_>, names: &mut Names) -> Result<Self, StackFull> {
        Ok(Self {
            ip: f.ip,
            line: f.line,
            fun: names.put(f.fun)?,
            obj: names.put(f.obj)?,
            dir: names.put(f.dir)?,
            file: names.put(f.file)?,
        })
    }

    fn load(self, names: &Names) -> Frame<'_> {
        Frame {
            ip: self.ip,
            fun: names.get(self.fun),
            obj: names.get(self.obj),
            dir: names.get(self.dir),
            file: names.get(self.file),
            line: self.line,
        }
    }
}

/// A frame of a `--gen-suppressions` block: what Valgrind's matcher sees for that frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GenFrame<'a> {
    /// `fun:NAME`: mangled, Z-demangled, below-main renamed, or the inlined `DW_AT_name`.
    Fun(&'a [u8]),
    /// `obj:PATH` (function unknown, object known), or `obj:*` (nothing known).
    Obj(&'a [u8]),
}

/// How a [`GenFrame`] is stored in [`GenFrames`].
#[derive(Debug, Clone, Copy)]
pub struct GenSlot {
    obj: bool,
    name: Span,
}

impl sealed::Sealed for GenSlot {}

impl Slot for GenSlot {
    type View<'a> = GenFrame<'a>;

    #[inline(always)]
    fn store(f: GenFrame<'_>, names: &mut Names) -> Result<Self, StackFull> {
        let (obj, name) = match f {
            GenFrame::Fun(n) => (false, n),
            GenFrame::Obj(n) => (true, n),
        };
        Ok(Self {
            obj,
            name: names.put(Some(name))?,
        })
    }

    fn load(self, names: &Names) -> GenFrame<'_> {
        let name = names.get(self.name).unwrap_or_default();
        if self.obj {
            GenFrame::Obj(name)
        } else {
            GenFrame::Fun(name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame<'a>(fun: Option<&'a str>, file: Option<&'a str>, line: Option<u32>) -> Frame<'a> {
        Frame {
            ip: Some(0x10),
            fun: fun.map(str::as_bytes),
            file: file.map(str::as_bytes),
            line,
            ..Frame::default()
        }
    }

    #[test]
    fn frames_come_back_as_pushed() {
        let pushed = [
            frame(Some("main"), Some("a.c"), Some(3)),
            frame(None, None, None),
            Frame {
                obj: Some(b"/lib/x.so"),
                dir: Some(b""),
                ..Frame::default()
            },
            frame(Some(""), Some("b.c"), Some(0)),
        ];
        let mut s = Stack::new();
        for f in pushed {
            s.push(f).expect("fits");
        }
        assert_eq!(s.len(), 4);
        assert_eq!(s.iter().collect::<Vec<_>>(), pushed);
        assert_eq!(s.iter().next_back(), Some(pushed[3]));
        assert_eq!(s.iter().len(), 4);
        assert_eq!(s.first(), Some(pushed[0]));
        assert_eq!(s.last(), Some(pushed[3]));
        assert_eq!(s.get(4), None);
        // An empty name is not a missing one.
        assert_eq!(s.get(2).and_then(|f| f.dir), Some(&b""[..]));
        assert_eq!(s.get(1).and_then(|f| f.dir), None);
        s.clear();
        assert!(s.is_empty());
        assert_eq!(s.names_len(), 0);
    }

    #[test]
    fn equality_and_hash_follow_the_frames_not_the_layout() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |s: &Stack| {
            let mut h = DefaultHasher::new();
            s.hash(&mut h);
            h.finish()
        };
        let mut a = Stack::with_capacity(1, 64);
        a.push(frame(Some("f"), Some("x.c"), Some(1)))
            .expect("fits");
        let mut b = Stack::new();
        // Same frames, different buffer: a frame pushed then cleared away first.
        b.push(frame(Some("junk"), None, None)).expect("fits");
        b.clear();
        b.push(frame(Some("f"), Some("x.c"), Some(1)))
            .expect("fits");
        assert_eq!(a, b);
        assert_eq!(hash(&a), hash(&b));
        b.push(frame(Some("g"), None, None)).expect("fits");
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), format!("{:?}", [a.first().expect("f")]));
    }

    #[test]
    fn gen_frames() {
        let mut g = GenFrames::new();
        g.push(GenFrame::Fun(b"_Z1fv")).expect("fits");
        g.push(GenFrame::Obj(b"*")).expect("fits");
        g.push(GenFrame::Fun(b"")).expect("fits");
        assert_eq!(
            g.iter().collect::<Vec<_>>(),
            [
                GenFrame::Fun(b"_Z1fv"),
                GenFrame::Obj(b"*"),
                GenFrame::Fun(b"")
            ]
        );
    }

    #[test]
    fn names_past_the_limit_are_refused_without_changing_the_stack() {
        // The real limit is 4 GiB; a small one exercises the same checks.
        let mut s = Stack::new();
        s.names.limit = 8;
        s.push(frame(Some("f"), Some("x.c"), None)).expect("fits");
        let before = s.clone();
        // `fun` fits, `file` does not: the half-stored frame is taken back.
        assert_eq!(
            s.push(frame(Some("gg"), Some("yy.c"), None)),
            Err(StackFull)
        );
        assert_eq!(s, before);
        assert_eq!(s.names_len(), 4);
        s.push(frame(Some("abcd"), None, None))
            .expect("exactly fills it");
        assert_eq!(
            s.push(frame(Some(""), None, None)),
            Ok(()),
            "empty names still fit"
        );
        assert_eq!(s.push(frame(Some("z"), None, None)), Err(StackFull));
        assert_eq!(s.len(), 3);
        assert_eq!(Names::default().get(Span::NONE), None);
    }

    #[test]
    fn frames_pushed_as_parts_of_a_text_come_back_as_its_parts() {
        let text = b"ns::f(int) (src/a.c:12)";
        let parts = FrameParts {
            line: Some(12),
            fun: Span::of(0, 10),
            dir: Span::of(12, 15),
            file: Span::of(12, 19),
            ..FrameParts::new(Some(0x10))
        };
        let mut s = Stack::new();
        s.push(frame(Some("main"), None, None)).expect("fits");
        s.push_parts(text, &parts).expect("fits");
        s.push_parts(b"???", &FrameParts::new(None)).expect("fits");
        let want = Frame {
            ip: Some(0x10),
            fun: Some(b"ns::f(int)"),
            dir: Some(b"src"),
            file: Some(b"src/a.c"),
            line: Some(12),
            obj: None,
        };
        assert_eq!(parts.view(text), want);
        assert_eq!(s.get(1), Some(want));
        assert_eq!(s.get(2), Some(Frame::default()));
        // Equal to the same frames pushed name by name.
        let mut t = Stack::new();
        for f in s.iter() {
            t.push(f).expect("fits");
        }
        assert_eq!(s, t);
    }

    #[test]
    fn a_text_past_the_limit_is_refused_without_changing_the_stack() {
        let mut s = Stack::new();
        s.names.limit = 8;
        s.push_parts(b"abcde", &FrameParts::new(None))
            .expect("fits");
        let before = s.clone();
        assert_eq!(
            s.push_parts(b"abcd", &FrameParts::new(None)),
            Err(StackFull)
        );
        assert_eq!(s, before);
        assert_eq!(s.names_len(), 5);
        s.push_parts(b"abc", &FrameParts::new(None))
            .expect("exactly fills it");
        assert_eq!(s.len(), 2);
    }
}
