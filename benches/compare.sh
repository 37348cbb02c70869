#!/usr/bin/env bash
# The comparison of systems on pointwise scores, side by side in one run: `tribunal stats
# compare` (release build) and the same statistics in pandas/numpy/scipy
# (benches/compare_reference.py), on SYSTEMS × ITEMS pass/fail scores (benches/compare_data.py),
# with a 1,000-round paired bootstrap; every pair, and each system against one baseline.
# The same report in headless Chromium (the benches crate's WASM build, benches/compare_wasm.mjs).
# Prints a Markdown table of median seconds over RUNS runs and the ratio to the Python script.
# Usage: bash benches/compare.sh [SYSTEMS] [ITEMS] [RUNS]   (default 50 20000 3)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
systems=${1:-50}
items=${2:-20000}
runs=${3:-3}
out=target/bench/compare
mkdir -p "$out"
venv=target/bench/venv
source benches/reference_python.sh
export PATH="$root/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo build --locked --release -p tribunal-worker --bin tribunal
cargo build --locked --release -p tribunal-benches --lib --target wasm32-unknown-unknown
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
wasm-bindgen --target web --out-dir "$out/pkg" "$target/wasm32-unknown-unknown/release/tribunal_benches.wasm"
data="$out/scores-$systems-$items.csv"
[ -f "$data" ] || py benches/compare_data.py "$data" "$systems" "$items"
rows=$(($(wc -l < "$data") - 1))
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ours() {
  for _ in $(seq "$runs"); do
    /usr/bin/time -f %e target/release/tribunal stats compare --input "$data" \
      --bootstrap-rounds 1000 "$@" 2>&1 >/dev/null | tail -n 1
  done | median
}
theirs() {
  for _ in $(seq "$runs"); do
    py benches/compare_reference.py "$data" 1000 "$@"
  done | median
}
browser=$(node benches/compare_wasm.mjs "$out/pkg" "$data" "$runs" s00)
printf '| %s score rows (%s systems × %s items), 1,000 bootstrap rounds | Tribunal native (s) | Tribunal in Chromium (s) | pandas/numpy/scipy (s) | native ratio |\n|---|---|---|---|---|\n' \
  "$rows" "$systems" "$items"
for pairs in all baseline; do
  if [ "$pairs" = all ]; then args=(); py=(); else args=(--baseline s00); py=(s00); fi
  a=$(ours "${args[@]}")
  w=$(echo "$browser" | python3 -c "import json, sys; print(round(json.load(sys.stdin)['$pairs']['median_s'], 2))")
  b=$(theirs "${py[@]}")
  printf '| %s pairs | %s | %s | %s | %.1f× |\n' "$pairs" "$a" "$w" "$b" "$(echo "$b / $a" | bc -l)"
done
