//! The wire protocol between the browser and the worker: typed messages in a versioned JSON
//! envelope, `{"v": 1, "type": "...", ...}`. Both sides decode with [`decode`], which rejects a
//! missing or different version with a message that says what to do.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The protocol version this build speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// Messages from the browser to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Stream `battles` simulated battles (seeded), one every `interval_ms` milliseconds.
    StartDemo {
        seed: u64,
        battles: u32,
        interval_ms: u32,
    },
    /// Send the stored events of a run's `stream` with an id above `after` (0: all), then
    /// each new one as it is stored, until the connection closes. A reconnecting page passes
    /// the last event id it showed and misses nothing.
    Watch { stream: String, after: i64 },
}

/// Messages from the worker to the browser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// First message on every connection.
    Hello { server: String, protocol: u32 },
    /// One stored demo event: a battle between two models with target `y` for `model_a`.
    Battle {
        /// The event's id in the worker's store.
        event_id: i64,
        seq: u32,
        total: u32,
        model_a: String,
        model_b: String,
        y: f64,
    },
    /// The demo stream finished.
    Done { total: u32 },
    /// One stored event of a judge run's stream.
    Run {
        stream: String,
        /// The event's id in the worker's store (pass the last one to [`ClientMessage::Watch`]).
        event_id: i64,
        seq: u32,
        event: RunEvent,
    },
    /// The request could not be served.
    Error { message: String },
}

/// What happened in a judge run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// The run was accepted; it will make `total` judgments (stored ones are skipped).
    Started { total: u32 },
    /// One judgment was stored.
    Judgment(Box<JudgmentEvent>),
    /// One judge of a cascade (`[escalate]`) finished and passed the items it was not
    /// confident on to the next, whose `next_total` judgments follow; its run took `seconds`.
    Escalated {
        tier: TierOutcome,
        next_total: u32,
        seconds: f64,
    },
    /// The run finished; the counts cover every stored judgment of its session (of every judge
    /// of a cascade, whose last judge's outcome is `tier`; `seconds` are the last judge's).
    Finished {
        judgments: u32,
        parse_failures: u32,
        seconds: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tier: Option<TierOutcome>,
    },
    /// The run stopped on an error; the judgments stored so far stay.
    Failed { message: String },
}

/// What one judge of a cascade did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierOutcome {
    /// 1 for the run's own judge, 2 for the first it escalates to, …
    pub tier: u32,
    /// The judge's model name (`local` for the bundled judge).
    pub judge: String,
    /// It kept the items whose confidence is at least this.
    pub threshold: f64,
    /// The items it judged, kept and passed on.
    pub items: u32,
    pub kept: u32,
    pub passed_on: u32,
    /// Who the items passed on went to: the next judge's name, or `people` (an items file to
    /// label, a dataset of the session).
    pub to: String,
}

/// One stored judgment of a run, as streamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgmentEvent {
    /// The judgments the run makes.
    pub total: u32,
    pub item: String,
    /// `ab`, or `ba` for the swapped order.
    pub order: String,
    /// The repeat (0 …) and the prompt variation (`""`: the original prompt).
    #[serde(default)]
    pub repeat: u32,
    #[serde(default)]
    pub variant: String,
    /// The verdict; `None` when the answer did not parse.
    pub label: Option<String>,
    /// Pairwise prompts: `A` when the file's `response` won, `B` when `response_b` did.
    pub winner: Option<String>,
    pub parse_error: Option<String>,
    pub seconds: f64,
    /// Tokens the judge generated.
    #[serde(default)]
    pub generated_tokens: u32,
    /// The rationale: the feedback, or the raw answer when it did not parse.
    #[serde(default)]
    pub rationale: String,
    /// p_s over the verdict labels.
    #[serde(default)]
    pub label_probs: Vec<(String, f64)>,
    /// Pairwise prompts: the judge's probability that the file's `response` wins
    /// ([`crate::judging::judge_prompt::preference`]).
    #[serde(default)]
    pub preference: Option<f64>,
    /// The models of the file's `response` and `response_b`, when the items name them.
    #[serde(default)]
    pub models: Option<(String, String)>,
    /// Prompt-injection flags on the item's responses, `field: kind` each.
    #[serde(default)]
    pub injection: Vec<String>,
    /// The item's responses with no visible text (`response`, `response_b`): judged as they
    /// are, and flagged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blank: Vec<String>,
    /// With a calibration head: a BTL head's probability that the file's `response` won
    /// (mapped back from the swapped order), or an LS head's calibrated score.
    pub calibrated: Option<f64>,
}

/// Why a message could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtocolError {
    #[error("message is not valid JSON: {0}")]
    Json(String),
    #[error(
        "message has no protocol version field `v` (this side speaks version {PROTOCOL_VERSION})"
    )]
    MissingVersion,
    #[error(
        "protocol version {found} is not supported: this side speaks version {PROTOCOL_VERSION}; \
         reload the page or upgrade the worker so both match"
    )]
    UnsupportedVersion { found: u64 },
    #[error("unknown or malformed message: {0}")]
    Message(String),
}

#[derive(Serialize)]
struct Envelope<'a, T> {
    v: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// Encodes a message in the current envelope.
pub fn encode<T: Serialize>(message: &T) -> String {
    // Serialising these enums cannot fail: every field is a string, number or bool.
    serde_json::to_string(&Envelope {
        v: PROTOCOL_VERSION,
        body: message,
    })
    .unwrap_or_default()
}

/// Decodes a message, checking the envelope's version first.
pub fn decode<T: DeserializeOwned>(text: &str) -> Result<T, ProtocolError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ProtocolError::Json(e.to_string()))?;
    match value.get("v").and_then(serde_json::Value::as_u64) {
        None => Err(ProtocolError::MissingVersion),
        Some(v) if v != u64::from(PROTOCOL_VERSION) => {
            Err(ProtocolError::UnsupportedVersion { found: v })
        }
        Some(_) => serde_json::from_value(value).map_err(|e| ProtocolError::Message(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_a_versioned_envelope() {
        let msg = ServerMessage::Battle {
            event_id: 7,
            seq: 1,
            total: 3,
            model_a: "x".into(),
            model_b: "y".into(),
            y: 0.5,
        };
        let text = encode(&msg);
        assert!(text.starts_with(r#"{"v":1,"type":"battle""#), "{text}");
        assert_eq!(decode::<ServerMessage>(&text).unwrap(), msg);
    }

    #[test]
    fn run_events_and_watch_requests_round_trip() {
        let msg = ServerMessage::Run {
            stream: "run:s:k".into(),
            event_id: 9,
            seq: 2,
            event: RunEvent::Judgment(Box::new(JudgmentEvent {
                total: 3,
                item: "p1".into(),
                order: "ba".into(),
                repeat: 1,
                variant: "typo".into(),
                label: Some("A".into()),
                winner: Some("B".into()),
                parse_error: None,
                seconds: 1.5,
                generated_tokens: 12,
                rationale: "B is right.".into(),
                label_probs: vec![("A".into(), 0.25), ("B".into(), 0.75)],
                preference: Some(0.75),
                models: Some(("m1".into(), "m2".into())),
                injection: vec!["response_b: addresses_judge".into()],
                blank: vec!["response".into()],
                calibrated: Some(0.25),
            })),
        };
        let text = encode(&msg);
        assert!(text.contains(r#""type":"run""#) && text.contains(r#""event":"judgment""#));
        assert_eq!(decode::<ServerMessage>(&text).unwrap(), msg);
        let watch =
            decode::<ClientMessage>(r#"{"v":1,"type":"watch","stream":"run:s:k","after":4}"#);
        assert_eq!(
            watch.unwrap(),
            ClientMessage::Watch {
                stream: "run:s:k".into(),
                after: 4
            }
        );
    }

    #[test]
    fn rejects_other_versions_and_garbage() {
        assert_eq!(
            decode::<ServerMessage>(r#"{"v":2,"type":"done","total":1}"#),
            Err(ProtocolError::UnsupportedVersion { found: 2 })
        );
        assert_eq!(
            decode::<ServerMessage>(r#"{"type":"done","total":1}"#),
            Err(ProtocolError::MissingVersion)
        );
        assert!(matches!(
            decode::<ServerMessage>(r#"{"v":1,"type":"nope"}"#),
            Err(ProtocolError::Message(_))
        ));
        assert!(matches!(
            decode::<ClientMessage>("{"),
            Err(ProtocolError::Json(_))
        ));
    }
}
