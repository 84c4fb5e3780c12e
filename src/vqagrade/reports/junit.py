"""JUnit XML for CI systems: one testcase per gate (the default), or one per graded row.

Summary mode (``--junit-mode summary``): one testcase per gate of the run (``fail-under``,
``min-coverage``, ``strict``, ``judge``; a single ``summary`` testcase when none is set), so
the CI's verdict and the file agree; the run's figures are in each testcase's system-out.

Rows mode (``--junit-mode rows``): a row with full marks passes; a lower score is a
``<failure>``; an ``error`` row is an ``<error>``; an ``unresolved`` row is ``<skipped>``
(nobody decided it). The message carries the row's reason and the body its trace (question,
answers, labels, score, method, judge reply). Text is escaped and characters XML 1.0 forbids
are dropped, so any input yields a well-formed file.

Streaming: `JUnitWriter` keeps only counters in memory; the testcases are spooled to a
temporary file and copied behind the ``<testsuite>`` header (which needs the totals) on close.
The output file is opened at once, so a bad path fails before any row is graded.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from ..errors import OutputError
from ..io.atomic import AtomicFile
from .summary import group_label

if TYPE_CHECKING:
    from .gates import Gate
    from .summary import Summary

__all__ = ["JUnitWriter", "write_junit"]

_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MESSAGE_CHARS = 500
_FIELD_CHARS = 2_000


def _clean(value: Any, limit: int = _FIELD_CHARS) -> str:
    text = _ILLEGAL.sub("\ufffd", "" if value is None else str(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _score(value: Any) -> str:
    return "null" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


class JUnitWriter:
    """Writes a JUnit XML report row by row; use as a context manager or call `close`.

    Args:
        path: the XML file to write.
        suite: the testsuite name (also each testcase's classname).
        full_marks: the score a passing row has (1 for two-option, 5 for open-ended).
        id_field: the field naming each testcase; rows without it are named by line.
        question_field: field with the question (for the trace).
        gt_field: field with the ground truth (for the trace).
        pred_field: field with the prediction (for the trace).
        group_by: fields (dotted paths) whose values name each row's classname (``--group-by``).

    Raises:
        OutputError: the file cannot be written.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        suite: str = "vqagrade",
        full_marks: float = 1.0,
        id_field: str = "id",
        question_field: str = "question",
        gt_field: str = "gt",
        pred_field: str = "pred",
        group_by: Sequence[str] = (),
    ) -> None:
        self.group_by = tuple(group_by)
        self.path = os.fspath(path)
        self.suite = suite
        self.full_marks = full_marks
        self.fields = (id_field, question_field, gt_field, pred_field)
        self.tests = self.failures = self.errors = self.skipped = 0
        # Opened now, so an unwritable path fails before any grading is done; written under a
        # temporary name and renamed over the path by close() (see vqagrade.io.atomic).
        self._target = AtomicFile(self.path)
        self._body: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._closed = False

    def add(self, row: Mapping[str, Any]) -> None:
        """Append one output row as a testcase."""
        self.tests += 1
        id_field = self.fields[0]
        ident = row.get(id_field)
        if ident is None or ident == "":
            line = row.get("line")
            ident = f"line {line}" if line is not None else f"row {self.tests}"
        method = str(row.get("method") or "error")
        score = row.get("score")
        reason = _clean(row.get("reason"), _MESSAGE_CHARS)
        group = group_label(row, self.group_by) if self.group_by else self.suite
        name, cls = quoteattr(_clean(ident, 200)), quoteattr(_clean(group, 200))
        out = [f'  <testcase name={name} classname={cls} time="0">']
        if method == "error":
            self.errors += 1
            out.append(self._element("error", reason, row, 'type="error" '))
        elif score is None or method == "unresolved":
            self.skipped += 1
            out.append(f"    <skipped message={quoteattr('unresolved: ' + reason)}/>")
        elif isinstance(score, (int, float)) and score < self.full_marks:
            self.failures += 1
            msg = f"score {_score(score)} < {_score(self.full_marks)}: {reason}"
            out.append(self._element("failure", msg, row, 'type="score" '))
        out.append("  </testcase>\n")
        self._body.write("\n".join(out))

    def add_gates(self, gates: Sequence[Gate], summary: Summary) -> None:
        """Summary mode: one testcase per gate (a failed gate is a ``<failure>``), or one
        passing ``summary`` testcase when no gate was set; the figures in system-out."""
        figures = summary.figures.render()
        if summary.by:
            figures += "\n" + "\n".join(summary.render_groups())
        reasons = "\n".join(summary.render_reasons())
        out_text = escape(_clean(figures + ("\n" + reasons if reasons else ""), 20_000))
        cls = quoteattr(_clean(self.suite, 200))
        for gate in gates or ():
            self.tests += 1
            out = [f'  <testcase name={quoteattr(gate.name)} classname={cls} time="0">']
            if not gate.passed:
                self.failures += 1
                msg = quoteattr(_clean(gate.message, _MESSAGE_CHARS))
                body = escape(gate.message)
                out.append(f'    <failure type="gate" message={msg}>{body}</failure>')
            out.append(f"    <system-out>{out_text}</system-out>")
            out.append("  </testcase>\n")
            self._body.write("\n".join(out))
        if not gates:
            self.tests += 1
            self._body.write(
                f'  <testcase name="summary" classname={cls} time="0">\n'
                f"    <system-out>{out_text}</system-out>\n  </testcase>\n"
            )

    def _element(self, tag: str, message: str, row: Mapping[str, Any], extra: str) -> str:
        trace = escape(self._trace(row))
        return f"    <{tag} {extra}message={quoteattr(message)}>{trace}</{tag}>"

    def _trace(self, row: Mapping[str, Any]) -> str:
        _, q, gt, pred = self.fields
        lines = [f"question: {_clean(row.get(q))}"]
        options = row.get("options")
        if isinstance(options, list) and len(options) == 2:
            lines.append(f"options: A = {_clean(options[0])!r}   B = {_clean(options[1])!r}")
        lines.append(f"gt: {_clean(row.get(gt))!r} -> {row.get('gt_label') or '-'}")
        lines.append(f"pred: {_clean(row.get(pred))!r} -> {row.get('pred_label') or '-'}")
        lines.append(f"score: {_score(row.get('score'))}   method: {row.get('method')}")
        lines.append(f"reason: {_clean(row.get('reason'))}")
        if row.get("judge_raw") is not None:
            lines.append(f"judge reply: {_clean(row.get('judge_raw'))}")
        if row.get("raw") is not None:
            lines.append(f"raw input: {_clean(row.get('raw'))}")
        return "\n".join(lines)

    def close(self) -> None:
        """Write the file: the suite header with the totals, then every testcase."""
        if self._closed:
            return
        self._closed = True
        counts = (
            f'tests="{self.tests}" failures="{self.failures}" errors="{self.errors}" '
            f'skipped="{self.skipped}" time="0"'
        )
        suite = quoteattr(_clean(self.suite, 200))
        out = io.TextIOWrapper(self._target.file, encoding="utf-8")
        try:
            out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            out.write(f"<testsuites name={suite} {counts}>\n")
            out.write(f" <testsuite name={suite} {counts}>\n")
            self._body.seek(0)
            for chunk in iter(lambda: self._body.read(1 << 16), ""):
                out.write(chunk)
            out.write(" </testsuite>\n</testsuites>\n")
            out.flush()
            out.detach()
        except OSError as exc:
            self._target.discard()
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        finally:
            self._body.close()
        self._target.commit()

    def abort(self) -> None:
        """Stop: no file is written (the path is left as it was)."""
        if self._closed:
            return
        self._closed = True
        self._target.discard()
        self._body.close()

    def __enter__(self) -> JUnitWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def write_junit(
    rows: Iterable[Mapping[str, Any]],
    path: str | os.PathLike[str],
    **options: Any,
) -> JUnitWriter:
    """Write output rows as a JUnit XML file; returns the writer with its counts.

    Args:
        rows: output rows of `vqagrade score` (any mapping with score, method, reason).
        path: the XML file to write.
        **options: `JUnitWriter` options (suite, full_marks, id_field...).
    """
    writer = JUnitWriter(path, **options)
    with writer:
        for row in rows:
            writer.add(row)
    return writer
