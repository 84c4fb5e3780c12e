"""The headline figures of a run, shared by the framework adapters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict


class Tally(TypedDict):
    """Mean over decided rows (as ``vqagrade score`` reports it), strict mean, coverage, n."""

    mean: float | None
    strict_mean: float | None
    coverage: float | None
    n: int


def tally(scores: Iterable[float | None]) -> Tally:
    """Figures for a run: an undecided row (null score) is left out of ``mean``, counts 0 in
    ``strict_mean`` and against ``coverage``; None where there is nothing to divide by."""
    n = decided = 0
    total = 0.0
    for s in scores:
        n += 1
        if s is not None:
            decided += 1
            total += s
    return Tally(
        mean=total / decided if decided else None,
        strict_mean=total / n if n else None,
        coverage=decided / n if n else None,
        n=n,
    )
