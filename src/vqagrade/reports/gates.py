"""CI gates over a finished run: ``--fail-under``, ``--min-coverage``, ``--strict`` and the
judge check (a run where every judge call failed must not pass).

    gates = run_gates(summary, fail_under=0.8, min_coverage=0.9, judge_stats=judge.stats)
    failed = [g for g in gates if not g.passed]   # exit 1 when any; JUnit: one testcase each
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .summary import Summary

__all__ = [
    "Gate",
    "fail_under_message",
    "judge_failed_message",
    "min_coverage_message",
    "run_gates",
]


@dataclass(frozen=True)
class Gate:
    """One checked gate: its name (``fail-under``, ``min-coverage``, ``strict``, ``judge``),
    whether it passed, and a one-line message either way."""

    name: str
    passed: bool
    message: str


def fail_under_message(summary: Summary, minimum: float) -> str | None:
    """The one-line reason a run fails ``--fail-under``, or None when it passes.

    The mean is over decided rows (method ``rule`` or ``llm``), in the task's own units
    (0-1 for two-option answers, 0-5 for open-ended ones). A run with no decided row fails:
    a gate that checked nothing must not pass. Pair it with ``--min-coverage``: a mean over
    few decided rows says little.

    Args:
        summary: the run's figures, after every output row was added.
        minimum: the lowest acceptable mean score.
    """
    mean = summary.mean
    if mean is None:
        return (
            f"no decided rows among {summary.rows}: the mean score cannot be checked "
            f"against --fail-under {minimum:g}"
        )
    if mean < minimum:
        return (
            f"mean score {mean:.4f} over {summary.decided} decided rows is below "
            f"--fail-under {minimum:g}"
        )
    return None


def min_coverage_message(summary: Summary, minimum: float) -> str | None:
    """The one-line reason a run fails ``--min-coverage`` (decided rows / rows), or None.

    An empty run fails: there is nothing to cover.

    Args:
        summary: the run's figures.
        minimum: the lowest acceptable share of decided rows, 0-1.
    """
    coverage = summary.coverage
    if coverage is None:
        return f"no rows: coverage cannot be checked against --min-coverage {minimum:g}"
    if coverage < minimum:
        top = next(iter(summary.reasons.items()), None)
        why = f"; most often undecided: {top[0]} ({top[1]})" if top else ""
        return (
            f"coverage {coverage:.4f} ({summary.decided} of {summary.rows} rows decided) is "
            f"below --min-coverage {minimum:g}{why}"
        )
    return None


def judge_failed_message(errors: Mapping[str, int], requests: int, cache_hits: int) -> str | None:
    """The one-line reason a judged run fails because no judge call succeeded, or None.

    Args:
        errors: error verdicts by fault (``JudgeStats.errors``).
        requests: rows asked about (``JudgeStats.requests``).
        cache_hits: rows answered from the cache.
    """
    failed = sum(errors.values())
    if requests == 0 or cache_hits > 0 or failed < requests:
        return None
    faults = ", ".join(f"{k} {n}" for k, n in sorted(errors.items(), key=lambda kv: -kv[1]))
    return f"every judge call failed ({faults}): no row was judged"


def run_gates(
    summary: Summary,
    *,
    fail_under: float | None = None,
    min_coverage: float | None = None,
    strict: bool = False,
    judge_stats: Any = None,
) -> list[Gate]:
    """Check every configured gate, in a fixed order; one `Gate` each.

    Args:
        summary: the run's figures.
        fail_under: ``--fail-under`` (mean over decided rows), or None.
        min_coverage: ``--min-coverage`` (share of rows decided), or None.
        strict: ``--strict``: any error row fails.
        judge_stats: the judge's `JudgeStats` when the run had a judge (checked: not every
            call may fail), else None.
    """
    gates: list[Gate] = []
    f = summary.figures
    if fail_under is not None:
        msg = fail_under_message(summary, fail_under)
        ok = f"mean score {f.mean:.4f} >= {fail_under:g}" if f.mean is not None else ""
        gates.append(Gate("fail-under", msg is None, msg or ok))
    if min_coverage is not None:
        msg = min_coverage_message(summary, min_coverage)
        ok = f"coverage {f.coverage:.4f} >= {min_coverage:g}" if f.coverage is not None else ""
        gates.append(Gate("min-coverage", msg is None, msg or ok))
    if strict:
        errors = summary.methods.get("error", 0)
        msg = f"{errors} error rows (--strict)" if errors else None
        gates.append(Gate("strict", msg is None, msg or "no error rows"))
    if judge_stats is not None:
        msg = judge_failed_message(judge_stats.errors, judge_stats.requests, judge_stats.cache_hits)
        ok = f"{judge_stats.requests - sum(judge_stats.errors.values())} rows judged"
        gates.append(Gate("judge", msg is None, msg or ok))
    return gates
