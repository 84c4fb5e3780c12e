"""vqagrade.hf: a real `datasets.Dataset` graded in Arrow, and the evaluate-style metric, both
giving what `vqagrade score` gives on the same rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets
import pytest

from adapter_support import cli_graded, sample_rows
from vqagrade import FieldMap
from vqagrade.contract import CONTRACT_COLUMNS
from vqagrade.hf import grade_dataset, load_metric

CONTRACT = CONTRACT_COLUMNS


def renamed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as a VQA data set names them, with a nested column and a class label."""
    return [
        {
            "qid": r["id"],
            "question": r["question"],
            "answer": r["gt"],
            "prediction": r["pred"],
            "option_a": r.get("option_a"),
            "option_b": r.get("option_b"),
            "extra": {"boxes": [[i, i + 1]], "source": "sample"},
            "answer_type": i % 2,
        }
        for i, r in enumerate(rows)
    ]


FEATURES = datasets.Features(
    {
        "qid": datasets.Value("string"),
        "question": datasets.Value("string"),
        "answer": datasets.Value("string"),
        "prediction": datasets.Value("string"),
        "option_a": datasets.Value("string"),
        "option_b": datasets.Value("string"),
        "extra": {
            "boxes": datasets.List(datasets.List(datasets.Value("int64"))),
            "source": datasets.Value("string"),
        },
        "answer_type": datasets.ClassLabel(names=["CLOSED", "OTHER"]),
    }
)


@pytest.mark.parametrize(
    "fields",
    [{"gt": "answer", "pred": "prediction"}, FieldMap(gt="answer", pred="prediction")],
    ids=["mapping", "fieldmap"],
)
def test_grade_dataset_matches_the_cli_and_keeps_columns(tmp_path: Path, fields: Any) -> None:
    rows = renamed(sample_rows())
    expected = cli_graded(rows, tmp_path, "--gt-field", "answer", "--pred-field", "prediction")
    ds = datasets.Dataset.from_list(rows, features=FEATURES)
    graded = grade_dataset(ds, fields=fields)
    assert isinstance(graded, datasets.Dataset)
    assert graded.features["answer_type"] == FEATURES["answer_type"]
    assert graded.features["extra"] == FEATURES["extra"]
    assert list(graded.column_names) == [*FEATURES, *CONTRACT]
    for got, want, original in zip(graded, expected, rows, strict=True):
        assert {k: got[k] for k in CONTRACT} == {k: want[k] for k in CONTRACT}, want["qid"]
        assert got["extra"] == original["extra"] and got["answer_type"] == original["answer_type"]


def test_grade_dataset_follows_selection_and_splits(tmp_path: Path) -> None:
    rows = sample_rows()
    expected = {r["id"]: r["score"] for r in cli_graded(rows, tmp_path)}
    ds = datasets.Dataset.from_list(renamed(rows), features=FEATURES).shuffle(seed=3)
    ds = ds.select(range(10))
    both = grade_dataset(
        datasets.DatasetDict(test=ds, validation=ds), fields={"gt": "answer", "pred": "prediction"}
    )
    assert isinstance(both, datasets.DatasetDict) and set(both) == {"test", "validation"}
    for split in both.values():
        assert [r["qid"] for r in split] == ds["qid"]
        assert {r["qid"]: r["score"] for r in split} == {q: expected[q] for q in ds["qid"]}


def test_metric_gives_the_cli_figures(tmp_path: Path) -> None:
    rows = sample_rows()
    scores = [r["score"] for r in cli_graded(rows, tmp_path)]
    decided = [s for s in scores if s is not None]
    metric = load_metric()
    half = len(rows) // 2
    for part in (rows[:half], rows[half:]):
        metric.add_batch(
            predictions=[r["pred"] for r in part],
            references=[r["gt"] for r in part],
            questions=[r["question"] for r in part],
            options=[(r["option_a"], r["option_b"]) if "option_a" in r else None for r in part],
        )
    result = metric.compute()
    assert result == {
        "mean": pytest.approx(sum(decided) / len(decided)),
        "strict_mean": pytest.approx(sum(decided) / len(scores)),
        "coverage": pytest.approx(len(decided) / len(scores)),
        "n": len(scores),
    }
    assert metric.compute()["n"] == 0  # compute starts over, as evaluate's metrics do


def test_metric_in_one_call_and_mismatched_lengths() -> None:
    metric = load_metric()
    q = "Is the lesion in the left or right kidney?"
    result = metric.compute(
        predictions=["left", "maybe"], references=["left", "left"], questions=[q, q]
    )
    assert result == {"mean": 1.0, "strict_mean": 0.5, "coverage": 0.5, "n": 2}
    assert metric.compute() == {"mean": None, "strict_mean": None, "coverage": None, "n": 0}
    with pytest.raises(ValueError, match="differ in length"):
        metric.add_batch(predictions=["a"], references=[], questions=[q])
