"""Golden cases in tests/cases/*.jsonl: each row is one test with a readable id."""

import json
from pathlib import Path
from typing import Any

import pytest

from vqagrade import Grader, Label, score
from vqagrade.kinds import Letter, YesNo, choice_score, yes_no_score

CASES = Path(__file__).parent / "cases"
LABELS = {"A", "B", "both", "none", "abstain", "n/a", "yes", "no", *(x.value for x in Letter)}


class WrongLabel(Exception):
    """The rules gave a label the case does not accept (never a known gap)."""


def _load() -> list[Any]:
    params = []
    for path in sorted(CASES.glob("*.jsonl")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                case = json.loads(line)
                # A case the rules are known to get wrong stays in the suite as a strict
                # xfail with its reason, so the gap is visible and a fix is noticed.
                gap = case.get("known_gap")
                wrong = case.get("known_wrong")
                # Only an abstention may be a known gap: a wrong label raises WrongLabel,
                # which that xfail does not accept. A wrong label found and not yet fixed is
                # listed as `known_wrong` (and in tests/cases/README.md) until it is.
                marks = (
                    [pytest.mark.xfail(strict=True, reason=wrong, raises=WrongLabel)]
                    if wrong
                    else [pytest.mark.xfail(strict=True, reason=gap, raises=AssertionError)]
                    if gap
                    else []
                )
                params.append(
                    pytest.param(
                        case,
                        id=case.get("id", f"{path.stem}-{n}"),
                        marks=marks,
                    )
                )
    return params


GRADER = Grader()


def _not_wrong(case: dict[str, Any], got_gt: str, got_pred: str, reason: str) -> None:
    if got_gt not in ("abstain", case["gt_label"]) or got_pred not in (
        "abstain",
        *case["pred_label"],
    ):
        raise WrongLabel(f"gt {got_gt}, pred {got_pred}: {reason}")


def test_no_case_went_missing() -> None:
    # The real count: a file that stops loading, or rows deleted by mistake, fail here.
    assert len(_load()) >= 22907


@pytest.mark.parametrize("case", _load())
def test_case(case: dict[str, Any]) -> None:
    assert case["gt_label"] in LABELS and set(case["pred_label"]) <= LABELS
    options = tuple(case["options"]) if case.get("options") else None
    kind = case.get("question_kind", "two_option")
    if kind == "multiple_choice":
        _check_choice_case(case)
        return
    g = GRADER.grade(case["question"], case["gt"], case["pred"], options=options)
    got_pred = g.pred_label.value if g.pred_label else "abstain"
    if case["gt_label"] == "n/a":
        # A refused question labels nothing: the pred must not get a label either.
        assert g.method.value == "unresolved", g.reason
        assert got_pred in case["pred_label"], g.reason
        return
    assert g.question_kind is not None and g.question_kind.value == kind, g.reason
    got_gt = g.gt_label.value if g.gt_label else "abstain"
    _not_wrong(case, got_gt, got_pred, g.reason)
    assert got_gt == case["gt_label"], g.reason
    assert got_pred in case["pred_label"], g.reason
    if g.method.value == "rule":
        assert g.gt_label is not None and g.pred_label is not None
        if kind == "yes_no":
            assert g.score == yes_no_score(YesNo(g.gt_label), YesNo(g.pred_label))
        else:
            assert g.score == score(Label(g.gt_label), Label(g.pred_label))


def _choice_row(case: dict[str, Any]) -> dict[str, Any]:
    """A multiple-choice case graded as a row (its options in `choices` or columns A..E)."""
    row = {"question": case["question"], "gt": case["gt"], "pred": case["pred"]}
    row.update(case.get("columns") or {})
    if case.get("choices") is not None:
        row["choices"] = case["choices"]
    return next(GRADER.grade_rows([row]))


def _check_choice_case(case: dict[str, Any]) -> None:
    """A multiple-choice case, graded as a row (so `choices` and columns A..E are read as
    `vqagrade score` reads them) and, for a list of choices or none, through `grade()`."""
    out = _choice_row(case)
    assert out["question_kind"] == "multiple_choice", out["reason"]
    _not_wrong(case, out["gt_label"] or "abstain", out["pred_label"] or "abstain", out["reason"])
    assert (out["gt_label"] or "abstain") == case["gt_label"], out["reason"]
    assert (out["pred_label"] or "abstain") in case["pred_label"], out["reason"]
    if out["method"] == "rule":
        assert out["score"] == choice_score(Letter(out["gt_label"]), Letter(out["pred_label"]))
    else:
        assert out["score"] is None
    if case.get("columns") is None and not isinstance(case.get("choices"), (dict, str)):
        g = GRADER.grade(case["question"], case["gt"], case["pred"], choices=case.get("choices"))
        assert (g.pred_label.value if g.pred_label else "abstain") == (
            out["pred_label"] or "abstain"
        )
        assert g.options is not None and list(g.options) == out["options"]


# ---- coverage floor ------------------------------------------------------------------------
# Coverage = of the cases whose pred has a certain label ("abstain" not accepted), the share
# the rules label correctly. Its floor is stored beside the cases (coverage.json) and a drop
# of more than one point fails; after a gain, store the new figure with
#     python tests/test_cases.py --store-coverage
COVERAGE_FILE = CASES / "coverage.json"
COVERAGE_SLACK = 0.01


def _pred_label(case: dict[str, Any]) -> str:
    """The label the rules give the case's pred ("abstain" when they abstain)."""
    if case.get("question_kind") == "multiple_choice":
        return _choice_row(case)["pred_label"] or "abstain"
    options = tuple(case["options"]) if case.get("options") else None
    g = GRADER.grade(case["question"], case["gt"], case["pred"], options=options)
    return g.pred_label.value if g.pred_label else "abstain"


def golden_coverage() -> dict[str, Any]:
    """The coverage of the rules on the golden cases, with its counts."""
    certain = decided = 0
    for param in _load():
        case = param.values[0]
        if "abstain" in case["pred_label"] or case["gt_label"] == "n/a":
            continue
        certain += 1
        decided += _pred_label(case) in case["pred_label"]
    return {"coverage": round(decided / certain, 4), "decided": decided, "certain": certain}


def test_coverage_does_not_drop() -> None:
    stored = json.loads(COVERAGE_FILE.read_text())
    now = golden_coverage()
    assert now["coverage"] >= stored["coverage"] - COVERAGE_SLACK, (
        f"golden-case coverage fell from {stored['coverage']} to {now['coverage']} "
        f"({now['decided']}/{now['certain']})"
    )


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--store-coverage"]:
        figures = golden_coverage()
        COVERAGE_FILE.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"stored {figures} in {COVERAGE_FILE}")
