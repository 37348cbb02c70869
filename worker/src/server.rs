//! `tribunal serve`: the built app at `/` (every other path, e.g. `/s/<id>`, is the app's
//! `index.html`), `GET /api/health` (its `app_compressed` says whether every compressed copy of
//! the app is made yet; its `judges`, what a run started from the page may use: `local`, whether
//! the local model is installed, and `fleets`, the servers the operator allows), the sessions API ([`crate::sessions`]) and the WebSocket
//! at `/ws`. An unknown `/api` path is a JSON 404, never the app.
//!
//! WebSocket: the server greets with [`ServerMessage::Hello`]; a [`ClientMessage::StartDemo`]
//! streams seeded demo battles, each stored before it is sent.
//!
//! Policy: static files come only from `dist/`, held in memory ([`crate::assets`]: a path that
//! names no file there is the app's `index.html`, never another file); every answer carries the
//! app's Content-Security-Policy and `nosniff`/`no-referrer` headers; no CORS headers are sent, so other origins' pages cannot
//! read answers or send credentialed writes; every HTTP request and WebSocket client is held to
//! [`Limits`]. Logs name the store without its password and never carry tokens.

use crate::assets::Assets;
use crate::demo::demo_battles;
use crate::engine::Fleet;
use crate::judge::events::Live;
use crate::judge::EngineArgs;
use crate::limits::{ClientRates, Limits, RateBucket};
use crate::runs::Runs;
use crate::sessions;
use crate::store::{Part, Store, StoreArgs};
use anyhow::{Context, Result};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::map_response;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::timeout::TimeoutLayer;
use tribunal::judging::judge_config::BackendConfig;
use tribunal::sessions::protocol::{
    decode, encode, ClientMessage, RunEvent, ServerMessage, PROTOCOL_VERSION,
};

/// Where to listen, store and find the built app, and what runs the judge.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub store: StoreArgs,
    pub dist: PathBuf,
    pub engine: EngineArgs,
    pub fleets: Vec<Fleet>,
    pub limits: Limits,
}

#[derive(Clone)]
struct AppState {
    store: Store,
    assets: Arc<Assets>,
    runs: Runs,
    limits: Limits,
    started_ms: u128,
    connections: Arc<AtomicU64>,
    /// The judges a run started from the page may use: whether the local model is installed,
    /// and the fleets the operator allows (`--fleet`).
    judges: Arc<serde_json::Value>,
}

/// Runs the server until Ctrl-C. Prints `Tribunal is serving at http://ADDR/` once listening.
pub async fn serve(config: ServeConfig) -> Result<()> {
    let assets = Assets::load(&config.dist)?;
    let store = config.store.open()?;
    tracing::info!(
        store = config.store.describe(),
        backend = store.backend(),
        schema = store.schema_version()?,
        "store open"
    );

    config.limits.check()?;
    let runs = Runs::new(store.clone(), config.engine.clone());
    let limits = config.limits.clone();
    let state = AppState {
        store,
        assets: assets.clone(),
        runs,
        limits: limits.clone(),
        started_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
        connections: Arc::new(AtomicU64::new(0)),
        judges: Arc::new(serde_json::json!({
            "local": config.engine.check_backend(&BackendConfig::Local).is_ok(),
            "fleets": config.fleets.iter().map(|f| f.url.clone()).collect::<Vec<_>>(),
        })),
    };
    let api = Router::new()
        .route("/health", get(health))
        .with_state(state.clone())
        .merge(sessions::router(sessions::Sessions {
            store: state.store.clone(),
            runs: state.runs.clone(),
            limits: limits.clone(),
            fleets: Arc::new(config.fleets.clone()),
            uploads: Arc::default(),
            rates: ClientRates::new(limits.clone()),
        }))
        .fallback(sessions::unknown_api_route)
        // Answers (a dataset, an export) are compressed on the fly, quickly: they are made once.
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(5)));
    // Every HTTP request is timed and its limit errors explained; the WebSocket is not timed.
    let http = Router::new()
        .nest("/api", api)
        .fallback({
            let (assets, store) = (assets.clone(), state.store.clone());
            move |method: Method, uri: Uri, headers: HeaderMap| async move {
                // Off the runtime's threads: the first answer in a coding reads and checks its
                // kept compressed copy (a second or so for the largest file on a slow machine).
                let answering = assets.clone();
                let path = uri.path().to_owned();
                let answered =
                    tokio::task::spawn_blocking(move || answering.answer(&method, &path, &headers))
                        .await;
                let Ok(mut response) = answered else {
                    return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                };
                if response.status() == StatusCode::OK && share_link_gone(&store, uri.path()) {
                    *response.status_mut() = StatusCode::GONE;
                }
                response
            }
        })
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout(),
        ))
        .layer(map_response(move |response| {
            let limits = limits.clone();
            async move { limits.explain(response) }
        }));
    let policy = HeaderValue::from_str(assets.policy())?;
    let app = Router::new()
        .route("/ws", get(websocket))
        .with_state(state)
        .merge(http)
        .layer(map_response(
            move |mut response: axum::response::Response| {
                let policy = policy.clone();
                async move {
                    let h = response.headers_mut();
                    h.entry(header::CONTENT_SECURITY_POLICY).or_insert(policy);
                    h.insert(
                        header::X_CONTENT_TYPE_OPTIONS,
                        HeaderValue::from_static("nosniff"),
                    );
                    h.insert(
                        header::REFERRER_POLICY,
                        HeaderValue::from_static("no-referrer"),
                    );
                    response
                }
            },
        ));

    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("binding {}", config.addr))?;
    let local = listener.local_addr()?;
    // Told on stdout for scripts that wait for it; a closed stdout does not stop the server.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "Tribunal is serving at http://{local}/").and_then(|()| out.flush());
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}

/// Whether `path` is the share link of a session (`/s/<id>`) or a saved analysis
/// (`/s/<id>/a/<analysis>`) that its owner deleted: the app still loads (and says so), under
/// 410 Gone.
fn share_link_gone(store: &Store, path: &str) -> bool {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let deleted = |id: &str, part: Part| store.deleted(id, &part).unwrap_or(false);
    match parts.as_slice() {
        ["s", id] => deleted(id, Part::Session),
        ["s", id, "a", analysis] => deleted(id, Part::Analysis((*analysis).to_owned())),
        _ => false,
    }
}

async fn health(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "protocol": PROTOCOL_VERSION,
        "schema": state.store.schema_version().ok(),
        "app_compressed": state.assets.compressed(),
        "judges": *state.judges,
    }))
}

async fn websocket(ws: WebSocketUpgrade, State(state): State<AppState>) -> impl IntoResponse {
    let most = state.limits.ws_max_message_bytes;
    ws.max_message_size(most)
        .max_frame_size(most)
        .on_upgrade(move |socket| connection(socket, state))
}

async fn send(ws: &mut WebSocket, message: &ServerMessage) -> Result<()> {
    ws.send(Message::Text(encode(message).into())).await?;
    Ok(())
}

async fn connection(mut ws: WebSocket, state: AppState) {
    let id = state.connections.fetch_add(1, Ordering::Relaxed);
    let hello = ServerMessage::Hello {
        server: format!("tribunal {}", env!("CARGO_PKG_VERSION")),
        protocol: PROTOCOL_VERSION,
    };
    if send(&mut ws, &hello).await.is_err() {
        return;
    }
    let mut bucket = RateBucket::new(state.limits.ws_messages_per_second);
    while let Some(received) = ws.recv().await {
        let message = match received {
            Ok(message) => message,
            Err(error) => {
                let message = format!(
                    "closing the connection: {error} (a message may be at most {} bytes)",
                    state.limits.ws_max_message_bytes
                );
                let _ = send(&mut ws, &ServerMessage::Error { message }).await;
                return;
            }
        };
        let text = match message {
            Message::Text(text) => text,
            Message::Close(_) => return,
            _ => continue,
        };
        if !bucket.take() {
            let message = format!(
                "closing the connection: more than {} messages per second",
                state.limits.ws_messages_per_second
            );
            let _ = send(&mut ws, &ServerMessage::Error { message }).await;
            let _ = ws.send(Message::Close(None)).await;
            return;
        }
        let outcome = match decode::<ClientMessage>(text.as_str()) {
            Ok(ClientMessage::StartDemo {
                seed,
                battles,
                interval_ms,
            }) => {
                let stream = format!("demo-{}-{id}", state.started_ms);
                stream_demo(&mut ws, &state.store, &stream, seed, battles, interval_ms).await
            }
            Ok(ClientMessage::Watch { stream, after }) => {
                watch(&mut ws, &state.runs, &stream, after).await
            }
            Err(error) => {
                send(
                    &mut ws,
                    &ServerMessage::Error {
                        message: error.to_string(),
                    },
                )
                .await
            }
        };
        if let Err(error) = outcome {
            tracing::warn!(connection = id, %error, "connection ended");
            return;
        }
    }
}

async fn send_live(ws: &mut WebSocket, live: Live) -> Result<()> {
    send(
        ws,
        &ServerMessage::Run {
            stream: live.stream,
            event_id: live.event_id,
            seq: live.seq,
            event: live.event,
        },
    )
    .await
}

/// Where a watcher is in its stream: the last event id sent, the seq it expects next (once it
/// knows one), and whether the run's end was sent.
struct Watched {
    last: i64,
    next_seq: Option<u32>,
    ended: bool,
}

impl Watched {
    /// Sends the `events` after the last one sent, in order.
    async fn send(&mut self, ws: &mut WebSocket, events: Vec<Live>) -> Result<()> {
        for event in events {
            if event.event_id > self.last {
                self.last = event.event_id;
                self.next_seq = Some(event.seq + 1);
                self.ended |= matches!(
                    event.event,
                    RunEvent::Finished { .. } | RunEvent::Failed { .. }
                );
                send_live(ws, event).await?;
            }
        }
        Ok(())
    }

    /// Whether `event` is the one this watcher sends next: else others stored before it (by
    /// another process) are read back from the store first.
    fn follows(&self, event: &Live) -> bool {
        self.next_seq == Some(event.seq)
    }
}

/// How often a watcher reads its stream back from the store when no event of it came live:
/// events stored by another process (several `tribunal serve`, or `tribunal work`, on one
/// store) reach it so.
const POLL: Duration = Duration::from_millis(500);

/// Sends the stored events of `stream` after `after`, then the new ones, until the client
/// closes the connection. A stream's seqs are dense and its ids grow with them in commit order
/// ([`crate::store::Storage::append_event`]), whichever process stores them: an event this
/// process broadcasts goes out at once when it is the next seq, and otherwise (events of
/// another process came between, or the watcher fell behind the broadcast) the store is read
/// back from the last id sent, so nothing is skipped or repeated. A stream silent here for a
/// poll interval is read back too, until the run's end has been sent.
async fn watch(ws: &mut WebSocket, runs: &Runs, stream: &str, after: i64) -> Result<()> {
    let mut live = runs.subscribe();
    let mut watched = Watched {
        last: after,
        next_seq: None,
        ended: false,
    };
    watched.send(ws, runs.replay(stream, after)?).await?;
    let mut poll = tokio::time::interval(POLL);
    let mut heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            received = live.recv() => match received {
                Ok(event) if event.stream == stream => {
                    heard = tokio::time::Instant::now();
                    let events = if watched.follows(&event) {
                        vec![event]
                    } else {
                        runs.replay(stream, watched.last)?
                    };
                    watched.send(ws, events).await?;
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    watched.send(ws, runs.replay(stream, watched.last)?).await?;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
            },
            _ = poll.tick(), if !watched.ended => {
                if heard.elapsed() >= POLL {
                    watched.send(ws, runs.replay(stream, watched.last)?).await?;
                }
            }
            message = ws.recv() => match message {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Ok(()),
                Some(Ok(_)) => {}
            },
        }
    }
}

async fn stream_demo(
    ws: &mut WebSocket,
    store: &Store,
    stream: &str,
    seed: u64,
    count: u32,
    interval_ms: u32,
) -> Result<()> {
    let battles = match demo_battles(seed, count, interval_ms) {
        Ok(battles) => battles,
        Err(message) => return send(ws, &ServerMessage::Error { message }).await,
    };
    tracing::info!(stream, seed, count, "demo stream");
    for battle in battles {
        let stored = store.append_event(stream, &serde_json::to_string(&battle)?)?;
        let message = ServerMessage::Battle {
            event_id: stored.id,
            seq: stored.seq,
            total: count,
            model_a: battle.model_a.to_owned(),
            model_b: battle.model_b.to_owned(),
            y: battle.y,
        };
        send(ws, &message).await?;
        // tokio's timer ticks in whole milliseconds: a zero pause would still wait for a tick.
        if interval_ms > 0 {
            tokio::time::sleep(Duration::from_millis(u64::from(interval_ms))).await;
        }
    }
    send(ws, &ServerMessage::Done { total: count }).await
}
