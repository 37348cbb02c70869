//! Readers of other evaluation tools' result files: each turns one tool's records into a
//! Tribunal CSV — pairwise verdicts into battles (`model_a,model_b,winner` and the columns that
//! tool adds), feeding every analysis of battles (leaderboards, style control, length control,
//! a judge study); per-sample scores into ratings (`item,rater,score` with the scorer as rater),
//! feeding agreement between scorers (does the model-graded check agree with the exact match?);
//! per-answer scores of each system into scores (`item,system,criterion,score` and slice
//! columns), feeding the comparison of systems ([`crate::compare`]) — several files (a log per
//! model) joined into one by [`scores_of`].
//!
//! - [`alpaca_eval`]: AlpacaEval's `annotations.json` (the judge's preference between a
//!   baseline's output and a model's, per instruction).
//! - [`arena_hard`]: Arena-Hard-Auto's judgment JSONL (two games per question, the baseline
//!   first and then second).
//! - [`chatbot_arena`]: Chatbot Arena's battle JSON (`model_a, model_b, winner`, with FastChat's
//!   style counts when present).
//! - [`inspect`]: Inspect eval logs (`.json`): each sample's score by each scorer.
//! - [`lm_eval`]: lm-evaluation-harness's `samples_*.jsonl`: each document's metrics.
//! - [`promptfoo`]: promptfoo's results JSON (`promptfoo eval -o`): each result's score and
//!   each assertion's.
//! - [`json_records`]: a JSON array or JSON-lines file as records that know their line and
//!   column, so every error is located.
//!
//! [`detect`] names the format of a file from its first record's keys; [`convert`] reads it
//! into the output its settings ask for ([`Format::outputs`] lists what each format can write).
//! Errors: [`Error::Input`] naming the file, line, column and field with what was expected
//! (invalid UTF-8, a JSON syntax error, a record without a required field or with a value
//! outside the tool's vocabulary); [`Error::Insufficient`] for a file without records.

pub mod alpaca_eval;
pub mod arena_hard;
pub mod chatbot_arena;
pub mod inspect;
pub mod json_records;
pub mod lm_eval;
pub mod promptfoo;

use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};

/// A tool's result format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    AlpacaEval,
    ArenaHard,
    ChatbotArena,
    Inspect,
    LmEval,
    Promptfoo,
}

impl Format {
    pub const ALL: [Self; 6] = [
        Self::AlpacaEval,
        Self::ArenaHard,
        Self::ChatbotArena,
        Self::Inspect,
        Self::LmEval,
        Self::Promptfoo,
    ];

    /// The name the CLI and specs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AlpacaEval => "alpaca_eval",
            Self::ArenaHard => "arena_hard",
            Self::ChatbotArena => "chatbot_arena",
            Self::Inspect => "inspect",
            Self::LmEval => "lm_eval",
            Self::Promptfoo => "promptfoo",
        }
    }

    /// What the format is, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::AlpacaEval => "AlpacaEval annotations (annotations.json)",
            Self::ArenaHard => "Arena-Hard-Auto judgments (model_judgment/…/<model>.jsonl)",
            Self::ChatbotArena => "Chatbot Arena battles (clean_battle_….json)",
            Self::Inspect => "an Inspect eval log (.json)",
            Self::LmEval => "lm-evaluation-harness samples (samples_<task>_….jsonl)",
            Self::Promptfoo => "promptfoo results (promptfoo eval -o results.json)",
        }
    }

    /// What the format converts to unless asked otherwise.
    pub fn output(self) -> Output {
        self.outputs()[0]
    }

    /// Everything the format converts to, its default first.
    pub fn outputs(self) -> &'static [Output] {
        match self {
            Self::AlpacaEval => &[Output::Battles, Output::Scores],
            Self::ArenaHard | Self::ChatbotArena => &[Output::Battles],
            Self::Inspect | Self::Promptfoo => &[Output::Ratings, Output::Scores],
            Self::LmEval => &[Output::Scores],
        }
    }

    /// The format named `text` (`alpaca_eval`, `alpaca-eval`, …).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] listing the formats.
    pub fn parse(text: &str) -> Result<Self> {
        let wanted = text.trim().replace('-', "_");
        Self::ALL
            .into_iter()
            .find(|f| f.as_str() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|f| f.as_str()).collect();
                Error::param(
                    "from",
                    format!("expected one of {}, found `{text}`", names.join(", ")),
                )
            })
    }
}

/// Settings a reader may need.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConvertParams {
    /// Arena-Hard's baseline model, for files whose records do not name it (v0.1's
    /// `gpt-4-0314`).
    pub baseline: Option<String>,
    /// The system an lm-evaluation-harness file's scores belong to (default: its folder).
    #[serde(default)]
    pub system: Option<String>,
    /// What to write (default: [`Format::output`]).
    #[serde(default)]
    pub to: Option<Output>,
}

/// The kind of file a reader writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// A battles CSV in the arena layout.
    Battles,
    /// A ratings CSV (`item,rater,score`, slice columns).
    Ratings,
    /// A scores CSV (`item,system,criterion,score`, slice columns): what `compare` reads.
    Scores,
}

impl Output {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Battles => "battles",
            Self::Ratings => "ratings",
            Self::Scores => "scores",
        }
    }

    /// The output named `text`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] listing the outputs.
    pub fn parse(text: &str) -> Result<Self> {
        [Self::Battles, Self::Ratings, Self::Scores]
            .into_iter()
            .find(|o| o.as_str() == text.trim())
            .ok_or_else(|| {
                Error::param(
                    "to",
                    format!("expected battles, ratings or scores, found `{text}`"),
                )
            })
    }
}

/// A converted file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Converted {
    pub format: Format,
    /// What the CSV holds.
    pub output: Output,
    /// The CSV, with the format's extra columns.
    pub csv: String,
    /// Rows written: battles or ratings.
    pub rows: usize,
    /// Records read (pairs, judgments, battles, samples or results).
    pub records: usize,
    /// What was left out, and why.
    pub warnings: Vec<String>,
}

/// The format of `bytes`, from the keys of its top-level object or of its first record;
/// `None` when no reader knows it.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let text = std::str::from_utf8(bytes).ok()?;
    if let Ok(top) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text) {
        if top.contains_key("eval") && top.contains_key("version") {
            return Some(Format::Inspect);
        }
        if top.contains_key("results") && !top.contains_key("games") {
            return Some(Format::Promptfoo);
        }
    }
    let first = json_records::records("", text).ok()?.into_iter().next()?;
    let keys: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(first.raw.get()).ok()?;
    let has = |k: &str| keys.contains_key(k);
    if has("games") && has("model") {
        Some(Format::ArenaHard)
    } else if has("output_1") && has("output_2") && has("generator_2") {
        Some(Format::AlpacaEval)
    } else if has("model_a") && has("model_b") && has("winner") {
        Some(Format::ChatbotArena)
    } else if has("doc_id") && (has("metrics") || has("filtered_resps")) {
        Some(Format::LmEval)
    } else {
        None
    }
}

/// Reads `bytes` (named `source` in errors) as `format`, into `params.to` (default
/// [`Format::output`]).
///
/// # Errors
/// See the [module documentation](self); [`Error::InvalidParam`] for an output the format
/// cannot write.
pub fn convert(
    format: Format,
    source: &str,
    bytes: &[u8],
    params: &ConvertParams,
) -> Result<Converted> {
    let output = params.to.unwrap_or(format.output());
    if !format.outputs().contains(&output) {
        let can: Vec<&str> = format.outputs().iter().map(|o| o.as_str()).collect();
        return Err(Error::param(
            "to",
            format!(
                "{} converts to {}, not {}",
                format.describe(),
                can.join(" or "),
                output.as_str()
            ),
        ));
    }
    let text = json_records::text(source, bytes)?;
    let mut out = CsvOut::default();
    let whole = match (format, output) {
        (Format::Inspect, Output::Scores) => Some(inspect::scores(source, text, &mut out)?),
        (Format::Inspect, _) => Some(inspect::read(source, text, &mut out)?),
        (Format::Promptfoo, Output::Scores) => Some(promptfoo::scores(source, text, &mut out)?),
        (Format::Promptfoo, _) => Some(promptfoo::read(source, text, &mut out)?),
        _ => None,
    };
    if let Some((records, warnings)) = whole {
        return Ok(Converted {
            format,
            output,
            rows: out.rows.len(),
            records,
            csv: out.finish()?,
            warnings,
        });
    }
    let records = json_records::records(source, text)?;
    if records.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: no records (expected {})",
            format.describe()
        )));
    }
    let warnings = match (format, output) {
        (Format::AlpacaEval, Output::Scores) => alpaca_eval::scores(source, &records, &mut out)?,
        (Format::AlpacaEval, _) => alpaca_eval::read(source, &records, &mut out)?,
        (Format::ArenaHard, _) => arena_hard::read(source, &records, params, &mut out)?,
        (Format::LmEval, _) => {
            lm_eval::scores(source, &records, params.system.as_deref(), &mut out)?
        }
        _ => chatbot_arena::read(source, &records, &mut out)?,
    };
    Ok(Converted {
        format,
        output,
        rows: out.rows.len(),
        records: records.len(),
        csv: out.finish()?,
        warnings,
    })
}

/// The scores CSV `compare` reads, from `files` (name, bytes): one scores CSV as it is, or
/// other tools' files — each read as `format`, else as [`detect`] names it — converted to
/// scores and joined into one CSV (the union of their columns, blank where a file has none;
/// the warnings name their file). Returns the name, the CSV and the warnings.
///
/// # Errors
/// [`Error::Insufficient`] for no file; [`Error::Input`] naming a file that is neither a CSV
/// (when alone) nor a file of a tool that writes scores; a reader's errors.
pub fn scores_of(
    files: Vec<(String, Vec<u8>)>,
    format: Option<Format>,
    params: &ConvertParams,
) -> Result<(String, Vec<u8>, Vec<String>)> {
    if let [(name, bytes)] = files.as_slice() {
        if format.is_none() && detect(bytes).is_none() {
            return Ok((name.clone(), bytes.clone(), Vec::new()));
        }
    }
    if files.is_empty() {
        return Err(Error::Insufficient("no scores file given".to_owned()));
    }
    let params = ConvertParams {
        to: Some(Output::Scores),
        ..params.clone()
    };
    let mut header: Vec<String> = Vec::new();
    let mut parts = Vec::with_capacity(files.len());
    let mut warnings = Vec::new();
    for (name, bytes) in &files {
        let Some(format) = format.or_else(|| detect(bytes)) else {
            return Err(Error::input(
                Location::line(name, 1),
                "not a file of a tool that writes scores (expected an Inspect log, promptfoo \
                 results, AlpacaEval annotations or lm-evaluation-harness samples; a scores \
                 CSV only alone)",
            ));
        };
        let converted = convert(format, name, bytes, &params)?;
        warnings.extend(converted.warnings.iter().map(|w| format!("{name}: {w}")));
        let mut reader = csv::Reader::from_reader(converted.csv.as_bytes());
        let columns: Vec<String> = reader
            .headers()
            .map_err(|e| Error::Insufficient(format!("{name}: {e}")))?
            .iter()
            .map(str::to_owned)
            .collect();
        for column in &columns {
            if !header.contains(column) {
                header.push(column.clone());
            }
        }
        let rows: Vec<csv::StringRecord> = reader
            .records()
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::Insufficient(format!("{name}: {e}")))?;
        parts.push((columns, rows));
    }
    let mut out = CsvOut {
        header,
        rows: Vec::new(),
    };
    for (columns, rows) in parts {
        let at: Vec<Option<usize>> = out
            .header
            .iter()
            .map(|h| columns.iter().position(|c| c == h))
            .collect();
        for row in rows {
            out.row(
                at.iter()
                    .map(|k| k.and_then(|k| row.get(k)).unwrap_or("").to_owned())
                    .collect(),
            );
        }
    }
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let name = format!("scores from {}.csv", names.join(" + "));
    Ok((name, out.finish()?.into_bytes(), warnings))
}

/// The CSV being written: a header, then one row per battle.
#[derive(Default)]
pub(crate) struct CsvOut {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl CsvOut {
    pub(crate) fn header(&mut self, columns: &[&str]) {
        self.header = columns.iter().map(|c| (*c).to_owned()).collect();
    }

    /// Adds a column to the header.
    pub(crate) fn column(&mut self, name: impl Into<String>) {
        self.header.push(name.into());
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds a column per name, as `{prefix}.{name}` where the header already has the name.
    pub(crate) fn named_columns(&mut self, names: &[&str], prefix: &str) {
        for name in names {
            if self.header.iter().any(|h| h == name) {
                self.column(format!("{prefix}.{name}"));
            } else {
                self.column(*name);
            }
        }
    }
}

/// A JSON object's string, number and boolean fields as text (others left out).
pub(crate) fn scalar_fields(
    object: Option<serde_json::Map<String, serde_json::Value>>,
) -> Vec<(String, String)> {
    use serde_json::Value;
    object
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| match value {
            Value::String(s) => Some((key, s)),
            Value::Number(n) => Some((key, n.to_string())),
            Value::Bool(b) => Some((key, b.to_string())),
            _ => None,
        })
        .collect()
}

/// The sorted names of every record's fields.
pub(crate) fn field_names<'a>(
    fields: impl Iterator<Item = &'a [(String, String)]>,
) -> Vec<&'a str> {
    let names: std::collections::BTreeSet<&str> = fields
        .flat_map(|f| f.iter().map(|(name, _)| name.as_str()))
        .collect();
    names.into_iter().collect()
}

/// The value of each of `names` in `fields`, blank where a record has none.
pub(crate) fn field_cells<'a>(
    fields: &'a [(String, String)],
    names: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    names.iter().map(move |name| {
        fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    })
}

impl CsvOut {
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    fn finish(self) -> Result<String> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let io = |e: csv::Error| Error::Insufficient(format!("writing the CSV: {e}"));
        writer.write_record(&self.header).map_err(io)?;
        for row in &self.rows {
            writer.write_record(row).map_err(io)?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|e| Error::Insufficient(format!("writing the CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::Insufficient(format!("writing the CSV: {e}")))
    }
}
