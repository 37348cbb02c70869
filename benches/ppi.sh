#!/usr/bin/env bash
# The prediction-powered benchmarks (issue 23), in one run: the LLMFAO study (how often the
# PPI leaderboard's and win rates' intervals cover the full-crowd values when 5, 10 or 25 % of
# the crowd's labels are kept, against the same labels alone; and active labelling against
# uniform labelling from the same pilot at the same budget), and the speed of the PPI
# Bradley–Terry report with and without a 1000-round bootstrap: native, WASM in headless
# Chromium, and ppi-python on the same files. Prints the Markdown tables of BENCHMARKS.md.
# Usage: bash benches/ppi.sh
# Environment (defaults in brackets):
#   PPI_REPS [500]         study repetitions per fraction (seed 20261126)
#   PPI_ROUNDS [5]         timed runs of each Tribunal report and of ppi_logistic_ci
#   PPI_PY_BOOT [20]       ppi-python bootstrap rounds timed (then extrapolated to 1000)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
out=target/bench
mkdir -p "$out"
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
venv=$out/venv
source benches/reference_python.sh
rounds=${PPI_ROUNDS:-5}

python3 benches/make_ppi_llmfao.py "$out/ppi-llmfao-crowd.csv"
python3 benches/make_ppi_llmfao.py "$out/ppi-llmfao-25.csv" 0.25 4
cargo build --locked --release -p tribunal-benches --bin bench-native
cargo build --locked --release -p tribunal-benches --lib --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir "$out/pkg" "$target/wasm32-unknown-unknown/release/tribunal_benches.wasm"
files=(tests/fixtures/ppi-llmfao-ten-models.csv "$out/ppi-llmfao-25.csv")

"$target/release/bench-native" ppi-study "$out/ppi-llmfao-crowd.csv" "${PPI_REPS:-500}" 20261126 \
  > "$out/ppi-study.json"
: > "$out/ppi-active.jsonl"
for design in "0.10 0.15" "0.15 0.10" "0.25 0.25"; do
  # shellcheck disable=SC2086 # two numbers: the pilot's fraction and the plan's
  "$target/release/bench-native" ppi-active "$out/ppi-llmfao-crowd.csv" $design "${PPI_REPS:-500}" \
    20261126 >> "$out/ppi-active.jsonl"
done
"$target/release/bench-native" ppi-time "$rounds" "${files[@]}" > "$out/ppi-native.json"
node benches/ppi_wasm.mjs "$out/pkg" "$rounds" "${files[@]}" > "$out/ppi-wasm.json"
specs=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(" ".join(f + ":" + str(v["lambda"]) for f, v in r.items()))' "$out/ppi-native.json")
py benches/reference_ppi.py "$rounds" "${PPI_PY_BOOT:-20}" $specs > "$out/ppi-python.json"
python3 benches/ppi_table.py "$out"
