"""The local OpenAI server, plus the Batch API: ``/v1/files`` and ``/v1/batches``.

Extends :class:`openai_server.OpenAIServer` (chat completions stay as they are). A batch
moves ``validating -> in_progress -> completed`` one step per ``GET /v1/batches/{id}``
(``polls_to_complete`` GETs in all); on completion every request line is answered by the
server's reply rule (the same as for live calls) into an output file, failures (a non-200
``Reply``) into an error file. ``batch_status`` forces a terminal status (``failed``,
``expired``) to test those paths. Every upload and batch is kept for inspection.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from openai_server import OpenAIServer, Recorded, Rule, completion

_ids = itertools.count(1)


@dataclass
class StoredFile:
    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def obj(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class StoredBatch:
    id: str
    input_file_id: str
    endpoint: str
    metadata: dict[str, str] | None
    status: str = "validating"
    polls: int = 0
    total: int = 0
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    created_at: int = field(default_factory=lambda: int(time.time()))

    def obj(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "created_at": self.created_at,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "metadata": self.metadata,
            "request_counts": {
                "total": self.total,
                "completed": self.completed,
                "failed": self.failed,
            },
        }
        if self.status == "failed":
            body["errors"] = {
                "object": "list",
                "data": [{"code": "scripted", "message": "scripted failure"}],
            }
        return body


class BatchServer(OpenAIServer):
    """OpenAIServer with the files and batches endpoints; use as a context manager."""

    def __init__(self, default: Rule | None = None, *, polls_to_complete: int = 2) -> None:
        super().__init__(default)
        self.polls_to_complete = polls_to_complete
        self.batch_status: str | None = None  # force a terminal status, e.g. "failed"
        self.files: dict[str, StoredFile] = {}
        self.batches: dict[str, StoredBatch] = {}
        self.batch_lock = threading.RLock()
        base = self._httpd.RequestHandlerClass
        self._httpd.RequestHandlerClass = _batch_handler(self, base)  # type: ignore[assignment]

    # -- the batch machinery ---------------------------------------------------------------
    def upload(self, filename: str, purpose: str, content: bytes) -> StoredFile:
        f = StoredFile(f"file-{next(_ids)}", filename, purpose, content)
        with self.batch_lock:
            self.files[f.id] = f
        return f

    def create_batch(self, body: dict[str, Any]) -> StoredBatch | None:
        if body.get("input_file_id") not in self.files:
            return None
        b = StoredBatch(
            f"batch_{next(_ids)}", body["input_file_id"], body["endpoint"], body.get("metadata")
        )
        b.total = len(self.files[b.input_file_id].content.splitlines())
        with self.batch_lock:
            self.batches[b.id] = b
        return b

    def poll(self, batch_id: str) -> StoredBatch | None:
        with self.batch_lock:
            b = self.batches.get(batch_id)
            if b is None or b.status in ("completed", "failed", "expired", "cancelled"):
                return b
            b.polls += 1
            if self.batch_status is not None:
                b.status = self.batch_status
            elif b.polls >= self.polls_to_complete:
                self._run(b)
            else:
                b.status = "in_progress"
            return b

    def _run(self, b: StoredBatch) -> None:
        out: list[str] = []
        err: list[str] = []
        for n, line in enumerate(self.files[b.input_file_id].content.decode().splitlines()):
            request = json.loads(line)
            body = request["body"]
            rec = Recorded(request["url"], {}, body, time.monotonic())
            reply = self.default(rec)
            item: dict[str, Any] = {"id": f"batch_req_{n}", "custom_id": request["custom_id"]}
            if reply.status == 200:
                payload = completion(reply, str(body.get("model", "test-model")))
                item.update(
                    response={"status_code": 200, "request_id": f"req_{n}", "body": payload},
                    error=None,
                )
                out.append(json.dumps(item))
            else:
                error = {"message": f"scripted status {reply.status}", "type": "server_error"}
                item.update(
                    response={
                        "status_code": reply.status,
                        "request_id": f"req_{n}",
                        "body": {"error": error},
                    },
                    error=None,
                )
                err.append(json.dumps(item))
        b.completed, b.failed = len(out), len(err)
        if out:
            b.output_file_id = self.upload(
                "output.jsonl", "batch_output", "\n".join(out).encode() + b"\n"
            ).id
        if err:
            b.error_file_id = self.upload(
                "errors.jsonl", "batch_output", "\n".join(err).encode() + b"\n"
            ).id
        b.status = "completed"


def _multipart(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """Form fields of a multipart body: name -> (filename, bytes)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in msg.iter_parts():  # type: ignore[attr-defined]
        name = part.get_param("name", header="content-disposition")
        fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


def _batch_handler(
    server: BatchServer, base: type[BaseHTTPRequestHandler]
) -> type[BaseHTTPRequestHandler]:
    class Handler(base):  # type: ignore[valid-type,misc]
        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            parts = path.split("/")
            if "/v1/files/" in path and path.endswith("/content"):
                f = server.files.get(parts[-2])
                if f is None:
                    return self._json(404, {"error": {"message": "no such file"}})
                return self._raw(200, f.content, "application/octet-stream")
            if "/v1/files/" in path:
                f = server.files.get(parts[-1])
                return (
                    self._json(200, f.obj())
                    if f
                    else self._json(404, {"error": {"message": "no such file"}})
                )
            if "/v1/batches/" in path:
                b = server.poll(parts[-1])
                return (
                    self._json(200, b.obj())
                    if b
                    else self._json(404, {"error": {"message": "no such batch"}})
                )
            return super().do_GET()

        def do_POST(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if not (path.endswith("/v1/files") or path.endswith("/v1/batches")):
                return super().do_POST()
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if path.endswith("/v1/files"):
                form = _multipart(self.headers.get("Content-Type", ""), raw)
                filename, content = form.get("file", (None, b""))
                purpose = form.get("purpose", (None, b""))[1].decode()
                if not content or purpose != "batch":
                    return self._json(400, {"error": {"message": "need a file with purpose batch"}})
                return self._json(
                    200, server.upload(filename or "upload.jsonl", purpose, content).obj()
                )
            b = server.create_batch(json.loads(raw or b"{}"))
            if b is None:
                return self._json(400, {"error": {"message": "unknown input_file_id"}})
            return self._json(200, b.obj())

        def _json(self, status: int, body: dict[str, Any]) -> None:
            self._raw(status, json.dumps(body).encode(), "application/json")

        def _raw(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler
