"""The judge queue runs beside rule grading: rows in order, buffer bounded, time overlapped."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from scale_support import case_rows
from vqagrade.contract import error_row, merge_judge
from vqagrade.grader import Grader
from vqagrade.judge.queue import Item, JudgeQueueStats, judge_concurrently, rule_items


class SlowJudge:
    """Scores every triple 1; each call takes ``delay`` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls: list[int] = []

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        time.sleep(self.delay)
        self.calls.append(len(items))
        return [{"score": 1.0, "method": "llm", "reason": f"judged {q}"} for q, _, _ in items]


def _items(n: int, judged_every: int, rule_delay: float = 0.0) -> Iterator[Item]:
    """n rows; every ``judged_every``-th needs the judge; each costs ``rule_delay`` to grade."""
    for i in range(n):
        if rule_delay:
            time.sleep(rule_delay)
        needs = i % judged_every == 0
        row = {"i": i, "method": "unresolved" if needs else "rule", "reason": f"rules {i}"}
        yield row, (f"q{i}", "gt", "pred") if needs else None, needs


def test_rows_come_out_in_order_judged_where_needed() -> None:
    judge = SlowJudge(0.01)
    out = list(judge_concurrently(_items(1000, 7), judge, batch=10))
    assert [r["i"] for r in out] == list(range(1000))
    judged = [r for r in out if r["method"] == "llm"]
    assert [r["i"] for r in judged] == list(range(0, 1000, 7))
    assert judged[0]["reason"] == "judged q0; rules: rules 0"
    assert sum(judge.calls) == len(judged) and max(judge.calls) == 10


def test_same_output_as_the_grader_s_own_batching() -> None:
    rows = case_rows()
    expected = list(Grader(judge=SlowJudge()).grade_rows(rows))
    got = list(judge_concurrently(rule_items(Grader(), rows), SlowJudge(), batch=5))
    assert got == expected


def test_judge_time_overlaps_rule_time() -> None:
    # Rules: 400 rows x 2.5 ms = 1.0 s. Judge: 4 batches x 0.3 s = 1.2 s. One after the other
    # that is 2.2 s; overlapped, about the judge's 1.2 s plus the wait for its first batch.
    judge = SlowJudge(0.3)
    start = time.perf_counter()
    out = list(judge_concurrently(_items(400, 20, rule_delay=0.0025), judge, batch=5))
    took = time.perf_counter() - start
    assert len(out) == 400 and judge.calls == [5, 5, 5, 5]
    assert took < 1.8, f"{took:.2f} s: the judge did not run beside the rules"


def test_buffer_is_bounded_while_the_judge_is_slow() -> None:
    consumed = 0

    def counted() -> Iterator[Item]:
        nonlocal consumed
        for item in _items(10_000, 5_000):
            consumed += 1
            yield item

    out = judge_concurrently(counted(), SlowJudge(0.2), batch=100, max_buffer=50)
    first = next(out)
    assert first["method"] == "llm"
    # The judged first row held the rest back; at most max_buffer rows were read meanwhile.
    assert consumed <= 51
    assert len(list(out)) == 9_999


def test_stats_count_rows_in_flight() -> None:
    release = threading.Event()
    seen: list[int] = []
    stats = JudgeQueueStats()

    class Gated:
        def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
            seen.append(stats.in_flight)
            release.wait(5)
            return [{"score": 0.0, "method": "llm", "reason": "j"} for _ in items]

    out = judge_concurrently(_items(30, 3), Gated(), batch=4, stats=stats)
    threading.Timer(0.2, release.set).start()
    rows = list(out)
    assert len(rows) == 30
    assert seen and seen[0] == 4
    assert (stats.submitted, stats.done, stats.in_flight) == (10, 10, 0)


def test_a_judge_exception_reaches_the_caller() -> None:
    class Broken:
        def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
            raise RuntimeError("judge exploded")

    with pytest.raises(RuntimeError, match="judge exploded"):
        list(judge_concurrently(_items(50, 10), Broken(), batch=2))


def test_closing_early_closes_the_producer() -> None:
    closed = False

    def producer() -> Iterator[Item]:
        nonlocal closed
        try:
            yield from _items(1000, 3)
        finally:
            closed = True

    out = judge_concurrently(producer(), SlowJudge(), batch=2)
    next(out)
    out.close()  # type: ignore[attr-defined]
    assert closed


def test_no_rows_and_no_judged_rows() -> None:
    judge = SlowJudge()
    assert list(judge_concurrently(iter([]), judge)) == []
    assert len(list(judge_concurrently(_items(20, 1000), judge))) == 20
    assert judge.calls == [1]  # row 0 only


def test_merge_judge_keeps_the_rules_reason_after_the_judge_s() -> None:
    row = {"method": "unresolved", "reason": "pred abstains: hedge"}
    merge_judge(row, {"method": "llm", "score": 1.0, "reason": "judge m (1 attempt(s))"})
    assert row["reason"] == "judge m (1 attempt(s)); rules: pred abstains: hedge"
    failed = {"method": "unresolved", "reason": "pred abstains"}
    merge_judge(failed, {"method": "error", "score": None, "reason": "judge_timeout"})
    assert failed["reason"] == "pred abstains; judge error: judge_timeout"  # the rules' first


def test_error_row_matches_the_grader_s() -> None:
    from vqagrade.io.rows import InputRow

    [expected] = Grader().grade_rows([InputRow(7, None, "invalid JSON", "{x")])
    assert error_row(7, "{x", "invalid JSON") == expected
