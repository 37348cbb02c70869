//! A judge run of a session, live: the page watches the run's event stream over the WebSocket
//! (stored events first, then each judgment as the worker stores it) and shows the progress
//! (stored, unparsed and total judgments, the judge's tokens per second, the time left at the
//! mean time per judgment so far), each judgment as it arrives (verdict, rationale, p_s), and,
//! when the items name their models, a running leaderboard: Bradley–Terry on the judgments so
//! far with the judge's preference for the first model as a soft target (seed 002), fitted in
//! the statistics web worker after each judgment. A judgment of an item whose response shows
//! nothing is flagged, and the progress line counts them. A cascade (`[escalate]`) shows each
//! judge as it finishes: its threshold, the items it kept and passed on, and to whom; its
//! later judges' judgments add to the progress. If the socket drops, it reconnects
//! after a second from the last event it showed, so nothing is missed or shown twice.

use crate::format::fixed;
use crate::glossary::term;
use crate::live::open_socket;
use crate::worker_pool::WorkerPool;
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::Message;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::rankings::leaderboard::Leaderboard;
use tribunal::sessions::protocol::{
    decode, encode, ClientMessage, JudgmentEvent, RunEvent, ServerMessage, TierOutcome,
};
use tribunal_app::stats_worker::{Job, Reply};

/// One judgment as shown.
#[derive(Debug, Clone)]
struct Shown {
    item: String,
    /// The order, with the repeat and the prompt variation when not the first.
    order: String,
    verdict: String,
    rationale: String,
    /// p_s, `label p` pairs.
    probabilities: String,
}

/// What the page knows of a run.
#[derive(Debug, Clone, Default)]
struct Progress {
    last_event: i64,
    total: u32,
    judged: Vec<Shown>,
    parse_failures: u32,
    /// Judgments of items with a blank response.
    blank: u32,
    generated_tokens: u64,
    /// The judge's time over the judgments shown.
    seconds: f64,
    /// (model of `response`, model of `response_b`, preference for `response`): the first
    /// judge's, as a cascade's later judges see only the items passed on.
    battles: Vec<(String, String, f64)>,
    /// A cascade's judges that have finished, in order.
    tiers: Vec<TierOutcome>,
    /// The judgments of a cascade's judges before the one judging now.
    judged_before: u32,
    end: Option<String>,
}

impl Progress {
    /// `tokens/s · ETA` over the judgments so far.
    fn rates(&self) -> String {
        let done = self.judged.len();
        if done == 0 || self.seconds <= 0.0 {
            return String::new();
        }
        let per_judgment = self.seconds / done as f64;
        let left = f64::from(self.total).max(done as f64) - done as f64;
        format!(
            " · {} tokens/s · ETA {} s",
            fixed(self.generated_tokens as f64 / self.seconds, 1),
            fixed(left * per_judgment, 0)
        )
    }
}

/// Watches `stream` and renders it. When the run has ended, `on_end` runs with the stream if
/// the session shown holds fewer than one record per judge of the run (`records`): it was read
/// before the run's end, so its datasets and records are not all there.
#[component]
pub fn RunWatch(stream: String, records: usize, on_end: Callback<String>) -> impl IntoView {
    let progress = RwSignal::new(Progress::default());
    let status = RwSignal::new("connecting…".to_owned());
    let board = RwSignal::new(None::<Result<Leaderboard, String>>);
    // The battles fitted last and whether a fit is running, so that at most one runs and the
    // last judgment is always fitted.
    let fitted = StoredValue::new(0usize);
    let fitting = StoredValue::new(false);
    // Spawned with the first judgment that is a battle, owned by this view (not by the effect
    // that spawns it, which would dispose of it when it runs again).
    let worker = StoredValue::new_local(None::<WorkerPool>);
    let owner = Owner::current();
    let refit = move || {
        let battles = progress.with_untracked(|p| p.battles.clone());
        if fitting.get_value() || battles.len() == fitted.get_value() || battles.is_empty() {
            return;
        }
        fitting.set_value(true);
        fitted.set_value(battles.len());
        let pool = worker.get_value().unwrap_or_else(|| {
            let spawn = || {
                WorkerPool::spawn(1, move |reply| {
                    if let Reply::Fitted { result, .. } = reply {
                        board.set(Some(result));
                        fitting.set_value(false);
                        let pending = progress.with_untracked(|p| p.battles.len());
                        if pending != fitted.get_value() {
                            progress.update(|_| ());
                        }
                    }
                })
            };
            let pool = owner.as_ref().map_or_else(spawn, |owner| owner.with(spawn));
            worker.set_value(Some(pool));
            pool
        });
        let request = pool.begin();
        pool.send(0, Job::Board { request, battles });
    };
    Effect::new(move |_| {
        progress.track();
        refit();
    });
    {
        let stream = stream.clone();
        spawn_local(async move {
            loop {
                let after = progress.with_untracked(|p| p.last_event);
                match watch(&stream, after, progress).await {
                    Ok(()) if progress.with_untracked(|p| p.end.is_some()) => {
                        let judges = progress.with_untracked(|p| p.tiers.len().max(1));
                        if records < judges {
                            on_end.run(stream.clone());
                        }
                        return;
                    }
                    Ok(()) => status.set("connection closed; reconnecting…".to_owned()),
                    Err(message) => status.set(format!("{message}; reconnecting…")),
                }
                sleep_ms(1000).await;
            }
        });
    }
    let key = stream.rsplit(':').next().unwrap_or_default().to_owned();
    view! {
        <div class="run" data-stream=stream.clone()>
            <h4>{format!("Judge run {key}")}</h4>
            <RunStatus progress status />
            <CascadeTiers progress />
            {move || board.get().map(|result| match result {
                Ok(lb) => view! { <RunBoard lb /> }.into_any(),
                Err(message) => view! { <p class="error run-board-error">{message}</p> }.into_any(),
            })}
        </div>
    }
}

async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Reads `stream`'s events after `after` into `progress` until the run ends or the socket
/// closes.
async fn watch(stream: &str, after: i64, progress: RwSignal<Progress>) -> Result<(), String> {
    let (mut tx, mut rx) = open_socket()?.split();
    let request = ClientMessage::Watch {
        stream: stream.to_owned(),
        after,
    };
    tx.send(Message::Text(encode(&request)))
        .await
        .map_err(|e| e.to_string())?;
    while let Some(message) = rx.next().await {
        let Message::Text(text) = message.map_err(|e| e.to_string())? else {
            continue;
        };
        let Ok(ServerMessage::Run {
            event_id, event, ..
        }) = decode::<ServerMessage>(&text)
        else {
            continue;
        };
        let finished = matches!(event, RunEvent::Finished { .. } | RunEvent::Failed { .. });
        progress.update(|p| {
            p.last_event = event_id;
            match event {
                RunEvent::Started { total } => {
                    p.total = total;
                    p.end = None;
                }
                RunEvent::Judgment(judgment) => {
                    let JudgmentEvent {
                        total,
                        item,
                        order,
                        repeat,
                        variant,
                        label,
                        winner,
                        parse_error,
                        seconds,
                        generated_tokens,
                        rationale,
                        label_probs,
                        preference,
                        models,
                        injection,
                        blank,
                        calibrated,
                    } = *judgment;
                    let mut shown = order;
                    if repeat > 0 {
                        shown.push_str(&format!(" · repeat {repeat}"));
                    }
                    if !variant.is_empty() {
                        shown.push_str(&format!(" · {variant}"));
                    }
                    p.total = p.judged_before + total;
                    if parse_error.is_some() {
                        p.parse_failures += 1;
                    }
                    if !blank.is_empty() {
                        p.blank += 1;
                    }
                    p.generated_tokens += u64::from(generated_tokens);
                    p.seconds += seconds;
                    if let (Some((a, b)), Some(y), true) = (models, preference, p.tiers.is_empty()) {
                        p.battles.push((a, b, y));
                    }
                    let verdict = match (label, winner, parse_error) {
                        (_, Some(w), _) => format!("winner {w}"),
                        (Some(l), None, _) => l,
                        (None, None, e) => format!("unparsed: {}", e.unwrap_or_default()),
                    };
                    let verdict = match calibrated {
                        Some(c) => format!("{verdict} · calibrated {c:.3}"),
                        None => verdict,
                    };
                    let verdict = if injection.is_empty() {
                        verdict
                    } else {
                        format!("{verdict} · ⚠ injection? {}", injection.join(", "))
                    };
                    let verdict = if blank.is_empty() {
                        verdict
                    } else {
                        format!("{verdict} · ⚠ empty {}", blank.join(" and "))
                    };
                    let probabilities = label_probs
                        .iter()
                        .map(|(l, q)| format!("{l} {}", fixed(*q, 3)))
                        .collect::<Vec<_>>()
                        .join(" · ");
                    p.judged.push(Shown {
                        item,
                        order: shown,
                        verdict,
                        rationale,
                        probabilities,
                    });
                }
                RunEvent::Escalated {
                    tier, next_total, ..
                } => {
                    if p.tiers.iter().all(|t| t.tier != tier.tier) {
                        p.judged_before = p.total;
                        p.total += next_total;
                        p.tiers.push(tier);
                    }
                }
                RunEvent::Finished {
                    judgments,
                    parse_failures,
                    seconds,
                    tier,
                } => {
                    if let Some(tier) = tier.filter(|t| p.tiers.iter().all(|s| s.tier != t.tier)) {
                        p.tiers.push(tier);
                    }
                    p.end = Some(format!(
                        "finished: {judgments} judgments ({parse_failures} unparsed) in {seconds:.1} s"
                    ));
                }
                RunEvent::Failed { message } => p.end = Some(format!("failed: {message}")),
            }
        });
        if finished {
            return Ok(());
        }
    }
    Ok(())
}

/// A run's progress line (stored, unparsed, total, rates; the counts in data attributes) and
/// its last eight judgments.
#[component]
fn RunStatus(progress: RwSignal<Progress>, status: RwSignal<String>) -> impl IntoView {
    move || {
        let p = progress.get();
        let done = p.judged.len();
        let blank = match p.blank {
            0 => String::new(),
            n => format!(" · {n} of them on an empty response"),
        };
        let summary = match &p.end {
            Some(end) => format!("{end}{blank}{}", p.rates()),
            None if p.total == 0 => status.get(),
            None => format!(
                "judging: {done} / {} stored, {} unparsed{blank}{}",
                p.total,
                p.parse_failures,
                p.rates()
            ),
        };
        let tokens_per_second = if p.seconds > 0.0 {
            p.generated_tokens as f64 / p.seconds
        } else {
            0.0
        };
        view! {
            <p class="run-status" data-judged=done.to_string() data-total=p.total.to_string()
                data-unparsed=p.parse_failures.to_string() data-blank=p.blank.to_string()
                data-tokens-per-second=tokens_per_second.to_string()
                data-finished=p.end.is_some().to_string()>
                <progress max=p.total.max(1) value=done></progress>
                " " {summary}
            </p>
            <table tabindex="0" class="ratings run-judgments">
                <thead><tr><th>"Item"</th><th>"Order"</th><th>"Verdict"</th><th>{term("p-s", "p_s")}</th><th>"Rationale"</th></tr></thead>
                <tbody>
                    {p.judged.iter().rev().take(8).map(|j| view! {
                        <tr>
                            <td>{j.item.clone()}</td><td>{j.order.clone()}</td><td>{j.verdict.clone()}</td>
                            <td class="run-probs">{j.probabilities.clone()}</td>
                            <td class="run-rationale">{j.rationale.chars().take(240).collect::<String>()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        }
    }
}

/// A cascade's judges so far: what each kept and where it passed the rest.
#[component]
fn CascadeTiers(progress: RwSignal<Progress>) -> impl IntoView {
    move || {
        let tiers = progress.with(|p| p.tiers.clone());
        (!tiers.is_empty()).then(|| view! {
            <table tabindex="0" class="ratings run-cascade">
                <caption>"The cascade: each judge keeps the items it is at least this confident on and passes the rest on"</caption>
                <thead><tr><th>"Judge"</th><th>"Threshold"</th><th>"Items"</th><th>"Kept"</th><th>"Passed on"</th><th>"To"</th></tr></thead>
                <tbody>
                    {tiers.into_iter().map(|t| view! {
                        <tr data-tier=t.tier.to_string() data-kept=t.kept.to_string() data-passed=t.passed_on.to_string()>
                            <td>{format!("{}. {}", t.tier, t.judge)}</td><td>{fixed(t.threshold, 3)}</td>
                            <td>{t.items}</td><td>{t.kept}</td><td>{t.passed_on}</td>
                            <td>{if t.to == "people" { "people (the session's to-people file)".to_owned() } else { t.to }}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        })
    }
}

/// The running leaderboard of a run's judgments so far.
#[component]
fn RunBoard(lb: Leaderboard) -> impl IntoView {
    view! {
        <table tabindex="0" class="ratings run-board" data-battles=lb.n_battles.to_string()>
            <caption>{format!(
                "Running leaderboard: Bradley–Terry on {} judgments, the judge's preference as a soft target",
                lb.n_battles
            )}</caption>
            <thead><tr><th>"Rank"</th><th>"Model"</th><th>"Elo"</th><th>"SE"</th><th>"Judgments"</th></tr></thead>
            <tbody>
                {lb.ratings.iter().map(|r| view! {
                    <tr data-model=r.model.clone() data-elo=r.elo.to_string() data-se=r.se.map_or("NaN".to_owned(), |se| se.to_string())>
                        <td>{r.rank}</td><td>{r.model.clone()}</td><td>{fixed(r.elo, 1)}</td>
                        <td>{r.se.map_or("—".to_owned(), |se| fixed(se, 1))}</td><td>{r.battles}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
