"""The run summary: coverage, mean and strict mean with 95% intervals, reasons, groups."""

from __future__ import annotations

import json
import math
from pathlib import Path

from typer.testing import CliRunner

import vqagrade
from vqagrade.cli import app
from vqagrade.reports.reasons import reason_kind
from vqagrade.reports.stats import Figures, mean_interval, wilson

KIDNEY = "Is the lesion in the left or right kidney?"
runner = CliRunner()


def _rows() -> list[dict[str, object]]:
    """Two models: a answers well, b refuses twice."""
    out: list[dict[str, object]] = []
    preds = {
        "a": ["The left kidney.", "Left.", "Right.", "left"],
        "b": ["I'm sorry, I cannot see the image.", "Left.", "could be either", "left"],
    }
    for model, answers in preds.items():
        for i, pred in enumerate(answers):
            out.append(
                {"id": f"{model}{i}", "question": KIDNEY, "gt": "left", "pred": pred,
                 "meta": {"model": model}}
            )  # fmt: skip
    out.append({"id": "open", "question": "What organ is shown?", "gt": "liver", "pred": "liver",
                "meta": {"model": "a"}})  # fmt: skip
    return out


def test_wilson_matches_the_textbook_value() -> None:
    ci = wilson(8, 10)
    assert ci is not None
    assert math.isclose(ci.low, 0.4902, abs_tol=1e-4) and math.isclose(
        ci.high, 0.9433, abs_tol=1e-4
    )
    assert wilson(0, 0) is None
    edge = wilson(10, 10)
    assert edge is not None and edge.high == 1.0 and edge.low < 1.0


def test_the_mean_interval_is_student_t_clipped_to_the_score_range() -> None:
    # eight 1s and two 0s: mean 0.8, sd 0.4216, t(9) 2.262
    ci = mean_interval(10, 8.0, 8.0)
    assert ci is not None
    assert math.isclose(ci.low, 0.8 - 2.262 * 0.4216 / math.sqrt(10), abs_tol=1e-3)
    assert ci.high == 1.0  # 0.8 + 0.30 clipped


def test_strict_mean_counts_undecided_rows_as_zero() -> None:
    f = Figures.of([1.0, 0.0, None, None])
    assert (f.rows, f.decided, f.coverage, f.mean, f.strict_mean) == (4, 2, 0.5, 0.5, 0.25)


def test_summarize_groups_by_a_dotted_path() -> None:
    graded = list(vqagrade.grade_rows(_rows()))
    s = vqagrade.summarize(graded, by="meta.model")
    assert sorted(s.groups) == ["a", "b"]
    a, b = s.groups["a"].figures, s.groups["b"].figures
    assert (a.rows, a.decided, a.mean) == (5, 4, 0.75)
    assert (b.rows, b.decided, b.mean, b.strict_mean) == (4, 2, 1.0, 0.5)
    assert s.as_dict()["groups"]["b"]["coverage"] == 0.5


def test_reason_kinds_drop_the_quoted_answer() -> None:
    assert reason_kind("unresolved", "pred abstains: hedge: 'could be'") == "pred: hedge"
    assert reason_kind("unresolved", "gt abstains: x; pred abstains: y") == "gt: x"
    why = "not a two-option question: an open question that merely contains 'or'"
    assert reason_kind("unresolved", why) == (
        "not close-ended: an open question that merely contains 'or'"
    )
    assert reason_kind("error", "pred abstains: hedge; judge error: judge_timeout") == (
        "judge error: judge_timeout"
    )
    assert reason_kind("error", "missing field 'pred'") == "error: missing field 'pred'"


def test_score_prints_coverage_reasons_and_one_line_per_group(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    res = runner.invoke(
        app, ["score", str(src), "-o", str(tmp_path / "o.jsonl"), "--group-by", "meta.model"]
    )
    assert res.exit_code == 0, res.stderr
    err = res.stderr
    assert "rows 9  decided 6  coverage 0.6667 [" in err
    assert "strict mean 0.5556 [" in err and "(undecided count 0)" in err
    assert "undecided by reason" in err and "pred: hedge" in err
    assert "not close-ended: the question offers no 'X or Y' alternative" in err
    lines = err.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("by meta.model"))
    assert lines[head + 1].startswith("a ") and lines[head + 2].startswith("b ")
    assert "Wilson for coverage, Student t for the means" in err
    assert "{" not in err  # never a Python dict


def test_min_coverage_gates_beside_fail_under(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    args = ["score", str(src), "-o", str(tmp_path / "o.jsonl"), "-q", "--fail-under", "0.8"]
    assert runner.invoke(app, args).exit_code == 0  # mean 0.833 over decided rows
    res = runner.invoke(app, [*args, "--min-coverage", "0.9"])
    assert res.exit_code == 1
    assert "coverage 0.6667 (6 of 9 rows decided) is below --min-coverage 0.9" in res.stderr
    assert runner.invoke(app, [*args, "--min-coverage", "0.6"]).exit_code == 0
    assert runner.invoke(app, [*args, "--min-coverage", "1.5"]).exit_code == 2


def test_bench_shows_coverage_and_both_means(tmp_path: Path) -> None:
    row = {"question": KIDNEY, "gt": "left", "pred": "left", "expect_gt": "A",
           "accept_pred": ["A"], "accept_scores": [1.0]}  # fmt: skip
    hedge = {**row, "pred": "could be either", "accept_pred": ["abstain"]}
    src = tmp_path / "bench.jsonl"
    src.write_text(json.dumps(row) + "\n" + json.dumps(hedge) + "\n")
    res = runner.invoke(app, ["bench", str(src)])
    assert res.exit_code == 0
    assert "scores: rows 2  decided 1  coverage 0.5000 [" in res.stdout
    assert "mean 1.0000 [1.0000, 1.0000] over decided rows   strict mean 0.5000 [" in res.stdout
