//! Scale-out and crash safety of judge runs: real `tribunal judge` / `tribunal work` processes
//! on a real PostgreSQL (`TRIBUNAL_TEST_POSTGRES`, started on loopback by scripts/test.sh) or
//! SQLite, judging through the OpenAI-compatible backend. The inference fleet is
//! `tests/fleet.py`, a stand-in (no GPU fleet exists here) with a fixed service time and
//! deterministic verdicts, which counts every request so "judged exactly once" is checked at
//! the fleet, not only in the store.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tribunal_e2e::{postgres_database, root, temp_dir, tribunal_bin, write_csv, Fleet};

/// `n` pairwise items.
fn items(dir: &Path, n: usize) -> PathBuf {
    let rows: Vec<String> = (0..n)
        .map(|i| format!("q{i},Question {i}?,First answer {i},Second answer {i}"))
        .collect();
    write_csv(
        dir,
        "items.csv",
        "id,instruction,response,response_b",
        &rows,
    )
}

/// `tribunal judge` on `items` with the store `store` (`--store URL` or `--data-dir DIR`).
fn judge_command(
    config: &Path,
    items: &Path,
    out: &Path,
    store: &[&str],
    extra: &[&str],
) -> Command {
    let mut command = Command::new(tribunal_bin());
    command
        .arg("judge")
        .arg("--config")
        .arg(config)
        .arg("--input")
        .arg(items)
        .arg("--out")
        .arg(out)
        .args(["--session", "scale"])
        .args(store)
        .args(extra)
        .current_dir(root())
        .stderr(Stdio::piped());
    command
}

fn judge_ok(command: &mut Command) {
    let output = command.output().expect("running tribunal judge");
    assert!(
        output.status.success(),
        "tribunal judge failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every judgment of a JSONL output keyed by (item, order, repeat, variant), with the
/// wall-clock `seconds` left out; panics on a duplicate key or a line that is not JSON.
fn judgments(out: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(out).expect("reading the judge's output");
    let mut all = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let mut v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}, line {}: not JSON ({e})", out.display(), i + 1));
        let key = format!(
            "{}|{}|{}|{}",
            v["id"], v["order"], v["repeat"], v["variant"]
        );
        v.as_object_mut().expect("an object").remove("seconds");
        assert!(
            all.insert(key.clone(), v).is_none(),
            "{key} is stored twice"
        );
    }
    all
}

#[test]
fn three_workers_on_postgres_judge_10k_items_once_each_and_agree_with_one() {
    const N: usize = 10_000;
    let dir = temp_dir("scale-out");
    let fleet = Fleet::start(8);
    let config = fleet.config(&dir);
    let items = items(&dir, N);

    let single_db = postgres_database("single");
    let single_out = dir.join("single.jsonl");
    let started = Instant::now();
    judge_ok(&mut judge_command(
        &config,
        &items,
        &single_out,
        &["--store", &single_db],
        &[],
    ));
    let single = started.elapsed();
    let asked = fleet.stats();
    assert_eq!(
        (asked["requests"].as_u64(), asked["distinct"].as_u64()),
        (Some(N as u64), Some(N as u64))
    );

    fleet.reset();
    let multi_db = postgres_database("multi");
    let multi_out = dir.join("multi.jsonl");
    let multi_log = dir.join("multi.stderr");
    let log = || std::fs::read_to_string(&multi_log).unwrap_or_default();
    let started = Instant::now();
    let mut first = judge_command(
        &config,
        &items,
        &multi_out,
        &["--store", &multi_db],
        &["--worker", "w1"],
    )
    .stderr(std::fs::File::create(&multi_log).unwrap())
    .spawn()
    .expect("starting tribunal judge");
    // The helpers start once the run is queued (the fleet has had its first request): started
    // before it, a helper on a slow and busy machine passed its 2 s idle limit before the run
    // existed and judged nothing.
    while fleet.stats()["requests"].as_u64() == Some(0) {
        assert!(
            first.try_wait().unwrap().is_none(),
            "tribunal judge ended before its first request: {}",
            log()
        );
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no request in 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let helpers: Vec<Child> = ["w2", "w3"]
        .iter()
        .map(|name| {
            Command::new(tribunal_bin())
                .args([
                    "work",
                    "--store",
                    &multi_db,
                    "--worker",
                    name,
                    "--idle-exit",
                    "2",
                ])
                .current_dir(root())
                .stderr(Stdio::piped())
                .spawn()
                .expect("starting tribunal work")
        })
        .collect();
    let status = first.wait().expect("waiting for tribunal judge");
    assert!(status.success(), "tribunal judge failed: {}", log());
    let multi = started.elapsed();
    let mut made = vec![];
    for helper in helpers {
        let output = helper
            .wait_with_output()
            .expect("waiting for tribunal work");
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert!(output.status.success(), "tribunal work failed: {stderr}");
        let count: u64 = stderr
            .lines()
            .find_map(|l| l.strip_prefix("tribunal: worker idle; "))
            .and_then(|l| l.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no count in: {stderr}"));
        made.push(count);
    }
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("multi.jsonl.run.json")).unwrap())
            .unwrap();
    made.push(record["judged_now"].as_u64().unwrap());
    // Each worker did part of the run, every request was a different judgment, and together
    // they made exactly N.
    assert!(
        made.iter().all(|&m| m > 0),
        "a worker judged nothing: {made:?}"
    );
    assert_eq!(made.iter().sum::<u64>(), N as u64, "{made:?}");
    let asked = fleet.stats();
    assert_eq!(asked["requests"].as_u64(), Some(N as u64), "{asked}");
    assert_eq!(asked["distinct"].as_u64(), Some(N as u64), "{asked}");

    let (one, three) = (judgments(&single_out), judgments(&multi_out));
    assert_eq!(one.len(), N);
    assert!(
        one == three,
        "the 3-worker run differs from the 1-worker run"
    );
    eprintln!(
        "scale-out: {N} judgments, fleet 8 ms/request: 1 worker {:.1} s, 3 workers {:.1} s \
         (split {made:?}), speed-up {:.2}×",
        single.as_secs_f64(),
        multi.as_secs_f64(),
        single.as_secs_f64() / multi.as_secs_f64()
    );
}

/// xorshift64*: the kill times, reproducible from the seed.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// Kills `tribunal judge` with SIGKILL at seeded random points of a 300-judgment run, three
/// times per seed, then lets a last start finish; the stored result must equal an uninterrupted
/// run's, with every judgment stored once and the store intact.
fn killed_runs_finish_with_every_judgment_once(backend: &str) {
    const N: usize = 300;
    let dir = temp_dir(&format!("kill-{backend}"));
    let fleet = Fleet::start(8);
    let config = fleet.config(&dir);
    let items = items(&dir, N);
    let store_args = |name: &str| -> Vec<String> {
        match backend {
            "postgres" => vec!["--store".to_owned(), postgres_database(name)],
            _ => vec![
                "--data-dir".to_owned(),
                dir.join(name).display().to_string(),
            ],
        }
    };
    let reference = dir.join("reference.jsonl");
    let args = store_args("reference");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    judge_ok(&mut judge_command(&config, &items, &reference, &args, &[]));
    let expected = judgments(&reference);
    let mut kills = 0;
    for seed in 1..=4u64 {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let name = format!("seed{seed}");
        let args = store_args(&name);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dir.join(format!("{name}.jsonl"));
        let lease = ["--lease-seconds", "1"];
        for _ in 0..3 {
            let mut child = judge_command(&config, &items, &out, &args, &lease)
                .spawn()
                .expect("starting tribunal judge");
            std::thread::sleep(Duration::from_millis(150 + next(&mut state) % 1500));
            if child.try_wait().expect("polling the judge").is_none() {
                child.kill().expect("SIGKILL");
                kills += 1;
            }
            child.wait().expect("reaping the judge");
        }
        judge_ok(&mut judge_command(&config, &items, &out, &args, &lease));
        let got = judgments(&out);
        assert_eq!(got.len(), N, "seed {seed}");
        assert!(
            got == expected,
            "seed {seed}: the result differs from an uninterrupted run"
        );
        if backend == "sqlite" {
            let db = rusqlite::Connection::open(dir.join(&name).join("tribunal.sqlite3")).unwrap();
            let check: String = db
                .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .unwrap();
            assert_eq!(check, "ok", "seed {seed}");
        }
    }
    assert!(kills >= 6, "only {kills} of 12 starts were killed mid-run");
    eprintln!("fault injection ({backend}): {kills} SIGKILLs over 4 seeds, every run complete");
}

#[test]
fn sigkilled_judge_runs_on_sqlite_resume_with_every_judgment_once() {
    killed_runs_finish_with_every_judgment_once("sqlite");
}

#[test]
fn sigkilled_judge_runs_on_postgres_resume_with_every_judgment_once() {
    killed_runs_finish_with_every_judgment_once("postgres");
}

/// One `tribunal judge` keeps at most `[backend] concurrency` requests in flight, and keeps
/// that many busy: the fleet records the most it served at once. The answers do not depend on
/// how many were in flight.
#[test]
fn one_worker_keeps_its_concurrency_limit_of_requests_in_flight() {
    const N: usize = 40;
    let dir = temp_dir("concurrency");
    let fleet = Fleet::start(100);
    let items = items(&dir, N);
    let plain = std::fs::read_to_string(fleet.config(&dir)).expect("reading judge.toml");
    let mut outputs = Vec::new();
    for lanes in [1, 4] {
        fleet.reset();
        let config = dir.join(format!("judge-{lanes}.toml"));
        std::fs::write(
            &config,
            plain.replace(
                "model = \"stand-in\"\n",
                &format!("model = \"stand-in\"\nconcurrency = {lanes}\n"),
            ),
        )
        .expect("writing the configuration");
        let out = dir.join(format!("lanes-{lanes}.jsonl"));
        let data = dir.join(format!("data-{lanes}"));
        let started = Instant::now();
        judge_ok(&mut judge_command(
            &config,
            &items,
            &out,
            &["--data-dir", &data.display().to_string()],
            &[],
        ));
        let seconds = started.elapsed().as_secs_f64();
        let asked = fleet.stats();
        assert_eq!(asked["requests"].as_u64(), Some(N as u64), "{asked}");
        assert_eq!(asked["distinct"].as_u64(), Some(N as u64), "{asked}");
        assert_eq!(asked["max_in_flight"].as_u64(), Some(lanes), "{asked}");
        eprintln!("concurrency {lanes}: {N} judgments at 100 ms each in {seconds:.2} s");
        outputs.push(judgments(&out));
    }
    assert_eq!(outputs[0].len(), N);
    assert!(
        outputs[0] == outputs[1],
        "the answers depend on the requests in flight"
    );
}
