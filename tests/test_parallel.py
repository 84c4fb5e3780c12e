"""Grading in worker processes: same rows out as in-process, in order, memory bounded."""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from scale_support import LEXICON_TOML, LIEN_ROW, case_rows, workload_rows
from vqagrade.engines.processes import _Router, auto_workers, default_workers, grade_parallel
from vqagrade.errors import LexiconError
from vqagrade.grader import Grader
from vqagrade.io.rows import InputRow, read_rows
from vqagrade.records import FieldMap


class FakeJudge:
    """Judges every triple 0.5; remembers what it was asked, from which thread."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str]] = []
        self.threads: set[str] = set()

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        self.asked.extend(items)
        self.threads.add(threading.current_thread().name)
        return [
            {"score": 0.5, "method": "llm", "reason": "fake judge", "judge_model": "fake"}
            for _ in items
        ]


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return case_rows() + workload_rows(3_000)


def test_default_workers_is_the_core_count() -> None:
    assert default_workers() >= 1


def test_auto_workers(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text('{"a": 1}\n' * 100)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(50_000 * 150)  # sparse: its size is what counts
    assert auto_workers(3, "-") == 3
    assert auto_workers(None, "-") == 1
    assert auto_workers(None, small) == 1
    assert auto_workers(None, big) == default_workers()
    assert auto_workers(None, tmp_path / "missing.jsonl") == default_workers()


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_same_rows_as_in_process_in_order(rows: list[dict[str, Any]], workers: int) -> None:
    expected = list(Grader().grade_rows(rows))
    got = list(grade_parallel(rows, workers=workers, chunk_rows=97))
    assert got == expected


def test_unreadable_records_become_error_rows_in_place(tmp_path: Path) -> None:
    good = case_rows(50)
    src = tmp_path / "in.jsonl"
    lines = [__import__("json").dumps(r) for r in good]
    lines[10] = "{broken"
    lines[30] = "[1, 2]"
    src.write_text("\n".join(lines) + "\n")
    expected = list(Grader().grade_rows(read_rows(src)))
    got = list(grade_parallel(read_rows(src), workers=2, chunk_rows=8))
    assert got == expected
    assert got[10]["method"] == "error" and got[10]["raw"] == "{broken"
    assert got[30]["reason"] == "not a JSON object (got an array)"


def test_input_rows_and_mappings_mix(rows: list[dict[str, Any]]) -> None:
    mixed: list[Any] = [InputRow(i + 1, r) if i % 2 else r for i, r in enumerate(rows[:200])]
    assert list(grade_parallel(mixed, workers=2, chunk_rows=16)) == list(
        Grader().grade_rows(rows[:200])
    )


def test_memory_is_bounded_by_chunks_in_flight() -> None:
    consumed = 0
    base = case_rows()

    def endless() -> Iterator[dict[str, Any]]:
        nonlocal consumed
        for i in itertools.count():
            consumed += 1
            yield base[i % len(base)]

    out = grade_parallel(endless(), workers=2, chunk_rows=50, max_chunks=3)
    first = list(itertools.islice(out, 500))
    out.close()  # type: ignore[attr-defined]
    assert len(first) == 500
    # What was read ahead is at most the chunks in flight plus the one being split.
    assert consumed <= 500 + 4 * 50


def test_closing_early_stops_the_workers(rows: list[dict[str, Any]]) -> None:
    out = grade_parallel(rows, workers=2, chunk_rows=64)
    next(out)
    out.close()  # type: ignore[attr-defined]
    assert multiprocessing.active_children() == []


def test_lexicons_reach_the_workers(tmp_path: Path) -> None:
    lexicon = tmp_path / "mine.toml"
    lexicon.write_text(LEXICON_TOML)
    data = [LIEN_ROW, *case_rows(20)]
    [plain] = grade_parallel([LIEN_ROW], workers=2)
    assert plain["method"] == "unresolved"
    got = list(grade_parallel(data, workers=2, lexicons=[lexicon], chunk_rows=4))
    assert got[0]["method"] == "rule" and got[0]["score"] == 1.0
    assert got == list(Grader(lexicons=[lexicon]).grade_rows(data))


def test_a_bad_lexicon_fails_before_any_worker_starts(tmp_path: Path) -> None:
    with pytest.raises(LexiconError):
        grade_parallel([LIEN_ROW], workers=2, lexicons=[tmp_path / "missing.toml"])


def test_remapped_fields() -> None:
    fields = FieldMap(question="q", gt="answer", pred="output", option_a="a", option_b="b")
    data = [
        {"q": r["question"], "answer": r["gt"], "output": r["pred"], "a": r.get("option_a")}
        for r in case_rows(120)
    ]
    expected = list(Grader(fields=fields).grade_rows(data))
    assert list(grade_parallel(data, workers=2, fields=fields, chunk_rows=10)) == expected
    assert {r["method"] for r in expected} >= {"rule", "unresolved"}


@pytest.mark.parametrize("judge_all", [False, True])
def test_the_judge_runs_in_the_parent(rows: list[dict[str, Any]], judge_all: bool) -> None:
    serial = FakeJudge()
    expected = list(Grader(judge=serial, judge_all=judge_all).grade_rows(rows))
    judge = FakeJudge()
    got = list(grade_parallel(rows, workers=2, judge=judge, judge_all=judge_all, judge_batch=16))
    assert got == expected
    assert judge.asked == serial.asked  # the same triples, in the same order
    assert judge.threads == {"vqagrade-judge_0"}
    methods = {r["method"] for r in got}
    assert ("rule" not in methods) if judge_all else ({"rule", "llm"} <= methods)


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        grade_parallel([], workers=0)


def test_no_rows() -> None:
    assert list(grade_parallel([], workers=2)) == []


# ---- routing --------------------------------------------------------------------------------------


def test_a_question_sticks_to_one_worker() -> None:
    router = _Router(3)
    keys = [f"q{i % 6}" for i in range(60)]
    owner: dict[str, set[int]] = {}
    for _ in range(5):
        for w, positions in enumerate(router.split(keys)):
            for p in positions:
                owner.setdefault(keys[p], set()).add(w)
    assert all(len(ws) == 1 for ws in owner.values())
    assert router.load == [100, 100, 100]


def test_one_question_still_spreads_over_every_worker() -> None:
    router = _Router(4)
    pieces = router.split(["same question"] * 1000)
    sizes = sorted(len(p) for p in pieces)
    assert sum(sizes) == 1000 and sizes[0] > 0
    assert max(sizes) <= 1000 * 5 // 16 + 1
    assert sorted(i for p in pieces for i in p) == list(range(1000))
