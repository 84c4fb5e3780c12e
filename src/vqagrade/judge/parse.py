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
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .records import JudgeRequest

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


NONE_CHOICE: Final = "none"
_CHOICE = re.compile(
    r"""(?<![A-Za-z])(?:choice|answer|letter|option)(?![A-Za-z])[\s"'*_]*(?:[:=]|\bis\b)"""
    r"""[\s"'*_(\[]*(?P<letter>[A-Za-z]+)(?![A-Za-z])""",
    re.I,
)
_BARE_CHOICE = re.compile(r"""^[\s`"'*(\[{]*(?P<letter>[A-Za-z]|none)[\s`"'*.)\]}]*$""", re.I)


def read_choice(reply: str | None, letters: Collection[str], quoted: Iterable[str] = ()) -> str:
    """The option a multiple-choice judge's reply chooses: one of `letters`, ``"none"``, or
    the fault (``judge_unparseable``, ``judge_ambiguous``). The same rules as scores: quoted
    copies of the row's texts that carry a choice are cut out, every choice left must agree,
    a bare letter counts only when it is the whole reply, and only offered letters count.

    Args:
        reply: the judge's reply text, exactly as the server returned it.
        letters: the offered letters ("A", "B", ...).
        quoted: the row's texts (question, gt, pred); copies of them are not read.
    """
    if not reply:
        return UNPARSEABLE
    text = reply
    forms: set[str] = set()
    for t in quoted:
        for v in (t, json.dumps(t, ensure_ascii=False)[1:-1], json.dumps(t)[1:-1]):
            if v and _CHOICE.search(v):
                forms.add(v)
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, QUOTED)
    text = _THINK.sub(" ", text)
    found = [m.group("letter") for m in _CHOICE.finditer(text)]
    if not found:
        m = _BARE_CHOICE.match(_FENCE_LANG.sub("", text))
        found = [m.group("letter")] if m else []
    if not found:
        return UNPARSEABLE
    values = {x.lower() if x.lower() == NONE_CHOICE else x.upper() for x in found}
    if len(values) > 1:
        return AMBIGUOUS
    value = values.pop()
    return value if value == NONE_CHOICE or value in letters else UNPARSEABLE


def read_verdict(
    reply: str | None, allowed: Collection[float], request: JudgeRequest
) -> float | str:
    """The score a judge's reply gives one row, or the fault, as the live judge and the Batch
    API collector both read it.

    A two-option, yes/no or open row: the score the prompt offers (`read_reply`). A
    multiple-choice row (``request.choices``): the letter of an offered option or "none"
    (`read_choice`), scored 1 when it is the gt's letter, else 0 ("none" is 0).

    Args:
        reply: the judge's reply text, exactly as the server returned it.
        allowed: the scores the row's prompt offers (unused for a multiple-choice row).
        request: the row.
    """
    r = request
    if r.choices is None:
        return read_reply(reply, allowed, (r.pred, r.gt, r.question))
    letters = offered_letters(r.choices)
    picked = read_choice(reply, letters, (r.pred, r.gt, r.question, *r.choices))
    if picked == NONE_CHOICE:
        return 0.0  # chooses no option: it cannot be the gt's
    if picked not in letters:
        return picked  # the fault
    return 1.0 if picked == r.gt_letter else 0.0


def offered_letters(choices: Sequence[str]) -> list[str]:
    """The letters of a multiple-choice row's options ("A", "B", ...)."""
    from ..kinds import LETTERS

    return [x.value for x in LETTERS[: len(choices)]]
