"""Rows and types shared by the judge tests."""

from __future__ import annotations

from collections.abc import Callable

from vqagrade.judge import Judge, JudgeRequest

MakeJudge = Callable[..., Judge]

QUESTION = "Is the lesion in the left or the right kidney?"


def req(pred: str = "the left kidney", gt: str = "left kidney") -> JudgeRequest:
    """A two-option row; vary ``pred`` to get distinct requests."""
    return JudgeRequest(question=QUESTION, gt=gt, pred=pred)
