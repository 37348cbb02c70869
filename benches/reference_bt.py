"""Python reference timings for the Bradley–Terry fit (and bootstrap) on a battles CSV.

Usage:
  python benches/reference_bt.py FILE.csv ROUNDS
      parse + fit and fit only (choix, evalica): the LLMFAO comparison (issue 2).
  python benches/reference_bt.py FILE.csv ROUNDS --bootstrap K [--choix-rounds N] [--seed S]
      fit (scikit-learn-style logistic BT, evalica) over ROUNDS timed runs, and each one's
      battle bootstrap timed over K rounds, extrapolated to 1000 (issue 3); choix: N fits and
      N bootstrap rounds, no warm-up (default 1; 0 skips choix).
Prints JSON. Needs: pip install -r benches/requirements.txt

- choix.opt_pairwise (Newton-CG): the same objective as Tribunal (λ‖θ‖² penalty, ties as half
  wins via doubled data, see shared/tests/fixtures/make_bt_reference.py).
- scikit-learn LogisticRegression as FastChat / Arena-Hard fit Bradley–Terry: one row per
  battle on the ±1 design matrix (dense, as they build it), a tie as two half-weight rows (one
  won, one lost), no intercept, lbfgs, tol 1e-6 (Arena-Hard). C = 1 / (2λ) = 50: sklearn
  minimises ½‖w‖² + C Σ loss, i.e. Σ loss + ‖w‖² / (2C), so this C gives Tribunal's objective
  (large enough that the penalty is negligible, as the references' large C / no penalty).
- evalica.bradley_terry (Rust core, MM iterations, no penalty): a fast peer, not the same optimum.
- "csv_to_leaderboard" includes reading and parsing the CSV with Python's csv module.
- A fit includes building the library's input (choix's pair list, the design matrix,
  evalica's lists) from the battle arrays, as Tribunal's includes aggregating the battles; a
  bootstrap round also draws the resample, as FastChat's bootstrap
  (`battles.sample(frac=1, replace=True)`, then the full fit) does.
"""

import argparse
import csv
import json

import choix
import evalica
import numpy as np
from sklearn.linear_model import LogisticRegression

from reference_common import environment, timed, timed_bootstrap

LAMBDA = 0.01


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


def choix_fit(n, battles, lam=LAMBDA):
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


class Arrays:
    """The battles as numpy arrays, and each library's input built from them (all battles, or
    the resample `idx`)."""

    def __init__(self, battles):
        self.a = np.array([a for a, _, _ in battles], dtype=np.int64)
        self.b = np.array([b for _, b, _ in battles], dtype=np.int64)
        self.y = np.array([y for _, _, y in battles])

    def pick(self, idx):
        return (self.a, self.b, self.y) if idx is None else (self.a[idx], self.b[idx], self.y[idx])

    def choix_data(self, idx=None):
        """(winner, loser) pairs, two per battle (a tie: one each way), as a list of int
        tuples: choix iterates over the data in Python, fastest on a list."""
        a, b, y = self.pick(idx)
        first = np.where(y == 0.0, b, a), np.where(y == 0.0, a, b)
        second = np.where(y == 1.0, a, b), np.where(y == 1.0, b, a)
        pairs = np.stack([first[0], first[1], second[0], second[1]], axis=1).reshape(-1, 2)
        return list(map(tuple, pairs.tolist()))

    def sklearn_design(self, m, idx=None):
        """The dense ±1 design matrix, labels and weights (a tie: two half-weight rows)."""
        a, b, y = self.pick(idx)
        tie = y == 0.5
        rows_a = np.concatenate([a, a[tie]])
        rows_b = np.concatenate([b, b[tie]])
        label = np.concatenate([np.where(tie, 1.0, y), np.zeros(tie.sum())])
        weight = np.concatenate([np.where(tie, 0.5, 1.0), np.full(tie.sum(), 0.5)])
        x = np.zeros((len(rows_a), m))
        r = np.arange(len(rows_a))
        x[r, rows_a] = 1.0
        x[r, rows_b] = -1.0
        return x, label, weight

    def evalica_input(self, idx=None):
        a, b, y = self.pick(idx)
        outcomes = np.array([evalica.Winner.X, evalica.Winner.Y, evalica.Winner.Draw], dtype=object)
        code = np.where(y == 1.0, 0, np.where(y == 0.0, 1, 2))
        return a.tolist(), b.tolist(), outcomes[code].tolist()


def choix_data_fit(m, data):
    return choix.opt_pairwise(m, data, alpha=2 * LAMBDA, method="Newton-CG", tol=1e-10)


def sklearn_fit(m, design):
    x, label, weight = design
    lr = LogisticRegression(fit_intercept=False, C=1 / (2 * LAMBDA), tol=1e-6, max_iter=1000)
    lr.fit(x, label, sample_weight=weight)
    return lr.coef_[0]


def evalica_data_fit(m, inputs):
    xs, ys, ws = inputs
    return evalica.bradley_terry(xs, ys, ws)


def theta_by_name(name, result, models):
    """θ by model name; evalica's strengths as centred log-strengths."""
    if name == "evalica":
        theta = np.log(np.array([result.scores[i] for i in range(len(models))]))
        theta -= theta.mean()
    else:
        theta = result
    return {model: float(theta[i]) for model, i in models.items()}


def llmfao(path, rounds):
    models, battles = read(path)
    n = len(models)
    return {
        "file": path,
        "battles": len(battles),
        "models": n,
        "choix_csv_to_leaderboard": timed(rounds, lambda: choix_fit(n, read(path)[1])),
        "choix_fit_only": timed(rounds, lambda: choix_fit(n, battles)),
        "evalica_fit_only": timed(rounds, lambda: evalica_fit(battles)),
    }


def synthetic(path, rounds, boot_rounds, choix_rounds, seed):
    """Fit and bootstrap timings. A fit includes building the library's input from the battle
    arrays (Tribunal's fit includes aggregating the parsed battles). choix, whose objective,
    gradient and Hessian loop over the data in Python (about a minute per fit at 100k
    battles), runs `choix_rounds` fits and bootstrap rounds without warm-up; 0 skips it."""
    models, battles = read(path)
    m = len(models)
    arr = Arrays(battles)
    n = len(battles)
    rng = np.random.default_rng(seed)
    libraries = {
        "choix": (arr.choix_data, choix_data_fit, choix_rounds, choix_rounds, False),
        "sklearn": (lambda idx=None: arr.sklearn_design(m, idx), sklearn_fit,
                    rounds, boot_rounds, True),
        "evalica": (arr.evalica_input, evalica_data_fit, rounds, boot_rounds, True),
    }
    report = {"file": path, "battles": n, "models": m, "bootstrap_seed": seed, "theta": {}}
    for name, (prepare, fit, fit_rounds, boots, warmup) in libraries.items():
        if fit_rounds == 0:
            report[f"{name}_skipped"] = True
            continue
        results = []
        report[f"{name}_fit_only"] = timed(
            fit_rounds, lambda: results.append(fit(m, prepare())), warmup)
        report[f"{name}_bootstrap"] = timed_bootstrap(
            boots, lambda: fit(m, prepare(rng.integers(0, n, n))), warmup=warmup)
        report["theta"][name] = theta_by_name(name, results[-1], models)
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("rounds", type=int)
    parser.add_argument("--bootstrap", type=int, metavar="K")
    parser.add_argument("--choix-rounds", type=int, default=1, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    report = (synthetic(args.file, args.rounds, args.bootstrap, args.choix_rounds, args.seed)
              if args.bootstrap
              else llmfao(args.file, args.rounds))
    report["environment"] = environment(["choix", "evalica", "scikit-learn", "numpy", "scipy"])
    print(json.dumps(report))


if __name__ == "__main__":
    main()
