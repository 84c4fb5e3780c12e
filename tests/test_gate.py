"""`--fail-under`: one line when the mean over decided rows is too low, None otherwise."""

from __future__ import annotations

from vqagrade.reports.gates import fail_under_message
from vqagrade.reports.summary import Summary


def _summary(*rows: tuple[float | None, str]) -> Summary:
    s = Summary()
    for score, method in rows:
        s.add({"score": score, "method": method})
    return s.finish()


def test_passes_at_or_above_the_threshold() -> None:
    s = _summary((1.0, "rule"), (0.5, "llm"), (None, "unresolved"), (None, "error"))
    assert fail_under_message(s, 0.75) is None
    assert fail_under_message(s, 0.0) is None


def test_fails_below_with_one_line() -> None:
    s = _summary((1.0, "rule"), (0.0, "rule"), (None, "unresolved"))
    msg = fail_under_message(s, 0.8)
    assert msg == "mean score 0.5000 over 2 decided rows is below --fail-under 0.8"


def test_open_task_units() -> None:
    s = _summary((5, "rule"), (3, "llm"))
    assert fail_under_message(s, 4) is None
    assert fail_under_message(s, 4.5) is not None


def test_no_decided_row_fails() -> None:
    msg = fail_under_message(_summary((None, "unresolved")), 0.5)
    assert msg is not None and msg.startswith("no decided rows among 1")


def test_min_coverage_and_the_judge_gate() -> None:
    from vqagrade.reports.gates import judge_failed_message, min_coverage_message, run_gates

    s = _summary((1.0, "rule"), (None, "unresolved"), (None, "unresolved"))
    msg = min_coverage_message(s, 0.5)
    assert msg is not None and msg.startswith("coverage 0.3333 (1 of 3 rows decided)")
    assert min_coverage_message(s, 0.3) is None
    assert judge_failed_message({"judge_connection": 3}, 3, 0) == (
        "every judge call failed (judge_connection 3): no row was judged"
    )
    assert judge_failed_message({"judge_timeout": 1}, 3, 0) is None
    assert judge_failed_message({}, 0, 0) is None
    gates = run_gates(s, fail_under=0.9, min_coverage=0.5, strict=True)
    assert [(g.name, g.passed) for g in gates] == [
        ("fail-under", True), ("min-coverage", False), ("strict", True),
    ]  # fmt: skip
