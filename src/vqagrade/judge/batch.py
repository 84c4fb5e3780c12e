"""The OpenAI Batch API for the judge's residue: half the price, a 24-hour window, resumable.

Steps, each its own function so that a run can stop after any of them and resume by batch id:

1. :func:`write_requests` - one chat-completions request per distinct, uncached row, as the
   Batch API's JSON lines; the ``custom_id`` is the row's cache key.
2. :func:`submit` - upload the file (``/v1/files``, purpose ``batch``) and create the batch
   (``/v1/batches``); the model and prompt ride along in the batch's metadata.
3. :func:`status` / :func:`wait` - poll ``/v1/batches/{id}``.
4. :func:`collect` - download the output file, read each reply with the prompt's strict
   parser and store scored ones in the judge cache, under their ``custom_id``.

Replies are read as the live judge reads them: copies of the row's texts removed, different
scores in one reply ``judge_ambiguous``, a reply over ``MAX_REPLY_BYTES`` refused, the key
redacted and the text clipped. The row of each request is kept in the cache at step 1, so
collect into the same cache the batch was submitted from; a reply whose row that cache does
not hold is ``judge_unknown_row`` and is not cached.

After collecting, grading with the same judge settings finds every judged row in the cache and
calls nobody. Collecting needs only the batch id (and the endpoint and cache), so
``vqagrade batch collect ID`` works from another shell or another day. A reply that failed,
was cut off or carries no valid score is not cached: the next live run asks again.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, Field

from ..errors import JudgeError
from .cache import Cache, Entry, default_cache_path
from .client import NO_KEY_PLACEHOLDER, resolve_api_key, resolve_base_url
from .parse import read_reply
from .prompts import load_prompt
from .records import JudgeRequest
from .untrusted import MAX_REPLY_BYTES, Redactor, clip

if TYPE_CHECKING:
    from openai import OpenAI

    from . import Judge

__all__ = [
    "BatchCollect",
    "BatchStatus",
    "collect",
    "run_batch",
    "status",
    "submit",
    "wait",
    "write_requests",
]

ENDPOINT: Final = "/v1/chat/completions"
MAX_REQUESTS = 50_000  # the Batch API's limit per input file
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
_META_TAG = "vqagrade"


class BatchStatus(BaseModel):
    """Where a batch stands."""

    id: str
    status: str = Field(description="validating, in_progress, finalizing, completed, failed, ...")
    total: int = 0
    completed: int = 0
    failed: int = 0
    model: str | None = Field(default=None, description="the judge model (from its metadata)")
    prompt: str | None = Field(default=None, description="the judge prompt (from its metadata)")
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[str] = Field(default_factory=list, description="why a batch failed, if it did")

    @property
    def done(self) -> bool:
        """The batch will not change any more."""
        return self.status in TERMINAL

    def render(self) -> str:
        """One line for a person."""
        line = f"batch {self.id}: {self.status}, {self.completed}/{self.total} done"
        if self.failed:
            line += f", {self.failed} failed"
        if self.errors:
            line += f" ({'; '.join(self.errors)})"
        return line


class BatchCollect(BaseModel):
    """What collecting a batch stored in the cache."""

    id: str
    status: str
    replies: int = Field(default=0, description="lines in the output and error files")
    cached: int = Field(default=0, description="scored replies stored in the cache")
    errors: dict[str, int] = Field(default_factory=dict, description="replies not cached, by fault")

    def render(self) -> str:
        """One line for a person."""
        faults = ", ".join(f"{k} {v}" for k, v in sorted(self.errors.items())) or "none"
        return (
            f"batch {self.id}: {self.status}; {self.replies} replies, {self.cached} cached, "
            f"not cached: {faults}"
        )


# ---- the client ----------------------------------------------------------------------------------


def make_sync_client(
    base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY", timeout: float = 60.0
) -> OpenAI:
    """A synchronous OpenAI client for the files and batches endpoints.

    Raises:
        JudgeError: no API key is set and no base_url is given.
    """
    import openai

    key = resolve_api_key(api_key_env, base_url)
    http_class: Any = openai.DefaultHttpxClient
    try:  # the SDK's own class, which closes its connections when collected
        from openai._base_client import SyncHttpxClientWrapper

        http_class = SyncHttpxClientWrapper
    except ImportError:  # pragma: no cover - other SDK versions
        pass
    # Redirects are not followed: the requests (with the rows) only go to the endpoint given.
    http = http_class(timeout=timeout, follow_redirects=False)
    # A few retries of the client's own: these are rare, idempotent-enough management calls.
    return openai.OpenAI(
        api_key=key.reveal(),
        base_url=resolve_base_url(base_url),
        timeout=timeout,
        max_retries=2,
        http_client=http,
    )


def _client_for(judge: Judge) -> OpenAI:
    c = judge.config
    return make_sync_client(c.base_url, c.api_key_env, c.timeout)


def _api_error(action: str, exc: Exception, client: OpenAI) -> JudgeError:
    # The server's error text is untrusted: it may echo the key back.
    status = getattr(exc, "status_code", None)
    why = f"HTTP {status}" if status else type(exc).__name__
    return JudgeError(_redactor(client)(f"Batch API: cannot {action} ({why}: {exc})"))


# ---- 1. requests ---------------------------------------------------------------------------------


def write_requests(judge: Judge, requests: Sequence[JudgeRequest], path: Path) -> int:
    """Write the Batch API input for the requests the cache cannot answer; returns how many.

    Identical rows become one request; each line's ``custom_id`` is the row's cache key.

    Args:
        judge: the configured judge (model, prompt, parameters, cache).
        requests: the rows to judge.
        path: the JSON lines file to write.
    """
    seen: dict[str, JudgeRequest] = {}
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for r in requests:
            key = judge.key(r)
            if key in seen or judge.lookup(r) is not None:
                continue
            seen[key] = r
            line = {
                "custom_id": key,
                "method": "POST",
                "url": ENDPOINT,
                "body": judge.request_body(r),
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            n += 1
    judge.remember_batch_rows(seen)
    return n


# ---- 2. submit -----------------------------------------------------------------------------------


def submit(
    judge: Judge,
    requests: Sequence[JudgeRequest],
    *,
    workdir: Path | None = None,
    max_requests: int = MAX_REQUESTS,
    client: OpenAI | None = None,
) -> list[BatchStatus]:
    """Send the uncached rows as Batch API jobs; one batch per ``max_requests`` requests.

    Returns the created batches (none when the cache answers every row). The request files
    are kept in ``workdir`` when given, else written to a temporary folder and removed.

    Args:
        judge: the configured judge.
        requests: the rows to judge (duplicates and cached rows are not sent).
        workdir: where to keep the request files (``<n>.jsonl``).
        max_requests: requests per batch (the API allows 50,000).
        client: an OpenAI client (default: one for the judge's endpoint).

    Raises:
        JudgeError: an upload or batch creation failed.
    """
    client = client or _client_for(judge)
    with tempfile.TemporaryDirectory(prefix="vqagrade-batch-") as tmp:
        folder = workdir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        batches: list[BatchStatus] = []
        for i, part in enumerate(_parts(requests, max_requests)):
            path = folder / f"requests-{i:03d}.jsonl"
            if write_requests(judge, part, path) == 0:
                continue
            batches.append(_create(judge, client, path))
    return batches


def _parts(requests: Sequence[JudgeRequest], size: int) -> Iterator[Sequence[JudgeRequest]]:
    for start in range(0, len(requests), size):
        yield requests[start : start + size]


def _create(judge: Judge, client: OpenAI, path: Path) -> BatchStatus:
    import openai

    meta = {
        "tool": _META_TAG,
        "model": judge.config.model,
        "prompt": judge.prompt.name,
    }
    try:
        with open(path, "rb") as f:
            uploaded = client.files.create(file=(path.name, f), purpose="batch")
    except openai.OpenAIError as exc:
        raise _api_error("upload the requests", exc, client) from None
    try:
        batch = client.batches.create(
            input_file_id=uploaded.id,
            endpoint=ENDPOINT,
            completion_window="24h",
            metadata=meta,
        )
    except openai.OpenAIError as exc:
        raise _api_error("create the batch", exc, client) from None
    return _status(batch)


# ---- 3. status -----------------------------------------------------------------------------------


def _status(batch: Any) -> BatchStatus:
    counts = getattr(batch, "request_counts", None)
    meta = getattr(batch, "metadata", None) or {}
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    return BatchStatus(
        id=batch.id,
        status=batch.status,
        total=getattr(counts, "total", 0) or 0,
        completed=getattr(counts, "completed", 0) or 0,
        failed=getattr(counts, "failed", 0) or 0,
        model=meta.get("model"),
        prompt=meta.get("prompt"),
        output_file_id=batch.output_file_id,
        error_file_id=batch.error_file_id,
        errors=[str(getattr(e, "message", None) or getattr(e, "code", None) or e) for e in errors],
    )


def status(batch_id: str, *, client: OpenAI | None = None, **client_args: Any) -> BatchStatus:
    """Where the batch ``batch_id`` stands.

    Args:
        batch_id: the id :func:`submit` returned.
        client: an OpenAI client; default: :func:`make_sync_client` with ``client_args``
            (``base_url``, ``api_key_env``, ``timeout``).

    Raises:
        JudgeError: the batch cannot be fetched (unknown id, endpoint down, no key).
    """
    import openai

    client = client or make_sync_client(**client_args)
    try:
        return _status(client.batches.retrieve(batch_id))
    except openai.OpenAIError as exc:
        raise _api_error(f"fetch batch {batch_id}", exc, client) from None


def wait(
    batch_id: str,
    *,
    poll_interval: float = 30.0,
    timeout: float | None = None,
    on_status: Callable[[BatchStatus], None] | None = None,
    client: OpenAI | None = None,
    **client_args: Any,
) -> BatchStatus:
    """Poll until the batch is completed, failed, expired or cancelled (or ``timeout``).

    Returns the last status seen; it is not final when the timeout ran out.

    Args:
        batch_id: the batch to wait for.
        poll_interval: seconds between polls.
        timeout: give up after this many seconds (None: wait as long as it takes).
        on_status: called with every status polled (a progress line).
        client: as :func:`status`.
    """
    client = client or make_sync_client(**client_args)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        st = status(batch_id, client=client)
        if on_status is not None:
            on_status(st)
        if st.done or (deadline is not None and time.monotonic() >= deadline):
            return st
        time.sleep(poll_interval)


# ---- 4. collect ----------------------------------------------------------------------------------


def collect(
    batch_id: str,
    *,
    cache_path: Path | None = None,
    client: OpenAI | None = None,
    **client_args: Any,
) -> BatchCollect:
    """Store the scored replies of a finished batch in the judge cache.

    Safe to run twice (a reply is stored under its ``custom_id``, the row's cache key). A
    batch that is not finished yet stores nothing: see ``status`` in the result.

    Args:
        batch_id: the batch to collect.
        cache_path: the judge cache (default: the user cache dir).
        client: as :func:`status`.

    Raises:
        JudgeError: the batch or its files cannot be fetched, or it was not made by vqagrade.
    """
    client = client or make_sync_client(**client_args)
    st = status(batch_id, client=client)
    result = BatchCollect(id=st.id, status=st.status)
    if not st.done:
        return result
    if not st.prompt or not st.model:
        raise JudgeError(f"batch {batch_id} was not made by vqagrade (no model/prompt metadata)")
    prompt = load_prompt(st.prompt)
    reader = _Reader(st.model, prompt.name, prompt.allowed, _redactor(client))
    cache = Cache(cache_path or default_cache_path())
    try:
        for file_id in (st.output_file_id, st.error_file_id):
            if not file_id:
                continue
            for line in _download(client, file_id).splitlines():
                if not line.strip():
                    continue
                result.replies += 1
                fault = reader.ingest(line, cache)
                if fault is None:
                    result.cached += 1
                else:
                    result.errors[fault] = result.errors.get(fault, 0) + 1
    finally:
        cache.close()
    return result


def _redactor(client: OpenAI) -> Redactor:
    key = str(getattr(client, "api_key", "") or "")
    return Redactor("" if key == NO_KEY_PLACEHOLDER else key)


def _download(client: OpenAI, file_id: str) -> str:
    import openai

    try:
        return client.files.content(file_id).text
    except openai.OpenAIError as exc:
        raise _api_error(f"download file {file_id}", exc, client) from None


class _Reader:
    """Reads batch output lines into the cache, as strictly as the live judge reads replies."""

    def __init__(
        self, model: str, prompt: str, allowed: frozenset[float], redact: Redactor
    ) -> None:
        self.model, self.prompt, self.allowed, self.redact = model, prompt, allowed, redact

    def ingest(self, line: str, cache: Cache) -> str | None:
        """Cache one output line; None when stored, else the fault's name."""
        try:
            item = json.loads(line)
            custom_id = item["custom_id"]
        except (ValueError, KeyError, TypeError):
            return "judge_invalid_response"
        response = item.get("response") or {}
        code = response.get("status_code")
        if item.get("error") or code != 200:
            return f"judge_http_{code}" if code else "judge_batch_error"
        body = response.get("body") or {}
        try:
            choice = body["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return "judge_invalid_response"
        if not isinstance(content, str):
            return "judge_invalid_response"
        if len(content.encode("utf-8", "surrogatepass")) > MAX_REPLY_BYTES:
            return "judge_too_large"
        if choice.get("finish_reason") == "length":
            return "judge_truncated"
        row = cache.batch_row(str(custom_id))
        if row is None:
            return "judge_unknown_row"
        question, gt, pred = row
        score = read_reply(content, self.allowed, (pred, gt, question))
        if isinstance(score, str):
            return score
        usage = body.get("usage") or {}
        cache.put(
            str(custom_id),
            Entry(
                model=self.model,
                prompt=self.prompt,
                raw=clip(self.redact(content)),
                score=score,
                finish_reason=choice.get("finish_reason"),
                prompt_tokens=_int(usage.get("prompt_tokens")),
                completion_tokens=_int(usage.get("completion_tokens")),
                elapsed=0.0,
            ),
        )
        return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---- all of it -----------------------------------------------------------------------------------


def run_batch(
    judge: Judge,
    requests: Sequence[JudgeRequest],
    *,
    poll_interval: float = 30.0,
    timeout: float | None = None,
    on_status: Callable[[BatchStatus], None] | None = None,
    workdir: Path | None = None,
) -> list[BatchCollect]:
    """Submit, wait for and collect the batches for ``requests``; the cache then answers them.

    ``on_status`` sees each batch as soon as it is created (print its id: if this process is
    stopped, ``collect`` resumes from it) and at every poll.

    Args:
        judge: the configured judge (its cache receives the replies).
        requests: the rows to judge.
        poll_interval: seconds between polls.
        timeout: seconds to wait for each batch at most; an unfinished one is left running
            and reported with its status (collect it later).
        on_status: progress callback.
        workdir: keep the request files here.

    Raises:
        JudgeError: the judge has no cache (``use_cache=False``), or an API call failed.
    """
    if not judge.config.use_cache:
        raise JudgeError("the Batch API mode stores replies in the judge cache: enable it")
    client = _client_for(judge)
    created = submit(judge, requests, workdir=workdir, client=client)
    results = []
    for batch in created:
        if on_status is not None:
            on_status(batch)
        final = wait(
            batch.id, poll_interval=poll_interval, timeout=timeout, on_status=on_status,
            client=client,
        )  # fmt: skip
        if final.done:
            results.append(collect(batch.id, cache_path=_cache_path(judge), client=client))
        else:
            results.append(BatchCollect(id=final.id, status=final.status))
    return results


def _cache_path(judge: Judge) -> Path:
    return judge.config.cache_path or default_cache_path()
