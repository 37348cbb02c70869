"""Arena-shaped labelled battles for timing the prediction-powered report (benches/ppi.sh).

Usage: python3 benches/make_ppi_synthetic.py OUT.csv BATTLES [MODELS KEEP SEED]
(standard library only; defaults: 20 models, 25 % labelled, seed 0)

Writes `model_a,model_b,judge,human`: each battle draws two distinct models uniformly; the
people's verdict for `model_a` follows a Bradley–Terry model (strengths spaced evenly over
2 logits, a tenth of the battles ties: 0.5), the judge's agrees with it three times in four and
is the opposite verdict otherwise, and a seeded KEEP share of the battles keeps its human label
(the rest are blank). Shaped like the public 26,919-battle Chatbot Arena file of issue 44
(20 models, 25 % labelled), which is not redistributable here.
"""

import csv
import math
import random
import sys


def main(out, battles, models=20, keep=0.25, seed=0):
    rng = random.Random(seed)
    names = [f"model-{i:02d}" for i in range(models)]
    theta = [2.0 * i / (models - 1) - 1.0 for i in range(models)]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model_a", "model_b", "judge", "human"])
        for _ in range(battles):
            a, b = rng.sample(range(models), 2)
            if rng.random() < 0.1:
                human = 0.5
            else:
                human = 1.0 if rng.random() < 1 / (1 + math.exp(theta[b] - theta[a])) else 0.0
            judge = human if rng.random() < 0.75 else 1.0 - human
            kept = rng.random() < keep
            w.writerow([names[a], names[b], judge, human if kept else ""])


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        args[0],
        int(args[1]),
        int(args[2]) if len(args) > 2 else 20,
        float(args[3]) if len(args) > 3 else 0.25,
        int(args[4]) if len(args) > 4 else 0,
    )
