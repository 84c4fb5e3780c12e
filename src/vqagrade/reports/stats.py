"""The headline figures of a run with their 95% confidence intervals.

Coverage (decided rows / rows) is a proportion: its interval is Wilson's score interval,
which stays inside [0, 1] and behaves at 0 and 100%. The means (over decided rows, and the
strict mean where unresolved and error rows count 0) get a Student t interval,
``mean ± t(0.975, n-1) · s / √n``, clipped to the score range: scores are bounded and take
few values, and for the few hundred rows of a typical run the t interval is close to a
bootstrap's while being exact to reproduce.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Figures", "Interval", "mean_interval", "wilson"]

Z95 = 1.959963984540054
# t(0.975, df) for df = 1..30; above 30 the normal quantile is within 2%.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


@dataclass(frozen=True)
class Interval:
    """A 95% confidence interval."""

    low: float
    high: float

    def render(self, digits: int = 4) -> str:
        """``[low, high]``."""
        return f"[{self.low:.{digits}f}, {self.high:.{digits}f}]"


def wilson(k: int, n: int) -> Interval | None:
    """Wilson's 95% score interval of the proportion ``k / n`` (None when n is 0)."""
    if n <= 0:
        return None
    p, z2 = k / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact at the edges, not 1 - 1e-16
    return Interval(low, 1.0 if k == n else min(1.0, centre + half))


def mean_interval(n: int, total: float, total_sq: float, high: float = 1.0) -> Interval | None:
    """Student t 95% interval of a mean from its count, sum and sum of squares, clipped to
    ``[0, high]`` (None when n is 0; the point itself when n is 1)."""
    if n <= 0:
        return None
    mean = total / n
    if n == 1:
        return Interval(mean, mean)
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    t = _T95[n - 2] if n - 1 <= len(_T95) else Z95
    half = t * math.sqrt(var / n)
    return Interval(max(0.0, mean - half), min(high, mean + half))


@dataclass(frozen=True)
class Figures:
    """Rows, decided rows, coverage, the mean over decided rows and the strict mean (an
    undecided row counts 0), each share and mean with its 95% interval."""

    rows: int
    decided: int
    coverage: float | None
    coverage_ci: Interval | None
    mean: float | None
    mean_ci: Interval | None
    strict_mean: float | None
    strict_mean_ci: Interval | None

    @classmethod
    def from_sums(
        cls, rows: int, decided: int, total: float, total_sq: float, high: float = 1.0
    ) -> Figures:
        """The figures from counts and the decided rows' score sum and sum of squares."""
        return cls(
            rows=rows,
            decided=decided,
            coverage=decided / rows if rows else None,
            coverage_ci=wilson(decided, rows),
            mean=total / decided if decided else None,
            mean_ci=mean_interval(decided, total, total_sq, high),
            strict_mean=total / rows if rows else None,
            strict_mean_ci=mean_interval(rows, total, total_sq, high),
        )

    @classmethod
    def of(cls, scores: list[float | None]) -> Figures:
        """The figures of a list of scores (None: undecided)."""
        decided = [s for s in scores if s is not None]
        high = 5.0 if any(s > 1 for s in decided) else 1.0
        return cls.from_sums(
            len(scores), len(decided), sum(decided), sum(s * s for s in decided), high
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain values; each interval as ``[low, high]`` (or None)."""
        out = asdict(self)
        for key in ("coverage_ci", "mean_ci", "strict_mean_ci"):
            ci = getattr(self, key)
            out[key] = None if ci is None else [ci.low, ci.high]
        return out

    def cells(self) -> tuple[str, str, str]:
        """Coverage, mean and strict mean, each with its interval, as text."""
        return (
            _value(self.coverage, self.coverage_ci),
            _value(self.mean, self.mean_ci),
            _value(self.strict_mean, self.strict_mean_ci),
        )

    def render(self) -> str:
        """Two lines: rows, decided and coverage; the two means."""
        coverage, mean, strict = self.cells()
        return (
            f"rows {self.rows}  decided {self.decided}  coverage {coverage}\n"
            f"mean {mean} over decided rows   strict mean {strict} (undecided count 0)"
        )


def _value(value: float | None, ci: Interval | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.4f}" + (f" {ci.render()}" if ci is not None else "")


CI_NOTE = "95% intervals: Wilson for coverage, Student t for the means"
