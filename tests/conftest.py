"""Refuse to test a stale compiled build: it would run the old rules, not the source."""

from __future__ import annotations

import pytest

from vqagrade._compiled import stale_modules


def pytest_configure(config: pytest.Config) -> None:
    stale = stale_modules()
    if stale:
        raise pytest.UsageError(
            f"compiled modules older than their source: {', '.join(stale)}; run `make compile`"
        )
