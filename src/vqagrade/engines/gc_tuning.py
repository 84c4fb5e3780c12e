"""Garbage collection while rows flow: collect rarely, and put the old thresholds back after.

Grading allocates a few containers per row, all freed by reference counting, while the
grader's memos hold a large, long-lived heap that every full collection walks again: with the
default thresholds that walk costs about a fifth to a quarter of a run.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["GC_THRESHOLDS", "gc_tuned", "tune_for_good"]

GC_THRESHOLDS = (50_000, 20, 100)
"""Generation-0 allocations before a collection, then the older generations' counts."""


@contextlib.contextmanager
def gc_tuned(*, freeze: bool = False) -> Iterator[None]:
    """Collect rarely inside the block; the previous thresholds come back after it.

    Args:
        freeze: also move what exists now (the lexicons, the grader) out of the collector's
            sight for the block (`gc.freeze`), and back after it.
    """
    old = gc.get_threshold()
    if freeze:
        gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        if freeze:
            gc.unfreeze()


def tune_for_good() -> None:
    """For a process that only grades until it ends (a worker): freeze and collect rarely."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
