"""Every LLMFAO pair as a labelled battle, for the PPI study and timings (benches/ppi.sh).

Usage: python3 benches/make_ppi_llmfao.py OUT.csv [KEEP SEED]   (standard library only)

Writes `model_a,model_b,judge,human`: `judge` GPT-4's verdict for `model_a` (1 win, 0 loss,
0.5 tie), `human` the crowd's mean preference for `model_a` over its votes on the pair (every
pair labelled: the study hides all but a sample). With KEEP (a fraction) and SEED, only that
share of the pairs keeps its crowd label, drawn with Python's `random.Random(SEED)` (the
timings' file). The same rows, in the same order, as
tests/fixtures/ppi-llmfao-battles.csv, there with 300 labels kept. LLMFAO is CC BY 4.0
(tests/data/llmfao/LICENSE.CC-BY).
"""

import csv
import pathlib
import random
import sys

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "llmfao"


def outcome(winner, left, right, model_a):
    """The outcome for `model_a` of one verdict on (left, right)."""
    if winner == "tie":
        return 0.5
    won = left if winner == "left" else right
    return 1.0 if won == model_a else 0.0


def main(out, keep=1.0, seed=0):
    judge = {r["id"]: r for r in csv.DictReader(open(DATA / "gpt4-crowd-comparisons.csv", encoding="utf-8"))}
    votes = {}
    for r in csv.DictReader(open(DATA / "crowd-comparisons.csv", encoding="utf-8")):
        votes.setdefault(r["id"], []).append(r)
    ids = sorted((i for i in judge if i in votes), key=int)
    kept = set(random.Random(seed).sample(ids, round(keep * len(ids))))
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "model_a", "model_b", "judge", "human"])
        for i in ids:
            j = judge[i]
            a, b = j["left"], j["right"]
            ys = [outcome(v["winner"], v["left"], v["right"], a) for v in votes[i]]
            human = repr(sum(ys) / len(ys)) if i in kept else ""
            w.writerow([i, a, b, repr(outcome(j["winner"], a, b, a)), human])


if __name__ == "__main__":
    if len(sys.argv) == 4:
        main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))
    else:
        main(sys.argv[1])
