//! Judge runs inside `tribunal serve`, with the real SmolLM2 from `models/` on the CPU: the
//! session's owner starts a run on an items dataset over HTTP; a WebSocket watcher receives
//! the run's start, each judgment as it is stored and then the run's end; the judgments equal those of
//! `tribunal judge` on the same items and configuration, and each carries the run's BTL
//! head's calibrated probability computed from the CLI's embedding and p(A); a watcher that reconnects with the
//! last event id it saw gets exactly the rest; starting the same run again resumes it (no
//! item judged twice); a share link cannot start a run. In Chromium, the owner starts a run
//! from the session page and watches the count of stored judgments grow, reloads mid-run and
//! ends with each judgment shown once, with the judge's tokens per second, the unparsed count,
//! each judgment's p_s and rationale, and the running leaderboard of the items' models, all
//! equal to what the run's stored events give (the leaderboard: `tribunal::rankings::leaderboard` on
//! each judgment's preference for the file's response, recomputed here from p_s); a visitor
//! with the share link sees the finished run and the same leaderboard. From `/runs`, at 390 px,
//! a newcomer makes a session of the bundled items (warned of an empty response), runs them on
//! an allowed fleet by its model name, and sees the run's end — its count, its datasets, the
//! flagged judgments — without a reload.

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use tribunal::calibration::btl_head::{BtlData, BtlParams};
use tribunal::calibration::head::HeadParams;
use tribunal::calibration::head_file::{Head, HeadFile};
use tribunal::judging::judge_items::{blank_summary, parse_judge_items};
use tribunal::rankings::battles::Battles;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::leaderboard::bradley_terry_leaderboard;
use tribunal::sessions::protocol::{
    decode, encode, ClientMessage, JudgmentEvent, RunEvent, ServerMessage,
};
use tribunal_e2e::{
    api_worker, create_session, http, root, run_browser_driver, run_tribunal, session_view,
    start_run, temp_dir, upload_dataset, Fleet, LlamaServer, Worker,
};

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The run's events as (event_id, seq, event).
type Events = Vec<(i64, u32, RunEvent)>;

const RUBRIC: &str =
    "Which response follows the instruction better: correct, complete and concise?";

/// Watches `stream` from `after` until the run's end, or until `quiet` passes without a message.
async fn watch(worker: &Worker, stream: &str, after: i64, quiet: Duration) -> Events {
    watch_until(worker, stream, after, quiet, |_| false).await
}

/// [`watch`], stopping as well once `enough` holds of the events so far.
async fn watch_until(
    worker: &Worker,
    stream: &str,
    after: i64,
    quiet: Duration,
    enough: impl Fn(&Events) -> bool,
) -> Events {
    let (mut socket, _): (Socket, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/ws", worker.authority()))
            .await
            .expect("websocket connects");
    let request = encode(&ClientMessage::Watch {
        stream: stream.to_owned(),
        after,
    });
    socket.send(Message::Text(request.into())).await.unwrap();
    let mut events = Vec::new();
    while let Ok(Some(frame)) = tokio::time::timeout(quiet, socket.next()).await {
        let Message::Text(text) = frame.expect("valid frame") else {
            continue;
        };
        match decode::<ServerMessage>(text.as_str()).expect("decodes") {
            ServerMessage::Run {
                stream: s,
                event_id,
                seq,
                event,
            } => {
                assert_eq!(s, stream);
                let end = matches!(event, RunEvent::Finished { .. } | RunEvent::Failed { .. });
                events.push((event_id, seq, event));
                if end || enough(&events) {
                    break;
                }
            }
            ServerMessage::Hello { .. } => {}
            other => panic!("unexpected message {other:?}"),
        }
    }
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_streams_each_judgment_to_watchers_and_resumes() {
    let models = root().join("models");
    let worker = api_worker(
        "live-runs",
        &["--models", models.to_str().unwrap(), "--device", "cpu"],
    );
    let (id, token, meta) = session_with_items(&worker);
    let auth = format!("Authorization: Bearer {token}");
    let items_path = root().join("tests/fixtures/llmfao-items.csv");
    let hash = meta["hash"].as_str().unwrap().to_owned();
    let n_items = meta["rows"].as_u64().unwrap() as usize;
    let config = json!({
        "design": { "orders": "both" },
        "prompt": { "kind": "relative", "rubric": RUBRIC },
        "decoding": { "max_tokens": 16, "seed": 0 }
    });
    let (head, head_file) = btl_head();
    let session_view = || session_view(&worker, &id);
    let start = |headers: &[&str], items: &str| {
        start_run(
            &worker,
            &id,
            headers,
            &json!({ "items": items, "config": config, "head": head_file }),
        )
    };

    // A share link cannot start a run; a run needs an items dataset of the session.
    assert_eq!(start(&[], &hash).status, 403);
    let wrong = start(&[&auth], "sha256:00");
    assert_eq!(wrong.status, 422);
    assert!(wrong.json()["error"]
        .as_str()
        .unwrap()
        .contains("items dataset"));

    let started = start(&[&auth], &hash);
    assert_eq!(
        started.status,
        202,
        "{}",
        String::from_utf8_lossy(&started.body)
    );
    let started = started.json();
    let stream = started["stream"].as_str().unwrap().to_owned();
    assert!(stream.starts_with(&format!("run:{id}:")), "{stream}");
    let total = 2 * n_items;
    assert_eq!(started["total"], total);

    // Every judgment arrives, numbered, then the end with the counts.
    let events = watch(&worker, &stream, 0, Duration::from_secs(600)).await;
    assert_eq!(events.len(), total + 2, "{events:?}");
    assert!(matches!(events[0].2, RunEvent::Started { total: t } if t as usize == total));
    for (k, (_, seq, event)) in events.iter().enumerate() {
        assert_eq!(*seq as usize, k + 1);
        if (1..=total).contains(&k) {
            assert!(matches!(event, RunEvent::Judgment(j) if j.total as usize == total));
        }
    }
    assert!(
        events.windows(2).all(|w| w[0].0 < w[1].0),
        "event ids increase"
    );
    let RunEvent::Finished { judgments, .. } = &events[total + 1].2 else {
        panic!("the run ended with {:?}", events[total + 1].2);
    };
    assert_eq!(*judgments as usize, total);

    // The same judgments as `tribunal judge` with the same items and configuration.
    let dir = temp_dir("live-runs-cli");
    let toml = dir.join("judge.toml");
    std::fs::write(
        &toml,
        format!(
            "embed_rationale = true\n\n[design]\norders = \"both\"\n\n[prompt]\nkind = \"relative\"\n\
             rubric = \"{RUBRIC}\"\n\n[decoding]\nmax_tokens = 16\nseed = 0\n"
        ),
    )
    .unwrap();
    let out = dir.join("results.jsonl");
    let cli = run_tribunal(&[
        "judge",
        "--config",
        toml.to_str().unwrap(),
        "--input",
        items_path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--data-dir",
        dir.join("data").to_str().unwrap(),
        "--models",
        models.to_str().unwrap(),
        "--device",
        "cpu",
    ]);
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    // The head's output on each CLI line: π(embedding, p(A)), as 1 − π for the swapped order.
    let expected: BTreeMap<(String, String), (Value, Value, Option<f64>)> =
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                let calibrated = v["embedding"].as_array().map(|e| {
                    let e: Vec<f64> = e.iter().map(|x| x.as_f64().unwrap()).collect();
                    let pi = head
                        .predict_one(&e, v["label_probs"]["A"].as_f64().unwrap())
                        .unwrap();
                    if v["order"] == "ba" {
                        1.0 - pi
                    } else {
                        pi
                    }
                });
                (
                    (
                        v["id"].as_str().unwrap().to_owned(),
                        v["order"].as_str().unwrap().to_owned(),
                    ),
                    (v["label"].clone(), v["winner"].clone(), calibrated),
                )
            })
            .collect();
    assert!(
        expected.values().all(|v| v.2.is_some()),
        "every judgment has p(A) and a rationale"
    );
    let streamed: BTreeMap<(String, String), (Value, Value, Option<f64>)> = events[1..=total]
        .iter()
        .map(|(_, _, e)| match e {
            RunEvent::Judgment(j) => (
                (j.item.clone(), j.order.clone()),
                (json!(j.label), json!(j.winner), j.calibrated),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(streamed, expected);

    // A watcher that saw the first three events gets exactly the rest, once.
    let rest = watch(&worker, &stream, events[2].0, Duration::from_secs(5)).await;
    assert_eq!(rest.len(), total + 2 - 3);
    assert_eq!(
        rest.iter().map(|e| e.0).collect::<Vec<_>>(),
        events[3..].iter().map(|e| e.0).collect::<Vec<_>>()
    );

    // The session lists the stream and the run's record.
    let session = session_view();
    assert_eq!(session["streams"], json!([stream]));
    assert_eq!(session["runs"].as_array().unwrap().len(), 1);
    assert_eq!(session["runs"][0]["judgments"], total);

    // The run's judgments are datasets of the session: every line as the CLI writes it, and the
    // verdicts as battles in the items file's orientation, which an analysis reads as it reads
    // an upload.
    let datasets = session["datasets"].as_array().unwrap();
    let named = |name: &str| {
        datasets
            .iter()
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not among {datasets:?}"))
    };
    let download = |meta: &Value| {
        let path = format!(
            "/api/sessions/{id}/datasets/{}",
            meta["hash"].as_str().unwrap()
        );
        String::from_utf8(http(worker.authority(), "GET", &path, &[], b"").body).unwrap()
    };
    let jsonl = named("llmfao-items-judgments.jsonl");
    assert_eq!(jsonl["kind"], "verdicts");
    assert_eq!(jsonl["rows"], total);
    let cli_lines = std::fs::read_to_string(&out).unwrap();
    let judged: Vec<Value> = cli_lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stored: Vec<Value> = download(jsonl)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let key = |v: &Value| (v["id"].to_string(), v["order"].to_string());
    let by_key = |lines: &[Value]| -> BTreeMap<(String, String), (Value, Value)> {
        lines
            .iter()
            .map(|v| (key(v), (v["label"].clone(), v["winner"].clone())))
            .collect()
    };
    assert_eq!(by_key(&stored), by_key(&judged));
    // Battles are made of parsed pairwise verdicts only: none when the judge parsed none.
    let parsed = judged.iter().any(|v| v["winner"].is_string());
    assert_eq!(
        datasets
            .iter()
            .any(|d| d["name"] == "llmfao-items-judge-battles.csv"),
        parsed,
        "{datasets:?}"
    );

    // The items carry the crowd's labels and the run embedded each rationale: the labelled
    // pairs' judgments are BTL calibration rows — the rationale's embedding, the judge's p(A)
    // in the order it saw the pair, the crowd's preference turned to that order — split as the
    // items' `split` column says.
    let (items_text, labels) = labelled_items();
    let test_id = {
        csv::Reader::from_reader(items_text.as_bytes())
            .records()
            .map(Result::unwrap)
            .find(|r| &r[7] == "test")
            .map(|r| r[0].to_owned())
            .unwrap()
    };
    // …and the pairs are labelled battles for the prediction-powered report: the judge's label
    // the mean of its parsed verdicts on the pair (1: the file's `response` won), the crowd's
    // label where the item has one, the mean embedding of its rationales.
    let labelled = datasets
        .iter()
        .find(|d| d["name"] == "llmfao-items-labelled-battles.csv");
    assert_eq!(labelled.is_some(), parsed, "{datasets:?}");
    if let Some(meta) = labelled {
        assert_eq!(meta["kind"], "labelled_battles");
        let text = download(meta);
        let mut want: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for v in judged.iter().filter(|v| v["winner"].is_string()) {
            let y = match v["winner"].as_str().unwrap() {
                "A" => 1.0,
                "B" => 0.0,
                _ => 0.5,
            };
            let e = want
                .entry(v["id"].as_str().unwrap().to_owned())
                .or_default();
            e.0 += y;
            e.1 += 1;
        }
        let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(text.as_bytes())
            .records()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), want.len());
        // Every rationale was embedded: each pair also carries its judgments' mean embedding,
        // for a calibration head cross-fitted in the report.
        let dim = judged
            .iter()
            .find_map(|v| v["embedding"].as_array().map(Vec::len))
            .unwrap();
        for r in &rows {
            assert_eq!(r[5].split_whitespace().count(), dim, "{r:?}");
            let (sum, count) = want[&r[0]];
            assert!((r[3].parse::<f64>().unwrap() - sum / count as f64).abs() < 1e-12);
            match labels.get(&r[0]) {
                Some(h) => assert_eq!(r[4].parse::<f64>().unwrap(), *h),
                None => assert_eq!(&r[4], ""),
            }
        }
    }
    for (side, name) in [
        ("train", "llmfao-items-calibration-train.csv"),
        ("test", "llmfao-items-calibration-test.csv"),
    ] {
        let meta = named(name);
        assert_eq!(meta["kind"], "calibration");
        let text = download(meta);
        // A BTL head reads it, on MiniLM's 384 dimensions.
        tribunal::calibration::calibration_data::parse_calibration(
            name,
            text.as_bytes(),
            tribunal::calibration::calibration_data::HeadKind::Btl,
            Some(384),
        )
        .unwrap();
        let mut got: Vec<(Vec<u64>, u64, u64)> = csv::Reader::from_reader(text.as_bytes())
            .records()
            .map(|r| {
                let r = r.unwrap();
                let embedding = r[0].split(' ').map(|x| x.parse::<f64>().unwrap().to_bits());
                let number = |x: &str| x.parse::<f64>().unwrap().to_bits();
                (embedding.collect(), number(&r[1]), number(&r[2]))
            })
            .collect();
        let mut want: Vec<(Vec<u64>, u64, u64)> = judged
            .iter()
            .filter(|v| (v["id"].as_str() == Some(test_id.as_str())) == (side == "test"))
            .map(|v| {
                let human = labels[v["id"].as_str().unwrap()];
                let human = if v["order"] == "ba" {
                    1.0 - human
                } else {
                    human
                };
                let embedding = v["embedding"].as_array().unwrap();
                (
                    embedding
                        .iter()
                        .map(|x| x.as_f64().unwrap().to_bits())
                        .collect(),
                    v["label_probs"]["A"].as_f64().unwrap().to_bits(),
                    human.to_bits(),
                )
            })
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}");
        assert_eq!(meta["rows"].as_u64(), Some(want.len() as u64));
    }

    // The same run again resumes: nothing is judged twice, one more end event.
    let last = events[total + 1].0;
    assert_eq!(start(&[&auth], &hash).status, 202);
    let again = watch(&worker, &stream, last, Duration::from_secs(600)).await;
    assert_eq!(again.len(), 2, "a start and an end: {again:?}");
    assert_eq!(
        again[0].1 as usize,
        total + 3,
        "the stream's numbering goes on"
    );
    assert!(
        matches!(again[1].2, RunEvent::Finished { judgments, .. } if judgments as usize == total)
    );
    let session = session_view();
    assert_eq!(session["runs"][1]["judged_now"], 0);
    assert_eq!(session["runs"][1]["resumed_from"], total);
}

/// The LLMFAO items fixture with the crowd's labels: `human`, the crowd's mean preference for
/// `response` on the pair (1 when its model won a vote, ½ a tie), and `split`, the last pair
/// held out for testing. Returns the CSV and each pair's label.
fn labelled_items() -> (String, BTreeMap<String, f64>) {
    let text = std::fs::read_to_string(root().join("tests/fixtures/llmfao-items.csv")).unwrap();
    let crowd =
        std::fs::read_to_string(root().join("tests/data/llmfao/crowd-comparisons.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    header.extend(["human".to_owned(), "split".to_owned()]);
    writer.write_record(&header).unwrap();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut labels = BTreeMap::new();
    for (k, record) in records.iter().enumerate() {
        let (id, model) = (&record[0], &record[4]);
        // id,prompt,model_x,model_y,worker,winner,left,right
        let votes: Vec<f64> = csv::Reader::from_reader(crowd.as_bytes())
            .records()
            .map(Result::unwrap)
            .filter(|r| &r[0] == id)
            .map(|r| match (&r[5], &r[6] == model) {
                ("tie", _) => 0.5,
                ("left", true) | ("right", false) => 1.0,
                _ => 0.0,
            })
            .collect();
        assert!(!votes.is_empty(), "pair {id} has crowd votes");
        let human = votes.iter().sum::<f64>() / votes.len() as f64;
        labels.insert(id.to_owned(), human);
        let split = if k + 1 == records.len() {
            "test"
        } else {
            "train"
        };
        let mut row: Vec<String> = record.iter().map(str::to_owned).collect();
        row.extend([human.to_string(), split.to_owned()]);
        writer.write_record(&row).unwrap();
    }
    (
        String::from_utf8(writer.into_inner().unwrap()).unwrap(),
        labels,
    )
}

/// A session on `worker` with the LLMFAO items and the crowd's labels ([`labelled_items`]);
/// returns (id, owner token, dataset metadata).
fn session_with_items(worker: &Worker) -> (String, String, Value) {
    let (id, token) = create_session(worker, "live run");
    let items = labelled_items().0.into_bytes();
    let answer = http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/datasets?kind=items&name=llmfao-items.csv"),
        &[&format!("Authorization: Bearer {token}")],
        &items,
    );
    assert_eq!(answer.status, 201);
    let meta = answer.json();
    (id, token, meta)
}

#[test]
fn the_session_page_shows_a_run_live_and_resumes_after_a_reload() {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "run `trunk build --release` first"
    );
    let models = root().join("models");
    let worker = Worker::start_with(
        "live-run-browser",
        &dist,
        &["--models", models.to_str().unwrap(), "--device", "cpu"],
    );
    let (id, token, _) = session_with_items(&worker);
    let share = format!("{}s/{id}", worker.url);
    let page = run_browser_driver(
        "live_run.mjs",
        [format!("{share}#owner={token}"), share.clone()],
    );

    // The owner link's token left the address bar at once.
    assert_eq!(page["addressAfterOwnerLink"], share);
    assert_eq!(page["unavailable"], false, "the worker has the local model");
    // Pairwise in both orders: 3 items × 2 judgments, seen arriving one by one.
    let total = 6;
    assert_eq!(page["owner"]["total"], total);
    assert_eq!(page["owner"]["finished"], true);
    assert_eq!(
        page["owner"]["judged"], total,
        "each judgment shown once after the reload"
    );
    let seen: Vec<u64> = page["seen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(
        seen.iter().any(|&n| n > 0 && n < total),
        "progress between 0 and {total} was shown: {seen:?}"
    );
    assert!(page["reloadedAt"].is_u64(), "the page was reloaded mid-run");
    assert!(page["owner"]["text"]
        .as_str()
        .unwrap()
        .contains("finished: 6 judgments"));
    // The visitor sees the finished run but cannot start one.
    assert_eq!(page["visitor"]["judged"], total);
    assert_eq!(page["visitorCanStart"], false);

    // What the page shows equals what the stored events give.
    let stream = page["owner"]["stream"].as_str().unwrap().to_owned();
    let events = tokio::runtime::Runtime::new().unwrap().block_on(watch(
        &worker,
        &stream,
        0,
        Duration::from_secs(10),
    ));
    let models: BTreeMap<String, (String, String)> = {
        let text = std::fs::read_to_string(root().join("tests/fixtures/llmfao-items.csv")).unwrap();
        csv::Reader::from_reader(text.as_bytes())
            .records()
            .map(|r| {
                let r = r.unwrap();
                (r[0].to_owned(), (r[4].to_owned(), r[5].to_owned()))
            })
            .collect()
    };
    let (mut tokens, mut seconds, mut unparsed) = (0u64, 0.0, 0);
    let mut battles: Vec<(String, String, f64)> = Vec::new();
    let mut shown: BTreeMap<(String, String), (String, String)> = BTreeMap::new();
    for (_, _, event) in &events {
        let RunEvent::Judgment(judgment) = event else {
            continue;
        };
        let JudgmentEvent {
            item,
            order,
            parse_error,
            seconds: s,
            generated_tokens,
            rationale,
            label_probs,
            preference,
            models: named,
            ..
        } = judgment.as_ref();
        tokens += u64::from(*generated_tokens);
        seconds += s;
        unparsed += usize::from(parse_error.is_some());
        assert_eq!(named.as_ref(), Some(&models[item]), "models of item {item}");
        // The preference for the file's `response`, from p_s over A and B.
        let (a, b) = (label_probs[0].1, label_probs[1].1);
        let want = if order == "ba" {
            b / (a + b)
        } else {
            a / (a + b)
        };
        let y = preference.unwrap();
        assert!((y - want).abs() < 1e-12, "{item} {order}: {y} vs {want}");
        let (ma, mb) = &models[item];
        battles.push((ma.clone(), mb.clone(), y));
        let probs = label_probs
            .iter()
            .map(|(l, p)| format!("{l} {p:.3}"))
            .collect::<Vec<_>>()
            .join(" · ");
        let cut: String = rationale.chars().take(240).collect();
        shown.insert((item.clone(), order.clone()), (probs, cut));
    }
    assert_eq!(battles.len(), total as usize);
    let status = &page["owner"];
    assert_eq!(status["unparsed"], unparsed);
    let rate = status["tokensPerSecond"].as_f64().unwrap();
    assert!(
        (rate - tokens as f64 / seconds).abs() < 1e-9 * rate,
        "{rate}"
    );
    assert!(status["text"]
        .as_str()
        .unwrap()
        .contains(&format!("{:.1} tokens/s", tokens as f64 / seconds)));
    for row in page["rows"].as_array().unwrap() {
        let key = (
            row["item"].as_str().unwrap().to_owned(),
            row["order"].as_str().unwrap().to_owned(),
        );
        let (probs, rationale) = &shown[&key];
        assert_eq!(row["probabilities"], probs.as_str());
        assert_eq!(row["rationale"], rationale.as_str());
    }
    let board = bradley_terry_leaderboard(
        "run",
        &Battles::from_named(battles.iter().map(|(a, b, y)| (a.as_str(), b.as_str(), *y))),
        &BradleyTerryParams::default(),
    )
    .unwrap();
    for key in ["board", "visitorBoard"] {
        let rows = page[key].as_array().unwrap();
        assert_eq!(rows.len(), 6, "six models");
        for (row, want) in rows.iter().zip(&board.ratings) {
            assert_eq!(row["model"], want.model.as_str());
            assert!((row["elo"].as_f64().unwrap() - want.elo).abs() < 1e-9);
            // A separated model has no SE: the page shows "—" and its data-se is NaN (null).
            match want.se {
                Some(se) => assert!((row["se"].as_f64().unwrap() - se).abs() < 1e-9),
                None => assert!(row["se"].as_f64().is_none_or(f64::is_nan), "{row}"),
            }
        }
    }
}

/// A run on a fleet, from the page a newcomer finds: the home page's "Run a judge over your
/// items" example opens `/runs` with the bundled LLMFAO items, whose pair 169 answers with a
/// zero-width space; the upload is accepted with the worker's warning (the same words the
/// library gives for the file), the judge select offers the fleet the operator listed (this
/// worker has no local model), Start waits for a model name, and the run's end updates the count
/// of finished runs and the datasets without a reload; both judgments of pair 169 are flagged.
#[test]
fn a_fleet_run_starts_from_the_runs_page_and_its_end_shows_without_a_reload() {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "run `trunk build --release` first"
    );
    let fleet = Fleet::start(1);
    let no_models = temp_dir("fleet-run-no-models");
    let worker = Worker::start_with(
        "fleet-run-browser",
        &dist,
        &[
            "--fleet",
            &fleet.url(),
            "--models",
            no_models.to_str().unwrap(),
        ],
    );
    let page = run_browser_driver("judge_runs.mjs", [worker.url.clone()]);
    assert_eq!(page["pageErrors"], json!([]), "{page}");
    assert_eq!(page["judges"]["local"], "false");
    assert_eq!(page["judges"]["fleets"], "1");
    assert!(page["judges"]["text"]
        .as_str()
        .unwrap()
        .contains(&fleet.url()));

    let fixture = std::fs::read(root().join("tests/fixtures/llmfao-items.csv")).unwrap();
    let items = parse_judge_items("llmfao-items.csv", &fixture, true).unwrap();
    let warning = blank_summary("llmfao-items.csv", &items).unwrap();
    assert!(
        warning.contains("1 of 3 items have an empty response"),
        "{warning}"
    );
    assert_eq!(page["uploadWarnings"], json!([warning]));

    assert_eq!(
        page["judgeOptions"],
        json!([{ "value": fleet.url(), "selected": true }])
    );
    assert_eq!(page["startableWithoutModel"], false);
    assert_eq!(page["startableWithModel"], true);
    assert_eq!(page["finishedBefore"], "0");
    assert_eq!(page["datasetsBefore"], json!(["llmfao-items.csv"]));

    // 3 pairs in both orders, every answer parsed; pair 169's two judgments flagged.
    let status = &page["status"];
    assert_eq!(status["judged"], "6");
    assert_eq!(status["unparsed"], "0");
    assert_eq!(status["blank"], "2");
    let text = status["text"].as_str().unwrap();
    assert!(
        text.contains("finished: 6 judgments (0 unparsed) in ")
            && text.contains(" · 2 of them on an empty response"),
        "{text}"
    );
    let flagged: Vec<(String, String)> = page["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["verdict"].as_str().unwrap().contains("⚠ empty response"))
        .map(|v| {
            (
                v["item"].as_str().unwrap().to_owned(),
                v["order"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(flagged.len(), 2, "{}", page["verdicts"]);
    assert!(flagged.iter().all(|(item, _)| item == "169"), "{flagged:?}");
    assert_eq!(fleet.stats()["requests"], 6);

    // The end showed without a reload: one finished run, and the run's datasets listed as the
    // session holds them.
    assert_eq!(page["notReloaded"], true);
    assert_eq!(
        page["finishedText"],
        "1 run has finished: its record is in the session's export."
    );
    let id = page["session"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let stored: Vec<String> = session_view(&worker, &id)["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(stored.len() > 1, "{stored:?}");
    assert_eq!(page["datasetsAfter"], json!(stored));
    let width = &page["width"];
    assert!(
        width["page"].as_f64() <= width["window"].as_f64(),
        "{width}"
    );
}

/// A BTL head on 384-dimensional embeddings (fitted on seeded synthetic rows) and its model
/// file.
fn btl_head() -> (Head, Value) {
    let mut x: u64 = 7;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let embeddings: Vec<Vec<f64>> = (0..40)
        .map(|_| (0..384).map(|_| next() - 0.5).collect())
        .collect();
    let data = BtlData {
        probabilities: (0..40).map(|_| 0.05 + 0.9 * next()).collect(),
        labels: embeddings
            .iter()
            .map(|e| f64::from(u8::from(e[0] > 0.0)))
            .collect(),
        embeddings,
    };
    let head = Head::Btl(BtlParams::default().fit(&data).unwrap());
    let file = HeadFile::new(head.clone(), Some(0), &data)
        .to_json()
        .unwrap();
    (head, serde_json::from_str(&file).unwrap())
}

/// A finished run leaves its judgments in the session: the `.jsonl`, and — the judge's parsed
/// pairwise verdicts on items that name their models — battles in the items file's
/// orientation, which a leaderboard saved in the session reads. Judged by the stand-in fleet
/// (`tests/fleet.py`), whose every answer parses.
#[test]
fn a_finished_run_leaves_its_verdicts_as_battles_that_a_leaderboard_and_a_study_read() {
    let fleet = Fleet::start(1);
    let worker = api_worker("run-datasets", &["--fleet", &fleet.url()]);
    let (id, token) = create_session(&worker, "run datasets");
    let auth = format!("Authorization: Bearer {token}");
    let models = ["alpha", "beta", "gamma", "delta"];
    let mut items = String::from("id,instruction,response,response_b,model,model_b\n");
    for i in 0..24 {
        items.push_str(&format!(
            "q{i},Question {i}?,First answer {i},Second answer {i},{},{}\n",
            models[i % 4],
            models[(i + 1 + (i / 4) % 3) % 4]
        ));
    }
    let hash = upload_dataset(&worker, &id, &token, "items", "items.csv", items.as_bytes());
    let body = json!({
        "items": hash,
        "config": {
            "design": { "orders": "both" },
            "prompt": { "kind": "relative", "rubric": "Which answers better?" },
            "backend": fleet.backend(),
        }
    });
    let started = start_run(&worker, &id, &[&auth], &body);
    assert_eq!(
        started.status,
        202,
        "{}",
        String::from_utf8_lossy(&started.body)
    );
    // The datasets are stored before the run's last event: wait for them.
    let datasets = (0..300)
        .find_map(|_| {
            let session = session_view(&worker, &id);
            let datasets = session["datasets"].as_array().cloned().unwrap_or_default();
            if datasets.len() >= 4 {
                return Some(datasets);
            }
            std::thread::sleep(Duration::from_millis(100));
            None
        })
        .expect("the run's datasets within 30 s");
    let named = |name: &str| {
        datasets
            .iter()
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not among {datasets:?}"))
            .clone()
    };
    let download = |meta: &Value| {
        let path = format!(
            "/api/sessions/{id}/datasets/{}",
            meta["hash"].as_str().unwrap()
        );
        http(worker.authority(), "GET", &path, &[], b"").body
    };
    let jsonl = named("items-judgments.jsonl");
    assert_eq!(jsonl["kind"], "verdicts");
    assert_eq!(jsonl["rows"], 48);
    let judged: Vec<Value> = String::from_utf8(download(&jsonl))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Each verdict as the battle it is: `A` is the file's `response`, whichever order the
    // judge saw the pair in.
    let mut expected: Vec<String> = judged
        .iter()
        .map(|v| {
            let winner = match v["winner"].as_str().expect("every answer parses") {
                "A" => "model_a",
                "B" => "model_b",
                other => panic!("{other}"),
            };
            let row: usize = v["id"].as_str().unwrap()[1..].parse().unwrap();
            format!(
                "{},{},{},{winner}",
                v["id"].as_str().unwrap(),
                models[row % 4],
                models[(row + 1 + (row / 4) % 3) % 4]
            )
        })
        .collect();
    let battles_meta = named("items-judge-battles.csv");
    assert_eq!(battles_meta["kind"], "battles");
    let battles = download(&battles_meta);
    let mut rows: Vec<String> = String::from_utf8(battles.clone())
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect();
    rows.sort();
    expected.sort();
    assert_eq!(rows, expected);
    // The fleet's verdicts depend on the order shown: the two orders of a pair can disagree.
    assert!(judged
        .iter()
        .any(|v| v["order"] == "ba" && v["label"] == "A"));

    // A leaderboard of the judge's battles, saved in the session and recomputed.
    let mut inputs = tribunal::analysis::Inputs::new();
    inputs.insert("battles", "items-judge-battles.csv", battles.clone());
    let spec = tribunal::analysis::Spec::new(
        tribunal::analysis::Analysis::Leaderboard(
            tribunal::rankings::kinds::LeaderboardSpec::default(),
        ),
        &inputs,
    );
    save_analysis(&worker, &id, &auth, "the judge's leaderboard", &spec);
    let tribunal::analysis::Report::Leaderboard(board) =
        tribunal::analysis::run(&spec, &inputs).unwrap()
    else {
        panic!("a leaderboard spec gives a leaderboard");
    };
    assert_eq!(board.ratings.len(), 4);
    let wins: u64 = board.ratings.iter().map(|r| r.wins).sum();
    assert_eq!(wins, 48, "every battle has a winner");

    // Both orders judged every pair: one verdict per pair as well, the orders' agreement or a
    // tie where they disagree, for a study against the humans joined on `id`.
    let per_pair_meta = named("items-judge-battles-per-pair.csv");
    assert_eq!(per_pair_meta["kind"], "battles");
    let per_pair = download(&per_pair_meta);
    let mut by_id: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in &expected {
        let fields: Vec<&str> = row.split(',').collect();
        by_id.entry(fields[0]).or_default().push(row.as_str());
    }
    let mut want: Vec<String> = by_id
        .values()
        .map(|rows| {
            let winners: Vec<&str> = rows.iter().map(|r| r.rsplit(',').next().unwrap()).collect();
            let head = rows[0].rsplit_once(',').unwrap().0;
            let winner = if winners[0] == winners[1] {
                winners[0]
            } else {
                "tie"
            };
            format!("{head},{winner}")
        })
        .collect();
    let mut got: Vec<String> = String::from_utf8(per_pair.clone())
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert!(
        got.iter().any(|r| r.ends_with(",tie")),
        "some orders disagree"
    );
    // The humans' verdicts on the same pairs (the first model wins every third pair), uploaded;
    // the judge study on the per-pair battles saves and joins every pair. The per-judgment
    // battles are refused with a message that names the per-pair file.
    let mut humans = String::from("id,model_a,model_b,winner\n");
    for (i, row) in want.iter().enumerate() {
        let head = row.rsplit_once(',').unwrap().0;
        let winner = if i % 3 == 0 { "model_a" } else { "model_b" };
        humans.push_str(&format!("{head},{winner}\n"));
    }
    let stored = http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/datasets?kind=battles&name=humans.csv"),
        &[&auth],
        humans.as_bytes(),
    );
    assert_eq!(stored.status, 201);
    let study = |judge: &str, bytes: Vec<u8>| {
        let mut inputs = tribunal::analysis::Inputs::new();
        inputs.insert("human", "humans.csv", humans.clone().into_bytes());
        inputs.insert("judge", judge, bytes);
        let analysis =
            tribunal::analysis::Analysis::JudgeStudy(tribunal::rankings::kinds::StudySpec {
                key: Some("id".to_owned()),
                ..Default::default()
            });
        let spec = tribunal::analysis::Spec::new(analysis, &inputs);
        (spec, inputs)
    };
    let (spec, inputs) = study("items-judge-battles-per-pair.csv", per_pair);
    save_analysis(&worker, &id, &auth, "the judge against the humans", &spec);
    let tribunal::analysis::Report::JudgeStudy(report) =
        tribunal::analysis::run(&spec, &inputs).unwrap()
    else {
        panic!("a study spec gives a study");
    };
    assert_eq!(
        report.join.as_ref().map(|j| j.matched_human_battles),
        Some(24)
    );
    let (spec, inputs) = study("items-judge-battles.csv", battles);
    let refused = tribunal::analysis::run(&spec, &inputs).unwrap_err();
    assert!(
        refused.to_string().contains("-judge-battles-per-pair.csv"),
        "{refused}"
    );
}

/// Saves `spec` in session `id` under `title` (`auth`: the owner's header); it must be accepted.
fn save_analysis(
    worker: &Worker,
    id: &str,
    auth: &str,
    title: &str,
    spec: &tribunal::analysis::Spec,
) {
    let saved = http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/analyses"),
        &[auth, "Content-Type: application/json"],
        json!({ "title": title, "spec": spec })
            .to_string()
            .as_bytes(),
    );
    assert_eq!(
        saved.status,
        201,
        "{title}: {}",
        String::from_utf8_lossy(&saved.body)
    );
}

/// One-line questions, each with a right and a wrong answer, for SmolLM2 to judge quickly.
const QUESTIONS: [(&str, &str, &str); 12] = [
    ("What is 2 + 2?", "4", "5"),
    ("What is the capital of France?", "Paris", "Berlin"),
    ("What colour is the sky on a clear day?", "Green", "Blue"),
    ("How many legs does a spider have?", "Eight", "Six"),
    ("What is 10 times 3?", "13", "30"),
    ("Which planet is closest to the sun?", "Mercury", "Mars"),
    ("What is the opposite of hot?", "Cold", "Warm"),
    ("How many days are in a week?", "Five", "Seven"),
    ("What do bees make?", "Honey", "Milk"),
    (
        "What is the boiling point of water in Celsius?",
        "100",
        "50",
    ),
    ("Which animal barks?", "A cat", "A dog"),
    ("What is 9 minus 4?", "5", "3"),
];

/// Each item's confidence from a run's judgments, computed here from the definition: the mean
/// over the item's judgments of p_s in the file's orientation (`A` and `B` exchanged for the
/// order `ba`), a judgment that did not parse counting as none; the largest label's mean.
fn confidences(jsonl: &str) -> BTreeMap<String, f64> {
    let mut mass: BTreeMap<String, ([f64; 2], usize)> = BTreeMap::new();
    for line in jsonl.lines() {
        let j: Value = serde_json::from_str(line).unwrap();
        let entry = mass
            .entry(j["id"].as_str().unwrap().to_owned())
            .or_default();
        entry.1 += 1;
        if !j["parse_error"].is_null() {
            continue;
        }
        let (a, b) = (
            j["label_probs"]["A"].as_f64().unwrap_or(0.0),
            j["label_probs"]["B"].as_f64().unwrap_or(0.0),
        );
        if a + b <= 0.0 {
            continue;
        }
        let (a, b) = if j["order"] == "ba" { (b, a) } else { (a, b) };
        entry.0[0] += a / (a + b);
        entry.0[1] += b / (a + b);
    }
    mass.into_iter()
        .map(|(id, ([a, b], n))| (id, a.max(b) / n as f64))
        .collect()
}

/// A cascade (`escalate`) through two llama.cpp servers of the fleet (SmolLM2 behind the GGUF's
/// chat template, then behind Alpaca's): the first judge judges every item in both orders, the
/// items below its threshold — and exactly those — go to the second, and those below the
/// second's threshold become the session's items file for people. The server is SIGKILLed
/// while the second judge is at work; `tribunal work` on the same store finishes the run, and
/// a restarted server shows every event once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cascade_through_two_fleet_judges_escalates_exactly_the_unconfident_items_and_survives_a_kill(
) {
    let (first, second) = (
        LlamaServer::start(&[]),
        LlamaServer::start(&["--chat_format", "alpaca"]),
    );
    let dist = temp_dir("cascade-run-dist");
    std::fs::write(dist.join("index.html"), "<!DOCTYPE html><title>app</title>").unwrap();
    let no_models = temp_dir("cascade-run-no-models");
    let (first_url, second_url) = (first.url(), second.url());
    let serve_args = [
        "--fleet",
        first_url.as_str(),
        "--fleet",
        second_url.as_str(),
        "--models",
        no_models.to_str().unwrap(),
    ];
    let worker = Worker::start_with("cascade-run", &dist, &serve_args);
    let data_dir = worker.data_dir.clone();
    let (id, token) = create_session(&worker, "cascade");
    let mut items = csv::Writer::from_writer(Vec::new());
    items
        .write_record(["id", "instruction", "response", "response_b"])
        .unwrap();
    for (k, (q, a, b)) in QUESTIONS.iter().enumerate() {
        items
            .write_record([format!("q{}", k + 1).as_str(), q, a, b])
            .unwrap();
    }
    let items = items.into_inner().unwrap();
    let hash = upload_dataset(&worker, &id, &token, "items", "toy.csv", &items);
    let (t1, t2) = (0.6, 0.55);
    let config = |tier_url: &str| {
        json!({
            "prompt": { "kind": "template", "template": {
                "system": "You are a fair judge. You answer in one line.",
                "user": "Question: {instruction}\n\nResponse A: {response}\n\nResponse B: {response_b}\n\nWhich response is correct? Answer with one letter. The better response is",
                "labels": ["A", "B"],
                "marker": "The better response is"
            } },
            "design": { "orders": "both" },
            "decoding": { "max_tokens": 16 },
            "backend": { "kind": "openai", "url": first_url, "model": "smollm2-chat", "grammar": "gbnf" },
            "escalate": { "threshold": t1, "tiers": [
                { "url": tier_url, "model": "smollm2-alpaca", "threshold": t2 }
            ] }
        })
    };
    let auth = format!("Authorization: Bearer {token}");
    // A later judge must be a fleet the operator listed.
    let refused = start_run(
        &worker,
        &id,
        &[&auth],
        &json!({ "items": hash, "config": config("http://127.0.0.1:9/v1") }),
    );
    assert_eq!(refused.status, 422);
    let message = refused.json()["error"].as_str().unwrap().to_owned();
    assert!(message.contains("escalate.tiers[0]"), "{message}");

    let started = start_run(
        &worker,
        &id,
        &[&auth],
        &json!({ "items": hash, "config": config(&second_url) }),
    );
    assert_eq!(
        started.status,
        202,
        "{}",
        String::from_utf8_lossy(&started.body)
    );
    let stream = started.json()["stream"].as_str().unwrap().to_owned();
    assert_eq!(started.json()["total"], 24);

    // Live: the first judge's judgments, its escalation, then the second judge's first
    // judgment — and the server is killed mid-way through the second judge.
    let before_kill = watch_until(&worker, &stream, 0, Duration::from_secs(300), |events| {
        events
            .iter()
            .position(|(_, _, e)| matches!(e, RunEvent::Escalated { .. }))
            .is_some_and(|at| events.len() > at + 1)
    })
    .await;
    assert!(
        before_kill
            .iter()
            .any(|(_, _, e)| matches!(e, RunEvent::Escalated { .. })),
        "{before_kill:?}"
    );
    drop(worker);

    // Any worker on the store finishes it, once the dead server's claims lapse.
    let work = run_tribunal(&[
        "work",
        "--data-dir",
        data_dir.to_str().unwrap(),
        "--models",
        no_models.to_str().unwrap(),
        "--lease-seconds",
        "2",
        "--idle-exit",
        "4",
    ]);
    let work_log = String::from_utf8_lossy(&work.stderr).into_owned();
    assert!(work.status.success(), "{work_log}");
    let made: usize = work_log
        .split("worker idle; ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{work_log}"));
    assert!(
        made > 0,
        "the kill came after the second judge finished: {work_log}"
    );

    let worker = Worker::start_in(data_dir, &dist, &serve_args);
    let events = watch(&worker, &stream, 0, Duration::from_secs(10)).await;
    assert!(
        matches!(events[0].2, RunEvent::Started { total: 24 }),
        "{:?}",
        events[0]
    );
    let escalated_at = events
        .iter()
        .position(|(_, _, e)| matches!(e, RunEvent::Escalated { .. }))
        .unwrap();
    let RunEvent::Escalated {
        tier: first_tier,
        next_total,
        ..
    } = &events[escalated_at].2
    else {
        unreachable!()
    };
    let judged = |range: &[(i64, u32, RunEvent)]| {
        let keys: Vec<(String, String)> = range
            .iter()
            .map(|(_, _, e)| match e {
                RunEvent::Judgment(j) => (j.item.clone(), j.order.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        let distinct: std::collections::BTreeSet<_> = keys.iter().cloned().collect();
        assert_eq!(
            distinct.len(),
            keys.len(),
            "a judgment's event twice: {keys:?}"
        );
        distinct
    };
    // Every judgment's event once, the first judge's then the second's, then the end.
    assert_eq!(judged(&events[1..escalated_at]).len(), 24);
    let last = events.len() - 1;
    assert_eq!(
        judged(&events[escalated_at + 1..last]).len(),
        *next_total as usize
    );
    let RunEvent::Finished {
        judgments,
        tier: Some(second_tier),
        ..
    } = &events[last].2
    else {
        panic!("{:?}", events[last]);
    };
    assert_eq!(*judgments as usize, 24 + *next_total as usize);
    for (k, (_, seq, _)) in events.iter().enumerate() {
        assert_eq!(*seq as usize, k + 1);
    }

    // Exactly the items below each threshold went on: recomputed here from the stored
    // judgments, which are datasets of the session.
    let session = session_view(&worker, &id);
    let datasets = session["datasets"].as_array().unwrap().clone();
    let download = |name: &str| {
        let meta = datasets
            .iter()
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not among {datasets:?}"));
        let path = format!(
            "/api/sessions/{id}/datasets/{}",
            meta["hash"].as_str().unwrap()
        );
        String::from_utf8(http(worker.authority(), "GET", &path, &[], b"").body).unwrap()
    };
    let ids_of = |csv_text: &str| -> std::collections::BTreeSet<String> {
        csv::Reader::from_reader(csv_text.as_bytes())
            .records()
            .map(|r| r.unwrap()[0].to_owned())
            .collect()
    };
    let c1 = confidences(&download("toy-judgments.jsonl"));
    let c2 = confidences(&download("toy.tier2-judgments.jsonl"));
    assert_eq!(c1.len(), 12);
    let below = |c: &BTreeMap<String, f64>, t: f64| -> std::collections::BTreeSet<String> {
        c.iter()
            .filter(|(_, &v)| v < t)
            .map(|(k, _)| k.clone())
            .collect()
    };
    let passed = below(&c1, t1);
    assert_eq!(
        c2.keys()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        passed
    );
    assert_eq!(*next_total as usize, 2 * passed.len());
    let people = below(&c2, t2);
    let for_people = download("toy.to-people.csv");
    assert_eq!(ids_of(&for_people), people);
    // An items file to label: the items' columns and an empty `human` column.
    assert!(
        for_people.starts_with("id,instruction,response,response_b,human\n"),
        "{for_people}"
    );
    // The judges each kept some and passed some on (SmolLM2's greedy answers are fixed).
    assert!(!passed.is_empty() && passed.len() < 12, "{c1:?}");
    assert!(!people.is_empty() && people.len() < passed.len(), "{c2:?}");
    assert_eq!(
        (
            first_tier.tier,
            first_tier.items,
            first_tier.kept,
            first_tier.passed_on
        ),
        (1, 12, (12 - passed.len()) as u32, passed.len() as u32)
    );
    assert_eq!(
        (first_tier.judge.as_str(), first_tier.to.as_str()),
        ("smollm2-chat", "smollm2-alpaca")
    );
    assert_eq!(
        (
            second_tier.tier,
            second_tier.kept,
            second_tier.passed_on,
            second_tier.to.as_str()
        ),
        (
            2,
            (passed.len() - people.len()) as u32,
            people.len() as u32,
            "people"
        )
    );
    // The cascade's judgments file: each judge's verdicts and confidences, what the `cascade`
    // analysis reads once people have labelled the items.
    let file = download("toy.cascade.csv");
    let mut rows = 0;
    for record in csv::Reader::from_reader(file.as_bytes()).records() {
        let r = record.unwrap();
        let c = if &r[1] == "smollm2-chat" { &c1 } else { &c2 };
        let confidence: f64 = r[3].parse().unwrap();
        assert!((confidence - c[&r[0]]).abs() < 1e-12, "{r:?}");
        rows += 1;
    }
    assert_eq!(rows, 12 + passed.len());

    // `tribunal judge` with the same settings on the same store and session finds every
    // judgment stored (nothing is judged again) and writes the same files.
    let dir = temp_dir("cascade-cli");
    let toml = format!(
        "[prompt]\nkind = \"template\"\n[prompt.template]\n\
         system = \"You are a fair judge. You answer in one line.\"\n\
         user = \"Question: {{instruction}}\\n\\nResponse A: {{response}}\\n\\nResponse B: \
         {{response_b}}\\n\\nWhich response is correct? Answer with one letter. The better \
         response is\"\nlabels = [\"A\", \"B\"]\nmarker = \"The better response is\"\n\
         [design]\norders = \"both\"\n[decoding]\nmax_tokens = 16\n\
         [backend]\nkind = \"openai\"\nurl = \"{first_url}\"\nmodel = \"smollm2-chat\"\ngrammar = \"gbnf\"\n\
         [escalate]\nthreshold = {t1}\n[[escalate.tiers]]\nurl = \"{second_url}\"\n\
         model = \"smollm2-alpaca\"\nthreshold = {t2}\n"
    );
    std::fs::write(dir.join("cascade.toml"), toml).unwrap();
    std::fs::write(dir.join("toy.csv"), &items).unwrap();
    let out = dir.join("toy.jsonl");
    let judged_again = run_tribunal(&[
        "judge",
        "--config",
        dir.join("cascade.toml").to_str().unwrap(),
        "--input",
        dir.join("toy.csv").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--data-dir",
        worker.data_dir.to_str().unwrap(),
        "--session",
        stream.trim_start_matches("run:"),
        "--models",
        no_models.to_str().unwrap(),
    ]);
    let log = String::from_utf8_lossy(&judged_again.stderr).into_owned();
    assert!(judged_again.status.success(), "{log}");
    assert!(log.contains("24 judgments (0 now,"), "{log}");
    let written =
        |suffix: &str| std::fs::read_to_string(format!("{}.{suffix}", out.display())).unwrap();
    assert_eq!(written("cascade.csv"), file);
    assert_eq!(ids_of(&written("to-people.csv")), people);
    assert_eq!(confidences(&written("tier2.jsonl")), c2);

    // Started again, the cascade goes through to its end again with nothing judged anew.
    let last_event = events.last().unwrap().0;
    let again = start_run(
        &worker,
        &id,
        &[&auth],
        &json!({ "items": hash, "config": config(&second_url) }),
    );
    assert_eq!(again.status, 202);
    let resumed = watch(&worker, &stream, last_event, Duration::from_secs(60)).await;
    let kinds: Vec<&str> = resumed
        .iter()
        .map(|(_, _, e)| match e {
            RunEvent::Started { .. } => "started",
            RunEvent::Escalated { .. } => "escalated",
            RunEvent::Finished { .. } => "finished",
            RunEvent::Judgment(_) => "judgment",
            RunEvent::Failed { .. } => "failed",
        })
        .collect();
    assert_eq!(kinds, ["started", "escalated", "finished"]);
}

/// A cascade started from the run form (`cascade_run.mjs`) on two stand-in fleets: the run's page
/// shows each judge's line as it finishes — what it kept, passed on and to whom — equal to the
/// run's stored events, the progress counts the second judge's judgments too, and the session
/// gets the cascade's file and, when the second judge passed any on, the items for people. The
/// second fleet holds every request (`POST /hold`) until the driver has reloaded the page, once
/// the first judge's line showed, and read the session — which then holds the first judge's
/// record but not the cascade's file — and released it (`POST /release`); the file still
/// appears at the run's end (the page read the session again because not every judge's record
/// was in it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cascade_started_from_the_page_shows_each_judge_as_it_finishes() {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "run `trunk build --release` first"
    );
    let (first, second) = (Fleet::start(1), Fleet::start(1));
    assert_eq!(
        http(&second.authority, "POST", "/hold", &[], b"{}").status,
        200
    );
    let no_models = temp_dir("cascade-page-no-models");
    let worker = Worker::start_with(
        "cascade-page",
        &dist,
        &[
            "--fleet",
            &first.url(),
            "--fleet",
            &second.url(),
            "--models",
            no_models.to_str().unwrap(),
        ],
    );
    let page = run_browser_driver("cascade_run.mjs", [worker.url.clone()]);
    assert_eq!(page["pageErrors"], json!([]), "{page}");
    assert_eq!(page["startableWithoutSecond"], false);
    assert_eq!(page["startableWithSecond"], true);
    assert_eq!(page["nextJudges"], json!([first.url(), second.url()]));
    assert_eq!(page["notReloaded"], true);
    assert_eq!(page["finishedBeforeReload"], false, "{page}");
    assert_eq!(page["firstRecordRead"], "1", "{page}");

    let stream = page["stream"].as_str().unwrap().to_owned();
    let events = watch(&worker, &stream, 0, Duration::from_secs(10)).await;
    let mut outcomes = Vec::new();
    let mut judgments = 0;
    for (_, _, event) in &events {
        match event {
            RunEvent::Escalated { tier, .. } => outcomes.push(tier.clone()),
            RunEvent::Finished { tier, .. } => outcomes.extend(tier.clone()),
            RunEvent::Judgment(_) => judgments += 1,
            _ => {}
        }
    }
    // Three pairs in both orders; no stand-in verdict is 0.95 sure in both, so all go on.
    assert_eq!(outcomes.len(), 2, "{events:?}");
    assert_eq!((outcomes[0].items, outcomes[0].passed_on), (3, 3));
    assert_eq!(first.stats()["requests"], 6);
    assert_eq!(second.stats()["requests"], 6);
    let shown: Vec<Value> = outcomes
        .iter()
        .map(|t| {
            json!({
                "tier": t.tier.to_string(),
                "kept": t.kept.to_string(),
                "passed": t.passed_on.to_string(),
                "judge": format!("{}. {}", t.tier, t.judge),
                "threshold": format!("{:.3}", t.threshold),
                "to": if t.to == "people" { "people (the session's to-people file)".to_owned() } else { t.to.clone() },
            })
        })
        .collect();
    assert_eq!(page["tiers"], json!(shown), "{events:?}");
    assert_eq!(outcomes[0].to, "second");
    assert_eq!(
        (
            page["status"]["judged"].as_str(),
            page["status"]["total"].as_str()
        ),
        (Some("12"), Some("12"))
    );
    assert_eq!(judgments, 12);
    let datasets: Vec<&str> = page["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(
        datasets.contains(&"llmfao-items.cascade.csv"),
        "{datasets:?}"
    );
    assert_eq!(
        datasets.contains(&"llmfao-items.to-people.csv"),
        outcomes[1].passed_on > 0,
        "{datasets:?}"
    );
    let width = &page["width"];
    assert!(
        width["page"].as_f64() <= width["window"].as_f64(),
        "{width}"
    );
}
