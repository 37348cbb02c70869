#!/usr/bin/env bash
# The local judge with and without prefix reuse and with a free or constrained verdict, beside
# llama.cpp's server (llama-cpp-python, .venv-llama, whose `generate` reuses the longest token
# prefix the new prompt shares with the last one: its prompt cache), all running
# SmolLM2-135M-Instruct Q4_1 from the same GGUF file with 2 threads on the CPU: `tribunal judge`
# (release build) on PAIRS LLMFAO pairs drawn with seed 0 from tests/data/llmfao/pairs.csv, both
# orders, the Prometheus relative prompt, greedy, at most 96 new tokens; the queue hands out the
# judgments of one instruction together. RUNS times each configuration in alternation. Prints
# one JSON line per run and a table: seconds per judgment, prompt + generated tokens/s, the
# share of answers that parse, and agreement with the crowd's plurality on the pairs it did not
# call a tie (each judgment's winner, unparsed ones counted as wrong). BASELINE=PATH adds a row:
# another `tribunal` build (e.g. the code before a change) with the default configuration.
# `llama_gbnf` is llama.cpp's server with the verdict constrained by a GBNF grammar
# (`[backend] grammar = "gbnf"`). `gemma_gbnf` is the same on Gemma 3 270M (pretrained, Q4_K_M:
# `bash benches/gemma_gguf.sh` fetches it; GEMMA_GGUF overrides the path) in a second llama.cpp
# server. WAYS="constrained llama llama_gbnf" runs only those (the default: all but gemma_gbnf).
# Usage: bash benches/judge_prefix.sh [RUNS] [PAIRS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-1}
pairs=${2:-50}
source benches/judge_common.sh
out=target/bench/judge-prefix
rm -rf "$out" && mkdir -p "$out"
items="$out/pairs.csv"
sample_pairs "$pairs" "$items"
start_llama_server
printf '%s\nprefix_cache = false\nverdict = "free"\n' "$common" >"$out/full.toml"
printf '%s\nprefix_cache = true\nverdict = "free"\n' "$common" >"$out/reuse.toml"
printf '%s\nprefix_cache = true\nverdict = "constrained"\n' "$common" >"$out/constrained.toml"
printf '%s\n[backend]\nkind = "openai"\nurl = "http://127.0.0.1:%s/v1"\nmodel = "smollm2"\n' "$common" "$port" >"$out/llama.toml"
printf '%s\n[backend]\nkind = "openai"\nurl = "http://127.0.0.1:%s/v1"\nmodel = "smollm2"\ngrammar = "gbnf"\n' "$common" "$port" >"$out/llama_gbnf.toml"
read -r -a ways <<<"${WAYS:-full reuse constrained llama llama_gbnf}"
if [[ " ${ways[*]} " == *" gemma_gbnf "* ]]; then
  start_llama_server "${GEMMA_GGUF:-target/gemma/gemma-3-270m-q4_k_m.gguf}"
  printf '%s\n[backend]\nkind = "openai"\nurl = "http://127.0.0.1:%s/v1"\nmodel = "gemma"\ngrammar = "gbnf"\n' "$common" "$port" >"$out/gemma_gbnf.toml"
fi

if [ -n "${BASELINE:-}" ]; then
  cp "$out/constrained.toml" "$out/baseline.toml"
  ways+=(baseline)
fi
judge_alternately "$runs" "${ways[@]}"
python3 - "$out" "$runs" "$items" "${BASELINE:-}" "${ways[*]}" <<'PY'
import csv, json, statistics, sys
out, runs, items, baseline, ways = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5].split()
crowd = {r["id"]: r["label"] for r in csv.DictReader(open(items, newline=""))}
names = {"full": "Tribunal local, full prefill, free verdict (before)",
         "reuse": "Tribunal local, prefix reuse, free verdict",
         "constrained": "Tribunal local, prefix reuse, constrained verdict (default)",
         "llama": "llama.cpp server (llama-cpp-python 0.3.36, prefix reuse), free verdict",
         "llama_gbnf": "llama.cpp server, verdict constrained by a GBNF grammar",
         "gemma_gbnf": "Gemma 3 270M (pretrained, Q4_K_M) on llama.cpp, verdict constrained by a GBNF grammar"}
if baseline:
    names["baseline"] = f"BASELINE {baseline}, its defaults"
names = {w: n for w, n in names.items() if w in ways}
rows = {}
for way in names:
    for k in range(1, runs + 1):
        r = json.load(open(f"{out}/{way}-{k}.jsonl.run.json"))
        judgments = [json.loads(line) for line in open(f"{out}/{way}-{k}.jsonl")]
        decided = [j for j in judgments if crowd[j["id"]] in ("a", "b")]
        agree = sum(1 for j in decided if (j.get("winner") or "").lower() == crowd[j["id"]])
        row = {"way": way, "run": k, "judgments": r["judged_now"], "seconds": round(r["seconds"], 2),
               "prompt_tokens": r["prompt_tokens"], "generated_tokens": r["generated_tokens"],
               "seconds_per_judgment": round(r["seconds"] / r["judged_now"], 3),
               "tokens_per_second": round((r["prompt_tokens"] + r["generated_tokens"]) / r["seconds"], 1),
               "parsed": round(1 - r["parse_failures"] / r["judgments"], 3),
               "crowd_agreement": round(agree / len(decided), 3), "crowd_decided": len(decided)}
        print(json.dumps(row))
        rows.setdefault(way, []).append(row)
med = {w: {key: statistics.median(r[key] for r in rs) for key in ("seconds_per_judgment", "tokens_per_second", "parsed", "crowd_agreement")}
       for w, rs in rows.items()}
print("\n| judge | s / judgment (median) | prompt + generated tokens/s | answers that parse | agreement with the crowd |")
print("|---|---|---|---|---|")
for w, name in names.items():
    m = med[w]
    print(f"| {name} | {m['seconds_per_judgment']:.2f} | {m['tokens_per_second']:.0f} | {m['parsed']:.0%} | {m['crowd_agreement']:.1%} |")
if "full" in med and "reuse" in med:
    print(f"\nprefix reuse: {med['full']['seconds_per_judgment'] / med['reuse']['seconds_per_judgment']:.2f}× the speed per judgment of a full prefill")
if "llama" in med and "constrained" in med:
    print(f"llama.cpp / Tribunal (default): {med['llama']['seconds_per_judgment'] / med['constrained']['seconds_per_judgment']:.2f}× "
          f"(above 1: Tribunal is faster)")
PY
