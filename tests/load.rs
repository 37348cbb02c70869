//! A bounded loopback load test: one judge run inside `tribunal serve` (judging through the
//! stand-in fleet, `tests/fleet.py`, so events come as fast as the server stores them) watched
//! by 100 WebSocket viewers at once, plus one slow viewer that stops reading for seconds. Every
//! viewer must get every event of the stream exactly once and in order; the server's peak
//! memory must stay bounded. The delivered rate is printed (BENCHMARKS.md and
//! docs/reliability.md quote it), not asserted. Across processes: two servers on one
//! PostgreSQL, a run started on one, a viewer on each — both get every event once, in order;
//! and with a `tribunal work` process beside them judging the run too, the server that
//! started it killed mid-way: the work process finishes it, and every viewer (the dead
//! server's one reconnecting to the other server) still gets every event once, in order.

use futures_util::{SinkExt, StreamExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use tribunal::sessions::protocol::{decode, encode, ClientMessage, RunEvent, ServerMessage};
use tribunal_e2e::{
    api_worker, create_session, root, start_run, tribunal_bin, upload_dataset, Fleet, Worker,
};

const VIEWERS: usize = 100;
const ITEMS: usize = 3000;

/// Watches `stream` from the start to the run's end; returns the events received and when
/// the first and last came. Panics on a gap, a repeat or an error.
async fn view(
    authority: String,
    stream: String,
    stall: Option<Duration>,
) -> (u64, Instant, Instant) {
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{authority}/ws"))
        .await
        .expect("websocket connects");
    let watch = encode(&ClientMessage::Watch {
        stream: stream.clone(),
        after: 0,
    });
    socket.send(Message::Text(watch.into())).await.unwrap();
    let (mut expected, mut count) = (1u32, 0u64);
    let mut first = None;
    loop {
        let message = tokio::time::timeout(Duration::from_secs(60), socket.next())
            .await
            .expect("an event within 60 s")
            .expect("the stream stays open")
            .expect("a valid frame");
        let Message::Text(text) = message else {
            continue;
        };
        match decode::<ServerMessage>(text.as_str()).expect("decodes") {
            ServerMessage::Hello { .. } => {}
            ServerMessage::Run { seq, event, .. } => {
                assert_eq!(seq, expected, "an event was dropped or repeated");
                expected += 1;
                count += 1;
                let now = Instant::now();
                first.get_or_insert(now);
                if let (Some(pause), 10) = (stall, count) {
                    // Stop reading: the server must neither buffer without bound nor skip.
                    tokio::time::sleep(pause).await;
                }
                if matches!(event, RunEvent::Finished { .. } | RunEvent::Failed { .. }) {
                    assert!(matches!(event, RunEvent::Finished { .. }), "{event:?}");
                    return (count, first.unwrap_or(now), now);
                }
            }
            other => panic!("{other:?}"),
        }
    }
}

/// An items file of `n` pairs to judge.
fn pairs(n: usize) -> String {
    let mut items = String::from("id,instruction,response,response_b\n");
    for i in 0..n {
        items.push_str(&format!("q{i},Question {i}?,First {i},Second {i}\n"));
    }
    items
}

/// A two-thread runtime for the viewers.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The server's peak resident memory in KiB (`VmHWM`).
fn peak_kib(worker: &Worker) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", worker.pid())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

#[test]
fn a_hundred_viewers_get_every_event_of_a_live_run_and_a_slow_one_costs_no_memory() {
    let fleet = Fleet::start(2);
    let worker = api_worker("load", &["--fleet", &fleet.url()]);
    let (id, token) = create_session(&worker, "load");
    let mut items = String::from("id,instruction,response,response_b\n");
    for i in 0..ITEMS {
        items.push_str(&format!(
            "q{i},Question {i}?,First answer {i},Second answer {i}\n"
        ));
    }
    let hash = upload_dataset(&worker, &id, &token, "items", "items.csv", items.as_bytes());
    let auth = format!("Authorization: Bearer {token}");
    let baseline = peak_kib(&worker);
    let body = fleet.run_body(&hash);
    let started = start_run(&worker, &id, &[&auth], &body);
    assert_eq!(
        started.status,
        202,
        "{}",
        String::from_utf8_lossy(&started.body)
    );
    let stream = started.json()["stream"].as_str().unwrap().to_owned();

    let runtime = runtime();
    let results = runtime.block_on(async {
        let mut viewers = Vec::new();
        for k in 0..=VIEWERS {
            let stall = (k == VIEWERS).then_some(Duration::from_secs(6));
            viewers.push(tokio::spawn(view(
                worker.authority().to_owned(),
                stream.clone(),
                stall,
            )));
        }
        let mut results = Vec::new();
        for v in viewers {
            results.push(v.await.expect("a viewer panicked"));
        }
        results
    });
    let events = (ITEMS + 2) as u64;
    for (k, (count, _, _)) in results.iter().enumerate() {
        assert_eq!(*count, events, "viewer {k}");
    }
    let fast = &results[..VIEWERS];
    let from = fast.iter().map(|r| r.1).min().unwrap();
    let to = fast.iter().map(|r| r.2).max().unwrap();
    let seconds = to.duration_since(from).as_secs_f64();
    let peak = peak_kib(&worker);
    eprintln!(
        "load: {VIEWERS} viewers × {events} events in {seconds:.2} s = {:.0} events/s delivered; \
         slow viewer complete; server peak RSS {} MiB (before the run {} MiB)",
        (VIEWERS as u64 * events) as f64 / seconds,
        peak / 1024,
        baseline / 1024
    );
    assert!(
        peak < 512 * 1024,
        "the server's peak RSS grew to {} MiB",
        peak / 1024
    );
}

/// Two `tribunal serve` processes on one PostgreSQL: a run started on one is watched from
/// both; each viewer gets every event once and in order — the other process's viewer by
/// reading the stream back from the store.
#[test]
fn viewers_on_another_server_process_get_every_event_in_order() {
    const RUN_ITEMS: usize = 300;
    let fleet = Fleet::start(5);
    let url = tribunal_e2e::postgres_database("cross_process");
    let args = ["--store", url.as_str(), "--fleet", &fleet.url()];
    let a = api_worker("cross-process-a", &args);
    let b = api_worker("cross-process-b", &args);
    let (id, token) = create_session(&a, "across processes");
    let items = pairs(RUN_ITEMS);
    let hash = upload_dataset(&a, &id, &token, "items", "items.csv", items.as_bytes());
    let body = fleet.run_body(&hash);
    let auth = format!("Authorization: Bearer {token}");
    let started = start_run(&a, &id, &[&auth], &body);
    assert_eq!(started.status, 202);
    let stream = started.json()["stream"].as_str().unwrap().to_owned();
    let runtime = runtime();
    let (here, there) = runtime.block_on(async {
        let here = tokio::spawn(view(a.authority().to_owned(), stream.clone(), None));
        let there = tokio::spawn(view(b.authority().to_owned(), stream.clone(), None));
        (here.await.unwrap(), there.await.unwrap())
    });
    assert_eq!([here.0, there.0], [RUN_ITEMS as u64 + 2; 2]);
    let seconds =
        |(_, first, last): (u64, Instant, Instant)| last.duration_since(first).as_secs_f64();
    eprintln!(
        "cross-process: {} events; the run's process delivered them in {:.2} s, the other \
         process in {:.2} s, its last {:.0} ms after the first's",
        here.0,
        seconds(here),
        seconds(there),
        there.2.saturating_duration_since(here.2).as_secs_f64() * 1000.0
    );
}

/// Follows `stream` from the first of `servers`; when that connection ends (its server was
/// killed), from the next one, after the last event id it had. Returns the seq of every event
/// received, to the run's end, and counts them in `seen` as they come.
async fn follow(servers: Vec<String>, stream: String, seen: Arc<AtomicU64>) -> Vec<u32> {
    let (mut seqs, mut last_id) = (Vec::new(), 0);
    for authority in servers {
        let Ok((mut socket, _)) =
            tokio_tungstenite::connect_async(format!("ws://{authority}/ws")).await
        else {
            continue;
        };
        let watch = encode(&ClientMessage::Watch {
            stream: stream.clone(),
            after: last_id,
        });
        socket.send(Message::Text(watch.into())).await.unwrap();
        loop {
            let message = tokio::time::timeout(Duration::from_secs(60), socket.next())
                .await
                .expect("an event within 60 s");
            let Some(Ok(message)) = message else {
                break; // the server is gone: go on from the next one
            };
            let Message::Text(text) = message else {
                continue;
            };
            match decode::<ServerMessage>(text.as_str()).expect("decodes") {
                ServerMessage::Hello { .. } => {}
                ServerMessage::Run {
                    seq,
                    event_id,
                    event,
                    ..
                } => {
                    seqs.push(seq);
                    last_id = event_id;
                    seen.fetch_add(1, Ordering::SeqCst);
                    if let RunEvent::Finished { judgments, .. } = event {
                        assert_eq!(judgments, 300, "every judgment counted once");
                        return seqs;
                    }
                    assert!(!matches!(event, RunEvent::Failed { .. }), "{event:?}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
    panic!("no server left to follow {stream} to its end; got {seqs:?}")
}

/// A run started from the app on server A is judged by A and by a `tribunal work` process on
/// the same PostgreSQL; A is killed mid-way. The work process takes A's lapsed units over and
/// ends the run; a viewer on server B and one on A (reconnecting to B) get every event — the
/// start, 300 judgments, the end — once and in order.
#[test]
fn a_work_process_finishes_a_run_whose_server_died_and_viewers_keep_every_event() {
    const RUN_ITEMS: usize = 300;
    let fleet = Fleet::start(20);
    let url = tribunal_e2e::postgres_database("takeover");
    let args = ["--store", url.as_str(), "--fleet", &fleet.url()];
    let mut a = Some(api_worker("takeover-a", &args));
    let b = api_worker("takeover-b", &args);
    let work = Command::new(tribunal_bin())
        .args(["work", "--store", &url, "--worker", "w", "--idle-exit", "5"])
        .current_dir(root())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting tribunal work");
    let server_a = a.as_ref().map(|a| a.authority().to_owned()).unwrap();
    let server_b = b.authority().to_owned();
    let (id, token) = create_session(a.as_ref().unwrap(), "taken over");
    let items = pairs(RUN_ITEMS);
    let hash = upload_dataset(
        a.as_ref().unwrap(),
        &id,
        &token,
        "items",
        "items.csv",
        items.as_bytes(),
    );
    let auth = format!("Authorization: Bearer {token}");
    let started = start_run(a.as_ref().unwrap(), &id, &[&auth], &fleet.run_body(&hash));
    assert_eq!(started.status, 202);
    let stream = started.json()["stream"].as_str().unwrap().to_owned();

    let runtime = runtime();
    let seen_a = Arc::new(AtomicU64::new(0));
    let seen_b = Arc::new(AtomicU64::new(0));
    let on_a = runtime.spawn(follow(
        vec![server_a, server_b.clone()],
        stream.clone(),
        seen_a.clone(),
    ));
    let on_b = runtime.spawn(follow(vec![server_b], stream, seen_b.clone()));
    let deadline = Instant::now() + Duration::from_secs(60);
    while seen_b.load(Ordering::SeqCst) < 80 {
        assert!(Instant::now() < deadline, "the run did not get going");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(a.take()); // kills server A mid-run
    let at_kill = seen_b.load(Ordering::SeqCst);
    assert!(
        at_kill < 250,
        "the kill came too late to test a takeover ({at_kill} events)"
    );
    let (here, there) = runtime.block_on(async { (on_a.await.unwrap(), on_b.await.unwrap()) });
    let every: Vec<u32> = (1..=RUN_ITEMS as u32 + 2).collect();
    assert_eq!(here, every, "the dead server's viewer, reconnected");
    assert_eq!(there, every, "the other server's viewer");
    let output = work.wait_with_output().expect("waiting for tribunal work");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "tribunal work failed: {stderr}");
    let made: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("tribunal: worker idle; "))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no count in: {stderr}"));
    // B judges nothing, so the run's end after A's death is the work process's doing.
    assert!(made > 0, "the work process judged none");
    assert_eq!(fleet.stats()["distinct"].as_u64(), Some(RUN_ITEMS as u64));
    eprintln!(
        "takeover: server A killed after {at_kill} events; the work process judged {made} of \
         {RUN_ITEMS}; both viewers got all {} events in order",
        RUN_ITEMS + 2
    );
}
