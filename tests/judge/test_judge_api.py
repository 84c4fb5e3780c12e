"""The judge's public surface, its configuration errors, and the demo server script."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from judge_support import MakeJudge, req
from openai_server import OpenAIServer

import vqagrade.judge
from vqagrade.errors import JudgeError
from vqagrade.judge import (
    Judge,
    JudgeConfig,
    JudgePlan,
    JudgeRequest,
    JudgeVerdict,
    default_cache_path,
    estimate_prompt_tokens,
)
from vqagrade.judge import cost as cost_module

SERVER_SCRIPT = Path(__file__).with_name("openai_server.py")


def test_exported_members() -> None:
    assert set(vqagrade.judge.__all__) == {
        "Judge",
        "JudgeConfig",
        "JudgePlan",
        "JudgeRequest",
        "JudgeStats",
        "JudgeVerdict",
        "PromptName",
        "cache_clear",
        "cache_stats",
        "default_cache_path",
        "estimate_prompt_tokens",
        "parse_score",
    }
    for name in vqagrade.judge.__all__:
        assert getattr(vqagrade.judge, name) is not None


def test_verdict_fields_are_the_contract() -> None:
    assert list(JudgeVerdict.model_fields) == [
        "score",
        "error",
        "raw",
        "model",
        "prompt",
        "cached",
        "attempts",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
    ]
    assert list(JudgeRequest.model_fields) == ["question", "gt", "pred", "choices", "gt_letter"]


def test_config_defaults() -> None:
    c = JudgeConfig(model="gpt-4o-mini")
    assert (c.prompt, c.api_key_env, c.base_url) == ("gpt", "OPENAI_API_KEY", None)
    assert (c.concurrency, c.timeout, c.max_retries, c.max_completion_tokens) == (8, 60.0, 4, 1024)
    assert (c.temperature, c.use_cache) == (0.0, True)
    assert c.cache_path == default_cache_path()
    assert default_cache_path().name == "judge.sqlite3"
    assert "vqagrade" in str(default_cache_path())


def test_no_key_and_no_base_url_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeError, match="OPENAI_API_KEY"):
        Judge(JudgeConfig(model="gpt-4o-mini", use_cache=False))


def test_key_from_the_named_env_var(
    server: OpenAIServer, make_judge: MakeJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-from-my-var")
    make_judge(api_key_env="MY_JUDGE_KEY").judge_many([req()])
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-my-var"


def test_unknown_prompt_is_a_judge_error(make_judge: MakeJudge) -> None:
    with pytest.raises(JudgeError, match="unknown judge prompt"):
        make_judge(prompt="llama")


def test_unusable_cache_path_is_a_judge_error(make_judge: MakeJudge, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(JudgeError, match="cannot open the judge cache"):
        make_judge(cache_path=blocker / "judge.sqlite3")


def test_plan_counts_cache_hits_and_tokens(server: OpenAIServer, make_judge: MakeJudge) -> None:
    make_judge().judge_many([req("a")])
    judge = make_judge(max_completion_tokens=100)
    rows = [req("a"), req("b"), req("b"), req("c")]
    plan = judge.plan(rows)
    assert (
        plan.model_dump()
        == JudgePlan(
            rows=4,
            cached=0,  # max_completion_tokens differs, so the earlier answer does not apply
            to_send=3,
            prompt_tokens=plan.prompt_tokens,
            max_completion_tokens=300,
        ).model_dump()
    )
    plan = make_judge().plan(rows)
    assert (plan.cached, plan.to_send) == (1, 2)
    text = make_judge().render(req("b"))[0]["content"]
    assert plan.prompt_tokens >= 2 * estimate_prompt_tokens(text)
    assert len(server.requests) == 1  # planning never calls the judge


def test_estimate_without_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cost_module, "_encoding", lambda: None)
    assert estimate_prompt_tokens("") == 0
    assert estimate_prompt_tokens("abcde") == 2
    text = "x" * 4001
    assert estimate_prompt_tokens(text) == math.ceil(4001 / 4)


def test_importing_the_judge_does_not_import_openai() -> None:
    code = "import sys, vqagrade.judge; print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_demo_server_script_judges_end_to_end(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cmd = [sys.executable, str(SERVER_SCRIPT), "--port", "0", "--mode", "demo"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            banner = proc.stdout.readline()
            m = re.search(r"(http://\S+/v1)", banner)
            assert m, banner
            port = m.group(1).split(":")[-1].split("/")[0]
            wait = [sys.executable, str(SERVER_SCRIPT), "--wait-ready", "--port", port]
            assert subprocess.run(wait, timeout=30).returncode == 0
            config = JudgeConfig(model="demo", base_url=m.group(1), use_cache=False)
            rows = [req("the left kidney"), req("right kidney"), req("both kidneys")]
            for prompt, expected in [("gpt", [1, 0, 0.5]), ("equivalence", [5, 0, 2])]:
                with Judge(config.model_copy(update={"prompt": prompt})) as judge:
                    assert [v.score for v in judge.judge_many(rows)] == expected
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert proc.returncode == 0


def test_wait_ready_times_out_on_a_closed_port(closed_port: int) -> None:
    wait = [sys.executable, str(SERVER_SCRIPT), "--wait-ready", "--port", str(closed_port)]
    assert subprocess.run([*wait, "--timeout", "0.2"], timeout=30).returncode == 1
