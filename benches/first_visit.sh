#!/usr/bin/env bash
# First and second visits to a shared leaderboard over a shaped 10 Mbit/s, 40 ms link
# (benches/first_visit.mjs): bytes received and seconds to every interval, uncompressed (what
# the server sent before it compressed the app) side by side with Brotli/gzip and with a
# second visit through the service worker, in one run; and a first visit to the home page: the
# seconds until the loading sign shows and until the app's buttons work.
# Usage: bash benches/first_visit.sh [BATTLES.csv] [RUNS] [MBIT] [RTT_MS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
csv=${1:-tests/data/llmfao/crowd-comparisons.csv}
runs=${2:-3}
cargo build --locked -q -p tribunal-worker --bin tribunal
trunk build --release >&2
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
data=$(mktemp -d)
log="$data/serve.log"
"$target/debug/tribunal" serve --addr 127.0.0.1:0 --data-dir "$data" --dist dist >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 300); do grep -q "serving at" "$log" && break; sleep 0.2; done
url=$(sed -n 's/^Tribunal is serving at //p' "$log")
# The compressed copies are made once per build, in the background: wait for all of them.
for _ in $(seq 900); do
  curl -s "${url}api/health" | grep -q '"app_compressed":true' && break
  sleep 0.5
done
node benches/first_visit.mjs "$url" "$csv" "$runs" "${3:-10}" "${4:-40}"
