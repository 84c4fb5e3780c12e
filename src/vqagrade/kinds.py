"""Question kinds and the labels of yes/no and multiple-choice answers.

Every output row says which kind of close-ended question it was graded as
(`question_kind`); each kind has its own options, labels and score. A kind adds a member here,
reader modules in `vqagrade.rules` (`polar` and `yes_no`; `choices` and `multiple_choice`),
and a branch in `vqagrade.rules.memo.Tables`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from .contract import ChoiceItem, JudgeItem


class QuestionKind(str, Enum):
    """Which kind of close-ended question a row was graded as."""

    TWO_OPTION = "two_option"
    """"X or Y": labels A, B, both, none; scored with the judge prompts' truth table."""
    YES_NO = "yes_no"
    """A polar question (or one whose ground truth is yes/no): labels yes, no; 1 if equal."""
    MULTIPLE_CHOICE = "multiple_choice"
    """Three or more options, lettered A, B, C, ...: labels the letters; 1 if equal."""


class YesNo(str, Enum):
    """What an answer says to a yes/no question."""

    YES = "yes"
    """The answer affirms the question's proposition."""
    NO = "no"
    """The answer denies the question's proposition."""


class Letter(str, Enum):
    """The option a multiple-choice answer chooses (A is the first option)."""

    A = "A"
    """The first option."""
    B = "B"
    """The second option."""
    C = "C"
    """The third option."""
    D = "D"
    """The fourth option."""
    E = "E"
    """The fifth option."""
    F = "F"
    """The sixth option."""
    G = "G"
    """The seventh option."""
    H = "H"
    """The eighth option (the last: "I" is a word too often)."""


LETTERS = tuple(Letter)
"""Letters in order: ``LETTERS[i]`` names option i."""
MAX_CHOICES = len(LETTERS)
"""The most options a multiple-choice question may have."""


def choice_score(gt: Letter, pred: Letter) -> float:
    """1.0 when the letters agree, else 0.0."""
    return 1.0 if gt is pred else 0.0


YES_NO_OPTIONS = ("yes", "no")
"""The `options` of a yes/no row, and the two options the judge is given."""


def yes_no_score(gt: YesNo, pred: YesNo) -> float:
    """1.0 when the labels agree, else 0.0."""
    return 1.0 if gt is pred else 0.0


def judge_question(question: str) -> str:
    """The question as the judge sees it for a yes/no row: its two options spelled out."""
    return f"{question} (yes or no)"


def judge_triple(fields: Mapping[str, object], question: str, gt: str, pred: str) -> JudgeItem:
    """What the judge is asked about an output row with these fields."""
    kind = fields.get("question_kind")
    if kind == QuestionKind.YES_NO.value:
        question = judge_question(question)
    elif kind == QuestionKind.MULTIPLE_CHOICE.value:
        # A gt that names no option leaves the letter empty: the judge then errs, unasked.
        opts = fields.get("options")
        texts = tuple(str(o) for o in opts) if isinstance(opts, list) else ()
        return ChoiceItem(question, gt, pred, texts, str(fields.get("gt_label") or ""))
    return JudgeItem(question, gt, pred)


def parse_kinds(kinds: Iterable[QuestionKind | str]) -> frozenset[QuestionKind]:
    """Question kinds from their names ("two_option", "yes_no", "multiple_choice");
    ValueError names the bad one."""
    out = set()
    for k in kinds:
        name = k.value if isinstance(k, QuestionKind) else str(k).strip()
        try:
            out.add(QuestionKind(name))
        except ValueError:
            choices = ", ".join(q.value for q in QuestionKind)
            raise ValueError(f"unknown question kind {name!r}; choose from: {choices}") from None
    return frozenset(out)
