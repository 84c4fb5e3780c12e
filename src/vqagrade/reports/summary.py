"""Run summaries: counts by method, mean score, the gt x pred label table, throughput."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

_LABELS = ("A", "B", "both", "none", "-")


class Summary:
    """Figures over one run of `vqagrade score`.

    `add` runs once per output row, so it only tallies (method, score, labels) keys; the
    figures are computed from the tally when read.
    """

    def __init__(self) -> None:
        self._tally: Counter[tuple[Any, ...]] = Counter()
        self.started = time.perf_counter()
        self.seconds = 0.0

    def add(self, row: Mapping[str, Any]) -> None:
        """Count one output row."""
        get = row.get
        score = get("score")
        if type(score) is not float and type(score) is not int:
            # Anything else is not a score (and may not even be hashable).
            score = float(score) if isinstance(score, (int, float)) else None
        gt, pred, kind = get("gt_label"), get("pred_label"), get("question_kind")
        self._tally[(get("method") or "error", score, gt, pred, kind)] += 1

    def finish(self) -> Summary:
        """Stop the clock."""
        self.seconds = time.perf_counter() - self.started
        return self

    @property
    def rows(self) -> int:
        """Rows counted."""
        return sum(self._tally.values())

    @property
    def decided(self) -> int:
        """Rows with a score from the rules or the judge."""
        return sum(n for (m, s, _, _, _), n in self._tally.items() if _decided(m, s))

    @property
    def score_sum(self) -> float:
        """Sum of the decided rows' scores."""
        return float(sum(s * n for (m, s, _, _, _), n in self._tally.items() if _decided(m, s)))

    @property
    def methods(self) -> dict[str, int]:
        """Rows by method."""
        out: Counter[str] = Counter()
        for (m, _, _, _, _), n in self._tally.items():
            out[str(m)] += n
        return dict(out)

    @property
    def table(self) -> dict[str, dict[str, int]]:
        """Rows by gt label, then pred label ("-" for no label)."""
        out: dict[str, dict[str, int]] = {}
        for (_, _, g, p, _), n in self._tally.items():
            cell = out.setdefault(str(g or "-"), {})
            key = str(p or "-")
            cell[key] = cell.get(key, 0) + n
        return out

    @property
    def kinds(self) -> dict[str, dict[str, float | int | None]]:
        """Per question kind ("none" when not close-ended): rows, decided, mean score."""
        out: dict[str, dict[str, float | int | None]] = {}
        sums: Counter[str] = Counter()
        for (m, s, _, _, k), n in self._tally.items():
            cell = out.setdefault(str(k or "none"), {"rows": 0, "decided": 0, "mean": None})
            cell["rows"] = int(cell["rows"] or 0) + n
            if _decided(m, s):
                cell["decided"] = int(cell["decided"] or 0) + n
                sums[str(k or "none")] += s * n
        for k, cell in out.items():
            if cell["decided"]:
                cell["mean"] = sums[k] / int(cell["decided"] or 1)
        return out

    @property
    def mean(self) -> float | None:
        """Mean score over decided rows (rule or llm)."""
        decided = self.decided
        return self.score_sum / decided if decided else None

    @property
    def rate(self) -> float:
        """Rows per second."""
        return self.rows / self.seconds if self.seconds > 0 else 0.0

    def render(self) -> str:
        """A short human-readable report."""
        mean = f"{self.mean:.4f}" if self.mean is not None else "n/a"
        methods = Counter(self.methods)
        lines = [
            f"rows {self.rows}  decided {self.decided}  mean score {mean}",
            "method   "
            + "  ".join(f"{m} {methods.get(m, 0)}" for m in ("rule", "llm", "unresolved", "error")),
            "gt\\pred " + "".join(f"{p:>7}" for p in _LABELS),
        ]
        table = self.table
        labels: tuple[str, ...] = _LABELS
        if "yes" in table or "no" in table:
            labels = (*_LABELS[:-1], "yes", "no", "-")
            lines[-1] = "gt\\pred " + "".join(f"{p:>7}" for p in labels)
        for g in labels:
            row = table.get(g, {})
            lines.append(f"{g:<8}" + "".join(f"{row.get(p, 0):>7}" for p in labels))
        kinds = self.kinds
        if len(kinds) > 1 or "yes_no" in kinds:
            parts = []
            for k, c in sorted(kinds.items()):
                m = "n/a" if c["mean"] is None else f"{c['mean']:.4f}"
                parts.append(f"{k} {c['rows']} (decided {c['decided']}, mean {m})")
            lines.append("by kind  " + "  ".join(parts))
        lines.append(f"{self.seconds:.2f} s  {self.rate:,.0f} rows/s")
        return "\n".join(lines)


def _decided(method: Any, score: Any) -> bool:
    return score is not None and method in ("rule", "llm")
