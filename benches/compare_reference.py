"""The comparison of `tribunal stats compare` in pandas, numpy and scipy, for the benchmark
(benches/compare.sh): each system's pass rate with its t interval, the paired difference of
each pair (every pair, or each against BASELINE) with scipy's `ttest_rel`, Holm's adjustment,
and a 1,000-round paired bootstrap over items (one multinomial draw of item weights per round,
shared by every system: a matrix product). Prints the seconds it took.
Usage: python benches/compare_reference.py SCORES.csv ROUNDS [BASELINE]"""

import sys
import time
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

start = time.perf_counter()
path, rounds = sys.argv[1], int(sys.argv[2])
baseline = sys.argv[3] if len(sys.argv) > 3 else None
df = pd.read_csv(path)
wide = df.pivot(index="item", columns="system", values="score")
y = wide.to_numpy(dtype=float)
names = list(wide.columns)
n = y.shape[0]
means = y.mean(axis=0)
sem = y.std(axis=0, ddof=1) / np.sqrt(n)
q = stats.t.ppf(0.975, n - 1)
systems = pd.DataFrame({"system": names, "mean": means, "lower": means - q * sem, "upper": means + q * sem})
if baseline:
    b = names.index(baseline)
    pairs = [(b, s) for s in range(len(names)) if s != b]
else:
    pairs = list(combinations(range(len(names)), 2))
rows = []
for a, b in pairs:
    t = stats.ttest_rel(y[:, b], y[:, a])
    rows.append((names[a], names[b], means[b] - means[a], t.pvalue))
holm = multipletests([r[3] for r in rows], method="holm")[1]
rng = np.random.default_rng(0)
weights = rng.multinomial(n, np.full(n, 1 / n), size=rounds).astype(float)
boot = weights @ y / n
ia, ib = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
diffs = boot[:, ib] - boot[:, ia]
lower, upper = np.percentile(diffs, [2.5, 97.5], axis=0)
sys_lower, sys_upper = np.percentile(boot, [2.5, 97.5], axis=0)
print(f"{time.perf_counter() - start:.3f}")
