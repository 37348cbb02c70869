#!/usr/bin/env bash
# The LLMFAO study (docs/llmfao-study.md): sets up what serving needs (the judge's and the
# embedder's model wheels among it), builds the worker and runs `tribunal study` on the store
# `scripts/serve.sh` serves (./data, or TRIBUNAL_DATA), so the study's session opens there by
# its URL. Arguments go to `tribunal study`: `--minutes N` (judging budget, default 45),
# `--full`, `--seed S`, `--rejudge`, `--verify K`. With the judgments kept beside the report
# (docs/llmfao-study/judgments/) it judges nothing and regenerates the report in about a minute.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh serve
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --locked --release -p tribunal-worker --bin tribunal
exec target/release/tribunal study --data-dir "${TRIBUNAL_DATA:-data}" "$@"
