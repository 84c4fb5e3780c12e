"""Run summaries: counts by method, mean score, the gt x pred label table, throughput."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

_LABELS = ("A", "B", "both", "none", "-")


class Summary(BaseModel):
    """Figures over one run of `vqagrade score`."""

    rows: int = 0
    decided: int = 0
    score_sum: float = 0.0
    methods: dict[str, int] = Field(default_factory=dict)
    table: dict[str, dict[str, int]] = Field(default_factory=dict)
    started: float = Field(default_factory=time.perf_counter)
    seconds: float = 0.0

    def add(self, row: dict[str, Any]) -> None:
        """Count one output row."""
        self.rows += 1
        method = row.get("method") or "error"
        self.methods[method] = self.methods.get(method, 0) + 1
        score = row.get("score")
        if isinstance(score, (int, float)) and method in ("rule", "llm"):
            self.decided += 1
            self.score_sum += float(score)
        gt, pred = row.get("gt_label") or "-", row.get("pred_label") or "-"
        cell = self.table.setdefault(gt, {})
        cell[pred] = cell.get(pred, 0) + 1

    def finish(self) -> Summary:
        """Stop the clock."""
        self.seconds = time.perf_counter() - self.started
        return self

    @property
    def mean(self) -> float | None:
        """Mean score over decided rows (rule or llm)."""
        return self.score_sum / self.decided if self.decided else None

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
        for g in _LABELS:
            row = self.table.get(g, {})
            lines.append(f"{g:<8}" + "".join(f"{row.get(p, 0):>7}" for p in _LABELS))
        lines.append(f"{self.seconds:.2f} s  {self.rate:,.0f} rows/s")
        return "\n".join(lines)
