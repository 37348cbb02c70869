//! A judge behind any OpenAI-compatible chat-completions server (`POST {url}/chat/completions`:
//! llama.cpp's server, vLLM, TGI, or a hosted API) — the way several workers share an
//! inference fleet.
//!
//! The request carries the system and user messages, `max_tokens` (and `min_tokens` when it is
//! set: vLLM's and llama.cpp's servers bar the end of the answer until then), the temperature
//! (0 for greedy decoding), the seed, and asks for `logprobs` with the `top_logprobs` alternatives of
//! each generated token. p_s is read as the local judge reads it: at the first visible token
//! after the verdict marker, each label's probability is the summed probability of the
//! alternatives that are that label (with or without spaces), normalised over the labels.
//! A server that returns no log-probabilities there gives no p_s (`score_position: missing`);
//! the answer itself is still parsed. With a constrained verdict and a server that takes a
//! grammar (`grammar = "gbnf"`), the request carries [`verdict_grammar`]: the answer then ends
//! with the marker and a label; on a JSON prompt it carries the prompt's answer format as a
//! grammar ([`AnswerFormat::gbnf`], each free text at most twice the token budget in
//! characters, and `max_tokens` raised to fit the format's literals): the answer then is the
//! prompt's JSON block; a server that takes none decodes the verdict freely, which
//! the run's record says (`verdict_constrained: false`).
//!
//! The API key, when there is one, is read from the environment variable the configuration
//! names (`api_key_env`), never from the configuration, and is not recorded. A failed request
//! (connection error, timeout, 429 or 5xx) is retried `retries` times with doubling back-off;
//! any other status is an error carrying the server's message. Up to `concurrency` requests
//! are in flight at once per worker process (each lane a clone of the client, sharing its
//! connection pool); a fleet serves many requests at a time, so one worker can keep it busy.

use super::local_judge::{Decoding, Generation, ScorePosition};
use super::{Judge, JudgeModel};
use anyhow::{anyhow, bail, Context};
use std::time::{Duration, Instant};
use tribunal::judging::answer_format::{gbnf_literal, AnswerFormat};
use tribunal::judging::judge_config::{GrammarSupport, OpenAiParams};

/// The GBNF grammar of an answer that ends with its verdict: a rationale of at most
/// `max_chars` characters without the marker's first character (a grammar cannot say "not the
/// marker" more simply), then the marker, a space and one of `labels`. Bounding the rationale
/// in characters leaves the verdict inside the token budget for answers of two or more
/// characters a token (the caller passes twice the token budget less the verdict's length).
pub fn verdict_grammar(marker: &str, labels: &[String], max_chars: usize) -> String {
    let first = marker.chars().next().map_or_else(String::new, |c| match c {
        '[' | ']' | '\\' | '^' | '-' => format!("\\{c}"),
        c => c.to_string(),
    });
    let labels: Vec<String> = labels.iter().map(|l| gbnf_literal(l)).collect();
    format!(
        "root ::= rationale {} \" \" label\nrationale ::= [^{first}]{{0,{max_chars}}}\nlabel ::= {}\n",
        gbnf_literal(marker),
        labels.join(" | ")
    )
}

/// The most requests one worker keeps in flight.
const MAX_CONCURRENCY: usize = 256;

/// A chat-completions client; clones share the connection pool.
#[derive(Clone)]
pub struct OpenAiJudge {
    params: OpenAiParams,
    client: Client,
}

impl OpenAiJudge {
    /// Checks `params` and reads the API key; connects lazily.
    pub fn new(params: &OpenAiParams) -> anyhow::Result<Self> {
        if params.top_logprobs > 20 {
            bail!(
                "[backend] top_logprobs: expected 0 to 20, found {}",
                params.top_logprobs
            );
        }
        if !(1..=MAX_CONCURRENCY).contains(&params.concurrency) {
            bail!(
                "[backend] concurrency: expected 1 to {MAX_CONCURRENCY} requests in flight, found {}",
                params.concurrency
            );
        }
        Ok(Self {
            params: params.clone(),
            client: Client::new(params, "chat/completions")?,
        })
    }
}

/// An endpoint of an OpenAI-compatible server (`{url}/{path}`), with the API key, the
/// timeout and the retries of [`OpenAiParams`]; clones share the connection pool.
#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) endpoint: String,
    key: Option<String>,
    retries: u32,
    agent: ureq::Agent,
}

impl Client {
    /// Checks the URL and the timeout and reads the API key.
    pub(crate) fn new(params: &OpenAiParams, path: &str) -> anyhow::Result<Self> {
        if !(params.url.starts_with("http://") || params.url.starts_with("https://")) {
            bail!(
                "[backend] url: expected an http:// or https:// URL, found `{}`",
                params.url
            );
        }
        if !(params.timeout_seconds.is_finite() && params.timeout_seconds > 0.0) {
            bail!(
                "[backend] timeout_seconds: expected a positive number of seconds, found {}",
                params.timeout_seconds
            );
        }
        let key = match &params.api_key_env {
            Some(var) => Some(std::env::var(var).map_err(|_| {
                anyhow!("[backend] api_key_env: the environment variable `{var}` is not set")
            })?),
            None => None,
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs_f64(params.timeout_seconds)))
            .http_status_as_error(false)
            .max_idle_connections_per_host(params.concurrency.max(1))
            .build()
            .into();
        Ok(Self {
            endpoint: format!("{}/{path}", params.url.trim_end_matches('/')),
            key,
            retries: params.retries,
            agent,
        })
    }

    /// One request, retried on transient failures.
    pub(crate) fn post(&self, body: &serde_json::Value) -> anyhow::Result<serde_json::Value> {
        let mut attempt = 0;
        loop {
            let mut request = self.agent.post(&self.endpoint);
            if let Some(key) = &self.key {
                request = request.header("Authorization", &format!("Bearer {key}"));
            }
            let failure = match request.send_json(body) {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    let text = response
                        .body_mut()
                        .read_to_string()
                        .with_context(|| format!("reading the answer of {}", self.endpoint))?;
                    if (200..300).contains(&status) {
                        return serde_json::from_str(&text)
                            .with_context(|| format!("{}: the answer is not JSON", self.endpoint));
                    }
                    let message = format!(
                        "{} answered HTTP {status}: {}",
                        self.endpoint,
                        text.chars().take(500).collect::<String>()
                    );
                    if status != 429 && status < 500 {
                        bail!(message);
                    }
                    message
                }
                Err(error) => format!("{}: {error}", self.endpoint),
            };
            if attempt >= self.retries {
                bail!("{failure} (after {} attempts)", attempt + 1);
            }
            std::thread::sleep(Duration::from_millis(500 << attempt.min(6)));
            attempt += 1;
        }
    }
}

/// p_s over `labels` from the answer's per-token log-probabilities (`choices[0].logprobs
/// .content`), read at the first visible token after `marker`; `None` when there is no such
/// token or none of its alternatives is a label. Returns (p_s, the labels' mass).
pub fn label_probs(
    tokens: &[serde_json::Value],
    labels: &[String],
    marker: &str,
) -> Option<(Vec<f64>, f64)> {
    let mut text = String::new();
    for entry in tokens {
        let token = entry["token"].as_str().unwrap_or_default();
        if text.contains(marker) && !token.trim().is_empty() {
            let alternatives = entry["top_logprobs"].as_array()?;
            let per_label: Vec<f64> = labels
                .iter()
                .map(|label| {
                    alternatives
                        .iter()
                        .filter(|a| a["token"].as_str().map(str::trim) == Some(label.as_str()))
                        .filter_map(|a| a["logprob"].as_f64())
                        .fold(0.0, |sum, logprob| sum + logprob.exp())
                })
                .collect();
            let mass: f64 = per_label.iter().sum();
            return (mass > 0.0).then(|| (per_label.iter().map(|p| p / mass).collect(), mass));
        }
        text.push_str(token);
    }
    None
}

impl Judge for OpenAiJudge {
    fn generate(
        &mut self,
        system: &str,
        user: &str,
        labels: &[String],
        marker: &str,
        format: Option<&AnswerFormat>,
        decoding: &Decoding,
    ) -> anyhow::Result<Generation> {
        let started = Instant::now();
        let mut body = serde_json::json!({
            "model": self.params.model,
            "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": user },
            ],
            "max_tokens": decoding.max_tokens,
            "temperature": decoding.temperature.unwrap_or(0.0),
            "seed": decoding.seed,
        });
        if decoding.min_tokens > 0 {
            body["min_tokens"] = decoding.min_tokens.into();
        }
        if decoding.constrained && self.params.grammar == GrammarSupport::Gbnf {
            let chars = 2 * decoding.max_tokens;
            if let Some(format) = format {
                // The format's literals come on top of the budget's free text.
                body["grammar"] = format.gbnf(chars, chars).into();
                body["max_tokens"] = format.most_chars(chars).into();
            } else {
                let verdict = marker.chars().count()
                    + 1
                    + labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
                body["grammar"] =
                    verdict_grammar(marker, labels, chars.saturating_sub(verdict)).into();
            }
        }
        if self.params.top_logprobs > 0 {
            body["logprobs"] = true.into();
            body["top_logprobs"] = self.params.top_logprobs.into();
        }
        let answer = self.client.post(&body)?;
        let choice = &answer["choices"][0];
        let text = choice["message"]["content"]
            .as_str()
            .with_context(|| {
                format!(
                    "{}: expected choices[0].message.content in the answer",
                    self.client.endpoint
                )
            })?
            .to_owned();
        let tokens = choice["logprobs"]["content"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let (label_probs, label_mass, score_position) = match label_probs(tokens, labels, marker) {
            Some((p, mass)) => (p, mass, ScorePosition::Generated),
            None => (Vec::new(), 0.0, ScorePosition::Missing),
        };
        let count = |key: &str| {
            answer["usage"][key]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or_default()
        };
        Ok(Generation {
            text,
            prompt_tokens: count("prompt_tokens"),
            generated_tokens: count("completion_tokens"),
            label_probs,
            label_mass,
            score_position,
            hidden: None,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    fn describe(&self) -> anyhow::Result<JudgeModel> {
        Ok(JudgeModel {
            id: self.params.model.clone(),
            endpoint: Some(self.client.endpoint.clone()),
            backend: Some("openai-compatible".to_owned()),
            revision: None,
            file: None,
            hash: None,
            device: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn token(text: &str, alternatives: &[(&str, f64)]) -> serde_json::Value {
        json!({
            "token": text,
            "logprob": -0.1,
            "top_logprobs": alternatives
                .iter()
                .map(|(t, p)| json!({ "token": t, "logprob": p.ln() }))
                .collect::<Vec<_>>(),
        })
    }

    #[test]
    fn p_s_is_read_at_the_first_visible_token_after_the_marker() {
        let labels = ["A".to_owned(), "B".to_owned()];
        let tokens = [
            token("Feedback", &[("Feedback", 0.9)]),
            token(": fine. [RES", &[]),
            token("ULT]", &[]),
            token(" ", &[(" ", 0.8), ("A", 0.1)]),
            // " A" and "A" are both the label A; "C" is no label.
            token(" A", &[(" A", 0.5), ("A", 0.1), (" B", 0.2), ("C", 0.1)]),
        ];
        let (p, mass) = label_probs(&tokens, &labels, "[RESULT]").unwrap();
        assert!((mass - 0.8).abs() < 1e-12);
        assert!((p[0] - 0.75).abs() < 1e-12 && (p[1] - 0.25).abs() < 1e-12);
        // No marker, or no label among the alternatives: no p_s.
        assert_eq!(label_probs(&tokens[..3], &labels, "[RESULT]"), None);
        let no_label = [token("[RESULT]", &[]), token(" A", &[("C", 0.9)])];
        assert_eq!(label_probs(&no_label, &labels, "[RESULT]"), None);
    }

    #[test]
    fn the_verdict_grammar_ends_with_the_marker_and_a_label() {
        let labels = ["A".to_owned(), "B".to_owned()];
        assert_eq!(
            verdict_grammar("[RESULT]", &labels, 180),
            "root ::= rationale \"[RESULT]\" \" \" label\nrationale ::= [^\\[]{0,180}\nlabel ::= \"A\" | \"B\"\n"
        );
        // Quotes and backslashes in a marker or label are escaped.
        let odd = verdict_grammar("Say \"x\\\"", &["1".to_owned()], 5);
        assert!(odd.contains("\"Say \\\"x\\\\\\\"\""), "{odd}");
        assert!(odd.contains("[^S]{0,5}"), "{odd}");
    }

    #[test]
    fn bad_settings_are_refused_before_any_request() {
        let params = OpenAiParams {
            url: "ftp://fleet".to_owned(),
            model: "m".to_owned(),
            api_key_env: None,
            timeout_seconds: 10.0,
            retries: 0,
            top_logprobs: 5,
            concurrency: 1,
            grammar: GrammarSupport::None,
        };
        let error = OpenAiJudge::new(&params).err().unwrap().to_string();
        assert!(error.contains("[backend] url"), "{error}");
        let missing_key = OpenAiParams {
            url: "http://127.0.0.1:9/v1".to_owned(),
            api_key_env: Some("TRIBUNAL_TEST_UNSET_KEY".to_owned()),
            ..params.clone()
        };
        let error = OpenAiJudge::new(&missing_key).err().unwrap().to_string();
        assert!(error.contains("TRIBUNAL_TEST_UNSET_KEY"), "{error}");
        for concurrency in [0, 257] {
            let lanes = OpenAiParams {
                url: "http://127.0.0.1:9/v1".to_owned(),
                concurrency,
                ..params.clone()
            };
            let error = OpenAiJudge::new(&lanes).err().unwrap().to_string();
            assert!(error.contains("[backend] concurrency"), "{error}");
        }
    }
}
