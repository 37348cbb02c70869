"""Prints the benchmark tables (Markdown) from the JSON files benches/run.sh writes.

Usage: python3 benches/table.py OUT_DIR   (OUT_DIR: target/bench)
Reads native.json, wasm.json, page.json, calibrate-page-{ls,btl}.json, ws.json, py-llmfao.json, py-battles-100k.json,
py-battles-1m.json, py-ratings.json, py-calibration.json, py-programs.json and env.tsv (machine and load averages per stage).
Ratios are the row's median over Tribunal's median: how many times longer the row takes.
"""

import json
import os
import sys

out = sys.argv[1]


def load(name):
    with open(os.path.join(out, name), encoding="utf-8") as f:
        return json.load(f)


native, wasm, page = load("native.json"), load("wasm.json"), load("page.json")
cal_page = {name: load(f"calibrate-page-{head}.json")
            for name, head in (("cal-ls-384.csv", "ls"), ("cal-btl-384.csv", "btl"))}
ws = load("ws.json")
py = {k: load(f"py-{k}.json")
      for k in ("llmfao", "battles-100k", "battles-1m", "ratings", "calibration", "programs")}
with open(os.path.join(out, "env.tsv"), encoding="utf-8") as f:
    env = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line]


def fmt(t):
    if t >= 3600:
        return f"{t:.0f} s ({t / 3600:.1f} h)"
    if t >= 100:
        return f"{t:.0f} s"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-2:
        return f"{t * 1e3:.0f} ms"
    return f"{t * 1e3:.2f} ms"


def ratio(r):
    return f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def table(title, rows, native_t, wasm_t):
    """rows: (implementation, timing record or None, note)."""
    print(f"### {title}\n")
    print("| implementation | median | min | timed runs | vs Tribunal native | vs Tribunal WASM "
          "| note |")
    print("|---|---|---|---|---|---|---|")
    for name, t, note in rows:
        if t is None:
            print(f"| {name} | — | — | — | — | — | {note} |")
            continue
        runs = t["rounds"]
        if t.get("extrapolated"):
            runs = f"{runs} round{'s' * (runs != 1)}"
            note = (f"**extrapolated** to 1000 rounds from {runs} timed one by one "
                    f"(median {fmt(t['per_round_median_s'])} per round"
                    f"{'' if t.get('warmup', True) else ', no warm-up'})" + (f"; {note}" if note else ""))
        print(f"| {name} | {fmt(t['median_s'])} | {fmt(t['min_s'])} | {runs} "
              f"| {ratio(t['median_s'] / native_t['median_s'])} "
              f"| {ratio(t['median_s'] / wasm_t['median_s'])} | {note} |")
    print()


def same_value(n, w):
    """Native and WASM returned values: equal, or their relative difference."""
    a, b = n["value"], w["value"]
    if a == b:
        return "identical"
    return f"relative difference {abs(a - b) / max(abs(a), abs(b)):.1e}"


def max_diff(ours, theirs):
    return max(abs(ours[k] - theirs[k]) for k in ours)


# Issue 2: LLMFAO
ll, wl, pl = native["llmfao"], wasm["llmfao"], py["llmfao"]
print(f"## LLMFAO crowd comparisons ({ll['battles']} battles, {ll['models']} models; issue 2)\n")
table("Parse CSV + Bradley–Terry fit", [
    ("Tribunal native", ll["csv_to_leaderboard"], ""),
    ("Tribunal WASM (Chromium)", wl["csv_to_leaderboard"], ""),
    ("choix opt_pairwise (Python csv + Newton-CG)", pl["choix_csv_to_leaderboard"], ""),
], ll["csv_to_leaderboard"], wl["csv_to_leaderboard"])
table("Bradley–Terry fit", [
    ("Tribunal native", ll["fit_only"], ""),
    ("Tribunal WASM (Chromium)", wl["fit_only"], ""),
    ("choix opt_pairwise (Newton-CG)", pl["choix_fit_only"], "same objective"),
    ("evalica bradley_terry (Rust core)", pl["evalica_fit_only"], "MM, no penalty"),
], ll["fit_only"], wl["fit_only"])

# Issue 3: synthetic battles
for key, label in (("battles-100k", "100k"), ("battles-1m", "1M")):
    n, w, p = native[f"{key}.csv"], wasm[f"{key}.csv"], py[key]
    boot = n["bootstrap_settings"]["bootstrap"]
    print(f"## Synthetic battles: {label} battles × {n['models']} models (issue 3)\n")
    print(f"`target/bench/data/{key}.csv`, simulated by `tribunal::simulate` (seed 1, 20 % ties).\n")
    skipped = "not run (pure-Python loops: minutes per fit at this size; see BENCHMARKS.md)"
    fit_rows = [("Tribunal native", n["fit_only"], ""), ("Tribunal WASM (Chromium)", w["fit_only"], "")]
    boot_rows = [("Tribunal native", n["bootstrap"], ""),
                 ("Tribunal WASM (Chromium)", w["bootstrap"], "")]
    for lib, name, note in (
        ("choix", "choix opt_pairwise (Newton-CG)", "same objective"),
        ("sklearn", "scikit-learn LogisticRegression (FastChat/Arena-Hard style)",
         "same objective (C = 1/(2λ))"),
        ("evalica", "evalica bradley_terry (Rust core)", "MM, no penalty"),
    ):
        if p.get(f"{lib}_skipped"):
            fit_rows.append((name, None, skipped))
            boot_rows.append((name, None, skipped))
        else:
            fit_rows.append((name, p[f"{lib}_fit_only"], note))
            boot_rows.append((name, p[f"{lib}_bootstrap"], note))
    table(f"Bradley–Terry fit, {label} battles", fit_rows, n["fit_only"], w["fit_only"])
    table(f"Bootstrap, 1000 rounds, {label} battles (Tribunal: seed {boot['seed']}, level "
          f"{boot['level']}; Python: numpy seed {p['bootstrap_seed']})",
          boot_rows, n["bootstrap"], w["bootstrap"])
    checks = [f"{lib} {max_diff(n['theta'], th):.1e}" for lib, th in p["theta"].items()]
    print(f"Same numbers: max |Δθ| vs Tribunal: {', '.join(checks)}. Native vs WASM: fit "
          f"{same_value(n['fit_only'], w['fit_only'])}, bootstrap "
          f"{same_value(n['bootstrap'], w['bootstrap'])}.\n")

# Issue 5: agreement and IRT
pr = py["ratings"]
print("## Agreement and IRT (issue 5)\n")
na, wa, pa = native["alpha-10k.csv"], wasm["alpha-10k.csv"], pr["alpha-10k.csv"]
table(f"Krippendorff's α (nominal), 1000 bootstrap rounds, {na['items']} items × {na['raters']} "
      "raters, 20 % missing", [
          ("Tribunal native", na["bootstrap"], ""),
          ("Tribunal WASM (Chromium)", wa["bootstrap"], ""),
          ("krippendorff.alpha in a Python bootstrap loop", pa["bootstrap"], ""),
      ], na["bootstrap"], wa["bootstrap"])
print(f"Same numbers: α = {na['alpha']:.15f} (Tribunal), {pa['alpha']:.15f} (krippendorff). "
      f"Native vs WASM: {same_value(na['bootstrap'], wa['bootstrap'])}.\n")
nk, wk, pk = native["kappa-10k.csv"], wasm["kappa-10k.csv"], pr["kappa-10k.csv"]
table(f"Cohen's κ, 1000 bootstrap rounds, {nk['items']} items × 2 raters (Tribunal draws the κ "
      "and the percent-agreement intervals, 1000 rounds each)", [
          ("Tribunal native", nk["bootstrap"], ""),
          ("Tribunal WASM (Chromium)", wk["bootstrap"], ""),
          ("sklearn cohen_kappa_score + percent agreement in a Python bootstrap loop",
           pk["bootstrap"], ""),
      ], nk["bootstrap"], wk["bootstrap"])
print(f"Same numbers: κ = {nk['kappa']:.15f} (Tribunal), {pk['kappa']:.15f} (scikit-learn). "
      f"Native vs WASM: {same_value(nk['bootstrap'], wk['bootstrap'])}.\n")
ng, wg, pg = native["grm-1000x4.csv"], wasm["grm-1000x4.csv"], pr["grm-1000x4.csv"]
for key, title in (("map", "GRM fit, Tribunal default (MAP, seed 003 priors)"),
                   ("flat", "GRM fit, flat priors (MML, girth's estimator)"),
                   ("flat_girth_tolerance",
                    "GRM fit, flat priors, stopped at girth's tolerance (no change above 1e−3)")):
    table(f"{title}: {ng['items']} items × {ng['variants']} variants × 5 categories", [
        ("Tribunal native", ng[key]["fit"], f"{ng[key]['iterations']} EM steps"),
        ("Tribunal WASM (Chromium)", wg[key]["fit"], ""),
        ("girth grm_mml (default options)", pg["fit"], "MML, LUT, stops at Δα < 1e−3"),
    ], ng[key]["fit"], wg[key]["fit"])
flat_alpha = ng["flat"]["alpha"]
d_alpha = max(abs(a - b) for a, b in zip(flat_alpha, pg["alpha"]))
d_beta = max(abs(a - b) for ra, rb in zip(ng["flat"]["thresholds"], pg["thresholds"])
             for a, b in zip(ra, rb))
print(f"Same numbers (flat priors vs girth): max |Δα| {d_alpha:.1e}, max |Δβ| {d_beta:.1e} "
      f"(girth stops at a 1e−3 change and interpolates a lookup table). Native vs WASM: "
      f"{same_value(ng['map']['fit'], wg['map']['fit'])}.\n")

print("## Calibration heads (issue 4)\n")
print("500 rows of `target/bench/data/cal-*.csv` (`synthetic::calibration_csv`, seed 14): γ chosen "
      "among 10 log-spaced values in [1e−2, 1e4] by 5-fold cross-validation, then the refit.\n")
pc = py["calibration"]
for name, head in (("cal-ls-384.csv", "LS"), ("cal-ls-4096.csv", "LS"),
                   ("cal-btl-384.csv", "BTL"), ("cal-btl-4096.csv", "BTL")):
    n, w, p = native[name], wasm[name], pc[name]
    rows = [("Tribunal native", n["cv"], f"γ chosen: {n['cv']['value']:.4g}")]
    if "cv_sklearn_tolerance" in n:
        rows.append(("Tribunal native, solver stopped at scikit-learn's tolerance (1e−4)",
                     n["cv_sklearn_tolerance"],
                     f"γ chosen: {n['cv_sklearn_tolerance']['value']:.4g}"))
    rows += [("Tribunal WASM (Chromium)", w["cv"], ""), (p["label"], p["cv"], "")]
    table(f"{head} head, 5-fold CV over 10 γ: n = {n['rows']}, d = {n['dim']}", rows,
          n["cv"], w["cv"])

# Issue 6: programmatic judges
PAJAMA_PER_CORE = 439 / 24  # seed 004 §4.1: 439 pairs/s on 24 CPU threads
npg, wpg = native["programs"], wasm["programs"]
print(f"## Programmatic judges (issue 6)\n")
print(f"The ten built-in programs on both answers of the {npg['pairs']} LLMFAO pairs "
      f"(`{npg['file']}`), one thread; PAJAMA reports 439 pairs/s on 24 CPU threads for its "
      f"Python programs, {PAJAMA_PER_CORE:.1f} pairs/s per thread.\n")
print("| implementation | median | pairs/s | vs PAJAMA per thread |")
print("|---|---|---|---|")
program_rates = {}
for name, t in (("Tribunal native", npg["library"]), ("Tribunal WASM (Chromium)", wpg["library"])):
    rate = npg["pairs"] / t["median_s"]
    program_rates[name] = rate
    print(f"| {name} | {fmt(t['median_s'])} | {rate:,.0f} | {ratio(rate / PAJAMA_PER_CORE)} |")
print(f"\nNative vs WASM: {same_value(npg['library'], wpg['library'])}.\n")
nv, wv, pv = native["votes-5k-20.csv"], wasm["votes-5k-20.csv"], py["programs"]["votes-5k-20.csv"]
table(f"Label model (Dawid–Skene EM to a 1e−10 change): {nv['items']} items × {nv['programs']} "
      "programs (`votes-5k-20.csv`, simulated)", [
          ("Tribunal native", nv["fit"], ""),
          ("Tribunal WASM (Chromium)", wv["fit"], ""),
          ("numpy Dawid–Skene (vectorised, same model and settings)", pv["numpy_dawid_skene"],
           f"{pv['iterations']} EM steps"),
      ], nv["fit"], wv["fit"])
d_acc = max(abs(a - b) for a, b in zip(nv["accuracies"], pv["accuracies"]))
print(f"Same numbers: max |Δ accuracy| vs numpy {d_acc:.1e}. Native vs WASM: "
      f"{same_value(nv['fit'], wv['fit'])}.\n")

print("### WebSocket stream into one browser\n")
print(f"The worker's seeded demo stream, {ws['events']:,} events with no pause, each stored in "
      f"SQLite before it is sent, counted by one headless Chromium page (`benches/ws_events.mjs`, "
      f"median of {ws['runs']} streams after a warm-up): {fmt(ws['median_s'])} "
      f"(min {fmt(ws['min_s'])}), {ws['events_per_s']:,.0f} events/s.\n")

# Targets
b100n, b100w = native["battles-100k.csv"]["bootstrap"], wasm["battles-100k.csv"]["bootstrap"]
sk = py["battles-100k"]["sklearn_bootstrap"]
grm_w = wg["map"]["fit"]
print("## Targets\n")
print("| target | measured | met |")
print("|---|---|---|")
print(f"| 1000 bootstrap rounds on 100k battles < 2 s in the browser | the Leaderboard page, "
      f"from picking the file to every interval shown (2 web workers, `benches/page.mjs`, median "
      f"of {page['runs']}): {fmt(page['median_s'])}; one WASM thread, bootstrap alone: "
      f"{fmt(b100w['median_s'])} (native {fmt(b100n['median_s'])}) "
      f"| {'yes' if page['median_s'] < 2 else 'no'} |")
r = sk["median_s"] / b100w["median_s"]
print(f"| ≥ 100× the scikit-learn-style logistic BT (bootstrap, 100k) | {ratio(r)} in WASM, "
      f"{ratio(sk['median_s'] / b100n['median_s'])} native (sklearn extrapolated) "
      f"| {'yes' if r >= 100 else 'no'} |")
print(f"| GRM (1000 × 4 × 5) < 2 s in the browser | {fmt(grm_w['median_s'])} "
      f"| {'yes' if grm_w['median_s'] < 2 else 'no'} |")
for name, head in (("cal-ls-384.csv", "LS"), ("cal-btl-384.csv", "BTL")):
    t = cal_page[name]["median_ms"] / 1000
    print(f"| {head} head: 5-fold CV over 10 γ, n = 500, d = 384 < 100 ms in the browser "
          f"| the Calibrate page, from the click to the curve joined from its 2 web workers' folds "
          f"(`benches/calibrate_page.mjs`, median of {cal_page[name]['runs']}): {fmt(t)}; one "
          f"WASM thread, CV and refit: {fmt(wasm[name]['cv']['median_s'])} (native "
          f"{fmt(native[name]['cv']['median_s'])}) | {'yes' if t < 0.1 else 'no'} |")
for name, rate in program_rates.items():
    r = rate / PAJAMA_PER_CORE
    print(f"| program library ≥ 100× PAJAMA per thread ({PAJAMA_PER_CORE:.1f} pairs/s) | {name}: "
          f"{rate:,.0f} pairs/s, {ratio(r)} | {'yes' if r >= 100 else 'no'} |")
print()

print("## Machine and load\n")
for key, value in env:
    print(f"- {key}: {value}")
print(f"- Chromium: {wasm['chromium']} ({wasm['userAgent']})")
for k in ("llmfao", "battles-100k", "ratings", "calibration", "programs"):
    e = py[k]["environment"]
    print(f"- Python {e['python']} ({k}): " + ", ".join(f"{p} {v}" for p, v in e["versions"].items()))
e = py["battles-100k"]["environment"]
libs = [" ".join(str(b[k]) for k in ("internal_api", "version", "architecture") if b[k])
        + f", {b['num_threads']} threads ({b['prefix']})" for b in e["blas"]]
unset = all(v is None for v in e["openblas_env"].values())
print(f"- BLAS and OpenMP (threadpoolctl): {'; '.join(libs)}; OPENBLAS_CORETYPE and "
      f"OPENBLAS_L2_SIZE: {'unset' if unset else e['openblas_env']}")
