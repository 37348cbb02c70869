"""Python reference timing for the label model (issue 6): a numpy Dawid–Skene with the model
and settings of `tribunal::label_model` (one accuracy per program, abstentions skipped, class
prior learned, Beta pseudo-count 1, start at accuracy 0.7, stop when no parameter moves more
than 1e-10), vectorised over items, on the vote file `bench-native data` writes
(`votes-5k-20.csv`: 5000 items × 20 programs, votes in {-1, 0, 1}).

Usage: python benches/reference_programs.py DATA_DIR ROUNDS → JSON (timing, learned
accuracies, iterations: the table checks the accuracies equal Tribunal's).
Needs: pip install -r benches/requirements.txt
"""

import argparse
import json
import os

import numpy as np

from reference_common import environment, timed


def dawid_skene(votes, initial=0.7, pseudo=1.0, tol=1e-10, max_iter=1000):
    n, k = votes.shape
    pos, neg = (votes == 1).astype(float), (votes == -1).astype(float)
    counts = (votes != 0).sum(axis=0)
    acc, prior = np.full(k, initial), 0.5
    v = votes.astype(float)
    for iteration in range(1, max_iter + 1):
        q = 1.0 / (1.0 + np.exp(-(np.log(prior / (1 - prior)) + v @ np.log(acc / (1 - acc)))))
        agree = q @ pos + (1 - q) @ neg
        new_acc = np.clip((agree + pseudo) / (counts + 2 * pseudo), 1e-6, 1 - 1e-6)
        new_prior = min(max(q.mean(), 1e-6), 1 - 1e-6)
        change = max(np.abs(new_acc - acc).max(), abs(new_prior - prior))
        acc, prior = new_acc, new_prior
        if change < tol:
            break
    return acc, prior, iteration


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("rounds", type=int)
    args = parser.parse_args()
    path = os.path.join(args.data, "votes-5k-20.csv")
    votes = np.loadtxt(path, delimiter=",", skiprows=1, dtype=int)[:, 1:]
    acc, prior, iterations = dawid_skene(votes)
    print(json.dumps({
        "votes-5k-20.csv": {
            "items": votes.shape[0],
            "programs": votes.shape[1],
            "numpy_dawid_skene": timed(args.rounds, lambda: dawid_skene(votes)),
            "accuracies": acc.tolist(),
            "class_prior": prior,
            "iterations": iterations,
        },
        "environment": environment(["numpy"]),
    }))


if __name__ == "__main__":
    main()
