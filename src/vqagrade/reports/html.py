"""One self-contained HTML report of a scoring run or of a judge audit.

Everything is inline (CSS, SVG charts, a small JS filter): the file opens offline and makes
no network request. A scoring report shows the headline figures, the score histogram, the
gt x pred label heatmap, the method breakdown, the judge's cost and a searchable table of the
unresolved, error and less-than-full-marks rows. An audit report shows agreement and kappas,
the rules x judge confusion matrix, agreement by rule and by gt label, impossible judge
scores and a searchable table of the disagreements.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Generator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .audit_page import audit_report_html
from .charts import LISTING_LIMIT
from .score_page import score_report_html

if TYPE_CHECKING:
    from ..grader import Grader
    from .audit import AuditResult

__all__ = [
    "LISTING_LIMIT",
    "audit_report_html",
    "is_audit_row",
    "report_from_audit",
    "report_from_file",
    "score_report_html",
]


def is_audit_row(row: Mapping[str, Any]) -> bool:
    """True for a row of an audit disagreements file (``vqagrade audit -o``)."""
    return row.get("kind") == "disagreement" or ("rules_score" in row and "judge_score" in row)


def _from_csv(row: dict[str, Any]) -> dict[str, Any]:
    """Undo CSV's all-text cells for the fields the report reads (score, labels, flags)."""
    out = dict(row)
    for key in ("score", "rules_score", "judge_score", "diff", "line"):
        value = out.get(key)
        if isinstance(value, str):
            try:
                out[key] = float(value) if value.strip() else None
            except ValueError:
                pass
    for key in ("gt_label", "pred_label", "judge_model", "judge_raw", "raw"):
        if out.get(key) == "":
            out[key] = None
    if out.get("judge_cached") in ("true", "false"):
        out["judge_cached"] = out["judge_cached"] == "true"
    return out


def _input_rows(path: str, fmt: str | None) -> Generator[dict[str, Any], None, None]:
    from ..io.rows import detect_format, read_rows

    csv = detect_format(path, fmt) == "csv"
    stream = read_rows(path, fmt)
    try:
        for r in stream:
            if r.data is not None:
                yield _from_csv(r.data) if csv else r.data
            else:
                yield {"line": r.line, "raw": r.raw, "method": "error", "reason": r.error}
    finally:
        stream.close()


def report_from_file(
    path: str, fmt: str | None = None, *, title: str | None = None, **options: Any
) -> tuple[str, str, int]:
    """Render a report of a score output or an audit disagreements file.

    The kind is told from the first readable row. Returns ``(html, kind, rows)`` with kind
    ``"score"`` or ``"audit"``.

    Args:
        path: the file (JSON lines or CSV, optionally gzipped; ``-`` for stdin).
        fmt: its format when the extension does not tell.
        title: the page title.
        **options: passed to `score_report_html` (full_marks, fields, by).

    Raises:
        InputError: the file cannot be read, or is not graded output.
    """
    rows = _input_rows(path, fmt)
    source = os.path.basename(path) if path != "-" else "stdin"
    head: list[dict[str, Any]] = []
    for row in rows:
        head.append(row)
        if "raw" not in row or row.get("method") != "error":
            break
    if head and is_audit_row(head[-1]):
        found = [r for r in itertools.chain(head, rows) if is_audit_row(r)]
        page = audit_report_html(found, title=title or "vqagrade judge audit", source=source)
        return page, "audit", len(found)
    if head and not _graded(head[-1]):
        rows.close()
        raise InputError(
            f"{source} is not graded output (no 'method' or 'score' field): run "
            f"'vqagrade score {path} -o graded.jsonl' and report on graded.jsonl"
        )
    counted = _Counted(itertools.chain(head, rows))
    html = score_report_html(counted, title=title or "vqagrade report", source=source, **options)
    return html, "score", counted.n


def _graded(row: Mapping[str, Any]) -> bool:
    return "method" in row and "score" in row


class _Counted:
    """An iterable that counts what it yields."""

    def __init__(self, rows: Iterable[dict[str, Any]]) -> None:
        self.rows, self.n = rows, 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self.rows:
            self.n += 1
            yield row


def report_from_audit(
    path: str,
    judge_field: str,
    grader: Grader | None = None,
    fmt: str | None = None,
    *,
    title: str | None = None,
) -> tuple[str, AuditResult]:
    """Audit ``path`` and render the full audit report; returns ``(html, result)``.

    Args:
        path: rows an LLM judge already scored.
        judge_field: the field holding the judge's score or reply.
        grader: the rules (field names, lexicons); default: a plain `Grader()`.
        fmt: the input format when the extension does not tell.
        title: the page title.

    Raises:
        InputError: the file cannot be read.
    """
    from ..io.rows import read_rows
    from .audit import audit_rows

    result = audit_rows(read_rows(path, fmt), judge_field, grader)
    source = os.path.basename(path) if path != "-" else "stdin"
    html = audit_report_html(
        result.disagreements, result, title=title or "vqagrade judge audit", source=source
    )
    return html, result
