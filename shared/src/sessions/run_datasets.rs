//! A judge run's judgments as datasets of its session, so that analyses read them as they
//! read any uploaded file: every judgment as the `.jsonl` `tribunal judge` writes (verdicts,
//! for the programs report and routing); a pairwise run's verdicts as battles
//! (`id,model_a,model_b,winner`, in the items file's orientation: the file's `response` is
//! `model_a`), for a leaderboard; when some pair was judged more than once (both orders,
//! repeats), also one battle per pair (`<items>-judge-battles-per-pair.csv`: the verdict its
//! judgments agree on by majority, a tie when they split evenly — so two orders that disagree
//! make a tie, seed 002 §3.2's order flip), for a judge-vs-humans study joined on `id`, which
//! takes one verdict per key (a pair judged once keeps its verdict); a pointwise run's
//! scores as long-format ratings (`item,rater,score,variant,repeat`, the rater `judge`), for
//! agreement, consistency and IRT.
//!
//! When the items file has a `human` column, a pairwise run also leaves
//! `<items>-labelled-battles.csv` (`id,model_a,model_b,judge,human`: per pair the mean of its
//! verdicts' targets as the judge's label — ½ where two orders disagree — and the item's human
//! label, empty where it has none; and, when every one of its judgments embedded its rationale,
//! an `embedding` column — per pair the mean of its judgments' embeddings — for a calibration
//! head cross-fitted in the report), for the prediction-powered report; and when the run
//! embedded its rationales, the labelled items' judgments also become calibration files,
//! `<items>-calibration-train.csv` and `-test.csv` ([`crate::sessions::run_calibration`]).
//!
//! Arguments: the stored judgments (one JSON object per judgment, as `tribunal judge` writes
//! them), the items file's name and bytes. Returns: each dataset's kind, name and bytes; a
//! judgment that did not parse has no verdict and is left out of the battles and ratings (it
//! stays in the `.jsonl`); a kind with no row is not made. Errors: [`Error::InvalidParam`] for a
//! stored judgment that is not such an object; the items file's located errors in its `human`
//! and `split` columns (the worker checks them before the run starts).

use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Result};
use crate::sessions::run_calibration::{calibration_files, check_preferences, item_labels, Side};
use serde::Deserialize;

/// The fields of a stored judgment that the datasets read.
#[derive(Deserialize)]
struct StoredJudgment {
    id: String,
    #[serde(default)]
    repeat: u32,
    #[serde(default)]
    variant: String,
    model: Option<String>,
    model_b: Option<String>,
    /// The parsed verdict: the score, or `A`/`B`/`tie` as the judge saw the pair.
    label: Option<String>,
    /// A pairwise verdict in the file's orientation (`A`: the file's `response`).
    winner: Option<String>,
    /// The rationale's embedding, when the run embedded it.
    #[serde(default)]
    embedding: Option<Vec<f64>>,
}

/// One dataset made from a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDataset {
    pub kind: DatasetKind,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The datasets of a run's `judgments` on the items file `items_name`.
///
/// # Errors
/// [`Error::InvalidParam`] naming the judgment that could not be read.
pub fn run_datasets(
    judgments: &[String],
    items_name: &str,
    items: &[u8],
) -> Result<Vec<RunDataset>> {
    let stem = items_name
        .rsplit_once('.')
        .map_or(items_name, |(stem, _)| stem);
    let mut jsonl = String::new();
    let mut battles = csv::Writer::from_writer(Vec::new());
    let mut ratings = csv::Writer::from_writer(Vec::new());
    let (mut n_battles, mut n_ratings) = (0usize, 0usize);
    let write_error = |e: csv::Error| Error::param("judgments", e.to_string());
    battles
        .write_record(["id", "model_a", "model_b", "winner"])
        .map_err(write_error)?;
    ratings
        .write_record(["item", "rater", "score", "variant", "repeat"])
        .map_err(write_error)?;
    // Pair id → its models and the targets (1: the file's `response` won) of its verdicts, in
    // the order first judged; and their embeddings (`None` once a verdict has none).
    let mut per_pair: Vec<(String, String, String, Vec<f64>)> = Vec::new();
    let mut pair_embeddings: Vec<Option<Vec<Vec<f64>>>> = Vec::new();
    let mut pair_index: std::collections::HashMap<String, usize> = Default::default();
    for (k, line) in judgments.iter().enumerate() {
        let judgment: StoredJudgment = serde_json::from_str(line).map_err(|e| {
            Error::param(
                "judgments",
                format!("judgment {}: not a stored judgment: {e}", k + 1),
            )
        })?;
        jsonl.push_str(line.trim_end());
        jsonl.push('\n');
        match (&judgment.winner, &judgment.model, &judgment.model_b) {
            (Some(winner), Some(a), Some(b)) => {
                let (winner, y) = match winner.as_str() {
                    "A" => ("model_a", 1.0),
                    "B" => ("model_b", 0.0),
                    _ => ("tie", 0.5),
                };
                let at = *pair_index.entry(judgment.id.clone()).or_insert_with(|| {
                    per_pair.push((judgment.id.clone(), a.clone(), b.clone(), Vec::new()));
                    pair_embeddings.push(Some(Vec::new()));
                    per_pair.len() - 1
                });
                per_pair[at].3.push(y);
                pair_embeddings[at] = match (pair_embeddings[at].take(), &judgment.embedding) {
                    (Some(mut seen), Some(e)) => {
                        seen.push(e.clone());
                        Some(seen)
                    }
                    _ => None,
                };
                battles
                    .write_record([judgment.id.as_str(), a, b, winner])
                    .map_err(write_error)?;
                n_battles += 1;
            }
            (None, _, _) => {
                if let Some(score) = &judgment.label {
                    ratings
                        .write_record([
                            judgment.id.as_str(),
                            "judge",
                            score,
                            &judgment.variant,
                            &judgment.repeat.to_string(),
                        ])
                        .map_err(write_error)?;
                    n_ratings += 1;
                }
            }
            // A pairwise verdict on items without model columns ranks nothing.
            (Some(_), _, _) => {}
        }
    }
    let finish = |w: csv::Writer<Vec<u8>>| {
        w.into_inner()
            .map_err(|e| Error::param("judgments", e.to_string()))
    };
    let mut datasets = vec![RunDataset {
        kind: DatasetKind::Verdicts,
        name: format!("{stem}-judgments.jsonl"),
        bytes: jsonl.into_bytes(),
    }];
    let mut pairs = csv::Writer::from_writer(Vec::new());
    pairs
        .write_record(["id", "model_a", "model_b", "winner"])
        .map_err(write_error)?;
    for (id, a, b, targets) in &per_pair {
        let mean = targets.iter().sum::<f64>() / targets.len() as f64;
        let winner = match mean.partial_cmp(&0.5) {
            Some(std::cmp::Ordering::Greater) => "model_a",
            Some(std::cmp::Ordering::Less) => "model_b",
            _ => "tie",
        };
        pairs
            .write_record([id.as_str(), a, b, winner])
            .map_err(write_error)?;
    }
    let judged_again = per_pair.iter().any(|p| p.3.len() > 1);
    for (kind, suffix, writer, rows) in [
        (DatasetKind::Battles, "judge-battles", battles, n_battles),
        (
            DatasetKind::Battles,
            "judge-battles-per-pair",
            pairs,
            if judged_again { per_pair.len() } else { 0 },
        ),
        (DatasetKind::Ratings, "judge-ratings", ratings, n_ratings),
    ] {
        let bytes = finish(writer)?;
        if rows > 0 {
            datasets.push(RunDataset {
                kind,
                name: format!("{stem}-{suffix}.csv"),
                bytes,
            });
        }
    }
    if let Some(labels) = item_labels(items_name, items)? {
        if !per_pair.is_empty() {
            check_preferences(&labels, items_name)?;
            let embeddings = mean_embeddings(&pair_embeddings);
            let mut labelled = csv::Writer::from_writer(Vec::new());
            let mut header = vec!["id", "model_a", "model_b", "judge", "human"];
            header.extend(embeddings.as_ref().map(|_| "embedding"));
            labelled.write_record(header).map_err(write_error)?;
            for (k, (id, a, b, targets)) in per_pair.iter().enumerate() {
                let judge = targets.iter().sum::<f64>() / targets.len() as f64;
                let human = labels
                    .get(id)
                    .map_or(String::new(), |l| l.human.to_string());
                let mut row = vec![id.clone(), a.clone(), b.clone(), judge.to_string(), human];
                row.extend(embeddings.as_ref().map(|e| e[k].clone()));
                labelled.write_record(row).map_err(write_error)?;
            }
            datasets.push(RunDataset {
                kind: DatasetKind::LabelledBattles,
                name: format!("{stem}-labelled-battles.csv"),
                bytes: finish(labelled)?,
            });
        }
        for (side, bytes) in calibration_files(judgments, &labels, items_name)? {
            let side = match side {
                Side::Train => "train",
                Side::Test => "test",
            };
            datasets.push(RunDataset {
                kind: DatasetKind::Calibration,
                name: format!("{stem}-calibration-{side}.csv"),
                bytes,
            });
        }
    }
    Ok(datasets)
}

/// Each pair's mean embedding as a cell of space-separated numbers, when every judgment of
/// every pair has an embedding of one dimension (else none).
fn mean_embeddings(pairs: &[Option<Vec<Vec<f64>>>]) -> Option<Vec<String>> {
    let dim = pairs.first()?.as_ref()?.first()?.len();
    pairs
        .iter()
        .map(|seen| {
            let seen = seen.as_ref().filter(|s| s.iter().all(|e| e.len() == dim))?;
            let k = seen.len() as f64;
            let mean = (0..dim).map(|j| (seen.iter().map(|e| e[j]).sum::<f64>() / k).to_string());
            Some(mean.collect::<Vec<_>>().join(" "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::parse_battles;
    use crate::sessions::session::check_dataset;

    /// An items file without human labels.
    const ITEMS: &[u8] = b"id,instruction,response\n";

    fn line(id: &str, order: &str, winner: Option<&str>) -> String {
        serde_json::json!({
            "id": id, "order": order, "repeat": 0, "variant": "", "model": "x", "model_b": "y",
            "label": winner, "winner": winner, "raw": "…",
        })
        .to_string()
    }

    #[test]
    fn a_pairwise_run_gives_its_verdicts_as_battles_in_the_files_orientation() {
        let judgments = [
            line("p1", "ab", Some("A")),
            line("p1", "ba", Some("B")),
            line("p2", "ab", Some("tie")),
            // Unparsed: no verdict, so no battle; it stays among the judgments.
            line("p3", "ab", None),
        ];
        let datasets = run_datasets(&judgments, "items.csv", ITEMS).unwrap();
        let kinds: Vec<_> = datasets.iter().map(|d| (d.kind, d.name.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (DatasetKind::Verdicts, "items-judgments.jsonl"),
                (DatasetKind::Battles, "items-judge-battles.csv"),
                (DatasetKind::Battles, "items-judge-battles-per-pair.csv")
            ]
        );
        assert_eq!(
            String::from_utf8(datasets[1].bytes.clone()).unwrap(),
            "id,model_a,model_b,winner\np1,x,y,model_a\np1,x,y,model_b\np2,x,y,tie\n"
        );
        // p1's two orders disagree: a tie; p2 keeps its one verdict.
        assert_eq!(
            String::from_utf8(datasets[2].bytes.clone()).unwrap(),
            "id,model_a,model_b,winner\np1,x,y,tie\np2,x,y,tie\n"
        );
        let battles = parse_battles("b.csv", &datasets[1].bytes).unwrap();
        assert_eq!(battles.battles.len(), 3);
        for (d, rows) in datasets.iter().zip([4, 3, 2]) {
            let meta = check_dataset(d.kind, &d.name, &d.bytes).unwrap().meta;
            assert_eq!(meta.rows, rows, "{}", d.name);
        }
    }

    #[test]
    fn pairs_judged_more_than_once_get_their_majority_verdict() {
        let judgments = [
            line("p1", "ab", Some("A")),
            line("p1", "ba", Some("A")),
            line("p1", "ab", Some("B")),
            line("p2", "ab", Some("B")),
            line("p2", "ba", None),
        ];
        let datasets = run_datasets(&judgments, "items.csv", ITEMS).unwrap();
        assert_eq!(
            String::from_utf8(datasets[2].bytes.clone()).unwrap(),
            "id,model_a,model_b,winner\np1,x,y,model_a\np2,x,y,model_b\n"
        );
        // Each pair judged once: the battles already hold one verdict per pair.
        let once = run_datasets(&[line("p1", "ab", Some("A"))], "items.csv", ITEMS).unwrap();
        assert_eq!(once.len(), 2);
    }

    #[test]
    fn items_with_human_labels_make_labelled_battles_for_the_prediction_powered_report() {
        let judgments = [
            line("p1", "ab", Some("A")),
            line("p1", "ba", Some("B")),
            line("p2", "ab", Some("A")),
            line("p3", "ab", None),
        ];
        let items = b"id,instruction,response,human\np1,q,r,0.75\np2,q,r,\np3,q,r,1\n";
        let datasets = run_datasets(&judgments, "items.csv", items).unwrap();
        let labelled = datasets
            .iter()
            .find(|d| d.kind == DatasetKind::LabelledBattles)
            .unwrap();
        assert_eq!(labelled.name, "items-labelled-battles.csv");
        // p1's orders disagree: ½; p2 has no human label; p3 has no parsed verdict.
        assert_eq!(
            String::from_utf8(labelled.bytes.clone()).unwrap(),
            "id,model_a,model_b,judge,human\np1,x,y,0.5,0.75\np2,x,y,1,\n"
        );
        let meta = check_dataset(labelled.kind, &labelled.name, &labelled.bytes)
            .unwrap()
            .meta;
        assert_eq!(meta.rows, 2);
        // A pairwise run's human label outside [0, 1] is located in the items file.
        let bad = b"id,instruction,response,human\np1,q,r,2\n";
        let err = run_datasets(&judgments, "items.csv", bad).unwrap_err();
        assert!(
            err.to_string().contains("items.csv, line 2, column 4"),
            "{err}"
        );
        // Without human labels there is nothing to label.
        let plain = run_datasets(&judgments, "items.csv", ITEMS).unwrap();
        assert!(plain.iter().all(|d| d.kind != DatasetKind::LabelledBattles));
    }

    /// A run that embedded every rationale leaves its labelled battles with each pair's mean
    /// embedding, for a cross-fitted head; one verdict without an embedding leaves none.
    #[test]
    fn embedded_rationales_give_the_labelled_battles_an_embedding_column() {
        let embedded = |id: &str, order: &str, winner: &str, e: [f64; 2]| {
            let mut v: serde_json::Value =
                serde_json::from_str(&line(id, order, Some(winner))).unwrap();
            v["embedding"] = serde_json::json!(e);
            v.to_string()
        };
        let judgments = [
            embedded("p1", "ab", "A", [1.0, 2.0]),
            embedded("p1", "ba", "B", [3.0, 0.0]),
            embedded("p2", "ab", "A", [0.5, -1.0]),
        ];
        let items = b"id,instruction,response,human\np1,q,r,0.75\np2,q,r,\n";
        let datasets = run_datasets(&judgments, "items.csv", items).unwrap();
        let labelled = datasets
            .iter()
            .find(|d| d.kind == DatasetKind::LabelledBattles)
            .unwrap();
        assert_eq!(
            String::from_utf8(labelled.bytes.clone()).unwrap(),
            "id,model_a,model_b,judge,human,embedding\np1,x,y,0.5,0.75,2 1\np2,x,y,1,,0.5 -1\n"
        );
        let parsed =
            crate::ppi::labelled_battles::parse_labelled_battles("l.csv", &labelled.bytes).unwrap();
        assert_eq!(parsed.embeddings, [vec![2.0, 1.0], vec![0.5, -1.0]]);
        let partly = [judgments[0].clone(), line("p2", "ab", Some("A"))];
        let datasets = run_datasets(&partly, "items.csv", items).unwrap();
        let labelled = datasets
            .iter()
            .find(|d| d.kind == DatasetKind::LabelledBattles)
            .unwrap();
        assert!(String::from_utf8(labelled.bytes.clone())
            .unwrap()
            .starts_with("id,model_a,model_b,judge,human\n"));
    }

    #[test]
    fn a_pointwise_run_gives_its_scores_as_ratings_and_bad_lines_are_located() {
        let score = |id: &str, repeat: u32, label: Option<&str>| {
            serde_json::json!({ "id": id, "repeat": repeat, "variant": "v1", "label": label })
                .to_string()
        };
        let judgments = [
            score("q1", 0, Some("4")),
            score("q1", 1, Some("5")),
            score("q2", 0, None),
        ];
        let datasets = run_datasets(&judgments, "items", ITEMS).unwrap();
        assert_eq!(datasets.len(), 2);
        assert_eq!(datasets[1].kind, DatasetKind::Ratings);
        assert_eq!(datasets[1].name, "items-judge-ratings.csv");
        assert_eq!(
            String::from_utf8(datasets[1].bytes.clone()).unwrap(),
            "item,rater,score,variant,repeat\nq1,judge,4,v1,0\nq1,judge,5,v1,1\n"
        );
        let err = run_datasets(
            &[score("q1", 0, Some("4")), "[1]".to_owned()],
            "items",
            ITEMS,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("judgment 2: not a stored judgment"),
            "{err}"
        );
    }
}
