"""Inspect AI scorer: vqagrade's rules on each sample, an Inspect model role for the rest.

Example::

    from inspect_ai import Task
    from vqagrade.inspect import closed_scorer

    Task(dataset=..., solver=..., scorer=closed_scorer())
    Task(dataset=..., solver=..., scorer=closed_scorer(judge="grader"))  # + model_roles

The question comes from the sample's input (or ``question="metadata.question"``), the ground
truth from the target, the prediction from the model's completion; ``option_a``/``option_b``
in the sample metadata are explicit options, as in ``vqagrade score``. A sample the rules
cannot settle is ``Score.unscored`` (Inspect's metrics skip it; ``coverage(log)`` reads the
share that was scored) unless ``judge`` names a model role: then the row goes to that model
with vqagrade's judge prompt and strict parser, and a reply without a valid score is unscored
too, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from . import grade_rows

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

__all__ = ["closed_scorer", "coverage"]

# Grade fields copied into Score.metadata; question_kind only where the grader sets it.
_META = ("method", "gt_label", "pred_label", "options")


@scorer(metrics=[mean(), stderr()])
def closed_scorer(
    question: str | None = None, judge: str | None = None, prompt: str = "gpt"
) -> Scorer:
    """Score close-ended two-option answers with vqagrade, exactly as ``vqagrade score`` does.

    Args:
        question: where the question is: None for the sample's input text, or
            ``"metadata.KEY"`` for a sample metadata field.
        judge: an Inspect model role (``eval(..., model_roles={"grader": ...})``) that judges
            the samples the rules cannot settle; None leaves them unscored.
        prompt: the judge prompt, ``gpt`` or ``mistral`` (vqagrade's seed prompts).
    """
    if question is not None and not question.startswith("metadata."):
        raise ValueError(f"question must be None or 'metadata.KEY', not {question!r}")
    asker = _JudgeRole(judge, prompt) if judge else None

    async def score(state: TaskState, target: Target) -> Score:
        row: dict[str, Any] = {
            "question": _question(state, question),
            "gt": target.text,
            "pred": state.output.completion,
        }
        for key in ("option_a", "option_b"):
            if state.metadata.get(key) is not None:
                row[key] = state.metadata[key]
        out = next(grade_rows([row]))
        if out["method"] == "unresolved" and asker is not None:
            return await asker.score(row, out)
        return _score(out)

    return score


def _question(state: TaskState, where: str | None) -> Any:
    if where is None:
        return state.input_text
    return state.metadata.get(where.removeprefix("metadata."))


def _metadata(out: Mapping[str, Any]) -> dict[str, Any]:
    meta = {k: out.get(k) for k in _META}
    if out.get("question_kind") is not None:
        meta["question_kind"] = out["question_kind"]
    return meta


def _score(out: Mapping[str, Any]) -> Score:
    meta = _metadata(out)
    if out["score"] is None:
        return Score.unscored(reason=out["method"], explanation=out["reason"], metadata=meta)
    return Score(
        value=out["score"], answer=out["pred_label"], explanation=out["reason"], metadata=meta
    )


class _JudgeRole:
    """Asks the model bound to an Inspect role about one row, with vqagrade's prompt."""

    def __init__(self, role: str, prompt: str) -> None:
        from .judge import Judge, JudgeConfig

        self.role = role
        # Only the prompt is used (render, allowed scores): no client, key or cache is made.
        self._prompt = Judge(
            JudgeConfig(model=role, prompt=prompt, base_url="inspect://role", use_cache=False)
        )

    async def score(self, row: Mapping[str, Any], rules: Mapping[str, Any]) -> Score:
        from .judge import JudgeRequest, parse_score

        request = JudgeRequest(question=row["question"], gt=row["gt"], pred=row["pred"])
        messages: list[ChatMessage] = [
            ChatMessageUser(content=m["content"]) for m in self._prompt.render(request)
        ]
        model = get_model(role=self.role, required=True)
        output = await model.generate(messages, config=GenerateConfig(temperature=0.0))
        raw = output.completion
        meta = {
            **_metadata(rules),
            "method": "llm",
            "judge_model": str(model),
            "judge_prompt": self._prompt.config.prompt,
            "judge_raw": raw,
            "rules_reason": rules["reason"],
        }
        if output.stop_reason == "max_tokens":
            value = None
            fault = "judge_truncated"
        else:
            value = parse_score(raw, self._prompt.prompt.allowed)
            fault = "judge_unparseable"
        if value is None:
            meta["method"] = "error"
            return Score.unscored(reason=fault, explanation=fault, metadata=meta)
        return Score(value=value, explanation=f"judge {model} (role {self.role})", metadata=meta)


def coverage(log: EvalLog, scorer: str = "closed_scorer") -> float | None:
    """The share of samples ``scorer`` scored in an eval log (Inspect's metrics never see
    unscored samples, so coverage is read from the counts Inspect records).

    Args:
        log: the log ``inspect_ai.eval`` returned or ``read_eval_log`` read.
        scorer: the scorer's name in the log.
    """
    for found in log.results.scores if log.results else []:
        if found.name == scorer or found.scorer == scorer:
            scored, unscored = found.scored_samples or 0, found.unscored_samples or 0
            return scored / (scored + unscored) if scored + unscored else None
    return None
