//! [`DatasetKind`]: what a file holds, which decides the parser that checks it — the kind of a
//! session's dataset and of each role an analysis reads
//! ([`Roles`](crate::analysis::kind::Roles)).

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

    /// Whether the content is binary (every other kind is UTF-8 text).
    pub fn is_binary(self) -> bool {
        self == Self::Embeddings
    }
}
