"""Transitivity against networkx's triad census, in the same run: `tribunal stats transitivity`
(the whole command: reading the CSV, the majorities, the bitset count, the JSON) beside
networkx 3.6.1 building the same majority graph from the same rows and taking its
`triadic_census`, on LLMFAO's crowd votes (8,931 battles, 59 models, pooled) and on seeded
Bradley–Terry battles of an arena's size (200 models × 100,000 battles, pooled). Each timing is
the median of 5 runs; the counts are checked equal before any time is reported.

Usage (from the repository root, after `cargo build --release -p tribunal-worker --bin tribunal`):
    python3 benches/transitivity.py target/release/tribunal [OUT_DIR]
Prints a Markdown table: seconds per side and the ratio. (Pooled battles get no bootstrap: the
command runs with `--bootstrap 0`, which is what it computes pooled anyway, without the warning.)
"""

import collections
import csv
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx

from reference_common import simulated_battles


def networkx_census(path: Path) -> tuple:
    """The majority graph of a battles CSV and networkx's census: (triads, cyclic)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    a_col, b_col = ("model_a", "model_b") if "model_a" in rows[0] else ("left", "right")
    totals = collections.defaultdict(lambda: [0.0, 0.0])
    for row in rows:
        a, b, w = row[a_col], row[b_col], row["winner"]
        y = 1.0 if w == a_col else 0.0 if w == b_col else 0.5
        if a > b:
            a, b, y = b, a, 1.0 - y
        totals[(a, b)][0] += 1
        totals[(a, b)][1] += y
    graph = nx.DiGraph()
    for (a, b), (n, wins) in totals.items():
        graph.add_nodes_from([a, b])
        if 2 * wins > n:
            graph.add_edge(a, b)
        elif 2 * wins < n:
            graph.add_edge(b, a)
    census = nx.triadic_census(graph)
    return census["030T"] + census["030C"], census["030C"]


def tribunal(binary: str, path: Path) -> tuple:
    out = subprocess.run(
        [binary, "stats", "transitivity", "--input", str(path), "--bootstrap", "0"],
        check=True, capture_output=True,
    )
    report = json.loads(out.stdout)
    return report["triads"], report["cyclic"]


def median_seconds(f, runs=5):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    binary = sys.argv[1]
    out_dir = Path(sys.argv[2] if len(sys.argv) > 2 else "target/bench/transitivity")
    out_dir.mkdir(parents=True, exist_ok=True)
    arena = out_dir / "bt-200x100k.csv"
    if not arena.exists():
        simulated_battles(arena, 200, 100_000, 7)
    cases = [
        ("LLMFAO crowd, pooled (8,931 battles, 59 models)", Path("tests/data/llmfao/crowd-comparisons.csv")),
        ("Bradley–Terry, pooled (100,000 battles, 200 models)", arena),
    ]
    print("| data | triads (cyclic) | networkx census | tribunal stats transitivity | ratio |")
    print("|---|---|---|---|---|")
    for name, path in cases:
        nx_time, nx_counts = median_seconds(lambda: networkx_census(path))
        ours_time, ours_counts = median_seconds(lambda: tribunal(binary, path))
        assert nx_counts == ours_counts, (name, nx_counts, ours_counts)
        print(
            f"| {name} | {ours_counts[0]} ({ours_counts[1]}) | {nx_time:.3f} s | {ours_time:.3f} s "
            f"| {nx_time / ours_time:.0f}× |"
        )


if __name__ == "__main__":
    main()
