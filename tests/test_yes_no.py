"""Yes/no questions: question kinds, --kinds, the judge's view of a yes/no row, summaries."""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vqagrade import Grader
from vqagrade.cli import app
from vqagrade.kinds import QuestionKind, judge_question, parse_kinds
from vqagrade.lexicon import default_lexicon
from vqagrade.reports.summary import Summary
from vqagrade.rules.polar import read_question

runner = CliRunner()


@pytest.mark.parametrize(
    ("question", "gt", "kind"),
    [
        pytest.param("Is there a pneumothorax?", "no", "yes_no", id="polar"),
        pytest.param("In this image, is there a fracture?", "yes", "yes_no", id="intro-polar"),
        pytest.param("Any evidence of cardiomegaly?", "No", "yes_no", id="any-evidence"),
        pytest.param("Is there pneumonia or effusion?", "yes", "yes_no", id="disjunction"),
        pytest.param("Is the lesion in the left or right kidney?", "left", "two_option", id="two"),
        pytest.param("What organ is shown?", "liver", None, id="open"),
        pytest.param("What organ is shown?", "yes", "yes_no", id="open-with-yes-gt"),
    ],
)
def test_question_kind(question: str, gt: str, kind: str | None) -> None:
    g = Grader().grade(question, gt, gt)
    assert (g.question_kind.value if g.question_kind else None) == kind, g.reason
    assert g.output_fields()["question_kind"] == kind


def test_yes_no_grade_row() -> None:
    fields, judge = Grader().grade_row(
        {"question": "Is there a fracture?", "gt": "No", "pred": "No fracture is seen."}
    )
    assert fields["question_kind"] == "yes_no" and fields["options"] == ["yes", "no"]
    assert (fields["gt_label"], fields["pred_label"], fields["score"]) == ("no", "no", 1.0)
    assert judge is None  # settled: the judge need not see it


def test_an_abstaining_yes_no_row_reaches_the_judge_with_its_options() -> None:
    seen: list[tuple[str, str, str]] = []

    class Judge:
        def judge_rows(self, items: Any) -> list[dict[str, Any]]:
            seen.extend(items)
            return [{"score": 1.0, "method": "llm", "reason": "judge"} for _ in items]

    rows = [
        {"question": "Is there a fracture?", "gt": "yes", "pred": "There may be a fracture."},
        {"question": "Is there a fracture?", "gt": "yes", "pred": "Yes."},
    ]
    out = list(Grader(judge=Judge()).grade_rows(rows))
    assert seen == [(judge_question("Is there a fracture?"), "yes", "There may be a fracture.")]
    assert seen[0][0].endswith("(yes or no)")
    assert [r["method"] for r in out] == ["llm", "rule"]


def test_kinds_restrict_grading() -> None:
    rows = [
        {"question": "Is there a fracture?", "gt": "yes", "pred": "Yes."},
        {"question": "Is the lesion in the left or right kidney?", "gt": "left", "pred": "left"},
    ]
    out = list(Grader(kinds=["two_option"]).grade_rows(rows))
    assert (
        out[0]["method"] == "unresolved" and "yes_no questions are not graded" in out[0]["reason"]
    )
    assert out[0]["question_kind"] == "yes_no" and out[0]["score"] is None
    assert out[1]["method"] == "rule" and out[1]["score"] == 1.0
    with pytest.raises(ValueError, match="unknown question kind"):
        parse_kinds(["multiple"])
    assert parse_kinds(["yes_no", QuestionKind.TWO_OPTION, "multiple_choice"]) == set(QuestionKind)


def test_cli_kinds_and_summary_by_kind(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"question": "Is there a fracture?", "gt": "yes", "pred": "Yes."},
                {"question": "Is this an MRI or a CT?", "gt": "CT", "pred": "CT"},
            ]
        )
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["score", str(src), "-o", str(out), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "by kind" in res.output and "yes_no 1" in res.output
    kinds = [json.loads(line)["question_kind"] for line in out.read_text().splitlines()]
    assert kinds == ["yes_no", "two_option"]
    res = runner.invoke(app, ["score", str(src), "-o", str(out), "--kinds", "yes_no", "-q"])
    assert res.exit_code == 0
    methods = [json.loads(line)["method"] for line in out.read_text().splitlines()]
    assert methods == ["rule", "unresolved"]
    res = runner.invoke(app, ["score", str(src), "-o", str(out), "--kinds", "nope"])
    assert res.exit_code == 2


def test_summary_by_kind() -> None:
    s = Summary()
    s.add({"method": "rule", "score": 1.0, "gt_label": "yes", "pred_label": "yes",
           "question_kind": "yes_no"})  # fmt: skip
    s.add({"method": "unresolved", "score": None, "question_kind": None})
    kinds = s.finish().kinds
    assert kinds["yes_no"] == {"rows": 1, "decided": 1, "mean": 1.0}
    assert kinds["none"]["rows"] == 1
    assert "yes" in s.render()


def test_explain_shows_kind_and_matched_words() -> None:
    res = runner.invoke(
        app, ["explain", "Is there a pneumothorax?", "no", "There is no evidence of pneumothorax."]
    )
    assert res.exit_code == 0
    assert (
        "kind: yes_no" in res.output and "restates the question's words: pneumothorax" in res.output
    )


def test_proposition() -> None:
    lex = default_lexicon()
    p = read_question("Is there no fracture?", lex)
    assert p.polar and p.negated and p.words == ("fracture",)
    assert read_question("Isn't there a fracture?", lex).implicit is False
    heart = read_question("Is the heart normal?", lex)
    assert heart.predicate == "normal" and heart.normal_predicate
    assert read_question("What is shown?", lex).polar is False


@pytest.mark.parametrize(
    ("question", "gt", "pred", "labels", "score"),
    [
        pytest.param(
            "Is there drusen?\nA. Yes\nB. No", "A", "B", ("yes", "no"), 0.0, id="yes-first"
        ),
        pytest.param(
            "Is it malignant?\nOptions: A: No  B: Yes",
            "B",
            "(B) yes",
            ("yes", "yes"),
            1.0,
            id="no-first",
        ),
        pytest.param(
            "Is there a calculus? (A) yes (B) no", "B", "B. No", ("no", "no"), 1.0, id="inline"
        ),
    ],
)
def test_lettered_yes_no_options_grade_as_yes_no(
    question: str, gt: str, pred: str, labels: tuple[str, str], score: float
) -> None:
    # "A. Yes / B. No" is a yes/no question with letters: its labels are yes/no, from
    # grade() and from grade_rows() alike, whichever letter stands for yes.
    g = Grader().grade(question, gt, pred)
    assert g.question_kind is QuestionKind.YES_NO
    assert (g.gt_label, g.pred_label) == labels and g.score == score
    assert g.options == ("yes", "no")
    row = next(Grader().grade_rows([{"question": question, "gt": gt, "pred": pred}]))
    assert row["question_kind"] == "yes_no" and row["options"] == ["yes", "no"]
    assert (row["gt_label"], row["pred_label"], row["score"]) == (*labels, score)


def test_lettered_yes_no_options_leave_both_unresolved() -> None:
    # "Both" of yes and no answers no yes/no question: unresolved, for the judge.
    g = Grader().grade("Is there AMD?\nA. yes B. no", "A", "both")
    assert g.question_kind is QuestionKind.YES_NO
    assert g.method.value == "unresolved" and g.pred_label is None and g.gt_label == "yes"


def test_yes_like_options_that_are_not_bare_yes_no_stay_two_option() -> None:
    g = Grader().grade("Is the drusen present or absent?", "present", "present")
    assert g.question_kind is QuestionKind.TWO_OPTION


@pytest.mark.parametrize(
    "question",
    [
        "Is there any abnormality in this image? Answer yes or no.",
        "Is there any abnormality in this image? Please answer with 'yes' or 'no'.",
        "Is there any abnormality in this image? (yes/no)",
    ],
)
def test_an_answer_yes_or_no_instruction_leaves_a_yes_no_question(question: str) -> None:
    # The instruction offers no alternatives: the question is polar, and a free-text answer
    # is read by the yes/no reader ("Abnormal" restates "abnormality").
    g = Grader().grade(question, "Yes", "Answer: Abnormal")
    assert g.question_kind is QuestionKind.YES_NO
    assert (g.gt_label, g.pred_label, g.score) == ("yes", "yes", 1.0)
