//! A judge run of a session, live: the page watches the run's event stream over the WebSocket
//! (stored events first, then each judgment as the worker stores it) and shows the progress,
//! the latest judgments and the run's end. If the socket drops, it reconnects after a second
//! from the last event it showed, so nothing is missed or shown twice.

use crate::live::open_socket;
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::Message;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::protocol::{decode, encode, ClientMessage, RunEvent, ServerMessage};

/// What the page knows of a run.
#[derive(Debug, Clone, Default)]
struct Progress {
    last_event: i64,
    total: u32,
    judged: Vec<(String, String, String)>,
    parse_failures: u32,
    end: Option<String>,
}

/// Watches `stream` and renders it.
#[component]
pub fn RunWatch(stream: String) -> impl IntoView {
    let progress = RwSignal::new(Progress::default());
    let status = RwSignal::new("connecting…".to_owned());
    {
        let stream = stream.clone();
        spawn_local(async move {
            loop {
                let after = progress.with_untracked(|p| p.last_event);
                match watch(&stream, after, progress).await {
                    Ok(()) if progress.with_untracked(|p| p.end.is_some()) => return,
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
            {move || {
                let p = progress.get();
                let done = p.judged.len();
                let summary = match &p.end {
                    Some(end) => end.clone(),
                    None if p.total == 0 => status.get(),
                    None => format!("judging: {done} / {} stored, {} unparsed", p.total, p.parse_failures),
                };
                view! {
                    <p class="run-status" data-judged=done.to_string() data-total=p.total.to_string()
                        data-finished=p.end.is_some().to_string()>
                        <progress max=p.total.max(1) value=done></progress>
                        " " {summary}
                    </p>
                    <table class="ratings run-judgments">
                        <thead><tr><th>"Item"</th><th>"Order"</th><th>"Verdict"</th></tr></thead>
                        <tbody>
                            {p.judged.iter().rev().take(8).map(|(item, order, verdict)| view! {
                                <tr><td>{item.clone()}</td><td>{order.clone()}</td><td>{verdict.clone()}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }
            }}
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
                RunEvent::Judgment {
                    total,
                    item,
                    order,
                    repeat,
                    variant,
                    label,
                    winner,
                    parse_error,
                    calibrated,
                    ..
                } => {
                    // The order, with the repeat and the prompt variation when not the first.
                    let mut shown = order;
                    if repeat > 0 {
                        shown.push_str(&format!(" · repeat {repeat}"));
                    }
                    if !variant.is_empty() {
                        shown.push_str(&format!(" · {variant}"));
                    }
                    p.total = total;
                    if parse_error.is_some() {
                        p.parse_failures += 1;
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
                    p.judged.push((item, shown, verdict));
                }
                RunEvent::Finished {
                    judgments,
                    parse_failures,
                    seconds,
                } => {
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
