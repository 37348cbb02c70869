//! The study's files made from the local judge's judgments (the JSON lines `tribunal judge`
//! stores): its scored battles against the crowd's votes, its verdicts as ratings, its
//! verdicts by position from the both-orders run, and its two sampled runs for the A/A test.
//!
//! The judge's signal on a pair is s = ln p(left wins) − ln p(right wins), from p_s of the two
//! labels at the verdict position (`label_probs`, as the judge saw the pair; turned to the
//! file's orientation for a `ba` judgment), each probability floored at 1e-12 so that a label
//! the judge gave no mass stays finite (|s| ≤ 27.6). Verdicts: `left` when the judgment's
//! `winner` is `A` (the file's `response`), `right` for `B`, `tie` otherwise.
//!
//! Errors: a judgment line that is not a stored judgment (its number).

use super::llmfao::{csv_bytes, Llmfao};
use anyhow::Context;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The fields of a stored judgment the study reads.
#[derive(Debug, Deserialize)]
pub struct Judged {
    pub id: String,
    pub order: String,
    #[serde(default)]
    pub repeat: u32,
    pub winner: Option<String>,
    #[serde(default)]
    pub label_probs: BTreeMap<String, f64>,
    #[serde(default)]
    pub generated_tokens: usize,
}

impl Judged {
    /// Parses the stored judgment `lines`.
    pub fn parse_all(lines: &[String]) -> anyhow::Result<Vec<Self>> {
        lines
            .iter()
            .enumerate()
            .map(|(k, line)| {
                serde_json::from_str(line).with_context(|| format!("judgment {}", k + 1))
            })
            .collect()
    }

    /// s in the file's orientation (positive: the left answer), when p_s has both labels.
    pub fn score(&self) -> Option<f64> {
        let (a, b) = (self.label_probs.get("A")?, self.label_probs.get("B")?);
        let s = a.max(1e-12).ln() - b.max(1e-12).ln();
        Some(if self.order == "ba" { -s } else { s })
    }

    /// `left`, `right` or `tie` in the file's orientation; `None` when it did not parse.
    pub fn verdict(&self) -> Option<&'static str> {
        self.winner.as_deref().map(|w| match w {
            "A" => "left",
            "B" => "right",
            _ => "tie",
        })
    }

    /// The verdict by position: `left` when the first-shown answer won.
    pub fn shown_verdict(&self) -> Option<&'static str> {
        let v = self.verdict()?;
        Some(match (self.order.as_str(), v) {
            ("ba", "left") => "right",
            ("ba", "right") => "left",
            (_, v) => v,
        })
    }
}

/// The crowd's votes on the judged pairs with the judge's score: a scored-battles file
/// (`key,prompt,model_a,model_b,score,human`), one row per vote, the pair's first judgment's
/// score repeated (rows sharing a `key` are votes on one judgment). Pairs without a score are
/// left out; returns the file and how many judged pairs it holds.
pub fn scored_battles(data: &Llmfao, judged: &[Judged]) -> anyhow::Result<(Vec<u8>, usize)> {
    let mut score: BTreeMap<&str, f64> = BTreeMap::new();
    for j in judged {
        if let Some(s) = j.score() {
            score.entry(j.id.as_str()).or_insert(s);
        }
    }
    let pairs: BTreeMap<&str, &super::llmfao::Pair> =
        data.pairs.iter().map(|p| (p.id.as_str(), p)).collect();
    let mut rows = Vec::new();
    for v in &data.votes {
        let (Some(s), Some(p)) = (score.get(v.id.as_str()), pairs.get(v.id.as_str())) else {
            continue;
        };
        let human = match v.winner.as_str() {
            "left" => "model_a",
            "right" => "model_b",
            _ => "tie",
        };
        rows.push([
            v.id.clone(),
            p.prompt.clone(),
            p.left.clone(),
            p.right.clone(),
            format!("{s}"),
            human.to_owned(),
        ]);
    }
    let bytes = csv_bytes(
        &["key", "prompt", "model_a", "model_b", "score", "human"],
        &rows,
    )?;
    Ok((bytes, score.len()))
}

/// Each pair's first parsed verdict (`left`/`right`/`tie`, the file's orientation), by id.
pub fn first_verdicts(judged: &[Judged]) -> BTreeMap<String, &'static str> {
    let mut verdicts = BTreeMap::new();
    for j in judged {
        if let Some(v) = j.verdict() {
            verdicts.entry(j.id.clone()).or_insert(v);
        }
    }
    verdicts
}

/// A labelled-battles file (`id,model_a,model_b,judge,human`) of a judge's `verdicts` (pair id
/// → `left`/`right`/`tie`), in the pairs file's order: `judge` is 1, 0 or 0.5 for the left
/// answer, `human` the crowd's mean vote for it (left 1, right 0, tie ½) on the pairs of
/// `labelled` and empty elsewhere — the input of PPI and of the judge value gauge.
pub fn labelled_battles(
    data: &Llmfao,
    verdicts: &BTreeMap<String, &str>,
    labelled: &std::collections::HashSet<String>,
) -> anyhow::Result<Vec<u8>> {
    let mut crowd: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for v in &data.votes {
        let value = match v.winner.as_str() {
            "left" => 1.0,
            "right" => 0.0,
            _ => 0.5,
        };
        let entry = crowd.entry(v.id.as_str()).or_insert((0.0, 0.0));
        *entry = (entry.0 + value, entry.1 + 1.0);
    }
    let mut rows = Vec::new();
    for p in &data.pairs {
        let Some(verdict) = verdicts.get(&p.id) else {
            continue;
        };
        let judge = match *verdict {
            "left" => "1",
            "right" => "0",
            _ => "0.5",
        };
        let human = match (labelled.contains(&p.id), crowd.get(p.id.as_str())) {
            (true, Some((sum, count))) => format!("{}", sum / count),
            _ => String::new(),
        };
        rows.push([
            p.id.clone(),
            p.left.clone(),
            p.right.clone(),
            judge.to_owned(),
            human,
        ]);
    }
    csv_bytes(&["id", "model_a", "model_b", "judge", "human"], &rows)
}

/// The judge's verdicts as ratings (`id,winner`, `left`/`right`/`tie`): each pair's first
/// parsed judgment.
pub fn verdict_ratings(judged: &[Judged]) -> anyhow::Result<Vec<u8>> {
    let mut seen = std::collections::HashSet::new();
    let rows: Vec<[String; 2]> = judged
        .iter()
        .filter_map(|j| Some((j, j.verdict()?)))
        .filter(|(j, _)| seen.insert(j.id.clone()))
        .map(|(j, v)| [j.id.clone(), v.to_owned()])
        .collect();
    csv_bytes(&["id", "winner"], &rows)
}

/// Verdicts by position for the position-bias report: `item,variant,score` with the order
/// shown as the variant and `left` meaning the first-shown answer won.
pub fn position_ratings(judged: &[Judged]) -> anyhow::Result<Vec<u8>> {
    let rows: Vec<[String; 3]> = judged
        .iter()
        .filter_map(|j| Some([j.id.clone(), j.order.clone(), j.shown_verdict()?.to_owned()]))
        .collect();
    csv_bytes(&["item", "variant", "score"], &rows)
}

/// Two sampled runs and the crowd's plurality for the A/A test: `item,rater,score` with raters
/// `run1`, `run2` (repeats 0 and 1) and `crowd` (its plurality as `left`/`right`/`tie`).
pub fn aa_ratings(data: &Llmfao, judged: &[Judged]) -> anyhow::Result<Vec<u8>> {
    let mut rows = Vec::new();
    let mut items = std::collections::BTreeSet::new();
    for j in judged {
        if let Some(v) = j.verdict() {
            rows.push([j.id.clone(), format!("run{}", j.repeat + 1), v.to_owned()]);
            items.insert(j.id.as_str());
        }
    }
    for p in data.pairs.iter().filter(|p| items.contains(p.id.as_str())) {
        let gold = match p.crowd_label.as_str() {
            "a" => "left",
            "b" => "right",
            _ => "tie",
        };
        rows.push([p.id.clone(), "crowd".to_owned(), gold.to_owned()]);
    }
    csv_bytes(&["item", "rater", "score"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(order: &str, winner: &str, a: f64, b: f64) -> Judged {
        Judged {
            id: "7".to_owned(),
            order: order.to_owned(),
            repeat: 0,
            winner: Some(winner.to_owned()),
            label_probs: [("A".to_owned(), a), ("B".to_owned(), b)].into(),
            generated_tokens: 0,
        }
    }

    #[test]
    fn scores_and_verdicts_turn_to_the_files_orientation() {
        // ab: p(A) = 0.8 favours the left answer, s = ln 4.
        let ab = judged("ab", "A", 0.8, 0.2);
        assert!((ab.score().unwrap() - 4f64.ln()).abs() < 1e-12);
        assert_eq!(
            (ab.verdict(), ab.shown_verdict()),
            (Some("left"), Some("left"))
        );
        // ba: the judge saw the right answer first and preferred it (label A, winner B).
        let ba = judged("ba", "B", 0.8, 0.2);
        assert!((ba.score().unwrap() + 4f64.ln()).abs() < 1e-12);
        assert_eq!(
            (ba.verdict(), ba.shown_verdict()),
            (Some("right"), Some("left"))
        );
        // A label without mass stays finite.
        let sure = judged("ab", "A", 1.0, 0.0);
        assert!((sure.score().unwrap() - 1e12f64.ln()).abs() < 1e-9);
        let unparsed = Judged {
            winner: None,
            label_probs: BTreeMap::new(),
            ..judged("ab", "A", 0.5, 0.5)
        };
        assert_eq!((unparsed.score(), unparsed.verdict()), (None, None));
        let tie = judged("ba", "tie", 0.5, 0.5);
        assert_eq!(
            (tie.verdict(), tie.shown_verdict()),
            (Some("tie"), Some("tie"))
        );
    }
}
