"""Strict reading of a judge's reply: a score the prompt offers, or nothing.

Only the judge's reply is read, never the prompt, so text inside a prediction cannot forge a
score. The reply is read in three tiers, the first that finds anything decides:

1. a key and a value: ``{ score: 0.5 }``, ``{ mistralscore: 1 }``, ``{"score": "1"}``,
   ``**Score:** 4``, ``Equivalence: 3``, ``the score is 1``;
2. a star count: ``1 star``, ``0.5 stars``;
3. a reply that is nothing but a number (``4``, ```` ```1``` ````).

Within a tier the last match wins (a judge that reconsiders ends with its final answer), and it
must be one of the values the prompt offers: anything else is unparseable, never rounded,
clamped or guessed. ``<think>`` blocks of local reasoning models are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Collection

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


def parse_score(reply: str | None, allowed: Collection[float]) -> float | None:
    """The score in a judge's reply, or None when the reply does not carry a valid one.

    Args:
        reply: the judge's reply text, exactly as the server returned it.
        allowed: the values the prompt offers (0, 0.5, 1 or the integers 0-5).
    """
    if not reply:
        return None
    text = _THINK.sub(" ", reply)
    for found in (_KEYED.findall(text), _STARS.findall(text), _bare(text)):
        if found:
            value = float(found[-1])
            return value if value in allowed else None
    return None


def _bare(text: str) -> list[str]:
    m = _BARE.match(_FENCE_LANG.sub("", text))
    return [m.group("num")] if m else []
