"""Bad input never stops a run: one output row per input row, in order, bad ones as error rows.

The bar: a malformed JSON line, a missing or non-string field, an empty string, a 1 MB pred,
invalid UTF-8, a ragged CSV row -> that row comes out as ``method: "error"`` with the reason;
the run continues; rows out == rows in, in order; exit 0 unless ``--strict`` (then 1).
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from vqagrade.cli import app
from vqagrade.grader import MAX_TEXT_CHARS

KIDNEY = "Is the lesion in the left or right kidney?"
ONE_MB = 1_000_000
LIMIT = f"longer than {MAX_TEXT_CHARS:,} characters"
GOOD_METHODS = ("rule", "unresolved")

runner = CliRunner()


def _obj(**fields: Any) -> bytes:
    return json.dumps(fields, ensure_ascii=False).encode()


# Good rows put around every bad one: one the rules settle, one they cannot.
GOOD_RULE = {"id": "good-rule", "question": KIDNEY, "gt": "left", "pred": "The left kidney."}
GOOD_UNRESOLVED = {
    "id": "good-open",
    "question": KIDNEY,
    "gt": "left",
    "pred": "I cannot see the image.",
}


@dataclass(frozen=True)
class Bad:
    """One bad record and what its output row must say."""

    id: str
    data: bytes  # a JSON line, or a CSV record (no line ending)
    reason: str  # regex the reason must match
    unreadable: bool  # True: the record could not be parsed, so the row carries line and raw


JSONL_BAD = [
    Bad(
        "malformed-json",
        b'{"id": "m1", "question": "Is it left or right?", "gt": ',
        r"^invalid JSON: .+ \(column \d+\)$",
        True,
    ),
    Bad(
        "trailing-garbage",
        _obj(id="m2", question=KIDNEY, gt="left", pred="left") + b" xyz",
        r"^invalid JSON: ",
        True,
    ),
    Bad(
        "json-array",
        b'["Is it left or right?", "left", "left"]',
        r"^not a JSON object \(got an array\)$",
        True,
    ),
    Bad("json-string", b'"left"', r"^not a JSON object \(got a string\)$", True),
    Bad("json-number", b"42", r"^not a JSON object \(got a number\)$", True),
    Bad("json-null", b"null", r"^not a JSON object \(got null\)$", True),
    Bad(
        "invalid-utf8",
        b'{"id": "u1", "question": "Is it left or right?", "gt": "left", "pred": "left \xff\xfe"}',
        r"^invalid UTF-8 \(byte 0xff at column 78\)$",
        True,
    ),
    Bad(
        "missing-pred", _obj(id="f1", question=KIDNEY, gt="left"), r"^missing field 'pred'$", False
    ),
    Bad(
        "null-gt",
        _obj(id="f2", question=KIDNEY, gt=None, pred="left"),
        r"^missing field 'gt'$",
        False,
    ),
    Bad(
        "gt-is-a-number",
        _obj(id="f3", question=KIDNEY, gt=1, pred="left"),
        r"^field 'gt' is int, expected a string$",
        False,
    ),
    Bad(
        "pred-is-a-float",
        _obj(id="f4", question=KIDNEY, gt="left", pred=0.5),
        r"^field 'pred' is float, expected a string$",
        False,
    ),
    Bad(
        "pred-is-a-bool",
        _obj(id="f5", question=KIDNEY, gt="left", pred=True),
        r"^field 'pred' is bool, expected a string$",
        False,
    ),
    Bad(
        "question-is-a-list",
        _obj(id="f6", question=["left", "right"], gt="left", pred="left"),
        r"^field 'question' is list, expected a string$",
        False,
    ),
    Bad(
        "empty-question",
        _obj(id="f7", question="", gt="left", pred="left"),
        r"^field 'question' is empty$",
        False,
    ),
    Bad(
        "empty-gt",
        _obj(id="f8", question=KIDNEY, gt="", pred="left"),
        r"^field 'gt' is empty$",
        False,
    ),
    Bad(
        "whitespace-pred",
        _obj(id="f9", question=KIDNEY, gt="left", pred=" \t\n "),
        r"^field 'pred' is empty$",
        False,
    ),
    Bad(
        "1mb-pred",
        _obj(id="big", question=KIDNEY, gt="left", pred="left " * (ONE_MB // 5)),
        rf"^field 'pred' is {LIMIT}$",
        False,
    ),
    Bad(
        "pred-one-over-limit",
        _obj(id="over", question=KIDNEY, gt="left", pred="l" * (MAX_TEXT_CHARS + 1)),
        rf"^field 'pred' is {LIMIT}$",
        False,
    ),
    Bad(
        "1mb-question",
        _obj(id="bigq", question="x" * ONE_MB, gt="left", pred="left"),
        rf"^field 'question' is {LIMIT}$",
        False,
    ),
]

CSV_HEADER = b"id,question,gt,pred,model"


def _csv_record(*cells: str) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(cells)
    return buf.getvalue().encode()


CSV_BAD = [
    Bad(
        "ragged-short",
        b"r1,Is it left or right?,left",
        r"^CSV row has 3 fields, header has 5 fields$",
        True,
    ),
    Bad(
        "ragged-long",
        b"r2,Is it left or right?,left,left,m,extra",
        r"^CSV row has 6 fields, header has 5 fields$",
        True,
    ),
    Bad(
        "invalid-utf8",
        b"u1,Is it left or right?,left,left \xff,m",
        r"^invalid UTF-8 in column 'pred'$",
        True,
    ),
    Bad("empty-question", b"f1,,left,left,m", r"^field 'question' is empty$", False),
    Bad("empty-pred", b"f2," + KIDNEY.encode() + b",left,,m", r"^field 'pred' is empty$", False),
    Bad(
        "whitespace-pred",
        b"f3," + KIDNEY.encode() + b",left,   ,m",
        r"^field 'pred' is empty$",
        False,
    ),
    Bad(
        "1mb-pred",
        _csv_record("big", KIDNEY, "left", "left " * (ONE_MB // 5), "m"),
        rf"^field 'pred' is {LIMIT}$",
        False,
    ),
]


# --- building files and reading results -----------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """What one output row must be: a good row (by id) or a bad case."""

    line: int  # JSONL: physical line; CSV: data record number
    good: dict[str, Any] | None = None
    bad: Bad | None = None


def _jsonl_file(bad: list[Bad]) -> tuple[bytes, list[Expected]]:
    """Good, bad, good, bad, ..., good, with a blank line in the middle (skipped, but counted)."""
    lines: list[bytes] = []
    expected: list[Expected] = []
    goods = [GOOD_RULE, GOOD_UNRESOLVED]
    for i, case in enumerate(bad):
        good = {**goods[i % 2], "id": f"good-{i}"}
        lines.append(_obj(**good))
        expected.append(Expected(len(lines), good=good))
        if i == len(bad) // 2:
            lines.append(b"   ")
        lines.append(case.data)
        expected.append(Expected(len(lines), bad=case))
    last = {**GOOD_RULE, "id": "good-last"}
    lines.append(_obj(**last))
    expected.append(Expected(len(lines), good=last))
    return b"\n".join(lines) + b"\n", expected


def _csv_file(bad: list[Bad]) -> tuple[bytes, list[Expected]]:
    records: list[bytes] = []
    expected: list[Expected] = []
    for i, case in enumerate(bad):
        good = {**[GOOD_RULE, GOOD_UNRESOLVED][i % 2], "id": f"good-{i}", "model": "m"}
        records.append(_csv_record(*good.values()))
        expected.append(Expected(len(records), good=good))
        records.append(case.data)
        expected.append(Expected(len(records), bad=case))
    last = {**GOOD_RULE, "id": "good-last", "model": "m"}
    records.append(_csv_record(*last.values()))
    expected.append(Expected(len(records), good=last))
    return b"\r\n".join([CSV_HEADER, *records]) + b"\r\n", expected


def _parse(stdout: str | bytes) -> list[dict[str, Any]]:
    if isinstance(stdout, bytes):
        stdout = stdout.decode()
    # Split on "\n" only: str.splitlines() also breaks at U+0085, U+2028, ..., which JSON
    # strings may hold unescaped.
    return [json.loads(line) for line in stdout.split("\n") if line]


def _row_id(case: Bad) -> Any:
    """The id of a record that parses (JSON object or CSV record)."""
    if case.data.startswith(b"{"):
        return json.loads(case.data)["id"]
    return next(csv.reader([case.data.decode()]))[0]


def _check(
    out: list[dict[str, Any]], expected: list[Expected], source: bytes, *, jsonl: bool
) -> None:
    """Every output row against its input record."""
    assert len(out) == len(expected), "one output row per input record"
    physical = source.split(b"\n")
    for got, want in zip(out, expected, strict=True):
        if want.good is not None:
            assert {k: got[k] for k in want.good} == want.good, "good rows pass through, in order"
            assert got["method"] in GOOD_METHODS, got["reason"]
            assert got["reason"]
            continue
        case = want.bad
        assert case is not None
        assert got["method"] == "error", case.id
        assert got["score"] is None
        assert (got["gt_label"], got["pred_label"], got["options"]) == (None, None, None)
        assert isinstance(got["reason"], str) and got["reason"]
        assert re.search(case.reason, got["reason"]), (case.id, got["reason"])
        if case.unreadable:
            assert list(got) == [
                "line",
                "raw",
                "score",
                "method",
                "gt_label",
                "pred_label",
                "options",
                "reason",
                "question_kind",
            ]
            assert got["line"] == want.line
            assert got["raw"] == case.data.decode("utf-8", errors="replace")
            if jsonl:  # `line` is the physical line, as an editor numbers it
                assert physical[want.line - 1] == case.data
        else:  # the record was read: its fields, id included, pass through
            assert "line" not in got and "raw" not in got
            assert got["id"] == _row_id(case)


# --- one bad record between good ones (in-process, one test per case) -------------------------


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in JSONL_BAD])
def test_jsonl_bad_line(tmp_path: Path, case: Bad) -> None:
    data, expected = _jsonl_file([case])
    src = tmp_path / "in.jsonl"
    src.write_bytes(data)
    result = runner.invoke(app, ["score", str(src), "-q"])
    assert result.exit_code == 0, result.stderr
    _check(_parse(result.stdout), expected, data, jsonl=True)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CSV_BAD])
def test_csv_bad_record(tmp_path: Path, case: Bad) -> None:
    data, expected = _csv_file([case])
    src = tmp_path / "in.csv"
    src.write_bytes(data)
    result = runner.invoke(app, ["score", str(src), "-q"])
    assert result.exit_code == 0, result.stderr
    out = _parse(result.stdout)
    _check(out, expected, data, jsonl=False)
    if not case.unreadable:
        assert out[1]["model"] == "m"


def test_pred_at_the_limit_is_graded(tmp_path: Path) -> None:
    pred = "The lesion is in the left kidney. "
    pred += "a" * (MAX_TEXT_CHARS - len(pred))
    assert len(pred) == MAX_TEXT_CHARS
    src = tmp_path / "in.jsonl"
    src.write_bytes(_obj(id="edge", question=KIDNEY, gt="left", pred=pred) + b"\n")
    result = runner.invoke(app, ["score", str(src), "-q"])
    assert result.exit_code == 0
    [out] = _parse(result.stdout)
    assert out["method"] in GOOD_METHODS, out["reason"]
    assert out["pred"] == pred


def test_1mb_pred_is_more_than_the_limit() -> None:
    assert ONE_MB > MAX_TEXT_CHARS == 100_000


# --- everything at once, as a user runs it (subprocess) ---------------------------------------


def _run(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "vqagrade", *map(str, args)],
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("name", "build", "cases"),
    [
        pytest.param("mixed.jsonl", _jsonl_file, JSONL_BAD, id="jsonl"),
        pytest.param("mixed.csv", _csv_file, CSV_BAD, id="csv"),
    ],
)
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_mixed_file(tmp_path: Path, name: str, build: Any, cases: list[Bad], strict: bool) -> None:
    data, expected = build(cases)
    src = tmp_path / name
    src.write_bytes(data)
    proc = _run("score", src, *(["--strict"] if strict else []))
    assert b"Traceback" not in proc.stderr
    out = _parse(proc.stdout)
    _check(out, expected, data, jsonl=name.endswith(".jsonl"))
    stderr = proc.stderr.decode()
    n_bad, n_good = len(cases), len(expected) - len(cases)
    assert f"rows {len(expected)}  " in stderr  # the summary counts every row
    assert f"error {n_bad}" in stderr
    assert sum(r["method"] in GOOD_METHODS for r in out) == n_good
    if strict:
        assert proc.returncode == 1
        assert stderr.splitlines()[-1] == f"vqagrade: {n_bad} error rows (--strict)"
    else:
        assert proc.returncode == 0


def test_mixed_file_from_stdin() -> None:
    data, expected = _jsonl_file(JSONL_BAD)
    proc = subprocess.run(
        [sys.executable, "-m", "vqagrade", "score", "-", "-q"],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    _check(_parse(proc.stdout), expected, data, jsonl=True)


@pytest.mark.parametrize(
    ("name", "build", "cases"),
    [
        pytest.param(
            "mixed.jsonl", _jsonl_file, [c for c in JSONL_BAD if c.unreadable], id="jsonl-in"
        ),
        pytest.param("mixed.csv", _csv_file, [c for c in CSV_BAD if c.unreadable], id="csv-in"),
    ],
)
def test_csv_output_keeps_line_and_raw(
    tmp_path: Path, name: str, build: Any, cases: list[Bad]
) -> None:
    data, expected = build(cases)
    src = tmp_path / name
    src.write_bytes(data)
    dst = tmp_path / "out.csv"
    result = runner.invoke(app, ["score", str(src), "-o", str(dst), "-q"])
    assert result.exit_code == 0
    out = list(csv.DictReader(io.StringIO(dst.read_text(encoding="utf-8"))))
    assert len(out) == len(expected)
    for got, want in zip(out, expected, strict=True):
        if want.bad is not None:
            assert got["method"] == "error"
            assert got.get("line") == str(want.line)
            assert got.get("raw")


# --- random bytes never crash the CLI -------------------------------------------------------

_BOM = b"\xef\xbb\xbf"
_SEEDS = [
    _obj(**GOOD_RULE),
    _obj(**GOOD_UNRESOLVED),
    _obj(id=1, question=KIDNEY, gt=3, pred=None),
    b"{}",
    b"[]",
    b"{",
    b"[",
    b"null",
    b'"x"',
    b"\xff\xfe",
    _BOM + _obj(**GOOD_RULE),
    b"   ",
    b"",
]
_line = st.one_of(
    st.binary(max_size=80),
    st.sampled_from(_SEEDS),
    st.text(max_size=40).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.builds(lambda a, b: a + b, st.sampled_from(_SEEDS), st.binary(max_size=8)),
).map(lambda b: b.replace(b"\n", b""))


def _first_content(lines: list[bytes]) -> bytes | None:
    """The first line the reader does not skip as blank (a leading BOM is dropped)."""
    for i, line in enumerate(lines):
        if i == 0 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line.strip():
            return line.strip()
    return None


def _content_lines(lines: list[bytes]) -> int:
    return sum(
        bool((line[len(_BOM) :] if i == 0 and line.startswith(_BOM) else line).strip())
        for i, line in enumerate(lines)
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=25))
def test_random_bytes_never_crash(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes]
) -> None:
    src = tmp_path_factory.mktemp("fuzz") / "in.jsonl"
    src.write_bytes(b"".join(line + b"\n" for line in lines))
    result = runner.invoke(app, ["score", str(src), "-q"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    if _first_content(lines) in (b"[", b"{"):
        # A lone bracket opening the file looks like a pretty-printed JSON document: the one
        # whole-file refusal, with a clear message and exit 2.
        event("refused: looks pretty-printed")
        assert result.exit_code == 2
        assert result.stderr.startswith("vqagrade: ") and "pretty-printed" in result.stderr
        return
    assert result.exit_code == 0, result.stderr
    out = _parse(result.stdout)
    assert len(out) == _content_lines(lines)
    event(f"has good rows: {any(r['method'] != 'error' for r in out)}")
    for row in out:
        assert row["method"] in ("rule", "unresolved", "error")
        assert (row["score"] is None) == (row["method"] != "rule")
        assert row["reason"]
        if "raw" in row:
            assert row["method"] == "error" and isinstance(row["line"], int)
    lines_seen = [r["line"] for r in out if "line" in r]
    assert lines_seen == sorted(lines_seen), "error rows stay in input order"
