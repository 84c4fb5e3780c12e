"""Grade on every core: rows go to worker processes in chunks and come back in input order.

Each worker builds its own `Grader` once (the pool's initializer), so memoisation works per
process. Only the fields the rules read (question, gt, pred, option_a, option_b) cross the
process boundary, both ways as small tuples and dicts: wide rows stay in the parent, which
merges the grade into each. At most ``max_chunks`` chunks are in flight, so memory stays flat
whatever the input size. The LLM judge stays in the parent: rows the rules cannot settle come
back unresolved and go through `vqagrade.pipeline.judge_concurrently`, which judges them in
the background while the workers go on.

``workers=1`` is the plain in-process path (no pool, no pickling).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from multiprocessing.connection import wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract import unreadable, unwrap
from ..errors import VqagradeError
from ..judge.queue import Item, JudgeQueueStats, judge_concurrently, rule_items
from ..kinds import judge_triple

if TYPE_CHECKING:
    from ..grader import Grader, JudgeLike
    from ..records import FieldMap

__all__ = ["auto_workers", "default_workers", "grade_parallel"]

CHUNK_ROWS = 2_048
SMALL_INPUT_ROWS = 50_000
_GC_THRESHOLDS = (50_000, 20, 100)

# The worker's grader, built once by the pool's initializer.
_worker_grader: Grader | None = None


def default_workers() -> int:
    """The cores this process may use (its CPU affinity where the OS tells)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def auto_workers(requested: int | None, input: str | os.PathLike[str] | None = None) -> int:
    """The workers for a run: ``requested`` if given, else every core, but 1 for small inputs.

    Starting a worker costs about half a second (a fresh interpreter loading the lexicons),
    more than it saves on an input of fewer than ~50,000 rows; stdin is never measured.

    Args:
        requested: the user's ``--workers``, or None for the default.
        input: the input path (``"-"`` for stdin), to judge its size.
    """
    if requested is not None:
        return requested
    if input is None or os.fspath(input) == "-":
        return 1
    rows = _estimated_rows(os.fspath(input))
    return 1 if rows is not None and rows < SMALL_INPUT_ROWS else default_workers()


def _estimated_rows(name: str) -> int | None:
    from ..io.rows import count_rows

    try:
        exact = count_rows(name)
        if exact is not None:
            return exact
        size = os.path.getsize(name)
    except (OSError, VqagradeError):
        return None
    # ~150 bytes a JSON lines or CSV row; gzip packs text about five to one.
    return size * (5 if name.lower().endswith(".gz") else 1) // 150


def grade_parallel(
    rows: Iterable[Mapping[str, Any] | Any],
    *,
    workers: int | None = None,
    lexicons: Sequence[str | Path] = (),
    fields: FieldMap | None = None,
    judge: JudgeLike | None = None,
    judge_all: bool = False,
    kinds: Iterable[str] | None = None,
    judge_batch: int = 256,
    judge_stats: JudgeQueueStats | None = None,
    chunk_rows: int = CHUNK_ROWS,
    max_chunks: int | None = None,
    start_method: str = "spawn",
    tune_gc: bool = True,
) -> Iterator[dict[str, Any]]:
    """Grade rows in ``workers`` processes; output rows in input order, as `Grader.grade_rows`.

    Args:
        rows: mappings, or `vqagrade.io.InputRow` records (unreadable ones become error rows).
        workers: processes; default: every core. 1 grades in this process.
        lexicons: extra lexicon TOML files (each worker loads them).
        fields: input field names.
        judge: an LLM judge (``judge_rows``) for the rows the rules cannot settle; runs in
            this process, on a background thread, while the workers go on.
        judge_all: send every readable row to the judge.
        kinds: the question kinds to grade (`vqagrade.kinds.QuestionKind` values; None: all).
        judge_batch: rows per judge call.
        judge_stats: counters of the judge queue, updated live (for a progress bar).
        chunk_rows: rows per chunk sent to a worker.
        max_chunks: chunks in flight at most (default: 2 per worker, plus one).
        start_method: how workers start (``spawn`` is safe with the threads of the judge).
        tune_gc: raise this process's garbage-collection thresholds while rows flow (restored
            when the iterator is exhausted or closed); workers always run that way.

    Raises:
        VqagradeError: a worker process died.
    """
    from ..grader import Grader
    from ..records import FieldMap

    fields = fields or FieldMap()
    n = default_workers() if workers is None else workers
    if n < 1:
        raise ValueError("workers must be at least 1")
    items: Iterator[Item]
    if n == 1:
        grader = Grader(lexicons=list(lexicons), fields=fields, kinds=kinds)
        items = rule_items(grader, rows, judge_all=judge_all)
    else:
        if lexicons:
            from ..lexicon import lexicon_for

            lexicon_for(lexicons)  # a bad lexicon file fails here, not as a dead worker
        items = _pool_items(
            rows,
            workers=n,
            lexicons=[str(p) for p in lexicons],
            fields=fields,
            judge_all=judge_all,
            kinds=None if kinds is None else [str(k) for k in kinds],
            chunk_rows=chunk_rows,
            max_chunks=max_chunks or 2 * n + 1,
            start_method=start_method,
        )
    if judge is None:
        out = _rows_only(items)
    else:
        out = judge_concurrently(items, judge, batch=judge_batch, stats=judge_stats)
    return _gc_tuned(out) if tune_gc else out


def _rows_only(items: Iterator[Item]) -> Iterator[dict[str, Any]]:
    try:
        for row, _, _ in items:
            yield row
    finally:
        _close(items)


def _gc_tuned(rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Collect cyclic garbage less often while rows flow; the old thresholds come back after.

    Grading allocates a few containers per row, all freed by reference counting, while the
    grader's memos hold a large, long-lived heap that every full collection walks again:
    with the default thresholds that walk costs a fifth of the run.
    """
    old = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        yield from rows
    finally:
        gc.set_threshold(*old)
        _close(rows)


def _close(it: Any) -> None:
    """Close a generator now (stopping its workers), not whenever it is collected."""
    close = getattr(it, "close", None)
    if close is not None:
        close()


# ---- the pool ----------------------------------------------------------------------------------
#
# Memoisation is per question (options) and per (options, answer text) (labels), so most of the
# work is the first sight of each. Rows are therefore routed by question: every question sticks
# to one worker (the least loaded when it is first seen), so the workers' memos do not overlap
# and N workers do little more work in all than one. A chunk's piece for one worker is capped
# (1.25x its fair share) so that an input with few questions still spreads over every worker.

_Payload = list[tuple[Any, ...]]
_Result = list[tuple[dict[str, Any], bool]]
_MAX_STICKY = 200_000


class _Router:
    """Assigns each row to a worker: sticky per question, capped per chunk."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.load = [0] * workers
        self.sticky: dict[Any, int] = {}

    def split(self, keys: list[Any]) -> list[list[int]]:
        """Row positions per worker for one chunk."""
        n = self.workers
        cap = max(1, (len(keys) * 5) // (4 * n) + 1)
        pieces: list[list[int]] = [[] for _ in range(n)]
        for i, key in enumerate(keys):
            w = self.sticky.get(key)
            if w is None:
                if len(self.sticky) >= _MAX_STICKY:
                    self.sticky.clear()
                w = self.sticky[key] = self.load.index(min(self.load))
            if len(pieces[w]) >= cap:
                w = min(range(n), key=lambda j: len(pieces[j]))
            pieces[w].append(i)
            self.load[w] += 1
        return pieces


def _init_worker(lexicons: list[str], fields: dict[str, str], kinds: list[str] | None) -> None:
    global _worker_grader
    from ..grader import Grader

    _follow_parent()
    from ..records import FieldMap

    _worker_grader = Grader(lexicons=lexicons, fields=FieldMap(**fields), kinds=kinds)
    # This process only grades: its memos hold millions of long-lived objects that every
    # full collection would walk again, and what it allocates per row is freed by refcount.
    gc.freeze()
    gc.set_threshold(*_GC_THRESHOLDS)


def _grade_chunk(
    payload: _Payload, names: tuple[str, str, str, str, str], judge_all: bool
) -> _Result:
    """In a worker: the contract's fields for each row, and whether the judge should see it."""
    grader = _worker_grader
    assert grader is not None, "the worker was not initialised"
    out: _Result = []
    for values in payload:
        fields, triple, unsettled = grader.row_fields(dict(zip(names, values, strict=True)))
        out.append((fields, triple is not None and (unsettled or judge_all)))
    return out


def _follow_parent() -> None:
    """In a worker: die with the parent, stay quiet on Ctrl-C.

    Ctrl-C reaches every process of the terminal's group: the parent stops the run and
    shuts the pool down, so a worker ignores SIGINT (no traceback per worker). A parent that
    dies without shutting the pool down (SIGKILL, a crash) would leave the worker blocked
    forever with PPID 1: a watcher thread waits on the parent's sentinel and exits with it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="vqagrade-parent-watch", daemon=True).start()


class _Chunk:
    """One chunk of input rows, its pieces in the workers, and where each piece goes back."""

    __slots__ = ("datas", "futures", "rows")

    def __init__(self, rows: list[Any], datas: list[dict[str, Any] | None]) -> None:
        self.rows = rows
        self.datas = datas
        self.futures: list[tuple[list[int], Future[_Result]]] = []


def _pool_items(
    rows: Iterable[Mapping[str, Any] | Any],
    *,
    workers: int,
    lexicons: list[str],
    fields: FieldMap,
    judge_all: bool,
    kinds: list[str] | None,
    chunk_rows: int,
    max_chunks: int,
    start_method: str,
) -> Iterator[Item]:
    names = (fields.question, fields.gt, fields.pred, fields.option_a, fields.option_b)
    context = get_context(start_method)
    # One single-process pool per worker, so that a question's rows always reach the same one.
    pools = [
        ProcessPoolExecutor(
            max_workers=1,
            mp_context=context,
            initializer=_init_worker,
            initargs=(lexicons, fields.model_dump(), kinds),
        )
        for _ in range(workers)
    ]
    router = _Router(workers)
    pending: deque[_Chunk] = deque()
    try:
        for rows_in in _chunks(rows, chunk_rows):
            datas = [unwrap(r) for r in rows_in]
            chunk = _Chunk(rows_in, datas)
            readable = [i for i, d in enumerate(datas) if d is not None]
            values = [_values(datas[i], names) for i in readable]
            for w, positions in enumerate(router.split([v[0] for v in values])):
                if positions:
                    payload = [values[p] for p in positions]
                    future = pools[w].submit(_grade_chunk, payload, names, judge_all)
                    chunk.futures.append(([readable[p] for p in positions], future))
            pending.append(chunk)
            if len(pending) >= max_chunks:
                yield from _merge(pending.popleft(), fields)
        while pending:
            yield from _merge(pending.popleft(), fields)
    finally:
        for pool in pools:
            pool.shutdown(wait=True, cancel_futures=True)


def _chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _values(data: Any, names: tuple[str, str, str, str, str]) -> tuple[Any, ...]:
    """The fields the rules read, question first (what crosses to the worker)."""
    get = data.get
    return (get(names[0]), get(names[1]), get(names[2]), get(names[3]), get(names[4]))


def _merge(chunk: _Chunk, fields: FieldMap) -> Iterator[Item]:
    graded: list[tuple[dict[str, Any], bool] | None] = [None] * len(chunk.rows)
    for at, future in chunk.futures:
        try:
            results = future.result()
        except BrokenProcessPool as exc:
            raise VqagradeError(f"a grading worker process died: {exc}") from None
        for i, result in zip(at, results, strict=True):
            graded[i] = result
    for row, data, done in zip(chunk.rows, chunk.datas, graded, strict=True):
        if data is None or done is None:
            yield unreadable(row), None, False
            continue
        fields_out, needs = done
        out = dict(data)
        out.update(fields_out)
        triple = None
        if needs:
            triple = judge_triple(
                fields_out, data[fields.question], data[fields.gt], data[fields.pred]
            )
        yield out, triple, needs
