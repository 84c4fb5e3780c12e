"""JSON text of any value, however deep: the writers' fallback when orjson or Arrow give up.

orjson refuses values nested deeper than 254 levels, stdlib ``json`` and any recursive walk
hit Python's recursion limit near 1,000, and Parquet readers cannot read back columns nested
a few dozen levels deep; an input line nested 1,024 deep is still valid JSON that orjson
reads. These functions walk with an explicit stack, so no depth makes them fail: a field too
deep for a writer is written as its JSON text (a string) instead of aborting the run.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["depth_over", "json_text"]

_encode_str = json.encoder.encode_basestring_ascii


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return str(_encode_str(value))
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else "null"
    return str(_encode_str(str(value)))


def json_text(value: Any) -> str:
    """Compact, ASCII-only JSON of ``value`` (dicts, lists, tuples, scalars) at any depth.

    Keys become strings, NaN and infinities null, other objects their ``str()``, lone
    surrogates ``\\udXXX`` escapes; integers of any size stay exact.
    """
    out: list[str] = []
    # Each frame: an iterator over a container's items, and whether it is a dict.
    stack: list[tuple[Any, bool]] = []
    first: list[bool] = []

    def start(v: Any) -> bool:
        """Emit a scalar, or open a container (True: pushed a frame)."""
        if isinstance(v, dict):
            out.append("{")
            stack.append((iter(v.items()), True))
            first.append(True)
            return True
        if isinstance(v, (list, tuple)):
            out.append("[")
            stack.append((iter(v), False))
            first.append(True)
            return True
        out.append(_scalar(v))
        return False

    start(value)
    while stack:
        it, is_dict = stack[-1]
        try:
            item = next(it)
        except StopIteration:
            stack.pop()
            first.pop()
            out.append("}" if is_dict else "]")
            continue
        if first[-1]:
            first[-1] = False
        else:
            out.append(",")
        if is_dict:
            key, item = item
            out.append(_scalar(key if isinstance(key, str) else str(key)))
            out.append(":")
        start(item)
    return "".join(out)


def depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` levels deep (a scalar: 0)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, (list, tuple)):
            continue
        d += 1
        if d > limit:
            return True
        for item in v:
            if isinstance(item, (dict, list, tuple)):
                stack.append((item, d))
    return False
