#!/usr/bin/env bash
# Sets up, builds the app and the worker, and serves Tribunal on 127.0.0.1 with an embedded
# SQLite database in ./data. Override with TRIBUNAL_ADDR and TRIBUNAL_DATA.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh serve
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
cargo fetch --locked
trunk build --release
cargo build --locked --release -p tribunal-worker
exec target/release/tribunal serve \
  --addr "${TRIBUNAL_ADDR:-127.0.0.1:8080}" \
  --data-dir "${TRIBUNAL_DATA:-data}" \
  --dist dist
