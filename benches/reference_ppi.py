"""ppi-python's timings of the prediction-powered Bradley–Terry fit, beside Tribunal's
(benches/ppi.sh).

Usage: python benches/reference_ppi.py ROUNDS BOOT_ROUNDS FILE:LAMBDA...

For each labelled-battles file (`model_a,model_b,judge,human`; `human` empty where not
labelled), the design Tribunal builds (+1 for `model_a`, −1 for `model_b`, the first model in
sorted order dropped, no intercept):
- `ppi_logistic_ci` with λ tuned (alpha 0.05): ROUNDS timed calls after a warm-up;
- the bootstrap Tribunal runs (labelled and unlabelled rows resampled apart, λ held at LAMBDA,
  the whole data's tuned λ that Tribunal reports) on `ppi_logistic_pointestimate`: BOOT_ROUNDS
  rounds timed one by one and extrapolated to 1000.
Labels are fractional (a crowd's mean), so ppi-python's start (scikit-learn's
LogisticRegression, classes only) is replaced by θ = 0, by importing tests/fixtures/make_ppi_reference.py.
Prints JSON shaped like `bench-native ppi-time`'s.
"""

import csv
import json
import pathlib
import sys

import numpy as np
from ppi_py import ppi_logistic_ci, ppi_logistic_pointestimate

from reference_common import environment, timed, timed_bootstrap

# Importing the fixture script puts its θ = 0 start in place of scikit-learn's.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures"))
import make_ppi_reference  # noqa: E402,F401


def read(path):
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
    models = sorted({r["model_a"] for r in rows} | {r["model_b"] for r in rows})
    index = {m: k - 1 for k, m in enumerate(models)}

    def design(part):
        X = np.zeros((len(part), len(models) - 1))
        for i, r in enumerate(part):
            if index[r["model_a"]] >= 0:
                X[i, index[r["model_a"]]] += 1.0
            if index[r["model_b"]] >= 0:
                X[i, index[r["model_b"]]] -= 1.0
        return X

    lab = [r for r in rows if r["human"] != ""]
    unl = [r for r in rows if r["human"] == ""]
    label = lambda part, col: np.array([float(r[col]) for r in part])
    return design(lab), label(lab, "human"), label(lab, "judge"), design(unl), label(unl, "judge")


def main():
    rounds, boot_rounds = int(sys.argv[1]), int(sys.argv[2])
    report = {"environment": environment(["ppi-python", "numpy", "scipy"])}
    rng = np.random.default_rng(0)
    for spec in sys.argv[3:]:
        path, lam = spec.rsplit(":", 1)
        X, Y, Yhat, Xu, Yu = read(path)

        def one_round():
            i = rng.integers(0, len(Y), len(Y))
            j = rng.integers(0, len(Yu), len(Yu))
            ppi_logistic_pointestimate(X[i], Y[i], Yhat[i], Xu[j], Yu[j], lam=float(lam))

        report[path] = {
            "asymptotic": timed(rounds, lambda: ppi_logistic_ci(X, Y, Yhat, Xu, Yu, alpha=0.05)),
            "bootstrap_1000": timed_bootstrap(boot_rounds, one_round),
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
