"""The SQLite judge cache: no question paid for twice, safe across processes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from judge_support import MakeJudge, req
from openai_server import OpenAIServer, Reply

from vqagrade.judge import cache_clear, cache_stats
from vqagrade.judge.cache import MIGRATIONS, Cache, cache_key

# A tiny client process: judge rows start..stop-1 against a server, print the scores as JSON.
CHILD = """
import json, sys
from pathlib import Path
from vqagrade.judge import Judge, JudgeConfig, JudgeRequest

base_url, cache, start, stop = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = [JudgeRequest(question="Left or right?", gt="left", pred=f"left {i}")
        for i in range(start, stop)]
config = JudgeConfig(model="m", base_url=base_url, cache_path=cache, concurrency=1,
                     backoff_base=0.001)
with Judge(config) as judge:
    print(json.dumps([v.score for v in judge.judge_many(rows)]))
"""


def test_second_run_makes_no_calls(server: OpenAIServer, make_judge: MakeJudge) -> None:
    rows = [req(f"left {i}") for i in range(5)]
    first = make_judge().judge_many(rows)
    assert len(server.requests) == 5 and not any(v.cached for v in first)

    again = make_judge()
    second = again.judge_many(rows)
    assert len(server.requests) == 5  # zero new HTTP calls
    assert all(v.cached and v.attempts == 0 for v in second)
    assert [v.score for v in second] == [v.score for v in first]
    assert [(v.raw, v.prompt_tokens) for v in second] == [(v.raw, v.prompt_tokens) for v in first]
    assert (again.stats.calls, again.stats.cache_hits, again.stats.prompt_tokens) == (0, 5, 0)
    assert again.lookup(rows[0]) == second[0]


def test_error_verdicts_are_not_cached(server: OpenAIServer, make_judge: MakeJudge) -> None:
    server.enqueue(500)
    [v] = make_judge(max_retries=0).judge_many([req()])
    assert v.error == "judge_http_500"
    [v] = make_judge(max_retries=0).judge_many([req()])
    assert (v.score, v.cached) == (1.0, False)
    assert len(server.requests) == 2


def test_use_cache_false_never_touches_the_file(
    server: OpenAIServer, make_judge: MakeJudge, cache_path: Path
) -> None:
    make_judge(use_cache=False).judge_many([req()])
    make_judge(use_cache=False).judge_many([req()])
    assert len(server.requests) == 2 and not cache_path.exists()


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"model": "other-model"}, id="model"),
        pytest.param({"prompt": "mistral"}, id="prompt"),
        pytest.param({"max_completion_tokens": 64}, id="token-budget"),
        pytest.param({"temperature": 0.7}, id="temperature"),
    ],
)
def test_key_covers_what_decides_the_reply(
    server: OpenAIServer, make_judge: MakeJudge, change: dict[str, object]
) -> None:
    server.default = lambda rec: Reply(content="{ score: 1 } { mistralscore: 1 }")
    make_judge().judge_many([req()])
    [v] = make_judge(**change).judge_many([req()])
    assert not v.cached and len(server.requests) == 2


def test_cache_key_covers_each_field() -> None:
    base = ("prompt", "model", {"temperature": 0}, "http://a/v1", "q", "gt", "pred")
    keys = {cache_key(*base)}
    others = ("prompt2", "model2", {"temperature": 1}, "http://b/v1", "q2", "gt2", "pred2")
    for i, other in enumerate(others):
        variant = list(base)
        variant[i] = other
        keys.add(cache_key(*variant))  # type: ignore[arg-type]
    assert len(keys) == 8
    # Field boundaries matter: moving text between gt and pred is a different request.
    e = "http://a/v1"
    assert cache_key("p", "m", {}, e, "q", "ab", "c") != cache_key("p", "m", {}, e, "q", "a", "bc")


def test_cache_file_is_wal_with_migrations(
    server: OpenAIServer, make_judge: MakeJudge, cache_path: Path
) -> None:
    make_judge().judge_many([req()])
    Cache(cache_path).close()  # reopening does not re-run migrations
    with sqlite3.connect(cache_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        applied = [r[0] for r in db.execute("SELECT name FROM _migrations")]
        row = db.execute("SELECT model, prompt, raw, score, finish_reason FROM verdicts").fetchone()
    db.close()
    assert applied == [name for name, _ in MIGRATIONS]
    assert row == ("test-model", "gpt", "{ score: 1 }", 1.0, "stop")


def test_stats_and_clear(server: OpenAIServer, make_judge: MakeJudge, cache_path: Path) -> None:
    make_judge().judge_many([req("a"), req("b")])
    make_judge(model="other").judge_many([req("a")])
    stats = cache_stats(cache_path)
    assert stats["entries"] == 3
    assert stats["models"] == {"other": 1, "test-model": 2}
    assert stats["prompts"] == {"gpt": 3}
    assert stats["size_bytes"] > 0
    assert stats["prompt_tokens"] == 360
    assert stats["oldest"] is not None
    assert cache_clear(cache_path) == 3
    assert cache_stats(cache_path)["entries"] == 0
    [v] = make_judge().judge_many([req("a")])
    assert not v.cached


def test_stats_of_a_missing_cache_do_not_create_it(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "judge.sqlite3"
    assert cache_stats(path)["entries"] == 0
    assert cache_clear(path) == 0
    assert not path.exists() and not path.parent.exists()


def _child(server: OpenAIServer, cache_path: Path, start: int, stop: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    args = [sys.executable, "-c", CHILD, server.base_url, str(cache_path), str(start), str(stop)]
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def test_two_processes_share_one_cache(server: OpenAIServer, cache_path: Path) -> None:
    # Slow replies so that both processes write while the other is writing too.
    server.default = lambda rec: Reply(content="{ score: 1 }", delay=0.01)
    with _child(server, cache_path, 0, 30) as a, _child(server, cache_path, 15, 45) as b:
        out_a, err_a = a.communicate(timeout=60)
        out_b, err_b = b.communicate(timeout=60)
    assert (a.returncode, b.returncode) == (0, 0), err_a + err_b
    assert json.loads(out_a) == [1.0] * 30
    assert json.loads(out_b) == [1.0] * 30
    assert cache_stats(cache_path)["entries"] == 45
    assert 45 <= len(server.requests) <= 60  # the overlap may be asked twice, never more

    # A third process finds everything cached.
    before = len(server.requests)
    with _child(server, cache_path, 0, 45) as c:
        out_c, err_c = c.communicate(timeout=60)
    assert c.returncode == 0, err_c
    assert json.loads(out_c) == [1.0] * 45 and len(server.requests) == before


def test_a_killed_run_keeps_what_was_answered(
    server: OpenAIServer, make_judge: MakeJudge, cache_path: Path
) -> None:
    # Row 0 and 1 are answered at once; row 2 hangs until the process is killed.
    server.enqueue("{ score: 1 }", "{ score: 0.5 }", Reply(delay=30))
    with _child(server, cache_path, 0, 3) as child:
        deadline = time.monotonic() + 30
        while len(server.requests) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        child.kill()
        child.communicate()
    assert len(server.requests) == 3
    judge = make_judge(model="m")  # the child's config: same key
    rows = [req(f"left {i}", gt="left") for i in range(3)]
    rows = [r.model_copy(update={"question": "Left or right?"}) for r in rows]
    assert [v.score if v else None for v in map(judge.lookup, rows)] == [1.0, 0.5, None]


def _open_cache(path: str) -> str:
    try:
        Cache(Path(path))
    except sqlite3.Error as exc:
        return repr(exc)
    return "ok"


def test_processes_opening_a_new_cache_together_all_succeed(tmp_path: Path) -> None:
    # Workers of one run open the same new cache file at the same moment; the switch to WAL
    # once failed at random with "database is locked" (a few opens in a few hundred).
    # Spawned, not forked: forking this multi-threaded test process can deadlock a child.
    import multiprocessing

    failures: list[str] = []
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        for attempt in range(100):
            path = str(tmp_path / f"cache{attempt}.sqlite")
            failures += [r for r in pool.map(_open_cache, [path] * 6) if r != "ok"]
    assert failures == []
