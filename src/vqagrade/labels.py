"""Answer labels and the truth table of the two-option judge prompts (seeds 000/001)."""

from __future__ import annotations

from enum import Enum


class Label(str, Enum):
    """What an answer says about a two-option question."""

    A = "A"
    """The first option named in the question."""
    B = "B"
    """The second option named in the question."""
    BOTH = "both"
    """Both options hold."""
    NONE = "none"
    """Neither option holds."""

    def swapped(self) -> Label:
        """The same answer when the question lists its options the other way round."""
        return _SWAP[self]


_SWAP = {Label.A: Label.B, Label.B: Label.A, Label.BOTH: Label.BOTH, Label.NONE: Label.NONE}

# Rows are ground truth, columns are prediction: exactly the table the seed prompts spell out.
TRUTH_TABLE: dict[Label, dict[Label, float]] = {
    Label.A: {Label.A: 1.0, Label.B: 0.0, Label.BOTH: 0.5, Label.NONE: 0.5},
    Label.B: {Label.A: 0.0, Label.B: 1.0, Label.BOTH: 0.5, Label.NONE: 0.5},
    Label.BOTH: {Label.A: 0.5, Label.B: 0.5, Label.BOTH: 1.0, Label.NONE: 0.0},
    Label.NONE: {Label.A: 0.5, Label.B: 0.5, Label.BOTH: 0.0, Label.NONE: 1.0},
}


def score(gt: Label, pred: Label) -> float:
    """Score a predicted label against the ground-truth label (0, 0.5 or 1).

    Args:
        gt: label of the ground-truth answer.
        pred: label of the model's answer.
    """
    return TRUTH_TABLE[gt][pred]
