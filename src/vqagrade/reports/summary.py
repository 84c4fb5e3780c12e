"""Run summaries: rows, decided, coverage, the mean over decided rows and the strict mean
(each with a 95% interval), counts by method, why rows are undecided, the gt x pred label
table, figures per question kind and per group (``--group-by``), throughput.

    summary = summarize(rows, by=["meta.model"])
    summary.figures.coverage, summary.groups["gpt-4o"].figures.mean
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .reasons import reason_kind
from .stats import CI_NOTE, Figures

__all__ = ["MISSING_GROUP", "Summary", "group_label", "group_value", "summarize"]

_LABELS = ("A", "B", "both", "none", "-")
MISSING_GROUP = "(none)"
"""The group of a row that lacks the ``--group-by`` field."""


def group_value(row: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path (``meta.model``); a key that itself holds the dots (a
    flattened CSV column) wins. None when absent."""
    if path in row:
        return row[path]
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def group_label(row: Mapping[str, Any], by: Sequence[str]) -> str:
    """The group of a row: the values at the `by` paths, joined by " / "."""
    parts = []
    for path in by:
        v = group_value(row, path)
        parts.append(MISSING_GROUP if v is None or v == "" else str(v))
    return " / ".join(parts)


def summarize(rows: Iterable[Mapping[str, Any]], *, by: Sequence[str] | str = ()) -> Summary:
    """The summary of graded rows (output of `grade_rows`, `vqagrade score`).

    Example::

        s = vqagrade.summarize(graded, by="meta.model")
        print(s.render())
        for name, g in s.groups.items():
            print(name, g.figures.mean, g.figures.coverage)

    Args:
        rows: graded rows (score, method, reason, labels...).
        by: field(s) to group by; dotted paths reach into nested objects (``meta.model``).
    """
    summary = Summary(by=[by] if isinstance(by, str) else by)
    for row in rows:
        summary.add(row)
    return summary.finish()


class Summary:
    """Figures over one run of `vqagrade score`.

    `add` runs once per output row, so it only tallies (method, score, labels, reason kind)
    keys; the figures are computed from the tally when read.

    Args:
        by: fields (dotted paths) to group rows by; each group gets its own `Summary` in
            `groups`.
    """

    def __init__(self, by: Sequence[str] = ()) -> None:
        self._tally: Counter[tuple[Any, ...]] = Counter()
        self.started = time.perf_counter()
        self.seconds = 0.0
        self.by = tuple(by)
        self.groups: dict[str, Summary] = {}

    def add(self, row: Mapping[str, Any]) -> None:
        """Count one output row."""
        get = row.get
        score = get("score")
        if type(score) is not float and type(score) is not int:
            # Anything else is not a score (and may not even be hashable).
            score = float(score) if isinstance(score, (int, float)) else None
        method = get("method") or "error"
        why = None
        if score is None or (method != "rule" and method != "llm"):
            why = reason_kind(str(method), get("reason"))
        gt, pred, kind = get("gt_label"), get("pred_label"), get("question_kind")
        self._tally[(method, score, gt, pred, kind, why)] += 1
        if self.by:
            label = group_label(row, self.by)
            group = self.groups.get(label)
            if group is None:
                group = self.groups[label] = Summary()
            group.add(row)

    def finish(self) -> Summary:
        """Stop the clock."""
        self.seconds = time.perf_counter() - self.started
        for group in self.groups.values():
            group.seconds = self.seconds
        return self

    @property
    def rows(self) -> int:
        """Rows counted."""
        return sum(self._tally.values())

    @property
    def decided(self) -> int:
        """Rows with a score from the rules or the judge."""
        return sum(n for (m, s, *_), n in self._tally.items() if _decided(m, s))

    @property
    def score_sum(self) -> float:
        """Sum of the decided rows' scores."""
        return float(sum(s * n for (m, s, *_), n in self._tally.items() if _decided(m, s)))

    @property
    def methods(self) -> dict[str, int]:
        """Rows by method."""
        out: Counter[str] = Counter()
        for (m, *_), n in self._tally.items():
            out[str(m)] += n
        return dict(out)

    @property
    def table(self) -> dict[str, dict[str, int]]:
        """Rows by gt label, then pred label ("-" for no label)."""
        out: dict[str, dict[str, int]] = {}
        for (_, _, g, p, *_), n in self._tally.items():
            cell = out.setdefault(str(g or "-"), {})
            key = str(p or "-")
            cell[key] = cell.get(key, 0) + n
        return out

    @property
    def kinds(self) -> dict[str, dict[str, float | int | None]]:
        """Per question kind ("none" when not close-ended): rows, decided, mean score."""
        out: dict[str, dict[str, float | int | None]] = {}
        sums: Counter[str] = Counter()
        for (m, s, _, _, k, _), n in self._tally.items():
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
    def full_marks(self) -> float:
        """5 when a score above 1 was seen (the open task), else 1."""
        return 5.0 if any(k[1] is not None and k[1] > 1 for k in self._tally) else 1.0

    @property
    def figures(self) -> Figures:
        """Rows, decided, coverage, mean and strict mean, with their 95% intervals."""
        total = total_sq = 0.0
        decided = 0
        for (m, s, *_), n in self._tally.items():
            if _decided(m, s):
                decided += n
                total += s * n
                total_sq += s * s * n
        return Figures.from_sums(self.rows, decided, total, total_sq, self.full_marks)

    @property
    def strict_mean(self) -> float | None:
        """Mean score over every row, an undecided one counting 0."""
        return self.figures.strict_mean

    @property
    def coverage(self) -> float | None:
        """Share of rows decided (rule or llm)."""
        return self.figures.coverage

    @property
    def reasons(self) -> dict[str, int]:
        """Undecided rows (unresolved, error) by the kind of their reason, most first."""
        out: Counter[str] = Counter()
        for key, n in self._tally.items():
            if key[5] is not None:
                out[key[5]] += n
        return dict(out.most_common())

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain values (for JSON): headline, methods, reasons, kinds, groups."""
        return {
            **self.figures.as_dict(),
            "methods": self.methods,
            "reasons": self.reasons,
            "kinds": self.kinds,
            "groups": {k: g.figures.as_dict() for k, g in self.groups.items()},
        }

    @property
    def rate(self) -> float:
        """Rows per second."""
        return self.rows / self.seconds if self.seconds > 0 else 0.0

    def render(self) -> str:
        """A short human-readable report."""
        methods = Counter(self.methods)
        lines = [
            self.figures.render(),
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
        lines += self.render_reasons()
        lines += self.render_groups()
        lines.append(CI_NOTE)
        lines.append(f"{self.seconds:.2f} s  {self.rate:,.0f} rows/s")
        return "\n".join(lines)

    def render_reasons(self, limit: int = 12) -> list[str]:
        """The undecided rows by reason kind, most first (no lines when every row is decided)."""
        reasons = self.reasons
        if not reasons:
            return []
        width = min(64, max(len(k) for k in reasons))
        lines = [f"{'undecided by reason':<{width}}  rows"]
        for k, n in list(reasons.items())[:limit]:
            lines.append(f"{k:<{width}}  {n:>4}")
        if len(reasons) > limit:
            rest = sum(list(reasons.values())[limit:])
            lines.append(f"{f'({len(reasons) - limit} other kinds)':<{width}}  {rest:>4}")
        return lines

    def render_groups(self) -> list[str]:
        """One line per group (``--group-by``): rows, decided, coverage, mean, strict mean."""
        if not self.by:
            return []
        head = ("by " + ", ".join(self.by), "rows", "decided", "coverage", "mean", "strict mean")
        body = [
            (k, str(g.rows), str(g.decided), *g.figures.cells()) for k, g in self.groups.items()
        ]
        body.sort(key=lambda r: r[0])
        widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
        lines = []
        for r in [head, *body]:
            pairs = enumerate(zip(r, widths, strict=True))
            cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs]
            lines.append("  ".join(cells))
        return lines


def _decided(method: Any, score: Any) -> bool:
    return score is not None and method in ("rule", "llm")
