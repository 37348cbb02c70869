//! The server's limits and security policy, over real loopback connections to a real
//! `tribunal serve`: each limit answers with a clear error and stores nothing (sizes, rows,
//! time, WebSocket messages, names, a session's bytes, each client address's rates); static serving
//! never leaves `dist/`; there is no CORS grant; every write route needs the owner token; API
//! runs use only the fleets the operator listed; passwords and tokens never reach the logs.

use futures_util::{SinkExt, StreamExt};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use tribunal::math::resample::BootstrapParams;
use tribunal::sessions::protocol::{decode, encode, ClientMessage, ServerMessage};
use tribunal_e2e::{
    api_worker, create_session, http, postgres_database, session_view, start_run, temp_dir,
    tribunal_bin, upload_dataset, HttpAnswer, Worker,
};

fn upload(worker: &Worker, id: &str, token: &str, name: &str, csv: &[u8]) -> (u16, String) {
    let auth = format!("Authorization: Bearer {token}");
    let answer = http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/datasets?kind=battles&name={name}"),
        &[&auth, "Content-Type: text/csv"],
        csv,
    );
    let error = answer.json()["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (answer.status, error)
}

fn datasets(worker: &Worker, id: &str) -> usize {
    session_view(worker, id)["datasets"]
        .as_array()
        .map_or(0, Vec::len)
}

fn battles(rows: usize) -> Vec<u8> {
    let mut csv = String::from("model_a,model_b,winner\n");
    for i in 0..rows {
        csv.push_str(&format!("m{},m{},model_a\n", i % 5, (i + 1) % 5));
    }
    csv.into_bytes()
}

#[test]
fn oversized_uploads_and_datasets_are_refused_with_the_limit_named() {
    let worker = api_worker(
        "limits-upload",
        &["--max-upload-bytes", "2000", "--max-rows", "20"],
    );
    let (id, token) = create_session(&worker, "limits");
    let (status, error) = upload(&worker, &id, &token, "big.csv", &battles(200));
    assert_eq!(status, 413, "{error}");
    assert!(
        error.contains("2000 bytes") && error.contains("--max-upload-bytes"),
        "{error}"
    );
    let (status, error) = upload(&worker, &id, &token, "long.csv", &battles(21));
    assert_eq!(status, 413, "{error}");
    assert!(
        error.contains("long.csv: 21 data rows") && error.contains("--max-rows"),
        "{error}"
    );
    assert_eq!(datasets(&worker, &id), 0, "a refused upload stores nothing");
    let (status, error) = upload(&worker, &id, &token, "ok.csv", &battles(20));
    assert_eq!(status, 201, "{error}");
    assert_eq!(datasets(&worker, &id), 1);
}

fn post_json(
    worker: &Worker,
    path: &str,
    headers: &[&str],
    body: &serde_json::Value,
) -> HttpAnswer {
    let mut all = vec!["Content-Type: application/json"];
    all.extend_from_slice(headers);
    http(
        worker.authority(),
        "POST",
        path,
        &all,
        body.to_string().as_bytes(),
    )
}

fn exported(worker: &Worker, id: &str) -> serde_json::Value {
    let path = format!("/api/sessions/{id}/export");
    http(worker.authority(), "GET", &path, &[], b"").json()
}

fn sessions_stored(worker: &Worker) -> i64 {
    let db = rusqlite::Connection::open(worker.data_dir.join("tribunal.sqlite3")).unwrap();
    db.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn titles_and_names_past_200_characters_are_refused_and_nothing_is_stored() {
    let worker = api_worker("limits-names", &[]);
    let long = "x".repeat(201);
    let answer = post_json(
        &worker,
        "/api/sessions",
        &[],
        &serde_json::json!({ "title": long }),
    );
    assert_eq!(answer.status, 422);
    let error = answer.json()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("title: 201 characters") && error.contains("at most 200"),
        "{error}"
    );
    assert_eq!(sessions_stored(&worker), 0);
    // 200 characters (of two bytes each) are fine.
    let (id, token) = create_session(&worker, &"é".repeat(200));
    assert_eq!(session_view(&worker, &id)["title"], "é".repeat(200));

    let (status, error) = upload(&worker, &id, &token, &"n".repeat(201), &battles(5));
    assert_eq!(status, 422, "{error}");
    assert!(error.starts_with("name: 201 characters"), "{error}");
    let dataset = upload_dataset(&worker, &id, &token, "battles", "b.csv", &battles(5));
    let auth = format!("Authorization: Bearer {token}");
    let spec = serde_json::json!({
        "statistic": "leaderboard", "dataset": dataset,
        "bootstrap": { "rounds": 10, "seed": 1, "level": 0.95 }, "anchor": null,
    });
    let answer = post_json(
        &worker,
        &format!("/api/sessions/{id}/analyses"),
        &[&auth],
        &serde_json::json!({ "title": long, "spec": spec }),
    );
    assert_eq!(answer.status, 422);
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .starts_with("title: 201"));
    let view = session_view(&worker, &id);
    assert_eq!(view["datasets"].as_array().map(Vec::len), Some(1));
    assert_eq!(view["analyses"], serde_json::json!([]));

    // An archive is held to the same bounds.
    let mut archive = exported(&worker, &id);
    archive["datasets"][0]["name"] = serde_json::json!(long);
    let answer = post_json(&worker, "/api/sessions/import", &[], &archive);
    assert_eq!(answer.status, 422);
    let error = answer.json()["error"].as_str().unwrap().to_owned();
    assert!(
        error.starts_with("archive: datasets[0].name: 201 characters"),
        "{error}"
    );
    assert_eq!(sessions_stored(&worker), 1);
}

#[test]
fn a_session_holds_at_most_its_byte_limit() {
    let worker = api_worker("limits-session-bytes", &["--max-session-bytes", "1000"]);
    let (id, token) = create_session(&worker, "bytes");
    let first = battles(40);
    let second = battles(45);
    assert!(first.len() < 1000 && first.len() + second.len() > 1000);
    let (status, error) = upload(&worker, &id, &token, "first.csv", &first);
    assert_eq!(status, 201, "{error}");
    let (status, error) = upload(&worker, &id, &token, "second.csv", &second);
    assert_eq!(status, 413, "{error}");
    let total = first.len() + second.len();
    assert!(
        error.contains(&format!("second.csv: the session would hold {total} bytes"))
            && error.contains("at most 1000")
            && error.contains("--max-session-bytes"),
        "{error}"
    );
    assert_eq!(
        datasets(&worker, &id),
        1,
        "nothing of the refused upload is stored"
    );
    // The same file again adds nothing, so it passes.
    let (status, error) = upload(&worker, &id, &token, "first-again.csv", &first);
    assert_eq!(status, 201, "{error}");
    // An archive whose datasets pass the limit is refused whole.
    let mut archive = exported(&worker, &id);
    let mut big = archive["datasets"][0].clone();
    let content = String::from_utf8(battles(80)).unwrap();
    big["bytes"] = serde_json::json!(content.len());
    big["rows"] = serde_json::json!(80);
    big["hash"] = serde_json::json!(tribunal::io::provenance::content_hash(content.as_bytes()));
    big["content"] = serde_json::json!(content);
    archive["datasets"] = serde_json::json!([big]);
    let before = sessions_stored(&worker);
    let answer = post_json(&worker, "/api/sessions/import", &[], &archive);
    assert_eq!(
        answer.status,
        413,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .contains("--max-session-bytes"));
    assert_eq!(sessions_stored(&worker), before);
}

#[test]
fn a_client_past_its_rates_gets_429_and_other_addresses_do_not() {
    let worker = api_worker(
        "limits-rates",
        &[
            "--sessions-per-hour",
            "2",
            "--uploads-per-minute",
            "3",
            "--forwarded-for",
        ],
    );
    let create = |from: &str| {
        let header = format!("X-Forwarded-For: 198.51.100.9, {from}");
        post_json(
            &worker,
            "/api/sessions",
            &[&header],
            &serde_json::json!({ "title": "t" }),
        )
    };
    assert_eq!(create("192.0.2.1").status, 201);
    let made = create("192.0.2.1");
    assert_eq!(made.status, 201);
    let refused = create("192.0.2.1");
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("1800"));
    let error = refused.json()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("--sessions-per-hour") && error.contains("1800 s"),
        "{error}"
    );
    assert_eq!(
        create("192.0.2.2").status,
        201,
        "another address has its own rate"
    );
    assert_eq!(
        sessions_stored(&worker),
        3,
        "the refused one stored nothing"
    );

    let body = made.json();
    let (id, token) = (
        body["id"].as_str().unwrap(),
        body["owner_token"].as_str().unwrap(),
    );
    // An import creates a session: the same rate.
    let archive = exported(&worker, id);
    let import = |from: &str| {
        let header = format!("X-Forwarded-For: {from}");
        post_json(&worker, "/api/sessions/import", &[&header], &archive).status
    };
    assert_eq!(import("192.0.2.1"), 429);
    assert_eq!(import("192.0.2.4"), 201);
    let auth = format!("Authorization: Bearer {token}");
    let send = |from: &str, name: &str| {
        let header = format!("X-Forwarded-For: {from}");
        http(
            worker.authority(),
            "POST",
            &format!("/api/sessions/{id}/datasets?kind=battles&name={name}"),
            &[&auth, &header],
            &battles(5),
        )
    };
    for name in ["a.csv", "b.csv", "c.csv"] {
        assert_eq!(send("192.0.2.1", name).status, 201);
    }
    let refused = send("192.0.2.1", "d.csv");
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("20"));
    assert!(refused.json()["error"]
        .as_str()
        .unwrap()
        .contains("--uploads-per-minute"));
    assert_eq!(send("192.0.2.3", "d.csv").status, 201);
    // Analyses and runs are uploads too.
    for route in ["analyses", "runs"] {
        let refused = post_json(
            &worker,
            &format!("/api/sessions/{id}/{route}"),
            &[&auth, "X-Forwarded-For: 192.0.2.1"],
            &serde_json::json!({}),
        );
        assert_eq!(refused.status, 429, "{route}");
    }
    // Reading is never limited.
    for _ in 0..10 {
        assert_eq!(
            session_view(&worker, id)["datasets"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
    }
}

#[test]
fn a_request_that_stalls_times_out_with_408() {
    let worker = api_worker("limits-timeout", &["--request-timeout-seconds", "1"]);
    let (id, token) = create_session(&worker, "slow");
    let mut stream = std::net::TcpStream::connect(worker.authority()).unwrap();
    // Promise 100 bytes, send 10, then stall.
    write!(
        stream,
        "POST /api/sessions/{id}/datasets?kind=battles&name=slow.csv HTTP/1.1\r\nHost: x\r\n\
         Authorization: Bearer {token}\r\nContent-Length: 100\r\nConnection: close\r\n\r\nmodel_a,mo"
    )
    .unwrap();
    let started = Instant::now();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("--request-timeout-seconds"), "{answer}");
    assert_eq!(datasets(&worker, &id), 0);
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(worker: &Worker) -> Socket {
    let (mut socket, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/ws", worker.authority()))
            .await
            .expect("websocket connects");
    let hello = socket.next().await.expect("a greeting").expect("a frame");
    assert!(hello.to_text().unwrap().contains("hello"));
    socket
}

/// The error message the server sends before it closes, if any; panics if it stays open.
async fn error_then_close(socket: &mut Socket) -> Option<String> {
    let mut error = None;
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("the server closes within 10 s");
        match next {
            Some(Ok(Message::Text(text))) => {
                if let Ok(ServerMessage::Error { message }) = decode(text.as_str()) {
                    error = Some(message);
                }
            }
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return error,
            Some(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_messages_over_the_size_or_rate_limit_end_the_connection() {
    let worker = api_worker(
        "limits-ws",
        &[
            "--ws-max-message-bytes",
            "1024",
            "--ws-messages-per-second",
            "2",
        ],
    );
    let mut socket = connect(&worker).await;
    let big = format!(
        r#"{{"v":1,"type":"watch","stream":"{}","after":0}}"#,
        "x".repeat(2000)
    );
    socket.send(Message::Text(big.into())).await.unwrap();
    let error = error_then_close(&mut socket)
        .await
        .expect("an error message");
    assert!(error.contains("at most 1024 bytes"), "{error}");

    // Within the size limit, 2 messages a second with bursts of 20: the 21st at once is refused.
    let mut socket = connect(&worker).await;
    let bad = r#"{"v":1,"type":"no_such_message"}"#;
    for _ in 0..25 {
        if socket.send(Message::Text(bad.into())).await.is_err() {
            break;
        }
    }
    let mut errors = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("the server closes within 10 s")
        {
            Some(Ok(Message::Text(text))) => match decode::<ServerMessage>(text.as_str()) {
                Ok(ServerMessage::Error { message }) => errors.push(message),
                other => panic!("{other:?}"),
            },
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
            Some(Ok(_)) => {}
        }
    }
    assert_eq!(errors.len(), 21, "{errors:?}");
    assert!(
        errors[19].contains("no_such_message") || errors[19].contains("unknown"),
        "{}",
        errors[19]
    );
    assert!(
        errors[20].contains("more than 2 messages per second"),
        "{}",
        errors[20]
    );
    // A well-behaved client still connects and is served.
    let mut socket = connect(&worker).await;
    let demo = encode(&ClientMessage::StartDemo {
        seed: 1,
        battles: 3,
        interval_ms: 0,
    });
    socket.send(Message::Text(demo.into())).await.unwrap();
    let first = socket.next().await.unwrap().unwrap();
    assert!(first.to_text().unwrap().contains("battle"), "{first:?}");
}

#[test]
fn static_serving_never_leaves_dist() {
    let worker = api_worker("traversal", &[]);
    let secret = temp_dir("traversal-secret").join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET-CONTENT").unwrap();
    let secret_path = secret.display().to_string();
    let paths = [
        "/../../../../etc/passwd".to_owned(),
        "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd".to_owned(),
        "/..%2f..%2f..%2f..%2fetc%2fpasswd".to_owned(),
        "/static/..%5c..%5c..%5cetc%5cpasswd".to_owned(),
        format!("/../../../../../..{secret_path}"),
        format!(
            "/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e{}",
            secret_path.replace('/', "%2f")
        ),
        "/api/../../etc/passwd".to_owned(),
        "//etc/passwd".to_owned(),
    ];
    for path in &paths {
        let answer = http(worker.authority(), "GET", path, &[], b"");
        let body = String::from_utf8_lossy(&answer.body);
        assert!(
            !body.contains("root:") && !body.contains("TOP-SECRET"),
            "{path}: {} leaked {body}",
            answer.status
        );
        assert!(
            answer.status == 200 && body.contains("<title>app</title>") || answer.status >= 400,
            "{path}: {} {body}",
            answer.status
        );
    }
}

#[test]
fn no_cross_origin_grant_and_every_write_needs_the_owner_token() {
    let worker = api_worker("cors-owner", &[]);
    let (id, token) = create_session(&worker, "owned");
    // A preflight from another origin gets no grant, nor does the request itself.
    let mut stream = std::net::TcpStream::connect(worker.authority()).unwrap();
    write!(
        stream,
        "OPTIONS /api/sessions/{id}/datasets HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\n\
         Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut preflight = String::new();
    stream.read_to_string(&mut preflight).unwrap();
    assert!(
        !preflight
            .to_ascii_lowercase()
            .contains("access-control-allow"),
        "{preflight}"
    );
    let read = http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}"),
        &["Origin: http://evil.example"],
        b"",
    );
    assert_eq!(read.status, 200);

    let csv = battles(3);
    let dataset = upload(&worker, &id, &token, "b.csv", &csv);
    assert_eq!(dataset.0, 201);
    let hash = tribunal::io::provenance::content_hash(&csv);
    let writes: [(&str, String, Vec<u8>); 3] = [
        ("POST", format!("/api/sessions/{id}/datasets?kind=battles&name=c.csv"), battles(4)),
        (
            "POST",
            format!("/api/sessions/{id}/analyses"),
            serde_json::json!({
                "title": "t",
                "spec": {
                    "statistic": "leaderboard",
                    "dataset": hash.clone(),
                    "bootstrap": BootstrapParams::default(),
                    "anchor": null,
                },
            })
            .to_string()
            .into_bytes(),
        ),
        (
            "POST",
            format!("/api/sessions/{id}/runs"),
            serde_json::json!({ "items": hash, "config": { "prompt": { "kind": "relative", "rubric": "r" } } })
                .to_string()
                .into_bytes(),
        ),
    ];
    let wrong = format!("Authorization: Bearer {}", "0".repeat(64));
    for (method, path, body) in &writes {
        for headers in [vec![], vec![wrong.as_str()]] {
            let mut all = headers.clone();
            all.push("Content-Type: application/json");
            let answer = http(worker.authority(), method, path, &all, body);
            assert_eq!(answer.status, 403, "{method} {path} with {headers:?}");
        }
    }
    let view = session_view(&worker, &id);
    assert_eq!(view["datasets"].as_array().unwrap().len(), 1);
    assert!(view["analyses"].as_array().unwrap().is_empty());
    assert!(view["runs"].as_array().unwrap().is_empty());
}

#[test]
fn api_runs_use_only_the_listed_fleets_and_never_name_a_key_variable() {
    let worker = api_worker("fleets", &["--fleet", "http://127.0.0.1:9/v1=FLEET_KEY"]);
    let (id, token) = create_session(&worker, "fleet");
    let items = b"id,instruction,response,response_b\nq1,What?,Yes,No\n";
    let hash = upload_dataset(&worker, &id, &token, "items", "items.csv", items);
    let auth = format!("Authorization: Bearer {token}");
    let run = |backend: serde_json::Value| {
        let body = serde_json::json!({
            "items": hash,
            "config": { "prompt": { "kind": "relative", "rubric": "r" }, "backend": backend }
        });
        start_run(&worker, &id, &[&auth], &body)
    };
    let elsewhere =
        run(serde_json::json!({ "kind": "openai", "url": "http://10.0.0.1/v1", "model": "m" }));
    assert_eq!(elsewhere.status, 422);
    let error = elsewhere.json()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("http://10.0.0.1/v1") && error.contains("--fleet"),
        "{error}"
    );
    assert!(error.contains("http://127.0.0.1:9/v1"), "{error}");
    let key = run(serde_json::json!({
        "kind": "openai", "url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "HOME"
    }));
    assert_eq!(key.status, 422);
    assert!(key.json()["error"]
        .as_str()
        .unwrap()
        .contains("api_key_env"));
}

#[test]
fn passwords_and_owner_tokens_never_reach_the_logs() {
    // The test server trusts loopback, so any password connects; it must not be logged.
    let url = postgres_database("logs").replacen("://tribunal@", "://tribunal:hunter2-pw@", 1);
    let dist = temp_dir("logs-dist");
    std::fs::write(dist.join("index.html"), "<title>app</title>").unwrap();
    let log = temp_dir("logs").join("stderr.log");
    let mut child = Command::new(tribunal_bin())
        .args(["serve", "--addr", "127.0.0.1:0", "--store", &url, "--dist"])
        .arg(&dist)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let authority = line
        .trim()
        .trim_start_matches("Tribunal is serving at http://")
        .trim_end_matches('/')
        .to_owned();
    let created = http(
        &authority,
        "POST",
        "/api/sessions",
        &["Content-Type: application/json"],
        br#"{"title":"secret"}"#,
    )
    .json();
    let (id, token) = (
        created["id"].as_str().unwrap().to_owned(),
        created["owner_token"].as_str().unwrap().to_owned(),
    );
    let auth = format!("Authorization: Bearer {token}");
    let path = format!("/api/sessions/{id}/datasets?kind=battles&name=b.csv");
    assert_eq!(
        http(&authority, "POST", &path, &[&auth], &battles(3)).status,
        201
    );
    assert_eq!(
        http(
            &authority,
            "POST",
            &path,
            &["Authorization: Bearer nope"],
            b"x"
        )
        .status,
        403
    );
    let _ = child.kill();
    let _ = child.wait();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("store open"), "{logged}");
    assert!(logged.contains("tribunal:***@"), "{logged}");
    assert!(
        !logged.contains("hunter2-pw"),
        "the password was logged: {logged}"
    );
    assert!(
        !logged.contains(&token),
        "the owner token was logged: {logged}"
    );
    assert!(
        !logged.contains("nope"),
        "a presented token was logged: {logged}"
    );
}
