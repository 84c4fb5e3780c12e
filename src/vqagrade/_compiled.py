"""Which rule modules run compiled (mypyc, built by ``make compile``) and whether a compiled
module is older than its source (it would run old rules)."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

#: The labelling hot path; the Makefile compiles exactly these (keep the lists in step).
MODULES = (
    "text", "reading", "focus", "mentions", "negation", "comparison", "decide", "answer",
    "polar", "yes_no", "settle",
)  # fmt: skip


def _origin(name: str) -> Path | None:
    spec = importlib.util.find_spec(f"vqagrade.{name}")
    return Path(spec.origin) if spec is not None and spec.origin else None


def compiled_modules() -> list[str]:
    """The rule modules that load as compiled extensions."""
    return [m for m in MODULES if (o := _origin(m)) is not None and o.suffix != ".py"]


def stale_modules() -> list[str]:
    """Compiled rule modules whose Python source is newer than the extension."""
    stale = []
    for m in compiled_modules():
        ext = _origin(m)
        assert ext is not None
        source = ext.with_name(f"{m}.py")
        if source.exists() and source.stat().st_mtime > ext.stat().st_mtime:
            stale.append(m)
    return stale
