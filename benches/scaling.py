"""The scaling table of every analysis kind, natively (issue 44): seeded synthetic inputs at
10^4, 10^5 and 10^6 rows, each kind's `tribunal stats` command timed with `/usr/bin/time`
(wall seconds and peak RSS), and the table with each kind's growth from 10^5 to 10^6 rows.

Usage (python3, standard library only):

    python3 benches/scaling.py inputs DIR N [N...] [--kinds K,K…]
    python3 benches/scaling.py native TRIBUNAL DIR OUT.json [--timeout S] [--skip-after S]
                                      [--kinds K,K…] [--sizes N,N…]
    python3 benches/scaling.py table OUT.json [WASM.json]

`inputs` writes, for every kind and each N, DIR/<kind>-<N>/ with the kind's input files and
`command.json` (the `tribunal` arguments; paths as DIR was given, so run `native` from the same
directory) and `meta.json` (kind, N, seed, generator version), written last: a directory whose
`meta.json` matches is not regenerated. `power` reads no file: DIR/power/ holds its command
only. Every kind's data comes from `random.Random(1000 + k)` (k: the kind's place in KINDS), so
the same N gives the same bytes; for the battle-shaped kinds the first rows of a larger N are
those of a smaller one.

`native` runs every DIR/*/command.json one after another as `/usr/bin/time -f '%e %M'
TRIBUNAL ARGS…` (stdout to DIR/<kind>-<N>/report.json, stderr to stderr.txt), smallest N of a
kind first, each with a timeout (default 900 s; a run that reaches it is killed with its
process group and recorded as timed out, not retried). A kind whose run at one N took longer
than --skip-after (default 90 s) or failed is not run at the larger N ("not run: 10^5 took
X s"). It records per run the kind, N, wall seconds (`wall_s`: time's %e, 10 ms
resolution; `elapsed_s`: the script's own clock around the process, which the table shows),
peak RSS (MiB, time's %M), the exit status, the command line (the binary written `tribunal`),
on failure stderr's last line, and the 1-minute load average after the run, merged into
OUT.json (entries of kinds and sizes not run this time are kept; --kinds and --sizes restrict
a run to some cases). It saves the report's `record.spec` to spec.json and each of the spec's
input roles with the file passed for it to roles.json (`{"role": "path"}`), so that the same
spec can be rerun elsewhere (`tribunal stats run spec.json --input ROLE=FILE`, or in the
browser).

`table` prints the Markdown table: per kind what a row is, then time and peak memory at each
N (and, given WASM.json from `node benches/scaling_wasm.mjs`, the browser's time and WASM
memory at each N), and the growth from 10^5 to 10^6 rows (the time ratio / 10: 1.0 is linear); ⚠ marks a kind
whose time grew faster than n log n from one size to the next (10^4→10^5 or 10^5→10^6),
i.e. a ×10 ratio above 1.5 × 10 × log(10^6)/log(10^5) = 18 (the 1.5 is the noise of this
shared machine) with the larger run over 1 s. Under it, each kind's command with N for the
size.

What the rows are and which flags each command gets (every other setting is the kind's
default: 1000 bootstrap rounds where it has a bootstrap, 100 conformal splits, 5-fold CV over
10 γ, …; a flag is given only where the command needs it):

| kind | N rows of the main file are | other inputs | flags beyond the inputs |
|---|---|---|---|
| leaderboard | battles `model_a,model_b,winner`: 50 models, Bradley–Terry truth, 15 % ties | — | — |
| judge-study | scored battles `model_a,model_b,score,human,prompt`: 30 models, a judge's 1–10 scores per side (their difference), a human verdict on every battle | — | — |
| conformal | the same as judge-study (its own draw) | — | — |
| agreement | ratings `item,rater,score`: 5 raters, scores 1–5, 10 % missing (≈ N/4.5 items) | — | — (numeric scale, interval α) |
| aa | ratings `item,rater,score`: two runs of a judge and a gold rater, `pass`/`fail` (N/3 items) | — | `--runs run1,run2` (required), `--scale nominal --gold gold --pass pass` (without a pass label, gold rater or score range it has nothing to test) |
| consistency | ratings `item,rater,score,variant,criterion`: one judge, 5 repeats × 2 criteria, scores 1–5 (N/10 items) | — | — |
| position | verdicts `item,variant,score`: each pair shown `ab` and `ba`, `left`/`right`/`tie`, a first-position bias (N/2 pairs) | — | — |
| calibration | BTL head training rows `id,p,human` with a 32-wide float32 `.npy` embedding per row | test rows: N/4, likewise | `--head btl` (required), `--train-embeddings`, `--test-embeddings` |
| power | reads no file | — | `--p1 0.6 --p2 0.5,0.55` (an effect is required) |
| irt | ratings `item,rater,score,variant`: one judge under 4 prompt variants, GRM truth, scores 1–5 (N/4 items) | — | — |
| irt-table | ratings `item,rater,score,variant,criterion`: 3 judges × 2 criteria × 4 variants (N/24 items) | — | `--each` (the `irt_table` spec kind: the IRT table of every judge × criterion) |
| programs | pairs `id,instruction,response,response_b,label`: a question and two answers of 80–330 characters, labelled `a`/`b`/`tie` | — | — |
| label-model | vote file `id,label,split,query_chars,response_chars` + 10 programs' −1/0/+1 votes, 30 % validation | — | — |
| routing | the same vote file | LLM verdicts `id,label`: N rows | — |
| ppi | labelled battles `model_a,model_b,judge,human`: 20 models, 25 % human-labelled (as benches/make_ppi_synthetic.py) | — | — |
| judge-value | labelled battles: 30 models, judge's P(a wins), a 10 % human-labelled pilot | — | — |
| style | battles `model_a,model_b,winner` with 4 style columns (length, headers, lists, bold: normalised differences), 30 models | — | `--features length,headers,lists,bold` (without answers the features must be named) |
| self-preference | scored battles `model_a,model_b,judge,human`: 20 models, verdicts, the judge favouring 3 family models | — | `--family model-00,model-01,model-02` (required) |
| length-control | AlpacaEval-shaped battles `model_a,model_b,winner,score,prompt,length_a,length_b`: a baseline against 20 models on N/20 prompts | — | — |
| compare | scores `item,system,criterion,score,cluster,human`: 8 systems × 2 criteria (pass/fail and 1–5), items in clusters of 20, 5 % of the pass/fail cells with a human label (N/16 items) | — | — |
| transitivity | battles `model_a,model_b,winner,prompt`: per prompt 8 of 50 Bradley–Terry models (3 logits apart end to end, 10 % ties), 56 battles among them (N/56 prompts) | — | `--group prompt` (triads within each prompt; the bootstrap resamples prompts) |

Sizes: at 10^6 rows the programs pairs file is ≈ 450 MB (the answers are kept short for
that), the calibration files ≈ 180 MB (`.npy` included), every other file under 60 MB.
"""

import array
import itertools
import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time

VERSION = 1

KINDS = [
    "leaderboard",
    "judge-study",
    "conformal",
    "agreement",
    "aa",
    "consistency",
    "position",
    "calibration",
    "power",
    "irt",
    "irt-table",
    "programs",
    "label-model",
    "routing",
    "ppi",
    "judge-value",
    "style",
    "self-preference",
    "length-control",
    "compare",
    "transitivity",
]

ROWS = {
    "leaderboard": "battles",
    "judge-study": "scored battles",
    "conformal": "scored battles",
    "agreement": "ratings (5 raters)",
    "aa": "ratings (2 runs + gold)",
    "consistency": "ratings (5 repeats × 2 criteria)",
    "position": "verdicts (ab + ba)",
    "calibration": "training rows (d = 32; + N/4 test)",
    "power": "reads no file",
    "irt": "ratings (4 variants)",
    "irt-table": "ratings (3 judges × 2 criteria × 4 variants)",
    "programs": "pairs (two answers)",
    "label-model": "vote rows (10 programs)",
    "routing": "vote rows (+ N LLM verdicts)",
    "ppi": "labelled battles (25 % human)",
    "judge-value": "labelled battles (10 % pilot)",
    "style": "battles (4 style features)",
    "self-preference": "scored battles",
    "length-control": "battles vs a baseline",
    "compare": "score rows (8 systems × 2 criteria)",
    "transitivity": "battles (8 of 50 models per prompt)",
}


def sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def write_lines(d, name, header, lines, n):
    """Writes `header` and the first `n` rows (strings without a newline) of `lines` to
    DIR/name; returns the path."""
    path = os.path.join(d, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(header + "\n")
        batch = []
        for line in itertools.islice(lines, n):
            batch.append(line)
            if len(batch) >= 10000:
                f.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            f.write("\n".join(batch) + "\n")
    return path


def csv_field(text):
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def two_models(rng, k):
    a = rng.randrange(k)
    b = rng.randrange(k - 1)
    if b >= a:
        b += 1
    return a, b


def strengths(k, spread):
    """Bradley–Terry strengths evenly spaced over [−spread/2, spread/2] (logits)."""
    return [spread * (i / (k - 1) - 0.5) for i in range(k)]


def bt_outcome(rng, theta_a, theta_b, ties):
    """1 when a wins, 0 when b wins, 0.5 for a tie."""
    if rng.random() < ties:
        return 0.5
    return 1.0 if rng.random() < sigmoid(theta_a - theta_b) else 0.0


ARENA = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}


# ---------------------------------------------------------------------------------------------
# Generators: each writes its files under `d` and returns the `tribunal` arguments.


def bt_battles(rng, k, spread, ties):
    """Endless battles among k models with Bradley–Terry strengths over `spread` logits and a
    share `ties` of ties: (model_a, model_b, outcome for model_a)."""
    names = [f"model-{i:02d}" for i in range(k)]
    theta = strengths(k, spread)
    while True:
        a, b = two_models(rng, k)
        yield names[a], names[b], bt_outcome(rng, theta[a], theta[b], ties)


def gen_leaderboard(rng, n, d):
    rows = (f"{a},{b},{ARENA[y]}" for a, b, y in bt_battles(rng, 50, 3.0, 0.15))
    path = write_lines(d, "battles.csv", "model_a,model_b,winner", rows, n)
    return ["stats", "leaderboard", "--input", path]


def scored_battles(rng, n, d):
    """A judge's 1–10 scores of both answers (their difference) and a human verdict."""
    k = 30
    names = [f"model-{i:02d}" for i in range(k)]
    human = strengths(k, 3.0)
    judge = [t + rng.gauss(0, 0.4) for t in human]
    prompts = max(1, n // 4)

    def side(t):
        return min(10, max(1, round(5.5 + 1.5 * t + rng.gauss(0, 1.5))))

    def rows():
        for _ in range(n):
            a, b = two_models(rng, k)
            score = side(judge[a]) - side(judge[b])
            y = bt_outcome(rng, human[a], human[b], 0.15)
            yield f"{names[a]},{names[b]},{score},{ARENA[y]},p{rng.randrange(prompts)}"

    path = write_lines(d, "scored.csv", "model_a,model_b,score,human,prompt", rows(), n)
    return path


def gen_judge_study(rng, n, d):
    return ["stats", "judge-study", "--input", scored_battles(rng, n, d)]


def gen_conformal(rng, n, d):
    return ["stats", "conformal", "--input", scored_battles(rng, n, d)]


def gen_agreement(rng, n, d):
    raters = [f"r{i}" for i in range(1, 6)]

    def rows():
        for item in itertools.count():
            truth = rng.choice((1, 2, 3, 3, 4, 4, 4, 5, 5))
            for r in raters:
                if rng.random() < 0.1:
                    continue
                u = rng.random()
                if u < 0.6:
                    s = truth
                elif u < 0.9:
                    s = min(5, max(1, truth + rng.choice((-1, 1))))
                else:
                    s = rng.randint(1, 5)
                yield f"i{item},{r},{s}"

    path = write_lines(d, "ratings.csv", "item,rater,score", rows(), n)
    return ["stats", "agreement", "--input", path]


def gen_aa(rng, n, d):
    def rows():
        for item in itertools.count():
            p = sigmoid(rng.gauss(0.8, 1.5))
            gold = rng.random() < p
            # Both runs see the same answer: they agree with gold 85 % of the time each.
            for rater in ("run1", "run2", "gold"):
                if rater == "gold":
                    v = gold
                else:
                    v = gold if rng.random() < 0.85 else not gold
                yield f"{item},{rater},{'pass' if v else 'fail'}"

    path = write_lines(d, "runs.csv", "item,rater,score", rows(), n)
    return [
        "stats", "aa", "--input", path, "--scale", "nominal", "--runs", "run1,run2",
        "--gold", "gold", "--pass", "pass",
    ]


def gen_consistency(rng, n, d):
    criteria = ("helpfulness", "correctness")

    def rows():
        for item in itertools.count():
            for c in criteria:
                truth = rng.randint(1, 5)
                stable = rng.random() < 0.85
                for rep in range(1, 6):
                    s = truth if stable or rng.random() < 0.6 else min(
                        5, max(1, truth + rng.choice((-1, 1)))
                    )
                    yield f"i{item},judge,{s},rep{rep},{c}"

    path = write_lines(d, "repeats.csv", "item,rater,score,variant,criterion", rows(), n)
    return ["stats", "consistency", "--input", path]


def gen_position(rng, n, d):
    def verdict(pref_first):
        u = rng.random()
        if u < 0.12:
            return "tie"
        return "left" if rng.random() < pref_first else "right"

    def rows():
        for pair in itertools.count():
            q = sigmoid(rng.gauss(0, 1.5))  # P(the pair's first answer wins), unbiased
            bias = 0.08
            first = verdict(min(1.0, q + bias))
            yield f"p{pair},ab,{first}"
            yield f"p{pair},ba,{verdict(min(1.0, (1 - q) + bias))}"

    path = write_lines(d, "orders.csv", "item,variant,score", rows(), n)
    return ["stats", "position", "--input", path]


def write_npy_f32(path, rows_flat, n, dim):
    """A float32, C-order .npy (format 1.0) of n × dim values."""
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({n}, {dim}), }}"
    while (10 + len(header) + 1) % 64:
        header += " "
    header += "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(len(header).to_bytes(2, "little"))
        f.write(header.encode("ascii"))
        values = array.array("f", rows_flat)
        if sys.byteorder != "little":
            values.byteswap()
        f.write(values.tobytes())


def gen_calibration(rng, n, d):
    dim = 32
    w = [rng.gauss(0, 1) / math.sqrt(dim) for _ in range(dim)]

    def split(name, m):
        npy_path = os.path.join(d, f"{name}.npy")
        flat = array.array("f")
        lines = []
        for i in range(m):
            x = [rng.gauss(0, 1) for _ in range(dim)]
            flat.extend(x)
            # The first response's latent advantage, partly visible in the rationale embedding.
            z = 1.5 * sum(wi * xi for wi, xi in zip(w, x)) + rng.gauss(0, 0.7)
            # The judge's verdict: a hard preference (ties ½) from a noisy view of z.
            j = z + 0.8 * x[0] + rng.gauss(0, 0.8)
            p = 0.5 if abs(j) < 0.25 else (1.0 if j > 0 else 0.0)
            votes = sum(rng.random() < sigmoid(z) for _ in range(4))
            lines.append(f"{name[:2]}{i},{p},{votes / 4}")
        csv_path = write_lines(d, f"{name}.csv", "id,p,human", iter(lines), m)
        write_npy_f32(npy_path, flat, m, dim)
        return csv_path, npy_path

    train, train_npy = split("train", n)
    test, test_npy = split("test", max(10, n // 4))
    return [
        "stats", "calibration", "--head", "btl", "--train", train, "--test", test,
        "--train-embeddings", train_npy, "--test-embeddings", test_npy,
    ]


def gen_power(rng, n, d):
    return ["stats", "power", "--p1", "0.6", "--p2", "0.5,0.55"]


GRM_VARIANTS = ("plain", "typo", "newline", "paraphrase")


def grm_judge(rng):
    """Per variant: a discrimination and four ordered thresholds."""
    return [
        (0.8 + 0.4 * i + rng.gauss(0, 0.1),
         sorted(t + rng.gauss(0, 0.15) for t in (-1.6, -0.5, 0.4, 1.4)))
        for i in range(len(GRM_VARIANTS))
    ]


def grm_rows(rng, theta, params):
    # P(score ≥ k) = σ(α (θ − b_k)) for k = 2…5: draw one uniform and count the steps passed.
    out = []
    for v, (alpha, bs) in zip(GRM_VARIANTS, params):
        u = rng.random()
        s = 1 + sum(1 for b in bs if u < sigmoid(alpha * (theta - b)))
        out.append((v, s))
    return out


def gen_irt(rng, n, d):
    params = grm_judge(rng)

    def rows():
        for item in itertools.count():
            theta = rng.gauss(0, 1)
            for v, s in grm_rows(rng, theta, params):
                yield f"i{item},judge,{s},{v}"

    path = write_lines(d, "variants.csv", "item,rater,score,variant", rows(), n)
    return ["stats", "irt", "--input", path]


def gen_irt_table(rng, n, d):
    judges = ("judge-a", "judge-b", "judge-c")
    criteria = ("accuracy", "clarity")
    params = {(j, c): grm_judge(rng) for j in judges for c in criteria}

    def rows():
        for item in itertools.count():
            for c in criteria:
                theta = rng.gauss(0, 1)
                for j in judges:
                    for v, s in grm_rows(rng, theta, params[(j, c)]):
                        yield f"i{item},{j},{s},{v},{c}"

    path = write_lines(d, "variants.csv", "item,rater,score,variant,criterion", rows(), n)
    return ["stats", "irt", "--input", path, "--each"]


TOPICS = (
    "photosynthesis", "inflation", "recursion", "vaccines", "compound interest", "tectonic plates",
    "the French Revolution", "neural networks", "sourdough bread", "black holes", "supply chains",
    "climate policy", "sorting algorithms", "the immune system", "renewable energy", "jazz",
    "password security", "ocean tides", "urban planning", "quantum computing", "sleep",
    "public speaking", "bird migration", "the stock market", "garden soil", "electric cars",
)
ASKS = (
    "Explain how {t} works and why it matters.",
    "What are the main benefits and risks of {t}?",
    "Give a short overview of {t} for a beginner.",
    "How would you teach {t} to a ten-year-old?",
    "Compare two common views on {t}; which is better supported?",
)
GOOD = (
    "First, {t} depends on a few simple parts that work together.",
    "For example, in 2019 about 40% of studies on {t} reported a clear effect.",
    "This matters because small changes in {t} can add up over time.",
    "Then, the next step is to look at how {t} is measured in practice.",
    "The evidence suggests the effect is likely real, but it may vary by context.",
    "According to a review, {t} is best understood through concrete cases.",
    "Finally, the key point is that {t} rewards careful, steady practice.",
)
LIST = ("- a clear definition", "- one worked example", "- the main limitation", "- a next step")
BAD = (
    "Basically {t} is a thing that many people talk about.",
    "It is important to note that {t} is very important.",
    "Some say {t} is always good and some say it is never good.",
    "It depends on various factors, as an AI I cannot be sure.",
    "This is definitely the best and proven answer about {t}.",
)


def answer(rng, topic, quality):
    """A short answer: better ones use the topic, structure, evidence and reasoning."""
    parts = []
    length = rng.randint(80, 330)
    while sum(len(p) + 1 for p in parts) < length:
        if rng.random() < quality:
            if rng.random() < 0.15:
                parts.append("\n" + "\n".join(rng.sample(LIST, 2)) + "\n")
            else:
                parts.append(rng.choice(GOOD).format(t=topic))
        else:
            parts.append(rng.choice(BAD).format(t=topic))
    return " ".join(parts)[:length].rstrip() + "."


def gen_programs(rng, n, d):
    def rows():
        for i in range(n):
            topic = rng.choice(TOPICS)
            ask = rng.choice(ASKS).format(t=topic)
            qa, qb = rng.random(), rng.random()
            ra, rb = answer(rng, topic, qa), answer(rng, topic, qb)
            diff = qa - qb + rng.gauss(0, 0.25)
            label = "tie" if abs(diff) < 0.1 else ("a" if diff > 0 else "b")
            yield ",".join((str(i), csv_field(ask), csv_field(ra), csv_field(rb), label))

    path = write_lines(d, "pairs.csv", "id,instruction,response,response_b,label", rows(), n)
    return ["stats", "programs", "--pairs", path]


PROGRAMS = (
    "relevance", "readability", "completeness", "factual_indicators", "coherence",
    "conciseness", "reasoning_transparency", "epistemic_calibration", "structure",
    "evidence_density",
)


def vote_file(rng, n, d):
    """A committee's votes; returns the path and each row's true preference (+1, −1, 0)."""
    m = len(PROGRAMS)
    accuracy = [0.55 + 0.35 * j / (m - 1) for j in range(m)]
    abstain = [0.1 + 0.5 * ((j * 7) % m) / (m - 1) for j in range(m)]
    truths = []

    def rows():
        for i in range(n):
            u = rng.random()
            truth = 0 if u < 0.1 else (1 if u < 0.55 else -1)
            truths.append(truth)
            label = {1: "a", -1: "b", 0: "tie"}[truth]
            split = "validation" if rng.random() < 0.3 else "test"
            votes = []
            for j in range(m):
                if rng.random() < abstain[j]:
                    votes.append("0")
                elif truth == 0:
                    votes.append(rng.choice(("1", "-1")))
                else:
                    votes.append(str(truth if rng.random() < accuracy[j] else -truth))
            q, r = rng.randint(30, 400), rng.randint(100, 3000)
            yield f"p{i},{label},{split},{q},{r}," + ",".join(votes)

    path = write_lines(d, "votes.csv", "id,label,split,query_chars,response_chars," + ",".join(PROGRAMS), rows(), n)
    return path, truths


def gen_label_model(rng, n, d):
    path, _ = vote_file(rng, n, d)
    return ["stats", "label-model", "--votes", path]


def gen_routing(rng, n, d):
    path, truths = vote_file(rng, n, d)

    def rows():
        for i, t in enumerate(truths):
            if t == 0 or rng.random() < 0.15:
                label = rng.choice(("a", "b", "tie"))
            else:
                label = "a" if t == 1 else "b"
            yield f"p{i},{label}"

    llm = write_lines(d, "llm.csv", "id,label", rows(), len(truths))
    return ["stats", "routing", "--votes", path, "--llm", llm]


def labelled_battles(rng, n, d, k, keep, soft):
    """Labelled battles among k models, a share `keep` with their human label, the judge's
    label hard (agreeing three times in four) or `soft` (its P(a wins)); returns the path."""

    def rows():
        for a, b, human in bt_battles(rng, k, 2.0, 0.1):
            if soft:
                # The judge's P(a wins): informative, noisy, rounded as a judge reports it.
                judge = round(sigmoid(2.0 * (human - 0.5) * 1.5 + rng.gauss(0, 1.2)), 3)
            else:
                judge = human if rng.random() < 0.75 else 1.0 - human
            kept = rng.random() < keep
            yield f"{a},{b},{judge},{human if kept else ''}"

    return write_lines(d, "labelled.csv", "model_a,model_b,judge,human", rows(), n)


def gen_ppi(rng, n, d):
    return ["stats", "ppi", "--input", labelled_battles(rng, n, d, 20, 0.25, False)]


def gen_judge_value(rng, n, d):
    return ["stats", "judge-value", "--input", labelled_battles(rng, n, d, 30, 0.10, True)]


def gen_style(rng, n, d):
    k = 30
    names = [f"model-{i:02d}" for i in range(k)]
    theta = strengths(k, 3.0)
    verbosity = [rng.gauss(0, 0.4) for _ in range(k)]
    markdown = [rng.random() for _ in range(k)]

    def norm(x, y):
        return 0.0 if x + y == 0 else (x - y) / (x + y)

    def rows():
        for _ in range(n):
            a, b = two_models(rng, k)
            la = rng.lognormvariate(6.5 + verbosity[a], 0.5)
            lb = rng.lognormvariate(6.5 + verbosity[b], 0.5)
            ha = rng.randint(0, 4) if rng.random() < markdown[a] else 0
            hb = rng.randint(0, 4) if rng.random() < markdown[b] else 0
            ia = rng.randint(0, 8) if rng.random() < markdown[a] else 0
            ib = rng.randint(0, 8) if rng.random() < markdown[b] else 0
            ba = rng.randint(0, 5) if rng.random() < markdown[a] else 0
            bb = rng.randint(0, 5) if rng.random() < markdown[b] else 0
            f = (norm(la, lb), norm(ha, hb), norm(ia, ib), norm(ba, bb))
            logit = theta[a] - theta[b] + 0.9 * f[0] + 0.1 * f[1] + 0.2 * f[2] + 0.05 * f[3]
            if rng.random() < 0.15:
                y = 0.5
            else:
                y = 1.0 if rng.random() < sigmoid(logit) else 0.0
            yield f"{names[a]},{names[b]},{ARENA[y]}," + ",".join(f"{v:.4f}" for v in f)

    path = write_lines(d, "battles.csv", "model_a,model_b,winner,length,headers,lists,bold", rows(), n)
    return [
        "stats", "style", "--input", path, "--features", "length,headers,lists,bold",
    ]


def gen_self_preference(rng, n, d):
    k = 20
    names = [f"model-{i:02d}" for i in range(k)]
    theta = strengths(k, 3.0)
    family = {0, 1, 2}

    def rows():
        for _ in range(n):
            a, b = two_models(rng, k)
            human = bt_outcome(rng, theta[a], theta[b], 0.15)
            bonus = 0.4 * ((a in family) - (b in family))
            judge = bt_outcome(rng, 1.2 * theta[a] + bonus, 1.2 * theta[b], 0.08)
            yield f"{names[a]},{names[b]},{ARENA[judge]},{ARENA[human]}"

    path = write_lines(d, "scored.csv", "model_a,model_b,judge,human", rows(), n)
    return [
        "stats", "self-preference", "--input", path, "--family",
        ",".join(names[i] for i in sorted(family)),
    ]


def gen_length_control(rng, n, d):
    k = 20
    names = [f"model-{i:02d}" for i in range(k)]
    skill = [1.5 * (i / (k - 1)) - 1.0 for i in range(k)]
    verbosity = [rng.gauss(0, 0.35) for _ in range(k)]

    def rows():
        for prompt in itertools.count():
            difficulty = rng.gauss(0, 0.5)
            base_len = rng.lognormvariate(7.3, 0.4)
            for m in range(k):
                lb = base_len * math.exp(verbosity[m] + rng.gauss(0, 0.3))
                la = base_len * math.exp(rng.gauss(0, 0.3))
                # P(baseline wins) falls with the model's skill and its extra length.
                logit = -(skill[m] + 0.6 * math.tanh((lb - la) / 1000) + difficulty * 0.3)
                p_a = sigmoid(logit + rng.gauss(0, 0.8))
                score = 2 * p_a - 1
                winner = "model_a" if score > 0 else ("model_b" if score < 0 else "tie")
                yield (f"baseline,{names[m]},{winner},{score:.6f},{prompt},"
                       f"{round(la)},{round(lb)}")

    path = write_lines(d, "battles.csv", "model_a,model_b,winner,score,prompt,length_a,length_b", rows(), n)
    return ["stats", "length-control", "--input", path]


def gen_compare(rng, n, d):
    systems = [f"sys-{i}" for i in range(8)]
    skill = [-0.4 + 1.2 * i / 7 for i in range(8)]

    def rows():
        for item in itertools.count():
            difficulty = rng.gauss(0, 1)
            cluster = f"c{item // 20}"
            for s, sk in zip(systems, skill):
                p = sigmoid(sk - difficulty)
                passed = rng.random() < p
                human = ""
                if rng.random() < 0.05:
                    human = str(int(passed if rng.random() < 0.85 else not passed))
                grade = min(5, max(1, round(3 + 1.5 * (sk - difficulty) + rng.gauss(0, 0.8))))
                for criterion, score, h in (("correct", int(passed), human),
                                            ("quality", grade, "")):
                    yield f"i{item},{s},{criterion},{score},{cluster},{h}"

    path = write_lines(d, "scores.csv", "item,system,criterion,score,cluster,human", rows(), n)
    return ["stats", "compare", "--input", path]


def gen_transitivity(rng, n, d):
    names = [f"model-{i:02d}" for i in range(50)]
    theta = strengths(50, 3.0)

    def rows():
        for prompt in itertools.count():
            chosen = rng.sample(range(50), 8)
            for _ in range(56):
                a, b = rng.sample(chosen, 2)
                y = bt_outcome(rng, theta[a], theta[b], 0.1)
                yield f"{names[a]},{names[b]},{ARENA[y]},p{prompt}"

    path = write_lines(d, "battles.csv", "model_a,model_b,winner,prompt", rows(), n)
    return ["stats", "transitivity", "--input", path, "--group", "prompt"]


GENERATORS = {
    "leaderboard": gen_leaderboard,
    "judge-study": gen_judge_study,
    "conformal": gen_conformal,
    "agreement": gen_agreement,
    "aa": gen_aa,
    "consistency": gen_consistency,
    "position": gen_position,
    "calibration": gen_calibration,
    "power": gen_power,
    "irt": gen_irt,
    "irt-table": gen_irt_table,
    "programs": gen_programs,
    "label-model": gen_label_model,
    "routing": gen_routing,
    "ppi": gen_ppi,
    "judge-value": gen_judge_value,
    "style": gen_style,
    "self-preference": gen_self_preference,
    "length-control": gen_length_control,
    "compare": gen_compare,
    "transitivity": gen_transitivity,
}
assert list(GENERATORS) == KINDS


def case_dir(root, kind, n):
    return os.path.join(root, "power" if kind == "power" else f"{kind}-{n}")


def inputs(root, sizes, kinds=None):
    for k, kind in enumerate(KINDS):
        if kinds and kind not in kinds:
            continue
        for n in ([None] if kind == "power" else sizes):
            d = case_dir(root, kind, n)
            meta_path = os.path.join(d, "meta.json")
            seed = 1000 + k
            meta = {"kind": kind, "n": n, "seed": seed, "version": VERSION}
            try:
                with open(meta_path) as f:
                    if json.load(f) == meta:
                        print(f"{d}: up to date", file=sys.stderr)
                        continue
            except (OSError, ValueError):
                pass
            os.makedirs(d, exist_ok=True)
            if os.path.exists(meta_path):
                os.remove(meta_path)
            start = time.monotonic()
            args = GENERATORS[kind](random.Random(seed), n, d)
            with open(os.path.join(d, "command.json"), "w") as f:
                json.dump(args, f)
                f.write("\n")
            with open(meta_path, "w") as f:
                json.dump(meta, f)
                f.write("\n")
            size = sum(
                os.path.getsize(os.path.join(d, x))
                for x in os.listdir(d)
                if x.endswith((".csv", ".npy"))
            )
            print(f"{d}: {size / 2**20:.1f} MiB in {time.monotonic() - start:.1f} s",
                  file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Timing.


def cases(root):
    """(kind, n, dir) of every case under root, in KINDS order, smallest n first."""
    found = []
    for name in os.listdir(root):
        d = os.path.join(root, name)
        try:
            with open(os.path.join(d, "meta.json")) as f:
                meta = json.load(f)
        except (OSError, ValueError):
            continue
        if meta.get("kind") in KINDS and os.path.exists(os.path.join(d, "command.json")):
            found.append((meta["kind"], meta["n"], d))
    return sorted(found, key=lambda c: (KINDS.index(c[0]), c[1] or 0))


def command_line(args):
    def quote(a):
        return a if a and all(c.isalnum() or c in "-_./,=:" for c in a) else json.dumps(a)

    return " ".join(["tribunal"] + [quote(a) for a in args])


def save_spec(d, args):
    """spec.json and roles.json from the report's record."""
    with open(os.path.join(d, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    record = report.get("record") or {}
    spec = record.get("spec")
    if spec is None:
        return "no record.spec in the report"
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")
    by_hash = {i.get("sha256"): i.get("path") for i in record.get("inputs", [])}
    roles = {}
    for role, ref in (spec.get("inputs") or {}).items():
        name = ref.get("name")
        path = name if name in args else by_hash.get(ref.get("hash"), name)
        roles[role] = path
    with open(os.path.join(d, "roles.json"), "w") as f:
        json.dump(roles, f, indent=1)
        f.write("\n")
    return None


def run_one(tribunal, kind, n, d, timeout):
    with open(os.path.join(d, "command.json")) as f:
        args = json.load(f)
    entry = {"kind": kind, "n": n, "command": command_line(args)}
    report = os.path.join(d, "report.json")
    errors = os.path.join(d, "stderr.txt")
    with open(report, "wb") as out, open(errors, "wb") as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            ["/usr/bin/time", "-f", "%e %M", tribunal] + args,
            stdout=out, stderr=err, start_new_session=True,
        )
        # A blocking wait, the timeout from a timer: `wait(timeout=…)` polls with sleeps of up
        # to 50 ms, which rounded every short run up to the next poll.
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        proc.wait()
        elapsed = time.monotonic() - start
        timer.cancel()
        if timed_out.is_set():
            entry.update(status="timeout", exit=None, wall_s=round(elapsed, 2),
                         peak_rss_mib=None, error=f"timed out after {timeout} s")
            return entry
    with open(errors, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    wall, rss = None, None
    if lines:
        try:
            e, m = lines[-1].split()
            wall, rss = float(e), int(m) / 1024
            lines = lines[:-1]
        except ValueError:
            pass
    if lines and lines[-1].startswith("Command exited with non-zero status"):
        lines = lines[:-1]
    entry.update(
        status="ok" if proc.returncode == 0 else "failed",
        exit=proc.returncode,
        wall_s=wall if wall is not None else round(elapsed, 2),
        elapsed_s=round(elapsed, 4),
        peak_rss_mib=round(rss, 1) if rss is not None else None,
    )
    if proc.returncode != 0:
        entry["error"] = lines[-1] if lines else "(no stderr)"
    else:
        try:
            problem = save_spec(d, args)
        except (OSError, ValueError) as e:
            problem = f"report not read: {e}"
        if problem:
            entry["note"] = problem
    return entry


def native(tribunal, root, out, timeout, skip_after, kinds=None, sizes=None):
    try:
        with open(out) as f:
            results = json.load(f)
    except (OSError, ValueError):
        results = {"runs": []}
    done = {}
    for kind, n, d in cases(root):
        if kinds and kind not in kinds:
            continue
        if sizes and n is not None and n not in sizes:
            continue
        # The run of the next smaller size: this time's, else one recorded before.
        smaller = [r for r in list(done.values()) + results["runs"]
                   if r["kind"] == kind and n is not None and r["n"] is not None and r["n"] < n]
        prev = max(smaller, key=lambda r: r["n"]) if smaller else None
        if prev is not None and (prev["status"] != "ok" or prev["wall_s"] > skip_after):
            why = f"took {prev['wall_s']} s" if prev["status"] == "ok" else prev["status"]
            with open(os.path.join(d, "command.json")) as f:
                args = json.load(f)
            entry = {
                "kind": kind, "n": n, "status": "not run", "command": command_line(args),
                "note": f"not run: {fmt_n(prev['n'])} {why}",
            }
        else:
            print(f"{kind} n={n}: running …", file=sys.stderr, flush=True)
            entry = run_one(tribunal, kind, n, d, timeout)
            print(f"{kind} n={n}: {entry['status']} {entry.get('wall_s')} s "
                  f"{entry.get('peak_rss_mib')} MiB {entry.get('error', '')}",
                  file=sys.stderr, flush=True)
        entry["load_1m_after"] = round(os.getloadavg()[0], 2)
        done[(kind, n)] = entry
        merged = [r for r in results["runs"] if (r["kind"], r["n"]) not in done]
        merged += list(done.values())
        merged.sort(key=lambda r: (KINDS.index(r["kind"]), r["n"] or 0))
        results = {
            "tribunal": os.path.abspath(tribunal),
            "timeout_s": timeout,
            "runs": merged,
        }
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")


# ---------------------------------------------------------------------------------------------
# The table.

LIMIT = 1.5 * 10 * math.log(1e6) / math.log(1e5)  # ×10 rows: n log n with a noise margin


def fmt_n(n):
    e = round(math.log10(n)) if n else 0
    return f"10^{e}" if n and 10**e == n else f"{n:,}"


def secs(r):
    """A run's wall time: the script's own clock around /usr/bin/time when recorded (1 ms
    resolution and better), else time's %e (10 ms)."""
    return r.get("elapsed_s") or r["wall_s"]


def fmt_time(s):
    if s is None:
        return "—"
    if s < 1:
        return f"{s:.3f} s"
    return f"{s:.2f} s" if s < 10 else f"{s:.0f} s" if s < 1000 else f"{s / 60:.0f} min"


def fmt_mem(mib):
    if mib is None:
        return "—"
    return f"{mib:.0f} MiB" if mib < 1024 else f"{mib / 1024:.1f} GiB"


def cell(r):
    if r is None:
        return "—"
    if r["status"] == "ok":
        return f"{fmt_time(secs(r))}, {fmt_mem(r['peak_rss_mib'])}"
    if r["status"] == "timeout":
        return f"timed out (> {fmt_time(r['wall_s'])})"
    if r["status"] == "not run":
        return r.get("note", "not run")
    return f"failed (exit {r.get('exit')})"


def growth(a, b, step):
    """(b.time / a.time) / step and whether it beats n log n clearly."""
    if not a or not b or a["status"] != "ok" or b["status"] != "ok":
        return None, False
    ratio = secs(b) / max(secs(a), 0.001)
    limit = 1.5 * step * math.log(b["n"]) / math.log(a["n"])
    return ratio / step, ratio > limit and secs(b) > 1.0


def browser_cell(r):
    if r is None:
        return "not run"
    if "error" in r:
        return f"failed: {r['error'][:80]}"
    return f"{fmt_time(r['seconds'])}, {fmt_mem(r['wasm_memory_mib'])}"


def table(out, wasm_out=None):
    with open(out) as f:
        runs = json.load(f)["runs"]
    browser = None
    if wasm_out:
        with open(wasm_out) as f:
            browser = json.load(f)["runs"]
    sizes = sorted({r["n"] for r in runs if r["n"] is not None})
    by = {(r["kind"], r["n"]): r for r in runs}
    head = ["kind", "a row is"] + [f"{fmt_n(n)} rows: time, peak RSS" for n in sizes]
    if browser is not None:
        head += [f"browser, {fmt_n(n)}: time, WASM memory" for n in sizes]
    if len(sizes) >= 2:
        head.append(f"growth {fmt_n(sizes[-2])}→{fmt_n(sizes[-1])} (time ratio / 10)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    commands = []
    failures = []
    for kind in KINDS:
        if kind == "power":
            r = by.get(("power", None))
            if r is None:
                continue
            row = [kind, ROWS[kind]] + [cell(r)] + ["n/a"] * (len(sizes) - 1)
            if browser is not None:
                row += [browser_cell(browser.get("power"))] + ["n/a"] * (len(sizes) - 1)
            if len(sizes) >= 2:
                row.append("n/a")
            lines.append("| " + " | ".join(row) + " |")
            commands.append((kind, r["command"]))
            continue
        rs = [by.get((kind, n)) for n in sizes]
        if not any(rs):
            continue
        row = [kind, ROWS[kind]] + [cell(r) for r in rs]
        if browser is not None:
            row += [browser_cell(browser.get(f"{kind}-{n}")) for n in sizes]
        if len(sizes) >= 2:
            g, fast = growth(rs[-2], rs[-1], sizes[-1] / sizes[-2])
            flags = []
            for a, b in zip(rs, rs[1:]):
                if a and b:
                    _, f = growth(a, b, b["n"] / a["n"])
                    if f:
                        flags.append(f"faster than n log n from {fmt_n(a['n'])}")
            text = "—" if g is None else f"{g:.2f}"
            if flags:
                text += " ⚠ " + "; ".join(flags)
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
        for r in rs:
            if r and r["status"] in ("failed", "timeout"):
                failures.append(f"- {kind} at {fmt_n(r['n'])}: {r['status']}: {r.get('error', '')}")
        example = next(r for r in rs if r)
        commands.append((kind, example["command"].replace(f"-{example['n']}/", "-N/")))
    print("\n".join(lines))
    print()
    print(f"⚠: the time grew more than 1.5 × the n log n ratio for ×10 rows "
          f"({LIMIT:.1f}× from 10^5 to 10^6) and the larger run took over 1 s.")
    if failures:
        print()
        print("\n".join(failures))
    print()
    print("| kind | command (N: the rows) |")
    print("|---|---|")
    for kind, c in commands:
        print(f"| {kind} | `{c}` |")


def main(argv):
    if len(argv) >= 3 and argv[0] == "inputs":
        kinds = None
        rest = argv[2:]
        if "--kinds" in rest:
            i = rest.index("--kinds")
            kinds = rest[i + 1].split(",")
            rest = rest[:i] + rest[i + 2:]
        inputs(argv[1], [int(x) for x in rest], kinds)
    elif len(argv) >= 4 and argv[0] == "native":
        opts = {"--timeout": "900", "--skip-after": "90", "--kinds": "", "--sizes": ""}
        rest = argv[4:]
        while rest:
            if rest[0] not in opts or len(rest) < 2:
                sys.exit(f"unknown option {rest[0]}")
            opts[rest[0]] = rest[1]
            rest = rest[2:]
        native(
            argv[1], argv[2], argv[3], float(opts["--timeout"]), float(opts["--skip-after"]),
            [k for k in opts["--kinds"].split(",") if k] or None,
            [int(s) for s in opts["--sizes"].split(",") if s] or None,
        )
    elif len(argv) in (2, 3) and argv[0] == "table":
        table(*argv[1:])
    else:
        sys.exit("\n\n".join(__doc__.split("\n\n")[1:3]))


if __name__ == "__main__":
    main(sys.argv[1:])
