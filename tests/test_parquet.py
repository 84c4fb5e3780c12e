"""Parquet in and out: streamed reading, folders of files, a stable typed output schema."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vqagrade.errors import InputError, OutputError
from vqagrade.grader import Grader
from vqagrade.io.parquet import ParquetRowWriter, column_types
from vqagrade.io.rows import count_rows, detect_format, open_writer, read_rows

ROWS = [
    {
        "id": "1",
        "question": "Is the lesion in the left or right kidney?",
        "gt": "left",
        "pred": "left",
    },
    {"id": "2", "question": "Is this a CT or an MRI?", "gt": "CT", "pred": "It could be either."},
    {"id": "3", "question": "Is this a CT or an MRI?", "gt": "CT", "pred": None},
]


def _write(path: Path, rows: list[dict[str, Any]], **kwargs: Any) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path, **kwargs)
    return path


def _rows(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"id": f"r{i}", "question": "Is this CT or MRI?", "gt": "CT", "pred": "CT"}
            for i in range(start, start + n)]  # fmt: skip


# ---- format detection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt", "expected"),
    [
        pytest.param("a.parquet", None, "parquet", id="ext"),
        pytest.param("A.PARQUET", None, "parquet", id="upper"),
        pytest.param("a.bin", "parquet", "parquet", id="explicit"),
        pytest.param("a.parquet", "jsonl", "jsonl", id="fmt-wins"),
    ],
)
def test_detect_parquet(name: str, fmt: str | None, expected: str) -> None:
    assert detect_format(name, fmt) == expected


def test_a_directory_is_parquet(tmp_path: Path) -> None:
    assert detect_format(tmp_path) == "parquet"


def test_gzipped_parquet_is_refused() -> None:
    with pytest.raises(InputError, match="drop the .gz"):
        detect_format("a.parquet.gz")


# ---- reading ------------------------------------------------------------------------------------


def test_read_rows_in_order_with_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path / "in.parquet", ROWS)
    rows = list(read_rows(path))
    assert [r.data for r in rows] == ROWS
    assert [r.line for r in rows] == [1, 2, 3]
    assert all(r.error is None for r in rows)


def test_values_keep_their_types(tmp_path: Path) -> None:
    when = dt.datetime(2024, 5, 1, 12, 30)
    row = {"n": 3, "x": 0.25, "ok": True, "tags": ["a", "b"], "meta": {"k": "v"}, "at": when}
    path = _write(tmp_path / "t.parquet", [row])
    [got] = list(read_rows(path))
    assert got.data == row


def _peak_arrow_bytes(path: Path, rows: int) -> int:
    """Read every row of ``path``; the most Arrow memory held at any time."""
    peak = n = 0
    for n, row in enumerate(read_rows(path), start=1):
        assert row.line == n
        peak = max(peak, pa.total_allocated_bytes())
    assert n == rows
    return peak


@pytest.mark.parametrize("row_group", [10_000, None], ids=["row-groups", "one-row-group"])
def test_memory_is_flat_in_the_file_size(tmp_path: Path, row_group: int | None) -> None:
    peaks = []
    for n in (50_000, 300_000):
        rows = [dict(r, pred=f"CT, case {i}. " + "x" * 60) for i, r in enumerate(_rows(n))]
        path = _write(tmp_path / f"{n}.parquet", rows, row_group_size=row_group)
        del rows
        peaks.append((_peak_arrow_bytes(path, n), pq.read_table(path).nbytes))
    (small_peak, _), (big_peak, big_table) = peaks
    # One record batch at a time: six times the rows, about the same memory.
    assert big_peak < 1.5 * small_peak + (1 << 20)
    assert big_peak < big_table / 3


def test_a_folder_of_files_is_read_in_name_order(tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    _write(folder / "part-10.parquet", _rows(2, start=4))
    _write(folder / "part-02.parquet", _rows(2, start=2))
    _write(folder / "part-01.parquet", _rows(2, start=0))
    (folder / "_SUCCESS").write_text("")
    (folder / "notes.txt").write_text("not data")
    rows = list(read_rows(folder))
    assert [r.data["id"] for r in rows if r.data] == [f"r{i}" for i in range(6)]
    assert [r.line for r in rows] == [1, 2, 3, 4, 5, 6]
    assert count_rows(folder) == 6


def test_count_rows_reads_only_footers(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.parquet", _rows(1234))
    assert count_rows(path) == 1234
    assert count_rows(tmp_path / "a.jsonl") is None
    assert count_rows("-") is None


def test_empty_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no \*\.parquet files"):
        read_rows(tmp_path)


def test_missing_file_raises_on_call(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No such file"):
        read_rows(tmp_path / "missing.parquet")


def test_not_parquet_raises_on_call(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"this is not parquet at all")
    with pytest.raises(InputError, match="as Parquet"):
        read_rows(bad)


def test_a_bad_file_later_in_a_folder_raises_during_iteration(tmp_path: Path) -> None:
    _write(tmp_path / "a.parquet", _rows(3))
    (tmp_path / "b.parquet").write_bytes(b"PAR1 broken")
    rows = read_rows(tmp_path)
    with pytest.raises(InputError, match="b.parquet"):
        list(rows)


def test_stdin_cannot_be_parquet() -> None:
    with pytest.raises(InputError, match="stdin"):
        read_rows("-", "parquet")


# ---- writing ------------------------------------------------------------------------------------


def _graded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list(Grader().grade_rows(rows))


def test_round_trip_of_graded_rows(tmp_path: Path) -> None:
    graded = _graded(ROWS)
    out = tmp_path / "out.parquet"
    with open_writer(out) as writer:
        for row in graded:
            writer.write(row)
    table = pq.read_table(out)
    assert table.to_pylist() == graded
    types = column_types()
    for name in ("score", "method", "gt_label", "pred_label", "options", "reason"):
        assert table.schema.field(name).type == types[name], name


def test_contract_columns_are_typed_even_when_all_null(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    with open_writer(out) as writer:
        writer.write({"id": "x", "score": None, "options": None, "judge_cached": None})
    schema = pq.read_schema(out)
    assert schema.field("score").type == pa.float64()
    assert schema.field("options").type == pa.list_(pa.string())
    assert schema.field("judge_cached").type == pa.bool_()


def test_schema_is_fixed_by_the_first_batch(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    writer = ParquetRowWriter(
        out, fieldnames_hint=["score", "judge_raw"], batch_rows=2, row_group_rows=2
    )
    with writer:
        writer.write({"id": "a", "n": 1, "score": 1.0})
        writer.write({"id": "b", "n": 2, "score": None})
        writer.write({"id": "c", "score": 0.5, "judge_raw": "{ score: 0.5 }", "extra": "dropped"})
        writer.write({"id": "d", "n": 4.0, "score": 0})  # an int score, a float n: cast
    pf = pq.ParquetFile(out)
    assert pf.metadata.num_row_groups == 2
    assert pf.schema_arrow.names == ["id", "n", "score", "judge_raw"]
    assert pf.schema_arrow.field("n").type == pa.int64()
    assert pf.read().to_pylist() == [
        {"id": "a", "n": 1, "score": 1.0, "judge_raw": None},
        {"id": "b", "n": 2, "score": None, "judge_raw": None},
        {"id": "c", "n": None, "score": 0.5, "judge_raw": "{ score: 0.5 }"},
        {"id": "d", "n": 4, "score": 0.0, "judge_raw": None},
    ]


def test_mixed_or_null_pass_through_columns_become_text(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    writer = ParquetRowWriter(out, batch_rows=2)
    with writer:
        writer.write({"id": 1, "note": None})
        writer.write({"id": "two", "note": None})
        writer.write({"id": [3], "note": {"k": 1}})
    table = pq.read_table(out)
    assert table.schema.field("id").type == pa.string()
    assert table.schema.field("note").type == pa.string()
    assert table.to_pylist() == [
        {"id": "1", "note": None},
        {"id": "two", "note": None},
        {"id": "[3]", "note": '{"k": 1}'},
    ]


def test_a_later_value_that_cannot_fit_makes_an_error_row(tmp_path: Path) -> None:
    """The run goes on: the row is kept as an error row, its value as JSON text in raw."""
    out = tmp_path / "out.parquet"
    with ParquetRowWriter(out, ["method", "reason", "raw"], batch_rows=1) as writer:
        writer.write({"n": 1, "method": "rule"})
        writer.write({"n": "many", "method": "rule"})
        writer.write({"n": 3, "method": "rule"})
    first, bad, last = pq.read_table(out).to_pylist()
    assert first == {"n": 1, "method": "rule", "reason": None, "raw": None}
    assert last["n"] == 3 and last["method"] == "rule"
    assert bad["n"] is None and bad["method"] == "error"
    assert "'n' (int64)" in bad["reason"] and bad["raw"] == '{"n":"many"}'


def test_no_rows_writes_the_hinted_schema(tmp_path: Path) -> None:
    out = tmp_path / "empty.parquet"
    with open_writer(out, fieldnames_hint=["id", "score", "method"]):
        pass
    table = pq.read_table(out)
    assert table.num_rows == 0
    assert table.schema.names == ["id", "score", "method"]
    assert table.schema.field("score").type == pa.float64()


def test_unwritable_path_fails_at_open(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="cannot write"):
        open_writer(tmp_path / "no" / "such" / "dir.parquet")


def test_close_is_idempotent(tmp_path: Path) -> None:
    writer = open_writer(tmp_path / "a.parquet")
    writer.write({"a": 1})
    writer.close()
    writer.close()
    assert pq.read_table(tmp_path / "a.parquet").to_pylist() == [{"a": 1}]


def test_parquet_to_stdout(tmp_path: Path) -> None:
    code = (
        "from vqagrade.io.rows import open_writer\n"
        "with open_writer('-', 'parquet') as w:\n"
        "    w.write({'a': 1, 'score': 0.5})\n"
        "import sys; sys.stdout.buffer.write(b'')\n"  # stdout is still open
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    out = tmp_path / "stdout.parquet"
    out.write_bytes(done.stdout)
    assert pq.read_table(out).to_pylist() == [{"a": 1, "score": 0.5}]


def test_jsonl_error_rows_survive_in_parquet(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ROWS[0]) + "\n{not json\n" + json.dumps(ROWS[1]) + "\n")
    out = tmp_path / "out.parquet"
    hint = ["score", "method", "gt_label", "pred_label", "options", "reason", "line", "raw"]
    with open_writer(out, fieldnames_hint=hint) as writer:
        for row in Grader().grade_rows(read_rows(src)):
            writer.write(row)
    got = pq.read_table(out).to_pylist()
    assert [r["method"] for r in got] == ["rule", "error", "unresolved"]
    assert got[1]["raw"] == "{not json" and got[1]["line"] == 2
