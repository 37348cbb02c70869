//! Sessions: the datasets, judge runs and saved analyses of one evaluation, shared by URL.
//!
//! Model: a session holds datasets, judge-run reproducibility records and saved analyses. A
//! dataset is content-addressed — its id is [`content_hash`] of its bytes, so the same upload
//! is stored once however often it is added. A saved analysis is a statistic with its settings
//! and seed ([`AnalysisSpec`]); it stores no numbers, so whoever opens it recomputes exactly
//! the same ones from the stored data. A [`SessionArchive`] is the whole session as one
//! self-describing JSON document that another worker imports with identical results.
//!
//! Arguments: dataset bytes with their [`DatasetKind`] and name ([`check_dataset`]); an
//! archive ([`SessionArchive::validate`]); an analysis against a session's datasets
//! ([`Analysis::validate`]).
//!
//! Returns: the hash, the checked dataset's metadata, or `()` for a valid archive/analysis.
//!
//! Errors: a dataset that does not parse as its kind is the parser's located error; an
//! archive with another format or version, a dataset whose content does not match its hash,
//! an analysis naming a dataset that is not in the session, a duplicate analysis id, or
//! settings out of range are [`Error::Input`] located at the archive's field, or
//! [`Error::InvalidParam`].

use crate::anchor::Anchor;
use crate::battles::parse_battles;
use crate::error::{Error, Location, Result};
use crate::judge_items::parse_judge_items;
use crate::program_pairs::parse_program_pairs;
use crate::provenance::ToolVersion;
use crate::ratings::{RatingsParams, ScoreScale};
use crate::resample::BootstrapParams;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The `format` field of every archive.
pub const ARCHIVE_FORMAT: &str = "tribunal-session";
/// The archive layout this crate writes and reads.
pub const ARCHIVE_VERSION: u32 = 1;

/// What a dataset holds; it decides the parser that checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKind {
    /// Pairwise battles (`model_a,model_b,winner` or LLMFAO's `left,right,winner`).
    Battles,
    /// Items for a judge run (`id,instruction,response[,response_b]`).
    Items,
    /// Long-format ratings (`item,rater,score[,variant][,criterion]`), scores read as labels.
    Ratings,
    /// Response pairs with human labels (`id,instruction,response,response_b[,label]`).
    Pairs,
}

impl DatasetKind {
    /// Every kind, in the order the app lists them.
    pub const ALL: [Self; 4] = [Self::Battles, Self::Items, Self::Ratings, Self::Pairs];

    /// The kind's name, as [`DatasetKind::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Battles => "battles",
            Self::Items => "items",
            Self::Ratings => "ratings",
            Self::Pairs => "pairs",
        }
    }

    /// Parses the `kind` of an upload.
    pub fn parse(text: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == text)
            .ok_or_else(|| {
                Error::param(
                    "kind",
                    format!("expected battles, items, ratings or pairs, found `{text}`"),
                )
            })
    }
}

/// A dataset of a session, without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetMeta {
    /// [`content_hash`] of the bytes: the dataset's id.
    pub hash: String,
    pub kind: DatasetKind,
    /// The uploaded file's name (shown, and the source of located errors).
    pub name: String,
    pub bytes: u64,
    /// Data rows the parser read (battles, items, ratings or pairs).
    pub rows: u64,
}

/// `sha256:` and the 64 hex digits of the SHA-256 of `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// Parses `bytes` as `kind` (errors located in `name`) and returns the dataset's metadata.
pub fn check_dataset(kind: DatasetKind, name: &str, bytes: &[u8]) -> Result<DatasetMeta> {
    let rows = match kind {
        DatasetKind::Battles => parse_battles(name, bytes)?.battles.len(),
        DatasetKind::Items => parse_judge_items(name, bytes, false)?.len(),
        DatasetKind::Ratings => {
            let params = RatingsParams {
                scale: ScoreScale::Nominal,
                categories: None,
            };
            params.parse(name, bytes)?.ratings.len()
        }
        DatasetKind::Pairs => parse_program_pairs(name, bytes)?.len(),
    };
    Ok(DatasetMeta {
        hash: content_hash(bytes),
        kind,
        name: name.to_owned(),
        bytes: bytes.len() as u64,
        rows: rows as u64,
    })
}

/// A statistic with its settings and seed: what a saved analysis recomputes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "statistic", rename_all = "snake_case")]
pub enum AnalysisSpec {
    /// The Bradley–Terry leaderboard of a battles dataset with seeded bootstrap intervals,
    /// optionally anchored.
    Leaderboard {
        /// The dataset's [`content_hash`].
        dataset: String,
        bootstrap: BootstrapParams,
        anchor: Option<Anchor>,
    },
}

impl AnalysisSpec {
    /// The dataset the analysis reads.
    pub fn dataset(&self) -> &str {
        match self {
            Self::Leaderboard { dataset, .. } => dataset,
        }
    }
}

/// A saved analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Unique within its session; part of the analysis URL `/s/<session>/a/<id>`.
    pub id: String,
    pub title: String,
    pub spec: AnalysisSpec,
    /// The tool and commit that saved it (the spec holds its settings, seed and dataset
    /// SHA-256); `None` for analyses saved before this was recorded.
    #[serde(default)]
    pub created_with: Option<ToolVersion>,
}

impl Analysis {
    /// Checks the settings and that the dataset is one of `datasets` with the right kind;
    /// errors are located in `source` at `field`.
    pub fn validate(&self, datasets: &[DatasetMeta], source: &str, field: &str) -> Result<()> {
        let at = || Location {
            field: Some(field.to_owned()),
            ..Location::line(source, 0)
        };
        if self.id.is_empty()
            || !self
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(Error::input(
                at(),
                format!(
                    "an analysis id is letters, digits, `-` and `_`, found `{}`",
                    self.id
                ),
            ));
        }
        match &self.spec {
            AnalysisSpec::Leaderboard {
                dataset, bootstrap, ..
            } => {
                bootstrap.validate()?;
                match datasets.iter().find(|d| &d.hash == dataset) {
                    Some(d) if d.kind == DatasetKind::Battles => Ok(()),
                    Some(d) => Err(Error::input(
                        at(),
                        format!(
                            "a leaderboard needs a battles dataset; {} is {:?}",
                            d.name, d.kind
                        ),
                    )),
                    None => Err(Error::input(
                        at(),
                        format!("the dataset {dataset} is not in this session"),
                    )),
                }
            }
        }
    }
}

/// A session as a visitor sees it: what it holds, not who owns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    /// At least 128 random bits, URL-safe; the session's URL is `/s/<id>`.
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub datasets: Vec<DatasetMeta>,
    /// Reproducibility records of the session's finished judge runs, as the worker stored them.
    pub runs: Vec<serde_json::Value>,
    /// The event streams of the session's judge runs (live or finished), oldest first.
    #[serde(default)]
    pub streams: Vec<String>,
    pub analyses: Vec<Analysis>,
}

/// A dataset with its content, inside an archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchivedDataset {
    #[serde(flatten)]
    pub meta: DatasetMeta,
    /// The dataset's bytes as UTF-8 text (every dataset kind is CSV).
    pub content: String,
}

/// A whole session in one self-describing document: format, version, datasets with their
/// content, run records and analyses. The session's id and owner are not part of it: an
/// import is a new session with a new owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionArchive {
    /// [`ARCHIVE_FORMAT`].
    pub format: String,
    /// [`ARCHIVE_VERSION`].
    pub version: u32,
    /// The tool and commit that exported it; `None` in archives made before this was recorded.
    #[serde(default)]
    pub created_with: Option<ToolVersion>,
    pub title: String,
    pub created_at: String,
    pub datasets: Vec<ArchivedDataset>,
    pub runs: Vec<serde_json::Value>,
    pub analyses: Vec<Analysis>,
}

impl SessionArchive {
    /// The archive of a session and its datasets' contents (in the view's order).
    pub fn new(view: SessionView, contents: Vec<String>) -> Self {
        Self {
            format: ARCHIVE_FORMAT.to_owned(),
            version: ARCHIVE_VERSION,
            created_with: Some(ToolVersion::current()),
            title: view.title,
            created_at: view.created_at,
            datasets: view
                .datasets
                .into_iter()
                .zip(contents)
                .map(|(meta, content)| ArchivedDataset { meta, content })
                .collect(),
            runs: view.runs,
            analyses: view.analyses,
        }
    }

    /// Checks format and version, every dataset against its hash and kind, and every analysis
    /// against the archive's datasets; errors are located in `source`.
    pub fn validate(&self, source: &str) -> Result<()> {
        let at = |field: String| Location {
            field: Some(field),
            ..Location::line(source, 0)
        };
        if self.format != ARCHIVE_FORMAT || self.version != ARCHIVE_VERSION {
            return Err(Error::input(
                at("format".to_owned()),
                format!(
                    "expected a `{ARCHIVE_FORMAT}` archive version {ARCHIVE_VERSION}, found `{}` version {}",
                    self.format, self.version
                ),
            ));
        }
        let mut metas = Vec::with_capacity(self.datasets.len());
        for (i, d) in self.datasets.iter().enumerate() {
            let checked = check_dataset(d.meta.kind, &d.meta.name, d.content.as_bytes())?;
            if checked.hash != d.meta.hash {
                return Err(Error::input(
                    at(format!("datasets[{i}].hash")),
                    format!(
                        "{}: the content hashes to {}, the archive says {}",
                        d.meta.name, checked.hash, d.meta.hash
                    ),
                ));
            }
            metas.push(checked);
        }
        for (i, a) in self.analyses.iter().enumerate() {
            let field = format!("analyses[{i}]");
            if self.analyses[..i].iter().any(|b| b.id == a.id) {
                return Err(Error::input(
                    at(field),
                    format!("the analysis id `{}` appears twice", a.id),
                ));
            }
            a.validate(&metas, source, &field)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BATTLES: &str = "model_a,model_b,winner\nA,B,model_a\nB,C,tie\n";

    #[test]
    fn content_hash_is_sha256() {
        // FIPS 180-2 test vector: SHA-256("abc").
        assert_eq!(
            content_hash(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    fn archive() -> SessionArchive {
        let meta = check_dataset(DatasetKind::Battles, "b.csv", BATTLES.as_bytes()).unwrap();
        assert_eq!(meta.rows, 2);
        let analysis = Analysis {
            id: "a1".to_owned(),
            title: "board".to_owned(),
            spec: AnalysisSpec::Leaderboard {
                dataset: meta.hash.clone(),
                bootstrap: BootstrapParams::default(),
                anchor: None,
            },
            created_with: None,
        };
        SessionArchive::new(
            SessionView {
                id: "x".to_owned(),
                title: "t".to_owned(),
                created_at: "now".to_owned(),
                datasets: vec![meta],
                runs: Vec::new(),
                streams: Vec::new(),
                analyses: vec![analysis],
            },
            vec![BATTLES.to_owned()],
        )
    }

    #[test]
    fn an_archive_without_tool_versions_still_reads() {
        let mut json = serde_json::to_value(archive()).unwrap();
        let object = json.as_object_mut().unwrap();
        object.remove("created_with");
        object["analyses"][0]
            .as_object_mut()
            .unwrap()
            .remove("created_with");
        let back: SessionArchive = serde_json::from_value(json).unwrap();
        assert_eq!(back.created_with, None);
        assert_eq!(back.analyses[0].created_with, None);
        back.validate("old.json").unwrap();
        assert_eq!(archive().created_with, Some(ToolVersion::current()));
    }

    #[test]
    fn a_consistent_archive_validates_and_round_trips() {
        let a = archive();
        a.validate("a.json").unwrap();
        let back: SessionArchive =
            serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn tampered_content_is_located() {
        let mut a = archive();
        a.datasets[0].content.push_str("C,A,model_b\n");
        let e = a.validate("a.json").unwrap_err();
        assert_eq!(
            e.location().and_then(|l| l.field.as_deref()),
            Some("datasets[0].hash")
        );
    }

    #[test]
    fn an_analysis_of_a_missing_dataset_or_twice_the_same_id_is_refused() {
        let mut a = archive();
        a.analyses.push(a.analyses[0].clone());
        let e = a.validate("a.json").unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");
        let mut a = archive();
        a.analyses[0].spec = AnalysisSpec::Leaderboard {
            dataset: content_hash(b"other"),
            bootstrap: BootstrapParams::default(),
            anchor: None,
        };
        let e = a.validate("a.json").unwrap_err();
        assert!(e.to_string().contains("not in this session"), "{e}");
        let mut a = archive();
        a.version = 2;
        assert!(a.validate("a.json").is_err());
    }

    #[test]
    fn a_bad_dataset_is_the_parsers_located_error() {
        let e = check_dataset(
            DatasetKind::Battles,
            "b.csv",
            b"model_a,model_b,winner\nA,B,maybe\n",
        )
        .unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(2));
        assert!(DatasetKind::parse("labels").is_err());
        for kind in DatasetKind::ALL {
            assert_eq!(DatasetKind::parse(kind.as_str()), Ok(kind));
        }
        let items = "id,instruction,response\n1,Say hi,hi\n2,Count,1 2 3\n";
        assert_eq!(
            check_dataset(DatasetKind::Items, "i.csv", items.as_bytes())
                .unwrap()
                .rows,
            2
        );
        let ratings = "item,rater,score\n1,ann,pass\n1,bob,fail\n2,ann,pass\n";
        assert_eq!(
            check_dataset(DatasetKind::Ratings, "r.csv", ratings.as_bytes())
                .unwrap()
                .rows,
            3
        );
        let pairs = "id,instruction,response,response_b,label\n1,Q,a,b,a\n2,Q,c,d,tie\n";
        assert_eq!(
            check_dataset(DatasetKind::Pairs, "p.csv", pairs.as_bytes())
                .unwrap()
                .rows,
            2
        );
        // A battles file is not ratings: the missing column is named.
        let e = check_dataset(DatasetKind::Ratings, "b.csv", BATTLES.as_bytes()).unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(1), "{e}");
    }
}
