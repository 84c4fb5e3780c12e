"""Streaming readers and writers, on real files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqagrade.errors import InputError, OutputError
from vqagrade.io.rows import InputRow, detect_format, open_writer, read_rows

ROWS = [
    {"id": "1", "question": "Is the lesion in the left or right kidney?", "gt": "left"},
    {"id": "2", "question": "Is this a CT or an MRI?", "gt": "CT", "pred": "MRI, not CT"},
    {"id": "3", "question": "Which is bigger, liver or spleen?", "gt": "liver", "pred": ""},
]


def _read(path: Path, fmt: str | None = None) -> list[InputRow]:
    return list(read_rows(str(path), fmt))


def _write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# --- format detection -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "fmt", "expected"),
    [
        pytest.param("a.jsonl", None, "jsonl", id="jsonl"),
        pytest.param("a.ndjson", None, "jsonl", id="ndjson"),
        pytest.param("a.json", None, "jsonl", id="json-as-lines"),
        pytest.param("a.csv", None, "csv", id="csv"),
        pytest.param("dir.v2/A.JSONL.GZ", None, "jsonl", id="upper-gz"),
        pytest.param("a.csv.gz", None, "csv", id="csv-gz"),
        pytest.param("-", None, "jsonl", id="stdin-default"),
        pytest.param("-", "csv", "csv", id="stdin-csv"),
        pytest.param("a.txt", "JSON", "jsonl", id="fmt-wins"),
    ],
)
def test_detect_format(path: str, fmt: str | None, expected: str) -> None:
    assert detect_format(path, fmt) == expected


@pytest.mark.parametrize("path", ["a.txt", "noext", "a.gz", "a.jsonl.bz2"])
def test_detect_format_unknown_extension(path: str) -> None:
    with pytest.raises(InputError, match="extension"):
        detect_format(path)


def test_detect_format_unknown_fmt() -> None:
    with pytest.raises(InputError, match="unknown format 'xml'"):
        detect_format("a.jsonl", "xml")


# --- JSON lines ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rows.jsonl", "rows.jsonl.gz", "rows.ndjson", "rows.json"])
def test_jsonl_round_trip(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with open_writer(str(path)) as writer:
        for row in ROWS:
            writer.write(row)
    rows = _read(path)
    assert [r.data for r in rows] == ROWS
    assert [r.line for r in rows] == [1, 2, 3]
    assert all(r.error is None and r.raw is None for r in rows)


def test_gz_output_is_gzip(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl.gz"
    with open_writer(str(path)) as writer:
        writer.write(ROWS[0])
    assert json.loads(gzip.decompress(path.read_bytes())) == ROWS[0]


def test_blank_lines_are_skipped_but_counted(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.jsonl", b'\n{"a": 1}\n   \n\r\n{"a": 2}\r\n\n')
    rows = _read(path)
    assert [(r.line, r.data) for r in rows] == [(2, {"a": 1}), (5, {"a": 2})]


def test_last_line_without_newline(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.jsonl", b'{"a": 1}\n{"a": 2}')
    assert [r.data for r in _read(path)] == [{"a": 1}, {"a": 2}]


def test_malformed_line_in_the_middle_keeps_order(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.jsonl", b'{"a": 1}\n{"a": 2,\n{"a": 3}\n')
    rows = _read(path)
    assert [r.line for r in rows] == [1, 2, 3]
    assert rows[0].data == {"a": 1} and rows[2].data == {"a": 3}
    bad = rows[1]
    assert bad.data is None
    assert bad.error is not None and bad.error.startswith("invalid JSON: ")
    assert bad.raw == '{"a": 2,'


@pytest.mark.parametrize(
    ("line", "what"),
    [
        pytest.param(b"[1, 2]", "an array", id="array"),
        pytest.param(b'"left"', "a string", id="string"),
        pytest.param(b"42", "a number", id="int"),
        pytest.param(b"0.5", "a number", id="float"),
        pytest.param(b"true", "a boolean", id="bool"),
        pytest.param(b"null", "null", id="null"),
    ],
)
def test_non_object_json(tmp_path: Path, line: bytes, what: str) -> None:
    path = _write_bytes(tmp_path / "a.jsonl", b'{"a": 1}\n' + line + b"\n")
    rows = _read(path)
    assert rows[1] == InputRow(2, None, f"not a JSON object (got {what})", line.decode())


def test_invalid_utf8_in_jsonl_line(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.jsonl", b'{"a": "ok"}\n{"a": "caf\xe9"}\n{"a": "b"}\n')
    rows = _read(path)
    assert [r.data for r in rows] == [{"a": "ok"}, None, {"a": "b"}]
    assert rows[1].error is not None and rows[1].error.startswith("invalid UTF-8")
    assert rows[1].raw == '{"a": "caf\ufffd"}'


def test_utf8_bom_is_ignored(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.jsonl", b'\xef\xbb\xbf{"a": 1}\n{"a": 2}\n')
    assert [r.data for r in _read(path)] == [{"a": 1}, {"a": 2}]


def test_non_ascii_text_survives(tmp_path: Path) -> None:
    row = {"pred": "Lésion à gauche — 左 ✓", "gt": "left"}
    path = tmp_path / "a.jsonl"
    with open_writer(str(path)) as writer:
        writer.write(row)
    assert _read(path)[0].data == row


@pytest.mark.parametrize("opening", [b"[\n", b"{\n", b"\n  [  \n"])
def test_pretty_printed_json_is_an_input_error(tmp_path: Path, opening: bytes) -> None:
    path = _write_bytes(tmp_path / "a.json", opening + b'  {"a": 1}\n]\n')
    with pytest.raises(InputError, match="pretty-printed"):
        _read(path)


def test_one_megabyte_field(tmp_path: Path) -> None:
    big = "x" * (1 << 20)
    for name in ("big.jsonl", "big.csv"):
        path = tmp_path / name
        with open_writer(str(path)) as writer:
            writer.write({"id": "1", "pred": big})
            writer.write({"id": "2", "pred": "short"})
        rows = _read(path)
        assert [r.data for r in rows] == [{"id": "1", "pred": big}, {"id": "2", "pred": "short"}]


def test_truncated_gzip_is_an_input_error(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in ROWS * 50))
    path = _write_bytes(tmp_path / "a.jsonl.gz", data[: len(data) // 2])
    with pytest.raises(InputError, match="cannot read"):
        _read(path)


# --- CSV ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rows.csv", "rows.csv.gz"])
def test_csv_round_trip(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    rows_in = [
        {"id": "1", "pred": 'He said "left",\nthen right', "gt": "left"},
        {"id": "2", "pred": "", "gt": "right"},
    ]
    with open_writer(str(path)) as writer:
        for row in rows_in:
            writer.write(row)
    rows = _read(path)
    assert [r.data for r in rows] == rows_in
    assert [r.line for r in rows] == [1, 2]


def test_csv_cells_are_strings(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    with open_writer(str(path)) as writer:
        writer.write(
            {"score": 0.5, "n": 3, "ok": True, "gt_label": None, "options": ["left", "right"]}
        )
    assert _read(path)[0].data == {
        "score": "0.5",
        "n": "3",
        "ok": "true",
        "gt_label": "",
        "options": '["left","right"]',
    }


def test_csv_header_from_first_row_and_hint(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    with open_writer(str(path), fieldnames_hint=["id", "score", "reason"]) as writer:
        writer.write({"id": "1", "score": 1.0})
        writer.write({"id": "2", "extra": "dropped", "reason": "r"})
    assert path.read_text().splitlines() == ["id,score,reason", "1,1.0,", "2,,r"]


def test_csv_writer_without_rows_writes_hint_header(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    open_writer(str(path), fieldnames_hint=["id", "score"]).close()
    assert path.read_bytes() == b"id,score\r\n"
    assert _read(path) == []


@pytest.mark.parametrize(
    ("line", "error"),
    [
        pytest.param(b"1,2,3,4", "CSV row has 4 fields, header has 3 fields", id="too-many"),
        pytest.param(b"1,2", "CSV row has 2 fields, header has 3 fields", id="too-few"),
        pytest.param(b"1", "CSV row has 1 field, header has 3 fields", id="one"),
    ],
)
def test_ragged_csv_rows(tmp_path: Path, line: bytes, error: str) -> None:
    path = _write_bytes(tmp_path / "a.csv", b"a,b,c\nx,y,z\n" + line + b"\nu,v,w\n")
    rows = _read(path)
    assert rows[0].data == {"a": "x", "b": "y", "c": "z"}
    assert rows[1] == InputRow(2, None, error, line.decode())
    assert rows[2] == InputRow(3, {"a": "u", "b": "v", "c": "w"})


def test_invalid_utf8_in_csv_cell(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.csv", b"id,pred\n1,caf\xe9\n2,ok\n")
    rows = _read(path)
    assert rows[0] == InputRow(1, None, "invalid UTF-8 in column 'pred'", "1,caf\ufffd")
    assert rows[1].data == {"id": "2", "pred": "ok"}


def test_csv_blank_lines_bom_and_empty_cells(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.csv", b"\xef\xbb\xbfid,gt,pred\r\n1,,\r\n\r\n2,left,\r\n")
    rows = _read(path)
    assert [(r.line, r.data) for r in rows] == [
        (1, {"id": "1", "gt": "", "pred": ""}),
        (3, {"id": "2", "gt": "left", "pred": ""}),
    ]


def test_csv_empty_or_header_only(tmp_path: Path) -> None:
    assert _read(_write_bytes(tmp_path / "empty.csv", b"")) == []
    assert _read(_write_bytes(tmp_path / "header.csv", b"id,gt,pred\n")) == []


def test_csv_repeated_header_column(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "a.csv", b"id,pred,pred\n1,a,b\n")
    with pytest.raises(InputError, match="repeats column 'pred'"):
        _read(path)


def test_fmt_overrides_extension(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "data.txt", b"id,gt\n1,left\n")
    assert _read(path, "csv")[0].data == {"id": "1", "gt": "left"}


# --- whole-file errors --------------------------------------------------------------------


def test_missing_input_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No such file"):
        read_rows(str(tmp_path / "missing.jsonl"))  # raised on the call, not on iteration


def test_directory_as_input(tmp_path: Path) -> None:
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    with pytest.raises(InputError, match="cannot read"):
        read_rows(str(folder))


def test_output_in_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="cannot write"):
        open_writer(str(tmp_path / "nope" / "out.jsonl"))


@pytest.mark.parametrize("fmt", [None, "csv"])
def test_output_is_a_directory(tmp_path: Path, fmt: str | None) -> None:
    folder = tmp_path / "out.jsonl"
    folder.mkdir()
    with pytest.raises(OutputError, match="cannot write"):
        open_writer(str(folder), fmt)


def test_output_unknown_extension(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="extension"):
        open_writer(str(tmp_path / "out.xml"))


# --- writer robustness --------------------------------------------------------------------


def test_jsonl_writer_never_crashes_on_odd_values(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    odd: list[dict[Any, Any]] = [
        {"score": float("nan"), "inf": float("inf")},
        {"when": Path("x/y"), "set": frozenset()},
        {1: "int key"},
        {"pred": "lone \udc80 surrogate", "nan": float("nan")},
        {"big": 2**80},
    ]
    with open_writer(str(path)) as writer:
        for row in odd:
            writer.write(row)
    lines = path.read_bytes().splitlines()
    parsed = [json.loads(line) for line in lines]  # every line is valid JSON
    assert parsed[0] == {"score": None, "inf": None}
    assert parsed[1]["when"] == "x/y"
    assert parsed[2] == {"1": "int key"}
    assert parsed[3] == {"pred": "lone \udc80 surrogate", "nan": None}
    assert parsed[4] == {"big": 2**80}
    assert [r.error for r in _read(path)][:3] == [None, None, None]


def test_close_is_idempotent(tmp_path: Path) -> None:
    writer = open_writer(str(tmp_path / "a.jsonl"))
    writer.write({"a": 1})
    writer.close()
    writer.close()
    assert (tmp_path / "a.jsonl").read_bytes() == b'{"a":1}\n'


def test_reader_stopped_early_closes_cleanly(tmp_path: Path) -> None:
    for name in ("a.jsonl", "a.csv"):
        path = tmp_path / name
        with open_writer(str(path)) as writer:
            for row in ROWS:
                writer.write(row)
        rows = read_rows(str(path))
        assert next(rows).line == 1
        rows.close()  # a ResourceWarning (unclosed file) would fail the test


# --- property -----------------------------------------------------------------------------

_scalars = (
    st.text()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # orjson's native integer range
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.none()
    | st.booleans()
)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.dictionaries(st.text(), _scalars, max_size=6), max_size=8))
def test_jsonl_writer_round_trip(
    tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]]
) -> None:
    path = tmp_path_factory.mktemp("prop") / "rows.jsonl"
    with open_writer(str(path)) as writer:
        for row in rows:
            writer.write(row)
    back = _read(path)
    assert [r.data for r in back] == rows
    assert [r.line for r in back] == list(range(1, len(rows) + 1))
