"""Helpers for the user's own test suites (pytest or plain asserts).

Example::

    from vqagrade.testing import assert_grade

    def test_left_kidney():
        assert_grade("Is the lesion in the left or right kidney?", "left", "Left side.", 1)

A failure raises ``AssertionError`` whose message is the full trace of `vqagrade explain`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .grader import Grader
    from .labels import Label
    from .records import Grade

__all__ = ["assert_grade"]


def assert_grade(
    question: str,
    gt: str,
    pred: str,
    expected: float | None,
    *,
    options: tuple[str, str] | None = None,
    gt_label: Label | str | None = None,
    pred_label: Label | str | None = None,
    grader: Grader | None = None,
) -> Grade:
    """Assert that the rules grade a triple as expected; returns the `Grade`.

    Args:
        question: the two-option question.
        gt: the ground-truth answer.
        pred: the model's answer.
        expected: the score (1, 0.5, 0), or None to expect the rules to abstain
            (``unresolved``).
        options: explicit (option_a, option_b), overriding extraction from the question.
        gt_label: also require this gt label (``"A"``, ``"B"``, ``"both"``, ``"none"``).
        pred_label: also require this pred label.
        grader: the grader to use; default: the shipped rules.

    Raises:
        AssertionError: the grade differs; the message holds the trace.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    from .grader import default_grader
    from .reports.explain import render_grade

    g = (grader or default_grader()).grade(question, gt, pred, options=options)
    problems = []
    if expected is None:
        if g.score is not None:
            problems.append(f"expected the rules to abstain, got score {g.score:g}")
    elif g.score is None or not math.isclose(g.score, expected):
        got = "null" if g.score is None else f"{g.score:g}"
        problems.append(f"expected score {expected:g}, got {got} ({g.method.value})")
    for name, want, got_label in (
        ("gt", gt_label, g.gt_label),
        ("pred", pred_label, g.pred_label),
    ):
        if want is None:
            continue
        got_text = got_label.value if got_label is not None else "abstain"
        want_text = str(getattr(want, "value", want))
        if got_text != want_text:
            problems.append(f"expected {name} label {want_text}, got {got_text}")
    if problems:
        raise AssertionError("; ".join(problems) + "\n" + render_grade(question, gt, pred, g))
    return g
