"""Win rates against evalica, in the same run: `tribunal stats win-rates` (the whole command:
reading the CSV, each pair's tallies and Wilson interval, each model's average, the JSON) beside
evalica 0.4.2's `average_win_rate` and `matrices` (its Rust core, the pyo3 solver) on the same
rows already in memory, on LLMFAO's GPT-4 verdicts (2,139 battles, 59 models) and on seeded
Bradley–Terry battles (200 models × 100,000 and × 1,000,000 battles). Each timing is the median
of 5 runs; every model's average win rate is checked equal (1e-12) before any time is reported.

Usage (from the repository root, after `cargo build --release -p tribunal-worker --bin tribunal`):
    python3 benches/win_rates.py target/release/tribunal [OUT_DIR]
Prints a Markdown table: seconds per side and the ratio. Evalica is timed from parsed lists
(its reading of the CSV not counted); Tribunal from the command's start to its exit.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import evalica

from reference_common import simulated_battles, timed

WINNER = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw,
          "left": evalica.Winner.X, "right": evalica.Winner.Y}


def rows_of(path: Path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    a_col, b_col = ("model_a", "model_b") if "model_a" in rows[0] else ("left", "right")
    return [r[a_col] for r in rows], [r[b_col] for r in rows], [WINNER[r["winner"]] for r in rows]


def evalica_run(xs, ys, winners):
    averages = evalica.average_win_rate(xs, ys, winners, tie_weight=0.5)
    xs_indexed, ys_indexed, index = evalica.indexing(xs, ys)
    evalica.matrices(xs_indexed, ys_indexed, winners, index=index)
    return averages.scores


def main():
    tribunal = sys.argv[1]
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/win-rates-bench")
    out.mkdir(parents=True, exist_ok=True)
    cases = [("LLMFAO GPT-4 (2,139 battles, 59 models)", Path("tests/data/llmfao/gpt4-crowd-comparisons.csv"))]
    for battles in [100_000, 1_000_000]:
        path = out / f"bt-200-{battles}.csv"
        if not path.exists():
            simulated_battles(path, 200, battles, seed=7, tie_share=0.1)
        cases.append((f"simulated, 200 models × {battles:,} battles", path))
    print("| data | evalica average_win_rate + matrices | tribunal stats win-rates | evalica ÷ Tribunal |")
    print("|---|---|---|---|")
    for label, path in cases:
        xs, ys, winners = rows_of(path)
        command = [tribunal, "stats", "win-rates", "--input", str(path)]
        report = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
        scores = evalica_run(xs, ys, winners)
        for row in report["models"]:
            assert abs(row["average_win_rate"] - scores[row["model"]]) < 1e-12, row
        ours = timed(5, lambda: subprocess.run(command, check=True, capture_output=True),
                     warmup=False)["median_s"]
        theirs = timed(5, lambda: evalica_run(xs, ys, winners), warmup=False)["median_s"]
        print(f"| {label} | {theirs:.3f} s | {ours:.3f} s | {theirs / ours:.2f} |")


if __name__ == "__main__":
    main()
