//! Readers of other evaluation tools' result files: each turns one tool's records into a
//! Tribunal CSV — pairwise verdicts into battles (`model_a,model_b,winner` and the columns that
//! tool adds), feeding every analysis of battles (leaderboards, style control, length control,
//! a judge study); per-sample scores into ratings (`item,rater,score` with the scorer as rater),
//! feeding agreement between scorers (does the model-graded check agree with the exact match?).
//!
//! - [`alpaca_eval`]: AlpacaEval's `annotations.json` (the judge's preference between a
//!   baseline's output and a model's, per instruction).
//! - [`arena_hard`]: Arena-Hard-Auto's judgment JSONL (two games per question, the baseline
//!   first and then second).
//! - [`chatbot_arena`]: Chatbot Arena's battle JSON (`model_a, model_b, winner`, with FastChat's
//!   style counts when present).
//! - [`inspect`]: Inspect eval logs (`.json`): each sample's score by each scorer.
//! - [`promptfoo`]: promptfoo's results JSON (`promptfoo eval -o`): each result's score and
//!   each assertion's.
//! - [`json_records`]: a JSON array or JSON-lines file as records that know their line and
//!   column, so every error is located.
//!
//! [`detect`] names the format of a file from its first record's keys; [`convert`] reads it.
//! Errors: [`Error::Input`] naming the file, line, column and field with what was expected
//! (invalid UTF-8, a JSON syntax error, a record without a required field or with a value
//! outside the tool's vocabulary); [`Error::Insufficient`] for a file without records.

pub mod alpaca_eval;
pub mod arena_hard;
pub mod chatbot_arena;
pub mod inspect;
pub mod json_records;
pub mod promptfoo;

use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A tool's result format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    AlpacaEval,
    ArenaHard,
    ChatbotArena,
    Inspect,
    Promptfoo,
}

impl Format {
    pub const ALL: [Self; 5] = [
        Self::AlpacaEval,
        Self::ArenaHard,
        Self::ChatbotArena,
        Self::Inspect,
        Self::Promptfoo,
    ];

    /// The name the CLI and specs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AlpacaEval => "alpaca_eval",
            Self::ArenaHard => "arena_hard",
            Self::ChatbotArena => "chatbot_arena",
            Self::Inspect => "inspect",
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
            Self::Promptfoo => "promptfoo results (promptfoo eval -o results.json)",
        }
    }

    /// What the format converts to.
    pub fn output(self) -> Output {
        match self {
            Self::AlpacaEval | Self::ArenaHard | Self::ChatbotArena => Output::Battles,
            Self::Inspect | Self::Promptfoo => Output::Ratings,
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
}

/// The kind of file a reader writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// A battles CSV in the arena layout.
    Battles,
    /// A ratings CSV (`item,rater,score`, slice columns).
    Ratings,
}

/// A converted file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Converted {
    pub format: Format,
    /// The CSV ([`Format::output`]), with the format's extra columns.
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
    } else {
        None
    }
}

/// Reads `bytes` (named `source` in errors) as `format`.
///
/// # Errors
/// See the [module documentation](self).
pub fn convert(
    format: Format,
    source: &str,
    bytes: &[u8],
    params: &ConvertParams,
) -> Result<Converted> {
    let text = json_records::text(source, bytes)?;
    let mut out = CsvOut::default();
    let whole = match format {
        Format::Inspect => Some(inspect::read(source, text, &mut out)?),
        Format::Promptfoo => Some(promptfoo::read(source, text, &mut out)?),
        _ => None,
    };
    if let Some((records, warnings)) = whole {
        return Ok(Converted {
            format,
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
    let warnings = match format {
        Format::AlpacaEval => alpaca_eval::read(source, &records, &mut out)?,
        Format::ArenaHard => arena_hard::read(source, &records, params, &mut out)?,
        _ => chatbot_arena::read(source, &records, &mut out)?,
    };
    Ok(Converted {
        format,
        rows: out.rows.len(),
        records: records.len(),
        csv: out.finish()?,
        warnings,
    })
}

/// The CSV being written: a header, then one row per battle.
#[derive(Default)]
pub(crate) struct CsvOut {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl CsvOut {
    pub(crate) fn header(&mut self, columns: &[&'static str]) {
        self.header = columns.to_vec();
    }

    /// Adds a column to the header.
    pub(crate) fn column(&mut self, name: &'static str) {
        self.header.push(name);
    }

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
