"""The Batch API mode, end to end against a local server emulating /v1/files and /v1/batches."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_server import BatchServer
from judge_support import QUESTION, req
from openai_server import Reply, _row_from_prompt, demo_rule, demo_score

from vqagrade.errors import JudgeError
from vqagrade.grader import Grader
from vqagrade.judge import Judge, JudgeConfig, JudgeRequest
from vqagrade.judge.adapter import JudgeFallback
from vqagrade.judge.batch import collect, run_batch, status, submit, wait, write_requests

PREDS = ["the left kidney", "the right kidney", "both kidneys", "maybe the left?", "left, I think"]


@pytest.fixture
def server() -> Iterator[BatchServer]:
    with BatchServer(polls_to_complete=2) as s:
        yield s


@pytest.fixture
def judge(server: BatchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Judge]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = JudgeConfig(
        model="batch-model", base_url=server.base_url, cache_path=tmp_path / "judge.sqlite3"
    )
    with Judge(config) as j:
        yield j


def _client_args(server: BatchServer) -> dict[str, Any]:
    return {"base_url": server.base_url}


def _requests() -> list[JudgeRequest]:
    return [req(pred=p) for p in PREDS]


def _chat_calls(server: BatchServer) -> list[object]:
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


# ---- the request file -----------------------------------------------------------------------------


def test_request_file_dedupes_and_matches_a_live_call(judge: Judge, tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    n = write_requests(judge, [*_requests(), req(pred=PREDS[0])], path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert n == len(lines) == len(PREDS)
    first = lines[0]
    assert first["custom_id"] == judge.key(req(pred=PREDS[0]))
    assert (first["method"], first["url"]) == ("POST", "/v1/chat/completions")
    assert first["body"] == {
        "model": "batch-model",
        "messages": judge.render(req(pred=PREDS[0])),
        "max_completion_tokens": 1024,
        "temperature": 0.0,
    }


# ---- submit, poll, collect ------------------------------------------------------------------------


def test_run_batch_fills_the_cache_and_live_grading_then_calls_nobody(
    server: BatchServer, judge: Judge
) -> None:
    seen: list[str] = []
    results = run_batch(
        judge, _requests(), poll_interval=0.01, on_status=lambda s: seen.append(s.status)
    )
    [result] = results
    assert (result.status, result.replies, result.cached, result.errors) == ("completed", 5, 5, {})
    assert seen[0] == "validating" and seen[-1] == "completed" and "in_progress" in seen
    [upload] = [f for f in server.files.values() if f.purpose == "batch"]
    assert len(upload.content.splitlines()) == 5
    [batch] = server.batches.values()
    assert batch.metadata == {"tool": "vqagrade", "model": "batch-model", "prompt": "gpt"}

    verdicts = judge.judge_many(_requests())
    assert all(v.cached and v.score is not None for v in verdicts)
    assert [v.score for v in verdicts] == [demo_score("left kidney", p) for p in PREDS]
    assert _chat_calls(server) == []


def test_resumable_by_batch_id(server: BatchServer, judge: Judge, tmp_path: Path) -> None:
    [created] = submit(judge, _requests())
    # Another shell, later: only the id, the endpoint and the cache are needed.
    cache = tmp_path / "judge.sqlite3"
    early = collect(created.id, cache_path=cache, **_client_args(server))
    assert (early.status, early.cached) == ("in_progress", 0)
    st = status(created.id, **_client_args(server))
    assert st.done and (st.total, st.completed, st.failed) == (5, 5, 0)
    assert st.render() == f"batch {created.id}: completed, 5/5 done"
    done = collect(created.id, cache_path=cache, **_client_args(server))
    assert (done.status, done.cached) == ("completed", 5)
    again = collect(created.id, cache_path=cache, **_client_args(server))
    assert again.cached == 5  # idempotent: the same keys are stored again
    assert all(v.cached for v in judge.judge_many(_requests()))


def test_wait_times_out_and_leaves_the_batch_running(server: BatchServer, judge: Judge) -> None:
    server.polls_to_complete = 1_000
    [created] = submit(judge, _requests())
    st = wait(created.id, poll_interval=0.01, timeout=0.05, **_client_args(server))
    assert st.status == "in_progress" and not st.done


def test_failed_replies_are_not_cached(server: BatchServer, judge: Judge) -> None:
    def rule(rec: Any) -> Reply:
        _, pred = _row_from_prompt(rec.user_text)
        if pred == "the right kidney":
            return Reply(status=500)
        if pred == "both kidneys":
            return Reply(content="I would rather not say.")
        if pred == "maybe the left?":
            return Reply(content="{ score: 1", finish_reason="length")
        return demo_rule(rec)

    server.default = rule
    [result] = run_batch(judge, _requests(), poll_interval=0.01)
    assert result.cached == 2
    assert result.errors == {"judge_http_500": 1, "judge_unparseable": 1, "judge_truncated": 1}
    assert "not cached: judge_http_500 1" in result.render()
    cached = [judge.lookup(r) is not None for r in _requests()]
    assert cached == [True, False, False, False, True]


def test_a_failed_batch_reports_why(server: BatchServer, judge: Judge) -> None:
    server.batch_status = "failed"
    [result] = run_batch(judge, _requests(), poll_interval=0.01)
    assert (result.status, result.cached) == ("failed", 0)
    st = status(next(iter(server.batches)), **_client_args(server))
    assert st.errors == ["scripted failure"] and "scripted failure" in st.render()


def test_only_uncached_rows_are_sent_and_big_jobs_are_split(
    server: BatchServer, judge: Judge
) -> None:
    run_batch(judge, _requests()[:2], poll_interval=0.01)
    more = [*_requests(), req(pred="the left one"), req(pred="right side")]
    [result] = run_batch(judge, more, poll_interval=0.01)
    # 7 rows, 2 already cached: 5 sent.
    assert result.cached == 5
    assert list(server.batches.values())[-1].total == 5
    split = submit(judge, [req(pred=f"left {i}") for i in range(5)], max_requests=2)
    assert [b.total for b in split] == [2, 2, 1]


def test_nothing_to_send_sends_nothing(server: BatchServer, judge: Judge) -> None:
    run_batch(judge, _requests(), poll_interval=0.01)
    uploads = len(server.files)
    assert submit(judge, _requests()) == []
    assert len(server.files) == uploads


def test_request_files_are_kept_in_a_workdir(judge: Judge, tmp_path: Path) -> None:
    submit(judge, _requests(), workdir=tmp_path / "work")
    assert [p.name for p in (tmp_path / "work").iterdir()] == ["requests-000.jsonl"]


def test_unknown_batch_id(server: BatchServer) -> None:
    with pytest.raises(JudgeError, match="HTTP 404"):
        status("batch_nope", **_client_args(server))


def test_a_batch_not_made_by_vqagrade(server: BatchServer, tmp_path: Path) -> None:
    f = server.upload("x.jsonl", "batch", b'{"custom_id": "k", "body": {}}\n')
    b = server.create_batch({"input_file_id": f.id, "endpoint": "/v1/chat/completions"})
    assert b is not None
    b.status = "completed"
    with pytest.raises(JudgeError, match="not made by vqagrade"):
        collect(b.id, cache_path=tmp_path / "c.sqlite3", **_client_args(server))


def test_no_cache_no_batch(server: BatchServer, tmp_path: Path) -> None:
    config = JudgeConfig(model="m", base_url=server.base_url, use_cache=False)
    with Judge(config) as j, pytest.raises(JudgeError, match="cache"):
        run_batch(j, _requests())


def test_grading_after_a_batch_uses_only_the_cache(server: BatchServer, judge: Judge) -> None:
    rows = [
        {"id": "a", "question": QUESTION, "gt": "left kidney", "pred": "The left kidney."},
        {
            "id": "b",
            "question": QUESTION,
            "gt": "left kidney",
            "pred": "Either kidney, can't tell.",
        },
        {"id": "c", "question": QUESTION, "gt": "right kidney", "pred": "Hard to say, maybe left?"},
    ]
    # Pass 1, rules only: collect the residue.
    residue = [
        JudgeRequest(question=r["question"], gt=r["gt"], pred=r["pred"])
        for r in Grader().grade_rows(rows)
        if r["method"] == "unresolved"
    ]
    assert len(residue) == 2
    run_batch(judge, residue, poll_interval=0.01)
    # Pass 2, with the judge: every unsettled row is answered from the cache.
    out = list(Grader(judge=JudgeFallback(judge)).grade_rows(rows))
    assert [r["method"] for r in out] == ["rule", "llm", "llm"]
    assert all(r["judge_cached"] for r in out[1:])
    assert _chat_calls(server) == []
