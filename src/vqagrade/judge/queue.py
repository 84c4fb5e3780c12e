"""Rule grading and the LLM judge, running at the same time; output in input order.

The rules settle most rows in microseconds; the judge takes seconds per batch. Waiting for
each judge batch before grading on would make a run cost the rules *plus* every judge batch.
Here the unsettled rows are sent in batches to a background thread while the rules go on,
and rows come out in input order as soon as everything before them is final: a run costs
about the rules plus the slowest judge batch. Buffering is bounded (``max_buffer`` rows
waiting to be emitted): when the buffer is full, the oldest judge batch is waited for.

The pieces::

    items = rule_items(grader, rows)             # Queued(row, judge item or None), rules only
    for row in judge_concurrently(items, judge): # rows in order, judged where needed
        ...

Both graders (`Grader`, `OpenGrader`) judge through this queue, and
`vqagrade.engines.processes.grade_parallel` feeds it from worker processes.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..contract import JudgeItem, RowGrade, merge_judge, unreadable, unwrap

if TYPE_CHECKING:
    from ..grader import JudgeLike

__all__ = [
    "JudgeQueueStats",
    "Queued",
    "RowGrader",
    "collect_pending",
    "judge_concurrently",
    "rule_items",
]


class Queued(NamedTuple):
    """One row graded by the rules, waiting for the judge or final."""

    row: dict[str, Any]
    """The output row: the input fields plus the contract's."""
    judge: JudgeItem | None
    """What to ask the judge; None when the row is final."""


class RowGrader(Protocol):
    """What the queue needs from a grader (`Grader` and `OpenGrader` both are one)."""

    def grade_row(self, data: dict[str, Any]) -> RowGrade:
        """The contract's fields for one row, and what to ask the judge, if anything."""
        ...


@dataclass
class JudgeQueueStats:
    """Live counters of the judge queue (read by the progress bar from another thread)."""

    submitted: int = 0
    """rows handed to the judge so far"""
    done: int = 0
    """rows the judge has answered"""

    @property
    def in_flight(self) -> int:
        """Rows sent to the judge and not answered yet."""
        return self.submitted - self.done


def rule_items(grader: RowGrader, rows: Iterable[Mapping[str, Any] | Any]) -> Iterator[Queued]:
    """Grade rows by the rules alone, in order, with what the judge should be asked.

    Args:
        grader: the rule grader (its own judge, if any, is not called here; its
            ``judge_all`` decides which rows the judge sees).
        rows: mappings, or `vqagrade.io.InputRow` records (unreadable ones become error rows).
    """
    for row in rows:
        data = unwrap(row)
        if data is None:
            yield Queued(unreadable(row), None)
            continue
        fields, judge = grader.grade_row(data)
        yield Queued({**data, **fields}, judge)


def collect_pending(items: Iterable[Queued], pending: list[JudgeItem]) -> Iterator[dict[str, Any]]:
    """The rows of `items`, in order; what the judge should be asked about each is appended
    to `pending` (for a dry run's plan or a Batch API job)."""
    for row, judge in items:
        if judge is not None:
            pending.append(judge)
        yield row


class _Batch:
    """Rows waiting for one judge call."""

    __slots__ = ("future", "items", "rows")

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.items: list[JudgeItem] = []
        self.future: Future[list[dict[str, Any]]] | None = None


def judge_concurrently(
    items: Iterable[Queued],
    judge: JudgeLike,
    *,
    batch: int = 256,
    max_buffer: int = 65_536,
    stats: JudgeQueueStats | None = None,
) -> Iterator[dict[str, Any]]:
    """Judge the rows that need it in the background; yield every row in input order.

    Args:
        items: rows in input order with what to ask the judge, e.g. from :func:`rule_items`.
        judge: has ``judge_rows(items) -> list[dict]`` (e.g. ``JudgeFallback``);
            called from one background thread, one batch at a time.
        batch: rows per judge call.
        max_buffer: rows held back at most while waiting for the judge.
        stats: counters updated as batches go and come back (for a progress bar).
    """
    stats = stats if stats is not None else JudgeQueueStats()
    lock = threading.Lock()
    # Each entry: a finished row, or (row, its batch) when the judge has yet to answer.
    buffer: deque[tuple[dict[str, Any], _Batch | None]] = deque()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vqagrade-judge")
    current = _Batch()

    def call(b: _Batch) -> list[dict[str, Any]]:
        try:
            return judge.judge_rows(b.items)
        finally:
            with lock:
                stats.done += len(b.items)

    def submit() -> None:
        nonlocal current
        if current.items:
            with lock:
                stats.submitted += len(current.items)
            current.future = pool.submit(call, current)
            current = _Batch()

    def settle(b: _Batch) -> None:
        assert b.future is not None
        results = b.future.result()
        for row, fields in zip(b.rows, results, strict=True):
            merge_judge(row, fields)
        b.future = None
        b.rows = []

    def ready() -> Iterator[dict[str, Any]]:
        """Emit the finished head of the buffer; wait for the judge only when it is full."""
        while buffer:
            row, b = buffer[0]
            if b is not None and b.rows:
                full = len(buffer) >= max_buffer
                if b.future is None:
                    if not full:
                        return
                    submit()  # the head's batch is still filling: send it as it is
                assert b.future is not None
                if not (full or b.future.done()):
                    return
                settle(b)
            buffer.popleft()
            yield row

    try:
        for row, item in items:
            if item is not None:
                current.rows.append(row)
                current.items.append(item)
                buffer.append((row, current))
                if len(current.items) >= batch:
                    submit()
            else:
                buffer.append((row, None))
            yield from ready()
        submit()
        max_buffer = 0  # input is over: wait for every batch in order
        yield from ready()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        close = getattr(items, "close", None)
        if close is not None:
            close()  # stop the producer (worker processes) now, not at garbage collection
