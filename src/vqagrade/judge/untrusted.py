"""Limits and scrubbing for text that comes back from a judge endpoint.

A judge's reply is untrusted text: the server may be hostile or buggy, and the model may
quote the prediction under evaluation. Everything kept from a reply (``judge_raw`` in the
outputs, the cache) goes through :class:`Redactor` and then :func:`clip`:

* ``MAX_REPLY_BYTES``: a reply body larger than this is an error (``judge_too_large``), never
  read further and never accepted.
* ``RAW_MAX_CHARS``: the reply text kept in ``judge_raw`` and the cache; a longer reply keeps
  its head and its tail (where the verdict usually is) around a marker.
* any run of 8 or more characters of the API key, and bearer-shaped tokens, are replaced by
  ``[redacted]`` - an exact-match redaction misses a key echoed with one character changed.
"""

from __future__ import annotations

import re
from typing import Final

MAX_REPLY_BYTES: Final = 256 * 1024
RAW_MAX_CHARS: Final = 4096
MIN_SECRET_RUN: Final = 8
REDACTED: Final = "[redacted]"

_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}")
_KEY_SHAPED = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}")


def clip(text: str, limit: int = RAW_MAX_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters: its head and tail around a marker."""
    if len(text) <= limit:
        return text
    half = (limit - 64) // 2  # room for the marker, so clipping twice changes nothing
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[... {cut} characters clipped ...]\n{text[-half:]}"


class Redactor:
    """Removes a secret, and any run of 8+ of its characters, from text.

    Args:
        secret: the API key ("" when there is none: only bearer-shaped tokens are removed).
    """

    __slots__ = ("_grams", "_secret")

    def __init__(self, secret: str) -> None:
        self._secret = secret
        n = MIN_SECRET_RUN
        self._grams = frozenset(secret[i : i + n] for i in range(len(secret) - n + 1))

    def __call__(self, text: str) -> str:
        if self._secret and len(self._secret) < MIN_SECRET_RUN and self._secret in text:
            text = text.replace(self._secret, REDACTED)
        if self._grams:
            text = self._remove_runs(text)
        text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
        return _KEY_SHAPED.sub(REDACTED, text)

    def _remove_runs(self, text: str) -> str:
        # Every window of 8 characters that is also a window of the key is covered, so any
        # run of 8+ key characters (a near-copy, a prefix, a suffix) is covered as a whole.
        n, grams = MIN_SECRET_RUN, self._grams
        spans: list[list[int]] = []
        for i in range(len(text) - n + 1):
            if text[i : i + n] in grams:
                if spans and i <= spans[-1][1]:
                    spans[-1][1] = i + n
                else:
                    spans.append([i, i + n])
        if not spans:
            return text
        out, last = [], 0
        for start, end in spans:
            out += [text[last:start], REDACTED]
            last = end
        out.append(text[last:])
        return "".join(out)

    def __repr__(self) -> str:
        return "Redactor('***')"
