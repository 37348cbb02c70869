"""Python reference timings for agreement and IRT (issue 5), on the CSVs `bench-native data`
writes (long format item,rater,score).

Usage: python benches/reference_ratings.py DATA_DIR ROUNDS BOOT_ROUNDS [--seed S] → JSON.
Needs: pip install -r benches/requirements.txt

- Krippendorff's α (nominal): `krippendorff.alpha` on the raters × items matrix (NaN =
  missing), bootstrapped by resampling items (columns) in a Python loop; BOOT_ROUNDS rounds
  timed one by one and extrapolated to 1000 (labelled).
- Cohen's κ: scikit-learn `cohen_kappa_score` plus the percent agreement per round (Tribunal's
  κ bootstrap draws both intervals), items resampled in a Python loop; extrapolated likewise.
- GRM: `girth.grm_mml` on the variants × items matrix (girth's "items" are Tribunal's
  variants), default options (MML, 41 quadrature points on [−4.5, 4.5], at most 25 outer
  iterations, stop when no discrimination moves by 1e−3), ROUNDS timed fits.
"""

import argparse
import json
import os

import girth
import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from reference_common import environment, read_long_ratings, timed, timed_bootstrap


def matrix(path):
    """items × raters array with NaN for a missing rating."""
    items, raters, cells = read_long_ratings(path)
    x = np.full((len(items), len(raters)), np.nan)
    for (i, r), v in cells.items():
        x[i, r] = v
    return x


def alpha(data_dir, boot_rounds, rng):
    units = matrix(os.path.join(data_dir, "alpha-10k.csv")).T  # raters × items
    n = units.shape[1]

    def one_round():
        return krippendorff.alpha(reliability_data=units[:, rng.integers(0, n, n)],
                                  level_of_measurement="nominal")

    return {
        "items": n,
        "raters": units.shape[0],
        "alpha": float(krippendorff.alpha(reliability_data=units, level_of_measurement="nominal")),
        "bootstrap": timed_bootstrap(boot_rounds, one_round),
    }


def kappa(data_dir, boot_rounds, rng):
    x = matrix(os.path.join(data_dir, "kappa-10k.csv"))
    both = ~np.isnan(x[:, 0]) & ~np.isnan(x[:, 1])
    a, b = x[both, 0].astype(int), x[both, 1].astype(int)
    n = len(a)

    def one_round():
        idx = rng.integers(0, n, n)
        return cohen_kappa_score(a[idx], b[idx]), np.mean(a[idx] == b[idx])

    return {
        "items": n,
        "kappa": float(cohen_kappa_score(a, b)),
        "bootstrap": timed_bootstrap(boot_rounds, one_round),
    }


def grm(data_dir, rounds):
    data = matrix(os.path.join(data_dir, "grm-1000x4.csv")).T.astype(int)  # variants × items
    fits = []
    timing = timed(rounds, lambda: fits.append(girth.grm_mml(data)))
    fit = fits[-1]
    return {
        "items": data.shape[1],
        "variants": data.shape[0],
        "fit": timing,
        "alpha": fit["Discrimination"].tolist(),
        "thresholds": [[float(t) for t in row if np.isfinite(t)] for row in fit["Difficulty"]],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("rounds", type=int)
    parser.add_argument("boot_rounds", type=int)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(json.dumps({
        "bootstrap_seed": args.seed,
        "alpha-10k.csv": alpha(args.data_dir, args.boot_rounds, rng),
        "kappa-10k.csv": kappa(args.data_dir, args.boot_rounds, rng),
        "grm-1000x4.csv": grm(args.data_dir, args.rounds),
        "environment": environment(["krippendorff", "scikit-learn", "girth", "numpy", "scipy"]),
    }))


if __name__ == "__main__":
    main()
