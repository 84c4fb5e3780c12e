"""Question kinds and the labels of yes/no answers.

Every output row says which kind of close-ended question it was graded as
(`question_kind`); each kind has its own options, labels and score. A new kind (multiple
choice, issue 11) adds a member here, reader modules in `vqagrade.rules` (like `polar` and
`yes_no`), and a branch in `vqagrade.rules.memo.Tables`.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class QuestionKind(str, Enum):
    """Which kind of close-ended question a row was graded as."""

    TWO_OPTION = "two_option"
    """"X or Y": labels A, B, both, none; scored with the judge prompts' truth table."""
    YES_NO = "yes_no"
    """A polar question (or one whose ground truth is yes/no): labels yes, no; 1 if equal."""


class YesNo(str, Enum):
    """What an answer says to a yes/no question."""

    YES = "yes"
    """The answer affirms the question's proposition."""
    NO = "no"
    """The answer denies the question's proposition."""


YES_NO_OPTIONS = ("yes", "no")
"""The `options` of a yes/no row, and the two options the judge is given."""


def yes_no_score(gt: YesNo, pred: YesNo) -> float:
    """1.0 when the labels agree, else 0.0."""
    return 1.0 if gt is pred else 0.0


def judge_question(question: str) -> str:
    """The question as the judge sees it for a yes/no row: its two options spelled out."""
    return f"{question} (yes or no)"


def judge_triple(
    fields: dict[str, object], question: str, gt: str, pred: str
) -> tuple[str, str, str]:
    """The (question, gt, pred) a judge is given for an output row with these fields."""
    if fields.get("question_kind") == QuestionKind.YES_NO.value:
        question = judge_question(question)
    return question, gt, pred


def parse_kinds(kinds: Iterable[QuestionKind | str]) -> frozenset[QuestionKind]:
    """Question kinds from their names ("two_option", "yes_no"); ValueError names the bad one."""
    out = set()
    for k in kinds:
        name = k.value if isinstance(k, QuestionKind) else str(k).strip()
        try:
            out.add(QuestionKind(name))
        except ValueError:
            choices = ", ".join(q.value for q in QuestionKind)
            raise ValueError(f"unknown question kind {name!r}; choose from: {choices}") from None
    return frozenset(out)
