"""Python reference timings for the calibration heads' cross-validation (issue 4), on the
calibration CSVs `bench-native data` writes (500 rows; `embedding,score,human` for LS,
`embedding,p,human` for BTL; embeddings as space-separated numbers).

Usage: python benches/reference_calibration.py DATA_DIR ROUNDS → JSON.
Needs: pip install -r benches/requirements.txt

The workload Tribunal times (`calibration_cv`): choose γ among 10 log-spaced values from 1e−2
to 1e4 by 5-fold cross-validation, then refit on all rows. The references, on the standardised
embedding ⊕ the judge's signal (score for LS, logit p for BTL), with the same grid and a 5-fold
KFold (shuffled, seed 0):
- LS: scikit-learn `RidgeCV(alphas=grid, cv=KFold(5))`, which runs the 50 fits as a grid search
  and refits at the best α;
- BTL: scikit-learn `LogisticRegressionCV(Cs=1/(2·grid), cv=KFold(5), l2, lbfgs)` scored by
  log-loss (Tribunal's validation loss), the same penalty scaling as Tribunal's BTL head
  (C = 1/(2γ)), refitted at the best C.
Standardising once on all rows instead of per training fold changes nothing in the timing.
"""

import argparse
import csv
import json

import numpy as np
from sklearn.linear_model import LogisticRegressionCV, RidgeCV
from sklearn.model_selection import KFold

from reference_common import environment, timed

FILES = [("cal-ls-384.csv", False), ("cal-ls-4096.csv", False),
         ("cal-btl-384.csv", True), ("cal-btl-4096.csv", True)]
GRID = np.logspace(-2, 4, 10)


def load(path, btl):
    """Features (standardised embedding ⊕ judge signal) and targets."""
    rows, signal, human = [], [], []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rows.append(np.array(row["embedding"].split(), dtype=float))
            signal.append(float(row["p" if btl else "score"]))
            human.append(float(row["human"]))
    e = np.vstack(rows)
    scale = e.std(axis=0)
    e = (e - e.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    s = np.array(signal)
    if btl:
        s = np.clip(s, 1e-6, 1 - 1e-6)
        s = np.log(s / (1 - s))
    return np.column_stack([e, s]), np.array(human)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("rounds", type=int)
    args = parser.parse_args()
    folds = KFold(5, shuffle=True, random_state=0)
    report = {}
    for name, btl in FILES:
        x, y = load(f"{args.data_dir}/{name}", btl)
        if btl:
            model = LogisticRegressionCV(Cs=list(1 / (2 * GRID)), cv=folds, l1_ratios=(0,),
                                         solver="lbfgs", max_iter=1000,
                                         scoring="neg_log_loss", use_legacy_attributes=False)
            label = "scikit-learn LogisticRegressionCV (lbfgs, 5-fold, 10 C)"
            y = (y > 0.5).astype(int)
        else:
            model = RidgeCV(alphas=GRID, cv=folds)
            label = "scikit-learn RidgeCV (5-fold grid search, 10 α)"
        fit = lambda: model.fit(x, y)
        report[name] = {"rows": len(y), "dim": x.shape[1] - 1, "label": label,
                        "cv": timed(args.rounds, fit)}
    report["environment"] = environment(["scikit-learn", "numpy", "scipy"])
    print(json.dumps(report))


if __name__ == "__main__":
    main()
