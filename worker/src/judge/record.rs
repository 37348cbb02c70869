//! A judge run's reproducibility record: what judged (model file and hash, or endpoint), with
//! which prompt, decoding and design, on which items, in which store, and what it cost. Stored
//! with the run, written beside `tribunal judge --out` as `OUT.run.json`, kept with the study's
//! judgments and carried in a session archive's `runs`.
//!
//! Written as JSON with its keys sorted at every level ([`RunRecord::to_value`]), as the
//! records made before this type were.

use crate::engine::JudgeModel;
use serde::{Deserialize, Serialize};
use tribunal::judging::judge_config::DecodingConfig;
use tribunal::judging::judge_design::{RunDesign, Variant};
use tribunal::judging::judge_prompt::PromptParams;

/// The record of one judge run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The version of the code that judged.
    pub code_version: String,
    pub judge_model: JudgeModel,
    /// What embedded the rationales, when they were embedded.
    pub embedding_model: Option<String>,
    /// The device the judge ran on (`Cpu`, `Cuda(0)`, …).
    pub device: String,
    pub prompt: PromptParams,
    /// The content hash of the prompt's JSON.
    pub prompt_hash: String,
    pub decoding: DecodingConfig,
    /// Whether the verdict was constrained to the prompt's labels.
    pub verdict_constrained: bool,
    pub design: RunDesign,
    /// The prompt variations and their edits.
    pub variations: Vec<Variant>,
    pub items: RunItems,
    pub started_unix: f64,
    pub finished_unix: f64,
    pub session: String,
    pub queue: String,
    /// The store's backend: `sqlite` or `postgresql`.
    pub store: String,
    /// Judgments made by this process.
    pub judged_now: usize,
    /// Judgments stored before this process began.
    pub resumed_from: usize,
    /// Judgments stored in the session at the end.
    pub judgments: usize,
    pub parse_failures: usize,
    /// Items whose responses carry a prompt-injection flag (field guide Tip 17).
    pub injection_flagged_items: usize,
    /// Items with a response that shows nothing: judged as they are, and flagged.
    pub blank_response_items: usize,
    /// This process's tokens and time (other workers' judgments and kept ones left out).
    pub prompt_tokens: usize,
    pub generated_tokens: usize,
    pub seconds: f64,
    pub generated_tokens_per_second: f64,
}

/// The items file of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunItems {
    pub source: String,
    /// The content hash of its bytes.
    pub hash: String,
    pub count: usize,
}

impl RunRecord {
    /// The record as JSON with its keys sorted at every level.
    ///
    /// # Errors
    /// Only if serialisation fails, which a record's fields cannot make it do.
    pub fn to_value(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    /// [`Self::to_value`], pretty-printed.
    ///
    /// # Errors
    /// As [`Self::to_value`].
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.to_value()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The records kept with the study's judgments (made by the untyped writer before this
    /// type) read into a record and write back to the same JSON, key for key.
    #[test]
    fn a_kept_record_reads_and_writes_back_unchanged() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/llmfao-study/judgments");
        for name in ["main", "orders", "repeats"] {
            let text = std::fs::read_to_string(dir.join(format!("{name}.run.json"))).unwrap();
            let record: RunRecord = serde_json::from_str(&text).unwrap();
            assert_eq!(record.to_json().unwrap() + "\n", text, "{name}");
            assert_eq!(record.judge_model.revision, Some(2), "{name}");
        }
    }

    /// A server judge's record has its endpoint and no file fields.
    #[test]
    fn a_server_judge_writes_only_its_fields() {
        let model = JudgeModel {
            id: "m".to_owned(),
            revision: None,
            file: None,
            hash: None,
            device: None,
            endpoint: Some("http://h/v1/chat/completions".to_owned()),
            backend: Some("openai-compatible".to_owned()),
        };
        assert_eq!(
            serde_json::to_string(&model).unwrap(),
            r#"{"id":"m","endpoint":"http://h/v1/chat/completions","backend":"openai-compatible"}"#
        );
    }
}
