"""Bounded memos: a grader whose tables overflow all the time grades exactly like one whose
tables never do (eviction only costs time, never changes an outcome)."""

from __future__ import annotations

import random

import pytest

from scale_support import case_rows
from vqagrade import grader as grader_module
from vqagrade.grader import Grader


def _rows() -> list[dict[str, str]]:
    rows = case_rows()
    # Twice, shuffled: repeats hit the memos, and the order mixes questions that share options.
    rows = rows + rows
    random.Random(7).shuffle(rows)
    return rows


def test_tiny_memos_grade_like_large_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows()
    expected = list(Grader().grade_rows(rows))
    for name, size in (("_CACHE_SIZE", 7), ("_LABEL_CAP", 5), ("_READINGS_SIZE", 3)):
        monkeypatch.setattr(grader_module, name, size)
    monkeypatch.setattr(grader_module, "_MAX_KINDS", 4)  # kinds renumbered every few labels
    tiny = Grader()
    got = list(tiny.grade_rows(rows))
    assert got == expected
    # Renumbered at the start of a row: one row may add a kind past the cap, never more.
    assert len(tiny._kind_list) <= 4 + 1 and tiny._label_count <= 5
