//! A judge run's spec ([`RunSpec`]): the configuration checked against the items file, every
//! judgment it plans and their store keys; and its queued form, from which any worker on the
//! store rebuilds it.

use crate::store::JudgmentKey;
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use tribunal::calibration::head_file::{Head, HeadFile};
use tribunal::io::provenance::content_hash;
use tribunal::judging::escalation::items_file_of;
use tribunal::judging::injection::{response_flags, ResponseFlag};
use tribunal::judging::judge_config::{BackendConfig, JudgeConfig, RationaleEmbedding};
use tribunal::judging::judge_design::{Design, Planned};
use tribunal::judging::judge_items::{parse_judge_items, JudgeItem};

/// A judge run: the configuration, the items file and the store session its judgments go
/// under. Checked when made: a configuration and items that cannot run together are an error
/// before any model loads.
pub struct RunSpec {
    pub config: JudgeConfig,
    /// The items file's name, for messages and the record.
    pub source: String,
    pub bytes: Vec<u8>,
    pub items: Vec<JudgeItem>,
    pub session: String,
    /// The design checked against the prompt, with its variations' edits.
    pub design: Design,
    /// Every judgment the run makes, item by item.
    pub planned: Vec<Planned>,
    /// The order the queue hands the judgments out in: unit `u` is `planned[work_order[u]]`,
    /// the judgments sorted by their rendered prompts, so that the local judge reuses the
    /// prefix each shares with the one before (the system prompt and task text, the
    /// instruction, a response shown first in several pairs).
    pub work_order: Vec<usize>,
    /// Prompt-injection flags on each item's responses, in item order.
    pub injection: Vec<Vec<ResponseFlag>>,
    /// A served run's event stream ([`crate::judge::events`]); none for `tribunal judge`.
    pub stream: Option<String>,
    /// A served run's calibration head: its model file and the head it holds, whose output
    /// each judgment event carries.
    pub head: Option<(serde_json::Value, Head)>,
    /// Where this run stands in a cascade (`[escalate]`); none for a run without one.
    pub cascade: Option<CascadeTier>,
}

/// A run's place in a cascade: tier 0 is the run as started; tier `k` judges the items tier
/// `k − 1` passed on, under the session `<root>:t<k + 1>`, with `config.backend` the tier's
/// judge and the stream of the root's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CascadeTier {
    pub tier: usize,
    /// The first tier's session.
    pub root: String,
    /// The first tier's judge.
    pub first: BackendConfig,
}

impl CascadeTier {
    /// The session of tier `tier`'s judgments.
    pub fn session(&self, tier: usize) -> String {
        match tier {
            0 => self.root.clone(),
            k => format!("{}:t{}", self.root, k + 1),
        }
    }
}

impl RunSpec {
    /// Checks `config` (named `config_source` in errors) against the items in `bytes`.
    pub fn new(
        config_source: &str,
        config: JudgeConfig,
        source: String,
        bytes: Vec<u8>,
        session: String,
    ) -> anyhow::Result<Self> {
        let design = config
            .design
            .prepare(&config.prompt)
            .with_context(|| config_source.to_owned())?;
        if config.embed_rationale
            && config.rationale_embedding == RationaleEmbedding::Judge
            && config.backend != BackendConfig::Local
        {
            bail!(
                "{config_source}: `rationale_embedding = \"judge\"` needs the local judge: an \
                 OpenAI-compatible server returns no hidden states (use \"minilm\")"
            );
        }
        if let Some(escalation) = &config.escalate {
            escalation
                .validate()
                .with_context(|| config_source.to_owned())?;
        }
        if config.design.repeats > 1 && config.decoding.temperature.is_none() {
            bail!(
                "{config_source}: `repeats = {}` with greedy decoding gives identical judgments: \
                 set `temperature` under [decoding]",
                config.design.repeats
            );
        }
        let items = parse_judge_items(&source, &bytes, config.prompt.pairwise())?;
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let planned = design.judgments(&ids);
        // The rendered prompts in lexicographic order: neighbours share their longest prefixes
        // (one instruction's judgments together, and within it those that show the same
        // response first); ties keep plan order.
        let mut rendered = Vec::with_capacity(planned.len());
        for (k, p) in planned.iter().enumerate() {
            let item = &items[p.item];
            let r = design
                .render(&item.id, &item.prompt, p)
                .with_context(|| format!("{source}, line {}: item `{}`", item.line, item.id))?;
            rendered.push((r.system, r.user, k));
        }
        rendered.sort();
        let work_order = rendered.into_iter().map(|(_, _, k)| k).collect();
        let marker = config.prompt.marker();
        let injection = items
            .iter()
            .map(|i| response_flags(&i.prompt, marker))
            .collect();
        let cascade = config.escalate.as_ref().map(|_| CascadeTier {
            tier: 0,
            root: session.clone(),
            first: config.backend.clone(),
        });
        Ok(Self {
            config,
            source,
            bytes,
            items,
            session,
            design,
            planned,
            work_order,
            injection,
            stream: None,
            head: None,
            cascade,
        })
    }

    /// This run served to watchers: its events go to [`stream_of`] its session (a cascade's
    /// first session), each judgment's with the output of `head` (a model file and the head
    /// it holds) when given.
    pub fn streamed(mut self, head: Option<(serde_json::Value, Head)>) -> Self {
        let root = self.cascade.as_ref().map_or(&self.session, |c| &c.root);
        self.stream = Some(stream_of(root));
        self.head = head;
        self
    }

    /// The run of the cascade's next tier on the items `ids` of this run's, or `None` when
    /// this is the last tier (or no cascade).
    pub fn next_tier(&self, ids: &HashSet<String>) -> anyhow::Result<Option<Self>> {
        let (Some(cascade), Some(escalation)) = (&self.cascade, &self.config.escalate) else {
            return Ok(None);
        };
        let tier = cascade.tier + 1;
        if tier >= escalation.judges() {
            return Ok(None);
        }
        let mut config = self.config.clone();
        config.backend = escalation.backend(&cascade.first, tier);
        let bytes = items_file_of(&self.source, &self.bytes, ids, None)?;
        let stem = cascade_stem(&self.source);
        let spec = Self::new(
            "escalate",
            config,
            format!("{stem}.tier{}.csv", tier + 1),
            bytes,
            cascade.session(tier),
        )?;
        let spec = Self {
            cascade: Some(CascadeTier {
                tier,
                ..cascade.clone()
            }),
            ..spec
        };
        Ok(Some(if self.stream.is_some() {
            spec.streamed(None)
        } else {
            spec
        }))
    }

    /// The store key of a planned judgment.
    pub fn key(&self, planned: &Planned) -> JudgmentKey {
        JudgmentKey {
            session: self.session.clone(),
            item: self.items[planned.item].id.clone(),
            order: planned.order.as_str().to_owned(),
            repeat: planned.repeat,
            variant: planned.variant.clone(),
        }
    }

    /// The planned judgment of queue unit `unit`.
    pub fn unit(&self, unit: u32) -> Option<&Planned> {
        self.work_order
            .get(unit as usize)
            .and_then(|&k| self.planned.get(k))
    }

    /// How many judgments the run makes: items × repeats × variants × orders.
    pub fn total(&self) -> usize {
        self.planned.len()
    }
}

/// The stream of the run that stores its judgments under `session`.
pub fn stream_of(session: &str) -> String {
    format!("run:{session}")
}

/// The first tier's items file name, without its extension, from any tier's (`x.tier2.csv`:
/// `x`).
pub fn cascade_stem(source: &str) -> &str {
    let stem = source.rsplit_once('.').map_or(source, |(stem, _)| stem);
    match stem.rsplit_once(".tier") {
        Some((first, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => first,
        _ => stem,
    }
}

/// A run as it is queued: enough for any worker to rebuild its [`RunSpec`].
#[derive(Serialize, Deserialize)]
struct QueuedSpec {
    config: JudgeConfig,
    source: String,
    items: String,
    session: String,
    /// Whether the run is streamed ([`RunSpec::streamed`]).
    #[serde(default)]
    streamed: bool,
    /// The model file of a streamed run's calibration head.
    #[serde(default)]
    head: Option<serde_json::Value>,
    /// A cascade's tier after the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tier: Option<CascadeTier>,
}

impl RunSpec {
    /// The queue entry of this run (`judge:<session>:<hash of the spec>`) and its JSON.
    pub(super) fn queued(&self) -> anyhow::Result<(String, String)> {
        let items = String::from_utf8(self.bytes.clone())
            .with_context(|| format!("{}: expected UTF-8 text", self.source))?;
        let json = serde_json::to_string(&QueuedSpec {
            config: self.config.clone(),
            source: self.source.clone(),
            items,
            session: self.session.clone(),
            streamed: self.stream.is_some(),
            head: self.head.as_ref().map(|(file, _)| file.clone()),
            tier: self.cascade.clone().filter(|c| c.tier > 0),
        })?;
        let hash = content_hash(json.as_bytes());
        let queue = format!(
            "judge:{}:{}",
            self.session,
            &hash["sha256:".len().."sha256:".len() + 16]
        );
        Ok((queue, json))
    }

    /// The spec of a queued run.
    pub(super) fn from_queued(queue: &str, json: &str) -> anyhow::Result<Self> {
        let q: QueuedSpec =
            serde_json::from_str(json).with_context(|| format!("the queued spec of {queue}"))?;
        let mut spec = Self::new(queue, q.config, q.source, q.items.into_bytes(), q.session)?;
        if let Some(tier) = q.tier {
            spec.cascade = Some(tier);
        }
        Ok(match (q.streamed, q.head) {
            (false, _) => spec,
            (true, None) => spec.streamed(None),
            (true, Some(file)) => {
                let head =
                    HeadFile::from_json(&format!("the head of {queue}"), &file.to_string())?.head;
                spec.streamed(Some((file, head)))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The judgments are handed out in the order of their rendered prompts: one instruction's
    /// together, and within it those showing the same response first; each once.
    #[test]
    fn the_work_order_follows_the_rendered_prompts() {
        let config: JudgeConfig = toml::from_str(
            "[prompt]\nkind = \"relative\"\nrubric = \"Which is better?\"\n[design]\norders = \"both\"\n",
        )
        .unwrap();
        let items = "id,instruction,response,response_b\n\
                     p1,Say hi,hi,hello\np2,Add 2+2,4,5\np3,Say hi,hello,yo\n";
        let spec = RunSpec::new(
            "judge.toml",
            config,
            "i.csv".into(),
            items.into(),
            "s".into(),
        )
        .unwrap();
        let handed: Vec<(String, &str)> = (0..6)
            .map(|u| {
                let planned = spec.unit(u).unwrap();
                (spec.items[planned.item].id.clone(), planned.order.as_str())
            })
            .collect();
        // "Add 2+2" sorts before "Say hi"; under "Say hi", `hello` is shown first by p1 in
        // order ba and by p3 in order ab, which come together (before `hi`, then `yo`).
        assert_eq!(
            handed,
            [
                ("p2".to_owned(), "ab"),
                ("p2".to_owned(), "ba"),
                ("p1".to_owned(), "ba"),
                ("p3".to_owned(), "ab"),
                ("p1".to_owned(), "ab"),
                ("p3".to_owned(), "ba"),
            ]
        );
        assert!(spec.unit(6).is_none());
    }
}
