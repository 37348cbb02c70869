//! The live panel: a WebSocket to the worker that streams seeded demo battles; each event is
//! shown as it arrives and the running leaderboard is refitted on this device.

use crate::leaderboard::LeaderboardView;
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::rankings::battles::Battles;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::leaderboard::bradley_terry_leaderboard;
use tribunal::sessions::protocol::{decode, encode, ClientMessage, ServerMessage};

/// The demo request: fixed seed, so every visitor sees the same stream.
const DEMO: ClientMessage = ClientMessage::StartDemo {
    seed: 42,
    battles: 40,
    interval_ms: 50,
};

#[derive(Clone, PartialEq)]
struct Event {
    seq: u32,
    model_a: String,
    model_b: String,
    y: f64,
}

#[component]
pub fn LivePanel() -> impl IntoView {
    let status = RwSignal::new("connecting to the worker…".to_owned());
    let events = RwSignal::new(Vec::<Event>::new());
    let board = Memo::new(move |_| {
        events.with(|events| {
            if events.is_empty() {
                return None;
            }
            let battles = Battles::from_named(
                events
                    .iter()
                    .map(|e| (e.model_a.as_str(), e.model_b.as_str(), e.y)),
            );
            bradley_terry_leaderboard("live demo", &battles, &BradleyTerryParams::default()).ok()
        })
    });
    spawn_local(async move {
        if let Err(message) = stream(status, events).await {
            status.set(format!("worker not connected: {message}"));
        }
    });

    view! {
        <section id="live" class="card">
            <h2>"Live from the worker"</h2>
            <p class="hint">
                "A WebSocket stream of simulated battles (seed 42), stored by the worker and refitted here as they arrive."
            </p>
            <p id="live-status" class="status">{move || status.get()}</p>
            <p>
                "Events received: " <strong id="live-count">{move || events.with(Vec::len)}</strong>
            </p>
            <ol id="live-events" class="events">
                {move || {
                    events
                        .get()
                        .into_iter()
                        .rev()
                        .take(5)
                        .map(|e| {
                            let verdict = if e.y == 1.0 {
                                format!("{} beat {}", e.model_a, e.model_b)
                            } else if e.y == 0.0 {
                                format!("{} beat {}", e.model_b, e.model_a)
                            } else {
                                format!("{} tied {}", e.model_a, e.model_b)
                            };
                            view! { <li>{format!("#{} {verdict}", e.seq)}</li> }
                        })
                        .collect_view()
                }}
            </ol>
            {move || board.get().map(|lb| view! { <LeaderboardView lb /> })}
        </section>
    }
}

/// A WebSocket to the worker that served this page.
pub fn open_socket() -> Result<WebSocket, String> {
    let location = web_sys::window().ok_or("no window")?.location();
    let scheme = match location.protocol().map_err(|e| format!("{e:?}"))?.as_str() {
        "https:" => "wss",
        _ => "ws",
    };
    let host = location.host().map_err(|e| format!("{e:?}"))?;
    WebSocket::open(&format!("{scheme}://{host}/ws")).map_err(|e| e.to_string())
}

async fn stream(status: RwSignal<String>, events: RwSignal<Vec<Event>>) -> Result<(), String> {
    let (mut tx, mut rx) = open_socket()?.split();
    tx.send(Message::Text(encode(&DEMO)))
        .await
        .map_err(|e| e.to_string())?;
    while let Some(message) = rx.next().await {
        let text = match message.map_err(|e| e.to_string())? {
            Message::Text(text) => text,
            Message::Bytes(_) => continue,
        };
        match decode::<ServerMessage>(&text) {
            Ok(ServerMessage::Hello { server, protocol }) => {
                status.set(format!("connected to {server} (protocol v{protocol})"));
            }
            Ok(ServerMessage::Battle {
                seq,
                model_a,
                model_b,
                y,
                ..
            }) => events.update(|v| {
                v.push(Event {
                    seq,
                    model_a,
                    model_b,
                    y,
                })
            }),
            Ok(ServerMessage::Done { total }) => {
                status.set(format!("demo finished: {total} events stored and received"));
            }
            Ok(ServerMessage::Error { message }) => status.set(format!("worker error: {message}")),
            // Run events come only to a page that watches a run (`runs.rs`).
            Ok(ServerMessage::Run { .. }) => {}
            Err(error) => status.set(format!("protocol error: {error}")),
        }
    }
    Ok(())
}
