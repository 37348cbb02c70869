"""The Python API as a notebook uses it: frames and column dicts in, keyword settings, tables
out, located errors, warnings, the GIL released, other tools' files, sessions and the README's
example."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
import urllib.request
import warnings

import pandas
import polars
import pytest

import tribunal
from tribunal.settings import resolve

from conftest import ROOT, cli, tribunal_binary

CROWD = "tests/data/llmfao/crowd-comparisons.csv"


def test_a_leaderboard_from_a_pandas_frame_is_the_cli_s_on_the_frame_s_csv(scratch):
    frame = pandas.read_csv(CROWD)
    path = scratch / "crowd.csv"
    path.write_text(frame.to_csv(index=False, lineterminator="\n"))
    printed = cli("stats", "leaderboard", "--input", str(path), "--bootstrap", "40", "--seed", "3")
    record = printed.pop("record")
    # Named as the CLI's file, the frame is the same file: the same spec and report.
    board = tribunal.leaderboard((str(path), frame), rounds=40, seed=3)
    assert board.spec == record["spec"]
    assert board.report == printed
    # Unnamed, the frame is `battles.csv`: the same numbers.
    unnamed = tribunal.leaderboard(battles=frame, bootstrap={"rounds": 40}, seed=3)
    assert unnamed.spec["inputs"]["battles"]["name"] == "battles.csv"
    assert unnamed.spec["bootstrap"] == record["spec"]["bootstrap"]
    assert unnamed["ratings"] == printed["ratings"]
    table = unnamed.to_pandas()
    assert list(table["model"]) == [r["model"] for r in printed["ratings"]]
    assert "ratings" in unnamed.tables_names()


def test_polars_frames_and_column_dicts_are_the_same_file():
    frame = pandas.read_csv(CROWD)
    from_pandas = tribunal.leaderboard(frame, rounds=0)
    from_polars = tribunal.leaderboard(polars.read_csv(CROWD), rounds=0)
    columns = {name: list(frame[name]) for name in frame.columns}
    from_dict = tribunal.leaderboard(columns, rounds=0)
    for other in (from_polars, from_dict):
        assert other["ratings"] == from_pandas["ratings"]
    with pytest.raises(ValueError, match=r"columns differ in length \(a: 2, b: 1\)"):
        tribunal.leaderboard({"a": [1, 2], "b": [1]})


def test_settings_are_keywords_checked_against_the_kind():
    with pytest.raises(TypeError, match=r"no setting or file role `bootstrapp` \(its files: battles;"):
        tribunal.leaderboard(CROWD, bootstrapp=3)
    with pytest.raises(TypeError, match=r"no setting or file role `human`"):
        tribunal.leaderboard(CROWD, human=CROWD)
    with pytest.raises(TypeError, match=r"reads no file in the role `judge.1`"):
        tribunal.leaderboard(CROWD, inputs={"judge.1": CROWD})
    with pytest.raises(TypeError, match=r"needs a file in the role `battles`"):
        tribunal.leaderboard(rounds=3)
    # A nested name found twice must be given inside its parent.
    with pytest.raises(TypeError, match=r"`seed` is in more than one place \(a.seed, b.seed\)"):
        resolve("k", {"a": {"seed": 0}, "b": {"seed": 1}}, {"seed": 2})
    settings, _ = resolve("k", {"a": {"seed": 0, "n": 1}, "b": {"seed": 1}}, {"a": {"seed": 2}})
    assert settings == {"a": {"seed": 2, "n": 1}, "b": {"seed": 1}}
    # `ratings` is both aa's file and a setting: a dict of the setting's own keys is the
    # setting, anything else the file.
    aa = {"runs": ["run1", "run2"], "gold": "gold", "pass": "pass"}
    with pytest.raises(tribunal.TribunalError, match="the scale is numeric"):
        tribunal.aa(ratings="tests/fixtures/aa-runs.csv", **aa)
    nominal = tribunal.aa("tests/fixtures/aa-runs.csv", ratings={"scale": "nominal"}, **aa)
    assert nominal.spec["ratings"]["scale"] == "nominal"
    assert nominal.spec["inputs"]["ratings"]["name"] == "tests/fixtures/aa-runs.csv"
    # A value out of range is the core's check, named.
    with pytest.raises(tribunal.TribunalError) as error:
        tribunal.leaderboard(CROWD, level=1.5)
    assert error.value.reason == "setting"
    assert error.value.setting is not None


def test_a_bad_file_is_a_located_error(scratch):
    bad = scratch / "bad.csv"
    bad.write_text("item,system,score\nq1,A,1\nq1,B,fail\n")
    with pytest.raises(tribunal.TribunalError) as error:
        tribunal.compare(str(bad))
    e = error.value
    assert (e.reason, e.source, e.line, e.column, e.field) == ("input", str(bad), 3, 3, "score")
    assert "line 3, column 3 (`score`)" in str(e)
    assert isinstance(e, ValueError)


def test_warnings_are_python_warnings_and_a_model_that_never_loses_says_so():
    battles = {"model_a": ["A", "A", "B", "C"], "model_b": ["B", "C", "C", "B"],
               "winner": ["model_a", "model_a", "model_a", "tie"]}
    with pytest.warns(tribunal.TribunalWarning, match="A"):
        board = tribunal.leaderboard(battles, rounds=0)
    assert board.warnings
    assert any("A" in line for line in board.warnings)


def test_the_gil_is_released_while_the_core_computes():
    done = threading.Event()
    span = {}

    def fit():
        start = time.perf_counter()
        tribunal.leaderboard(CROWD, rounds=1000, seed=1)
        span["seconds"] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=fit)
    last = time.perf_counter()
    longest = 0.0
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    # Held through the bootstrap (nearly all of the call), the GIL would stop this loop for
    # about as long as the call; released, the loop never waits long.
    assert longest < span["seconds"] / 2, (longest, span)


def test_read_is_tribunal_convert_for_every_format():
    readers = ROOT / "tests/data/readers"
    cases = [
        ("alpaca_eval/alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.json", {}),
        ("chatbot_arena/arena_hard_battles.excerpt.jsonl", {}),
        ("inspect/2025-05-12T20-28-13-04-00_popularity.json", {}),
        ("inspect/2025-05-12T20-28-13-04-00_popularity.json", {"to": "scores"}),
    ]
    cases += [
        (str(path.relative_to(readers)), {})
        for folder in ("promptfoo", "lm_eval")
        for path in sorted((readers / folder).rglob("*.json*"))[:1]
    ]
    arena_hard = sorted((readers / "arena_hard").glob("*.jsonl"))[0]
    cases.append((str(arena_hard.relative_to(readers)), {"baseline": "gpt-4-0314"}))
    formats = set()
    for name, options in cases:
        path = f"tests/data/readers/{name}"
        flags = [f"--{k}={v}" for k, v in options.items()]
        out = subprocess.run([tribunal_binary(), "convert", *flags, path], cwd=ROOT,
                             capture_output=True, text=True, check=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = tribunal.read(path, **options)
        assert frame.attrs["csv"] == out.stdout, name
        assert len(frame) == frame.attrs["rows"]
        formats.add(frame.attrs["format"])
    assert formats == {name for name, _ in tribunal.formats()}
    with pytest.raises(tribunal.TribunalError, match="not a file of a known tool") as error:
        tribunal.read(CROWD)
    assert error.value.source == CROWD


def test_a_result_saved_in_a_session_is_its_share_link(server):
    board = tribunal.leaderboard(CROWD, rounds=20, seed=4)
    link = board.share_link(server, title="crowd")
    found = re.fullmatch(re.escape(server) + r"/s/([0-9a-f]+)/a/([0-9a-f]+)", link)
    assert found, link
    with urllib.request.urlopen(f"{server}/api/sessions/{found.group(1)}") as answer:
        view = json.loads(answer.read())
    saved = [a for a in view["analyses"] if a["id"] == found.group(2)]
    assert saved[0]["spec"] == board.spec
    assert [d["hash"] for d in view["datasets"]] == [board.spec["inputs"]["battles"]["hash"]]
    # The saved spec reruns to the same report, as the page and `tribunal stats run` rerun it.
    assert tribunal.run(saved[0], battles=CROWD).report == board.report
    # Several analyses go into one session, its files uploaded once each.
    session = tribunal.Session(server, title="two")
    board.save(session)
    tribunal.leaderboard(CROWD, rounds=0).save(session, title="point estimates")
    with urllib.request.urlopen(f"{server}/api/sessions/{session.id}") as answer:
        view = json.loads(answer.read())
    assert [a["title"] for a in view["analyses"]] == ["leaderboard", "point estimates"]
    assert len(view["datasets"]) == 1
    # Without the owner token nothing is written.
    with pytest.raises(ValueError, match="owner token"):
        tribunal.Session(server, id=session.id)


def test_the_readme_example_runs():
    text = (ROOT / "README.md").read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S)
    assert example, "the README has a Python example"
    out = subprocess.run([sys.executable, "-c", example.group(1)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "bootstrap.lower" in out.stdout and "GPT 4" in out.stdout
