"""Token estimates for a dry run, before any call is paid for."""

from __future__ import annotations

import importlib
import math
from functools import lru_cache
from typing import Any

# Chat formatting adds a few tokens per message (role markers, separators).
MESSAGE_OVERHEAD_TOKENS = 4


@lru_cache(maxsize=1)
def _encoding() -> Any:
    try:
        tiktoken = importlib.import_module("tiktoken")  # optional: not a dependency
        return tiktoken.get_encoding("o200k_base")
    except Exception:  # not installed, or its vocabulary cannot be fetched (offline)
        return None


def estimate_prompt_tokens(text: str) -> int:
    """Tokens ``text`` will cost as a prompt.

    Exact for OpenAI's o200k vocabulary when ``tiktoken`` is importable; otherwise
    ``ceil(len(text) / 4)``, the usual rule of thumb for English (about four characters per
    token), which is good to a few tens of percent for other tokenizers too.

    Args:
        text: the prompt text.
    """
    enc = _encoding()
    if enc is not None:
        return len(enc.encode(text, disallowed_special=()))
    return math.ceil(len(text) / 4)
