//! Where reading resumes after malformed XML, and the elements whose content is skipped
//! without tokenizing it.

/// Where reading resumes after malformed XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resync {
    /// `<valgrindoutput` or `<?xml`.
    Document,
    /// An element that appears directly in a document after errors.
    InDocument,
    /// The first element inside an `<error>` (`<unique>`, or `<kind>` in an excerpt that
    /// starts there): an error whose start tag is not in the log.
    Fragment,
}

/// Resync points: the bytes after `<`.
pub(super) const RESYNC_POINTS: [(&[u8], Resync); 13] = [
    (b"error>", Resync::InDocument),
    (b"error ", Resync::InDocument),
    (b"valgrindoutput>", Resync::Document),
    (b"valgrindoutput ", Resync::Document),
    (b"?xml", Resync::Document),
    (b"status>", Resync::InDocument),
    (b"fatal_signal>", Resync::InDocument),
    (b"suppcounts>", Resync::InDocument),
    (b"errorcounts>", Resync::InDocument),
    (b"announcethread>", Resync::InDocument),
    (b"error_summary>", Resync::InDocument),
    (b"unique>", Resync::Fragment),
    (b"kind>", Resync::Fragment),
];
pub(super) const RESYNC_LOOKAHEAD: usize = 16;

/// Skipped elements whose content is passed over without tokenizing (they never nest).
pub(super) const FAST_SKIP: [&[u8]; 3] = [b"suppression", b"rawtext", b"clientmsg"];

/// Where a skip stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Skipped {
    /// Before a resync point.
    At(Resync),
    /// Before the end tag it skipped to.
    EndTag,
    /// At the end of the input (of the log, or a pause).
    InputEnd,
}
