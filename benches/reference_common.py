"""Timing helpers and environment records shared by the Python reference benchmarks.

Method, as in the Rust timers: one warm-up call, then ROUNDS timed calls; report the median
and the minimum. Bootstraps too slow to run 1000 times are timed round by round for a few
rounds, and reported per round and extrapolated to 1000 rounds (marked "extrapolated").
"""

import csv
import math
import os
import platform
import random
import statistics
import time
from importlib import metadata

from threadpoolctl import threadpool_info


def simulated_battles(path, models, battles, seed, tie_share=0.0):
    """Bradley–Terry battles written to `path` (model_a, model_b, winner): strengths evenly
    spaced over 6 logits, random pairs, a share `tie_share` of ties, the rest won with the
    model's probability."""
    rng = random.Random(seed)
    theta = [6.0 * (m / (models - 1) - 0.5) for m in range(models)]
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["model_a", "model_b", "winner"])
        for _ in range(battles):
            a, b = rng.sample(range(models), 2)
            p = 1.0 / (1.0 + math.exp(theta[b] - theta[a]))
            u = rng.random()
            if u < tie_share:
                winner = "tie"
            else:
                winner = "model_a" if u < tie_share + (1.0 - tie_share) * p else "model_b"
            out.writerow([f"m{a:03}", f"m{b:03}", winner])


def timed(rounds, f, warmup=True):
    """Median and minimum seconds of `rounds` calls of f() after one warm-up call (none with
    `warmup=False`, for calls that take minutes)."""
    if warmup:
        f()
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        seconds.append(time.perf_counter() - start)
    return {"median_s": statistics.median(seconds), "min_s": min(seconds), "rounds": rounds}


def timed_bootstrap(rounds, one_round, target_rounds=1000, warmup=True):
    """Times `rounds` bootstrap rounds one by one (after one warm-up round unless `warmup` is
    False) and extrapolates to `target_rounds`: the median and the minimum of the per-round
    times, times `target_rounds`."""
    per_round = timed(rounds, one_round, warmup)
    return {
        "extrapolated": True,
        "median_s": per_round["median_s"] * target_rounds,
        "min_s": per_round["min_s"] * target_rounds,
        "rounds": rounds,
        "per_round_median_s": per_round["median_s"],
        "per_round_min_s": per_round["min_s"],
        "extrapolated_to": target_rounds,
        "warmup": warmup,
    }


def read_long_ratings(path):
    """A long-format ratings CSV (item,rater,score) as items, raters (in order of first
    appearance, as Tribunal's parser orders them) and {(item, rater): score}."""
    items, raters, cells = {}, {}, {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["score"].strip() == "":
                continue
            i = items.setdefault(row["item"], len(items))
            r = raters.setdefault(row["rater"], len(raters))
            cells[(i, r)] = float(row["score"])
    return items, raters, cells


def environment(packages):
    """Python, package versions, the BLAS libraries numpy/scipy loaded and the OpenBLAS
    settings in force (OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE should be unset)."""
    return {
        "python": platform.python_version(),
        "versions": {p: metadata.version(p) for p in packages},
        "blas": [
            {k: lib.get(k) for k in ("internal_api", "version", "architecture", "num_threads",
                                     "threading_layer", "prefix")}
            for lib in threadpool_info()
        ],
        "openblas_env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
    }
