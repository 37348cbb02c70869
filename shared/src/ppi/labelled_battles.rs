//! Labelled battles: pairwise comparisons with a judge's label on every row and a human label
//! on some — the input of prediction-powered win rates and leaderboards. The CSV header names
//! the columns (order is free, extra columns are ignored):
//!
//! | column               | values |
//! |----------------------|--------|
//! | `model_a`, `model_b` | model names |
//! | `judge`              | the judge's label for `model_a`: `model_a` (1), `model_b` (0), `tie` or `tie (bothbad)` (½), or a number in [0, 1] (p(`model_a` wins), or a mean of verdicts) |
//! | `human`              | the human label, the same way (a mean of several votes on the pair is a number in [0, 1]); an empty cell: not labelled |
//!
//! | `label_probability`  | optional: the probability each row had of being sent to the humans (in (0, 1]; 1 for a row labelled before the draw), as [`super::label_plan`] writes it; with it the estimates weight each human label by its inverse ([`super::active_inference`]) |
//! | `selected`           | optional: `1` for a row the plan's draw sent to the humans, `0` otherwise (checked against `human`) |
//! | `embedding`          | optional: the judge's rationale embedding, space-separated numbers of one dimension on every row (for a calibration head cross-fitted on the human labels, [`super::cross_fit`]) |
//!
//! One row per comparison: several human votes on one pair are one label (their mean), as the
//! estimates take the rows to be independent. A file with `label_probability` must have a
//! human label on every row the draw selected (a drawn row left unlabelled would bias the
//! estimate) and none on a row it did not select unless its probability is 1.
//!
//! Arguments: the input's name (for messages) and its bytes. Returns: [`LabelledBattles`],
//! models numbered in order of first appearance. Errors: [`Error::Input`] naming the source,
//! line, column and field for a missing column, an empty or self-battling model, an empty
//! `judge`, or a label that is neither a verdict nor a number in [0, 1], a probability outside
//! (0, 1], a selected row without a human label or a human label the draw did not select, an
//! embedding that is not numbers or not of the first row's dimension; the CSV reader's
//! located errors; [`Error::Insufficient`] for a header without rows.

use crate::calibration::calibration_data::parse_embedding;
use crate::io::csv_row::{column, csv_error, find_unique, read_header, Row};
use crate::io::error::{Error, Result};
use crate::rankings::battles::ModelIndex;
use serde::{Deserialize, Serialize};

/// One comparison: `model_a`'s outcome as the judge labelled it and, when labelled, as the
/// humans did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LabelledBattle {
    pub a: usize,
    pub b: usize,
    pub judge: f64,
    pub human: Option<f64>,
    /// The probability the row had of being labelled (files with `label_probability`).
    pub probability: Option<f64>,
    /// The row's line in the file.
    pub line: u64,
}

/// The rows of a labelled-battles file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledBattles {
    pub models: Vec<String>,
    pub battles: Vec<LabelledBattle>,
    /// The file's header and each row's fields as read (a label plan writes them back, with
    /// whatever columns the annotators need beside the labels).
    pub header: Vec<String>,
    pub records: Records,
    /// Each row's embedding, when the file has an `embedding` column (else empty).
    pub embeddings: Vec<Vec<f64>>,
}

/// Every row's fields as read, kept in one buffer: row r's field i is
/// `text[ends[r·width + i] − len .. ends[r·width + i]]`, without an allocation per field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Records {
    text: String,
    /// Where each field ends in `text`, row after row.
    ends: Vec<usize>,
    /// Fields per row (the header's).
    width: usize,
}

impl Records {
    fn new(width: usize) -> Self {
        Self {
            width,
            ..Self::default()
        }
    }

    /// Adds a row (as wide as the header: the reader refuses others).
    fn push(&mut self, record: &csv::StringRecord) {
        for field in record {
            self.text.push_str(field);
            self.ends.push(self.text.len());
        }
    }

    /// Row `row`'s field `i`, if both exist.
    pub fn field(&self, row: usize, i: usize) -> Option<&str> {
        if i >= self.width {
            return None;
        }
        let k = row.checked_mul(self.width)? + i;
        let end = *self.ends.get(k)?;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        self.text.get(start..end)
    }
}

impl LabelledBattles {
    /// Whether the human labels were drawn with the probabilities of `label_probability`.
    pub fn drawn(&self) -> bool {
        self.battles.iter().any(|b| b.probability.is_some())
    }
}

const EXPECTED: &str = "`model_a,model_b,judge,human`";

/// A label: a verdict word or a number in [0, 1].
fn label(row: &Row, i: usize, name: &str) -> Result<f64> {
    let text = row.required(i, name)?;
    let value = match text {
        "model_a" => Some(1.0),
        "model_b" => Some(0.0),
        "tie" | "tie (bothbad)" => Some(0.5),
        number => number.parse::<f64>().ok(),
    };
    match value {
        Some(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(row.error(
            i,
            name,
            format!(
                "expected `model_a`, `model_b`, `tie` or a number in [0, 1] (the label for \
                 `model_a`), found `{text}`"
            ),
        )),
    }
}

/// The row's `label_probability`: a number in (0, 1]; a row with probability 1 (certain to be
/// labelled) must have its human label.
fn probability(row: &Row, i: usize, labelled: bool, ih: usize) -> Result<f64> {
    let p = row.number(i, "label_probability")?;
    if !(p > 0.0 && p <= 1.0) {
        return Err(row.error(
            i,
            "label_probability",
            format!("expected the row's chance of being labelled, in (0, 1], found {p}"),
        ));
    }
    if p == 1.0 && !labelled {
        return Err(row.error(
            ih,
            "human",
            "expected a human label: the row's label_probability is 1 (it was to be labelled \
             in any case)"
                .to_owned(),
        ));
    }
    Ok(p)
}

/// A row the draw selected has a human label; one it did not select has none, unless it was
/// labelled before the draw (probability 1).
fn check_selected(
    row: &Row,
    i: usize,
    ih: usize,
    labelled: bool,
    probability: Option<f64>,
) -> Result<()> {
    let selected = match row.value(i) {
        "1" | "true" => true,
        "0" | "false" | "" => false,
        other => {
            return Err(row.error(
                i,
                "selected",
                format!("expected `1` (sent to the humans) or `0`, found `{other}`"),
            ))
        }
    };
    if selected && !labelled {
        return Err(row.error(
            ih,
            "human",
            "expected a human label: the draw selected this row, and a drawn row left \
             unlabelled biases the estimate (label it, or make a new plan for the rows still \
             unlabelled)"
                .to_owned(),
        ));
    }
    if !selected && labelled && probability.is_some_and(|p| p < 1.0) {
        return Err(row.error(
            ih,
            "human",
            "expected no human label: the draw did not select this row (a label chosen outside \
             the draw biases the estimate; set its label_probability to 1 only if it was \
             labelled before the plan)"
                .to_owned(),
        ));
    }
    Ok(())
}

/// Reads the labelled battles of `bytes`.
///
/// # Errors
/// See the module documentation.
pub fn parse_labelled_battles(source: &str, bytes: &[u8]) -> Result<LabelledBattles> {
    let (mut reader, headers) = read_header(source, bytes, EXPECTED)?;
    let col = |name: &str| column(source, &headers, name, EXPECTED);
    let (ia, ib, ij, ih) = (
        col("model_a")?,
        col("model_b")?,
        col("judge")?,
        col("human")?,
    );
    let optional = |name: &str| find_unique(source, &headers, name);
    let (ip, is) = (optional("label_probability")?, optional("selected")?);
    let ie = optional("embedding")?;
    let mut models = ModelIndex::default();
    let (mut battles, mut records) = (Vec::new(), Records::new(headers.len()));
    let mut embeddings: Vec<Vec<f64>> = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(source, &e))?
    {
        let row = Row::new(source, &record);
        let (a, b) = (row.required(ia, "model_a")?, row.required(ib, "model_b")?);
        if a == b {
            return Err(row.error(
                ib,
                "model_b",
                format!("expected a model other than `model_a`, found `{b}` against itself"),
            ));
        }
        let human = if row.value(ih).is_empty() {
            None
        } else {
            Some(label(&row, ih, "human")?)
        };
        let probability = match ip {
            Some(i) => Some(probability(&row, i, human.is_some(), ih)?),
            None => None,
        };
        if let Some(i) = is {
            check_selected(&row, i, ih, human.is_some(), probability)?;
        }
        battles.push(LabelledBattle {
            a: models.id(a),
            b: models.id(b),
            judge: label(&row, ij, "judge")?,
            human,
            probability,
            line: row.line,
        });
        records.push(&record);
        if let Some(i) = ie {
            let embedding = parse_embedding(&row, i, "embedding")?;
            if let Some(first) = embeddings.first().filter(|f| f.len() != embedding.len()) {
                return Err(row.error(
                    i,
                    "embedding",
                    format!(
                        "expected {} numbers as on the first row, found {}",
                        first.len(),
                        embedding.len()
                    ),
                ));
            }
            embeddings.push(embedding);
        }
    }
    if battles.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: the header has no rows under it: expected one row per comparison"
        )));
    }
    Ok(LabelledBattles {
        models: models.names,
        battles,
        header: headers.iter().map(str::to_owned).collect(),
        records,
        embeddings,
    })
}
