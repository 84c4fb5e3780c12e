"""The judge from Python and the judged command line, against the real loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Reply
from typer.testing import CliRunner

from vqagrade import Grader, JudgeConfig
from vqagrade.cli import app
from vqagrade.errors import JudgeError
from vqagrade.judge import Judge

HEDGE = {"id": "h", "question": "Is this a CT or MRI?", "gt": "CT", "pred": "It could be a CT or an MRI."}  # fmt: skip
RULE = {"id": "r", "question": "Is the lesion in the left or right kidney?", "gt": "left", "pred": "left"}  # fmt: skip
OPEN = {"id": "o", "question": "What organ is shown?", "gt": "liver", "pred": "the liver"}
MANY = {"id": "m", "question": "Is this a T1, T2 or FLAIR image?", "gt": "T2", "pred": "T2"}
ROWS = [HEDGE, RULE, OPEN, MANY]
runner = CliRunner()


@pytest.fixture
def half() -> OpenAIServer:
    with OpenAIServer(default=lambda rec: Reply(content="{ score: 0.5 }")) as s:
        yield s


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_grader_takes_a_judge_config(half: OpenAIServer, tmp_path: Path) -> None:
    config = JudgeConfig(model="m", base_url=half.base_url, cache=tmp_path / "c.sqlite3")
    with Grader(judge=config) as grader:
        rows = list(grader.grade_rows(ROWS))
        g = grader.grade(HEDGE["question"], HEDGE["gt"], HEDGE["pred"])
    assert [r["method"] for r in rows] == ["llm", "rule", "unresolved", "unresolved"]
    assert rows[0]["score"] == 0.5 and "rules: pred abstains: hedge" in rows[0]["reason"]
    assert g.method.value == "llm" and g.score == 0.5 and g.judge is not None
    assert len(half.requests) == 1  # the second ask of the same row is a cache hit
    assert (tmp_path / "c.sqlite3").exists()


def test_grader_takes_a_model_name_and_a_judge(
    half: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", half.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    with Grader(judge="m") as grader:
        assert grader.grade(HEDGE["question"], HEDGE["gt"], HEDGE["pred"]).score == 0.5
    with Judge(JudgeConfig(model="m", cache=False)) as judge:
        rows = list(Grader(judge=judge).grade_rows([HEDGE]))
    assert rows[0]["method"] == "llm"
    with pytest.raises(TypeError, match="judge must be"):
        Grader(judge=42)  # type: ignore[arg-type]


def test_not_close_ended_rows_go_to_the_judge_only_with_judge_all(
    half: OpenAIServer, tmp_path: Path
) -> None:
    config = JudgeConfig(model="m", base_url=half.base_url, use_cache=False)
    with Grader(judge=config, judge_all=True) as grader:
        rows = list(grader.grade_rows([OPEN, MANY]))
    assert [r["method"] for r in rows] == ["llm", "llm"]


def test_the_plan_and_its_cost_from_python(half: OpenAIServer, tmp_path: Path) -> None:
    config = JudgeConfig(model="m", base_url=half.base_url, cache=tmp_path / "c.sqlite3")
    with Grader(judge=config) as grader:
        plan = grader.plan(ROWS, price_in=1.0, price_out=2.0)
    assert (plan.rows, plan.cached, plan.to_send) == (1, 0, 1)
    assert plan.prompt_cost == pytest.approx(plan.prompt_tokens / 1e6)
    assert plan.max_completion_cost == pytest.approx(1024 * 2 / 1e6)
    assert "cost: prompts ~$" in plan.render() and len(half.requests) == 0
    with pytest.raises(JudgeError, match="needs a judge"):
        Grader().plan(ROWS)


def _cli(tmp_path: Path, base_url: str, *extra: str) -> tuple[int, str, Path]:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--judge-model", "m", "--judge-base-url", base_url]
    res = runner.invoke(app, [*args, "--cache", str(tmp_path / "c.sqlite3"), *extra])
    return res.exit_code, res.stderr, out


def test_cli_judges_only_close_ended_rows(half: OpenAIServer, tmp_path: Path) -> None:
    code, err, out = _cli(tmp_path, half.base_url)
    assert code == 0, err
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["method"] for r in rows] == ["llm", "rule", "unresolved", "unresolved"]
    assert rows[2]["reason"].startswith("not a two-option question")
    assert len(half.requests) == 1
    assert "judge: 1 calls" in err and "errors 0" in err and "{" not in err


def test_an_unreachable_endpoint_fails_fast_with_one_line(tmp_path: Path, closed_port: int) -> None:
    code, err, out = _cli(tmp_path, f"http://127.0.0.1:{closed_port}/v1")
    assert code == 2
    assert err.count("\n") == 1 and "cannot reach the judge at http://127.0.0.1:" in err
    assert not out.exists()


def test_every_judge_call_failing_fails_the_run_and_keeps_the_rules_reason(tmp_path: Path) -> None:
    with OpenAIServer(default=lambda rec: Reply(status=500, content=None)) as s:
        code, err, out = _cli(tmp_path, s.base_url, "--judge-max-retries", "0")
    assert code == 1
    assert "every judge call failed (judge_http_500 1)" in err
    assert "errors judge_http_500 1" in err and "{'" not in err
    row = json.loads(out.read_text().splitlines()[0])
    assert row["method"] == "error"
    assert row["reason"] == "pred abstains: hedge: 'could be'; judge error: judge_http_500"


def test_dry_run_prints_a_plan_with_a_cost_and_no_rows(half: OpenAIServer, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    args = ["score", str(src), "--judge-model", "m", "--judge-base-url", half.base_url,
            "--cache", str(tmp_path / "c.sqlite3"), "--dry-run", "--price-in", "0.15",
            "--price-out", "0.6"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.stderr
    assert res.stdout == ""  # the plan, not every row
    assert "dry run: 1 row would go to the judge" in res.stderr
    assert "cost: prompts ~$0.0002 + replies at most $0.0006" in res.stderr
    assert "each" not in res.stderr
    assert len(half.requests) == 0
