"""Python reference timings for the Bradley–Terry fit on a battles CSV.

Usage: python benches/reference_bt.py FILE.csv ROUNDS  → JSON on stdout.
Needs: pip install -r benches/requirements.txt

- choix.opt_pairwise (Newton-CG): the same objective as Tribunal (λ‖θ‖² penalty, ties as half
  wins via doubled data, see shared/tests/fixtures/make_bt_reference.py).
- evalica.bradley_terry (Rust core, MM iterations, no penalty): a fast peer, not the same optimum.
- "csv_to_leaderboard" includes reading and parsing the CSV with Python's csv module.
"""

import csv
import json
import statistics
import sys
import time

import choix
import evalica
import numpy as np


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    a_col, b_col = ("model_a", "model_b") if "model_a" in rows[0] else ("left", "right")
    models, battles = {}, []
    for row in rows:
        a = models.setdefault(row[a_col], len(models))
        b = models.setdefault(row[b_col], len(models))
        w = row["winner"]
        y = 1.0 if w in ("model_a", "left") else 0.0 if w in ("model_b", "right") else 0.5
        battles.append((a, b, y))
    return models, battles


def choix_fit(n, battles, lam=0.01):
    data = []
    for a, b, y in battles:
        data += [(a, b), (a, b)] if y == 1.0 else [(b, a), (b, a)] if y == 0.0 else [(a, b), (b, a)]
    return choix.opt_pairwise(n, data, alpha=2 * lam, method="Newton-CG", tol=1e-10)


def evalica_fit(battles):
    xs = [a for a, _, _ in battles]
    ys = [b for _, b, _ in battles]
    ws = [evalica.Winner.X if y == 1.0 else evalica.Winner.Y if y == 0.0 else evalica.Winner.Draw
          for _, _, y in battles]
    return evalica.bradley_terry(xs, ys, ws)


def timed(rounds, f):
    f()
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        seconds.append(time.perf_counter() - start)
    return {"median_s": statistics.median(seconds), "min_s": min(seconds), "rounds": rounds}


def main():
    path, rounds = sys.argv[1], int(sys.argv[2])
    models, battles = read(path)
    n = len(models)
    print(json.dumps({
        "file": path,
        "battles": len(battles),
        "models": n,
        "choix_csv_to_leaderboard": timed(rounds, lambda: choix_fit(n, read(path)[1])),
        "choix_fit_only": timed(rounds, lambda: choix_fit(n, battles)),
        "evalica_fit_only": timed(rounds, lambda: evalica_fit(battles)),
        "versions": {"choix": "0.4.1", "evalica": evalica.__version__, "numpy": np.__version__},
    }))


if __name__ == "__main__":
    main()
