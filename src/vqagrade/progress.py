"""A progress bar for long runs: rows, rows/s, judge rows in flight, ETA (rich, on stderr).

Silent when stderr is not a terminal, or when disabled (``--quiet``)::

    with progress(total=count_rows(path), judge_in_flight=lambda: stats.in_flight) as p:
        for row in rows:
            ...
            p.advance()

``advance`` is cheap enough for the per-row loop: it counts locally and hands the count to
rich at most every ``1/refresh_per_second`` seconds; rich itself is imported only when the
bar is shown.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

__all__ = ["Progress", "progress"]


class Progress:
    """Counts rows; a rich bar shows them when enabled (else every call is a no-op)."""

    def __init__(self, bar: Any = None, task: Any = None, refresh: float = 0.1) -> None:
        self._bar = bar
        self._task = task
        self._refresh = refresh
        self._next = 0.0
        self.rows = 0
        """rows counted so far"""

    @property
    def enabled(self) -> bool:
        """Whether a bar is shown."""
        return self._bar is not None

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more rows."""
        self.rows += n
        if self._bar is not None:
            now = time.monotonic()
            if now >= self._next:
                self._next = now + self._refresh
                self._bar.update(self._task, completed=self.rows)

    def set_total(self, total: int | None) -> None:
        """Set (or clear) the number of rows expected, for the ETA."""
        if self._bar is not None:
            self._bar.update(self._task, total=total)

    def _finish(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.rows)


@contextmanager
def progress(
    total: int | None = None,
    *,
    enabled: bool | None = None,
    judge_in_flight: Callable[[], int] | None = None,
    description: str = "",
    stream: IO[str] | None = None,
) -> Iterator[Progress]:
    """A progress bar around a loop; yields a :class:`Progress` to ``advance``.

    Args:
        total: rows expected (shows a bar, percentage and ETA); None when unknown.
        enabled: force the bar on or off; default: on when ``stream`` is a terminal.
        judge_in_flight: returns the rows waiting on the LLM judge (shown when given).
        description: the label in front of the bar.
        stream: where to draw; default stderr.
    """
    out = stream if stream is not None else sys.stderr
    if enabled is None:
        enabled = _is_terminal(out)
    if not enabled:
        yield Progress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        SpinnerColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("-- rows/s" if speed is None else f"{speed:,.0f} rows/s")

    class JudgeColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            n = judge_in_flight() if judge_in_flight is not None else 0
            return Text(f"judge: {n:,}")

    # Fits 80 columns at a million rows: spinner, [bar], done/total, rate, judge, eta|elapsed.
    columns: list[ProgressColumn | str] = [SpinnerColumn()]
    if description:
        columns.append(TextColumn("{task.description}"))
    if total is not None:
        columns.append(BarColumn(bar_width=16))
    columns += [MofNCompleteColumn(), RateColumn()]
    if judge_in_flight is not None:
        columns.append(JudgeColumn())
    if total is not None:
        columns += ["eta", TimeRemainingColumn()]
    else:
        columns.append(TimeElapsedColumn())
    console = Console(file=out, force_terminal=True if stream is not None else None)
    bar = RichProgress(*columns, console=console, transient=False, refresh_per_second=8)
    task = bar.add_task(description, total=total)
    p = Progress(bar, task)
    with bar:
        try:
            yield p
        finally:
            p._finish()


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
