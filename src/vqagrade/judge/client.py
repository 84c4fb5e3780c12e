"""One call to an OpenAI-compatible chat endpoint, with every fault turned into a name.

The openai package is imported here, lazily, so that grading without a judge never loads it.
Its own retries are off (``max_retries=0``): retries are ours, so they can be counted, logged
and bounded. Fault names, recorded as a verdict's ``error``:

===========================  ===========================================  =========
name                         cause                                        retried
===========================  ===========================================  =========
``judge_timeout``            no whole reply within the timeout            yes
``judge_connection``         connection refused, reset or dropped         yes
``judge_http_<status>``      HTTP error status (429, 500, 401, ...)       408, 409,
                                                                          429, 5xx
``judge_redirect``           a 3xx: redirects are never followed          no
``judge_too_large``          a reply body over ``MAX_REPLY_BYTES``        no
``judge_invalid_response``   a body that is not a chat completion         yes
``judge_truncated``          ``finish_reason == "length"``                yes (*)
``judge_unparseable``        no score the prompt offers in the reply      yes (*)
``judge_ambiguous``          different scores in one reply                yes (*)
===========================  ===========================================  =========

(*) at most ``reply_retries`` times, counted within ``max_retries``.

The timeout bounds each attempt as a whole (connect, send, every byte of the reply), not
each socket read: a server trickling bytes is cut off at the deadline. Redirects are not
followed, so the rows only ever go to the configured endpoint.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..errors import JudgeError
from .untrusted import MAX_REPLY_BYTES

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# Local servers (vLLM, llama.cpp, Ollama) ignore the key, but the client insists on one.
NO_KEY_PLACEHOLDER = "not-needed"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = {408, 409, 429}


@dataclass(frozen=True)
class Outcome:
    """What one HTTP attempt produced: a reply, or a named fault."""

    content: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None
    retryable: bool = False
    retry_after: float | None = None


class Secret:
    """A string that keeps itself out of reprs, logs and tracebacks that show locals."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


def resolve_api_key(env_name: str, base_url: str | None) -> Secret:
    """The API key from the environment, or a placeholder for a local endpoint.

    Raises:
        JudgeError: no key is set and no base_url points at a server that may need none.
    """
    key = os.environ.get(env_name, "").strip()
    if key:
        return Secret(key)
    if base_url:
        return Secret(NO_KEY_PLACEHOLDER)
    raise JudgeError(
        f"the LLM judge needs an API key: set the {env_name} environment variable, "
        "or give a base_url for a local server that needs none"
    )


def resolve_base_url(base_url: str | None) -> str:
    """The endpoint requests go to: ``base_url``, else ``OPENAI_BASE_URL``, else OpenAI's."""
    return (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")


def endpoint_id(base_url: str) -> str:
    """The endpoint as it enters cache keys: scheme, host, port and path; no credentials."""
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{host}{port}{parts.path.rstrip('/')}"


def make_client(api_key: Secret, base_url: str | None, timeout: float) -> AsyncOpenAI:
    """An AsyncOpenAI client that never retries by itself and never follows a redirect."""
    import openai

    http = openai.DefaultAsyncHttpxClient(timeout=timeout, follow_redirects=False)
    return openai.AsyncOpenAI(
        api_key=api_key.reveal(),
        base_url=resolve_base_url(base_url),
        timeout=timeout,
        max_retries=0,
        http_client=http,
    )


def preflight(api_key: Secret, base_url: str | None, timeout: float) -> str | None:
    """Ask ``GET /models`` once; why the endpoint cannot serve a run, or None when it can.

    Unreachable, timed out, a redirect, or a refused key (401/403) is a problem; any other
    answer is not (some servers do not implement ``/models``, and the run's own calls will
    say more).
    """
    import openai

    url = resolve_base_url(base_url)
    http = openai.DefaultHttpxClient(timeout=timeout, follow_redirects=False)
    client = openai.OpenAI(
        api_key=api_key.reveal(), base_url=url, timeout=timeout, max_retries=0, http_client=http
    )
    try:
        client.models.list()
    except openai.APITimeoutError:
        return f"the judge at {url} did not answer within {timeout:g} s"
    except openai.APIConnectionError as exc:
        cause = exc.__cause__ or exc
        return f"cannot reach the judge at {url}: {type(cause).__name__}: {cause}"
    except openai.APIStatusError as exc:
        status = exc.status_code
        if status in (401, 403):
            return f"the judge at {url} refused the API key (HTTP {status})"
        if 300 <= status < 400:
            return f"the judge at {url} redirects (HTTP {status}); give the final URL"
    finally:
        client.close()
    return None


async def call(
    client: AsyncOpenAI,
    model: str,
    messages: list[dict[str, str]],
    params: Mapping[str, Any],
    *,
    deadline: float,
    max_bytes: int = MAX_REPLY_BYTES,
) -> Outcome:
    """Send one chat completion request; faults come back as an ``Outcome``, never raised.

    Args:
        deadline: seconds for the whole attempt, from connecting to the reply's last byte.
        max_bytes: a larger reply body is ``judge_too_large``; reading stops there.
    """
    try:
        return await asyncio.wait_for(_call(client, model, messages, params, max_bytes), deadline)
    except asyncio.TimeoutError:
        return Outcome(error="judge_timeout", retryable=True)


async def _call(
    client: AsyncOpenAI,
    model: str,
    messages: list[dict[str, str]],
    params: Mapping[str, Any],
    max_bytes: int,
) -> Outcome:
    import openai

    too_large = Outcome(error="judge_too_large")
    try:
        create = client.chat.completions.with_streaming_response.create
        async with create(model=model, messages=cast(Any, messages), **params) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                return too_large
            body = bytearray()
            async for chunk in response.iter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    return too_large
    except openai.APITimeoutError:  # before APIConnectionError: it is a subclass
        return Outcome(error="judge_timeout", retryable=True)
    except openai.APIConnectionError:
        return Outcome(error="judge_connection", retryable=True)
    except openai.APIStatusError as exc:
        status = exc.status_code
        if 300 <= status < 400:
            return Outcome(error="judge_redirect")
        return Outcome(
            error=f"judge_http_{status}",
            retryable=status in _RETRY_STATUS or status >= 500,
            retry_after=retry_after(exc.response.headers),
        )
    return read_completion(bytes(body))


def read_completion(body: bytes) -> Outcome:
    """The reply carried by a chat.completion body, or ``judge_invalid_response``."""
    invalid = Outcome(error="judge_invalid_response", retryable=True)
    try:
        completion = json.loads(body)
        choice = completion["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return invalid
    if not isinstance(choice, dict) or not (content is None or isinstance(content, str)):
        return invalid
    usage = completion.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    reason = choice.get("finish_reason")
    return Outcome(
        content=content,
        finish_reason=reason if isinstance(reason, str) else None,
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
    )


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait as the server asks (``retry-after-ms``, ``Retry-After``), if it does."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)  # the HTTP-date form
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_delay(retry: int, base: float, cap: float, server_asks: float | None) -> float:
    """Seconds before retry number ``retry`` (0-based): the server's wish, else backoff.

    Exponential backoff with "equal jitter" (half fixed, half random) so that many workers
    hit by the same 429 do not come back in lockstep.
    """
    if server_asks is not None:
        return min(server_asks, cap)
    step = min(cap, base * 2.0**retry)
    return step / 2 + random.uniform(0, step / 2)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
