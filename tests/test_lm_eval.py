"""vqagrade.lm_eval, called as lm-evaluation-harness calls a task's hooks: process_results(doc,
results) once per doc with the list of generations, then each metric's aggregation over the
list of per-doc values. lm-eval itself is not installed (it brings torch)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from adapter_support import cli_graded, sample_rows
from vqagrade.lm_eval import coverage, mean_decided, process_results, results_processor

METRICS = {"vqagrade", "vqagrade_coverage", "vqagrade_strict"}


def doc(row: dict[str, Any]) -> dict[str, Any]:
    """A data set doc: the ground truth under ``answer`` as in VQA-RAD and SLAKE."""
    out = {"question": row["question"], "answer": row["gt"], "image": None}
    out.update({k: row[k] for k in ("option_a", "option_b") if k in row})
    return out


def test_per_doc_values_and_aggregations_match_the_cli(tmp_path: Path) -> None:
    rows = sample_rows()
    expected = [r["score"] for r in cli_graded(rows, tmp_path)]
    per_doc = [process_results(doc(r), [r["pred"]]) for r in rows]
    assert all(set(d) == METRICS for d in per_doc)
    assert [d["vqagrade"] for d in per_doc] == expected
    decided = [s for s in expected if s is not None]
    assert mean_decided([d["vqagrade"] for d in per_doc]) == pytest.approx(
        sum(decided) / len(decided)
    )
    assert coverage([d["vqagrade_coverage"] for d in per_doc]) == pytest.approx(
        len(decided) / len(rows)
    )
    strict = [d["vqagrade_strict"] for d in per_doc]
    assert sum(strict) / len(strict) == pytest.approx(sum(decided) / len(rows))


def test_gt_column_wins_over_answer_and_custom_columns() -> None:
    q = "Is the lesion in the left or right kidney?"
    assert (
        process_results({"question": q, "gt": "left", "answer": "right"}, ["left"])["vqagrade"]
        == 1.0
    )
    hook = results_processor(question="query", gt="label")
    assert hook({"query": q, "label": "right"}, ["The right kidney."])["vqagrade"] == 1.0


def test_no_generation_is_an_undecided_doc() -> None:
    q = "Is the lesion in the left or right kidney?"
    assert process_results({"question": q, "answer": "left"}, []) == {
        "vqagrade": None,
        "vqagrade_coverage": None,
        "vqagrade_strict": 0.0,
    }


def test_aggregations_of_nothing_decided_are_nan() -> None:
    assert math.isnan(mean_decided([None, None]))
    assert coverage([None, None]) == 0.0
    assert math.isnan(coverage([]))
