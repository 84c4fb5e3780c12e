"""The evidence of a yes/no or multiple-choice grading, for `Grader.grade` and `explain`."""

from __future__ import annotations

from .records import AnswerTrace
from .rules.choices import Choices
from .rules.memo import Tables
from .rules.multiple_choice import ChoiceVerdict, label_choice
from .rules.polar import read_question
from .rules.yes_no import YesNoVerdict, label_yes_no


def _trace(v: YesNoVerdict) -> AnswerTrace:
    return AnswerTrace(
        label=v.label,
        rule=v.rule,
        reason=v.reason,
        focus=v.focus,
        cues=v.cues,
        matched=v.matched,
    )


def yes_no_traces(
    tables: Tables, question: str, gt: str, pred: str
) -> tuple[AnswerTrace, AnswerTrace]:
    """The traces of the gt and the pred of a row graded as a yes/no question."""
    prop = read_question(question, tables.lex)
    g = label_yes_no(tables.read(gt), prop, tables.lex, gt=True, text=gt)
    p = label_yes_no(tables.read(pred), prop, tables.lex, text=pred)
    return _trace(g), _trace(p)


def _choice_trace(v: ChoiceVerdict) -> AnswerTrace:
    # The options an answer names are cues here: `matched` is yes/no's restatement.
    cues = v.cues + tuple(f"option:{text}" for text in v.matched)
    return AnswerTrace(label=v.label, rule=v.rule, reason=v.reason, focus=v.focus, cues=cues)


def choice_traces(
    tables: Tables, choices: Choices, gt: str, pred: str
) -> tuple[AnswerTrace, AnswerTrace]:
    """The traces of the gt and the pred of a row graded as a multiple-choice question."""
    g = label_choice(gt, tables.read(gt), choices, tables.lex)
    p = label_choice(pred, tables.read(pred), choices, tables.lex)
    return _choice_trace(g), _choice_trace(p)
