"""Which rule modules run compiled (mypyc, built with the package) and whether a compiled
module is older than its source (it would run old rules)."""

from __future__ import annotations

import importlib.util
import pkgutil
from pathlib import Path


def rule_modules() -> list[str]:
    """Every module of `vqagrade.rules`: the set the build compiles (read, not listed)."""
    from . import rules

    return sorted(m.name for m in pkgutil.iter_modules(rules.__path__))


def _origin(name: str) -> Path | None:
    spec = importlib.util.find_spec(f"vqagrade.rules.{name}")
    return Path(spec.origin) if spec is not None and spec.origin else None


def compiled_modules() -> list[str]:
    """The rule modules that load as compiled extensions."""
    return [m for m in rule_modules() if (o := _origin(m)) is not None and o.suffix != ".py"]


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
