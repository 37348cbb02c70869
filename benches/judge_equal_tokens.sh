#!/usr/bin/env bash
# The local judge beside llama.cpp's server on the same work: SmolLM2-135M-Instruct Q4_1 from the
# same GGUF file, 2 threads each, the same rendered prompts (PAIRS LLMFAO pairs drawn with seed 0
# from tests/data/llmfao/pairs.csv, both orders, the Prometheus relative prompt, greedy), and
# every answer exactly TOKENS tokens long: `[decoding] min_tokens = max_tokens = TOKENS` bars
# the end of the turn until then, in the local judge and in llama.cpp's server (its
# `min_tokens`), with the verdict decoded freely so that nothing is appended. Both reuse the
# prompt prefix a judgment shares with the one before. RUNS times each in alternation. Prints
# one JSON line per run and a table: seconds per judgment, generated tokens per judgment (equal
# on both sides by construction, checked), prompt + generated tokens/s, and the ratio.
# Usage: bash benches/judge_equal_tokens.sh [RUNS] [PAIRS] [TOKENS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-2}
pairs=${2:-20}
tokens=${3:-64}
source benches/judge_common.sh
out=target/bench/judge-equal-tokens
rm -rf "$out" && mkdir -p "$out"
items="$out/pairs.csv"
sample_pairs "$pairs" "$items"
start_llama_server
decoding=$(printf '%s\nmin_tokens = %s\nverdict = "free"\n' "${common/max_tokens = 96/max_tokens = $tokens}" "$tokens")
printf '%s\n' "$decoding" >"$out/local.toml"
printf '%s\n[backend]\nkind = "openai"\nurl = "http://127.0.0.1:%s/v1"\nmodel = "smollm2"\n' "$decoding" "$port" >"$out/llama.toml"
judge_alternately "$runs" local llama
python3 - "$out" "$runs" "$tokens" <<'PY'
import json, statistics, sys
out, runs, tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {}
for way in ("local", "llama"):
    for k in range(1, runs + 1):
        r = json.load(open(f"{out}/{way}-{k}.jsonl.run.json"))
        n = r["judged_now"]
        row = {"way": way, "run": k, "judgments": n, "seconds": round(r["seconds"], 2),
               "prompt_tokens": r["prompt_tokens"], "generated_tokens": r["generated_tokens"],
               "generated_per_judgment": r["generated_tokens"] / n,
               "seconds_per_judgment": round(r["seconds"] / n, 3),
               "tokens_per_second": round((r["prompt_tokens"] + r["generated_tokens"]) / r["seconds"], 1)}
        print(json.dumps(row))
        if r["generated_tokens"] != tokens * n:
            sys.exit(f"{way} run {k}: {r['generated_tokens']} tokens generated, expected {tokens * n}")
        rows.setdefault(way, []).append(row)
med = {w: {key: statistics.median(r[key] for r in rs) for key in ("seconds_per_judgment", "tokens_per_second", "prompt_tokens")}
       for w, rs in rows.items()}
names = {"local": "Tribunal local (prefix reuse, free verdict)", "llama": "llama.cpp server (llama-cpp-python 0.3.36, prefix reuse)"}
print(f"\n| judge | s / judgment (median) | prompt tokens per run | generated tokens per judgment | prompt + generated tokens/s |")
print("|---|---|---|---|---|")
for w, name in names.items():
    m = med[w]
    print(f"| {name} | {m['seconds_per_judgment']:.3f} | {m['prompt_tokens']:.0f} | {tokens} | {m['tokens_per_second']:.0f} |")
print(f"\nlocal / llama.cpp: {med['llama']['seconds_per_judgment'] / med['local']['seconds_per_judgment']:.2f}x the speed per judgment")
PY
