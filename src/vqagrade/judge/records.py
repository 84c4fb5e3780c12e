"""Pydantic records of the judge: its configuration, a request, a verdict, run statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .cache import default_cache_path


class JudgeConfig(BaseModel):
    """How to reach the judge and how hard to try. Holds no secret: only the key's env var.

    ``cache=`` is short for ``cache_path=`` (a path), or ``use_cache=False`` (False).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _cache_shorthand(cls, data: Any) -> Any:
        if isinstance(data, dict) and "cache" in data:
            data = dict(data)
            cache = data.pop("cache")
            if cache is False:
                data["use_cache"] = False
            elif cache is not None and cache is not True:
                data["cache_path"] = cache
        return data

    model: str = Field(min_length=1, description="model name sent to the endpoint")
    base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1"
    )
    prompt: str = Field(default="gpt", description="gpt | mistral | equivalence")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="env var holding the key")
    concurrency: int = Field(default=8, ge=1, description="requests in flight at most")
    timeout: float = Field(default=60.0, gt=0, description="seconds per HTTP attempt")
    max_retries: int = Field(default=4, ge=0, description="retries per request, all causes")
    reply_retries: int = Field(
        default=1,
        ge=0,
        description="of those, retries for a truncated or unparseable reply (a model at "
        "temperature 0 tends to repeat itself, so more rarely helps)",
    )
    max_completion_tokens: int = Field(
        default=1024, ge=1, description="reply token budget; room for reasoning models"
    )
    token_param: Literal["max_completion_tokens", "max_tokens"] = Field(
        default="max_completion_tokens",
        description="the request field for the budget; some older local servers want max_tokens",
    )
    temperature: float | None = Field(
        default=0.0, description="None omits it (reasoning models that reject temperature)"
    )
    backoff_base: float = Field(default=0.5, ge=0, description="first retry delay, seconds")
    backoff_max: float = Field(default=30.0, ge=0, description="longest delay, Retry-After too")
    cache_path: Path | None = Field(
        default_factory=default_cache_path, description="SQLite cache; None means the default"
    )
    use_cache: bool = True


class JudgeRequest(BaseModel):
    """One row to judge."""

    model_config = ConfigDict(frozen=True)

    question: str
    gt: str
    pred: str


class JudgeVerdict(BaseModel):
    """The judge's answer about one row: a score, or the reason there is none."""

    model_config = ConfigDict(frozen=True)

    score: float | None = Field(description="None on error")
    error: str | None = Field(description="fault name, e.g. judge_unparseable, judge_http_429")
    raw: str | None = Field(description="the judge's reply on the last attempt, if any")
    model: str
    prompt: str = Field(description="prompt name: gpt | mistral | equivalence")
    cached: bool
    attempts: int = Field(description="HTTP attempts made in this run (0 when cached)")
    finish_reason: str | None
    prompt_tokens: int | None = Field(description="summed over this request's attempts")
    completion_tokens: int | None = Field(description="summed over this request's attempts")


class JudgeStats(BaseModel):
    """What a Judge has done so far (accumulates over calls)."""

    requests: int = Field(default=0, description="rows asked about")
    cache_hits: int = Field(default=0, description="rows answered from the cache")
    duplicates: int = Field(default=0, description="rows sharing an identical row's call")
    calls: int = Field(default=0, description="HTTP attempts")
    retries: int = Field(default=0, description="HTTP attempts that were retries")
    prompt_tokens: int = Field(default=0, description="spent in this run (not cached ones)")
    completion_tokens: int = Field(default=0, description="spent in this run (not cached ones)")
    errors: dict[str, int] = Field(default_factory=dict, description="error verdicts by fault")
    faults: dict[str, int] = Field(default_factory=dict, description="failed attempts by fault")

    def render(self) -> str:
        """One line: calls, cache hits, retries, tokens and errors by fault."""
        errors = ", ".join(f"{k} {n}" for k, n in sorted(self.errors.items())) or "0"
        return (
            f"judge: {self.calls} calls, {self.cache_hits} cache hits, {self.retries} retries, "
            f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens, "
            f"errors {errors}"
        )


class JudgePlan(BaseModel):
    """What judging a batch would cost, without calling anyone (for --dry-run)."""

    rows: int
    cached: int = Field(description="rows the cache already answers")
    to_send: int = Field(description="distinct requests that would be sent")
    prompt_tokens: int = Field(description="estimated prompt tokens of those requests")
    max_completion_tokens: int = Field(description="upper bound: to_send x the token budget")
    price_in: float | None = Field(default=None, description="dollars per million prompt tokens")
    price_out: float | None = Field(
        default=None, description="dollars per million completion tokens"
    )

    def priced(self, price_in: float | None, price_out: float | None) -> JudgePlan:
        """The same plan with prices (dollars per million tokens) to cost it."""
        return self.model_copy(update={"price_in": price_in, "price_out": price_out})

    @property
    def prompt_cost(self) -> float | None:
        """Dollars for the prompt tokens (None without ``price_in``)."""
        return None if self.price_in is None else self.prompt_tokens * self.price_in / 1e6

    @property
    def max_completion_cost(self) -> float | None:
        """Dollars for the completion tokens at most (None without ``price_out``)."""
        if self.price_out is None:
            return None
        return self.max_completion_tokens * self.price_out / 1e6

    def render(self) -> str:
        """The plan in a few lines: rows, cached, calls, tokens, cost."""
        lines = [
            f"dry run: {self.rows} row{'' if self.rows == 1 else 's'} would go to the judge: "
            f"{self.cached} answered by the cache, {self.to_send} requests to send",
            f"  prompt tokens ~{self.prompt_tokens:,} in all; completion tokens at most "
            f"{self.max_completion_tokens:,} in all (the reply budget of every request)",
        ]
        if self.prompt_cost is None and self.max_completion_cost is None:
            lines.append("  cost: give --price-in and --price-out (dollars per million tokens)")
        else:
            prompt = "?" if self.prompt_cost is None else f"${self.prompt_cost:,.4f}"
            most = self.max_completion_cost
            reply = "?" if most is None else f"at most ${most:,.4f}"
            total = (self.prompt_cost or 0.0) + (most or 0.0)
            lines.append(
                f"  cost: prompts ~{prompt} + replies {reply} = at most ${total:,.4f} in all"
            )
        return "\n".join(lines)
