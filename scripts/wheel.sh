#!/usr/bin/env bash
# Builds the Python wheel (python/: `pip install` it into any Python ≥ 3.9 virtualenv) into
# target/wheels/, installing maturin first when missing (scripts/setup.sh python).
# Usage: bash scripts/wheel.sh   → prints the wheel's path
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
maturin=${XDG_CACHE_HOME:-$HOME/.cache}/tribunal/python-tools/bin/maturin
[ -x "$maturin" ] || bash scripts/setup.sh python >&2
rm -rf target/wheels
"$maturin" build --release --locked -m python/Cargo.toml -o target/wheels >&2
ls target/wheels/tribunal-*.whl
