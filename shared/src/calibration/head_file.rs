//! The model file of a fitted calibration head: a small, versioned JSON document that loads
//! back into the same head.
//!
//! ```text
//! { "format_version": 1,
//!   "head": { "kind": "ls" | "mn" | "btl" | "btl2" | "plackett_luce",
//!             "spec": …, "scaler": …, "weights": …, …, "gamma": …, "report": … },
//!   "seed": 0 | null,                     the cross-validation seed that chose γ, if any
//!   "training_data_hash": "fnv1a64:…" }
//! ```
//!
//! Training-data hash: 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3)
//! over the canonical bytes of the training data: the data kind's name, then every list in
//! field order, each as its length followed by its entries (a nested list recursively), where
//! a length is a u64, an f64 its IEEE-754 bits (−0.0 written as 0.0) and an i64 itself, all
//! little-endian. Equal data give equal hashes on every platform; the hash identifies the data,
//! it does not authenticate it.
//!
//! Arguments: a fitted [`Head`], the cross-validation seed and the training data (for the hash);
//! or the JSON text and its name. Returns: [`HeadFile`] and its JSON. Loading refuses a document
//! without `format_version` or with a version other than [`HEAD_FILE_VERSION`], and checks the
//! head's shapes and values.
//!
//! Errors: located [`Error::Input`] (source name, line, column) for malformed JSON, a missing or
//! unknown version, or a document that is not a head file; [`Error::InvalidParam`] for a head
//! whose shapes or values are inconsistent.

use crate::calibration::btl2_head::Btl2Head;
use crate::calibration::btl_head::BtlHead;
use crate::calibration::head::{Fnv1a, Rows};
use crate::calibration::ls_head::LsHead;
use crate::calibration::mn_head::MnHead;
use crate::calibration::plackett_luce_head::PlackettLuceHead;
use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};

/// The head-file format this build writes and reads.
pub const HEAD_FILE_VERSION: u64 = 1;

/// Any fitted head, tagged by its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Head {
    Ls(LsHead),
    Mn(MnHead),
    Btl(BtlHead),
    Btl2(Btl2Head),
    PlackettLuce(PlackettLuceHead),
}

impl Head {
    /// The head's output for one judgment, as a run streams them: an LS head gives the
    /// calibrated score from the judge's score; a BTL head the probability that the first
    /// shown response is preferred, from the judge's probability of it.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for the MN, BTL2 and Plackett–Luce heads, which read more than
    /// one score or response per prediction; the head's located errors for an embedding of
    /// another dimension or a signal out of range.
    pub fn predict_one(&self, embedding: &[f64], signal: f64) -> Result<f64> {
        let rows = [embedding.to_vec()];
        let out = match self {
            Self::Ls(h) => h.predict(&rows, &[signal])?,
            Self::Btl(h) => h.predict(&rows, &[signal])?,
            Self::Mn(_) | Self::Btl2(_) | Self::PlackettLuce(_) => {
                return Err(Error::param(
                    "head",
                    "only an LS or a BTL head applies to one judgment at a time",
                ))
            }
        };
        out.first()
            .copied()
            .ok_or_else(|| Error::Insufficient("the head gave no prediction".to_owned()))
    }

    /// The regularisation strength the head was fitted with.
    pub fn gamma(&self) -> f64 {
        match self {
            Self::Ls(h) => h.gamma,
            Self::Mn(h) => h.gamma,
            Self::Btl(h) => h.gamma,
            Self::Btl2(h) => h.gamma,
            Self::PlackettLuce(h) => h.gamma,
        }
    }

    /// Checks the head's shapes and values.
    pub fn validate(&self) -> Result<()> {
        match self {
            Self::Ls(h) => h.validate(),
            Self::Mn(h) => h.validate(),
            Self::Btl(h) => h.validate(),
            Self::Btl2(h) => h.validate(),
            Self::PlackettLuce(h) => h.validate(),
        }
    }
}

/// A head with what is needed to reproduce and identify it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadFile {
    pub format_version: u64,
    pub head: Head,
    /// Seed of the cross-validation that chose γ; `None` when γ was set by hand.
    pub seed: Option<u64>,
    /// [`training_data_hash`] of the data the head was fitted on.
    pub training_data_hash: String,
}

impl HeadFile {
    /// A file of the current version for `head`, fitted on `data`.
    pub fn new(head: Head, seed: Option<u64>, data: &impl Rows) -> Self {
        Self {
            format_version: HEAD_FILE_VERSION,
            head,
            seed,
            training_data_hash: training_data_hash(data),
        }
    }

    /// The JSON document.
    pub fn to_json(&self) -> Result<String> {
        self.head.validate()?;
        serde_json::to_string_pretty(self).map_err(|e| Error::param("head", e.to_string()))
    }

    /// Reads a head file; `source` names it in errors.
    pub fn from_json(source: &str, text: &str) -> Result<Self> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| json_error(source, &e))?;
        match value.get("format_version").map(serde_json::Value::as_u64) {
            Some(Some(HEAD_FILE_VERSION)) => {}
            Some(Some(v)) => {
                return Err(Error::input(
                    Location::line(source, 1),
                    format!(
                        "unsupported head-file format version {v}; this build reads version \
                         {HEAD_FILE_VERSION}"
                    ),
                ))
            }
            _ => {
                return Err(Error::input(
                    Location::line(source, 1),
                    "expected a head file with a numeric `format_version`, found none",
                ))
            }
        }
        let file: Self = serde_json::from_str(text).map_err(|e| json_error(source, &e))?;
        file.head.validate()?;
        Ok(file)
    }
}

fn json_error(source: &str, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    Error::input(
        Location {
            source: source.to_owned(),
            line: e.line() as u64,
            column: Some(e.column()),
            field: None,
            byte: None,
        },
        message.strip_suffix(&suffix).unwrap_or(&message),
    )
}

/// `fnv1a64:` and the 16 hex digits of the FNV-1a hash of `data`'s canonical bytes.
pub fn training_data_hash(data: &impl Rows) -> String {
    let mut h = Fnv1a::default();
    data.write_canonical(&mut h);
    format!("fnv1a64:{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::btl_head::BtlData;
    use crate::calibration::head::HeadParams;
    use crate::calibration::ls_head::LsData;

    #[test]
    fn one_judgment_predicts_as_the_batch_does() {
        use crate::calibration::btl_head::BtlParams;
        use crate::calibration::ls_head::LsParams;
        let embeddings: Vec<Vec<f64>> = (0..12)
            .map(|i| vec![f64::from(i % 3), f64::from(i % 5) / 2.0, f64::from(i) / 7.0])
            .collect();
        let btl = BtlData {
            embeddings: embeddings.clone(),
            probabilities: (0..12).map(|i| 0.1 + 0.07 * f64::from(i)).collect(),
            labels: (0..12).map(|i| f64::from(i % 2)).collect(),
        };
        let head = BtlParams::default().fit(&btl).unwrap();
        let batch = head.predict(&btl.embeddings, &btl.probabilities).unwrap();
        let one = Head::Btl(head);
        for (k, want) in batch.iter().enumerate() {
            let got = one
                .predict_one(&btl.embeddings[k], btl.probabilities[k])
                .unwrap();
            assert!((got - want).abs() < 1e-15);
        }
        let ls = LsData {
            embeddings,
            scores: (0..12).map(|i| f64::from(i % 5 + 1)).collect(),
            labels: (0..12).map(|i| f64::from(i % 4 + 1)).collect(),
        };
        let head = LsParams::default().fit(&ls).unwrap();
        let want = head.predict(&ls.embeddings[..1], &ls.scores[..1]).unwrap()[0];
        assert_eq!(
            Head::Ls(head)
                .predict_one(&ls.embeddings[0], ls.scores[0])
                .unwrap(),
            want
        );
        assert!(
            one.predict_one(&[0.0, 1.0], 0.5).is_err(),
            "wrong dimension"
        );
    }

    #[test]
    fn hash_sees_every_value_and_ignores_the_sign_of_zero() {
        let data = LsData {
            embeddings: vec![vec![0.0, 1.0]],
            scores: vec![2.0],
            labels: vec![3.0],
        };
        let h = training_data_hash(&data);
        assert!(h.starts_with("fnv1a64:") && h.len() == 24);
        let mut negative_zero = data.clone();
        negative_zero.embeddings[0][0] = -0.0;
        assert_eq!(h, training_data_hash(&negative_zero));
        let mut changed = data.clone();
        changed.labels[0] = 3.5;
        assert_ne!(h, training_data_hash(&changed));
    }
}
