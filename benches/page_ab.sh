#!/usr/bin/env bash
# Two builds of the app side by side on the Calibrate page, interleaved so that both see the
# same machine: serves DIST_A and DIST_B (each a `trunk build --release` output) on two ports,
# then for each of ROUNDS rounds and each head runs benches/calibrate_page.mjs (median of 9
# clicks) on A, then on B. Prints one line per run (`round head build median_ms`), then per
# head the medians of the rounds and the median of B − A paired by round.
# Usage: bash benches/page_ab.sh DIST_A DIST_B ROUNDS [HEADS]
#   HEADS: default "ls btl"; the training files are $DATA/cal-HEAD-384.csv (DATA defaults to
#   target/bench/data, written by `bench-native data`, see benches/run.sh).
# A build of an older commit: `git clone . /tmp/old && git -C /tmp/old checkout COMMIT`, then
# `CARGO_TARGET_DIR=/tmp/old-target trunk build --release --dist /tmp/dist-old` in /tmp/old
# (its own target directory: never the cache CI reuses).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 3 ] || { sed -n '2,13p' "$0"; exit 2; }
a=$1 b=$2 rounds=$3 heads=${4:-ls btl}
data=${DATA:-target/bench/data}
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
scratch=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$scratch"' EXIT
serve() {
  mkdir -p "$scratch/$2"
  "$target/debug/tribunal" serve --addr 127.0.0.1:0 --data-dir "$scratch/$2" --dist "$1" \
    > "$scratch/$2.log" 2>&1 &
  pids+=($!)
  local url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^Tribunal is serving at //p' "$scratch/$2.log")
    [ -n "$url" ] && break
    sleep 0.2
  done
  [ -n "$url" ] || { echo "tribunal serve --dist $1 did not start: $(cat "$scratch/$2.log")" >&2; exit 1; }
  echo "$url"
}
url_a=$(serve "$a" a)
url_b=$(serve "$b" b)
for round in $(seq "$rounds"); do
  for head in $heads; do
    for build in A B; do
      url=$([ "$build" = A ] && echo "$url_a" || echo "$url_b")
      ms=$(node benches/calibrate_page.mjs "$url" "$head" "$data/cal-$head-384.csv" 9 |
        python3 -c 'import json, sys; print(round(json.load(sys.stdin)["median_ms"], 1))')
      echo "$round $head $build $ms" | tee -a "$scratch/runs"
    done
  done
done
python3 - "$scratch/runs" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for head in dict.fromkeys(r[1] for r in rows):
    a = [float(r[3]) for r in rows if r[1] == head and r[2] == "A"]
    b = [float(r[3]) for r in rows if r[1] == head and r[2] == "B"]
    d = [y - x for x, y in zip(a, b)]
    print(f"{head}: A median {statistics.median(a):.1f} ms, B median {statistics.median(b):.1f} ms, "
          f"B - A paired by round: median {statistics.median(d):+.1f} ms, B slower in {sum(x > 0 for x in d)} of {len(d)}")
EOF
