"""vqagrade: grade close-ended two-option biomedical VQA answers deterministically."""

from .labels import TRUTH_TABLE, Label, score
from .records import AnswerTrace, Grade, Mention, Method

__all__ = ["TRUTH_TABLE", "AnswerTrace", "Grade", "Label", "Mention", "Method", "score"]
__version__ = "0.1.0"
