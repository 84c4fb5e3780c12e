"""Wrong field names fail loudly: exit 2 / SchemaError (a KeyError) naming what was seen."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from typer.testing import CliRunner

import vqagrade
from vqagrade.cli import app
from vqagrade.schema import SchemaError, parse_map, require_fields

KIDNEY = "Is the lesion in the left or right kidney?"
ROWS = [
    {"id": "r1", "question": KIDNEY, "answer": "left", "model_output": "The left kidney."},
    {"id": "r2", "question": KIDNEY, "answer": "right", "model_output": "Left."},
]
runner = CliRunner()


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_missing_pred_field_exits_2_naming_the_fields_seen(tmp_path: Path) -> None:
    rows = [{"id": "a", "question": KIDNEY, "gt": "left", "prediction": "left"}]
    src = _jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["score", str(src), "-o", str(out)])
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "no field 'pred' (--pred-field)" in line
    assert "fields seen: id, question, gt, prediction" in line
    assert "did you mean 'prediction'?" in line
    assert not out.exists() or out.read_text() == ""


def test_a_csv_header_in_another_case_is_named(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(f'Question,gt,pred\n"{KIDNEY}",left,left\n')
    res = runner.invoke(app, ["score", str(src), "-o", str(tmp_path / "o.jsonl")])
    assert res.exit_code == 2
    assert "did you mean 'Question'?" in res.stderr


def test_map_renames_fields_by_role(tmp_path: Path) -> None:
    src = _jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "out.jsonl"
    res = runner.invoke(
        app, ["score", str(src), "-o", str(out), "--map", "answer=gt,model_output=pred", "-q"]
    )
    assert res.exit_code == 0, res.stderr
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["method"], r["score"]) for r in got] == [("rule", 1.0), ("rule", 0.0)]


def test_map_with_an_unknown_role_exits_2(tmp_path: Path) -> None:
    src = _jsonl(tmp_path / "in.jsonl", ROWS)
    res = runner.invoke(app, ["score", str(src), "--map", "answer=truth"])
    assert res.exit_code == 2 and "unknown role 'truth'" in res.stderr


def test_a_field_missing_from_some_rows_only_still_gives_error_rows(tmp_path: Path) -> None:
    rows = [{"question": KIDNEY, "gt": "left", "pred": "left"}, {"question": KIDNEY, "gt": "left"}]
    src = _jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["score", str(src), "-o", str(out), "-q"])
    assert res.exit_code == 0
    got = [json.loads(x)["method"] for x in out.read_text().splitlines()]
    assert got == ["rule", "error"]


def test_grade_frame_raises_a_key_error_and_takes_field_keywords() -> None:
    df = pd.DataFrame(ROWS)
    with pytest.raises(KeyError) as info:
        vqagrade.grade_frame(df)
    assert isinstance(info.value, SchemaError) and isinstance(info.value, vqagrade.InputError)
    message = str(info.value)
    assert "the DataFrame's columns" in message and "did you mean 'answer'?" in message
    assert "did you mean 'model_output'?" in message
    graded = vqagrade.grade_frame(df, gt="answer", pred="model_output")
    assert graded["score"].tolist() == [1.0, 0.0]


def test_grade_table_and_grade_rows_take_field_keywords() -> None:
    table = pa.Table.from_pylist(ROWS)
    with pytest.raises(KeyError, match="the table's columns"):
        vqagrade.grade_table(table)
    graded = vqagrade.grade_table(table, gt="answer", pred="model_output")
    assert graded.column("score").to_pylist() == [1.0, 0.0]
    with pytest.raises(KeyError, match="first 2 rows"):
        list(vqagrade.grade_rows(ROWS))
    rows = list(vqagrade.grade_rows(ROWS, gt="answer", pred="model_output"))
    assert [r["score"] for r in rows] == [1.0, 0.0]
    with pytest.raises(ValueError, match="not both"):
        vqagrade.grade_table(table, fields=vqagrade.FieldMap(), gt="answer")


def test_require_fields_ignores_unreadable_records_and_empty_inputs() -> None:
    assert list(require_fields([], vqagrade.FieldMap())) == []
    unreadable = vqagrade.contract.InputRow(1, None, "bad JSON", "{")
    assert list(require_fields([unreadable], vqagrade.FieldMap())) == [unreadable]


def test_parse_map() -> None:
    f = parse_map(["answer=gt", "model_output=pred,qid=id"], vqagrade.FieldMap())
    assert (f.gt, f.pred, f.id, f.question) == ("answer", "model_output", "qid", "question")
