//! A served run's event stream `run:<session key>`: its start, one event per stored judgment
//! and its end, stored as the next events of the stream by whichever process does the work —
//! the server that started the run, another server, or a `tribunal work` process on the same
//! store. A judgment's event is stored in the transaction that stores the judgment
//! ([`crate::store::Storage::complete`]), and the end once, by the first process to find the
//! run's units all done (or to fail it) ([`crate::store::Storage::end_run`]): every judgment
//! has exactly one event whoever made it, and a run that loses its process mid-way still
//! ends. Watchers read the stream back from the store ([`crate::server`]).

use crate::judge::cascade::{self, TierEnd};
use crate::judge::spec::RunSpec;
use crate::store::{NewEvent, Store};
use anyhow::{Context, Result};
use tribunal::calibration::head_file::Head;
use tribunal::judging::judge_prompt::preference;
use tribunal::sessions::protocol::{JudgmentEvent, RunEvent, TierOutcome};
use tribunal::sessions::run_datasets::run_datasets;
use tribunal::sessions::session::check_dataset;

/// One event of a run's stream, as stored.
#[derive(Debug, Clone)]
pub struct Live {
    pub stream: String,
    pub event_id: i64,
    pub seq: u32,
    pub event: RunEvent,
}

/// Stores `event` as the next event of `stream`.
pub fn append(store: &Store, stream: &str, event: RunEvent) -> Result<Live> {
    let stored = store.append_event(stream, &serde_json::to_string(&event)?)?;
    Ok(Live {
        stream: stream.to_owned(),
        event_id: stored.id,
        seq: stored.seq,
        event,
    })
}

/// How many judgments are stored under `session`, and how many of them did not parse.
pub fn stored_counts(store: &Store, session: &str) -> Result<(usize, usize)> {
    let all = store.judgments(session)?;
    let mut failures = 0;
    for (_, body) in &all {
        let value: serde_json::Value = serde_json::from_str(body)?;
        if !value["parse_error"].is_null() {
            failures += 1;
        }
    }
    Ok((all.len(), failures))
}

/// How the end of a run went for the process that called [`finish`].
pub struct Finish {
    /// The run's last event, for the process that ended it.
    pub event: Option<Live>,
    /// A cascade's next judge's run, queued (by this process or before): its queue and spec.
    pub next: Option<(String, RunSpec)>,
}

/// The reproducibility record of a judge's run, as the process that judged it stores it: the
/// run's start (unix seconds, as text) and the record's JSON.
pub struct Record<'a> {
    pub started_at: &'a str,
    pub json: &'a str,
}

/// Ends the queued run `queue` of `spec` once its units are all done: a served run's judgments
/// become datasets of its session; a cascade's judge queues the next judge's run on the items
/// it passes on or, the last, adds the cascade's files ([`cascade::end_tier`]); then `record`
/// is stored, and then the `Escalated` or `Finished` event. In that order a session read after
/// a judge's record holds that judge's datasets, and one read after the last event holds them
/// all (the page reads the session again at a run's end unless the session it shows has every
/// judge's record). The event is returned to the caller that ended the run; `None` when
/// another process had ended it (or the run has no stream).
pub fn finish(
    store: &Store,
    queue: &str,
    spec: &RunSpec,
    record: Option<Record>,
) -> Result<Finish> {
    if spec.stream.is_some() {
        save_judgments(store, &spec.session, &spec.source, &spec.bytes)
            .context("the run's judgments could not be saved as datasets of the session")?;
    }
    let tier = spec
        .cascade
        .as_ref()
        .map(|cascade| cascade::end_tier(store, queue, spec, cascade).map(|end| (cascade, end)))
        .transpose()?;
    if let Some(record) = record {
        store.put_run(&spec.session, record.started_at, record.json)?;
    }
    let Some(stream) = &spec.stream else {
        store.end_run(queue, None)?;
        return Ok(Finish {
            event: None,
            next: tier.and_then(|(_, end)| end.next),
        });
    };
    let seconds = store.run_seconds(queue)?;
    let (end, next) = match tier {
        Some((
            _,
            TierEnd {
                outcome,
                next: Some((queue, next)),
            },
        )) => (
            RunEvent::Escalated {
                tier: outcome,
                next_total: u32::try_from(next.total())?,
                seconds,
            },
            Some((queue, next)),
        ),
        Some((
            cascade,
            TierEnd {
                outcome,
                next: None,
            },
        )) => {
            let (mut judgments, mut failures) = (0, 0);
            for k in 0..=cascade.tier {
                let (n, f) = stored_counts(store, &cascade.session(k))?;
                judgments += n;
                failures += f;
            }
            (finished(judgments, failures, seconds, Some(outcome))?, None)
        }
        None => {
            let (judgments, failures) = stored_counts(store, &spec.session)?;
            (finished(judgments, failures, seconds, None)?, None)
        }
    };
    Ok(Finish {
        event: end_with(store, queue, stream, end)?,
        next,
    })
}

fn finished(
    judgments: usize,
    failures: usize,
    seconds: f64,
    tier: Option<TierOutcome>,
) -> Result<RunEvent> {
    Ok(RunEvent::Finished {
        judgments: u32::try_from(judgments)?,
        parse_failures: u32::try_from(failures)?,
        seconds,
        tier,
    })
}

/// Ends the run `queue` as failed with `message`, unless it has ended already.
pub fn fail(store: &Store, queue: &str, stream: &str, message: String) -> Result<Option<Live>> {
    end_with(store, queue, stream, RunEvent::Failed { message })
}

fn end_with(store: &Store, queue: &str, stream: &str, end: RunEvent) -> Result<Option<Live>> {
    let body = serde_json::to_string(&end)?;
    let ended = store.end_run(
        queue,
        Some(NewEvent {
            stream,
            body: &body,
        }),
    )?;
    Ok(ended.and_then(|e| e.event).map(|stored| Live {
        stream: stream.to_owned(),
        event_id: stored.id,
        seq: stored.seq,
        event: end,
    }))
}

/// Adds the judgments stored under `run_key` (`<session id>:<run>`) on the items file `items`
/// to the session as datasets ([`run_datasets`]): what its analyses read. Adding a dataset the
/// session holds already keeps it, so two processes ending one run store each once.
fn save_judgments(store: &Store, run_key: &str, items: &str, items_bytes: &[u8]) -> Result<()> {
    let session = run_key.split(':').next().unwrap_or(run_key);
    let judgments: Vec<String> = store
        .judgments(run_key)?
        .into_iter()
        .map(|(_, body)| body)
        .collect();
    for dataset in run_datasets(&judgments, items, items_bytes)? {
        let meta = check_dataset(dataset.kind, &dataset.name, &dataset.bytes)?.meta;
        store.add_dataset(session, &meta, &dataset.bytes)?;
    }
    Ok(())
}

/// The event of one stored judgment (its JSON as `tribunal judge` writes it: the verdict, the
/// rationale, p_s and the judge's preference for the file's `response`, the models), with `head`'s
/// output when the judgment has what the head reads: the rationale's embedding, and p(`A`)
/// for a BTL head or a parsed score for an LS head.
pub fn judgment_event(body: &str, total: u32, head: Option<&Head>) -> Result<RunEvent> {
    let v: serde_json::Value = serde_json::from_str(body)?;
    let text = |key: &str| v[key].as_str().map(str::to_owned);
    let calibrated = match head {
        Some(head) => {
            let embedding: Option<Vec<f64>> = v["embedding"]
                .as_array()
                .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect());
            let signal = match head {
                Head::Btl(_) => v["label_probs"]["A"].as_f64(),
                _ => v["label"].as_str().and_then(|l| l.parse().ok()),
            };
            match (embedding, signal) {
                (Some(e), Some(signal)) => {
                    let out = head.predict_one(&e, signal)?;
                    let swapped = matches!(head, Head::Btl(_)) && v["order"] == "ba";
                    Some(if swapped { 1.0 - out } else { out })
                }
                _ => None,
            }
        }
        None => None,
    };
    let label_probs: Vec<(String, f64)> = v["label_probs"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(l, p)| p.as_f64().map(|p| (l.clone(), p)))
                .collect()
        })
        .unwrap_or_default();
    let models = match (text("model"), text("model_b")) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    Ok(RunEvent::Judgment(Box::new(JudgmentEvent {
        calibrated,
        total,
        generated_tokens: v["generated_tokens"]
            .as_u64()
            .and_then(|t| u32::try_from(t).ok())
            .unwrap_or_default(),
        rationale: text("feedback").or_else(|| text("raw")).unwrap_or_default(),
        preference: preference(&label_probs, v["order"] == "ba"),
        label_probs,
        models,
        injection: v["injection"]
            .as_array()
            .map(|flags| {
                flags
                    .iter()
                    .map(|f| {
                        format!(
                            "{}: {}",
                            f["field"].as_str().unwrap_or_default(),
                            f["kind"].as_str().unwrap_or_default()
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        blank: v["blank"]
            .as_array()
            .map(|fields| {
                fields
                    .iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        item: text("id").unwrap_or_default(),
        order: text("order").unwrap_or_default(),
        repeat: v["repeat"]
            .as_u64()
            .and_then(|r| u32::try_from(r).ok())
            .unwrap_or_default(),
        variant: text("variant").unwrap_or_default(),
        label: text("label"),
        winner: text("winner"),
        parse_error: text("parse_error"),
        seconds: v["seconds"].as_f64().unwrap_or_default(),
    })))
}
