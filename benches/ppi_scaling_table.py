"""The Markdown table of benches/ppi_scaling.sh from its JSON files.

Usage: python3 benches/ppi_scaling_table.py OUT_DIR   (standard library only)
"""

import json
import pathlib
import sys


def main(out):
    native = json.loads((out / "ppi-scaling-native.json").read_text())
    native.update(json.loads((out / "ppi-scaling-native-1m.json").read_text()))
    wasm = json.loads((out / "ppi-scaling-wasm.json").read_text())
    python = json.loads((out / "ppi-scaling-python.json").read_text())
    memory = {}
    for line in (out / "ppi-scaling-memory.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            memory[parts[0]] = int(parts[1]) / 1024
    print("| battles | workload | native | WASM (Chromium) | ppi-python | ppi-python ÷ native | peak memory (CLI) |")
    print("|---|---|---|---|---|---|---|")
    for f, n in native.items():
        battles = pathlib.Path(f).stem.rsplit("-", 1)[1]
        for work, label in (("asymptotic", "report, asymptotic intervals"),
                            ("bootstrap_1000", "report + 1000-round bootstrap")):
            w = wasm.get(f, {}).get(work)
            p = python.get(f, {}).get(work)
            mark = " (extrapolated)" if p and p.get("extrapolated") else ""
            ratio = f"{p['median_s'] / n[work]['median_s']:.0f}" if p else "—"
            print(f"| {int(battles):,} | {label} | {n[work]['median_s']:.3f} s "
                  f"| {'—' if w is None else format(w['median_s'], '.3f') + ' s'} "
                  f"| {'—' if p is None else format(p['median_s'], '.3f') + ' s' + mark} | {ratio} "
                  f"| {memory.get(battles, 0):.0f} MB |")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
