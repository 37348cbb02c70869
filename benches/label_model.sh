#!/usr/bin/env bash
# The label model's EM against its numpy reference in one run (issue 6; issue 21 item 9): the
# `votes-5k-20.csv` row of `bench-native time` (release build; `LabelModelParams::default()` on
# 5000 items × 20 programs, median of ROUNDS fits after a warm-up) and
# `benches/reference_programs.py` (the vectorised numpy EM, median of PY_ROUNDS fits after a
# warm-up), RUNS times in alternation on the same `target/bench/data`, the Python side as
# run.sh runs it (its venv, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset). BASELINE=PATH adds
# another `bench-native` build (e.g. one of the code before a change) to every run, so a before
# and an after are timed in the same run. Prints one line per run and the medians over runs.
# `bench-native time` times every workload; only the label model's row is read.
# Usage: bash benches/label_model.sh [RUNS] [ROUNDS] [PY_ROUNDS]
# Environment: BASELINE, BENCH_MAX_LOAD and BENCH_WAIT_S (as in run.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
rounds=${2:-50}
py_rounds=${3:-5}
out=target/bench/label-model
data=target/bench/data
rm -rf "$out" && mkdir -p "$out"
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')

venv=target/bench/venv
source benches/reference_python.sh

cargo build --locked --release -p tribunal-benches --bin bench-native
native="$target/release/bench-native"
[ -f "$data/votes-5k-20.csv" ] || "$native" data "$data"

source benches/wait_for_quiet.sh

llmfao=tests/data/llmfao/crowd-comparisons.csv
for run in $(seq "$runs"); do
  printf '%s\n' "$(uptime)" > "$out/load-$run.txt"
  "$native" time "$data" "$llmfao" "$rounds" 1 > "$out/native-$run.json"
  if [ -n "${BASELINE:-}" ]; then
    "$BASELINE" time "$data" "$llmfao" "$rounds" 1 > "$out/baseline-$run.json"
  fi
  py benches/reference_programs.py "$data" "$py_rounds" > "$out/py-$run.json"
done

python3 - "$out" "$runs" <<'PY'
import json, os, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])
ms = lambda t: f"{t['median_s'] * 1e3:.2f} ms (min {t['min_s'] * 1e3:.2f})"
ratios, rows = {"native": [], "baseline": []}, {"native": [], "baseline": [], "numpy": []}
for run in range(1, runs + 1):
    py = json.load(open(f"{out}/py-{run}.json"))["votes-5k-20.csv"]
    load = open(f"{out}/load-{run}.txt").read().split("load average:")[1].strip()
    line = [f"run {run} (load {load}): numpy {ms(py['numpy_dawid_skene'])}, {py['iterations']} EM steps"]
    rows["numpy"].append(py["numpy_dawid_skene"]["median_s"])
    for side in ("native", "baseline"):
        path = f"{out}/{side}-{run}.json"
        if not os.path.exists(path):
            continue
        n = json.load(open(path))["votes-5k-20.csv"]
        d = max(abs(a - b) for a, b in zip(n["accuracies"], py["accuracies"]))
        r = py["numpy_dawid_skene"]["median_s"] / n["fit"]["median_s"]
        ratios[side].append(r)
        rows[side].append(n["fit"]["median_s"])
        line.append(f"{side} {ms(n['fit'])}, numpy / {side} {r:.2f}×, max |Δ accuracy| {d:.1e}")
    print("; ".join(line))
for side in ("native", "baseline", "numpy"):
    if rows[side]:
        print(f"{side}: median over runs {statistics.median(rows[side]) * 1e3:.2f} ms"
              + (f", numpy / {side} {statistics.median(ratios[side]):.2f}× (median ratio)"
                 if side in ratios and ratios[side] else ""))
PY
