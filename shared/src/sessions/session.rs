//! Sessions: the datasets, judge runs and saved analyses of one evaluation, shared by URL.
//!
//! Model: a session holds datasets, judge-run reproducibility records and saved analyses. A
//! dataset is content-addressed — its id is [`content_hash`] of its bytes, so the same upload
//! is stored once however often it is added. A saved analysis is an [`analysis::Spec`] (the
//! statistic with every setting and seed, and its inputs by role → dataset hash); it stores no
//! numbers, so whoever opens it recomputes exactly the same ones from the stored data. A
//! [`SessionArchive`] is the whole session as one self-describing JSON document that another
//! worker imports with identical results. Archives and stored analyses of version 1 (a
//! leaderboard was the only analysis: `{"statistic": "leaderboard", "dataset", "bootstrap",
//! "anchor"}`) still read, as the leaderboard spec they meant.
//!
//! Arguments: dataset bytes with their [`DatasetKind`] and name ([`check_dataset`]); an
//! archive ([`SessionArchive::validate`]); an analysis against a session's datasets
//! ([`Analysis::validate`]).
//!
//! Returns: the hash, the checked dataset's metadata, or `()` for a valid archive/analysis.
//!
//! Errors: a dataset that does not parse as its kind is the parser's located error; an
//! archive with another format or version, a dataset whose content does not match its hash,
//! an analysis naming a dataset that is not in the session or of a kind its role does not read,
//! a duplicate analysis id, or a spec of another version are [`Error::Input`] located at the
//! archive's field.

use crate::analysis::{self, Analysis as Statistic, InputRef, Spec};
use crate::io::csv_row;
use crate::io::csv_row::csv_error;
use crate::io::dataset_kind::DatasetKind;
use crate::io::embedding_file::read_embeddings;
use crate::io::error::{Error, Location, Result};
use crate::io::provenance::{content_hash, ToolVersion};
use crate::judging::judge_items::{blank_summary, parse_judge_items};
use crate::math::resample::BootstrapParams;
use crate::ppi::labelled_battles::parse_labelled_battles;
use crate::programs::program_pairs::{parse_probes, parse_program_pairs};
use crate::programs::vote_file::parse_vote_file;
use crate::rankings::anchor::Anchor;
use crate::rankings::battles::parse_battles;
use crate::rankings::kinds::LeaderboardSpec;
use crate::rankings::scored_battles::parse_scored_battles;
use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// The `format` field of every archive.
pub const ARCHIVE_FORMAT: &str = "tribunal-session";
/// The archive layout this crate writes; it reads this one and version 1 (leaderboard-only).
pub const ARCHIVE_VERSION: u32 = 2;

/// Most characters in a session title, an analysis title or a dataset name (the server refuses
/// longer ones; the app's inputs stop there).
pub const MAX_NAME_CHARS: usize = 200;

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

/// A dataset that parsed as its kind: its metadata, and what its reader accepted but the user
/// should know (items with an empty response).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedDataset {
    pub meta: DatasetMeta,
    pub warnings: Vec<String>,
}

/// Parses `bytes` as `kind` (errors located in `name`) and returns the dataset's metadata
/// and warnings.
pub fn check_dataset(kind: DatasetKind, name: &str, bytes: &[u8]) -> Result<CheckedDataset> {
    let mut warnings = Vec::new();
    let rows = match kind {
        DatasetKind::Battles => parse_battles(name, bytes)?.battles.len(),
        DatasetKind::Items => {
            // Pairwise when the file has `response_b`: its blanks are flagged too.
            let pairwise = csv_row::open(name, bytes)?
                .1
                .iter()
                .any(|h| h.trim() == "response_b");
            let items = parse_judge_items(name, bytes, pairwise)?;
            warnings.extend(blank_summary(name, &items));
            items.len()
        }
        // Which columns hold item, rater (or system) and score is the analysis's setting: a
        // ratings or scores dataset is any well-formed CSV, read by the analysis's column
        // mapping when it runs.
        DatasetKind::Ratings | DatasetKind::Scores => csv_rows(name, bytes)?,
        DatasetKind::Pairs => parse_program_pairs(name, bytes)?.len(),
        DatasetKind::ScoredBattles => parse_scored_battles(name, bytes)?.battles.len(),
        DatasetKind::Calibration => csv_rows(name, bytes)?,
        DatasetKind::Embeddings => read_embeddings(name, bytes)?.len(),
        DatasetKind::Verdicts if name.ends_with(".jsonl") => jsonl_rows(name, bytes)?,
        DatasetKind::Verdicts => csv_rows(name, bytes)?,
        DatasetKind::Probes => parse_probes(name, bytes)?.len(),
        DatasetKind::Votes => parse_vote_file(name, bytes)?.ids.len(),
        // How many texts the scores must cover is the analysis's pairs file's: checked then.
        DatasetKind::ProgramScores => csv_rows(name, bytes)?,
        DatasetKind::LabelledBattles => parse_labelled_battles(name, bytes)?.battles.len(),
    };
    Ok(CheckedDataset {
        meta: DatasetMeta {
            hash: content_hash(bytes),
            kind,
            name: name.to_owned(),
            bytes: bytes.len() as u64,
            rows: rows as u64,
        },
        warnings,
    })
}

/// The data rows of a well-formed CSV (a header, every row as wide).
fn csv_rows(name: &str, bytes: &[u8]) -> Result<usize> {
    let (mut reader, _) = csv_row::open(name, bytes)?;
    let mut rows = 0;
    for record in reader.records() {
        record.map_err(|e| csv_error(name, &e))?;
        rows += 1;
    }
    Ok(rows)
}

/// The records of a JSON Lines file: every line that is not blank is one JSON object.
fn jsonl_rows(name: &str, bytes: &[u8]) -> Result<usize> {
    let mut rows = 0;
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(_)) => rows += 1,
            Ok(_) => {
                return Err(Error::input(
                    Location::line(name, i as u64 + 1),
                    "expected a JSON object per line",
                ))
            }
            Err(e) => {
                return Err(Error::input(
                    Location::line(name, i as u64 + 1),
                    format!("expected a JSON object per line: {e}"),
                ))
            }
        }
    }
    Ok(rows)
}

/// A saved analysis of version 1, when the leaderboard was the only one: read, never written.
#[derive(Deserialize)]
#[serde(tag = "statistic", rename_all = "snake_case")]
pub(crate) enum SpecV1 {
    Leaderboard {
        dataset: String,
        bootstrap: BootstrapParams,
        anchor: Option<Anchor>,
    },
}

impl SpecV1 {
    /// The spec it meant: the leaderboard of the battles `dataset` (its name unrecorded, so it
    /// is named as the session names it) with the default Bradley–Terry settings.
    pub(crate) fn upgrade(self) -> Spec {
        let Self::Leaderboard {
            dataset,
            bootstrap,
            anchor,
        } = self;
        let spec = LeaderboardSpec {
            bootstrap,
            anchor,
            ..LeaderboardSpec::default()
        };
        let input = InputRef {
            hash: dataset,
            name: String::new(),
        };
        Spec {
            version: analysis::SPEC_VERSION,
            analysis: Statistic::Leaderboard(spec),
            inputs: BTreeMap::from([("battles".to_owned(), input)]),
        }
    }
}

/// A stored or archived spec: the current layout, or version 1's (`"statistic": …`) upgraded.
///
/// # Errors
/// The JSON error of the layout it claims to be.
pub fn spec_from_value(value: serde_json::Value) -> serde_json::Result<Spec> {
    if value.get("statistic").is_some() {
        serde_json::from_value::<SpecV1>(value).map(SpecV1::upgrade)
    } else {
        serde_json::from_value::<Spec>(value)
    }
}

fn spec_of_any_version<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Spec, D::Error> {
    spec_from_value(serde_json::Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
}

/// A saved analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Unique within its session; part of the analysis URL `/s/<session>/a/<id>`.
    pub id: String,
    pub title: String,
    #[serde(deserialize_with = "spec_of_any_version")]
    pub spec: Spec,
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
        let invalid = |message: String| Error::input(at(), message);
        if self.spec.version != analysis::SPEC_VERSION {
            return Err(invalid(format!(
                "this build reads analysis specs of version {}, found {}",
                analysis::SPEC_VERSION,
                self.spec.version
            )));
        }
        let statistic = &self.spec.analysis;
        statistic.validate()?;
        statistic
            .roles()
            .check(self.spec.inputs.keys())
            .map_err(|e| invalid(e.to_string()))?;
        for (role, input) in &self.spec.inputs {
            let Some(wanted) = statistic.roles().kind_of(role) else {
                return Err(invalid(format!(
                    "the role `{role}` is not read by {}",
                    statistic.name()
                )));
            };
            match datasets.iter().find(|d| d.hash == input.hash) {
                Some(d) if d.kind == wanted => {}
                Some(d) => {
                    return Err(invalid(format!(
                        "the {} analysis reads a {} dataset in the role `{role}`; {} is {}",
                        statistic.name(),
                        wanted.as_str(),
                        d.name,
                        d.kind.as_str()
                    )))
                }
                None => {
                    return Err(invalid(format!(
                        "the dataset {} (role `{role}`) is not in this session",
                        input.hash
                    )))
                }
            }
        }
        Ok(())
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
    /// The dataset's bytes: UTF-8 text, or base64 (standard, padded) for a binary kind
    /// ([`DatasetKind::is_binary`]).
    pub content: String,
}

impl ArchivedDataset {
    /// `bytes` of the dataset `meta`, encoded as its kind is.
    pub fn new(meta: DatasetMeta, bytes: &[u8]) -> Self {
        let content = if meta.kind.is_binary() {
            base64::engine::general_purpose::STANDARD.encode(bytes)
        } else {
            String::from_utf8_lossy(bytes).into_owned()
        };
        Self { meta, content }
    }

    /// The dataset's bytes.
    ///
    /// # Errors
    /// [`Error::Input`] located at `field` of `source` when a binary dataset's content is not
    /// base64.
    pub fn bytes(&self, source: &str, field: &str) -> Result<Vec<u8>> {
        if !self.meta.kind.is_binary() {
            return Ok(self.content.as_bytes().to_vec());
        }
        base64::engine::general_purpose::STANDARD
            .decode(&self.content)
            .map_err(|e| {
                Error::input(
                    Location {
                        field: Some(field.to_owned()),
                        ..Location::line(source, 0)
                    },
                    format!("{}: expected base64 content, {e}", self.meta.name),
                )
            })
    }
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
    /// The archive of a session and its datasets' bytes (in the view's order), exported by
    /// `created_with`.
    pub fn new(view: SessionView, contents: Vec<Vec<u8>>, created_with: ToolVersion) -> Self {
        Self {
            format: ARCHIVE_FORMAT.to_owned(),
            version: ARCHIVE_VERSION,
            created_with: Some(created_with),
            title: view.title,
            created_at: view.created_at,
            datasets: view
                .datasets
                .into_iter()
                .zip(contents)
                .map(|(meta, bytes)| ArchivedDataset::new(meta, &bytes))
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
        if self.format != ARCHIVE_FORMAT || !(1..=ARCHIVE_VERSION).contains(&self.version) {
            return Err(Error::input(
                at("format".to_owned()),
                format!(
                    "expected a `{ARCHIVE_FORMAT}` archive of version 1 to {ARCHIVE_VERSION}, found `{}` version {}",
                    self.format, self.version
                ),
            ));
        }
        let mut metas = Vec::with_capacity(self.datasets.len());
        for (i, d) in self.datasets.iter().enumerate() {
            let bytes = d.bytes(source, &format!("datasets[{i}].content"))?;
            let checked = check_dataset(d.meta.kind, &d.meta.name, &bytes)?.meta;
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
        let meta = check_dataset(DatasetKind::Battles, "b.csv", BATTLES.as_bytes())
            .unwrap()
            .meta;
        assert_eq!(meta.rows, 2);
        let mut inputs = analysis::Inputs::new();
        inputs.insert("battles", "b.csv", BATTLES.as_bytes().to_vec());
        let analysis = Analysis {
            id: "a1".to_owned(),
            title: "board".to_owned(),
            spec: Spec::new(Statistic::Leaderboard(LeaderboardSpec::default()), &inputs),
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
            vec![BATTLES.as_bytes().to_vec()],
            ToolVersion::new(Some("abc")),
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
        assert_eq!(archive().created_with, Some(ToolVersion::new(Some("abc"))));
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
        a.analyses[0].spec.inputs.insert(
            "battles".to_owned(),
            InputRef {
                hash: content_hash(b"other"),
                name: "o.csv".to_owned(),
            },
        );
        let e = a.validate("a.json").unwrap_err();
        assert!(e.to_string().contains("not in this session"), "{e}");
        let mut a = archive();
        a.version = 3;
        assert!(a.validate("a.json").is_err());
        // A role the analysis does not read, a dataset of another kind, bad settings.
        let mut a = archive();
        let battles = a.analyses[0].spec.inputs.remove("battles").unwrap();
        a.analyses[0]
            .spec
            .inputs
            .insert("ratings".to_owned(), battles.clone());
        let e = a.validate("a.json").unwrap_err();
        assert!(
            e.to_string().contains("no file in the role `battles`"),
            "{e}"
        );
        let mut a = archive();
        a.analyses[0].spec.analysis =
            Statistic::Aa(crate::reliability::aa_report::AaReportParams {
                runs: ("r1".to_owned(), "r2".to_owned()),
                ..serde_json::from_value(serde_json::json!({
                    "columns": crate::reliability::ratings::Columns::default(),
                    "ratings": crate::reliability::ratings::RatingsParams::default(),
                    "runs": ["r1", "r2"],
                    "gold": null, "pass": null, "criterion": null, "variant": null,
                    "test": crate::reliability::aa_test::AaTestParams::default(),
                }))
                .unwrap()
            });
        a.analyses[0].spec.inputs = BTreeMap::from([("ratings".to_owned(), battles)]);
        let e = a.validate("a.json").unwrap_err();
        assert!(
            e.to_string()
                .contains("reads a ratings dataset in the role `ratings`; b.csv is battles"),
            "{e}"
        );
        let mut a = archive();
        if let Statistic::Leaderboard(board) = &mut a.analyses[0].spec.analysis {
            board.bootstrap.level = 1.5;
        }
        assert!(a.validate("a.json").is_err());
    }

    /// A version-1 archive, as the previous release exported it: the leaderboard spec had
    /// `statistic`, `dataset`, `bootstrap` and `anchor`.
    const V1_ARCHIVE: &str = r#"{
      "format": "tribunal-session", "version": 1, "title": "t", "created_at": "now",
      "datasets": [{"hash": "HASH", "kind": "battles", "name": "b.csv", "bytes": 43, "rows": 2,
                    "content": "model_a,model_b,winner\nA,B,model_a\nB,C,tie\n"}],
      "runs": [],
      "analyses": [{"id": "a1", "title": "board",
                    "spec": {"statistic": "leaderboard", "dataset": "HASH",
                             "bootstrap": {"rounds": 300, "seed": 7, "level": 0.9},
                             "anchor": {"model": "A", "elo": 1000.0}}}]
    }"#;

    #[test]
    fn a_version_1_archive_imports_as_the_leaderboard_spec_it_meant() {
        let hash = content_hash(BATTLES.as_bytes());
        let archive: SessionArchive =
            serde_json::from_str(&V1_ARCHIVE.replace("HASH", &hash)).unwrap();
        archive.validate("v1.json").unwrap();
        let spec = &archive.analyses[0].spec;
        assert_eq!(spec.version, analysis::SPEC_VERSION);
        let Statistic::Leaderboard(board) = &spec.analysis else {
            panic!("expected a leaderboard, found {spec:?}");
        };
        assert_eq!(board.bootstrap.rounds, 300);
        assert_eq!(board.bootstrap.seed, 7);
        assert_eq!(board.anchor.as_ref().map(|a| a.elo), Some(1000.0));
        assert_eq!(
            board.bradley_terry,
            crate::rankings::bradley_terry::BradleyTerryParams::default()
        );
        assert_eq!(spec.inputs["battles"].hash, hash);
        // It runs on the session's dataset, named as the session names it.
        let mut inputs = analysis::Inputs::new();
        inputs.insert("battles", "b.csv", BATTLES.as_bytes().to_vec());
        let analysis::Report::Leaderboard(report) = analysis::run(spec, &inputs).unwrap() else {
            panic!("expected a leaderboard report");
        };
        assert_eq!(report.source, "b.csv");
        // Exported again, it is a version-2 archive of the same analysis.
        let again = SessionArchive {
            version: ARCHIVE_VERSION,
            ..archive.clone()
        };
        let back: SessionArchive =
            serde_json::from_str(&serde_json::to_string(&again).unwrap()).unwrap();
        assert_eq!(back.analyses, archive.analyses);
    }

    #[test]
    fn binary_datasets_travel_as_base64() {
        let npy = crate::io::embedding_file::npy_f32(&[vec![1.0, 2.0], vec![3.0, 4.0]], 2);
        let meta = check_dataset(DatasetKind::Embeddings, "e.npy", &npy)
            .unwrap()
            .meta;
        assert_eq!(meta.rows, 2);
        let archived = ArchivedDataset::new(meta, &npy);
        assert!(archived.content.is_ascii());
        assert_eq!(archived.bytes("a.json", "content").unwrap(), npy);
        let mut bad = archived;
        bad.content.push('!');
        let e = bad.bytes("a.json", "datasets[0].content").unwrap_err();
        assert!(e.to_string().contains("base64"), "{e}");
        // JSON Lines verdicts: a located error for a line that is not an object.
        let e = check_dataset(DatasetKind::Verdicts, "v.jsonl", b"{\"id\": 1}\n[1]\n").unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(2), "{e}");
        let e = check_dataset(DatasetKind::Calibration, "c.csv", b"a,b\n1,2\n3\n").unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(3), "{e}");
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
                .meta
                .rows,
            2
        );
        // An empty response is accepted and said: in `response_b` too, when the file has one.
        let checked = check_dataset(
            DatasetKind::Items,
            "i.csv",
            b"id,instruction,response,response_b\n1,Say hi,hi,\n2,Count,1 2 3,1 2\n",
        )
        .unwrap();
        assert_eq!(checked.meta.rows, 2);
        assert_eq!(
            checked.warnings,
            [
                "i.csv: 1 of 2 items have an empty response (line 2): they are judged as they are \
              and each of their judgments is flagged `blank`"
            ]
        );
        assert!(check_dataset(DatasetKind::Items, "i.csv", items.as_bytes())
            .unwrap()
            .warnings
            .is_empty());
        let ratings = "item,rater,score\n1,ann,pass\n1,bob,fail\n2,ann,pass\n";
        assert_eq!(
            check_dataset(DatasetKind::Ratings, "r.csv", ratings.as_bytes())
                .unwrap()
                .meta
                .rows,
            3
        );
        let pairs = "id,instruction,response,response_b,label\n1,Q,a,b,a\n2,Q,c,d,tie\n";
        assert_eq!(
            check_dataset(DatasetKind::Pairs, "p.csv", pairs.as_bytes())
                .unwrap()
                .meta
                .rows,
            2
        );
        // Ratings are read by each analysis's column mapping: any well-formed CSV is a ratings
        // dataset (LLMFAO's `id,worker,winner` too), a ragged one is not.
        let crowd = "id,worker,winner\n1,w1,left\n1,w2,tie\n";
        assert_eq!(
            check_dataset(DatasetKind::Ratings, "c.csv", crowd.as_bytes())
                .unwrap()
                .meta
                .rows,
            2
        );
        let e =
            check_dataset(DatasetKind::Ratings, "r.csv", b"item,rater,score\n1,a\n").unwrap_err();
        assert_eq!(e.location().map(|l| l.line), Some(2), "{e}");
    }
}
