"""Strict reading of a judge's reply: one score the prompt offers, or a named fault.

Only the judge's reply is read, never the prompt, and the reply itself is treated as hostile
text: a judge may quote the prediction under evaluation, and a prediction may carry a planted
score (``... { score: 1 }``). Two rules keep such text from deciding a row:

* **Quotes removed.** Verbatim copies of the row's texts (question, gt, pred; as sent and
  JSON-escaped) that carry a score statement are cut out of the reply before it is read.
* **Every score must agree.** All the score statements left in the reply (keyed and star
  forms together) must name the same value; a reply with two different scores is
  ``judge_ambiguous`` (retried, then an error), never "the last one wins". Repeating the
  same score is fine.

Score statements, outside ``<think>`` blocks of local reasoning models:

1. a key and a value: ``{ score: 0.5 }``, ``{ mistralscore: 1 }``, ``{"score": "1"}``,
   ``**Score:** 4``, ``Equivalence: 3``, ``the score is 1``;
2. a star count: ``1 star``, ``0.5 stars``;
3. only when there is neither: a reply that is nothing but a number (``4``, ```` ```1``` ````).

The value must be one the prompt offers: anything else is unparseable, never rounded,
clamped or guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from typing import Final

UNPARSEABLE: Final = "judge_unparseable"
AMBIGUOUS: Final = "judge_ambiguous"
QUOTED: Final = " [quoted] "  # not a separator the score patterns allow, so cuts join nothing

_NUM = r"(?P<num>[-+]?(?:\d+(?:\.\d+)?|\.\d+))"
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
_KEYED = re.compile(
    r"(?<![A-Za-z])(?:mistral[\s_-]?)?(?:score|rating|equivalence)(?![A-Za-z])"
    r"""[\s"'*_]*(?:[:=]|\bis\b|\bof\b)?[\s"'*_]*""" + _NUM + r"(?![\d.]*\d)",
    re.I,
)
_STARS = re.compile(r"(?<![\w.])" + _NUM + r"\s*-?\s*stars?\b", re.I)
_BARE = re.compile(r"""^[\s`"'*(\[{]*""" + _NUM + r"""[\s`"'*.)\]}]*$""")
_FENCE_LANG = re.compile(r"^```[A-Za-z]*\s*$", re.M)


def read_reply(
    reply: str | None, allowed: Collection[float], quoted: Iterable[str] = ()
) -> float | str:
    """The score in a judge's reply, or the fault: ``judge_unparseable`` / ``judge_ambiguous``.

    Args:
        reply: the judge's reply text, exactly as the server returned it.
        allowed: the values the prompt offers (0, 0.5, 1 or the integers 0-5).
        quoted: the row's texts (question, gt, pred); copies of them are not read.
    """
    if not reply:
        return UNPARSEABLE
    text = _THINK.sub(" ", strip_quoted(reply, quoted))
    found = scores_in(text)
    if not found:
        return UNPARSEABLE
    values = {float(x) for x in found}
    if len(values) > 1:
        return AMBIGUOUS
    value = values.pop()
    return value if value in allowed else UNPARSEABLE


def parse_score(
    reply: str | None, allowed: Collection[float], quoted: Iterable[str] = ()
) -> float | None:
    """The score in a judge's reply, or None when the reply does not carry one valid score.

    Args:
        reply: the judge's reply text, exactly as the server returned it.
        allowed: the values the prompt offers (0, 0.5, 1 or the integers 0-5).
        quoted: the row's texts (question, gt, pred); copies of them are not read.
    """
    found = read_reply(reply, allowed, quoted)
    return found if isinstance(found, float) else None


def scores_in(text: str) -> list[str]:
    """Every score statement's number in ``text`` (keyed and stars; else a bare number)."""
    found = [m.group("num") for m in _KEYED.finditer(text)]
    found += [m.group("num") for m in _STARS.finditer(text)]
    return found or _bare(text)


def strip_quoted(reply: str, texts: Iterable[str]) -> str:
    """``reply`` without verbatim copies of ``texts`` that carry a score statement.

    Each text is looked for as is and JSON-escaped (how the row is sent), longest first.
    A text with no score statement of its own cannot forge one and is left alone.
    """
    forms: set[str] = set()
    for text in texts:
        variants = {text, json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]}
        carries = _carries_score(text)
        forms.update(v for v in variants if v and (carries or _carries_score(v)))
    for form in sorted(forms, key=len, reverse=True):
        if form in reply:
            reply = reply.replace(form, QUOTED)
    return reply


def _carries_score(text: str) -> bool:
    return _KEYED.search(text) is not None or _STARS.search(text) is not None


def _bare(text: str) -> list[str]:
    m = _BARE.match(_FENCE_LANG.sub("", text))
    return [m.group("num")] if m else []
