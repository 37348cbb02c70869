#!/usr/bin/env bash
# The criteria prompt (seed 002's six criteria in a JSON block, then a preference) decoded freely
# and constrained to its format, by the local judge and by llama.cpp's server (llama-cpp-python,
# .venv-llama; constrained there by the format's GBNF grammar, `[backend] grammar = "gbnf"`), all
# running SmolLM2-135M-Instruct Q4_1 from the same GGUF file with 2 threads on the CPU:
# `tribunal judge` (release build) on PAIRS LLMFAO pairs drawn with seed 0 from
# tests/data/llmfao/pairs.csv (the pairs of judge_prefix.sh), both orders, greedy, at most
# MAX_TOKENS (default 160) free tokens. RUNS times each configuration in alternation. Prints one
# JSON line per run and a table: seconds per judgment, the share of answers that parse, ties, and
# agreement with the crowd's plurality on the pairs it did not call a tie (each judgment's winner:
# the sign of the criteria's score difference; unparsed answers and ties counted as wrong).
# WAYS="local_free local_constrained" runs only those.
# Usage: bash benches/judge_json.sh [RUNS] [PAIRS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-1}
pairs=${2:-20}
source benches/judge_common.sh
out=target/bench/judge-json
rm -rf "$out" && mkdir -p "$out"
items="$out/pairs.csv"
sample_pairs "$pairs" "$items"
start_llama_server
criteria="[design]
orders = \"both\"
[prompt]
kind = \"criteria\"
[decoding]
max_tokens = ${MAX_TOKENS:-160}"
server="[backend]
kind = \"openai\"
url = \"http://127.0.0.1:$port/v1\"
model = \"smollm2\""
printf '%s\nverdict = "free"\n' "$criteria" >"$out/local_free.toml"
printf '%s\nverdict = "constrained"\n' "$criteria" >"$out/local_constrained.toml"
printf '%s\nverdict = "free"\n%s\n' "$criteria" "$server" >"$out/llama_free.toml"
printf '%s\nverdict = "constrained"\n%s\ngrammar = "gbnf"\n' "$criteria" "$server" >"$out/llama_gbnf.toml"
read -r -a ways <<<"${WAYS:-local_free local_constrained llama_free llama_gbnf}"
judge_alternately "$runs" "${ways[@]}"
python3 - "$out" "$runs" "$items" "${ways[*]}" <<'PY'
import csv, json, statistics, sys
out, runs, items, ways = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split()
crowd = {r["id"]: r["label"] for r in csv.DictReader(open(items, newline=""))}
names = {"local_free": "Tribunal local, free",
         "local_constrained": "Tribunal local, constrained to the format (default)",
         "llama_free": "llama.cpp server (llama-cpp-python), free",
         "llama_gbnf": "llama.cpp server, the format's GBNF grammar"}
names = {w: n for w, n in names.items() if w in ways}
rows = {}
for way in names:
    for k in range(1, runs + 1):
        r = json.load(open(f"{out}/{way}-{k}.jsonl.run.json"))
        judgments = [json.loads(line) for line in open(f"{out}/{way}-{k}.jsonl")]
        decided = [j for j in judgments if crowd[j["id"]] in ("a", "b")]
        agree = sum(1 for j in decided if (j.get("winner") or "").lower() == crowd[j["id"]])
        row = {"way": way, "run": k, "judgments": r["judged_now"], "seconds": round(r["seconds"], 2),
               "generated_tokens": r["generated_tokens"],
               "seconds_per_judgment": round(r["seconds"] / r["judged_now"], 3),
               "parsed": round(1 - r["parse_failures"] / r["judgments"], 3),
               "ties": sum(1 for j in judgments if j.get("label") == "tie"),
               "verdict_constrained": r["verdict_constrained"],
               "agree": agree, "crowd_agreement": round(agree / len(decided), 3),
               "crowd_decided": len(decided)}
        print(json.dumps(row))
        rows.setdefault(way, []).append(row)
print("\n| judge | s / judgment (median) | answers that parse | ties | agreement with the crowd |")
print("|---|---|---|---|---|")
for w, name in names.items():
    rs = rows[w]
    med = lambda key: statistics.median(r[key] for r in rs)
    print(f"| {name} | {med('seconds_per_judgment'):.2f} | {med('parsed'):.0%} | {med('ties'):.0f} | "
          f"{med('crowd_agreement'):.1%} ({med('agree'):.0f} of {rs[0]['crowd_decided']}) |")
PY
