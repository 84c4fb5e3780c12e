"""vqagrade: grade close-ended two-option biomedical VQA answers deterministically.

Public API::

    from vqagrade import grade, grade_rows, Grader, JudgeConfig, summarize
    g = grade("Is the lesion in the left or right kidney?", "left", "The left kidney.")
    g.score, g.method, g.gt_label, g.pred_label, g.reason
    with Grader(judge=JudgeConfig(model="gpt-4o-mini")) as grader:   # judge what rules leave
        rows = list(grader.grade_rows(rows))
    summarize(rows, by="meta.model").render()   # coverage, means with 95% CIs, per model

Names are imported lazily so that the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Label": "labels",
    "QuestionKind": "kinds",
    "YesNo": "kinds",
    "TRUTH_TABLE": "labels",
    "score": "labels",
    "Grade": "records",
    "AnswerTrace": "records",
    "Mention": "records",
    "Method": "contract",
    "Grader": "grader",
    "FieldMap": "contract",
    "grade": "grader",
    "grade_rows": "grader",
    "grade_table": "engines.arrow",
    "grade_frame": "engines.arrow",
    "OpenGrader": "open_task",
    "assert_grade": "testing",
    "Lexicon": "lexicon",
    "load_lexicon": "lexicon",
    "VqagradeError": "errors",
    "InputError": "errors",
    "OutputError": "errors",
    "LexiconError": "errors",
    "JudgeError": "errors",
    "SchemaError": "schema",
    "JudgeConfig": "judge.records",
    "summarize": "reports.summary",
    "Summary": "reports.summary",
}

__all__ = [
    "TRUTH_TABLE",
    "AnswerTrace",
    "FieldMap",
    "Grade",
    "Grader",
    "InputError",
    "JudgeConfig",
    "JudgeError",
    "Label",
    "Lexicon",
    "LexiconError",
    "Mention",
    "Method",
    "OpenGrader",
    "OutputError",
    "QuestionKind",
    "SchemaError",
    "Summary",
    "VqagradeError",
    "YesNo",
    "assert_grade",
    "grade",
    "grade_frame",
    "grade_rows",
    "grade_table",
    "load_lexicon",
    "score",
    "summarize",
]

if TYPE_CHECKING:
    from .engines.arrow import grade_frame, grade_table
    from .errors import InputError, JudgeError, LexiconError, OutputError, VqagradeError
    from .grader import Grader, grade, grade_rows
    from .judge.records import JudgeConfig
    from .kinds import QuestionKind, YesNo
    from .labels import TRUTH_TABLE, Label, score
    from .lexicon import Lexicon, load_lexicon
    from .open_task import OpenGrader
    from .records import AnswerTrace, Grade, Mention
    from .reports.summary import Summary, summarize
    from .schema import SchemaError
    from .testing import assert_grade


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vqagrade' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
