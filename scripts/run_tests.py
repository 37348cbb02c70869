"""Runs the test binaries of `cargo test ARGS` a few at a time instead of one after another.

Usage: python3 scripts/run_tests.py [--jobs N] [--times FILE] -- CARGO_TEST_ARGS… [-- TEST_ARGS…]

`cargo test` runs its test binaries one after another, each with the machine's count of test
threads; a binary of one test (most browser tests) or a binary's last long test then runs alone,
mostly waiting on its browser, its server or a stand-in fleet while a core idles. This builds
every test binary (`cargo test ARGS --no-run`), then runs them N at a time (default 2, or
$TRIBUNAL_TEST_JOBS), each with one test thread (`--test-threads=1` unless TEST_ARGS say
otherwise) — so N tests run at once, as many as `cargo test` runs on an N-core machine, and no
test's timeouts meet more contention than they did — the longest first by the seconds each took
on this machine's last run (FILE, default ~/.cache/tribunal/test-seconds.json, where a binary's
time is kept when it passed whole, no test filtered out; a binary never timed so takes the
figure of the table below, measured on a 2-core VM). Each binary runs as cargo would run it: in
its package's directory, with cargo's variables for the package. Its output is printed whole
when it ends, after a `Running` line as cargo prints it; the doc tests run last as one more job
(`cargo test ARGS --doc`, unless ARGS pick targets). TEST_ARGS go to every binary, as after
`cargo test`'s `--`. Every binary runs even after one fails (cargo stops at the first);
the exit status is 1 if any failed. Ends with each binary's wall time, longest first.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

# Seconds on a 2-core VM (CI's machine, 2026-12-01; live_runs, engine, scale_out, serving and the
# calibrate and sessions browsers with one test thread beside another binary, the rest run as
# `cargo test` ran them), for the order of a machine's first run; saved_analyses_browser's is a
# guess (it was not timed whole).
MEASURED = {
    "tribunal-e2e/engine": 2418, "tribunal-e2e/live_runs": 1309,
    "tribunal-e2e/openai_server": 1006, "tribunal-e2e/share_examples_browser": 967,
    "tribunal-e2e/scale_out": 687, "tribunal-e2e/accessibility_browser": 939,
    "tribunal-e2e/saved_analyses_browser": 600, "tribunal-e2e/sessions_browser": 222,
    "tribunal-e2e/study": 438, "tribunal-e2e/newcomer_browser": 318,
    "tribunal-worker/tribunal_worker": 215, "tribunal-e2e/programs_browser": 175,
    "tribunal-e2e/serving": 72, "tribunal-e2e/browser": 133, "tribunal/statistics": 129,
    "tribunal-e2e/load": 127, "tribunal-e2e/reliability_browser": 119, "tribunal/tribunal": 100,
    "tribunal-e2e/programs_cli": 55, "tribunal-e2e/calibrate_browser": 60,
}
# A binary neither measured here nor in the table: an end-to-end test of middling length.
UNKNOWN = 120
DOC = "doc tests"
# `cargo test` options that pick targets, which `--doc` refuses beside it.
PICKS_TARGETS = {"--test", "--tests", "--lib", "--bin", "--bins", "--example", "--examples", "--bench",
                 "--benches", "--all-targets"}


def cargo():
    return os.environ.get("CARGO", "cargo")


def test_binaries(args):
    """(key, source, package dir, package name, executable) of each test binary, built now."""
    build = subprocess.run([cargo(), "test", *args, "--no-run", "--message-format=json-render-diagnostics"],
                           stdout=subprocess.PIPE, text=True)
    if build.returncode != 0:
        print(f"run_tests: building the test binaries failed (cargo exit {build.returncode})", file=sys.stderr)
        sys.exit(build.returncode)
    out = build.stdout
    found = []
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable") or not msg["profile"]["test"]:
            continue
        target, manifest = msg["target"], pathlib.Path(msg["manifest_path"])
        package = package_name(manifest)
        source = os.path.relpath(target["src_path"], manifest.parent)
        found.append((f"{package}/{target['name']}", source, manifest.parent, package, msg["executable"]))
    return found


def package_name(manifest):
    """The `name` of the manifest's `[package]` table."""
    table = None
    for line in manifest.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            table = line
        elif table == "[package]" and line.startswith("name") and "=" in line:
            return line.split("=", 1)[1].strip().strip('"')
    return manifest.parent.name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("TRIBUNAL_TEST_JOBS", "2")))
    parser.add_argument("--times", default=str(pathlib.Path.home() / ".cache/tribunal/test-seconds.json"))
    parser.add_argument("cargo_args", nargs=argparse.REMAINDER)
    opts = parser.parse_args()
    rest = opts.cargo_args[1:] if opts.cargo_args[:1] == ["--"] else opts.cargo_args
    args, test_args = (rest[:rest.index("--")], rest[rest.index("--") + 1:]) if "--" in rest else (rest, [])
    # Only a whole binary's time, passed, is worth keeping for the next run's order.
    whole = not test_args
    if not any(a.startswith("--test-threads") for a in test_args):
        test_args.append("--test-threads=1")
    times_file = pathlib.Path(opts.times)
    try:
        last = json.loads(times_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        last = {}

    jobs = [(key, src, cwd, name, [exe, *test_args]) for key, src, cwd, name, exe in test_binaries(args)]
    if not PICKS_TARGETS.intersection(args):
        jobs.append((DOC, "", pathlib.Path.cwd(), "", [cargo(), "test", *args, "--doc", "--", *test_args]))
    jobs.sort(key=lambda j: -last.get(j[0], MEASURED.get(j[0], UNKNOWN)))

    lock, queue, seconds, passed, failed = threading.Lock(), list(jobs), {}, {}, []

    def run(job):
        key, src, cwd, name, command = job
        env = dict(os.environ)
        if name:
            env.update(CARGO_MANIFEST_DIR=str(cwd), CARGO_PKG_NAME=name, CARGO_CRATE_NAME=name.replace("-", "_"))
        start = time.monotonic()
        with tempfile.TemporaryFile() as log:
            child = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
            # wait4: this binary's CPU time, with that of the processes it waited for (its
            # workers, browsers, servers), apart from the other lane's.
            _, code, usage = os.wait4(child.pid, 0)
            child.returncode = status = os.waitstatus_to_exitcode(code)
            log.seek(0)
            text = log.read().decode("utf-8", "replace")
        took, cpu = time.monotonic() - start, usage.ru_utime + usage.ru_stime
        with lock:
            seconds[key] = round(took)
            if status != 0:
                failed.append(key)
            elif whole:
                passed[key] = seconds[key]
            header = "   Doc-tests (cargo test --doc)" if key == DOC else f"     Running {src} ({command[0]})"
            sys.stdout.write(f"{header}\n{text}[time] test binary {key}: wall {took:.0f} s, cpu {cpu:.0f} s, exit {status}\n")
            sys.stdout.flush()

    def lane():
        while True:
            with lock:
                if not queue:
                    return
                job = queue.pop(0)
            run(job)

    lanes = [threading.Thread(target=lane) for _ in range(max(1, opts.jobs))]
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()

    last.update(passed)
    try:
        times_file.parent.mkdir(parents=True, exist_ok=True)
        times_file.write_text(json.dumps(last, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as e:
        print(f"run_tests: could not record the times in {times_file}: {e}", file=sys.stderr)
    print(f"\ntest binaries, longest first (wall seconds, {opts.jobs} at a time):")
    for key, took in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {took:6d}  {key}{'  FAILED' if key in failed else ''}")
    if failed:
        print(f"failed: {', '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
