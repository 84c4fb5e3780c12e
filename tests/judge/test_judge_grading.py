"""The judge wired into grading: only unsettled rows go out, over real HTTP, cached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Reply
from typer.testing import CliRunner

from vqagrade.cli import app

ROWS = [
    {
        "id": "r1",
        "question": "Is the lesion in the left or right kidney?",
        "gt": "left",
        "pred": "left",
    },
    {
        "id": "r2",
        "question": "Is this a CT or MRI?",
        "gt": "CT",
        "pred": "It could be a CT or an MRI.",
    },
    {
        "id": "r3",
        "question": "Is the patient male or female?",
        "gt": "female",
        "pred": "I'm sorry, I cannot tell.",
    },
    {"id": "r4", "question": "Is this a CT or MRI?", "gt": "CT"},
]
SECRET = "sk-test-DO-NOT-LEAK-4242"


def _run(
    tmp_path: Path, server: OpenAIServer, *extra: str, code: int = 0
) -> tuple[list[dict[str, object]], str]:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--judge-model", "m", "--judge-base-url"]
    args += [server.base_url, "--cache", str(tmp_path / "c.sqlite3"), *extra]
    res = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": SECRET})
    assert res.exit_code == code, res.output
    return [json.loads(line) for line in out.read_text().splitlines()], res.output


@pytest.fixture
def judge_server() -> OpenAIServer:
    with OpenAIServer(default=lambda rec: Reply(content="{ score: 0.5 }")) as s:
        yield s


def test_only_unsettled_rows_are_judged(tmp_path: Path, judge_server: OpenAIServer) -> None:
    rows, _ = _run(tmp_path, judge_server)
    assert [r["method"] for r in rows] == ["rule", "llm", "llm", "error"]
    assert len(judge_server.requests) == 2
    judged = rows[1]
    assert judged["score"] == 0.5 and judged["judge_raw"] == "{ score: 0.5 }"
    assert judged["judge_model"] == "m" and judged["judge_prompt"] == "gpt"
    assert judged["judge_cached"] is False
    assert "could be" in str(judged["reason"])


def test_second_run_is_served_from_the_cache(tmp_path: Path, judge_server: OpenAIServer) -> None:
    _run(tmp_path, judge_server)
    calls = len(judge_server.requests)
    rows, _ = _run(tmp_path, judge_server)
    assert len(judge_server.requests) == calls
    assert [r.get("judge_cached") for r in rows if r["method"] == "llm"] == [True, True]


def test_unparseable_reply_becomes_an_error_row(tmp_path: Path) -> None:
    with OpenAIServer(default=lambda rec: Reply(content="I think it is fine")) as s:
        # Every judge call failed: the run fails too (exit 1), the rows say why.
        rows, _ = _run(tmp_path, s, "--judge-max-retries", "1", code=1)
    judged = [r for r in rows if r["id"] in ("r2", "r3")]
    assert all(r["method"] == "error" and r["score"] is None for r in judged)
    assert all(str(r["reason"]).endswith("; judge error: judge_unparseable") for r in judged)
    assert all(r["judge_raw"] == "I think it is fine" for r in judged)


def test_judge_all_sends_every_readable_row(tmp_path: Path, judge_server: OpenAIServer) -> None:
    rows, _ = _run(tmp_path, judge_server, "--judge-all")
    assert [r["method"] for r in rows] == ["llm", "llm", "llm", "error"]


def test_dry_run_calls_nothing(tmp_path: Path, judge_server: OpenAIServer) -> None:
    rows, output = _run(tmp_path, judge_server, "--dry-run")
    assert len(judge_server.requests) == 0
    assert "dry run: 2 rows would go to the judge" in output
    assert [r["method"] for r in rows] == ["rule", "unresolved", "unresolved", "error"]


def test_the_key_never_reaches_outputs(tmp_path: Path, judge_server: OpenAIServer) -> None:
    rows, output = _run(tmp_path, judge_server)
    assert SECRET not in output
    assert SECRET not in json.dumps(rows)
    assert SECRET.encode() not in (tmp_path / "c.sqlite3").read_bytes()
