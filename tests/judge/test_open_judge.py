"""Open-ended grading over real HTTP: every row the rules cannot settle reaches the judge."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from judge_support import MakeJudge
from openai_server import OpenAIServer, Recorded, Reply

from vqagrade.judge.adapter import JudgeFallback
from vqagrade.open_task import OpenGrader

CASES = Path(__file__).parents[1] / "cases_open" / "open.jsonl"
_PRED = re.compile(r"<predicted_answer>\n(.*)\n</predicted_answer>", re.S)


def _cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]


def _equivalence(rec: Recorded) -> Reply:
    # A judge that answers 2, except 4 for one prediction, so the scores can be told apart.
    return Reply(content="4" if "pneumonia in the right" in rec.user_text else "2")


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(default=_equivalence) as s:
        yield s


def test_every_unsettled_case_and_nothing_else_goes_to_the_judge(
    make_judge: MakeJudge, server: OpenAIServer
) -> None:
    cases = _cases()
    judge = make_judge(prompt="equivalence")
    grader = OpenGrader(judge=JudgeFallback(judge))
    rows = [
        {"id": c["id"], "question": c["question"], "gt": c["gt"], "pred": c["pred"]} for c in cases
    ]
    out = list(grader.grade_rows(rows, batch=7))
    undecided = [c for c in cases if c["rule"] is None]
    sent = sorted(_PRED.search(r.user_text).group(1) for r in server.requests)  # type: ignore[union-attr]
    assert sent == sorted(c["pred"] for c in undecided)
    assert all("Equivalence" in r.user_text for r in server.requests)
    for case, row in zip(cases, out, strict=True):
        if case["rule"] is None:
            want = 4 if "pneumonia in the right" in case["pred"] else 2
            assert (row["method"], row["score"]) == ("llm", want), row
            assert type(row["score"]) is int and row["judge_prompt"] == "equivalence"
        else:
            assert (row["method"], row["score"]) == ("rule", case["score"]), row
            assert "judge_model" not in row


def test_an_off_scale_reply_is_an_error_not_a_score(make_judge: MakeJudge) -> None:
    with OpenAIServer(default=lambda rec: Reply(content="7")) as s:
        judge = make_judge(prompt="equivalence", base_url=s.base_url, max_retries=1)
        grader = OpenGrader(judge=JudgeFallback(judge))
        (row,) = grader.grade_rows([{"question": "q?", "gt": "left", "pred": "right"}])
    assert row["method"] == "error" and row["score"] is None
    assert row["reason"].endswith("; judge error: judge_unparseable") and row["judge_raw"] == "7"
