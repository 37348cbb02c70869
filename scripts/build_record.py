"""Dates a fresh clone's files so that cargo reuses what the machine's build cache holds.

Usage: python3 scripts/build_record.py RECORD   (run by scripts/test.sh in the repository root)

Cargo rebuilds a crate when one of its source files is newer than the crate's last build. Every
file of a fresh clone is new, so each CI run compiled every workspace crate again (the
`tribunal` crate at opt-level 3 several times over) although the cache (~/.cache/tribunal/target)
held them, built from the same bytes.

The record keeps, for each tracked file, its SHA-1 and *since*: the time of the first run of the
current streak of runs that found the file with that content (and the same for the commit, which
`worker/build.rs` compiles in and reruns on when `.git/HEAD` or the refs change). Each file is
given its *since* as modification time: a file unchanged since the last run keeps the old time,
so a crate built during the streak is reused (it was built from these bytes: every build into the
cache happens in such a run, one run at a time); a changed or new file gets the time of now,
newer than everything in the cache, so whatever depends on it is rebuilt. The record is written
before anything is built, so what a run builds counts even when the run stops half-way (a CI run
past its time limit): the next run with the same files reuses it.

A run in a working copy (test.sh without TRIBUNAL_FRESH_CLONE) dates nothing and deletes the
record (test.sh), since its files' times are the editor's and other target directories read them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time


def sha1(path: str) -> str:
    digest = hashlib.sha1()
    if os.path.islink(path):
        digest.update(os.readlink(path).encode())
    else:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def stamp(path: str, since: float) -> None:
    os.utime(path, (since, since), follow_symlinks=False)


def stamp_tree(top: str, since: float) -> None:
    """``top`` and, for a folder, everything in it (cargo scans a folder it watches)."""
    if not os.path.lexists(top):
        return
    stamp(top, since)
    if os.path.isdir(top) and not os.path.islink(top):
        for folder, folders, names in os.walk(top):
            for name in folders + names:
                stamp(os.path.join(folder, name), since)


def git(*args: str) -> bytes:
    return subprocess.run(["git", *args], capture_output=True, check=True).stdout


def main(record_path: str) -> None:
    try:
        with open(record_path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        record = {}
    known = record.get("files", {})
    now = time.time()
    files = {}
    kept = 0
    for raw in git("ls-files", "-z").split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)
        if not os.path.lexists(path):
            continue
        digest = sha1(path)
        old = known.get(path)
        since = old[1] if old and old[0] == digest else now
        kept += since != now
        stamp(path, since)
        files[path] = [digest, since]
    head = git("rev-parse", "HEAD").decode().strip()
    old = record.get("commit")
    commit_since = old[1] if old and old[0] == head else now
    for top in (".git/HEAD", ".git/packed-refs", ".git/refs/heads"):
        stamp_tree(top, commit_since)
    written = {"files": files, "commit": [head, commit_since]}
    with open(record_path + ".new", "w", encoding="utf-8") as handle:
        json.dump(written, handle)
    os.replace(record_path + ".new", record_path)
    print(
        f"build record: {kept} of {len(files)} tracked files unchanged since the build cache last "
        f"saw them; the commit {'unchanged' if commit_since != now else 'new'}"
    )


if __name__ == "__main__":
    main(sys.argv[1])
