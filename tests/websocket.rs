//! The worker's WebSocket, over a real loopback connection: versioned greeting, a seeded demo
//! stream whose every event is in SQLite before it arrives, and clear errors for bad messages.

use futures_util::{SinkExt, StreamExt};
use std::io::{Read, Write};
use tokio_tungstenite::tungstenite::Message;
use tribunal::sessions::protocol::{
    decode, encode, ClientMessage, ServerMessage, PROTOCOL_VERSION,
};
use tribunal_e2e::Worker;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn worker(name: &str) -> Worker {
    tribunal_e2e::api_worker(name, &[])
}

async fn connect(worker: &Worker) -> Socket {
    let (socket, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", worker.authority()))
        .await
        .expect("websocket connects");
    socket
}

async fn next(socket: &mut Socket) -> ServerMessage {
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_secs(10), socket.next())
            .await
            .expect("a message within 10 s")
            .expect("stream open")
            .expect("valid frame");
        if let Message::Text(text) = message {
            return decode(text.as_str()).expect("decodes");
        }
    }
}

/// Runs a demo and returns the `(event_id, model_a, model_b, y)` of each battle.
async fn demo(socket: &mut Socket, seed: u64, battles: u32) -> Vec<(i64, String, String, f64)> {
    let request = encode(&ClientMessage::StartDemo {
        seed,
        battles,
        interval_ms: 0,
    });
    socket.send(Message::Text(request.into())).await.unwrap();
    let mut got = Vec::new();
    loop {
        match next(socket).await {
            ServerMessage::Battle {
                event_id,
                seq,
                total,
                model_a,
                model_b,
                y,
            } => {
                assert_eq!(seq as usize, got.len() + 1);
                assert_eq!(total, battles);
                got.push((event_id, model_a, model_b, y));
            }
            ServerMessage::Done { total } => {
                assert_eq!(total, battles);
                return got;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn demo_events_are_stored_then_streamed() {
    let worker = worker("ws-demo");
    let mut socket = connect(&worker).await;
    assert_eq!(
        next(&mut socket).await,
        ServerMessage::Hello {
            server: format!("tribunal {}", env!("CARGO_PKG_VERSION")),
            protocol: PROTOCOL_VERSION,
        }
    );
    let first = demo(&mut socket, 7, 25).await;
    assert_eq!(first.len(), 25);
    assert!(first
        .iter()
        .all(|(_, a, b, y)| a != b && [0.0, 0.5, 1.0].contains(y)));

    // Same seed on another connection: the same battles, new events.
    let mut other = connect(&worker).await;
    next(&mut other).await;
    let second = demo(&mut other, 7, 25).await;
    let strip = |v: &[(i64, String, String, f64)]| {
        v.iter()
            .map(|(_, a, b, y)| (a.clone(), b.clone(), *y))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&first), strip(&second));
    assert_ne!(first[0].0, second[0].0);

    // Every streamed event is a row in the worker's SQLite database, exactly once.
    let db = rusqlite::Connection::open(worker.data_dir.join("tribunal.sqlite3")).unwrap();
    let rows: i64 = db
        .query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 50);
    for (id, a, b, y) in &first {
        let body: String = db
            .query_row("SELECT body FROM events WHERE id = ?1", [id], |r| r.get(0))
            .unwrap();
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (&body["model_a"], &body["model_b"]),
            (&(*a).clone().into(), &(*b).clone().into())
        );
        assert_eq!(body["y"].as_f64(), Some(*y));
    }
}

#[tokio::test]
async fn bad_messages_get_explicit_errors() {
    let worker = worker("ws-errors");
    let mut socket = connect(&worker).await;
    next(&mut socket).await;
    let cases = [
        (
            r#"{"v":99,"type":"start_demo","seed":1,"battles":1,"interval_ms":0}"#,
            "protocol version 99 is not supported",
        ),
        (r#"{"type":"start_demo"}"#, "no protocol version"),
        ("not json", "not valid JSON"),
        (
            r#"{"v":1,"type":"start_demo","seed":1,"battles":0,"interval_ms":0}"#,
            "1 to 10000 battles",
        ),
    ];
    for (request, expected) in cases {
        socket.send(Message::Text(request.into())).await.unwrap();
        match next(&mut socket).await {
            ServerMessage::Error { message } => {
                assert!(message.contains(expected), "{request}: {message}")
            }
            other => panic!("{request}: expected an error, got {other:?}"),
        }
    }
}

#[test]
fn health_reports_protocol_and_schema() {
    let worker = worker("health");
    let mut stream = std::net::TcpStream::connect(worker.authority()).unwrap();
    write!(
        stream,
        "GET /api/health HTTP/1.0\r\nHost: localhost\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(
        head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
        "{head}"
    );
    let json: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(json["status"], "ok");
    assert_eq!(json["protocol"], PROTOCOL_VERSION);
    // Migration 1: events; 2: judgments and runs; 3: sessions, blobs, datasets, analyses;
    // 4: the run queue and its units; 5: the tool version that saved an analysis; 6: what
    // owners deleted; 7: a run's end and start time.
    assert_eq!(json["schema"], 7);
}
