"""The LLM judge: the user's own prompts, sent to an OpenAI-compatible endpoint, cached.

Only rows the rules cannot settle come here. A failure is never a score: a request that
cannot be answered (timeout, HTTP error, unparseable or truncated reply) comes back as a
verdict with ``score=None`` and the fault in ``error``, after bounded retries.

Example::

    from vqagrade.judge import Judge, JudgeConfig, JudgeRequest

    with Judge(JudgeConfig(model="gpt-4o-mini")) as judge:
        verdicts = judge.judge_many([JudgeRequest(question=q, gt=gt, pred=pred)])
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..errors import JudgeError
from .cache import Cache, Entry, cache_clear, cache_key, cache_stats, default_cache_path
from .client import (
    NO_KEY_PLACEHOLDER,
    Outcome,
    backoff_delay,
    call,
    endpoint_id,
    make_client,
    preflight,
    resolve_api_key,
    resolve_base_url,
)
from .cost import MESSAGE_OVERHEAD_TOKENS, estimate_prompt_tokens
from .parse import parse_score, read_reply
from .prompts import Messages, PromptName, load_prompt
from .records import JudgeConfig, JudgePlan, JudgeRequest, JudgeStats, JudgeVerdict
from .untrusted import Redactor, clip

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = [
    "Judge",
    "JudgeConfig",
    "JudgePlan",
    "JudgeRequest",
    "JudgeStats",
    "JudgeVerdict",
    "PromptName",
    "cache_clear",
    "cache_stats",
    "default_cache_path",
    "estimate_prompt_tokens",
    "parse_score",
]

log = logging.getLogger(__name__)


class Judge:
    """Asks the configured LLM judge about rows, with retries, a concurrency bound and a cache.

    Args:
        config: endpoint, model, prompt and limits.

    Raises:
        JudgeError: unknown prompt, no API key (and no base_url), or an unusable cache file.
    """

    def __init__(self, config: JudgeConfig) -> None:
        self.config = config
        self.prompt = load_prompt(config.prompt)
        self._api_key = resolve_api_key(config.api_key_env, config.base_url)
        key = self._api_key.reveal()
        self._redactor = Redactor("" if key == NO_KEY_PLACEHOLDER else key)
        # Verdicts are per endpoint: two servers may serve different models under one name.
        self.endpoint = endpoint_id(resolve_base_url(config.base_url))
        self.stats = JudgeStats()
        self._params: dict[str, Any] = {config.token_param: config.max_completion_tokens}
        if config.temperature is not None:
            self._params["temperature"] = config.temperature
        self._cache: Cache | None = None
        if config.use_cache:
            path = config.cache_path or default_cache_path()
            try:
                self._cache = Cache(path)
            except (sqlite3.Error, OSError) as exc:
                raise JudgeError(f"cannot open the judge cache {path}: {exc}") from None

    def render(self, request: JudgeRequest) -> Messages:
        """The chat messages that would be sent for ``request``."""
        return self.prompt.render(request.question, request.gt, request.pred)

    def key(self, request: JudgeRequest) -> str:
        """The cache key of ``request`` (also its ``custom_id`` in a Batch API job)."""
        return self._key(request)

    def request_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The chat-completions request body a live call would send for ``request``."""
        return {"model": self.config.model, "messages": self.render(request), **self._params}

    def remember_batch_rows(self, requests: dict[str, JudgeRequest]) -> None:
        """Keep the rows of Batch API requests (by key), for reading their replies later."""
        if self._cache is not None:
            self._cache.put_batch_rows({k: (r.question, r.gt, r.pred) for k, r in requests.items()})

    def redact(self, text: str) -> str:
        """``text`` without the API key (or any 8+ characters of it) and bearer tokens."""
        return self._redactor(text)

    def lookup(self, request: JudgeRequest) -> JudgeVerdict | None:
        """The cached verdict for ``request``, without calling the judge."""
        if self._cache is None:
            return None
        entry = self._cache.get(self._key(request))
        return self._from_cache(entry) if entry else None

    def plan(self, requests: Sequence[JudgeRequest]) -> JudgePlan:
        """What judging ``requests`` would cost: cache hits, calls, estimated tokens."""
        keys = [self._key(r) for r in requests]
        cached = {k for k in set(keys) if self._cache and self._cache.get(k)}
        first = {k: r for k, r in zip(keys, requests, strict=True) if k not in cached}
        tokens = sum(
            estimate_prompt_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS
            for r in first.values()
            for m in self.render(r)
        )
        return JudgePlan(
            rows=len(keys),
            cached=sum(k in cached for k in keys),
            to_send=len(first),
            prompt_tokens=tokens,
            max_completion_tokens=len(first) * self.config.max_completion_tokens,
        )

    def preflight(self, timeout: float = 10.0) -> None:
        """One ``GET /models`` before a run, so an unreachable endpoint fails at once.

        Raises:
            JudgeError: the endpoint cannot be reached, times out, redirects, or refuses
                the key; the message is one line, with no secret in it.
        """
        problem = preflight(self._api_key, self.config.base_url, min(timeout, self.config.timeout))
        if problem:
            raise JudgeError(self._redact(" ".join(problem.split())))

    def judge_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict]:
        """Judge every request; one verdict per request, in order. Never raises per row."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ajudge_many(requests))
        # Called from inside a running loop (a notebook): run ours on a helper thread.
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.ajudge_many(requests)).result()

    async def ajudge_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict]:
        """Async ``judge_many``: identical rows share one call, cached rows make none."""
        groups: dict[str, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault(self._key(r), []).append(i)
        self.stats.requests += len(requests)
        self.stats.duplicates += len(requests) - len(groups)
        verdicts: list[JudgeVerdict | None] = [None] * len(requests)
        pending: list[tuple[str, list[int]]] = []
        for key, rows in groups.items():
            entry = self._cache.get(key) if self._cache else None
            if entry is None:
                pending.append((key, rows))
                continue
            self.stats.cache_hits += len(rows)
            for i in rows:
                verdicts[i] = self._from_cache(entry)
        if pending:
            limit = asyncio.Semaphore(self.config.concurrency)
            client = make_client(self._api_key, self.config.base_url, self.config.timeout)
            async with client:

                async def one(key: str, rows: list[int]) -> None:
                    async with limit:
                        verdict = await self._ask_safely(client, key, requests[rows[0]])
                    if verdict.error:
                        _bump(self.stats.errors, verdict.error, len(rows))
                    for i in rows:
                        verdicts[i] = verdict

                await asyncio.gather(*(one(key, rows) for key, rows in pending))
        lost = self._verdict(None, "judge_internal", None, None, 0, None, None)
        return [v if v is not None else lost for v in verdicts]

    def close(self) -> None:
        """Close the cache file."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- internals ----------------------------------------------------------------------

    def _key(self, r: JudgeRequest) -> str:
        c = self.config
        return cache_key(
            self.prompt.text, c.model, self._params, self.endpoint, r.question, r.gt, r.pred
        )

    def _from_cache(self, e: Entry) -> JudgeVerdict:
        return JudgeVerdict(
            score=e.score,
            error=None,
            raw=e.raw,
            model=e.model,
            prompt=e.prompt,
            cached=True,
            attempts=0,
            finish_reason=e.finish_reason,
            prompt_tokens=e.prompt_tokens,
            completion_tokens=e.completion_tokens,
        )

    async def _ask_safely(self, client: AsyncOpenAI, key: str, r: JudgeRequest) -> JudgeVerdict:
        try:
            return await self._ask(client, key, r)
        except Exception as exc:  # a bug of ours must not cost the whole batch its verdicts
            trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            log.error(
                "judge: unexpected failure; recorded as judge_internal\n%s", self._redact(trace)
            )
            return self._verdict(None, "judge_internal", None, None, 0, None, None)

    async def _ask(self, client: AsyncOpenAI, key: str, r: JudgeRequest) -> JudgeVerdict:
        cfg, stats = self.config, self.stats
        messages = self.render(r)
        started = time.monotonic()
        attempts = reply_failures = 0
        tokens: list[int | None] = [None, None]
        while True:
            attempts += 1
            stats.calls += 1
            out = await call(client, cfg.model, messages, self._params, deadline=cfg.timeout)
            tokens = [_add(tokens[0], out.prompt_tokens), _add(tokens[1], out.completion_tokens)]
            stats.prompt_tokens += out.prompt_tokens or 0
            stats.completion_tokens += out.completion_tokens or 0
            raw = None if out.content is None else clip(self._redact(out.content))
            result = self._read(out, r)
            if isinstance(result, float):
                verdict = self._verdict(result, None, raw, out, attempts, *tokens)
                self._store(key, verdict, time.monotonic() - started)
                return verdict
            fault = result
            _bump(stats.faults, fault)
            is_reply_fault = out.error is None
            retry = attempts <= cfg.max_retries and (
                reply_failures < cfg.reply_retries if is_reply_fault else out.retryable
            )
            if not retry:
                log.info("judge: %s after %d attempt(s)", fault, attempts)
                return self._verdict(None, fault, raw, out, attempts, *tokens)
            stats.retries += 1
            if is_reply_fault:
                reply_failures += 1  # asked again at once: the server is fine, the reply was not
                continue
            delay = backoff_delay(attempts - 1, cfg.backoff_base, cfg.backoff_max, out.retry_after)
            log.debug("judge: %s, retry %d in %.2fs", fault, attempts, delay)
            await asyncio.sleep(delay)

    def _read(self, out: Outcome, r: JudgeRequest) -> str | float:
        """The score an attempt carries, or the name of its fault."""
        if out.error:
            return out.error
        if out.finish_reason == "length":  # cut off: whatever it says is not its answer
            return "judge_truncated"
        return read_reply(out.content, self.prompt.allowed, (r.pred, r.gt, r.question))

    def _store(self, key: str, v: JudgeVerdict, elapsed: float) -> None:
        if self._cache is None or v.score is None or v.raw is None:
            return
        entry = Entry(
            model=v.model,
            prompt=v.prompt,
            raw=v.raw,
            score=v.score,
            finish_reason=v.finish_reason,
            prompt_tokens=v.prompt_tokens,
            completion_tokens=v.completion_tokens,
            elapsed=elapsed,
        )
        try:
            self._cache.put(key, entry)
        except sqlite3.Error as exc:  # the verdict still counts; it is just not remembered
            log.warning("judge: could not write the cache: %s", exc)

    def _verdict(
        self,
        score: float | None,
        error: str | None,
        raw: str | None,
        out: Outcome | None,
        attempts: int,
        prompt_tokens: int | None,
        completion_tokens: int | None,
    ) -> JudgeVerdict:
        return JudgeVerdict(
            score=score,
            error=error,
            raw=raw,
            model=self.config.model,
            prompt=self.prompt.name,
            cached=False,
            attempts=attempts,
            finish_reason=out.finish_reason if out else None,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    def _redact(self, text: str) -> str:
        # A hostile or buggy server could echo the Authorization header (or most of it) back.
        return self._redactor(text)


def _add(total: int | None, n: int | None) -> int | None:
    return n if total is None else total + (n or 0)


def _bump(counter: dict[str, int], key: str, n: int = 1) -> None:
    counter[key] = counter.get(key, 0) + n
