# Sourced by the judge benchmarks (judge_speed.sh, rationale_embedding.sh) from the repository
# root: builds the release `tribunal` ($T), defines the judge configuration they time ($common:
# the Prometheus relative prompt on the LLMFAO pairs of the tests, both orders, greedy, at most
# 96 new tokens) and `judge_alternately`, which runs it.
cargo build -q --release -p tribunal-worker --bin tribunal
T=${CARGO_TARGET_DIR:-target}/release/tribunal
common='[design]
orders = "both"
[prompt]
kind = "relative"
rubric = "Which response follows the instruction better: correct, complete and concise?"
[decoding]
max_tokens = 96'

# judge_alternately RUNS NAME…: `tribunal judge` on the items RUNS times with each
# configuration $out/NAME.toml in turn, into $out/NAME-K.jsonl (and its run record).
judge_alternately() {
  local runs=$1 k name
  shift
  for k in $(seq "$runs"); do
    for name in "$@"; do
      "$T" judge --config "$out/$name.toml" --input tests/fixtures/llmfao-items.csv \
        --out "$out/$name-$k.jsonl" --data-dir "$out/data-$name-$k" --device cpu 2>/dev/null
    done
  done
}
