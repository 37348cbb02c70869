"""The Markdown tables of benches/ppi.sh from its JSON files.

Usage: python3 benches/ppi_table.py OUT_DIR   (standard library only)
"""

import json
import pathlib
import sys


def pct(v):
    return "—" if v is None else f"{100 * v:.1f} %"


def num(v, digits=0):
    return "—" if v is None else f"{v:.{digits}f}"


def study(out):
    s = json.loads((out / "ppi-study.json").read_text())
    print(f"LLMFAO: {s['battles']} battles, {s['models']} models, {s['results'][0]['repetitions']} "
          f"repetitions per fraction (seed {s['seed']}), 95 % intervals\n")
    print("| crowd labels kept | leaderboard identified (PPI / human) | per-model coverage (PPI / human) "
          "| mean width, Elo (PPI / human) | rank sets hold every true rank (PPI / human) "
          "| mean rank-set size (PPI / human) | mean λ |")
    print("|---|---|---|---|---|---|---|")
    for r in s["results"]:
        p, h = r["leaderboard"]["prediction_powered"], r["leaderboard"]["human_only"]
        print(f"| {100 * r['fraction']:.0f} % ({r['labels']}) | {pct(p['identified'])} / {pct(h['identified'])} "
              f"| {pct(p['coverage'])} / {pct(h['coverage'])} | {num(p['mean_width_elo'])} / {num(h['mean_width_elo'])} "
              f"| {pct(p['rank_sets_hold_every_true_rank'])} / {pct(h['rank_sets_hold_every_true_rank'])} "
              f"| {num(p['mean_rank_set_size'], 1)} / {num(h['mean_rank_set_size'], 1)} "
              f"| {num(r['leaderboard']['mean_lambda'], 3)} |")
    print("\nWin rates (models with at least 10 human labels, the report's default):\n")
    print("| crowd labels kept | intervals | coverage (PPI / human / judge only) | mean width (PPI / human / judge only) |")
    print("|---|---|---|---|")
    for r in s["results"]:
        w = r["win_rates"]
        p, h, j = w["prediction_powered"], w["human_only"], w["judge_only"]
        print(f"| {100 * r['fraction']:.0f} % | {p['intervals']} | {pct(p['coverage'])} / {pct(h['coverage'])} / {pct(j['coverage'])} "
              f"| {num(p['mean_width'], 3)} / {num(h['mean_width'], 3)} / {num(j['mean_width'], 3)} |")
    print("\nPPI win-rate coverage by a model's human labels (all fractions pooled):\n")
    print("| human labels | intervals | coverage |")
    print("|---|---|---|")
    buckets = {}
    for r in s["results"]:
        for b in r["win_rates"]["prediction_powered_by_labels"]:
            t = buckets.setdefault(b["at_least"], [0, 0.0])
            t[0] += b["tally"]["intervals"]
            t[1] += b["tally"]["coverage"] * b["tally"]["intervals"]
    edges = sorted(buckets)
    for k, lo in enumerate(edges):
        n, hits = buckets[lo]
        label = f"{lo}–{edges[k + 1] - 1}" if k + 1 < len(edges) else f"{lo}+"
        print(f"| {label} | {n} | {pct(hits / n if n else None)} |")


def active(out):
    runs = [json.loads(line) for line in (out / "ppi-active.jsonl").read_text().splitlines() if line]
    print(f"\nActive labelling against uniform, {runs[0]['repetitions']} repetitions per design "
          f"(seed {runs[0]['seed']}): a uniform pilot, then a plan drawn each way from it; "
          "the prediction-powered leaderboard of the returned file against the full crowd's\n")
    print("| pilot + planned labels | arm | labels drawn (mean) | leaderboard identified | per-model coverage "
          "| mean width, Elo | rank sets hold every true rank | width ÷ uniform |")
    print("|---|---|---|---|---|---|---|---|")
    for r in runs:
        uniform = r["arms"]["uniform"]["leaderboard"]["mean_width_elo"]
        for name in ("active", "uniform"):
            a = r["arms"][name]
            b = a["leaderboard"]
            ratio = b["mean_width_elo"] / uniform if b["mean_width_elo"] and uniform else None
            print(f"| {r['pilot_labels']} + {r['planned_labels']} | {name} (uniform share {a['uniform_share']}) "
                  f"| {a['mean_labels_drawn']:.1f} | {pct(b['identified'])} | {pct(b['coverage'])} "
                  f"| {num(b['mean_width_elo'])} | {pct(b['rank_sets_hold_every_true_rank'])} "
                  f"| {num(ratio, 3)} |")


def speed(out):
    native = json.loads((out / "ppi-native.json").read_text())
    wasm = json.loads((out / "ppi-wasm.json").read_text())
    python = json.loads((out / "ppi-python.json").read_text())
    print("\n| file | workload | Tribunal native | Tribunal WASM (Chromium) | ppi-python | ppi-python ÷ WASM |")
    print("|---|---|---|---|---|---|")
    for f, n in native.items():
        p = python[f]
        for work, label in (("asymptotic", "report, asymptotic intervals (λ tuned)"),
                            ("bootstrap_1000", "report + 1000-round bootstrap")):
            w, py = wasm[f][work]["median_s"], p[work]["median_s"]
            mark = " (extrapolated)" if p[work].get("extrapolated") else ""
            print(f"| {pathlib.Path(f).name} | {label} | {n[work]['median_s']:.3f} s | {w:.3f} s "
                  f"| {py:.3f} s{mark} | {py / w:.1f} |")


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1])
    study(out)
    active(out)
    speed(out)
