# Sourced by the judge benchmarks (judge_speed.sh, rationale_embedding.sh) from the repository
# root: builds the release `tribunal` ($T) and defines the judge configuration they time
# ($common): the Prometheus relative prompt on the LLMFAO pairs of the tests, both orders,
# greedy, at most 96 new tokens.
cargo build -q --release -p tribunal-worker --bin tribunal
T=${CARGO_TARGET_DIR:-target}/release/tribunal
common='[design]
orders = "both"
[prompt]
kind = "relative"
rubric = "Which response follows the instruction better: correct, complete and concise?"
[decoding]
max_tokens = 96'
