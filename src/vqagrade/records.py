"""Pydantic records: the verdict of a grading and the evidence behind it.

`Method` and `FieldMap` belong to the row contract (`vqagrade.contract`); re-exported here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .contract import FieldMap, Method
from .kinds import QuestionKind, YesNo
from .labels import Label

__all__ = ["AnswerTrace", "FieldMap", "Grade", "Mention", "Method"]


class Mention(BaseModel):
    """One place where an answer refers to an option."""

    model_config = ConfigDict(frozen=True)

    option: Label = Field(description="A or B")
    span: str = Field(description="the words of the answer that matched")
    start: int = Field(description="character offset in the focused answer text")
    via: str = Field(description="exact, head, synonym, fuzzy, letter or cue")
    negated: bool = False
    negation: str | None = Field(default=None, description="the cue that negated it")


class AnswerTrace(BaseModel):
    """Why an answer got its label, or why the rules abstained."""

    model_config = ConfigDict(frozen=True)

    label: Label | YesNo | None = Field(description="None when the rules abstain")
    rule: str = Field(description="short name of the rule that decided or abstained")
    reason: str = Field(description="one human-readable line")
    focus: str = Field(description="the part of the answer that was read (final answer)")
    mentions: tuple[Mention, ...] = ()
    cues: tuple[str, ...] = Field(default=(), description="both/none/hedge/comparative cues")
    matched: tuple[str, ...] = Field(
        default=(), description="yes/no: the answer's words that restate the question's"
    )


class Grade(BaseModel):
    """The verdict on one (question, gt, pred) triple, with its evidence."""

    score: float | None
    method: Method
    gt_label: Label | YesNo | None = None
    pred_label: Label | YesNo | None = None
    options: tuple[str, str] | None = None
    reason: str
    question_kind: QuestionKind | None = None
    gt: AnswerTrace | None = None
    pred: AnswerTrace | None = None
    judge: dict[str, Any] | None = Field(
        default=None, description="judge model, prompt, raw reply, cache flag (method=llm/error)"
    )

    def output_fields(self) -> dict[str, Any]:
        """The fields vqagrade adds to an output row (the design's row contract)."""
        return {
            "score": self.score,
            "method": self.method.value,
            "gt_label": self.gt_label.value if self.gt_label else None,
            "pred_label": self.pred_label.value if self.pred_label else None,
            "options": list(self.options) if self.options else None,
            "reason": self.reason,
            "question_kind": self.question_kind.value if self.question_kind else None,
        }
