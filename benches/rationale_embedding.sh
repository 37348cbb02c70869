#!/usr/bin/env bash
# The cost of embedding the judge's rationale (seed 000 §5.4): `tribunal judge` (release build,
# local SmolLM2 on the CPU, the LLMFAO pairs of the tests, Prometheus relative prompt, both
# orders, greedy, at most 96 new tokens) three ways — no embedding, MiniLM on each rationale
# (a second model run per judgment), and the judge's own mean final-layer hidden state
# (`rationale_embedding = "judge"`, a by-product of the generation) — RUNS times each in
# alternation. Greedy decoding makes the three produce the same answers. Prints one JSON line
# per run and a table of seconds per judgment with each embedding's overhead.
# Usage: bash benches/rationale_embedding.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
source benches/judge_common.sh
out=target/bench/rationale
rm -rf "$out" && mkdir -p "$out"
printf '%s\n' "$common" >"$out/none.toml"
printf 'embed_rationale = true\n%s\n' "$common" >"$out/minilm.toml"
printf 'embed_rationale = true\nrationale_embedding = "judge"\n%s\n' "$common" >"$out/judge.toml"
judge_alternately "$runs" none minilm judge
python3 - "$out" "$runs" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
rows = {}
for way in ("none", "minilm", "judge"):
    for k in range(1, runs + 1):
        r = json.load(open(f"{out}/{way}-{k}.jsonl.run.json"))
        judgments = [json.loads(line) for line in open(f"{out}/{way}-{k}.jsonl")]
        dims = sorted({len(j["embedding"]) for j in judgments if j.get("embedding")})
        row = {"way": way, "run": k, "judgments": r["judged_now"], "seconds": round(r["seconds"], 2),
               "generated_tokens": r["generated_tokens"], "embedding_dims": dims,
               "seconds_per_judgment": round(r["seconds"] / r["judged_now"], 3)}
        print(json.dumps(row))
        rows.setdefault(way, []).append(row)
med = {w: statistics.median(r["seconds_per_judgment"] for r in rs) for w, rs in rows.items()}
tokens = {w: rows[w][0]["generated_tokens"] for w in rows}
print("\n| rationale embedding | s / judgment (median) | overhead vs none | generated tokens |")
print("|---|---|---|---|")
for w, name in (("none", "none"), ("minilm", "MiniLM, a second model per rationale"),
                 ("judge", "the judge's hidden state, a by-product")):
    print(f"| {name} | {med[w]:.3f} | {100 * (med[w] / med['none'] - 1):+.1f} % | {tokens[w]} |")
PY
