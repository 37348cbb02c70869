#!/usr/bin/env bash
# The whole test suite: formatting, clippy on every target with -D warnings, the wasm tests in
# headless Chromium, then every native unit, integration and end-to-end test (real worker, real
# SQLite and PostgreSQL — a throwaway server on loopback, started here — real Chromium), then the
# fuzz corpus replay. Each step prints its wall and CPU time; the script ends with the total and
# one summary line over all runs: "tests: N passed, N failed".
#
# Each crate is compiled once: clippy lints the workspace's crates while they are built for the
# tests (clippy-driver as the workspace's rustc wrapper, `-D warnings`), for the native tests, the
# wasm tests and Trunk's release build of the app alike, so no separate `cargo clippy` pass
# compiles the dependencies a second time. Debian's packages and llama.cpp's build are installed
# beside the build and waited for only where the tests need them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/timing.sh
export PATH="$root/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# One build from scratch: incremental caches would only take disk (2+ GB).
export CARGO_INCREMENTAL=0
log=$(mktemp)
# Every test's temporary files (data dirs, copies of dist/, Chromium profiles) go under one
# directory that is removed at the end, whatever a test left behind.
scratch=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  bash scripts/postgres.sh stop 2>/dev/null || true
  rm -rf "$log" "$scratch"
}
trap cleanup EXIT
export TMPDIR="$scratch"

# Beside the build: Debian's packages (I/O, mostly) and llama.cpp (CPU, at a lower priority so
# the build ahead of it keeps both cores). Their output goes to a log printed when waited for.
background() {
  local name=$1
  shift
  (nice -n 10 bash scripts/setup.sh "$@" >"$scratch/setup-$name.log" 2>&1) &
  pids+=($!)
  eval "bg_$name=$!"
}
await() {
  local name=$1 pid_var="bg_$1" status=0
  wait "${!pid_var}" || status=$?
  cat "$scratch/setup-$name.log"
  if [ "$status" != 0 ]; then
    echo "setup ($name) failed with status $status" >&2
    exit "$status"
  fi
}

timed "setup: tools, models, lint, python" bash scripts/setup.sh tools models lint python
background system system
background llama llama

# The build lives in this machine's cache, like the tools and llama.cpp: a machine that ran the
# suite before compiles only what changed (the dependencies, built once, are shared by every
# clone), a brand-new one builds everything. Cleared once it passes 40 GB (each clone's own
# crates add a few). Fuzz targets build in their own directory beside it.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tribunal
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$cache/target}
fuzz_target=${CARGO_TARGET_DIR}-fuzz
if [ -d "$CARGO_TARGET_DIR" ] &&
  [ "$(du -s --block-size=1G "$CARGO_TARGET_DIR" "$fuzz_target" 2>/dev/null | awk '{s+=$1} END {print s+0}')" -gt 40 ]; then
  echo "clearing the build cache $CARGO_TARGET_DIR (over 40 GB)"
  rm -rf "$CARGO_TARGET_DIR" "$fuzz_target"
fi
mkdir -p "$CARGO_TARGET_DIR"
echo "build directory: $CARGO_TARGET_DIR"
# One run at a time per machine: the tests run the binaries of the shared cache. CI's fresh clone
# dates its files by the cache's record so that what was built from the same bytes is reused
# (scripts/build_record.py); a working copy's times are its own, and the record is dropped.
if [ "${TRIBUNAL_FRESH_CLONE:-}" = 1 ]; then
  python3 scripts/build_record.py "$cache/target-sources.json"
else
  rm -f "$cache/target-sources.json"
fi

# clippy-driver lints the workspace's crates as they compile; cargo does not lint dependencies.
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver)
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

timed "cargo fetch" cargo fetch --locked
# cargo fmt follows `mod` lines; the modules the build declares (shared/build.rs: kinds' own
# files, shared/tests/) it cannot see, so rustfmt checks those files by name.
timed "cargo fmt --check" bash -c 'cargo fmt --all -- --check &&
  cargo fmt --manifest-path fuzz/Cargo.toml -- --check &&
  rustfmt --edition 2021 --check shared/tests/*.rs $(grep -l "^register_kind! {" shared/src/*/*.rs)'
timed "native build of every target, linted (clippy -D warnings)" bash -c '
  cargo test --locked --workspace --exclude tribunal-app --exclude tribunal-python --all-targets --no-run &&
  cargo build --locked -p tribunal-worker --bin tribunal'
# The Python wheel (python/, an extension module: no test binary of its own), linted like the rest
# (maturin runs cargo under the same clippy wrapper), then installed into a fresh virtualenv with
# the test requirements, as a user would `pip install` it.
maturin=${XDG_CACHE_HOME:-$HOME/.cache}/tribunal/python-tools/bin/maturin
timed "Python wheel (maturin, linted) into a fresh virtualenv" bash -c '
  "$0" build --locked -m python/Cargo.toml -o "$1/wheel" &&
  python3 -m venv "$1/python" &&
  "$1/python/bin/pip" install -q "$1"/wheel/tribunal-*.whl -r python/requirements-test.txt' \
  "$maturin" "$scratch"
# Every wasm file Trunk wrote must start with the wasm magic number, "\0asm": a file damaged on its
# way to the disk (seen once: its first pages zeroed) would otherwise fail the browser tests with
# an unclear "could not compile". Built once more if so, and stopped with a clear message if the
# second build is damaged too.
app_intact() {
  local wasm bad=0
  for wasm in dist/*.wasm; do
    if [ "$(head -c 4 "$wasm" | od -An -tx1 | tr -d ' \n')" != 0061736d ]; then
      echo "$wasm does not start with the wasm magic number (\\0asm): damaged on the way to disk" >&2
      bad=1
    fi
  done
  return "$bad"
}
# The app's release build ends in wasm-opt (binaryen's JavaScript build under node), which runs
# every time even when cargo has nothing to compile: minutes on a fast machine, 20 on a slow one.
# So dist/ is kept in the cache under a key of everything it is made from — the bytes of every
# file except those of the parts the app never reads (the worker, the Python binding, fuzz,
# benches, the test programs and stand-ins, scripts, the top-level prose), and the versions of
# rustc, Trunk, wasm-bindgen and wasm-opt — and a run with the same key takes it from there. Only a build that
# passed (linted, intact) is kept; the newest three keys are. The worker's compressed copies of
# the files (dist/.compressed, Brotli 11: the first test worker spends minutes of CPU on them,
# ten on a slow machine) live in the cached folder itself, so they are made once per key; a
# worker checks each copy against its file's hash when it reads it.
app_key=$( {
  { git ls-files -z; git ls-files -z --others --exclude-standard; } |
    grep -zv -E '^(worker|python|fuzz|benches|scripts|\.ci|tests/browser)/|^tests/[^/]*\.(rs|py)$|^[^/]*\.md$' |
    sort -z | xargs -0 -r sha1sum 2>&1 || true
  rustc -vV; trunk --version; wasm-bindgen --version; wasm-opt --version
} 2>&1 | sha256sum | cut -c1-16)
app_cache=$cache/dist/$app_key
if [ -f "$app_cache/.complete" ]; then
  timed "the app: dist/ from the cache (a passed release build of the same sources, key $app_key)" \
    bash -c 'rm -rf dist && mkdir dist && cp -a "$0"/. dist/ && rm -rf dist/.complete dist/.compressed' \
    "$app_cache"
else
  timed "trunk build --release (the app, linted)" trunk build --release
  if ! app_intact; then
    timed "trunk build --release again (a damaged wasm file)" trunk build --release
    app_intact || { echo "the app's wasm files are damaged after two builds" >&2; exit 1; }
  fi
  rm -rf "$app_cache.new" && mkdir -p "$app_cache.new" && cp -a dist/. "$app_cache.new/" &&
    rm -rf "$app_cache.new/.compressed" && touch "$app_cache.new/.complete" &&
    rm -rf "$app_cache" && mv "$app_cache.new" "$app_cache"
  ls -dt "$cache"/dist/*/ | tail -n +4 | xargs -r rm -rf
fi
app_intact || { echo "the app's wasm files in dist/ are damaged" >&2; exit 1; }
mkdir -p "$app_cache/.compressed" && rm -rf dist/.compressed &&
  ln -s "$app_cache/.compressed" dist/.compressed
# The integration tests (`--test '*'`): the runner runs only `#[wasm_bindgen_test]` functions,
# so the library's own `#[test]` unit tests would build for wasm32 and run nothing (their code,
# with no wasm-only part, is linted by the native build).
timed "wasm build of shared's tests, linted" \
  cargo test --locked -p tribunal --target wasm32-unknown-unknown --test '*' --no-run
timed "fuzz targets: clippy -D warnings" env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
  CARGO_TARGET_DIR="$fuzz_target" \
  cargo clippy --locked --manifest-path fuzz/Cargo.toml --all-targets -- -D warnings

timed "wait: Debian's packages" await system
# The runner's default limit for the whole wasm test binary is 20 s; the 128 tests take about two
# minutes on a slow machine (a 2-core VM: 118 s). The step's own time is printed as every step's.
export WASM_BINDGEN_TEST_TIMEOUT=1200
timed "shared in headless Chromium (wasm-bindgen-test)" bash -o pipefail -c \
  'cargo test --locked -p tribunal --target wasm32-unknown-unknown --test "*" 2>&1 | tee -a "$0"' "$log"

timed "wait: llama.cpp" await llama
# candle sizes each matrix product by the physical cores, which it reads from /proc/cpuinfo on
# every product unless RAYON_NUM_THREADS is set: 15% of a local judge's CPU time on a 2-core
# machine (perf on `tribunal serve` judging). The tests' processes get one thread each: the test
# binaries run two at a time, one test each (scripts/run_tests.py), so each core already has a
# test of its own, and a second thread per process would contend with the other test.
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
eval "$(bash scripts/postgres.sh start)"
# The test binaries run two at a time, one test thread each, the longest first
# (scripts/run_tests.py): `cargo test` runs them one after another, and a binary of one test
# left a core idle.
timed "native tests (unit, integration, end-to-end)" bash -o pipefail -c \
  'python3 scripts/run_tests.py -- --locked --workspace --exclude tribunal-app --exclude tribunal-python 2>&1 | tee -a "$0"' "$log"
timed "Python tests (pytest: every kind equal to tribunal stats)" env TRIBUNAL_BIN="$CARGO_TARGET_DIR/debug/tribunal" \
  bash -o pipefail -c '"$1/python/bin/python" -m pytest -q -p no:cacheprovider python/tests 2>&1 | tee -a "$0"' "$log" "$scratch"
timed "fuzz corpus replay (stable)" env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
  CARGO_TARGET_DIR="$fuzz_target" bash -o pipefail -c \
  'cargo test --locked --manifest-path fuzz/Cargo.toml 2>&1 | tee -a "$0"' "$log"

passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
printf '\ndisk: build %s, fuzz build %s, temporary files %s\n' \
  "$(du -sh "$CARGO_TARGET_DIR" | cut -f1)" "$(du -sh "$fuzz_target" | cut -f1)" \
  "$(du -sh "$scratch" | cut -f1)"
timing_total "scripts/test.sh"
printf '\ntests: %s passed, %s failed\n' "$passed" "$failed"
[ "$failed" = 0 ]
