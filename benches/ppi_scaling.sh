#!/usr/bin/env bash
# The prediction-powered report's time against its battles (issue 44): arena-shaped labelled
# battles (benches/make_ppi_synthetic.py: 20 models, 25 % labelled, seed 0) at 5,000, 26,919,
# 100,000 and 1,000,000 battles. Times the whole report (parse, win rates, leaderboard, rank
# sets) without and with its 1000-round bootstrap natively (`bench-native ppi-time`) and in
# headless Chromium up to 100,000 battles (`node benches/ppi_wasm.mjs`), the peak memory of
# `tribunal stats ppi` on each file, and ppi-python's `ppi_logistic_ci` and bootstrap on the
# 26,919-battle file in the same run (benches/reference_ppi.py). Prints BENCHMARKS.md's table.
# Usage: bash benches/ppi_scaling.sh   (PPI_ROUNDS [3]: timed runs of each below 10⁶ battles)
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
rounds=${PPI_ROUNDS:-3}

sizes=(5000 26919 100000 1000000)
for n in "${sizes[@]}"; do
  [ -f "$out/ppi-arena-$n.csv" ] || python3 benches/make_ppi_synthetic.py "$out/ppi-arena-$n.csv" "$n"
done
cargo build --locked --release -p tribunal-benches --bin bench-native
cargo build --locked --release -p tribunal-worker --bin tribunal
cargo build --locked --release -p tribunal-benches --lib --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir "$out/pkg" "$target/wasm32-unknown-unknown/release/tribunal_benches.wasm"

small=("$out/ppi-arena-5000.csv" "$out/ppi-arena-26919.csv" "$out/ppi-arena-100000.csv")
"$target/release/bench-native" ppi-time "$rounds" "${small[@]}" > "$out/ppi-scaling-native.json"
"$target/release/bench-native" ppi-time 1 "$out/ppi-arena-1000000.csv" > "$out/ppi-scaling-native-1m.json"
node benches/ppi_wasm.mjs "$out/pkg" "$rounds" "${small[@]}" > "$out/ppi-scaling-wasm.json"
: > "$out/ppi-scaling-memory.txt"
for n in "${sizes[@]}"; do
  /usr/bin/time -f "$n %M" "$target/release/tribunal" stats ppi --input "$out/ppi-arena-$n.csv" \
    > /dev/null 2>> "$out/ppi-scaling-memory.txt"
done
lambda=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r[sys.argv[2]]["lambda"])' "$out/ppi-scaling-native.json" "$out/ppi-arena-26919.csv")
py benches/reference_ppi.py "$rounds" 5 "$out/ppi-arena-26919.csv:$lambda" > "$out/ppi-scaling-python.json"
python3 benches/ppi_scaling_table.py "$out"
