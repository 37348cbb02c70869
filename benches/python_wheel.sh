#!/usr/bin/env bash
# The Python wheel against evalica (BENCHMARKS.md, "Python wheel"): builds the release wheel,
# installs it beside benches/requirements.txt in the references' virtualenv, simulates the 100k
# battles (bench-native, seed 1) and runs benches/python_wheel.py on them.
# Usage: bash benches/python_wheel.sh [RUNS] [ROUNDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=target/bench
data=$out/data
venv=$out/venv
source benches/reference_python.sh
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
[ -f "$data/battles-100k.csv" ] || {
  cargo build --locked --release -p tribunal-benches --bin bench-native
  "$target/release/bench-native" data "$data"
}
wheel=$(bash scripts/wheel.sh)
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
source benches/wait_for_quiet.sh
py benches/python_wheel.py "$data/battles-100k.csv" "${1:-3}" "${2:-1000}" | tee "$out/python-wheel.json"
