//! The end of one judge of a cascade (`[escalate]`, [`tribunal::judging::escalation`]): its
//! items' confidences from its stored judgments, the items below its threshold queued as the
//! next judge's run, or — after the last judge — the cascade's judgments file and the items
//! left to people.
//!
//! Invariants: a tier's run is a pure function of the previous tier's stored judgments (its
//! items, session and queue follow from them), so whichever process ends a tier queues the
//! same next run, and a process that dies between queueing it and ending the tier leaves it
//! for the next one to find queued. The next tier is queued before the tier ends, so an ended
//! tier always has its successor.

use crate::judge::spec::{cascade_stem, CascadeTier, RunSpec};
use crate::store::Store;
use anyhow::{Context, Result};
use std::collections::{HashMap, HashSet};
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::judging::escalation::{
    below, cascade_file, item_confidences, items_file_of, ItemConfidence,
};
use tribunal::judging::judge_config::{judge_name, JudgeConfig};
use tribunal::sessions::protocol::TierOutcome;
use tribunal::sessions::session::check_dataset;

/// How one judge of a cascade ended.
pub struct TierEnd {
    pub outcome: TierOutcome,
    /// The next judge's run, queued: its queue and spec. `None` after the last judge, or when
    /// this one kept every item.
    pub next: Option<(String, RunSpec)>,
}

/// Ends the judge `cascade` of `spec`, queued as `queue` (its units all done): queues the next
/// judge's run on the items below this judge's threshold, unless it was queued already; after
/// the last judge, a served run's session gets the cascade's judgments file and the items left
/// to people.
pub fn end_tier(
    store: &Store,
    queue: &str,
    spec: &RunSpec,
    cascade: &CascadeTier,
) -> Result<TierEnd> {
    let escalation = spec
        .config
        .escalate
        .as_ref()
        .context("a cascade's run has its `[escalate]` settings")?;
    let confidences = confidences(store, &spec.config, &spec.session)?;
    let threshold = escalation.threshold(cascade.tier);
    let passed = below(&confidences, threshold);
    let next = next_of(spec, &passed)?;
    let outcome = TierOutcome {
        tier: u32::try_from(cascade.tier + 1)?,
        judge: judge_name(&spec.config.backend),
        threshold,
        items: u32::try_from(confidences.len())?,
        kept: u32::try_from(confidences.len() - passed.len())?,
        passed_on: u32::try_from(passed.len())?,
        to: next
            .as_ref()
            .map_or_else(|| "people".to_owned(), |n| judge_name(&n.config.backend)),
    };
    let next = match next {
        Some(next) => {
            let (next_queue, json) = next.queued()?;
            // Queued once; opened again (as `queue_run` opens a run started again) only when
            // this tier is open again while the next has ended: a cascade started again goes
            // through to its end again, and a late process ending a tier another ended
            // reopens nothing.
            let reopen = match store.run_ended(&next_queue)? {
                None => true,
                Some(true) => store.run_ended(queue)? == Some(false),
                Some(false) => false,
            };
            if reopen {
                store.enqueue(&next_queue, &json, u32::try_from(next.total())?)?;
            }
            Some((next_queue, next))
        }
        None => {
            if spec.stream.is_some() {
                save_outputs(store, spec, cascade)?;
            }
            None
        }
    };
    Ok(TierEnd { outcome, next })
}

/// The run of the next judge of `spec`'s cascade on the items `passed` on: `None` when none
/// is passed on or `spec` is the last judge.
fn next_of(spec: &RunSpec, passed: &HashSet<String>) -> Result<Option<RunSpec>> {
    if passed.is_empty() {
        return Ok(None);
    }
    spec.next_tier(passed)
}

/// The run of the next judge of `spec`'s cascade, from `spec`'s stored judgments (`None` as
/// [`end_tier`] finds none): how `tribunal judge` walks a cascade it has run.
pub fn next_run(store: &Store, spec: &RunSpec) -> Result<Option<RunSpec>> {
    let (Some(cascade), Some(escalation)) = (&spec.cascade, &spec.config.escalate) else {
        return Ok(None);
    };
    let confidences = confidences(store, &spec.config, &spec.session)?;
    next_of(
        spec,
        &below(&confidences, escalation.threshold(cascade.tier)),
    )
}

/// The items' confidences under `config`'s judge from the judgments stored under `session`.
fn confidences(store: &Store, config: &JudgeConfig, session: &str) -> Result<Vec<ItemConfidence>> {
    let judgments: Vec<String> = store
        .judgments(session)?
        .into_iter()
        .map(|(_, body)| body)
        .collect();
    Ok(item_confidences(
        &judgments,
        &config.prompt.labels(),
        config.prompt.pairwise(),
    )?)
}

/// What the cascade leaves once `spec`, its last judge to run, has ended: the judgments file
/// of every judge so far (the `cascade` analysis's input, human labels blank), and the items
/// file of the items below the last judge's threshold, left to people, with an empty `human`
/// column to fill in when the items have none (none when no item is left).
pub fn outputs(
    store: &Store,
    spec: &RunSpec,
    cascade: &CascadeTier,
) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let escalation = spec
        .config
        .escalate
        .as_ref()
        .context("a cascade's run has its `[escalate]` settings")?;
    let mut tiers = Vec::with_capacity(cascade.tier + 1);
    for k in 0..=cascade.tier {
        let judge = judge_name(&escalation.backend(&cascade.first, k));
        tiers.push((
            judge,
            confidences(store, &spec.config, &cascade.session(k))?,
        ));
    }
    let passed = tiers
        .last()
        .map(|(_, last)| below(last, escalation.threshold(cascade.tier)))
        .unwrap_or_default();
    let file = cascade_file(&tiers, &HashMap::new())?;
    let people = (!passed.is_empty())
        .then(|| items_file_of(&spec.source, &spec.bytes, &passed, Some("human")))
        .transpose()?;
    Ok((file, people))
}

/// Adds [`outputs`] to the session as `<items>.cascade.csv` and `<items>.to-people.csv`.
fn save_outputs(store: &Store, spec: &RunSpec, cascade: &CascadeTier) -> Result<()> {
    let session = cascade.root.split(':').next().unwrap_or(&cascade.root);
    let stem = cascade_stem(&spec.source);
    let (file, people) = outputs(store, spec, cascade)?;
    let mut datasets = vec![(DatasetKind::Ratings, format!("{stem}.cascade.csv"), file)];
    if let Some(people) = people {
        datasets.push((DatasetKind::Items, format!("{stem}.to-people.csv"), people));
    }
    for (kind, name, bytes) in datasets {
        let meta = check_dataset(kind, &name, &bytes)?.meta;
        store.add_dataset(session, &meta, &bytes)?;
    }
    Ok(())
}
