"""Audit an LLM judge: compare the scores it already gave with what the rules decide.

Only rows the rules settle (both answers labelled, ``method="rule"``) are compared; the
others are counted as ``rules_abstain`` or ``error_rows``. A judge score is read from the
field as a number or as the judge's raw reply (``{ score: 0.5 }``, ``{ mistralscore: 1 }``,
``1 star``; the strict parser of `vqagrade.judge.parse`). Anything that is not 0, 0.5 or 1
(``0.7``, ``2``, ``"great"``, an empty string, NaN, a missing field) is impossible under the
truth table: it is counted by kind and reported, never compared and never a crash.

Statistics (rules are the rows of the confusion matrix, the judge its columns):

* ``agreement``: share of compared rows where the two scores are equal;
* ``kappa``: Cohen's kappa over the three categories 0 / 0.5 / 1;
* ``kappa_linear`` and ``kappa_quadratic``: weighted kappa for the ordinal scale, with
  disagreement weights ``|i-j|/2`` and ``((i-j)/2)^2`` on the category indices;
* agreement by the rule that labelled the prediction, and by the gt label.

A kappa is ``None`` when it is undefined (every compared row in one and the same category).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..judge.parse import parse_score

if TYPE_CHECKING:
    from ..grader import Grader
    from ..records import Grade

__all__ = [
    "SCALE",
    "AuditResult",
    "AuditStats",
    "Bucket",
    "InvalidScore",
    "audit_rows",
    "cohen_kappa",
    "fail_under_agreement",
    "read_judge_score",
]

SCALE: tuple[float, ...] = (0.0, 0.5, 1.0)
_KEYS = ("0", "0.5", "1")
_EXAMPLES = 20


class _AnyNumber(Collection[float]):
    """Lets the parser return whatever number it finds, so that 2 is 'impossible', not text."""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, float) and math.isfinite(value)

    def __iter__(self) -> Iterator[float]:
        return iter(())

    def __len__(self) -> int:
        return 0


def read_judge_score(value: Any) -> tuple[float | None, str | None]:
    """Read one judge-field value: ``(score, None)``, or ``(None, kind of problem)``.

    Kinds: ``missing``, ``empty``, ``nan``, ``out_of_scale`` (a number other than 0, 0.5 or
    1), ``unparseable`` (text with no score), ``wrong_type`` (a boolean, a list...).

    Args:
        value: the field's value as read from the input row (number, string, object, None).
    """
    if value is None:
        return None, "missing"
    if isinstance(value, bool):
        return None, "wrong_type"
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None, "empty"
        if text.lower() in ("nan", "+nan", "-nan", "inf", "-inf", "infinity", "-infinity"):
            return None, "nan"
        found = parse_score(text, _AnyNumber())
        if found is None:
            return None, "unparseable"
        number = found
    elif isinstance(value, Mapping):
        import json

        found = parse_score(json.dumps(value, default=str), _AnyNumber())
        if found is None:
            return None, "unparseable"
        number = found
    else:
        return None, "wrong_type"
    if not math.isfinite(number):
        return None, "nan"
    if number not in SCALE:
        return None, "out_of_scale"
    return number, None


def cohen_kappa(matrix: Sequence[Sequence[float]], weights: str | None = None) -> float | None:
    """Cohen's kappa of a k x k confusion matrix; None when it is undefined.

    Args:
        matrix: counts, rater 1 in rows, rater 2 in columns, categories in ordinal order.
        weights: None (unweighted), ``"linear"`` or ``"quadratic"``.
    """
    k = len(matrix)
    n = sum(sum(row) for row in matrix)
    if n == 0:
        return None
    rows = [sum(matrix[i]) for i in range(k)]
    cols = [sum(matrix[i][j] for i in range(k)) for j in range(k)]

    def w(i: int, j: int) -> float:
        if weights is None:
            return 0.0 if i == j else 1.0
        d = abs(i - j) / (k - 1)
        if weights == "linear":
            return d
        if weights == "quadratic":
            return d * d
        raise ValueError(f"unknown weights {weights!r}: use None, 'linear' or 'quadratic'")

    observed = sum(w(i, j) * matrix[i][j] for i in range(k) for j in range(k)) / n
    expected = sum(w(i, j) * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    if expected == 0:
        return None
    return 1.0 - observed / expected


class Bucket(BaseModel):
    """Agreement within one group of compared rows."""

    n: int = 0
    agree: int = 0

    @property
    def rate(self) -> float | None:
        """Share of rows in agreement."""
        return self.agree / self.n if self.n else None

    def add(self, agree: bool) -> None:
        """Count one compared row."""
        self.n += 1
        self.agree += agree


class InvalidScore(BaseModel):
    """A judge score that the truth table cannot produce."""

    id: Any = None
    line: int
    value: Any = Field(description="the field's value as read (strings cut to 200 characters)")
    kind: str


class AuditStats(BaseModel):
    """Figures of one audit (`--format json` prints this)."""

    judge_field: str
    rows: int = 0
    compared: int = 0
    agree: int = 0
    agreement: float | None = None
    kappa: float | None = None
    kappa_linear: float | None = None
    kappa_quadratic: float | None = None
    mean_rules: float | None = Field(default=None, description="over compared rows")
    mean_judge: float | None = Field(default=None, description="over compared rows")
    confusion: dict[str, dict[str, int]] = Field(
        default_factory=lambda: {r: dict.fromkeys(_KEYS, 0) for r in _KEYS},
        description="rules score -> judge score -> rows",
    )
    by_rule: dict[str, dict[str, Any]] = Field(default_factory=dict)
    by_gt_label: dict[str, dict[str, Any]] = Field(default_factory=dict)
    disagreements: int = 0
    rules_abstain: int = Field(default=0, description="rows the rules leave unresolved")
    error_rows: int = Field(default=0, description="rows that cannot be read or lack fields")
    invalid_judge: int = Field(default=0, description="judge scores outside 0 / 0.5 / 1")
    invalid_by_kind: dict[str, int] = Field(default_factory=dict)
    invalid_examples: list[InvalidScore] = Field(default_factory=list)

    def render(self) -> str:
        """A short human-readable report."""

        def pct(x: float | None) -> str:
            return "n/a" if x is None else f"{100 * x:.1f}%"

        def num(x: float | None) -> str:
            return "undefined" if x is None else f"{x:.4f}"

        lines = [
            f"audit of judge field '{self.judge_field}': {self.rows} rows, "
            f"{self.compared} compared (rules decided and the judge score is valid)",
            f"agreement {pct(self.agreement)} ({self.agree}/{self.compared}), "
            f"{self.disagreements} disagreements",
            f"Cohen's kappa {num(self.kappa)}   weighted kappa: linear {num(self.kappa_linear)}"
            f", quadratic {num(self.kappa_quadratic)}",
        ]
        if self.mean_rules is not None and self.mean_judge is not None:
            lines.append(f"mean score: rules {self.mean_rules:.4f}  judge {self.mean_judge:.4f}")
        lines.append("rules\\judge" + "".join(f"{k:>8}" for k in _KEYS))
        for r in _KEYS:
            lines.append(f"{r:<11}" + "".join(f"{self.confusion[r][j]:>8}" for j in _KEYS))
        for title, table in (("by rule (pred)", self.by_rule), ("by gt label", self.by_gt_label)):
            lines.append(f"{title}:")
            for name, b in sorted(table.items(), key=lambda kv: -int(kv[1]["n"])):
                lines.append(f"  {name:<16} {b['agree']:>6}/{b['n']:<6} {pct(b['rate'])}")
        lines.append(
            f"not compared: rules abstain {self.rules_abstain}, error rows {self.error_rows}, "
            f"impossible judge scores {self.invalid_judge}"
        )
        if self.invalid_by_kind:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.invalid_by_kind.items()))
            lines.append(f"impossible judge scores by kind: {kinds}")
            for ex in self.invalid_examples[:5]:
                ident = ex.id if ex.id is not None else f"line {ex.line}"
                lines.append(f"  {ident}: {ex.value!r} ({ex.kind})")
        return "\n".join(lines)


class AuditResult(BaseModel):
    """The statistics and the disagreeing rows, most suspicious first."""

    stats: AuditStats
    disagreements: list[dict[str, Any]]


def _buckets(table: dict[str, Bucket]) -> dict[str, dict[str, Any]]:
    return {k: {"n": b.n, "agree": b.agree, "rate": b.rate} for k, b in sorted(table.items())}


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 200:
        return value[:200] + "…"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN is not JSON
    return value


def _recover(row: Any) -> Mapping[str, Any] | None:
    """The row's data; a JSON line rejected only for a NaN/Infinity literal is read again.

    Python's ``json.dumps`` writes a NaN judge score as a bare ``NaN``, which strict JSON
    readers refuse; the audit must count that score as impossible, not lose the row.
    """
    data = getattr(row, "data", None)
    raw = getattr(row, "raw", None)
    if data is None and isinstance(raw, str) and ("NaN" in raw or "Infinity" in raw):
        import json

        try:
            obj = json.loads(raw)
        except ValueError:
            return None
        return obj if isinstance(obj, dict) else None
    return data if isinstance(data, Mapping) else None


def _trace(t: Any) -> dict[str, Any] | None:
    return None if t is None else dict(t.model_dump(mode="json"))


def _disagreement(
    data: Mapping[str, Any], line: int, g: Grade, judge: float, raw: Any, grader: Grader
) -> dict[str, Any]:
    assert g.score is not None
    f = grader.fields
    return {
        "kind": "disagreement",
        "id": data.get(f.id),
        "line": line,
        "question": data.get(f.question),
        "gt": data.get(f.gt),
        "pred": data.get(f.pred),
        "rules_score": g.score,
        "judge_score": judge,
        "judge_raw": _clip(raw),
        "diff": judge - g.score,
        "gt_label": g.gt_label.value if g.gt_label else None,
        "pred_label": g.pred_label.value if g.pred_label else None,
        "options": list(g.options) if g.options else None,
        "rule": g.pred.rule if g.pred else None,
        "reason": g.reason,
        "gt_trace": _trace(g.gt),
        "pred_trace": _trace(g.pred),
    }


def _suspicion(d: Mapping[str, Any]) -> tuple[float, int, int]:
    # Largest gap first; at equal gaps a judge more generous than the rules first (an inflated
    # benchmark is the costlier mistake); then input order.
    return (-abs(float(d["diff"])), 0 if d["diff"] > 0 else 1, int(d["line"]))


def audit_rows(
    rows: Iterable[Mapping[str, Any] | Any], judge_field: str, grader: Grader | None = None
) -> AuditResult:
    """Compare the judge scores in ``judge_field`` with the rules, row by row.

    Args:
        rows: mappings or `vqagrade.io.InputRow` records (unreadable ones count as errors).
        judge_field: the field holding the judge's score or raw reply.
        grader: the rules (field names, lexicons); default: a plain `Grader()`.
    """
    if grader is None:
        from ..grader import Grader

        grader = Grader()
    f = grader.fields
    stats = AuditStats(judge_field=judge_field)
    matrix = [[0] * 3 for _ in range(3)]
    by_rule: dict[str, Bucket] = {}
    by_gt: dict[str, Bucket] = {}
    found: list[dict[str, Any]] = []
    sum_rules = sum_judge = 0.0
    for n, row in enumerate(rows, 1):
        stats.rows += 1
        data = row if isinstance(row, Mapping) else _recover(row)
        line = int(getattr(row, "line", n)) if not isinstance(row, Mapping) else n
        if not isinstance(data, Mapping):
            stats.error_rows += 1
            continue
        outcome, triple = grader.row_outcome(data)
        if triple is None:
            stats.error_rows += 1
            continue
        if outcome.score is None:
            stats.rules_abstain += 1
            continue
        raw = data.get(judge_field)
        judge, problem = read_judge_score(raw)
        if judge is None:
            stats.invalid_judge += 1
            kind = problem or "unparseable"
            stats.invalid_by_kind[kind] = stats.invalid_by_kind.get(kind, 0) + 1
            if len(stats.invalid_examples) < _EXAMPLES:
                ex = InvalidScore(id=data.get(f.id), line=line, value=_clip(raw), kind=kind)
                stats.invalid_examples.append(ex)
            continue
        q, gt, pred = triple
        a, b = data.get(f.option_a), data.get(f.option_b)
        explicit = (a, b) if isinstance(a, str) and isinstance(b, str) else None
        if explicit and not (explicit[0].strip() and explicit[1].strip()):
            explicit = None
        g = grader.grade(q, gt, pred, options=explicit)
        assert g.score is not None and g.gt_label is not None
        rules = g.score
        agree = rules == judge
        stats.compared += 1
        stats.agree += agree
        sum_rules += rules
        sum_judge += judge
        matrix[SCALE.index(rules)][SCALE.index(judge)] += 1
        by_rule.setdefault(g.pred.rule if g.pred else "?", Bucket()).add(agree)
        by_gt.setdefault(g.gt_label.value, Bucket()).add(agree)
        if not agree:
            found.append(_disagreement(data, line, g, judge, raw, grader))
    found.sort(key=_suspicion)
    stats.disagreements = len(found)
    if stats.compared:
        stats.agreement = stats.agree / stats.compared
        stats.mean_rules = sum_rules / stats.compared
        stats.mean_judge = sum_judge / stats.compared
    stats.kappa = cohen_kappa(matrix)
    stats.kappa_linear = cohen_kappa(matrix, "linear")
    stats.kappa_quadratic = cohen_kappa(matrix, "quadratic")
    stats.confusion = {_KEYS[i]: {_KEYS[j]: matrix[i][j] for j in range(3)} for i in range(3)}
    stats.by_rule = _buckets(by_rule)
    stats.by_gt_label = _buckets(by_gt)
    return AuditResult(stats=stats, disagreements=found)


def fail_under_agreement(stats: AuditStats, minimum: float) -> str | None:
    """The one-line reason an audit fails ``--fail-under-agreement``, or None when it passes.

    Args:
        stats: the audit's figures.
        minimum: the lowest acceptable agreement, as a fraction (0.9) of compared rows.
    """
    if stats.agreement is None:
        return f"no row could be compared, so agreement cannot reach {minimum:g}"
    if stats.agreement < minimum:
        return (
            f"agreement {stats.agreement:.4f} ({stats.agree}/{stats.compared}) is below "
            f"--fail-under-agreement {minimum:g}"
        )
    return None
