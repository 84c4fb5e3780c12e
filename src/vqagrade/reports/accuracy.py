"""Accuracy and coverage of the rules on a labelled file (format of shared/data/labeled)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from pydantic import BaseModel, Field

from ..errors import InputError
from ..grader import Grader
from ..kinds import QuestionKind
from .stats import CI_NOTE, Figures


class BenchRow(BaseModel):
    """One labelled row that the rules got wrong or missed."""

    id: str
    kind: str = Field(description="wrong or missed")
    question: str
    gt: str
    pred: str
    expect_gt: str
    accept_pred: list[str]
    got: dict[str, Any]
    trace: str


class BenchResult(BaseModel):
    """Figures of one bench run."""

    rows: int
    decided: int
    wrong: int
    must_decide: int
    missed: int
    seconds: float
    details: list[BenchRow] = Field(default_factory=list)
    other_kind: int = Field(
        default=0,
        description="rows labelled n/a (not two-option) graded as yes/no or multiple choice",
    )
    scores: list[float | None] = Field(
        default_factory=list, description="every row's score by the rules (None: undecided)"
    )

    @property
    def figures(self) -> Figures:
        """Rows, decided, coverage of all rows, mean and strict mean, with 95% intervals."""
        return Figures.of(self.scores)

    def render_scores(self) -> str:
        """The scores the rules gave, as `vqagrade score` reports them."""
        return f"scores: {self.figures.render()}\n{CI_NOTE}"

    @property
    def precision(self) -> float:
        """Share of decided rows that are right."""
        return (self.decided - self.wrong) / self.decided if self.decided else 1.0

    @property
    def coverage(self) -> float:
        """Share of rows that must be decided which the rules decided."""
        return (self.must_decide - self.missed) / self.must_decide if self.must_decide else 1.0

    @property
    def rate(self) -> float:
        """Rows per second."""
        return self.rows / self.seconds if self.seconds else 0.0

    def render(self) -> str:
        """One line of figures."""
        return (
            f"rows {self.rows}  decided {self.decided}  wrong {self.wrong}  "
            f"precision {self.precision:.4f}  coverage {self.coverage:.4f} "
            f"({self.must_decide - self.missed}/{self.must_decide})  "
            f"judge-call fraction {(self.rows - self.decided) / max(self.rows, 1):.3f}  "
            f"{self.rate:,.0f} rows/s"
            + (f"  ({self.other_kind} n/a rows graded as another kind, not scored here)"
               if self.other_kind else "")
        )  # fmt: skip


_OTHER_KINDS = (QuestionKind.YES_NO.value, QuestionKind.MULTIPLE_CHOICE.value)

_REQUIRED = {"question": str, "gt": str, "pred": str, "expect_gt": str, "accept_pred": list}


def read_labelled(path: str) -> list[dict[str, Any]]:
    """Read a labelled JSONL file.

    Raises:
        InputError: the file cannot be read, or a line is not a labelled row.
    """
    rows: list[dict[str, Any]] = []
    try:
        with open(path, "rb") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise InputError(f"{path}:{n}: not JSON ({exc})") from None
                problem = _labelled_problem(row)
                if problem:
                    raise InputError(f"{path}:{n}: not a labelled row ({problem})")
                rows.append(row)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    return rows


def _labelled_problem(row: Any) -> str | None:
    if not isinstance(row, dict):
        return "not a JSON object"
    for key, kind in _REQUIRED.items():
        if not isinstance(row.get(key), kind):
            return f"'{key}' missing or not a {kind.__name__}"
    if not isinstance(row.get("accept_scores", []), list):
        return "'accept_scores' is not a list"
    return None


def run_bench(rows: Iterable[Mapping[str, Any]], grader: Grader | None = None) -> BenchResult:
    """Grade labelled rows by the rules and compare with their labels.

    A decided row is wrong when its score is not in `accept_scores` or its gt label differs
    from `expect_gt` (yes/no rows: `expect_gt` "yes" or "no"); coverage counts rows whose
    `accept_pred` has no "abstain". Rows labelled "n/a" that are graded as yes/no or
    multiple-choice questions are counted apart (`other_kind`): their labels are for
    two-option grading only.
    """
    grader = grader or Grader()
    rows = list(rows)
    t0 = time.perf_counter()
    f = grader.fields
    outcomes = [
        grader.grade_row({f.question: r["question"], f.gt: r["gt"], f.pred: r["pred"]}).fields
        for r in rows
    ]
    seconds = time.perf_counter() - t0
    decided = wrong = must = missed = other = 0
    details: list[BenchRow] = []
    for r, out in zip(rows, outcomes, strict=True):
        if out["question_kind"] in _OTHER_KINDS and r["expect_gt"] == "n/a":
            # Labelled for two-option grading only: its other grading has no label here.
            other += 1
            continue
        need = "abstain" not in r["accept_pred"]
        must += need
        kind = None
        if out["method"] == "rule":
            decided += 1
            if out["score"] not in r.get("accept_scores", []) or out["gt_label"] != r["expect_gt"]:
                wrong += 1
                kind = "wrong"
        elif need:
            missed += 1
            kind = "missed"
        if kind:
            details.append(
                BenchRow(
                    id=str(r.get("id", "")),
                    kind=kind,
                    question=r["question"],
                    gt=r["gt"],
                    pred=r["pred"],
                    expect_gt=r["expect_gt"],
                    accept_pred=list(r["accept_pred"]),
                    got=out,
                    trace=out["reason"],
                )
            )
    return BenchResult(
        rows=len(rows),
        decided=decided,
        wrong=wrong,
        must_decide=must,
        missed=missed,
        seconds=seconds,
        details=details,
        other_kind=other,
        scores=[out["score"] for out in outcomes],
    )
