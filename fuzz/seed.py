"""Writes the starting corpus of each fuzz target into corpus/<target>/ from the repository's
own inputs: every fixture CSV (its first 4 KiB) behind each decoder selector byte, typical
WebSocket messages both ways, judge answers of every prompt kind, well-formed and broken, and
the other tools' sample files (whole, cut short, with one byte changed) behind each reader's
selector byte.
Run once before the first `cargo fuzz run`; the committed corpus is what `cargo fuzz cmin` kept
after fuzzing from these seeds."""

import hashlib
import json
import pathlib

root = pathlib.Path(__file__).resolve().parent
repo = root.parent


def put(target, data):
    out = root / "corpus" / target
    out.mkdir(parents=True, exist_ok=True)
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


files = sorted(
    list((repo / "tests" / "fixtures").glob("*.csv"))
    + list((repo / "tests" / "data" / "llmfao").glob("*.csv"))
    + list((repo / "shared" / "tests" / "fixtures").glob("*.csv"))
)
for path in files:
    head = path.read_bytes()[:4096]
    for selector in range(16):
        put("csv_inputs", bytes([selector]) + head)
put("csv_inputs", bytes([7]) + b'{"id":"a","order":"ab","winner":"A","score_difference":0.5}\n')
put("csv_inputs", bytes([10]) + b"0.1,0.2,0.3\n0.4,0.5,0.6\n")

messages = [
    {"type": "start_demo", "seed": 7, "battles": 10, "interval_ms": 0},
    {"type": "watch", "stream": "run:abc:123", "after": 0},
    {"type": "hello", "server": "tribunal 0.1.0", "protocol": 1},
    {"type": "battle", "event_id": 3, "seq": 1, "total": 10, "model_a": "A", "model_b": "B", "y": 1.0},
    {"type": "done", "total": 10},
    {"type": "error", "message": "bad"},
    {"type": "run", "stream": "run:s", "event_id": 1, "seq": 1, "event": {"type": "started", "total": 6}},
    {"type": "run", "stream": "run:s", "event_id": 9, "seq": 9, "event": {"type": "finished", "judgments": 6, "parse_failures": 0, "seconds": 1.5}},
]
for m in messages:
    put("protocol", json.dumps({"v": 1, **m}).encode())
    put("protocol", json.dumps(m).encode())
put("protocol", b'{"v":1,"type":"watch","stream":"\\u0000","after":-1}')

answers = [
    "Feedback: Response A is better. [RESULT] A",
    "Feedback: clear and correct. [RESULT] 4",
    "Feedback: [RESULT] B extra text",
    "[RESULT]",
    "VERDICT: left",
    '{"analysis": "ok", "criteria": {"a": 1, "b": 0}, "label": "fail"}',
    '{"scores_a": {"Helpfulness": 7}, "scores_b": {"Helpfulness": 5}, "preference": "A"}',
    '{"preference": "',
    "Feedback:\n\n[RESULT] 5\n[RESULT] 1",
]
for a in answers:
    put("judge_output", a.encode())

readers = sorted((repo / "tests" / "data" / "readers").glob("*/*.json*"))
for path in readers:
    data = path.read_bytes()[:8192]
    for selector in (0, 1, 2, 3, 4, 0x81):
        put("readers", bytes([selector]) + data)
        put("readers", bytes([selector]) + data[: len(data) // 3])
        put("readers", bytes([selector]) + data[:100] + b"\xff" + data[101:])
for selector, kind in ((3, "inspect"), (4, "promptfoo")):
    for path in sorted((repo / "tests" / "data" / "readers" / kind).glob("*.json")):
        put("readers", bytes([selector]) + path.read_bytes())
