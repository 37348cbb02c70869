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
//! One row per comparison: several human votes on one pair are one label (their mean), as the
//! estimates take the rows to be independent.
//!
//! Arguments: the input's name (for messages) and its bytes. Returns: [`LabelledBattles`],
//! models numbered in order of first appearance. Errors: [`Error::Input`] naming the source,
//! line, column and field for a missing column, an empty or self-battling model, an empty
//! `judge`, or a label that is neither a verdict nor a number in [0, 1]; the CSV reader's
//! located errors; [`Error::Insufficient`] for a header without rows.

use crate::io::csv_row::{column, csv_error, read_header, Row};
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
}

/// The rows of a labelled-battles file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledBattles {
    pub models: Vec<String>,
    pub battles: Vec<LabelledBattle>,
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
    let mut models = ModelIndex::default();
    let mut battles = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(source, &e))?;
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
        battles.push(LabelledBattle {
            a: models.id(a),
            b: models.id(b),
            judge: label(&row, ij, "judge")?,
            human,
        });
    }
    if battles.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: the header has no rows under it: expected one row per comparison"
        )));
    }
    Ok(LabelledBattles {
        models: models.names,
        battles,
    })
}
