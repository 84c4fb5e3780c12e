"""Bounded memos: a grader whose tables overflow all the time grades exactly like one whose
tables never do (eviction only costs time, never changes an outcome)."""

from __future__ import annotations

import random

from scale_support import case_rows
from vqagrade.grader import Grader
from vqagrade.lexicon import lexicon_for
from vqagrade.rules.memo import Tables


def _rows() -> list[dict[str, str]]:
    rows = case_rows()
    # Twice, shuffled: repeats hit the memos, and the order mixes questions that share options.
    rows = rows + rows
    random.Random(7).shuffle(rows)
    return rows


def test_tiny_memos_grade_like_large_ones() -> None:
    rows = _rows()
    expected = list(Grader().grade_rows(rows))
    # Kinds are renumbered every few labels, and every other table overflows all the time.
    names = ("question", "gt", "pred", "option_a", "option_b")
    tiny = Tables(lexicon_for([]), names, cache_size=7, label_cap=5, readings_size=3, max_kinds=4)
    got = list(tiny.rows(rows))
    assert got == expected
    # Renumbered at the start of a row: one row may add a kind past the cap, never more.
    assert len(tiny.kind_list) <= 4 + 1 and tiny.label_count <= 5


def test_a_huge_kinds_bound_keeps_pair_keys_machine_integers() -> None:
    """Pair keys (g * base + p) are products of factors under 2**30, whatever bound is asked:
    compiled, a larger product goes through CPython's long multiply, which polls for signals,
    and mypyc aborts the process on its failure (a Ctrl-C then left partial outputs)."""
    from vqagrade.rules import memo

    names = ("question", "gt", "pred", "option_a", "option_b")
    huge = Tables(lexicon_for([]), names, max_kinds=1 << 40)
    assert huge.max_kinds <= memo._KEY_BASE // 2 and memo._KEY_BASE < 1 << 30
    rows = _rows()[:300]
    assert list(huge.rows(rows)) == list(Grader().grade_rows(rows))
