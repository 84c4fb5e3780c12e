"""The row contract: what vqagrade reads from an input row and what every output row gains.

Every path that grades rows (the grader, the open task, the process pool, Arrow, Parquet)
takes its column names, its field checks, its error rows and the judge's merge from here::

    data = unwrap(row)              # the row's fields, or None for an unreadable record
    if data is None:
        out = unreadable(row)       # one error row, never a silent drop
    ...
    merge_judge(out, judged)        # the judge's verdict over the rules' fields
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel

__all__ = [
    "CONTRACT_COLUMNS",
    "ERROR_COLUMNS",
    "JUDGE_COLUMNS",
    "MAX_TEXT_CHARS",
    "FieldMap",
    "InputRow",
    "Method",
    "error_row",
    "field_problem",
    "merge_judge",
    "unreadable",
    "unwrap",
]

CONTRACT_COLUMNS = (
    "score", "method", "gt_label", "pred_label", "options", "reason", "question_kind"
)  # fmt: skip
"""The fields every output row gains, in order."""
JUDGE_COLUMNS = ("judge_model", "judge_prompt", "judge_raw", "judge_cached")
"""Extra fields of rows the LLM judge saw."""
ERROR_COLUMNS = ("line", "raw")
"""Fields of an error row for a record that could not be read at all."""
MAX_TEXT_CHARS = 100_000
"""Longest question, gt or pred graded; a longer one makes an error row."""


class Method(str, Enum):
    """How a row's score was decided."""

    RULE = "rule"
    """Both answers were labelled by the rules and the truth table gave the score."""
    LLM = "llm"
    """The rules abstained and the LLM judge gave the score."""
    UNRESOLVED = "unresolved"
    """The rules abstained and no judge was configured (score is null)."""
    ERROR = "error"
    """The row could not be read, or the judge failed after its retries (score is null)."""


class FieldMap(BaseModel):
    """Names of the input fields vqagrade reads (remappable on the command line)."""

    question: str = "question"
    gt: str = "gt"
    pred: str = "pred"
    id: str = "id"
    option_a: str = "option_a"
    option_b: str = "option_b"


@dataclass(slots=True)  # not frozen: a frozen __init__ costs ~0.4 us, once per input row
class InputRow:
    """One input record: the parsed row, or why it could not be read.

    ``line`` is 1-based. JSON lines: the physical line number (blank lines are skipped but
    counted, so it matches an editor). CSV: the data record number, header excluded.
    """

    line: int
    data: dict[str, Any] | None
    error: str | None = None
    raw: str | None = None


def unwrap(row: object) -> dict[str, Any] | None:
    """The fields of a row (a mapping or an `InputRow`), or None when it could not be read."""
    if type(row) is InputRow:
        data: object = row.data
    elif isinstance(row, Mapping):
        data = row
    else:
        data = getattr(row, "data", None)
    if type(data) is dict:
        return data
    if data is not None and isinstance(data, Mapping):
        return dict(data)
    return None


def unreadable(row: object) -> dict[str, Any]:
    """The error row for a record `unwrap` could not read (keeps its line and raw text)."""
    why = getattr(row, "error", None) or "the row is not an object"
    return error_row(getattr(row, "line", None), getattr(row, "raw", None), why)


def error_row(line: int | None, raw: str | None, reason: str) -> dict[str, Any]:
    """The output row for a record that could not be read at all."""
    row: dict[str, Any] = {"line": line, "raw": raw}
    row.update(score=None, method=Method.ERROR.value, gt_label=None, pred_label=None, options=None)
    row["reason"] = reason
    row["question_kind"] = None
    return row


def merge_judge(row: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """Merge the judge's fields into an output row, keeping the rules' reason: after the
    judge's for a judged row, before the judge's fault for a failed call."""
    rules = row.get("reason")
    row.update(fields)
    if not rules:
        return
    if row.get("method") == Method.LLM.value:
        row["reason"] = f"{row['reason']}; rules: {rules}"
    elif row.get("method") == Method.ERROR.value:
        row["reason"] = f"{rules}; judge error: {fields.get('reason') or 'judge_internal'}"


def field_problem(name: str, value: Any, *, allow_empty: bool = False) -> str | None:
    """Why a field cannot be graded (None when it can); `allow_empty` lets "" through."""
    if type(value) is str and len(value) <= MAX_TEXT_CHARS and value and not value.isspace():
        return None
    if value is None:
        return f"missing field '{name}'"
    if not isinstance(value, str):
        return f"field '{name}' is {type(value).__name__}, expected a string"
    if not allow_empty and not value.strip():
        return f"field '{name}' is empty"
    if len(value) > MAX_TEXT_CHARS:
        return f"field '{name}' is longer than {MAX_TEXT_CHARS:,} characters"
    return None
