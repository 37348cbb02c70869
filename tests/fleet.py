"""A stand-in for an inference fleet behind an OpenAI-compatible server, for the scale-out and
fault-injection tests: no GPU fleet can exist on the test machine, so this answers
`POST /v1/chat/completions` after a fixed service time (`--latency-ms`, the fleet's per-request
time) with a deterministic verdict — `A` or `B` and its p_s from the SHA-256 of the messages —
in the relative prompt's format (`Feedback: … [RESULT] X`), with per-token `logprobs` and
`top_logprobs` as OpenAI's API returns them. `GET /stats` counts the requests and the distinct
prompts answered since the last `POST /reset`, so a test can check that each judgment was asked
for exactly once, and the most requests that were in flight at one time. After `POST /hold`,
every chat request waits for `POST /release` (then the service time), so a test can act while a
run certainly waits on the fleet. Prints `listening on PORT` once ready.
"""

import argparse
import hashlib
import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SEEN = {}
FLIGHT = {"now": 0, "max": 0}
# Cleared by `POST /hold`, set again by `POST /release`.
RELEASED = threading.Event()
RELEASED.set()


def verdict(messages):
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    label = "A" if digest[0] % 2 == 0 else "B"
    p = 0.55 + 0.4 * digest[1] / 255
    return label, p


def answer(body):
    label, p = verdict(body["messages"])
    other = "B" if label == "A" else "A"
    pieces = ["Feedback", ":", " Response", f" {label}", " is", " better", ".", " [RESULT]"]
    tokens = [{"token": t, "logprob": -0.01, "top_logprobs": [{"token": t, "logprob": -0.01}]}
              for t in pieces]
    tokens.append({
        "token": f" {label}",
        "logprob": math.log(p),
        "top_logprobs": [
            {"token": f" {label}", "logprob": math.log(p)},
            {"token": f" {other}", "logprob": math.log(1 - p)},
        ],
    })
    text = "".join(t["token"] for t in tokens)
    return {
        "id": "stand-in",
        "object": "chat.completion",
        "model": body.get("model", ""),
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "logprobs": {"content": tokens} if body.get("logprobs") else None,
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": sum(len(m["content"].split()) for m in body["messages"]),
                  "completion_tokens": len(tokens)},
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    latency = 0.0

    def send(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        try:
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The fault-injection tests kill clients mid-request.
            self.close_connection = True

    def do_GET(self):
        if self.path == "/stats":
            with LOCK:
                self.send(200, {"requests": sum(SEEN.values()), "distinct": len(SEEN),
                                "repeated": sum(1 for n in SEEN.values() if n > 1),
                                "max_in_flight": FLIGHT["max"]})
        else:
            self.send(404, {"error": {"message": "not found"}})

    def do_POST(self):
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        except ValueError:
            # A client killed mid-request leaves a truncated body.
            self.send(400, {"error": {"message": "the body is not JSON"}})
            return
        if self.path in ("/hold", "/release"):
            (RELEASED.clear if self.path == "/hold" else RELEASED.set)()
            self.send(200, {})
            return
        if self.path == "/reset":
            with LOCK:
                SEEN.clear()
                FLIGHT["max"] = FLIGHT["now"]
            self.send(200, {})
            return
        if self.path != "/v1/chat/completions":
            self.send(404, {"error": {"message": "not found"}})
            return
        with LOCK:
            FLIGHT["now"] += 1
            FLIGHT["max"] = max(FLIGHT["max"], FLIGHT["now"])
        RELEASED.wait()
        time.sleep(self.latency)
        with LOCK:
            FLIGHT["now"] -= 1
        key = hashlib.sha256(json.dumps(body["messages"], sort_keys=True).encode()).hexdigest()
        with LOCK:
            SEEN[key] = SEEN.get(key, 0) + 1
        self.send(200, answer(body))

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=8.0)
    args = parser.parse_args()
    Handler.latency = args.latency_ms / 1000
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
