#!/usr/bin/env bash
# Benchmarks, side by side in one run: native Rust, the same Rust in WASM (headless Chromium),
# and the Python references (choix, evalica), on the same CSV. Prints a Markdown table.
# Usage: bash benches/run.sh [FILE.csv] [ROUNDS] [PYTHON_ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
csv=${1:-tests/data/llmfao/crowd-comparisons.csv}
rounds=${2:-50}
py_rounds=${3:-5}
out=target/bench
mkdir -p "$out"

if [ ! -x "$out/venv/bin/python" ]; then
  python3 -m venv "$out/venv"
  "$out/venv/bin/pip" install -q -r benches/requirements.txt
fi

cargo build --locked --release -p tribunal-benches --bin bench-native
target/release/bench-native "$csv" "$rounds" > "$out/native.json"
cargo build --locked --release -p tribunal-benches --lib --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir "$out/pkg" target/wasm32-unknown-unknown/release/tribunal_benches.wasm
node benches/wasm.mjs "$out/pkg" "$csv" "$rounds" > "$out/wasm.json"
"$out/venv/bin/python" benches/reference_bt.py "$csv" "$py_rounds" > "$out/python.json"
python3 benches/table.py "$out/native.json" "$out/wasm.json" "$out/python.json"
