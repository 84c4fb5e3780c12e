"""Rule grading and the LLM judge, running at the same time; output in input order.

The rules settle most rows in microseconds; the judge takes seconds per batch. Waiting for
each judge batch before grading on would make a run cost the rules *plus* every judge batch.
Here the unsettled rows are sent in batches to a background thread while the rules go on,
and rows come out in input order as soon as everything before them is final: a run costs
about the rules plus the slowest judge batch. Buffering is bounded (``max_buffer`` rows
waiting to be emitted): when the buffer is full, the oldest judge batch is waited for.

The pieces::

    items = rule_items(grader, rows)             # (row, triple, needs_judge), rules only
    for row in judge_concurrently(items, judge): # rows in order, judged where needed
        ...

`vqagrade.parallel.grade_parallel` feeds the same pipeline from worker processes.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..contract import merge_judge, unreadable, unwrap

if TYPE_CHECKING:
    from ..grader import Grader, JudgeLike

__all__ = [
    "Item",
    "JudgeQueueStats",
    "collect_pending",
    "judge_concurrently",
    "rule_items",
]

Triple = tuple[str, str, str]
Item = tuple[dict[str, Any], Triple | None, bool]
"""One graded row before judging: the output row, its (question, gt, pred), needs the judge."""


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


def rule_items(
    grader: Grader, rows: Iterable[Mapping[str, Any] | Any], *, judge_all: bool = False
) -> Iterator[Item]:
    """Grade rows by the rules alone, in order, marking those the judge should see.

    Args:
        grader: the rule grader (its own judge, if any, is not called here).
        rows: mappings, or `vqagrade.io.InputRow` records (unreadable ones become error rows).
        judge_all: mark every readable row for the judge, not only unsettled ones.
    """
    for row in rows:
        data = unwrap(row)
        if data is None:
            yield unreadable(row), None, False
            continue
        fields, triple, unsettled = grader.row_fields(data)
        yield {**data, **fields}, triple, triple is not None and (unsettled or judge_all)


def collect_pending(items: Iterable[Item], pending: list[Triple]) -> Iterator[dict[str, Any]]:
    """The rows of `items`, in order; the triples of those the judge should see are appended
    to `pending` (for a dry run's plan or a Batch API job)."""
    for row, triple, needs in items:
        if needs and triple is not None:
            pending.append(triple)
        yield row


class _Batch:
    """Rows waiting for one judge call."""

    __slots__ = ("future", "rows", "triples")

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.triples: list[Triple] = []
        self.future: Future[list[dict[str, Any]]] | None = None


def judge_concurrently(
    items: Iterable[Item],
    judge: JudgeLike,
    *,
    batch: int = 256,
    max_buffer: int = 65_536,
    stats: JudgeQueueStats | None = None,
) -> Iterator[dict[str, Any]]:
    """Judge the rows that need it in the background; yield every row in input order.

    Args:
        items: (row, triple, needs_judge) in input order, e.g. from :func:`rule_items`.
        judge: has ``judge_rows(triples) -> list[dict]`` (e.g. `vqagrade.fallback.JudgeFallback`);
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
            return judge.judge_rows(b.triples)
        finally:
            with lock:
                stats.done += len(b.triples)

    def submit() -> None:
        nonlocal current
        if current.triples:
            with lock:
                stats.submitted += len(current.triples)
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
        for row, triple, needs in items:
            if needs and triple is not None:
                current.rows.append(row)
                current.triples.append(triple)
                buffer.append((row, current))
                if len(current.triples) >= batch:
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
