//! [`DatasetKind`]: what a file holds, which decides the parser that checks it — the kind of a
//! session's dataset and of each role an analysis reads
//! ([`Roles`](crate::analysis::kind::Roles)).

use crate::io::csv_preview::preview;
use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// What a dataset holds; it decides the parser that checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKind {
    /// Pairwise battles (`model_a,model_b,winner` or LLMFAO's `left,right,winner`).
    Battles,
    /// Items for a judge run (`id,instruction,response[,response_b]`).
    Items,
    /// Long-format ratings (`item,rater,score[,variant][,criterion]` or any columns an
    /// analysis maps to these): a well-formed CSV.
    Ratings,
    /// Response pairs with human labels (`id,instruction,response,response_b[,label]`).
    Pairs,
    /// Battles with a judge's score or verdict and the human label
    /// ([`crate::rankings::scored_battles`]).
    ScoredBattles,
    /// A calibration head's training or test rows (a CSV; its columns depend on the head).
    Calibration,
    /// An embedding array (`.npy` or `.safetensors`), row i for the CSV's data row i.
    Embeddings,
    /// An LLM judge's verdicts on pairs: an `id,label` CSV or a `tribunal judge` `.jsonl`.
    Verdicts,
    /// Perturbation probes of a pairs file ([`crate::programs::program_pairs::parse_probes`]).
    Probes,
    /// A committee's vote file ([`crate::programs::vote_file`]).
    Votes,
    /// User programs' scores of a pairs file's texts ([`crate::programs::program_user_scores`]).
    ProgramScores,
    /// Battles with the judge's label on every row and a human label on some
    /// ([`crate::ppi::labelled_battles`]).
    LabelledBattles,
    /// Pointwise scores (`item,system,score[,criterion][,epoch][,cluster][,human]` or any
    /// columns the comparison maps to these; [`crate::compare::score_table`]): a well-formed
    /// CSV.
    Scores,
}

impl DatasetKind {
    /// Every kind, in the order the app lists them.
    pub const ALL: [Self; 13] = [
        Self::Battles,
        Self::Items,
        Self::Ratings,
        Self::Pairs,
        Self::ScoredBattles,
        Self::Calibration,
        Self::Embeddings,
        Self::Verdicts,
        Self::Probes,
        Self::Votes,
        Self::ProgramScores,
        Self::LabelledBattles,
        Self::Scores,
    ];

    /// The kind's name, as [`DatasetKind::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Battles => "battles",
            Self::Items => "items",
            Self::Ratings => "ratings",
            Self::Pairs => "pairs",
            Self::ScoredBattles => "scored_battles",
            Self::Calibration => "calibration",
            Self::Embeddings => "embeddings",
            Self::Verdicts => "verdicts",
            Self::Probes => "probes",
            Self::Votes => "votes",
            Self::ProgramScores => "program_scores",
            Self::LabelledBattles => "labelled_battles",
            Self::Scores => "scores",
        }
    }

    /// Parses the `kind` of an upload.
    pub fn parse(text: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|k| k.as_str()).collect();
                Error::param(
                    "kind",
                    format!("expected one of {}, found `{text}`", names.join(", ")),
                )
            })
    }

    /// The columns a file of this kind has, in a few words (for a form's label).
    pub fn layout(self) -> &'static str {
        match self {
            Self::Battles => "model_a,model_b,winner",
            Self::Items => "id,instruction,response[,response_b]",
            Self::Ratings => "item,rater,score[,criterion]",
            Self::Pairs => "id,instruction,response,response_b[,label]",
            Self::ScoredBattles => "model_a,model_b,judge or score,human",
            Self::Calibration => "the calibration head's columns",
            Self::Embeddings => ".npy or .safetensors, a row per CSV row",
            Self::Verdicts => "id,label or a tribunal judge .jsonl",
            Self::Probes => "id,bias,variant,instruction,response,response_b,biased",
            Self::Votes => "id, then a column of −1/0/+1 votes per program",
            Self::ProgramScores => "id, then a column of scores per program",
            Self::LabelledBattles => "model_a,model_b,judge,human (human blank where unlabelled)",
            Self::Scores => "item,system,score[,criterion]",
        }
    }

    /// Whether the content is binary (every other kind is UTF-8 text).
    pub fn is_binary(self) -> bool {
        self == Self::Embeddings
    }

    /// The kind a file's columns say it is, or `None` when they do not say (a calibration
    /// file, a vote file, a CSV of other columns): an `.npy` array is embeddings;
    /// `model_a,model_b` with `judge` and `human` are labelled battles when the first rows'
    /// judge labels are numbers (the share won by `model_a`), else scored battles, as are
    /// `model_a,model_b` with a `score`; `model_a,model_b,winner` (or LLMFAO's
    /// `left,right,winner`) are battles; `item,system,score` scores and `item,rater,score`
    /// ratings; `id,bias,variant` probes; `id,instruction,response` with `response_b` and
    /// `label` pairs, else items; `id,label` alone verdicts.
    pub fn recognise(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x93NUMPY") {
            return Some(Self::Embeddings);
        }
        let preview = preview("file", bytes, 5).ok()?;
        let has = |name: &str| preview.header.iter().any(|h| h.trim() == name);
        let all = |names: &[&str]| names.iter().all(|n| has(n));
        let judge_numeric = || {
            let column = preview.header.iter().position(|h| h.trim() == "judge");
            column.is_some_and(|c| {
                preview.rows.iter().all(|row| {
                    row.get(c)
                        .is_some_and(|cell| cell.trim().parse::<f64>().is_ok())
                })
            })
        };
        let kind = if all(&["model_a", "model_b", "judge", "human"]) && judge_numeric() {
            Self::LabelledBattles
        } else if all(&["model_a", "model_b"]) && (has("judge") || has("score") || has("score_ab"))
        {
            Self::ScoredBattles
        } else if all(&["model_a", "model_b", "winner"]) || all(&["left", "right", "winner"]) {
            Self::Battles
        } else if all(&["item", "system", "score"]) {
            Self::Scores
        } else if all(&["item", "rater", "score"]) {
            Self::Ratings
        } else if all(&["id", "bias", "variant"]) {
            Self::Probes
        } else if all(&["id", "instruction", "response", "response_b", "label"]) {
            Self::Pairs
        } else if all(&["id", "instruction", "response"]) {
            Self::Items
        } else if preview.header.len() == 2 && all(&["id", "label"]) {
            Self::Verdicts
        } else {
            return None;
        };
        Some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_recognised_by_its_columns_and_first_rows() {
        let cases: [(&[u8], Option<DatasetKind>); 14] = [
            (
                b"id,model_a,model_b,judge,human\n0,A,B,1.0,\n",
                Some(DatasetKind::LabelledBattles),
            ),
            (
                b"model_a,model_b,judge,human\nA,B,model_a,tie\n",
                Some(DatasetKind::ScoredBattles),
            ),
            (
                b"model_a,model_b,score\nA,B,0.4\n",
                Some(DatasetKind::ScoredBattles),
            ),
            (
                b"model_a,model_b,winner\nA,B,tie\n",
                Some(DatasetKind::Battles),
            ),
            (
                b"id,left,right,winner\n1,A,B,left\n",
                Some(DatasetKind::Battles),
            ),
            (
                b"item,system,score,criterion\n1,A,1,x\n",
                Some(DatasetKind::Scores),
            ),
            (b"item,rater,score\n1,r,3\n", Some(DatasetKind::Ratings)),
            (
                b"id,bias,variant,instruction,response,response_b,biased\n",
                Some(DatasetKind::Probes),
            ),
            (
                b"id,instruction,response,response_b,label\n",
                Some(DatasetKind::Pairs),
            ),
            (
                b"id,instruction,response,response_b,model,model_b\n",
                Some(DatasetKind::Items),
            ),
            (b"id,label\n1,a\n", Some(DatasetKind::Verdicts)),
            (b"\x93NUMPY\x01\x00", Some(DatasetKind::Embeddings)),
            (b"id,p,human\n1,0.5,1\n", None),
            (b"a;b;c\n1;2;3\n", None),
        ];
        for (bytes, kind) in cases {
            assert_eq!(
                DatasetKind::recognise(bytes),
                kind,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
