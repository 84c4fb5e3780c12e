"""vqagrade.promptfoo.get_assert, called as promptfoo calls a python assertion: the output text
and a context dict with the test's ``vars`` and the assertion's ``config``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapter_support import cli_graded, sample_rows
from vqagrade.promptfoo import get_assert

KIDNEY = "Is the lesion in the left or right kidney?"


def context(row: dict[str, Any], **config: Any) -> dict[str, Any]:
    variables = {k: row[k] for k in ("question", "gt", "option_a", "option_b") if k in row}
    return {
        "prompt": row["question"],
        "vars": variables,
        "test": {"vars": variables},
        "config": config,
    }


def test_every_row_as_the_cli(tmp_path: Path) -> None:
    rows = sample_rows()
    for row, cli in zip(rows, cli_graded(rows, tmp_path), strict=True):
        result = get_assert(row["pred"], context(row))
        assert set(result) == {"pass", "score", "reason"}
        if cli["score"] is None:
            assert result["pass"] is False and result["score"] == 0.0
            why = "abstained" if cli["method"] == "unresolved" else "could not read the row"
            assert result["reason"] == f"vqagrade {why}: {cli['reason']}"
        else:
            assert result["score"] == cli["score"], row["id"]
            assert result["pass"] is (cli["score"] == 1.0)
            assert result["reason"].endswith(cli["reason"])


@pytest.mark.parametrize(("min_score", "passes"), [(1.0, False), (0.5, True)])
def test_min_score(min_score: float, passes: bool) -> None:
    row = {"question": "Which organ is abnormal, heart or lung?", "gt": "Heart"}
    result = get_assert(
        "Both the heart and the lung are abnormal.", context(row, min_score=min_score)
    )
    assert result["score"] == 0.5 and result["pass"] is passes


def test_renamed_vars_answer_fallback_and_non_text_output() -> None:
    ctx = {
        "vars": {"q": KIDNEY, "truth": "left"},
        "config": {"question_var": "q", "gt_var": "truth"},
    }
    assert get_assert("Left.", ctx)["pass"] is True
    assert get_assert("Left.", {"vars": {"question": KIDNEY, "answer": "left"}})["pass"] is True
    result = get_assert({"tool_calls": []}, {"vars": {"question": KIDNEY, "gt": "left"}})
    assert result["pass"] is False and "could not read the row" in result["reason"]
