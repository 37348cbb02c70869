"""Writes a synthetic scores file for the comparison benchmark: SYSTEMS systems × ITEMS items,
pass/fail scores (each system's pass rate between 0.4 and 0.8, an item difficulty shared by
every system), items in clusters of 20.
Usage: python benches/compare_data.py OUT.csv [SYSTEMS] [ITEMS]   (default 50 × 20000)"""

import sys

import numpy as np

out = sys.argv[1]
systems = int(sys.argv[2]) if len(sys.argv) > 2 else 50
items = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
rng = np.random.default_rng(7)
difficulty = rng.normal(0, 1, items)
skill = np.linspace(-0.4, 1.4, systems)
logit = skill[:, None] - difficulty[None, :]
score = (rng.random((systems, items)) < 1 / (1 + np.exp(-logit))).astype(int)
with open(out, "w") as f:
    f.write("item,system,score,cluster\n")
    for s in range(systems):
        name = f"s{s:02d}"
        f.writelines(f"i{i},{name},{score[s, i]},c{i // 20}\n" for i in range(items))
