"""The Arrow batch API and its pandas twin, and the Spark/Dask recipes built on them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from scale_support import LEXICON_TOML, LIEN_ROW, case_rows, workload_rows
from vqagrade.engines.arrow import (
    grade_batch,
    grade_batches,
    grade_frame,
    grade_table,
    output_columns,
    output_schema,
)
from vqagrade.grader import Grader
from vqagrade.records import FieldMap

CONTRACT = {
    "score": pa.float64(),
    "method": pa.string(),
    "gt_label": pa.string(),
    "pred_label": pa.string(),
    "options": pa.list_(pa.string()),
    "reason": pa.string(),
    "question_kind": pa.string(),
}
JUDGE = {
    "judge_model": pa.string(),
    "judge_prompt": pa.string(),
    "judge_raw": pa.string(),
    "judge_cached": pa.bool_(),
}


class FakeJudge:
    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        return [
            {"score": 0.0, "method": "llm", "reason": "fake", "judge_model": "m",
             "judge_prompt": "gpt", "judge_raw": "{ score: 0 }", "judge_cached": False}
            for _ in items
        ]  # fmt: skip


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    data = case_rows() + workload_rows(2_000)
    # Awkward values: missing fields, nulls, non-strings, empty text.
    data += [
        {"id": "x1", "question": "Is this CT or MRI?", "gt": "CT"},
        {"id": "x2", "question": "Is this CT or MRI?", "gt": "CT", "pred": None},
        {"id": "x3", "question": "Is this CT or MRI?", "gt": "CT", "pred": ""},
    ]
    return data


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    """A table with every key of every row (from_pylist alone keeps the first row's keys)."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    return pa.Table.from_pylist([{k: r.get(k) for k in keys} for r in rows])


def test_same_rows_as_the_row_api(rows: list[dict[str, Any]]) -> None:
    table = _table(rows)
    expected = list(Grader().grade_rows(table.to_pylist()))
    assert grade_table(table).to_pylist() == expected


def test_output_schema_is_the_input_plus_the_contract(rows: list[dict[str, Any]]) -> None:
    table = _table(rows[:50])
    out = grade_table(table)
    assert out.schema == output_schema(table.schema)
    assert out.schema.names == [*table.schema.names, *CONTRACT]
    for name, typ in CONTRACT.items():
        assert out.schema.field(name).type == typ
    assert output_columns() == list(CONTRACT)
    assert output_columns(judge=True) == [*CONTRACT, *JUDGE]


def test_pass_through_columns_keep_type_and_values() -> None:
    when = dt.datetime(2024, 1, 2, 3, 4, 5)
    table = pa.table(
        {
            "question": ["Is this CT or MRI?"] * 2,
            "gt": ["CT", "MRI"],
            "pred": ["CT", "CT"],
            "image": pa.array([b"\x89PNG", None], pa.binary()),
            "at": pa.array([when, when], pa.timestamp("us")),
            "meta": pa.array([{"k": 1}, {"k": 2}]),
            "n": pa.array([1, 2], pa.int8()),
        }
    )
    out = grade_table(table)
    for name in ("image", "at", "meta", "n"):
        assert out.column(name).equals(table.column(name))
        assert out.schema.field(name).type == table.schema.field(name).type
    assert out.column("score").to_pylist() == [1.0, 0.0]


def test_an_existing_contract_column_is_replaced_in_place() -> None:
    table = pa.table(
        {"score": ["old"], "question": ["Is this CT or MRI?"], "gt": ["CT"], "pred": ["MRI"]}
    )
    out = grade_table(table)
    assert out.schema.names[:4] == ["score", "question", "gt", "pred"]
    assert out.schema.field("score").type == pa.float64()
    assert out.to_pylist() == list(Grader().grade_rows(table.to_pylist()))


def test_a_missing_column_raises_a_key_error_naming_the_columns() -> None:
    with pytest.raises(KeyError, match="no field 'pred' .* fields seen: question, gt"):
        grade_table(pa.table({"question": ["Is this CT or MRI?"], "gt": ["CT"]}))


def test_missing_values_give_error_rows() -> None:
    out = grade_table(pa.table({"question": ["Is this CT or MRI?"], "gt": ["CT"], "pred": [None]}))
    [row] = out.to_pylist()
    assert (row["method"], row["reason"]) == ("error", "missing field 'pred'")


def test_large_string_and_chunked_columns() -> None:
    whole = _table(case_rows(300))
    table = pa.concat_tables([whole.slice(0, 100), whole.slice(100)])
    assert table.column("question").num_chunks == 2
    big = table.cast(pa.schema([pa.field(f.name, pa.large_string()) for f in table.schema]))
    assert grade_table(big).to_pylist() == list(Grader().grade_rows(table.to_pylist()))


def test_empty_table() -> None:
    table = _table(case_rows(3)).slice(0, 0)
    out = grade_table(table)
    assert out.num_rows == 0 and out.schema == output_schema(table.schema)


def test_field_names_are_remappable() -> None:
    fields = FieldMap(question="q", gt="answer", pred="output")
    data = [{"q": r["question"], "answer": r["gt"], "output": r["pred"]} for r in case_rows(200)]
    out = grade_table(_table(data), fields=fields)
    assert out.to_pylist() == list(Grader(fields=fields).grade_rows(data))


def test_lexicons(tmp_path: Path) -> None:
    lexicon = tmp_path / "mine.toml"
    lexicon.write_text(LEXICON_TOML)
    [plain] = grade_table(_table([LIEN_ROW])).to_pylist()
    [extended] = grade_table(_table([LIEN_ROW]), lexicons=[lexicon]).to_pylist()
    assert (plain["method"], extended["method"]) == ("unresolved", "rule")


def test_a_grader_with_a_judge_adds_the_judge_columns(rows: list[dict[str, Any]]) -> None:
    grader = Grader(judge=FakeJudge())
    table = _table(rows[:300])
    out = grade_table(table, grader=grader)
    assert out.schema.names == [*table.schema.names, *CONTRACT, *JUDGE]
    for name, typ in JUDGE.items():
        assert out.schema.field(name).type == typ
    expected = list(Grader(judge=FakeJudge()).grade_rows(table.to_pylist()))
    got = out.to_pylist()
    # Rows the judge did not see have null judge columns (the row API leaves the keys out).
    assert got == [{k: None for k in JUDGE} | e for e in expected]
    assert {r["method"] for r in got} >= {"rule", "llm"}


def test_grader_and_fields_are_exclusive() -> None:
    with pytest.raises(ValueError, match="either a grader"):
        grade_table(_table(case_rows(1)), grader=Grader(), fields=FieldMap())


def test_grade_batch_and_grade_batches() -> None:
    table = _table(case_rows(500))
    batches = table.to_batches(max_chunksize=64)
    graded = list(grade_batches(iter(batches)))
    assert [b.num_rows for b in graded] == [b.num_rows for b in batches]
    assert pa.Table.from_batches(graded).to_pylist() == grade_table(table).to_pylist()
    assert grade_batch(batches[0]).schema == output_schema(table.schema)


# ---- pandas ---------------------------------------------------------------------------------------


def test_grade_frame_matches_and_keeps_the_index(rows: list[dict[str, Any]]) -> None:
    frame = pd.DataFrame(rows[:400], index=pd.RangeIndex(1000, 1400))
    out = grade_frame(frame)
    assert out.index.equals(frame.index)
    assert list(out.columns) == [*frame.columns, *CONTRACT]
    assert out["score"].dtype == "float64" and out["options"].dtype == object
    assert all(out[c].dtype == "string" for c in ("method", "gt_label", "pred_label", "reason"))
    expected = grade_table(_table(rows[:400])).to_pylist()
    for got, want in zip(out.to_dict("records"), expected, strict=True):
        for k in CONTRACT:
            if want[k] is None:
                assert got[k] is None or pd.isna(got[k]), k
            else:
                assert got[k] == want[k], k
    assert "score" not in frame.columns  # the input is not modified


def test_grade_frame_with_a_judge_has_typed_judge_columns() -> None:
    out = grade_frame(pd.DataFrame(case_rows(60)), grader=Grader(judge=FakeJudge()))
    assert out["judge_cached"].dtype == "boolean" and out["judge_raw"].dtype == "string"
    judged = out[out["method"] == "llm"]
    assert len(judged) and not judged["judge_cached"].any()
    assert out.loc[out["method"] == "rule", "judge_model"].isna().all()


def test_grade_frame_missing_values_are_missing_fields() -> None:
    frame = pd.DataFrame(
        {
            "question": ["Is this CT or MRI?"] * 3,
            "gt": ["CT", None, "CT"],
            "pred": ["CT", "CT", pd.NA],
        }
    )
    out = grade_frame(frame)
    assert out["method"].tolist() == ["rule", "error", "error"]
    assert out["reason"].tolist()[1:] == ["missing field 'gt'", "missing field 'pred'"]


# ---- the README recipes ---------------------------------------------------------------------------


# dask's Parquet IO still calls DataFrame.set_index/reset_index(inplace=True): pandas 3 warns.
@pytest.mark.filterwarnings(
    r"ignore:(?s).*The inplace keyword in DataFrame\.\w+ is deprecated:DeprecationWarning"
)
def test_dask_map_partitions_recipe(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame(rows[:600])
    dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "answers")
    # The README recipe:
    ddf = dd.read_parquet(tmp_path / "answers")
    graded = ddf.map_partitions(grade_frame, meta=grade_frame(ddf.head(0)))
    graded.to_parquet(tmp_path / "graded", schema=None)
    # ...gives what grading the whole frame at once gives.
    result = dd.read_parquet(tmp_path / "graded").compute(scheduler="processes", num_workers=2)
    expected = grade_frame(frame)
    assert result.index.tolist() == expected.index.tolist()
    for name in ("id", "method", "gt_label", "pred_label", "reason"):
        assert result[name].tolist() == expected[name].tolist(), name
    pd.testing.assert_series_equal(result["score"], expected["score"], check_index=False)
    options = [None if o is None else list(o) for o in result["options"]]
    assert options == expected["options"].tolist()
    # Aggregates straight from the graded Dask frame.
    means = graded.groupby("method")["score"].mean().compute()
    assert means["rule"] == expected.loc[expected["method"] == "rule", "score"].mean()


def test_spark_map_in_arrow_recipe_shape(rows: list[dict[str, Any]]) -> None:
    # Spark hands mapInArrow an iterator of RecordBatches per partition and wants batches of
    # the declared schema back; simulate three partitions.
    table = _table(rows[:900])
    partitions = [table.slice(i, 300).to_batches(max_chunksize=128) for i in (0, 300, 600)]
    declared = output_schema(table.schema)
    out = []
    for batches in partitions:
        for batch in grade_batches(iter(batches)):
            assert batch.schema == declared
            out.append(batch)
    assert pa.Table.from_batches(out).to_pylist() == grade_table(table).to_pylist()
