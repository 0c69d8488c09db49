//! Invariants of the YAML readers: the sidecar (`NAME.supp.yaml`) and `vgsupp.yaml`.
//! Shared by the `sidecar` and `config` fuzz targets and `tests/cli/properties.rs`.
//!
//! Reading never panics and stays within its limits (the readers refuse what exceeds
//! them); a tree that reads is written back as the same tree, and writing what was read is
//! stable; a sidecar that decodes encodes back to the same model (unknown keys included)
//! with the same schema problems.

use std::path::Path;

use vgsupp::config;
use vgsupp::sidecar::{self, ProblemKind};
use vgsupp::yaml::{self, Limits};

/// The sidecar reader's invariants on `data`.
///
/// # Errors
/// A description of the broken invariant.
pub fn check_sidecar(data: &[u8]) -> Result<(), String> {
    if let Ok(doc) = yaml::read(data, &Limits::SIDECAR) {
        within(&doc, &Limits::SIDECAR)?;
        let out = yaml::write(&doc);
        let back = yaml::read(out.as_bytes(), &Limits::SIDECAR)
            .map_err(|e| format!("the written tree does not read: {e}\n--- written:\n{out}"))?;
        let same = match (&doc.root, &back.root) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            return Err(format!(
                "written and read back, the tree differs\n--- written:\n{out}"
            ));
        }
        let again = yaml::write(&back);
        let back2 = yaml::read(again.as_bytes(), &Limits::SIDECAR)
            .map_err(|e| format!("the rewritten tree does not read: {e}\n--- written:\n{again}"))?;
        if yaml::write(&back2) != again {
            return Err(format!("rewriting is not stable\n--- written:\n{again}"));
        }
    }
    let Ok(first) = sidecar::decode(data) else {
        return Ok(());
    };
    if first
        .problems
        .iter()
        .any(|p| matches!(p.kind, ProblemKind::UnknownVersion(_)))
    {
        return Ok(());
    }
    let out = sidecar::encode(&first.sidecar).map_err(|e| format!("encode: {e}"))?;
    let second = sidecar::decode(out.as_bytes())
        .map_err(|e| format!("the encoded sidecar does not decode: {e}\n--- written:\n{out}"))?;
    if second.sidecar != first.sidecar {
        return Err(format!(
            "encoded and decoded, the model differs\n--- written:\n{out}"
        ));
    }
    let kinds = |d: &sidecar::Decoded| {
        let mut k: Vec<String> = d
            .problems
            .iter()
            .filter(|p| p.kind != ProblemKind::MissingVersion)
            .map(|p| p.kind.to_string())
            .collect();
        k.sort();
        k
    };
    if kinds(&first) != kinds(&second) {
        return Err(format!(
            "the schema problems changed: {:?} -> {:?}\n--- written:\n{out}",
            kinds(&first),
            kinds(&second)
        ));
    }
    let again = sidecar::encode(&second.sidecar).map_err(|e| format!("encode: {e}"))?;
    let third = sidecar::decode(again.as_bytes()).map_err(|e| format!("decode: {e}"))?;
    if sidecar::encode(&third.sidecar).map_err(|e| format!("encode: {e}"))? != again {
        return Err(format!("encoding is not stable\n--- written:\n{again}"));
    }
    Ok(())
}

/// The config reader never panics and, when it reads, keeps what it read.
///
/// # Errors
/// A description of the broken invariant.
pub fn check_config(data: &[u8]) -> Result<(), String> {
    if let Ok(doc) = yaml::read(data, &Limits::CONFIG) {
        within(&doc, &Limits::CONFIG)?;
    }
    let path = Path::new("vgsupp.yaml");
    if let Ok(c) = config::decode(data, path) {
        let again = config::decode(data, path).map_err(|e| format!("second read failed: {e}"))?;
        if again != c {
            return Err("reading twice gives different configs".to_owned());
        }
    }
    Ok(())
}

/// A document that reads stays within the limits it was read with: nesting, scalar
/// sizes (keys included) and the number of nodes.
fn within(doc: &yaml::Document, limits: &Limits) -> Result<(), String> {
    let mut nodes = 0_usize;
    // (node, depth of the collections around it)
    let mut stack: Vec<(&yaml::Node, usize)> = doc.root.iter().map(|n| (n, 0)).collect();
    let too_long = |text: &str| text.chars().count() > limits.max_scalar;
    while let Some((node, depth)) = stack.pop() {
        nodes += 1;
        match &node.value {
            yaml::Value::Scalar(s) => {
                if too_long(&s.text) {
                    return Err(format!(
                        "a scalar of {} characters read",
                        s.text.chars().count()
                    ));
                }
            }
            yaml::Value::Seq(seq) => {
                if depth + 1 > limits.max_depth {
                    return Err(format!("nesting deeper than {} read", limits.max_depth));
                }
                stack.extend(seq.items.iter().map(|i| (&i.node, depth + 1)));
            }
            yaml::Value::Map(map) => {
                if depth + 1 > limits.max_depth {
                    return Err(format!("nesting deeper than {} read", limits.max_depth));
                }
                for e in &map.entries {
                    nodes += 1;
                    if too_long(&e.key) {
                        return Err(format!(
                            "a key of {} characters read",
                            e.key.chars().count()
                        ));
                    }
                    stack.push((&e.value, depth + 1));
                }
            }
        }
    }
    if nodes > limits.max_nodes {
        return Err(format!(
            "{nodes} nodes read, more than {}",
            limits.max_nodes
        ));
    }
    Ok(())
}

/// Arbitrary bytes as a gate baseline: nothing panics, and a baseline that reads encodes
/// to text that reads back as the same entries.
///
/// # Errors
/// A description of the first property that fails.
pub fn check_baseline(data: &[u8]) -> Result<(), String> {
    let Ok(b) = vgsupp::gate::Baseline::decode(data) else {
        return Ok(());
    };
    let text = b.encode();
    let mut back = vgsupp::gate::Baseline::decode(text.as_bytes())
        .map_err(|e| format!("the encoded baseline does not read: {e}\n--- encoded:\n{text}"))?;
    let mut want = b;
    for e in want.entries.iter_mut().chain(back.entries.iter_mut()) {
        e.line = 0;
    }
    if back != want {
        return Err(format!(
            "encoded and read back, the baseline differs\n--- encoded:\n{text}"
        ));
    }
    Ok(())
}
