"""lm-evaluation-harness (and lmms-eval) hooks: grade each generation, aggregate over docs.

In a task YAML (``output_type: generate_until``)::

    process_results: !function vqagrade_hooks.process_results
    metric_list:
      - metric: vqagrade
        aggregation: !function vqagrade_hooks.mean_decided
        higher_is_better: true
      - metric: vqagrade_coverage
        aggregation: !function vqagrade_hooks.coverage
        higher_is_better: true
      - metric: vqagrade_strict
        aggregation: mean
        higher_is_better: true

with ``vqagrade_hooks.py`` beside the YAML holding
``from vqagrade.lm_eval import coverage, mean_decided, process_results``. The doc's
``question`` is the question, its ``gt`` (or else ``answer``) the ground truth, and
``option_a``/``option_b`` explicit options; ``results_processor`` makes a hook for other
column names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import grade_rows
from ._tally import tally

__all__ = ["coverage", "mean_decided", "process_results", "results_processor"]

Processor = Callable[[Mapping[str, Any], Sequence[Any]], dict[str, float | None]]


def results_processor(
    question: str = "question", gt: Sequence[str] = ("gt", "answer")
) -> Processor:
    """A ``process_results`` hook for docs with other column names.

    Args:
        question: the doc's question column.
        gt: the ground-truth column, or columns tried in order.
    """
    gt_columns = (gt,) if isinstance(gt, str) else tuple(gt)

    def process(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float | None]:
        gt_value = next((doc[c] for c in gt_columns if c in doc), None)
        # generate_until hands over one generation per request; the first is the answer.
        pred = results[0] if results else None
        row: dict[str, Any] = {"question": doc.get(question), "gt": gt_value, "pred": pred}
        for key in ("option_a", "option_b"):
            if doc.get(key) is not None:
                row[key] = doc[key]
        score = next(grade_rows([row]))["score"]
        return {
            "vqagrade": score,
            "vqagrade_coverage": score,
            "vqagrade_strict": 0.0 if score is None else score,
        }

    return process


process_results: Processor = results_processor()
"""The hook for docs with ``question`` and ``gt`` (or ``answer``) columns."""


def mean_decided(items: Sequence[float | None]) -> float:
    """Aggregation: the mean score over the docs vqagrade decided (``vqagrade score``'s mean);
    NaN when it decided none."""
    mean = tally(items)["mean"]
    return float("nan") if mean is None else mean


def coverage(items: Sequence[float | None]) -> float:
    """Aggregation: the share of docs vqagrade decided; NaN for no docs."""
    share = tally(items)["coverage"]
    return float("nan") if share is None else share
