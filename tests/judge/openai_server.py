"""A small real HTTP server speaking the OpenAI chat-completions protocol, for tests and demos.

Scriptable: ``enqueue`` replies (content, HTTP status, delay, headers, raw garbage body, or a
dropped connection); once the queue is empty a default rule answers from the request. Every
request is recorded, and so is the largest number of requests in flight at once. Hostile
modes for the fault tests: a body trickled a byte at a time (``trickle``), sent chunked with
no length (``chunked``), and any status with any headers (a 307 with a ``Location``).

Run as a script for an end-to-end demo (stdlib only)::

    python tests/judge/openai_server.py --port 8765 --mode demo     # serve until Ctrl-C/SIGTERM
    python tests/judge/openai_server.py --port 8765 --wait-ready    # exit 0 once it answers

``demo`` answers like a reasonable judge by comparing the gt and pred text of the row it is
sent; ``flaky`` does the same but fails about one call in five with a 429 or a 500.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import signal
import sys
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer of the server."""

    content: str | None = "{ score: 1 }"
    status: int = 200
    finish_reason: str = "stop"
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # sent verbatim instead of a chat completion (garbage replies)
    drop: bool = False  # close the connection without answering
    trickle: float = 0.0  # seconds between bytes of the body (a slow-drip server)
    chunked: bool = False  # no Content-Length: the body is sent with chunked encoding
    usage: tuple[int, int] | None = (120, 6)


@dataclass
class Recorded:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    received_at: float

    @property
    def user_text(self) -> str:
        """The content of the last user message."""
        messages = (self.body or {}).get("messages", [])
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        return str(users[-1]) if users else ""


Rule = Callable[[Recorded], Reply]


class OpenAIServer:
    """A threaded OpenAI-compatible server on 127.0.0.1; use as a context manager."""

    def __init__(self, default: Rule | None = None, host: str = "127.0.0.1", port: int = 0):
        self.default: Rule = default or demo_rule
        self.requests: list[Recorded] = []
        self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Reply | str | int) -> None:
        """Queue replies, answered in order: a str is the content, an int an HTTP status."""
        with self._lock:
            for r in replies:
                if isinstance(r, str):
                    r = Reply(content=r)
                elif isinstance(r, int):
                    r = Reply(status=r)
                self._queue.append(r)

    def start(self) -> OpenAIServer:
        # A short poll interval so stop() returns at once (tests start many servers).
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a scripted delay
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (script mode)."""
        try:
            self._httpd.serve_forever(poll_interval=0.1)
        finally:
            self._httpd.server_close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_reply(self, rec: Recorded) -> Reply:
        with self._lock:
            self.requests.append(rec)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            scripted = self._queue.popleft() if self._queue else None
        return scripted if scripted is not None else self.default(rec)

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1


def completion(reply: Reply, model: str) -> dict[str, Any]:
    """A chat.completion object carrying the reply."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
    }
    if reply.usage is not None:
        p, c = reply.usage
        body["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return body


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like a real endpoint

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, json.dumps({"object": "list", "data": []}).encode(), {})
            else:
                self._send(404, b'{"error": {"message": "not found"}}', {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            rec = Recorded(self.path, dict(self.headers.items()), body, time.monotonic())
            reply = server._next_reply(rec)
            try:
                self._answer(rec, reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer
            finally:
                server._done()

        def _answer(self, rec: Recorded, reply: Reply) -> None:
            if reply.delay and server._stopping.wait(reply.delay):
                return
            if reply.drop:
                self.close_connection = True
                return
            if not rec.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, b'{"error": {"message": "not found"}}', {})
                return
            if reply.body is not None:
                payload = reply.body
            elif reply.status != 200:
                err = {"message": f"scripted status {reply.status}", "type": "server_error"}
                payload = json.dumps({"error": err}).encode()
            else:
                model = str((rec.body or {}).get("model", "test-model"))
                payload = json.dumps(completion(reply, model)).encode()
            self._send(reply.status, payload, reply.headers, reply.trickle, reply.chunked)

        def _send(
            self,
            status: int,
            payload: bytes,
            headers: dict[str, str],
            trickle: float = 0.0,
            chunked: bool = False,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(len(payload)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            if chunked:
                step = 64 * 1024
                for i in range(0, len(payload), step):
                    part = payload[i : i + step]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.write(b"0\r\n\r\n")
            elif trickle:
                for i in range(len(payload)):
                    self.wfile.write(payload[i : i + 1])
                    self.wfile.flush()
                    if server._stopping.wait(trickle):
                        return
            else:
                self.wfile.write(payload)

    return Handler


# ---- the demo judge -------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "is", "are", "it", "in", "of", "on", "this", "image", "shows", "answer"}
_CUES = {"both": "both", "bilateral": "both", "neither": "none", "none": "none"}


def _row_from_prompt(text: str) -> tuple[str, str]:
    """(gt, pred) from a rendered prompt: the appended JSON row, or the Equivalence tags."""
    tags = {
        k: re.search(rf"<{k}>\n?(.*?)\n?</{k}>", text, re.S)
        for k in ("correct_answer", "predicted_answer")
    }
    if tags["correct_answer"] and tags["predicted_answer"]:
        return tags["correct_answer"].group(1), tags["predicted_answer"].group(1)
    start = text.rfind('{"question"')
    if start >= 0:
        try:
            row, _ = json.JSONDecoder().raw_decode(text[start:])
            return str(row.get("gt", "")), str(row.get("pred", ""))
        except ValueError:
            pass
    return "", ""


def demo_score(gt: str, pred: str) -> float:
    """A crude but reasonable two-option judgement from the words of gt and pred."""
    g = set(_WORD.findall(gt.lower())) - _STOP
    p = set(_WORD.findall(pred.lower())) - _STOP
    g_cue = next((_CUES[w] for w in sorted(g) if w in _CUES), None)
    p_cue = next((_CUES[w] for w in sorted(p) if w in _CUES), None)
    if g_cue or p_cue:
        if g_cue == p_cue:
            return 1.0
        return 0.0 if g_cue and p_cue else 0.5  # both vs none is wrong; one option is half
    return 1.0 if g and g <= p else 0.0


def demo_rule(rec: Recorded) -> Reply:
    """Answer in the format the prompt asks for, scoring the row with ``demo_score``."""
    text = "\n".join(str(m.get("content", "")) for m in (rec.body or {}).get("messages", []))
    s = demo_score(*_row_from_prompt(text))
    if "Equivalence" in text:
        return Reply(content=str(round(s * 5)))
    value = f"{s:g}"
    key = "mistralscore" if "mistralscore" in text else "score"
    return Reply(content=f"{{ {key}: {value} }}")


def flaky_rule(rec: Recorded) -> Reply:
    """``demo_rule``, but about one call in five fails with a 429 or a 500."""
    roll = random.random()
    if roll < 0.1:
        return Reply(status=429, headers={"Retry-After": "1"})
    if roll < 0.2:
        return Reply(status=500)
    return demo_rule(rec)


def wait_ready(host: str, port: int, timeout: float) -> bool:
    """Poll ``GET /v1/models`` until the server answers or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/v1/models", timeout=1):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--mode", choices=["demo", "flaky"], default="demo")
    ap.add_argument(
        "--wait-ready",
        action="store_true",
        help="do not serve: wait until a server answers on --host/--port (exit 1 on timeout)",
    )
    ap.add_argument("--timeout", type=float, default=10.0, help="for --wait-ready, seconds")
    args = ap.parse_args(argv)
    if args.wait_ready:
        return 0 if wait_ready(args.host, args.port, args.timeout) else 1
    rule = demo_rule if args.mode == "demo" else flaky_rule
    server = OpenAIServer(rule, host=args.host, port=args.port)
    # SIGTERM (e.g. `kill` from a Makefile) should shut down as cleanly as Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"openai_server: {args.mode} judge on http://{args.host}:{server.port}/v1", flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
