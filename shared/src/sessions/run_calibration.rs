//! A judge run's calibration files: when the items file carries human labels and the run
//! embedded each rationale, the labelled items' judgments become the rows a calibration head
//! trains and is tested on (seed 000 §4; the formats of
//! [`crate::calibration::calibration_data`]), so a session goes from a run to a calibration
//! without a file leaving it.
//!
//! The items file's optional columns:
//!
//! | column  | values |
//! |---------|--------|
//! | `human` | pairwise: the humans' preference for `response` in [0, 1] (1: `response`, 0: `response_b`, ½: a tie); pointwise: the human score. An empty cell: not labelled |
//! | `split` | `train` or `test`; empty or absent: by the id's hash (below) |
//!
//! Each judgment of a labelled item that has an embedding and a signal is one row: a pairwise
//! judgment (one with p(`A`)) a BTL row `embedding,p,human` — `p` the judge's p(`A`) in the
//! order it saw the pair and `human` turned to that order (1 − human for `ba`), as the run
//! applies a BTL head — and a pointwise one with a numeric score an LS row
//! `embedding,score,human`. An item without a `split` goes to `test` when the first byte of the
//! SHA-256 of its id is below 52 (about one in five, the same for any order of the file and any
//! run), else to `train`; all judgments of an item fall on one side.
//!
//! Arguments: the items file's name and bytes ([`item_labels`]); the stored judgments and the
//! labels ([`calibration_files`]). Returns: the labels (none without a `human` column); the train
//! and test files, each only when it has a row. Errors: [`Error::Input`] at the items file's
//! line, column and field for a `human` cell that is not a finite number, a pairwise `human`
//! outside [0, 1] ([`check_preferences`], also when the judgments show the run is pairwise), or
//! a `split` other than `train`/`test`; the items file's CSV errors.

use crate::io::csv_row::{find_unique, open, Row};
use crate::io::error::{Error, Location, Result};
use crate::io::provenance::content_hash;
use std::collections::HashMap;

/// Which side of the calibration an item is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Train,
    Test,
}

/// One labelled item: its human label, its side, and where the label is (for messages).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemLabel {
    pub human: f64,
    pub side: Side,
    pub line: u64,
    pub column: usize,
}

/// Item id → its label, for the items with a `human` cell.
pub type ItemLabels = HashMap<String, ItemLabel>;

/// The side of an item without a `split`, from its id alone.
fn hashed_side(id: &str) -> Side {
    let hash = content_hash(id.as_bytes());
    let first = u8::from_str_radix(&hash["sha256:".len().."sha256:".len() + 2], 16).unwrap_or(255);
    if first < 52 {
        Side::Test
    } else {
        Side::Train
    }
}

/// The human labels of the items file `bytes` (named `source`): `None` without a `human`
/// column.
///
/// # Errors
/// See the module documentation.
pub fn item_labels(source: &str, bytes: &[u8]) -> Result<Option<ItemLabels>> {
    let (mut reader, headers) = open(source, bytes)?;
    let Some(human) = find_unique(source, &headers, "human")? else {
        return Ok(None);
    };
    let id = find_unique(source, &headers, "id")?
        .ok_or_else(|| Error::input(Location::line(source, 1), "expected an `id` column"))?;
    let split = find_unique(source, &headers, "split")?;
    let mut labels = ItemLabels::new();
    for record in reader.records() {
        let record = record.map_err(|e| crate::io::csv_row::csv_error(source, &e))?;
        let row = Row::new(source, &record);
        if row.value(human).trim().is_empty() {
            continue;
        }
        let value = row.number(human, "human")?;
        let key = row.required(id, "id")?.to_owned();
        let side = match split.map(|s| row.value(s).trim()) {
            None | Some("") => hashed_side(&key),
            Some("train") => Side::Train,
            Some("test") => Side::Test,
            Some(other) => {
                let at = split.unwrap_or_default();
                return Err(row.error(
                    at,
                    "split",
                    format!("expected `train`, `test` or an empty cell, found `{other}`"),
                ));
            }
        };
        labels.insert(
            key,
            ItemLabel {
                human: value,
                side,
                line: row.line,
                column: human + 1,
            },
        );
    }
    Ok(Some(labels))
}

/// Every label of `labels` (of the items file `source`) is a preference in [0, 1], as a
/// pairwise run reads them.
///
/// # Errors
/// [`Error::Input`] at the first label outside [0, 1], in file order.
pub fn check_preferences(labels: &ItemLabels, source: &str) -> Result<()> {
    let mut outside: Vec<&ItemLabel> = labels
        .values()
        .filter(|l| !(0.0..=1.0).contains(&l.human))
        .collect();
    outside.sort_by_key(|l| l.line);
    match outside.first() {
        Some(label) => Err(Error::input(
            Location::field(source, label.line, label.column, "human"),
            format!(
                "expected the humans' preference for `response` in [0, 1] (the run is \
                 pairwise), found {}",
                label.human
            ),
        )),
        None => Ok(()),
    }
}

/// The fields of a stored judgment a calibration row reads.
#[derive(serde::Deserialize)]
struct Judged {
    id: String,
    #[serde(default)]
    order: String,
    label: Option<String>,
    #[serde(default)]
    label_probs: HashMap<String, f64>,
    embedding: Option<Vec<f64>>,
}

/// The train and test calibration files (`train` first; either may be missing) of the
/// `judgments` of the items labelled in `labels` of the items file `source`, each as
/// (side, bytes).
///
/// # Errors
/// See the module documentation; [`Error::InvalidParam`] for a stored judgment that is not
/// such an object.
pub fn calibration_files(
    judgments: &[String],
    labels: &ItemLabels,
    source: &str,
) -> Result<Vec<(Side, Vec<u8>)>> {
    let mut rows: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut pairwise = None;
    let mut checked = false;
    for (k, line) in judgments.iter().enumerate() {
        let judged: Judged = serde_json::from_str(line).map_err(|e| {
            Error::param(
                "judgments",
                format!("judgment {}: not a stored judgment: {e}", k + 1),
            )
        })?;
        let (Some(label), Some(embedding)) = (labels.get(&judged.id), &judged.embedding) else {
            continue;
        };
        let signal = match judged.label_probs.get("A") {
            Some(&p) => {
                pairwise = Some(true);
                if !checked {
                    check_preferences(labels, source)?;
                    checked = true;
                }
                let human = if judged.order == "ba" {
                    1.0 - label.human
                } else {
                    label.human
                };
                Some((p, human))
            }
            None => {
                pairwise.get_or_insert(false);
                judged
                    .label
                    .as_deref()
                    .and_then(|l| l.trim().parse::<f64>().ok())
                    .filter(|s| s.is_finite())
                    .map(|s| (s, label.human))
            }
        };
        let Some((signal, human)) = signal else {
            continue;
        };
        let cell: Vec<String> = embedding.iter().map(f64::to_string).collect();
        let side = usize::from(label.side == Side::Test);
        rows[side].push(format!("\"{}\",{signal},{human}", cell.join(" ")));
    }
    let header = if pairwise == Some(true) {
        "embedding,p,human"
    } else {
        "embedding,score,human"
    };
    Ok([Side::Train, Side::Test]
        .into_iter()
        .zip(rows)
        .filter(|(_, rows)| !rows.is_empty())
        .map(|(side, rows)| {
            let mut text = String::from(header);
            text.push('\n');
            for row in rows {
                text.push_str(&row);
                text.push('\n');
            }
            (side, text.into_bytes())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::calibration_data::{parse_calibration, HeadKind};

    fn judged(id: &str, order: &str, p_a: f64, embedding: &[f64]) -> String {
        serde_json::json!({
            "id": id, "order": order, "label": "A", "label_probs": { "A": p_a, "B": 1.0 - p_a },
            "embedding": embedding,
        })
        .to_string()
    }

    #[test]
    fn pairwise_judgments_of_labelled_items_become_btl_rows_turned_to_the_order_seen() {
        let items = b"id,instruction,response,response_b,human,split\n\
            q1,i,r,s,1,train\nq2,i,r,s,0.5,test\nq3,i,r,s,,train\nq4,i,r,s,0,\n";
        let labels = item_labels("items.csv", items).unwrap().unwrap();
        assert_eq!(labels.len(), 3, "q3 is not labelled");
        let judgments = [
            judged("q1", "ab", 0.8, &[0.5, -1.0]),
            judged("q1", "ba", 0.25, &[1.5, 2.0]),
            judged("q2", "ab", 0.6, &[0.0, 0.0]),
            judged("q3", "ab", 0.9, &[0.0, 1.0]),
            // No embedding: no row.
            serde_json::json!({ "id": "q1", "order": "ab", "label_probs": { "A": 0.5 } })
                .to_string(),
        ];
        let files = calibration_files(&judgments, &labels, "items.csv").unwrap();
        let side_of_q4 = hashed_side("q4");
        assert_eq!(files[0].0, Side::Train);
        assert_eq!(
            String::from_utf8(files[0].1.clone()).unwrap(),
            "embedding,p,human\n\"0.5 -1\",0.8,1\n\"1.5 2\",0.25,0\n"
        );
        assert_eq!(
            String::from_utf8(files[1].1.clone()).unwrap(),
            "embedding,p,human\n\"0 0\",0.6,0.5\n"
        );
        // Each file reads as a BTL head's calibration data.
        for (_, bytes) in &files {
            parse_calibration("c.csv", bytes, HeadKind::Btl, Some(2)).unwrap();
        }
        // The hashed side is stable and about one in five goes to test.
        assert_eq!(side_of_q4, hashed_side("q4"));
        let tests = (0..1000)
            .filter(|i| hashed_side(&format!("item-{i}")) == Side::Test)
            .count();
        assert!((150..250).contains(&tests), "{tests}");
    }

    #[test]
    fn pointwise_scores_become_ls_rows_and_bad_cells_are_located() {
        let items = b"id,instruction,response,human\nq1,i,r,4\nq2,i,r,2\n";
        let mut labels = item_labels("items.csv", items).unwrap().unwrap();
        for label in labels.values_mut() {
            label.side = Side::Train;
        }
        let score = |id: &str, label: &str| {
            serde_json::json!({ "id": id, "label": label, "embedding": [1.0] }).to_string()
        };
        let files = calibration_files(
            &[score("q1", "5"), score("q2", "oops")],
            &labels,
            "items.csv",
        )
        .unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(
            String::from_utf8(files[0].1.clone()).unwrap(),
            "embedding,score,human\n\"1\",5,4\n"
        );
        parse_calibration("c.csv", &files[0].1, HeadKind::Ls, None).unwrap();
        // A pairwise run reads `human` as a preference in [0, 1]: a 4 is located.
        let err = calibration_files(&[judged("q1", "ab", 0.5, &[1.0])], &labels, "items.csv")
            .unwrap_err();
        assert_eq!(
            err.location(),
            Some(&Location::field("items.csv", 2, 4, "human"))
        );
        let err = item_labels("items.csv", b"id,human\nq1,high\n").unwrap_err();
        assert_eq!(
            err.location(),
            Some(&Location::field("items.csv", 2, 2, "human"))
        );
        let err = item_labels("items.csv", b"id,human,split\nq1,1,dev\n").unwrap_err();
        assert_eq!(
            err.location(),
            Some(&Location::field("items.csv", 2, 3, "split"))
        );
        assert_eq!(item_labels("items.csv", b"id,x\nq1,1\n").unwrap(), None);
    }
}
