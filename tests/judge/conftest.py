"""Fixtures for the judge tests: a real local OpenAI-compatible server and fast judges."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from judge_support import MakeJudge
from openai_server import OpenAIServer, Reply

from vqagrade.judge import Judge, JudgeConfig


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    """A running server whose default reply is ``{ score: 1 }``."""
    with OpenAIServer(default=lambda rec: Reply(content="{ score: 1 }")) as s:
        yield s


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "judge.sqlite3"


@pytest.fixture
def make_judge(
    server: OpenAIServer, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MakeJudge]:
    """Build judges against ``server`` with short timeouts and backoff; closed at teardown."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judges: list[Judge] = []

    def make(**overrides: Any) -> Judge:
        settings: dict[str, Any] = {
            "model": "test-model",
            "base_url": server.base_url,
            "cache_path": cache_path,
            "timeout": 2.0,
            "max_retries": 2,
            "backoff_base": 0.001,
            "backoff_max": 0.05,
        }
        settings.update(overrides)
        judge = Judge(JudgeConfig(**settings))
        judges.append(judge)
        return judge

    yield make
    for judge in judges:
        judge.close()


@pytest.fixture
def closed_port() -> int:
    """A local port nobody listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
