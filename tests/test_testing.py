"""`vqagrade.testing.assert_grade`: passes quietly, fails with the whole trace."""

from __future__ import annotations

import pytest

from vqagrade import Label
from vqagrade.testing import assert_grade

Q = "Is the lesion in the left or right kidney?"


def test_a_matching_grade_passes_and_is_returned() -> None:
    g = assert_grade(Q, "left", "The left kidney.", 1, gt_label="A", pred_label=Label.A)
    assert g.score == 1.0


def test_expected_none_means_the_rules_abstain() -> None:
    assert_grade(Q, "left", "It could be left or right.", None)


def test_explicit_options() -> None:
    assert_grade("Which one?", "T1", "T2", 0, options=("T1", "T2"))


def test_a_wrong_score_fails_with_the_trace() -> None:
    with pytest.raises(AssertionError) as info:
        assert_grade(Q, "left", "right kidney", 1)
    message = str(info.value)
    assert message.splitlines()[0] == "expected score 1, got 0 (rule)"
    assert f"question: {Q}" in message
    assert "options: A = 'left kidney'   B = 'right kidney'" in message
    assert "pred: 'right kidney' -> B   [mention]" in message
    assert "score: 0   method: rule" in message


def test_a_wrong_label_fails() -> None:
    with pytest.raises(AssertionError, match="expected pred label both, got B"):
        assert_grade(Q, "left", "right", 0, pred_label="both")


def test_an_unexpected_abstention_fails() -> None:
    with pytest.raises(AssertionError, match=r"expected score 0.5, got null \(unresolved\)"):
        assert_grade(Q, "left", "I cannot tell", 0.5)


def test_an_unexpected_decision_fails() -> None:
    with pytest.raises(AssertionError, match="expected the rules to abstain, got score 1"):
        assert_grade(Q, "left", "left", None)
