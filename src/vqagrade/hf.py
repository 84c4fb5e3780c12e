"""Hugging Face datasets: grade a ``Dataset`` in Arrow, and an evaluate-style metric.

Example::

    from datasets import load_dataset
    from vqagrade.hf import grade_dataset, load_metric

    graded = grade_dataset(ds, fields={"gt": "answer", "pred": "prediction"})
    graded.filter(lambda r: r["method"] == "unresolved")
    load_metric().compute(predictions=preds, references=answers, questions=questions)
    # {"mean": 0.81, "strict_mean": 0.74, "coverage": 0.91, "n": 451}

``grade_dataset`` returns the dataset's own columns and features untouched (nested columns,
images, class labels) plus vqagrade's columns, graded by ``vqagrade.grade_table``: the same
scores as ``vqagrade score`` on the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import FieldMap, grade_rows, grade_table
from ._tally import Tally, tally

if TYPE_CHECKING:
    from datasets import Dataset, DatasetDict

__all__ = ["Metric", "grade_dataset", "load_metric"]


def grade_dataset(
    ds: Dataset | DatasetDict,
    *,
    fields: FieldMap | Mapping[str, str] | None = None,
    lexicons: Sequence[str | Path] = (),
) -> Dataset | DatasetDict:
    """Grade every row of a ``datasets.Dataset`` (or each split of a ``DatasetDict``).

    Args:
        ds: rows with a question, ground truth and prediction column.
        fields: column names when they are not question/gt/pred, as a ``FieldMap`` or a
            mapping such as ``{"gt": "answer", "pred": "prediction"}``.
        lexicons: extra lexicon TOML files.
    """
    from datasets import Dataset, DatasetDict, Features

    if isinstance(ds, DatasetDict):
        return DatasetDict(
            {k: grade_dataset(v, fields=fields, lexicons=lexicons) for k, v in ds.items()}
        )
    names = fields if isinstance(fields, FieldMap) else FieldMap(**(fields or {}))
    graded = grade_table(ds.with_format("arrow")[:], fields=names, lexicons=lexicons)
    inferred = Features.from_arrow_schema(graded.schema.remove_metadata())
    # The input's features win for its own columns (Image, ClassLabel...), Arrow's for ours.
    features = Features(
        {name: ds.features[name] if name in ds.features else inferred[name] for name in inferred}
    )
    info = ds.info.copy()
    info.features = features
    return Dataset(graded.cast(features.arrow_schema), info=info, split=ds.split)


class Metric:
    """An evaluate-style metric: ``add_batch`` as you go, then ``compute``, or ``compute``
    at once. Returns the mean over decided rows, the strict mean (undecided count 0), the
    coverage and n; ``compute`` also resets what was added."""

    def __init__(self) -> None:
        self._rows: list[dict[str, Any]] = []

    def add_batch(
        self,
        *,
        predictions: Iterable[str],
        references: Iterable[str],
        questions: Iterable[str],
        options: Iterable[tuple[str, str] | None] | None = None,
    ) -> None:
        """Add rows: predictions, ground truths (references) and questions, aligned; optional
        explicit (option_a, option_b) per row."""
        preds, refs, qs = list(predictions), list(references), list(questions)
        opts = list(options) if options is not None else [None] * len(preds)
        if not len(preds) == len(refs) == len(qs) == len(opts):
            raise ValueError("predictions, references, questions and options differ in length")
        for p, r, q, o in zip(preds, refs, qs, opts, strict=True):
            row: dict[str, Any] = {"question": q, "gt": r, "pred": p}
            if o is not None:
                row["option_a"], row["option_b"] = o
            self._rows.append(row)

    def add(
        self,
        *,
        prediction: str,
        reference: str,
        question: str,
        options: tuple[str, str] | None = None,
    ) -> None:
        """Add one row."""
        self.add_batch(
            predictions=[prediction],
            references=[reference],
            questions=[question],
            options=[options],
        )

    def compute(
        self,
        *,
        predictions: Iterable[str] | None = None,
        references: Iterable[str] | None = None,
        questions: Iterable[str] | None = None,
        options: Iterable[tuple[str, str] | None] | None = None,
    ) -> Tally:
        """The figures over the rows added so far and those given here."""
        if predictions is not None or references is not None or questions is not None:
            self.add_batch(
                predictions=predictions or [],
                references=references or [],
                questions=questions or [],
                options=options,
            )
        rows, self._rows = self._rows, []
        return tally(out["score"] for out in grade_rows(rows))


def load_metric() -> Metric:
    """A fresh metric, as ``evaluate.load`` gives one."""
    return Metric()
