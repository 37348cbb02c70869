//! Escalation: a judge run as a cascade (Jung, Brahman & Choi 2025, "Trust or Escalate"). The
//! run's judge (the first tier) judges every item; an item whose confidence is below the
//! tier's threshold goes on to the next judge of the worker's fleet, and an item below the
//! last tier's threshold goes to people, as an items file to label. The thresholds are the
//! ones the `cascade` analysis calibrates on human labels ([`crate::selective`]), where an
//! item is kept when its confidence is at least the threshold — the same rule as here.
//!
//! An item's confidence under one judge: the mean over its judgments (orders, repeats,
//! prompt variations) of each judgment's p_s, in the file's orientation (a pairwise
//! judgment shown swapped has its `A` and `B` exchanged); the verdict is the label with the
//! most mean probability (ties: the first in label order) and the confidence is that mean.
//! A judgment that did not parse, or whose p_s could not be read, adds nothing to any label,
//! so it lowers the item's confidence — an unread judgment is no evidence. With one judgment
//! per item this is the judge's p_s of its verdict; with several it is the simulated
//! annotators' agreement of the paper (§3.2), with the judgments as the annotators.
//!
//! Arguments: [`Escalation`] (`[escalate]` of `judge.toml`), the stored judgments' JSON lines,
//! the items file. Returns: each item's [`ItemConfidence`], the items file of those below a
//! threshold ([`items_file_of`]; for people with an empty `human` column to fill in), and the cascade's judgments as the `cascade` analysis reads
//! them ([`cascade_file`]). Errors: [`Error::InvalidParam`] for a threshold outside [0, 1] or no
//! tier; [`Error::Input`] for an items file without an `id` column or a judgment that is not
//! JSON.

use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// `[escalate]`: where the items the run's judge is not confident on go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Escalation {
    /// The run's own judge (the first tier) keeps an item whose confidence is at least this.
    pub threshold: f64,
    /// The judges after it, in order (`[[escalate.tiers]]`); an item below the last one's
    /// threshold goes to people.
    pub tiers: Vec<EscalationTier>,
}

/// One judge after the first: a model on an OpenAI-compatible server of the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EscalationTier {
    /// The server's API base (one the worker's operator lists with `--fleet`).
    pub url: String,
    /// The model name the server knows.
    pub model: String,
    /// This judge keeps an item whose confidence is at least this.
    pub threshold: f64,
    /// The environment variable of the server's key: set by the worker from its fleet list,
    /// never by a run's request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
}

impl Escalation {
    /// Checks the thresholds (in [0, 1]) and that there is a tier to escalate to.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the setting.
    pub fn validate(&self) -> Result<()> {
        if self.tiers.is_empty() {
            return Err(Error::param(
                "escalate.tiers",
                "expected at least one judge to escalate to",
            ));
        }
        let thresholds =
            std::iter::once(self.threshold).chain(self.tiers.iter().map(|t| t.threshold));
        for (k, threshold) in thresholds.enumerate() {
            if !(0.0..=1.0).contains(&threshold) {
                return Err(Error::param(
                    "escalate.threshold",
                    format!(
                        "tier {}: expected a confidence in [0, 1], found {threshold}",
                        k + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// How many judges the cascade has: the run's own and the tiers.
    pub fn judges(&self) -> usize {
        1 + self.tiers.len()
    }

    /// The threshold of tier `tier` (0: the run's own judge).
    pub fn threshold(&self, tier: usize) -> f64 {
        match tier {
            0 => self.threshold,
            k => self.tiers.get(k - 1).map_or(f64::INFINITY, |t| t.threshold),
        }
    }
}

/// One item under one judge.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemConfidence {
    pub item: String,
    /// The label with the most mean probability; `None` when no judgment had p_s.
    pub verdict: Option<String>,
    /// Its mean probability over the item's judgments (0 without p_s).
    pub confidence: f64,
    /// The item's judgments.
    pub judgments: usize,
}

/// The fields of a stored judgment that its confidence reads.
#[derive(Deserialize)]
struct Stored {
    id: String,
    #[serde(default)]
    order: String,
    #[serde(default)]
    label_probs: BTreeMap<String, f64>,
    #[serde(default)]
    parse_error: Option<String>,
}

/// Each item's verdict and confidence from its stored `judgments` (JSON lines as `tribunal
/// judge` writes them), in the order the items are first judged. `labels` are the prompt's
/// labels in order (ties go to the first); `pairwise` exchanges `A` and `B` of a judgment
/// shown swapped (`order` `ba`).
///
/// # Errors
/// [`Error::Input`] naming the judgment that is not a stored judgment.
pub fn item_confidences(
    judgments: &[String],
    labels: &[String],
    pairwise: bool,
) -> Result<Vec<ItemConfidence>> {
    let mut items: Vec<(String, Vec<f64>, usize)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    for (k, line) in judgments.iter().enumerate() {
        let stored: Stored = serde_json::from_str(line).map_err(|e| {
            Error::input(
                Location::line("judgments", k as u64 + 1),
                format!("not a stored judgment: {e}"),
            )
        })?;
        let at = *index.entry(stored.id.clone()).or_insert_with(|| {
            items.push((stored.id.clone(), vec![0.0; labels.len()], 0));
            items.len() - 1
        });
        let (_, mass, count) = &mut items[at];
        *count += 1;
        if stored.parse_error.is_some() {
            continue;
        }
        let total: f64 = stored.label_probs.values().filter(|p| p.is_finite()).sum();
        if total.is_nan() || total <= 0.0 {
            continue;
        }
        for (label, p) in &stored.label_probs {
            let oriented = match (pairwise && stored.order == "ba", label.as_str()) {
                (true, "A") => "B",
                (true, "B") => "A",
                (_, l) => l,
            };
            if let Some(j) = labels.iter().position(|l| l == oriented) {
                if p.is_finite() {
                    mass[j] += p / total;
                }
            }
        }
    }
    Ok(items
        .into_iter()
        .map(|(item, mass, judgments)| {
            let best =
                mass.iter()
                    .enumerate()
                    .fold(None::<(usize, f64)>, |best, (j, &m)| match best {
                        Some((_, b)) if b >= m => best,
                        _ if m > 0.0 => Some((j, m)),
                        _ => best,
                    });
            ItemConfidence {
                item,
                verdict: best.map(|(j, _)| labels[j].clone()),
                confidence: best.map_or(0.0, |(_, m)| m / judgments as f64),
                judgments,
            }
        })
        .collect())
}

/// The ids of the items below `threshold`.
pub fn below(confidences: &[ItemConfidence], threshold: f64) -> HashSet<String> {
    confidences
        .iter()
        .filter(|c| c.confidence < threshold)
        .map(|c| c.item.clone())
        .collect()
}

/// The rows of the items file `source` (`bytes`) whose `id` is in `ids`, with its header, in
/// the file's order; with `blank`, a column of that name, empty, when the file has none (the
/// `human` column of a file for people to label).
///
/// # Errors
/// [`Error::Input`] for a file that is not CSV or has no `id` column.
pub fn items_file_of(
    source: &str,
    bytes: &[u8],
    ids: &HashSet<String>,
    blank: Option<&str>,
) -> Result<Vec<u8>> {
    let csv_error = |e: csv::Error| {
        let line = e.position().map_or(0, csv::Position::line);
        Error::input(Location::line(source, line), e.to_string())
    };
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.byte_headers().map_err(csv_error)?.clone();
    let id = header.iter().position(|h| h == b"id").ok_or_else(|| {
        Error::input(
            Location::field(source, 1, 1, "id"),
            "expected an `id` column",
        )
    })?;
    let blank = blank.filter(|name| !header.iter().any(|h| h == name.as_bytes()));
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = header.clone();
    if let Some(name) = blank {
        header.push_field(name.as_bytes());
    }
    writer.write_byte_record(&header).map_err(csv_error)?;
    for record in reader.byte_records() {
        let mut record = record.map_err(csv_error)?;
        let kept = record
            .get(id)
            .and_then(|v| std::str::from_utf8(v).ok())
            .is_some_and(|v| ids.contains(v));
        if kept {
            if blank.is_some() {
                record.push_field(b"");
            }
            writer.write_byte_record(&record).map_err(csv_error)?;
        }
    }
    writer
        .into_inner()
        .map_err(|e| Error::param("items", e.to_string()))
}

/// The cascade's judgments as the `cascade` analysis reads them: a row per item and judge that
/// judged it, `item,judge,verdict,confidence,human`, with the item's human label from `human`
/// (blank where none) — label the items left to people, and the file calibrates the
/// thresholds of the next run. `tiers` are each judge's name and item confidences, in order.
///
/// # Errors
/// Only if the CSV cannot be written, which text fields cannot make it do.
pub fn cascade_file(
    tiers: &[(String, Vec<ItemConfidence>)],
    human: &std::collections::HashMap<String, String>,
) -> Result<Vec<u8>> {
    let write_error = |e: csv::Error| Error::param("cascade", e.to_string());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(["item", "judge", "verdict", "confidence", "human"])
        .map_err(write_error)?;
    for (judge, items) in tiers {
        for c in items {
            writer
                .write_record([
                    c.item.as_str(),
                    judge,
                    c.verdict.as_deref().unwrap_or(""),
                    &c.confidence.to_string(),
                    human.get(&c.item).map_or("", String::as_str),
                ])
                .map_err(write_error)?;
        }
    }
    writer
        .into_inner()
        .map_err(|e| Error::param("cascade", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Vec<String> {
        vec!["A".to_owned(), "B".to_owned()]
    }

    /// Hand-computed: item 1 shown both ways agrees on the file's `response` (A then, swapped,
    /// B): (0.8 + 0.6) / 2 = 0.7 for A. Item 2's second judgment did not parse: 0.9 / 2. Item 3
    /// has no p_s at all.
    #[test]
    fn confidences_average_p_s_in_the_files_orientation() {
        let judgments = [
            r#"{"id":"1","order":"ab","label_probs":{"A":0.8,"B":0.2}}"#,
            r#"{"id":"2","order":"ab","label_probs":{"A":0.1,"B":0.9}}"#,
            r#"{"id":"1","order":"ba","label_probs":{"A":0.4,"B":0.6}}"#,
            r#"{"id":"2","order":"ba","label_probs":{"A":1.0,"B":0.0},"parse_error":"x"}"#,
            r#"{"id":"3","order":"ab","label_probs":{}}"#,
        ]
        .map(str::to_owned);
        let c = item_confidences(&judgments, &labels(), true).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(
            (c[0].item.as_str(), c[0].verdict.as_deref()),
            ("1", Some("A"))
        );
        assert!((c[0].confidence - 0.7).abs() < 1e-12);
        assert_eq!(c[1].verdict.as_deref(), Some("B"));
        assert!((c[1].confidence - 0.45).abs() < 1e-12);
        assert_eq!((c[2].verdict.clone(), c[2].confidence), (None, 0.0));
        assert_eq!(c.iter().map(|c| c.judgments).collect::<Vec<_>>(), [2, 2, 1]);
        // Not pairwise: no exchange, so item 1 splits evenly (0.6 each way) and the tie goes to
        // the first label.
        let c = item_confidences(&judgments, &labels(), false).unwrap();
        assert_eq!(c[0].verdict.as_deref(), Some("A"));
        assert!((c[0].confidence - 0.6).abs() < 1e-12);
        // Kept at the threshold itself, below it escalated.
        let ids = below(&item_confidences(&judgments, &labels(), true).unwrap(), 0.7);
        assert_eq!(ids, HashSet::from(["2".to_owned(), "3".to_owned()]));
    }

    #[test]
    fn an_items_file_keeps_its_header_and_the_named_rows_in_order() {
        let bytes = b"id,instruction,response\n1,a,\"x, y\"\n2,b,z\n3,c,w\n";
        let ids = HashSet::from(["3".to_owned(), "1".to_owned()]);
        let out = items_file_of("items.csv", bytes, &ids, None).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "id,instruction,response\n1,a,\"x, y\"\n3,c,w\n"
        );
        // For people: an empty `human` column to fill in, unless the file has one.
        let out = items_file_of("items.csv", bytes, &ids, Some("human")).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "id,instruction,response,human\n1,a,\"x, y\",\n3,c,w,\n"
        );
        let labelled = b"id,human,response\n1,0.5,x\n";
        let out = items_file_of("items.csv", labelled, &ids, Some("human")).unwrap();
        assert_eq!(out, labelled);
        let err = items_file_of("items.csv", b"key,x\n1,2\n", &ids, None).unwrap_err();
        assert!(err.to_string().contains("items.csv, line 1"), "{err}");
    }

    #[test]
    fn thresholds_are_confidences_and_are_checked() {
        let tier = EscalationTier {
            url: "http://h/v1".to_owned(),
            model: "big".to_owned(),
            threshold: 0.6,
            api_key_env: None,
        };
        let escalation = Escalation {
            threshold: 0.8,
            tiers: vec![tier.clone()],
        };
        escalation.validate().unwrap();
        assert_eq!(
            (escalation.threshold(0), escalation.threshold(1)),
            (0.8, 0.6)
        );
        let bad = Escalation {
            threshold: 1.5,
            tiers: vec![tier],
        };
        assert!(bad.validate().unwrap_err().to_string().contains("tier 1"));
        let none = Escalation {
            threshold: 0.5,
            tiers: vec![],
        };
        assert!(none.validate().is_err());
    }
}
