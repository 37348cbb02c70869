#!/usr/bin/env bash
# The Python wheel against evalica (BENCHMARKS.md, "Python wheel"): builds the release wheel,
# installs it beside benches/requirements.txt in the references' virtualenv and runs
# benches/python_wheel.py on the 100k simulated battles (bench-native's, else its own).
# Usage: bash benches/python_wheel.sh [RUNS] [ROUNDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=target/bench
data=$out/data
venv=$out/venv
source benches/reference_python.sh
wheel=$(bash scripts/wheel.sh)
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
source benches/wait_for_quiet.sh
py benches/python_wheel.py "$data/battles-100k.csv" "${1:-3}" "${2:-1000}" | tee "$out/python-wheel.json"
