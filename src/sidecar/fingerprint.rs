//! A rule's fingerprint: the first 12 hex digits of the SHA-256 of its canonical body
//! ([`crate::supp::canonical_body`]: the tool line, extra line and frame lines as
//! `vgsupp fmt` writes them, without the braces, the name, comments and blank lines).
//!
//! So renaming a rule, reformatting the file or editing its comments keeps the
//! fingerprint, and any change to what Valgrind matches with it changes it: the sidecar's
//! provenance then describes another rule (`check` reports the drift, VS405). 48 bits tell
//! a rule's edits apart; they are not meant to resist a deliberate collision.

use sha2::{Digest as _, Sha256};

use crate::supp::model::Record;

/// How many hex digits a fingerprint has.
pub const LEN: usize = 12;

/// The fingerprint of `record`, a record of the file whose bytes are `src`.
#[must_use]
pub fn fingerprint(src: &[u8], record: &Record) -> String {
    of_body(&crate::supp::canonical_body(src, record))
}

/// The name and fingerprint of every named record of the suppression file `src`, in file
/// order (what `gen` records for the file it wrote).
#[must_use]
pub fn by_name(src: &[u8]) -> Vec<(String, String)> {
    let file = crate::supp::parse(src.to_vec());
    file.records()
        .filter_map(|r| {
            let name = r.name(&file.source)?;
            Some((
                String::from_utf8_lossy(name).into_owned(),
                fingerprint(&file.source, r),
            ))
        })
        .collect()
}

/// The fingerprint of a canonical body.
#[must_use]
pub fn of_body(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let mut hex = String::with_capacity(LEN);
    for b in digest.iter().take(LEN / 2) {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Whether a recorded fingerprint names this one (hex digits compared without case).
#[must_use]
pub fn matches(recorded: &str, actual: &str) -> bool {
    recorded.trim().eq_ignore_ascii_case(actual)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supp::{format_source, parse};

    fn fp(s: &str) -> String {
        let file = parse(s.as_bytes().to_vec());
        let r = file.records().next().expect("record");
        fingerprint(&file.source, r)
    }

    #[test]
    fn stable_under_formatting_and_renaming() {
        let a = "{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n}\n";
        let b = "# why\n {\n renamed\n\tMemcheck:Leak\n # note\n match-leak-kinds:  definite\n\n fun:malloc  \n }";
        assert_eq!(fp(a), fp(b));
        assert_eq!(fp(a).len(), LEN);
        assert!(
            fp(a)
                .bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(fp(a), fp("{\n   a\n   Memcheck:Leak\n   fun:malloc\n}\n"));
        assert_ne!(
            fp(a),
            fp("{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:calloc\n}\n")
        );
        // Known value: a change of definition must be deliberate (sidecars record it).
        assert_eq!(of_body(b""), "e3b0c44298fc");
        assert!(matches(" E3B0C44298FC", "e3b0c44298fc"));
        let formatted = String::from_utf8(format_source(b.as_bytes())).expect("utf-8");
        assert_eq!(fp(&formatted), fp(b));
    }

    #[test]
    fn every_named_record_in_order() {
        let src = "{\n   b\n   Memcheck:Leak\n   fun:malloc\n}\n{\n}\n{\n   a\n   Memcheck:Cond\n   fun:f\n}\n";
        let got = by_name(src.as_bytes());
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b", "a"], "the record without a name is left out");
        assert_eq!(
            got[0].1,
            fp("{\n   b\n   Memcheck:Leak\n   fun:malloc\n}\n")
        );
        assert_eq!(got[1].1, fp("{\n   x\n   Memcheck:Cond\n   fun:f\n}\n"));
    }
}
