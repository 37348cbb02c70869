"""The Python wheel against evalica's Python API on the same pandas frame, in one run.

Usage: python benches/python_wheel.py FILE.csv [RUNS] [ROUNDS]
Prints JSON. A missing FILE is simulated first (100k battles, 60 models, seed 1). Needs the `tribunal` wheel and benches/requirements.txt (benches/python_wheel.sh).

Both start from the battles as a pandas DataFrame (model_a, model_b, winner) and produce a
Bradley–Terry leaderboard with a ROUNDS-round battle bootstrap (default 1000):
- tribunal.leaderboard(frame, rounds=ROUNDS, seed=0): the frame written as CSV and handed to
  the Rust core, which parses it, fits and bootstraps with the GIL released;
- evalica, as its documentation bootstraps: `frame.sample(frac=1, replace=True)` then
  `evalica.bradley_terry` on the resample's columns (as lists), ROUNDS times, after the point
  fit; the winner column mapped to evalica.Winner once.
Tribunal is timed RUNS times after a warm-up call (default 3), evalica once (a minute per run);
all of evalica's rounds run, nothing is extrapolated.
"""

import json
import os
import sys

import evalica
import numpy as np
import pandas

import tribunal
from reference_common import environment, timed


def tribunal_board(frame, rounds):
    board = tribunal.leaderboard(frame, rounds=rounds, seed=0)
    return {r["model"]: r for r in board["ratings"]}


def evalica_board(frame, rounds):
    outcome = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y}
    # A column of evalica.Winner values made by pandas (`map`, `fillna`) is refused by evalica
    # 0.4.2's core ("'ndarray' object is not an instance of 'ndarray'"): built as a list.
    frame = frame.assign(outcome=[outcome.get(w, evalica.Winner.Draw) for w in frame["winner"]])

    def fit(battles):
        return evalica.bradley_terry(battles["model_a"].tolist(), battles["model_b"].tolist(),
                                     battles["outcome"].tolist())

    point = fit(frame)
    samples = []
    for r in range(rounds):
        samples.append(fit(frame.sample(frac=1.0, replace=True, random_state=r)).scores)
    table = pandas.DataFrame(samples)
    return point.scores, table.quantile(0.025), table.quantile(0.975)


def simulate(path, n_battles=100_000, n_models=60, seed=1):
    """Bradley–Terry battles as bench-native's `battle_params` draws them (strengths evenly
    spread over [−1.5, 1.5], 20 % ties, pairs uniform), with numpy's generator: for a machine
    without the release bench build. Written to `path`."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.5, 1.5, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p_a = 1 / (1 + np.exp(strength[b] - strength[a]))
    u, tie = rng.random(n_battles), rng.random(n_battles) < 0.2
    winner = np.where(tie, "tie", np.where(u < p_a, "model_a", "model_b"))
    names = np.array([f"model_{i:02d}" for i in range(n_models)])
    pandas.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner}).to_csv(path, index=False)


def main():
    path = sys.argv[1]
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        simulate(path)
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    frame = pandas.read_csv(path, dtype=str, keep_default_na=False)
    if "left" in frame.columns:  # LLMFAO's naming
        frame = frame.rename(columns={"left": "model_a", "right": "model_b"})
        frame["winner"] = frame["winner"].replace({"left": "model_a", "right": "model_b"})
    ours = timed(runs, lambda: tribunal_board(frame, rounds))
    theirs = timed(1, lambda: evalica_board(frame, rounds), warmup=False)
    # Same ranking: Tribunal's Elo order against evalica's strength order.
    board = tribunal_board(frame, 0)
    scores, _, _ = evalica_board(frame, 0)
    by_elo = sorted(board, key=lambda m: -board[m]["elo"])
    by_strength = list(scores.sort_values(ascending=False).index)
    theta = np.log(scores[by_elo].to_numpy())
    elo = np.array([board[m]["elo"] for m in by_elo]) * np.log(10) / 400
    print(json.dumps({
        "file": path,
        "battles": len(frame),
        "rounds": rounds,
        "tribunal": ours,
        "evalica": theirs,
        "ratio": theirs["median_s"] / ours["median_s"],
        "same_order": by_elo == by_strength,
        "max_abs_centred_theta_difference": float(np.max(np.abs((theta - theta.mean()) - (elo - elo.mean())))),
        "environment": environment(["tribunal", "evalica", "pandas", "numpy"]),
    }, indent=2))


if __name__ == "__main__":
    main()
