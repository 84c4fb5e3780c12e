"""The truth table of the seed prompts, one test per cell."""

import pytest

from vqagrade import TRUTH_TABLE, Label, score

A, B, BOTH, NONE = Label.A, Label.B, Label.BOTH, Label.NONE

CELLS = [
    (A, A, 1.0), (A, B, 0.0), (A, BOTH, 0.5), (A, NONE, 0.5),
    (B, A, 0.0), (B, B, 1.0), (B, BOTH, 0.5), (B, NONE, 0.5),
    (BOTH, A, 0.5), (BOTH, B, 0.5), (BOTH, BOTH, 1.0), (BOTH, NONE, 0.0),
    (NONE, A, 0.5), (NONE, B, 0.5), (NONE, BOTH, 0.0), (NONE, NONE, 1.0),
]  # fmt: skip


@pytest.mark.parametrize(
    ("gt", "pred", "expected"),
    [pytest.param(g, p, e, id=f"gt-{g.value}-pred-{p.value}") for g, p, e in CELLS],
)
def test_truth_table_cell(gt: Label, pred: Label, expected: float) -> None:
    assert score(gt, pred) == expected
    assert TRUTH_TABLE[gt][pred] == expected


def test_table_is_complete() -> None:
    assert {(g, p) for g in Label for p in Label} == {(g, p) for g, p, _ in CELLS}


@pytest.mark.parametrize("label", list(Label))
def test_swapping_options_preserves_scores(label: Label) -> None:
    for other in Label:
        assert score(label.swapped(), other.swapped()) == score(label, other)
