"""Every analysis kind from Python equals `tribunal stats` on the same inputs: the same report
(every number equal, not merely close) and the same spec — through the kind's own function with
the CLI's settings as keywords, and through `tribunal.run` on the CLI's recorded spec."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import tribunal

from conftest import cli, cli_warned

CROWD = "tests/data/llmfao/crowd-comparisons.csv"
GPT4 = "tests/data/llmfao/gpt4-crowd-comparisons.csv"
LLMFAO = ["--item", "id", "--rater", "worker", "--score", "winner", "--scale", "nominal"]
DATA = "tests/data/llmfao/"


def calibration_csv(rows: int, offset: int) -> str:
    """The LS calibration file of the Rust spec tests: a linear rule with a fixed wobble."""
    lines = ["embedding,score,human"]
    for i in range(offset, offset + rows):
        e = [(((i * 7 + j * 13) % 17) - 8.0) / 8.0 for j in range(4)]
        score = 3.0 + e[0] - 0.5 * e[1]
        human = score + 0.8 * e[2] + 0.1 * ((i % 5) - 2.0)
        lines.append(f"{' '.join(repr(x) for x in e)},{score!r},{human!r}")
    return "\n".join(lines) + "\n"


def commands(scratch: Path) -> list:
    """A `tribunal stats` command line per kind (the files of the Rust tests)."""
    repeats = scratch / "repeats.csv"
    repeats.write_text(
        "item,criterion,variant,score\nq1,coverage,r1,1\nq1,coverage,r2,1\nq1,coverage,r3,0\n"
        "q2,coverage,r1,0\nq2,coverage,r2,1\nq2,coverage,r3,0\n"
    )
    orders = scratch / "orders.csv"
    orders.write_text(
        "item,variant,score\np1,ab,left\np1,ba,right\np2,ab,left\np2,ba,left\np3,ab,tie\n"
        "p3,ba,right\np4,ab,right\n"
    )
    train, test = scratch / "train.csv", scratch / "test.csv"
    train.write_text(calibration_csv(60, 0))
    test.write_text(calibration_csv(30, 60))
    votes = scratch / "votes.csv"
    cli(
        "stats", "programs", "--pairs", DATA + "pairs.csv", "--rounds", "50", "--seed", "7",
        "--votes-out", str(votes),
    )
    study = ["--human", CROWD, "--judge", GPT4, "--key", "id", "--splits", "20"]
    irt = ["--input", "tests/fixtures/small-irt-judge.csv", "--human", "tests/fixtures/small-irt-human.csv"]
    return [
        ["leaderboard", "--input", CROWD, "--bootstrap", "40", "--seed", "3", "--cluster", "prompt",
         "--anchor", "GPT 4=1200"],
        ["judge-study", *study],
        ["conformal", *study, "--alpha", "0.2"],
        ["agreement", "--input", CROWD, "--judge", GPT4, "--bootstrap", "30", "--slice", "prompt",
         *LLMFAO],
        ["aa", "--input", "tests/fixtures/aa-runs.csv", "--scale", "nominal", "--runs", "run1,run2",
         "--gold", "gold", "--pass", "pass"],
        ["consistency", "--input", str(repeats)],
        ["position", "--input", str(orders), "--bootstrap", "50"],
        ["irt", *irt],
        ["irt", "--each", *irt],
        ["calibration", "--head", "ls", "--train", str(train), "--test", str(test), "--bootstrap",
         "50", "--gammas", "5", "--folds", "3", "--ablation", "drop:0.25", "--train-sizes", "20,40",
         "--repeats", "2"],
        ["calibration", "--head", "btl", "--train", DATA + "calibration-train.csv", "--test",
         DATA + "calibration-test.csv", "--train-embeddings", DATA + "calibration-train.npy",
         "--test-embeddings", DATA + "calibration-test.npy", "--bootstrap", "20"],
        ["power", "--p1", "0.6", "--p2", "0.5,0.55", "--power", "0.8,0.9"],
        ["programs", "--pairs", DATA + "pairs.csv", "--llm", DATA + "gpt4-verdicts.csv", "--probes",
         DATA + "probes.csv", "--top-k", "4", "--rounds", "50", "--seed", "7", "--budget", "0.1"],
        ["label-model", "--votes", str(votes), "--rounds", "50", "--seed", "7"],
        ["routing", "--votes", str(votes), "--llm", DATA + "gpt4-verdicts.csv", "--rounds", "50",
         "--seed", "7"],
        ["ppi", "--input", "tests/fixtures/ppi-llmfao-ten-models.csv", "--alpha", "0.1",
         "--target-width", "0.3", "--plan-labels", "30"],
        ["judge-value", "--input", "tests/fixtures/ppi-llmfao-battles.csv"],
        ["style", "--input", CROWD, "--answers", DATA + "pairs.csv", "--bootstrap", "20", "--seed",
         "1"],
        ["self-preference", "--human", CROWD, "--judge", GPT4, "--key", "id", "--family",
         "GPT 4,GPT 3.5 Turbo,GPT 3.5 Turbo (16k)"],
        ["length-control", "--input", "tests/fixtures/lc-alpaca-eval.csv"],
        ["compare", "--input", "tests/fixtures/compare-alpaca-eval.csv", "--baseline",
         "gpt-3.5-turbo-1106", "--cluster-column", "dataset", "--slice", "dataset",
         "--bootstrap-rounds", "100", "--seed", "5", "--target-difference", "0.05"],
        ["cascade", "--input", "tests/fixtures/cascade-sim.csv", "--tier", "small", "--tier",
         "medium", "--tier", "large", "--alpha", "0.15"],
        ["transitivity", "--input", DATA + "gpt3-crowd-comparisons.csv", "--group", "prompt",
         "--bootstrap", "100", "--seed", "4"],
    ]


def settings_of(spec: dict) -> dict:
    return {k: v for k, v in spec.items() if k not in ("version", "analysis", "inputs")}


def check_equal(args) -> str:
    """`tribunal stats ARGS` against the kind's function and `tribunal.run` on its spec: the
    kind's name."""
    printed, warned = cli_warned("stats", *args)
    record = printed.pop("record")
    spec = record["spec"]
    files = {role: ref["name"] for role, ref in spec["inputs"].items()}
    function = getattr(tribunal, spec["analysis"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(inputs=files, **settings_of(spec))
    assert result.spec == spec, args
    assert result.report == printed, args
    assert result.warnings == warned, args
    assert [str(w.message) for w in caught] == warned, args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rerun = tribunal.run(record, **{"inputs": files})
    assert rerun.report == printed, args
    assert rerun.warnings == warned, args
    return spec["analysis"]


def test_every_kind_equals_tribunal_stats(scratch):
    seen = {check_equal(args) for args in commands(scratch)}
    # A kind without a command line above runs on its example inputs (`Kind::example_inputs`),
    # by `tribunal stats run` on the spec of its example settings.
    for kind in tribunal.KINDS:
        if kind["name"] in seen:
            continue
        assert kind["example_inputs"], f"{kind['name']}: no command line here, no example inputs"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            example = getattr(tribunal, kind["name"])(
                inputs=kind["example_inputs"], **kind["settings"]
            )
        spec = scratch / f"{kind['name']}.json"
        spec.write_text(json.dumps(example.spec))
        inputs = [f"--input={role}={path}" for role, path in kind["example_inputs"].items()]
        seen.add(check_equal(["run", str(spec), *inputs]))
    assert seen == {kind["name"] for kind in tribunal.KINDS}
