"""vqagrade.inspect: real Inspect AI evals (stored predictions replayed, mockllm, no network)
scored sample by sample as `vqagrade score` scores the same rows."""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Scorer, Target, cascade, scorer
from inspect_ai.scorer import mean as mean_metric
from inspect_ai.solver import Generate, Solver, TaskState, solver

from adapter_support import cli_graded, sample_rows
from vqagrade.inspect import closed_scorer, coverage

# Inspect's own internals, not ours: anyio streams it leaves to the garbage collector, and
# tenacity's renamed backoff parameter it still passes.
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
]


@solver
def replay() -> Solver:
    """The stored prediction as the model's output: no model is called."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model="replay", content=state.metadata["pred"])
        return state

    return solve


def samples(rows: Iterable[dict[str, Any]], question_in_metadata: bool = False) -> list[Sample]:
    out = []
    for r in rows:
        meta = {k: r[k] for k in ("pred", "option_a", "option_b") if k in r}
        if question_in_metadata:
            meta["question"] = r["question"]
        text = "Look at the image and answer." if question_in_metadata else r["question"]
        out.append(Sample(id=r["id"], input=text, target=r["gt"], metadata=meta))
    return out


def run(task: Task, tmp_path: Path, roles: dict[str, Any] | None = None) -> EvalLog:
    [log] = eval(
        task,
        model="mockllm/model",
        model_roles=roles,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    # Collect the streams Inspect leaves behind now, under this module's warning filters,
    # rather than in whichever test the garbage collector happens to run next.
    gc.collect()
    assert log.status == "success", log.error
    return log


def by_id(log: EvalLog, name: str = "closed_scorer") -> dict[Any, Score]:
    assert log.samples is not None
    return {s.id: s.scores[name] for s in log.samples if s.scores}


def value(score: Score) -> float | None:
    v = score.value
    assert isinstance(v, float | int)
    return None if math.isnan(v) else float(v)


def reply(content: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content=content)
    # Set usage so mockllm does not count tokens (its tokenizer would be downloaded).
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


@pytest.mark.parametrize("question_in_metadata", [False, True], ids=["input", "metadata"])
def test_every_sample_scores_as_the_cli(tmp_path: Path, question_in_metadata: bool) -> None:
    rows = sample_rows()
    expected = {r["id"]: r for r in cli_graded(rows, tmp_path)}
    where = "metadata.question" if question_in_metadata else None
    task = Task(
        dataset=samples(rows, question_in_metadata),
        solver=replay(),
        scorer=closed_scorer(question=where),
    )
    log = run(task, tmp_path)
    scores = by_id(log)
    assert scores.keys() == expected.keys()
    for sid, score in scores.items():
        cli = expected[sid]
        assert value(score) == cli["score"], sid
        assert score.explanation == cli["reason"]
        assert score.metadata is not None
        assert score.metadata["method"] == cli["method"]
        assert score.metadata["gt_label"] == cli["gt_label"]
        assert score.metadata["pred_label"] == cli["pred_label"]
        assert score.metadata["options"] == cli["options"]
        assert score.metadata.get("question_kind") == cli.get("question_kind")
        if cli["score"] is not None:
            assert score.answer == cli["pred_label"]
    decided = [r["score"] for r in expected.values() if r["score"] is not None]
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == pytest.approx(sum(decided) / len(decided))
    assert "stderr" in metrics
    assert coverage(log) == pytest.approx(len(decided) / len(rows))


def test_a_judge_role_sees_only_what_the_rules_leave(tmp_path: Path) -> None:
    rows = sample_rows()
    expected = {r["id"]: r for r in cli_graded(rows, tmp_path)}
    asked: list[dict[str, Any]] = []

    def grader(messages: list[Any], *_: Any) -> ModelOutput:
        text = messages[-1].text
        row = json.loads(text[text.rindex("\n{") + 1 :])  # the row, appended as JSON
        asked.append(row)
        # One row gets a reply without a valid score (two different scores would be
        # judge_ambiguous: never "the last one wins").
        if row["pred"].startswith("It could be either"):
            return reply("I would say 7 out of 10.")
        return reply("On reflection, { score: 0.5 }")

    roles = {"grader": get_model("mockllm/model", custom_outputs=grader, memoize=False)}
    task = Task(dataset=samples(rows), solver=replay(), scorer=closed_scorer(judge="grader"))
    scores = by_id(run(task, tmp_path, roles))

    unresolved = {sid for sid, r in expected.items() if r["method"] == "unresolved"}
    assert sorted(r["pred"] for r in asked) == sorted(expected[s]["pred"] for s in unresolved)
    for sid, score in scores.items():
        cli = expected[sid]
        assert score.metadata is not None
        if sid not in unresolved:
            assert value(score) == cli["score"], sid  # the rules' verdict stands
        elif cli["pred"].startswith("It could be either"):
            assert value(score) is None and score.reason == "judge_unparseable"
            assert score.metadata["method"] == "error"
            assert score.metadata["judge_raw"] == "I would say 7 out of 10."
        else:
            assert value(score) == 0.5
            assert score.metadata["method"] == "llm"
            assert score.metadata["judge_prompt"] == "gpt"
            assert score.metadata["rules_reason"] == cli["reason"]


@scorer(metrics=[mean_metric()])
def always_one() -> Scorer:
    """A stand-in for a judge stage that calls every answer correct."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0, explanation="stand-in judge")

    return score


@pytest.mark.parametrize(
    ("threshold", "judge_overrides_decided"), [(0.0, False), (1.0, True)], ids=["0", "default"]
)
def test_cascade_threshold_trap(
    tmp_path: Path, threshold: float, judge_overrides_decided: bool
) -> None:
    """With cascade's default threshold (1.0) a decided 0 or 0.5 is not final and the next
    stage replaces it; threshold=0 keeps every decided score and passes only abstentions on."""
    rows = sample_rows()
    expected = {r["id"]: r for r in cli_graded(rows, tmp_path)}
    chain = cascade(threshold=threshold, rules=closed_scorer(), judge=always_one())
    scores = by_id(
        run(Task(dataset=samples(rows), solver=replay(), scorer=chain), tmp_path), "cascade"
    )
    for sid, score in scores.items():
        cli = expected[sid]
        assert score.metadata is not None
        if cli["score"] is None:
            assert score.metadata["decided_by"] == "judge"
        elif cli["score"] < 1 and judge_overrides_decided:
            assert (value(score), score.metadata["decided_by"]) == (1.0, "judge"), sid
        else:
            assert (value(score), score.metadata["decided_by"]) == (cli["score"], "rules"), sid


def test_question_must_name_a_metadata_field() -> None:
    with pytest.raises(ValueError, match="metadata.KEY"):
        closed_scorer(question="question")
