"""Shared fixtures: the repository root (the tests read the Rust tests' data), the `tribunal`
binary the wheel is compared with, and a running Tribunal server for the session tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def tribunal_binary() -> str:
    """The `tribunal` binary of this checkout's build (`TRIBUNAL_BIN`, else the cargo target
    directory's debug build)."""
    given = os.environ.get("TRIBUNAL_BIN")
    if given:
        return given
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "debug" / "tribunal")


def cli_warned(*args: str):
    """`tribunal ARGS…` run in the repository root: its JSON on stdout, which must parse, and
    the warnings it printed on stderr."""
    out = subprocess.run(
        [tribunal_binary(), *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, f"tribunal {' '.join(args)}: {out.stderr}"
    warned = [line[len("warning: "):] for line in out.stderr.splitlines() if line.startswith("warning: ")]
    return json.loads(out.stdout), warned


def cli(*args: str) -> dict:
    """`tribunal ARGS…`'s JSON (see :func:`cli_warned`)."""
    return cli_warned(*args)[0]


@pytest.fixture(autouse=True)
def in_root(monkeypatch):
    """Every test runs in the repository root, where the data's relative paths hold."""
    monkeypatch.chdir(ROOT)


@pytest.fixture
def scratch():
    path = Path(tempfile.mkdtemp(prefix="tribunal-py-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    """`tribunal serve` on a free loopback port with a fresh SQLite store: its base URL."""
    found = None
    data = Path(tempfile.mkdtemp(prefix="tribunal-py-serve-"))
    process = subprocess.Popen(
        [tribunal_binary(), "serve", "--addr", "127.0.0.1:0", "--data-dir", str(data), "--dist", str(ROOT / "dist")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        for line in process.stdout:
            found = re.search(r"Tribunal is serving at (http://\S+)/", line)
            if found:
                break
        assert found, "tribunal serve printed no address"
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)
