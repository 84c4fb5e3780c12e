"""Why rows are undecided: a row's reason reduced to a kind that can be counted.

The rules' reasons quote the answer ("hedge: 'could be'"); the kind drops the quotes so
that every hedge counts as one kind. A question that is not close-ended is counted by why
(``not close-ended: more than two options``); an answer the rules cannot read by which side
abstained and why (``gt: …``, which is checked first, else ``pred: …``); a failed judge call
by its fault (``judge error: judge_timeout``); an unreadable row by its first clause.
"""

from __future__ import annotations

import re

__all__ = ["reason_kind"]

_QUOTED = re.compile(r"'[^']*'")
_MEMO: dict[tuple[str, str], str] = {}
_MEMO_SIZE = 4096
_REFUSED = "not a two-option question: "


def reason_kind(method: str, reason: object) -> str:
    """The kind of an undecided row's reason (``method`` unresolved or error)."""
    text = reason if isinstance(reason, str) else ""
    key = (method, text)
    hit = _MEMO.get(key)
    if hit is None:
        hit = _kind(method, text)
        if len(_MEMO) < _MEMO_SIZE:  # reasons of unreadable rows can be row-specific
            _MEMO[key] = hit
    return hit


def _kind(method: str, reason: str) -> str:
    judge = reason.rfind("judge error: ")
    if judge >= 0:
        return reason[judge:].split(";")[0].strip()
    if reason.startswith("judge_"):
        return f"judge error: {reason.split()[0]}"
    first = reason.split("; ")[0]
    if first.startswith(_REFUSED):
        return "not close-ended: " + _plain(first[len(_REFUSED) :])
    for side in ("gt", "pred"):
        prefix = f"{side} abstains: "
        for part in reason.split("; "):
            if part.startswith(prefix):
                return f"{side}: {_plain(part[len(prefix) :])}"
    if method == "error":
        return "error: " + first.split(": ")[0][:80]  # field names are worth keeping
    return _plain(first) or method


def _quote(m: re.Match[str]) -> str:
    # Short quotes name a word of the rule ('or', 'no'); longer ones quote the answer.
    return m.group(0) if len(m.group(0)) <= 5 or m.group(0) == "'X or Y'" else "'…'"


def _plain(text: str) -> str:
    """The text without quoted specifics; ``hedge: '…'`` becomes ``hedge``."""
    out = _QUOTED.sub(_quote, text).strip()
    if out.endswith(": '…'"):
        out = out[: -len(": '…'")]
    return out[:80]
