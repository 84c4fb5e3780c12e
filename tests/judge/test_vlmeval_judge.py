"""vqagrade.vlmeval with a judge configured the VLMEvalKit way: LOCAL_LLM, OPENAI_API_BASE as a
chat-completions URL, judge kwargs; against the local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from openai_server import OpenAIServer

from vqagrade.vlmeval import evaluate_file

KIDNEY = "Is the lesion in the left or right kidney?"


def test_local_llm_judges_only_what_the_rules_leave(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("LOCAL_LLM", "local-judge")
    monkeypatch.setenv("OPENAI_API_BASE", f"{server.base_url}/chat/completions")
    path = tmp_path / "M_VQA.tsv"
    pd.DataFrame(
        {
            "index": [0, 1],
            "question": [KIDNEY, KIDNEY],
            "answer": ["left", "left"],
            "prediction": ["The left kidney.", "It might be either side."],
        }
    ).to_csv(path, sep="\t", index=False)

    acc = evaluate_file(path, model="gpt-4o-mini", nproc=2, retry=1)

    graded = pd.read_excel(tmp_path / "M_VQA_vqagrade.xlsx")
    assert list(graded["method"]) == ["rule", "llm"]
    assert list(graded["score"]) == [1.0, 1.0]
    assert graded["judge_model"].iloc[1] == "local-judge"
    assert [r.body["model"] for r in server.requests] == ["local-judge"]
    assert acc.iloc[0]["coverage"] == 1.0


def test_exact_matching_calls_no_judge(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_LLM", "local-judge")
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    path = tmp_path / "M_VQA.csv"
    pd.DataFrame(
        {"question": [KIDNEY], "answer": ["left"], "prediction": ["It might be either side."]}
    ).to_csv(path, index=False)
    evaluate_file(path, model="exact_matching")
    assert pd.read_excel(tmp_path / "M_VQA_vqagrade.xlsx")["method"].tolist() == ["unresolved"]
    assert server.requests == []
