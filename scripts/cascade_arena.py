"""Converts the judgments that Jung, Brahman & Choi release with "Trust or Escalate"
(github.com/jaehunjung1/cascaded-selective-evaluation, `result/<judge>.calibration.jsonl`: 500
Chatbot Arena pairs, each judge's probabilities from its simulated annotators, the human
preference) into a judgments CSV for `tribunal stats cascade`, then calibrates the cascade
Mistral-7B → GPT-3.5 → GPT-4 on many seeded half splits and reports how often the agreement on
the held-out half falls below 1 − α, the coverage and each judge alone. The repository has no
licence file, so its data are not copied into Tribunal: run this on a checkout of it.

    python3 scripts/cascade_arena.py CHECKOUT_RESULT_DIR TRIBUNAL_BINARY [SPLITS]
"""

import collections
import csv
import json
import pathlib
import subprocess
import sys

JUDGES = ["mistral-7b-instruct", "gpt-3.5-turbo", "gpt-4-turbo"]


def convert(result: pathlib.Path, out: pathlib.Path) -> None:
    rows, keys = [], {}
    for judge in JUDGES:
        for line in open(result / f"{judge}.calibration.jsonl", encoding="utf-8"):
            s = json.loads(line)
            key = f"{s['instruction']}-{s['outputs']}"
            item = keys.setdefault(key, str(len(keys)))
            human = collections.Counter(s["preferences"].values()).most_common(1)[0][0]
            probs = s["probs"]
            if not probs or any(p != p for p in probs):
                continue  # the authors drop these too: no judgment
            best = max(range(len(probs)), key=lambda i: probs[i])
            rows.append([item, judge, str(best + 1), repr(probs[best]), str(human)])
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["item", "judge", "verdict", "confidence", "human"])
        w.writerows(rows)


def main() -> None:
    result, binary = pathlib.Path(sys.argv[1]), sys.argv[2]
    splits = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    judgments = pathlib.Path("arena-judgments.csv")
    convert(result, judgments)
    alpha, delta = 0.15, 0.1
    below, coverage, agreement, alone = 0, [], [], collections.defaultdict(list)
    for seed in range(splits):
        args = [binary, "stats", "cascade", "--input", str(judgments), "--alpha", str(alpha),
                "--delta", str(delta), "--seed", str(seed)]
        args += [a for j in JUDGES for a in ("--tier", j)]
        report = json.loads(subprocess.run(args, capture_output=True, check=True).stdout)
        c = report["cascade"]
        coverage.append(c["coverage"])
        if c["agreement"] is not None:
            agreement.append(c["agreement"])
            below += c["agreement"] < 1 - alpha
        for a in report["alone"]:
            alone[a["judge"]].append((a["selective"]["coverage"], a["selective"]["agreement"],
                                      a["no_abstention"]["agreement"]))
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    print(json.dumps({
        "items": report["items"], "alpha": alpha, "delta": delta, "splits": splits,
        "held_out_agreement_below_1_minus_alpha": below,
        "cascade_mean_coverage": mean(coverage), "cascade_mean_agreement": mean(agreement),
        "alone": {j: {"mean_coverage": mean([v[0] for v in vs]),
                      "mean_agreement": mean([v[1] for v in vs if v[1] is not None]),
                      "no_abstention_agreement": mean([v[2] for v in vs])}
                  for j, vs in alone.items()},
    }, indent=1))


if __name__ == "__main__":
    main()
