"""The API key reaches the server and nowhere else: not verdicts, cache, logs or errors."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from judge_support import req
from openai_server import OpenAIServer, Recorded, Reply

from vqagrade.errors import JudgeError
from vqagrade.judge import Judge, JudgeConfig, cache_stats

KEY = "sk-vqagrade-TEST-7f3a9c0e-5b1d-do-not-leak"
ENV = "VQAGRADE_TEST_JUDGE_KEY"


def _echo_auth(rec: Recorded) -> Reply:
    # A hostile (or buggy) server that repeats the Authorization header in its reply.
    return Reply(content=f"{{ score: 1 }} (you sent {rec.headers.get('authorization')})")


def test_key_never_leaks(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    closed_port: int,
) -> None:
    monkeypatch.setenv(ENV, KEY)
    caplog.set_level(logging.DEBUG)  # everything: ours, openai's, the HTTP stack's
    cache_path = tmp_path / "judge.sqlite3"
    config = JudgeConfig(
        model="m",
        api_key_env=ENV,
        cache_path=cache_path,
        timeout=0.3,
        max_retries=1,
        backoff_base=0.001,
        concurrency=1,  # rows meet the scripted replies in order
    )
    seen: list[str] = []
    with OpenAIServer(default=_echo_auth) as server:
        server.enqueue(
            Reply(status=429, headers={"Retry-After": "0"}),
            500,
            Reply(status=401),
            "garbage",
            "garbage",
            Reply(delay=2),
            Reply(delay=2),
            Reply(body=b"<html>"),
            Reply(body=b"<html>"),
        )
        with Judge(config.model_copy(update={"base_url": server.base_url})) as judge:
            verdicts = judge.judge_many([req(f"row {i}") for i in range(8)])
            seen += [repr(judge.__dict__), judge.stats.model_dump_json()]
        assert any(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)
    with Judge(config.model_copy(update={"base_url": f"http://127.0.0.1:{closed_port}/v1"})) as j:
        verdicts += j.judge_many([req("refused")])

    assert [v.error for v in verdicts] == [
        "judge_http_500",
        "judge_http_401",
        "judge_unparseable",
        "judge_timeout",
        "judge_invalid_response",
        None,
        None,
        None,
        "judge_connection",
    ]
    assert any("[redacted]" in (v.raw or "") for v in verdicts)

    for name in ("OPENAI_API_KEY", "NO_SUCH_KEY_VAR"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(JudgeError) as missing:
        Judge(JudgeConfig(model="m", api_key_env="NO_SUCH_KEY_VAR", cache_path=cache_path))

    seen += [v.model_dump_json() for v in verdicts]
    seen += [repr(config), str(missing.value), repr(missing.value), str(cache_stats(cache_path))]
    seen += [caplog.text, *capsys.readouterr()]
    assert caplog.text  # something was logged, so the check below means something
    for text in seen:
        assert KEY not in text
    files = [p for p in tmp_path.iterdir() if p.name.startswith("judge.sqlite3")]
    assert files
    for f in files:
        assert KEY.encode() not in f.read_bytes()
