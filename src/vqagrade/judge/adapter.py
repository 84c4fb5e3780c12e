"""The bridge from the grader to the LLM judge: unsettled rows in, row-contract fields out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import Judge, JudgeVerdict


class JudgeFallback:
    """Adapts a `vqagrade.judge.Judge` to the grader: one dict of output fields per row.

    A verdict with a score becomes ``method="llm"``; a failed one becomes
    ``method="error"`` with the fault as the reason and the raw reply kept: never a guess.

    Args:
        judge: the configured judge.
    """

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """Judge (question, gt, pred) triples, order preserved."""
        from . import JudgeRequest

        requests = [JudgeRequest(question=q, gt=gt, pred=pred) for q, gt, pred in items]
        return [self.fields(v) for v in self.judge.judge_many(requests)]

    @staticmethod
    def fields(v: JudgeVerdict) -> dict[str, Any]:
        """Output-row fields for one verdict."""
        out: dict[str, Any] = {
            "judge_model": v.model,
            "judge_prompt": v.prompt,
            "judge_raw": v.raw,
            "judge_cached": v.cached,
        }
        if v.score is None or v.error:
            out.update(score=None, method="error", reason=v.error or "judge_unparseable")
        else:
            tag = "cached" if v.cached else f"{v.attempts} attempt(s)"
            out.update(score=v.score, method="llm", reason=f"judge {v.model} ({tag})")
        return out
