#!/usr/bin/env bash
# Benchmarks, side by side in one run: native Rust, the same Rust in WASM (headless Chromium),
# and the Python references on the same CSV files. Prints Markdown tables (BENCHMARKS.md).
# Usage: bash benches/run.sh [FILE.csv] [ROUNDS] [PYTHON_ROUNDS]
#   FILE.csv       the battles of the LLMFAO comparison (default: the crowd comparisons)
#   ROUNDS         timed runs of each Rust fit (default 50)
#   PYTHON_ROUNDS  timed runs of each Python fit on FILE.csv (default 5)
# Environment (defaults in brackets):
#   SLOW_ROUNDS [5]        timed runs of each Rust bootstrap and GRM fit
#   PY_FIT_ROUNDS [3]      timed runs of each Python fit on the synthetic battles and of girth
#   PY_BOOT_100K [20]      Python bootstrap rounds timed at 100k battles (then extrapolated)
#   PY_BOOT_1M [5]         … at 1M battles
#   PY_BOOT_RATINGS [20]   … for α and κ
#   CHOIX_100K [1]         choix fits and bootstrap rounds at 100k battles (no warm-up)
#   CHOIX_1M [0]           … at 1M battles (0: not run; a fit takes many minutes)
#   PAGE_RUNS [5]          timed runs of the Leaderboard page on the 100k battles (benches/page.mjs)
#   CAL_PAGE_RUNS [9]      timed cross-validations on the Calibrate page (benches/calibrate_page.mjs)
#   WS_RUNS [5]            timed demo streams of 10,000 events into one page (benches/ws_events.mjs)
#   BENCH_MAX_LOAD         when set, wait (up to BENCH_WAIT_S [900] s) until the 1-minute load
#                          average is below it before timing
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
csv=${1:-tests/data/llmfao/crowd-comparisons.csv}
rounds=${2:-50}
py_rounds=${3:-5}
slow=${SLOW_ROUNDS:-5}
out=target/bench
data=$out/data
mkdir -p "$out"
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')

venv=$out/venv
source benches/reference_python.sh

cargo build --locked --release -p tribunal-benches --bin bench-native
cargo build --locked -p tribunal-worker --bin tribunal
trunk build --release >&2
cargo build --locked --release -p tribunal-benches --lib --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir "$out/pkg" "$target/wasm32-unknown-unknown/release/tribunal_benches.wasm"
"$target/release/bench-native" data "$data"

{
  printf 'CPU\t%s, %s cores\n' "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)"
  printf 'memory\t%s\n' "$(free -h | awk '/^Mem:/ {print $2}')"
  printf 'rustc\t%s\n' "$(rustc --version)"
  printf 'node\t%s\n' "$(node --version)"
} > "$out/env.tsv"

source benches/wait_for_quiet.sh

stage() { printf 'load before %s\t%s\n' "$1" "$(uptime)" >> "$out/env.tsv"; }
stage "native"
"$target/release/bench-native" time "$data" "$csv" "$rounds" "$slow" > "$out/native.json"
stage "WASM"
node benches/wasm.mjs "$out/pkg" "$data" "$csv" "$rounds" "$slow" > "$out/wasm.json"
stage "page"
serve_dir=$(mktemp -d)
"$target/debug/tribunal" serve --addr 127.0.0.1:0 --data-dir "$serve_dir" --dist dist \
  > "$out/serve.log" 2>&1 &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null; rm -rf "$serve_dir"' EXIT
for _ in $(seq 100); do
  url=$(sed -n 's/^Tribunal is serving at //p' "$out/serve.log")
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { echo "tribunal serve did not start: see $out/serve.log" >&2; exit 1; }
node benches/page.mjs "$url" "$data/battles-100k.csv" "${PAGE_RUNS:-5}" > "$out/page.json"
stage "Calibrate page"
for head in ls btl; do
  node benches/calibrate_page.mjs "$url" "$head" "$data/cal-$head-384.csv" "${CAL_PAGE_RUNS:-9}" \
    > "$out/calibrate-page-$head.json"
done
stage "WebSocket"
node benches/ws_events.mjs "$url" 10000 "${WS_RUNS:-5}" > "$out/ws.json"
kill "$serve_pid"
stage "Python (LLMFAO)"
py benches/reference_bt.py "$csv" "$py_rounds" > "$out/py-llmfao.json"
stage "Python (100k battles)"
py benches/reference_bt.py "$data/battles-100k.csv" "${PY_FIT_ROUNDS:-3}" \
  --bootstrap "${PY_BOOT_100K:-20}" --choix-rounds "${CHOIX_100K:-1}" > "$out/py-battles-100k.json"
stage "Python (1M battles)"
py benches/reference_bt.py "$data/battles-1m.csv" "${PY_FIT_ROUNDS:-3}" \
  --bootstrap "${PY_BOOT_1M:-5}" --choix-rounds "${CHOIX_1M:-0}" > "$out/py-battles-1m.json"
stage "Python (α, κ, GRM)"
py benches/reference_ratings.py "$data" "${PY_FIT_ROUNDS:-3}" "${PY_BOOT_RATINGS:-20}" \
  > "$out/py-ratings.json"
stage "Python (calibration heads)"
py benches/reference_calibration.py "$data" "${PY_FIT_ROUNDS:-3}" > "$out/py-calibration.json"
stage "Python (label model)"
py benches/reference_programs.py "$data" "$py_rounds" > "$out/py-programs.json"
stage "end"
python3 benches/table.py "$out"
