//! Helpers for the end-to-end tests: the repository root, the freshly built `tribunal` binary,
//! and a running worker on a free loopback port with its own data directory.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The `tribunal` binary, built (once per test process) from the current sources.
pub fn tribunal_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = Command::new(cargo)
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
        let data_dir = temp_dir(&format!("{name}-data"));
        let mut child = Command::new(tribunal_bin())
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(&data_dir)
            .arg("--dist")
            .arg(dist)
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
