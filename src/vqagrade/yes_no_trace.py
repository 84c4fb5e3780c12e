"""The evidence of a yes/no grading, for `Grader.grade` and `vqagrade explain`."""

from __future__ import annotations

from .records import AnswerTrace
from .rules.memo import Tables
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
