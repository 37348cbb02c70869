"""Prints the benchmark table (Markdown) from native.json, wasm.json and python.json."""

import json
import sys

native, wasm, python = (json.load(open(p)) for p in sys.argv[1:4])
rows = [
    ("parse CSV + BT fit", "Tribunal native", native["csv_to_leaderboard"]),
    ("parse CSV + BT fit", "Tribunal WASM (Chromium)", wasm["csv_to_leaderboard"]),
    ("parse CSV + BT fit", "choix (Python csv + Newton-CG)", python["choix_csv_to_leaderboard"]),
    ("BT fit", "Tribunal native", native["fit_only"]),
    ("BT fit", "Tribunal WASM (Chromium)", wasm["fit_only"]),
    ("BT fit", "choix opt_pairwise (Newton-CG)", python["choix_fit_only"]),
    ("BT fit", "evalica bradley_terry (Rust core)", python["evalica_fit_only"]),
]
print(f"{native['file']}: {native['battles']} battles, {native['models']} models\n")
print("| workload | implementation | median | min | vs Tribunal native | vs Tribunal WASM |")
print("|---|---|---|---|---|---|")
for workload, name, t in rows:
    key = "csv_to_leaderboard" if workload.startswith("parse") else "fit_only"
    ratio_n = t["median_s"] / native[key]["median_s"]
    ratio_w = t["median_s"] / wasm[key]["median_s"]
    print(f"| {workload} | {name} | {t['median_s'] * 1e3:.3f} ms | {t['min_s'] * 1e3:.3f} ms "
          f"| {ratio_n:.1f}× | {ratio_w:.1f}× |")
