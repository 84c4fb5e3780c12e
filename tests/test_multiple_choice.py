"""Multiple choice end to end: where the options come from (API, rows, CSV, the command
line), the kinds filter, and the output contract. The reading itself is covered by the
golden cases (tests/cases/multiple_choice_*.jsonl)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from vqagrade import Grader, grade
from vqagrade.cli import app
from vqagrade.kinds import Letter, QuestionKind

Q = "Which modality is shown?"
OPTIONS = ["CT", "MRI", "Ultrasound", "X-ray"]
BY_LETTER = dict(zip("ABCD", OPTIONS, strict=True))


def test_grade_with_choices() -> None:
    g = grade(Q, "B", "It is not a CT; this is an MRI.", choices=OPTIONS)
    assert g.question_kind is QuestionKind.MULTIPLE_CHOICE
    assert (g.gt_label, g.pred_label, g.score) == (Letter.B, Letter.B, 1.0)
    assert g.options == tuple(OPTIONS)
    assert g.pred is not None and g.pred.rule == "text"


def test_two_choices_are_a_two_option_question() -> None:
    g = grade(Q, "CT", "MRI", choices=["CT", "MRI"])
    assert g.question_kind is QuestionKind.TWO_OPTION and g.score == 0.0


def test_rows_read_every_source_of_options() -> None:
    rows = [
        {"question": Q, "gt": "B", "pred": "MRI", "choices": OPTIONS},
        {"question": Q, "gt": "B", "pred": "MRI", "choices": BY_LETTER},
        {"question": Q, "gt": "B", "pred": "MRI", "choices": json.dumps(OPTIONS)},
        {"question": Q, "gt": "B", "pred": "MRI", **BY_LETTER, "E": None},
        {"question": Q + "\nA. CT\nB. MRI\nC. Ultrasound\nD. X-ray", "gt": "B", "pred": "(B)"},
    ]
    out = list(Grader().grade_rows(rows))
    for row in out:
        assert row["question_kind"] == "multiple_choice", row["reason"]
        assert row["options"] == OPTIONS
        assert (row["gt_label"], row["pred_label"], row["score"]) == ("B", "B", 1.0)
    assert out[0]["options"] is not out[1]["options"]  # rows never share a mutable list


def test_a_lettered_question_with_a_yes_gt_stays_multiple_choice() -> None:
    g = grade("Is there a fracture? A. yes B. no C. cannot tell", "yes", "A")
    assert g.question_kind is QuestionKind.MULTIPLE_CHOICE and g.score == 1.0


def test_kinds_restrict_multiple_choice() -> None:
    only_two = Grader(kinds=["two_option"])
    row = {"question": Q, "gt": "B", "pred": "MRI", "choices": OPTIONS}
    out = next(only_two.grade_rows([row]))
    assert out["method"] == "unresolved" and out["question_kind"] == "multiple_choice"
    assert "not graded in this run" in out["reason"]
    only_mc = Grader(kinds=["multiple_choice"])
    assert next(only_mc.grade_rows([row]))["score"] == 1.0
    two = {"question": "Is the lesion in the left or right kidney?", "gt": "left", "pred": "left"}
    assert next(only_mc.grade_rows([two]))["method"] == "unresolved"


def test_cli_reads_a_renamed_choices_column_from_csv(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    with src.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "gt", "pred", "opts"])
        w.writerow([Q, "MRI", "Final answer: C", json.dumps(OPTIONS)])
        w.writerow([Q, "MRI", "B. MRI", json.dumps(OPTIONS)])
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--choices-field", "opts"]
    res = CliRunner().invoke(app, [*args, "--kinds", "multiple_choice,two_option", "--quiet"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["pred_label"], r["score"]) for r in rows] == [("C", 0.0), ("B", 1.0)]
    assert all(r["options"] == OPTIONS for r in rows)


def test_cli_refuses_an_unknown_kind(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"question": Q, "gt": "B", "pred": "B"}) + "\n")
    res = CliRunner().invoke(app, ["score", str(src), "--kinds", "multiple"])
    assert res.exit_code == 2


MC_ROWS = [
    {"question": Q, "gt": "B", "pred": "MRI", "opts": OPTIONS},
    {"question": Q, "gt": "B", "pred": "It is an ultrasound.", **BY_LETTER},
    {"question": Q, "gt": "A", "pred": "Maybe CT, maybe MRI."},
]


def test_worker_processes_read_the_options_as_one_process_does() -> None:
    from vqagrade.contract import FieldMap
    from vqagrade.engines.processes import grade_parallel

    fields = FieldMap(choices="opts")
    rows = MC_ROWS * 3
    alone = list(Grader(fields=fields).grade_rows(rows))
    pooled = list(grade_parallel(rows, workers=2, fields=fields, chunk_rows=2))
    assert pooled == alone
    assert [r["question_kind"] for r in alone[:3]] == ["multiple_choice", "multiple_choice", None]


def test_arrow_and_pandas_read_the_options_columns() -> None:
    import pyarrow as pa

    from vqagrade.engines.arrow import grade_frame, grade_table

    rows = [{**r, "opts": r.get("opts"), **{k: r.get(k) for k in "ABCD"}} for r in MC_ROWS[:2]]
    table = grade_table(pa.Table.from_pylist(rows), choices="opts")
    assert table.column("question_kind").to_pylist() == ["multiple_choice"] * 2
    assert table.column("gt_label").to_pylist() == ["B", "B"]
    assert table.column("pred_label").to_pylist() == ["B", "C"]
    assert table.column("options").to_pylist() == [OPTIONS, OPTIONS]
    frame = grade_frame(pa.Table.from_pylist(rows).to_pandas(), choices="opts")
    assert list(frame["pred_label"]) == ["B", "C"]


def test_explain_shows_every_option_with_its_letter() -> None:
    question = "Which modality is shown? A. CT B. MRI C. Ultrasound D. X-ray E. PET"
    res = CliRunner().invoke(app, ["explain", question, "B", "It is not a CT; it is an MRI."])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert "kind: multiple_choice" in lines
    assert "options: A = 'CT'   B = 'MRI'   C = 'Ultrasound'   D = 'X-ray'   E = 'PET'" in lines
    assert any(line.startswith("pred: ") and "-> B" in line for line in lines)
    explicit = ["explain", Q, "C", "an ultrasound", "--choice", "CT", "--choice", "MRI"]
    res = CliRunner().invoke(app, [*explicit, "--choice", "Ultrasound", "--json"])
    g = json.loads(res.stdout)
    assert (g["options"], g["gt_label"], g["pred_label"]) == (["CT", "MRI", "Ultrasound"], "C", "C")


def test_summary_and_report_show_the_letters_past_b(tmp_path: Path) -> None:
    import vqagrade
    from vqagrade.reports.html import report_from_file

    rows = [
        {"id": "1", "question": Q, "gt": "C", "pred": "Ultrasound", "choices": OPTIONS},
        {"id": "2", "question": Q, "gt": "D", "pred": "an MRI", "choices": OPTIONS},
    ]
    graded = list(Grader().grade_rows(rows))
    text = vqagrade.summarize(graded).render()
    header = next(line for line in text.splitlines() if line.startswith("gt\\pred"))
    assert header.split()[1:] == ["A", "B", "both", "none", "C", "D", "-"]
    assert next(line for line in text.splitlines() if line.startswith("D ")).split()[2] == "1"
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in graded))
    html, _, _ = report_from_file(str(path), None)
    assert "<h3>multiple-choice questions</h3>" in html
