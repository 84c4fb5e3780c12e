"""CI gates over a finished run: ``score --fail-under MEAN``."""

from __future__ import annotations

from .summary import Summary

__all__ = ["fail_under_message"]


def fail_under_message(summary: Summary, minimum: float) -> str | None:
    """The one-line reason a run fails ``--fail-under``, or None when it passes.

    The mean is over decided rows (method ``rule`` or ``llm``), in the task's own units
    (0-1 for two-option answers, 0-5 for open-ended ones). A run with no decided row fails:
    a gate that checked nothing must not pass.

    Args:
        summary: the run's figures, after every output row was added.
        minimum: the lowest acceptable mean score.
    """
    mean = summary.mean
    if mean is None:
        return (
            f"no decided rows among {summary.rows}: the mean score cannot be checked "
            f"against --fail-under {minimum:g}"
        )
    if mean < minimum:
        return (
            f"mean score {mean:.4f} over {summary.decided} decided rows is below "
            f"--fail-under {minimum:g}"
        )
    return None
