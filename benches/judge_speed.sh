#!/usr/bin/env bash
# Judge speed side by side: `tribunal judge` with the local candle backend and with the
# OpenAI-compatible backend against llama.cpp's server (llama-cpp-python, .venv-llama, built
# by scripts/setup.sh), both running SmolLM2-135M-Instruct Q4_1 from the same GGUF file, on
# the same rendered prompts (the LLMFAO pairs of the tests, Prometheus relative prompt, both
# orders, greedy, at most 96 new tokens), each on the CPU with 2 threads (tribunal's release
# build), RUNS times each in alternation. Prints one JSON line per run (from the run records)
# and a table with ratios. LLAMA_VENV (default .venv-llama, the portable build of setup.sh)
# picks the llama-cpp-python install, e.g. one built with CMAKE_ARGS=-DGGML_NATIVE=ON.
# Usage: bash benches/judge_speed.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
source benches/judge_common.sh
out=target/bench/judge
rm -rf "$out" && mkdir -p "$out"
start_llama_server
printf '%s\n' "$common" >"$out/candle.toml"
printf '%s\n[backend]\nkind = "openai"\nurl = "http://127.0.0.1:%s/v1"\nmodel = "smollm2"\n' "$common" "$port" >"$out/llama.toml"
judge_alternately "$runs" candle llama
python3 - "$out" "$runs" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
rows = {}
for backend in ("candle", "llama"):
    for k in range(1, runs + 1):
        r = json.load(open(f"{out}/{backend}-{k}.jsonl.run.json"))
        row = {"backend": backend, "run": k, "judgments": r["judged_now"], "seconds": round(r["seconds"], 2),
               "prompt_tokens": r["prompt_tokens"], "generated_tokens": r["generated_tokens"],
               "tokens_per_second": round((r["prompt_tokens"] + r["generated_tokens"]) / r["seconds"], 1),
               "seconds_per_judgment": round(r["seconds"] / r["judged_now"], 2)}
        print(json.dumps(row))
        rows.setdefault(backend, []).append(row)
med = {b: {key: statistics.median(r[key] for r in rs) for key in ("seconds_per_judgment", "tokens_per_second", "generated_tokens")}
       for b, rs in rows.items()}
print("\n| backend | s / judgment (median) | prompt + generated tokens/s (median) | generated tokens per run |")
print("|---|---|---|---|")
for b, name in (("candle", "Tribunal local (candle, f32-dequantised)"), ("llama", "llama.cpp server (llama-cpp-python 0.3.36)")):
    print(f"| {name} | {med[b]['seconds_per_judgment']:.2f} | {med[b]['tokens_per_second']:.0f} | {med[b]['generated_tokens']:.0f} |")
print(f"\ncandle / llama.cpp: {med['llama']['seconds_per_judgment'] / med['candle']['seconds_per_judgment']:.2f}× the speed per judgment, "
      f"{med['candle']['tokens_per_second'] / med['llama']['tokens_per_second']:.2f}× the tokens/s")
PY
