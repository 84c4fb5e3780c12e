"""Open-ended grading: golden cases for every rule, the row contract, and the judge seam."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from vqagrade.io.rows import InputRow
from vqagrade.open_task import FULL_MARKS, OpenGrader, normalise
from vqagrade.records import FieldMap

CASES = Path(__file__).parent / "cases_open" / "open.jsonl"
GRADER = OpenGrader()
CONTRACT = ("score", "method", "gt_label", "pred_label", "options", "reason")


def load_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]


def _params() -> list[Any]:
    return [pytest.param(c, id=c["id"]) for c in load_cases()]


class FakeJudge:
    """Records what it is asked; answers with the queued fields (default: score 3.0)."""

    def __init__(self, answers: Sequence[dict[str, Any]] = ()) -> None:
        self.asked: list[tuple[str, str, str]] = []
        self.answers = list(answers)

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        self.asked.extend(items)
        out = []
        for _ in items:
            fields = self.answers.pop(0) if self.answers else {"score": 3.0, "method": "llm"}
            out.append({"reason": "judge fake", "judge_model": "fake", **fields})
        return out


def test_there_are_enough_cases_for_every_rule() -> None:
    cases = load_cases()
    assert len(cases) >= 40
    rules = {c["rule"] for c in cases}
    assert rules == {"exact", "lexicon", "empty-pred", None}
    assert len({c["id"] for c in cases}) == len(cases)


@pytest.mark.parametrize("case", _params())
def test_golden_case(case: dict[str, Any]) -> None:
    d = GRADER.decide(case["gt"], case["pred"])
    assert d.score == case["score"], d.reason
    if case["rule"] is None:
        assert not d.decided
    else:
        assert d.rule == case["rule"], d.reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("The Left Kidney.", "left kidney", id="article-case-period"),
        pytest.param('"**liver**"', "liver", id="wrapped"),
        pytest.param("a", "a", id="lone-article-kept"),
        pytest.param("hepatitis a", "hepatitis a", id="trailing-a-kept"),
        pytest.param("HER2+", "her2+", id="plus-kept"),
        pytest.param("  x \n y  ", "x y", id="whitespace"),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


def test_rows_follow_the_contract_with_integer_scores() -> None:
    rows = [
        {"id": "a", "question": "What modality?", "gt": "CT", "pred": "computed tomography"},
        {"id": "b", "question": "What modality?", "gt": "CT", "pred": ""},
        {"id": "c", "question": "What modality?", "gt": "CT", "pred": "MRI", "extra": [1]},
    ]
    out = list(GRADER.grade_rows(rows))
    assert [r["score"] for r in out] == [5, 0, None]
    assert [r["method"] for r in out] == ["rule", "rule", "unresolved"]
    assert all(type(r["score"]) is int for r in out[:2])
    for r in out:
        assert all(r[k] is None for k in ("gt_label", "pred_label", "options"))
        assert set(CONTRACT) <= set(r)
    assert out[2]["extra"] == [1] and out[0]["reason"].startswith("lexicon:")


@pytest.mark.parametrize(
    ("row", "why"),
    [
        pytest.param({"question": "q?", "gt": "x"}, "missing field 'pred'", id="no-pred"),
        pytest.param({"question": "q?", "pred": "x"}, "missing field 'gt'", id="no-gt"),
        pytest.param(
            {"question": "q?", "gt": " ", "pred": "x"}, "field 'gt' is empty", id="empty-gt"
        ),
        pytest.param(
            {"question": "", "gt": "x", "pred": "x"}, "field 'question' is empty", id="empty-q"
        ),
        pytest.param(
            {"question": "q?", "gt": "x", "pred": 3},
            "field 'pred' is int, expected a string",
            id="int-pred",
        ),
        pytest.param(
            {"question": "q?", "gt": "x", "pred": None}, "missing field 'pred'", id="null-pred"
        ),
    ],
)
def test_malformed_rows_become_error_rows(row: dict[str, Any], why: str) -> None:
    (out,) = GRADER.grade_rows([row])
    assert out["method"] == "error" and out["score"] is None and out["reason"] == why


def test_unreadable_input_rows_become_error_rows() -> None:
    rows = [InputRow(3, None, "invalid JSON: unexpected character (column 1)", "{oops")]
    (out,) = GRADER.grade_rows(rows)
    assert out["method"] == "error" and out["line"] == 3 and out["raw"] == "{oops"
    assert out["reason"].startswith("invalid JSON")


def test_input_rows_with_data_are_graded() -> None:
    (out,) = GRADER.grade_rows([InputRow(1, {"question": "q?", "gt": "Liver", "pred": "liver"})])
    assert out["score"] == FULL_MARKS


def test_field_names_are_remappable() -> None:
    grader = OpenGrader(fields=FieldMap(question="q", gt="answer", pred="output"))
    (out,) = grader.grade_rows([{"q": "What organ?", "answer": "Spleen", "output": "spleen."}])
    assert out["score"] == 5 and out["method"] == "rule"


def test_only_unsettled_rows_go_to_the_judge_in_order() -> None:
    judge = FakeJudge([{"score": 4.0, "method": "llm"}, {"score": 0.0, "method": "llm"}])
    grader = OpenGrader(judge=judge)
    rows = [
        {"question": "q?", "gt": "CT", "pred": "CT"},
        {"question": "q?", "gt": "CT", "pred": "a CT of the chest"},
        {"question": "q?", "gt": "liver", "pred": ""},
        {"question": "q?", "gt": "left", "pred": "right"},
        {"question": "q?", "gt": "left"},
    ]
    out = list(grader.grade_rows(rows, batch=2))
    assert judge.asked == [("q?", "CT", "a CT of the chest"), ("q?", "left", "right")]
    assert [r["score"] for r in out] == [5, 4, 0, 0, None]
    assert [r["method"] for r in out] == ["rule", "llm", "rule", "llm", "error"]
    assert all(type(r["score"]) is int for r in out[:4])
    assert "rules: no rule is certain" in out[1]["reason"]


def test_judge_all_sends_every_readable_row() -> None:
    judge = FakeJudge()
    rows = [{"question": "q?", "gt": "CT", "pred": "CT"}, {"question": "q?", "gt": "x"}]
    out = list(OpenGrader(judge=judge, judge_all=True).grade_rows(rows))
    assert len(judge.asked) == 1 and out[0]["method"] == "llm" and out[0]["score"] == 3
    assert out[1]["method"] == "error"


@pytest.mark.parametrize(
    "score",
    [
        pytest.param(0.5, id="half"),
        pytest.param(6.0, id="six"),
        pytest.param(-1.0, id="negative"),
        pytest.param(True, id="bool"),
    ],
)
def test_a_judge_score_off_the_0_to_5_scale_is_an_error(score: Any) -> None:
    judge = FakeJudge([{"score": score, "method": "llm"}])
    (out,) = OpenGrader(judge=judge).grade_rows([{"question": "q?", "gt": "a b", "pred": "c"}])
    assert out["method"] == "error" and out["score"] is None
    assert "not an integer 0-5" in out["reason"]


def test_judge_errors_pass_through() -> None:
    failed = {"score": None, "method": "error", "reason": "judge_unparseable", "judge_raw": "?"}
    judge = FakeJudge([failed])
    (out,) = OpenGrader(judge=judge).grade_rows([{"question": "q?", "gt": "a", "pred": "b"}])
    assert out["method"] == "error" and out["reason"].endswith("; judge error: judge_unparseable")
    assert out["judge_raw"] == "?"


def test_without_a_judge_nothing_is_guessed() -> None:
    undecided = [c for c in load_cases() if c["rule"] is None]
    rows = [{"question": c["question"], "gt": c["gt"], "pred": c["pred"]} for c in undecided]
    out = list(GRADER.grade_rows(rows))
    assert {r["method"] for r in out} == {"unresolved"}
    assert all(r["score"] is None for r in out)
