#!/usr/bin/env bash
# The whole test suite: formatting, lints, the wasm tests in headless Chromium, then every
# native unit, integration and end-to-end test (real worker, real SQLite and PostgreSQL — a
# throwaway server on loopback, started here — real Chromium).
# Ends with one summary line over all runs: "tests: N passed, N failed".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh tests
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# One build from scratch: incremental caches would only take disk (2+ GB).
export CARGO_INCREMENTAL=0
log=$(mktemp)
# Every test's temporary files (data dirs, copies of dist/, Chromium profiles) go under one
# directory that is removed at the end, whatever a test left behind.
scratch=$(mktemp -d)
eval "$(bash scripts/postgres.sh start)"
trap 'rm -rf "$log" "$scratch"; bash scripts/postgres.sh stop || true' EXIT
export TMPDIR="$scratch"
step() { printf '\n== %s\n' "$*"; }

step "cargo fetch"
cargo fetch --locked
step "cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path fuzz/Cargo.toml -- --check
step "cargo clippy (native, all targets)"
cargo clippy --locked --all-targets -- -D warnings
step "cargo clippy (app and shared, wasm32)"
cargo clippy --locked -p tribunal-app -p tribunal --all-targets --target wasm32-unknown-unknown -- -D warnings
step "cargo clippy (fuzz targets)"
cargo clippy --locked --manifest-path fuzz/Cargo.toml --all-targets -- -D warnings
step "trunk build --release"
trunk build --release
step "shared in headless Chromium (wasm-bindgen-test)"
cargo test --locked -p tribunal --target wasm32-unknown-unknown 2>&1 | tee -a "$log"
step "native tests (unit, integration, end-to-end)"
cargo test --locked --workspace --exclude tribunal-app 2>&1 | tee -a "$log"
step "fuzz corpus replay (stable)"
cargo test --locked --manifest-path fuzz/Cargo.toml 2>&1 | tee -a "$log"

passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
printf '\ndisk: target/ %s, fuzz/target/ %s, temporary files %s\n' \
  "$(du -sh target | cut -f1)" "$(du -sh fuzz/target | cut -f1)" "$(du -sh "$scratch" | cut -f1)"
printf '\ntests: %s passed, %s failed\n' "$passed" "$failed"
[ "$failed" = 0 ]
