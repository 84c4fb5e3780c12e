"""JUnit XML: one testcase per row, failures, errors and skips, always well-formed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vqagrade.errors import OutputError
from vqagrade.grader import Grader
from vqagrade.reports.junit import JUnitWriter, write_junit

Q = "Is the lesion in the left or right kidney?"


def _rows() -> list[dict[str, Any]]:
    inputs: list[Any] = [
        {"id": "ok", "question": Q, "gt": "left", "pred": "left"},
        {"id": "half", "question": Q, "gt": "left", "pred": "both"},
        {"id": "wrong", "question": Q, "gt": "left", "pred": "right"},
        {"id": "hedge", "question": Q, "gt": "left", "pred": "left or right"},
        {"id": "broken", "question": Q, "gt": "left"},
    ]
    return list(Grader().grade_rows(inputs))


def _parse(path: Path) -> ET.Element:
    return ET.parse(path).getroot()


def test_one_testcase_per_row_with_the_right_outcome(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    writer = write_junit(_rows(), path)
    root = _parse(path)
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.attrib | root.attrib == suite.attrib  # totals repeated on both levels
    assert {k: suite.attrib[k] for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "5", "failures": "2", "errors": "1", "skipped": "1",
    }  # fmt: skip
    assert (writer.tests, writer.failures, writer.errors, writer.skipped) == (5, 2, 1, 1)
    cases = {c.attrib["name"]: c for c in suite.iter("testcase")}
    assert list(cases) == ["ok", "half", "wrong", "hedge", "broken"]
    assert len(cases["ok"]) == 0
    failure = cases["wrong"].find("failure")
    assert failure is not None and failure.attrib["message"].startswith("score 0 < 1: gt A")
    assert "pred: 'right' -> B" in (failure.text or "")
    assert "options: A = 'left kidney'" in (failure.text or "")
    half = cases["half"].find("failure")
    assert half is not None and half.attrib["message"].startswith("score 0.5 < 1")
    skipped = cases["hedge"].find("skipped")
    assert skipped is not None and skipped.attrib["message"].startswith("unresolved: pred abstains")
    error = cases["broken"].find("error")
    assert error is not None and error.attrib["message"] == "missing field 'pred'"


def test_open_task_full_marks_is_five(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "score": 5, "method": "rule", "reason": "exact"},
        {"id": "b", "score": 4, "method": "llm", "reason": "judge"},
    ]
    write_junit(rows, tmp_path / "j.xml", full_marks=5, suite="open")
    suite = _parse(tmp_path / "j.xml").find("testsuite")
    assert suite is not None and suite.attrib["failures"] == "1" and suite.attrib["name"] == "open"
    failure = suite.find("testcase[@name='b']/failure")
    assert failure is not None and failure.attrib["message"] == "score 4 < 5: judge"


NASTY = 'a<b>&"quote"\'\x00\x01\x1b\ud800 ]]> \U0001f600 end'


def test_any_text_yields_well_formed_xml(tmp_path: Path) -> None:
    rows = [
        {"id": NASTY, "question": NASTY, "gt": NASTY, "pred": NASTY, "score": 0.0,
         "method": "rule", "reason": NASTY, "judge_raw": NASTY},
        {"line": 7, "raw": NASTY, "score": None, "method": "error", "reason": NASTY},
        {"score": None, "method": "unresolved", "reason": NASTY},
    ]  # fmt: skip
    path = tmp_path / "j.xml"
    write_junit(rows, path)
    suite = _parse(path).find("testsuite")
    assert suite is not None
    names = [c.attrib["name"] for c in suite.iter("testcase")]
    assert names[0].startswith('a<b>&"quote"\'') and names[0].endswith("\U0001f600 end")
    assert names[1:] == ["line 7", "row 3"]
    failure = suite.find("testcase/failure")
    assert failure is not None and "]]>" in (failure.text or "")


def test_incremental_writer_and_empty_run(tmp_path: Path) -> None:
    path = tmp_path / "j.xml"
    with JUnitWriter(path, id_field="uid") as w:
        w.add({"uid": "x1", "score": 1.0, "method": "rule", "reason": "r"})
    case = _parse(path).find("testsuite/testcase")
    assert case is not None and case.attrib["name"] == "x1"
    write_junit([], tmp_path / "empty.xml")
    assert _parse(tmp_path / "empty.xml").attrib["tests"] == "0"


def test_an_unwritable_path_fails_before_any_row_is_read(tmp_path: Path) -> None:
    def rows() -> Iterator[dict[str, Any]]:
        raise AssertionError("rows were read")
        yield {}

    with pytest.raises(OutputError, match="cannot write"):
        write_junit(rows(), tmp_path / "missing-dir" / "j.xml")
    with pytest.raises(OutputError, match="cannot write"):
        JUnitWriter(tmp_path)  # a directory


def _cli_rows(tmp_path: Path) -> Path:
    import json

    rows = [{**r, "meta": {"model": m}} for r, m in zip(
        [{"id": "ok", "question": Q, "gt": "left", "pred": "left"},
         {"id": "wrong", "question": Q, "gt": "left", "pred": "right"},
         {"id": "hedge", "question": Q, "gt": "left", "pred": "left or right"}],
        ["a", "b", "b"], strict=True)]  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return src


def test_summary_mode_is_the_default_one_testcase_per_gate(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vqagrade.cli import app

    src, xml = _cli_rows(tmp_path), tmp_path / "j.xml"
    args = ["score", str(src), "-o", str(tmp_path / "o.jsonl"), "-q", "--junit", str(xml)]
    res = CliRunner().invoke(app, [*args, "--fail-under", "0.4", "--min-coverage", "0.9"])
    assert res.exit_code == 1
    cases = {c.attrib["name"]: c for c in _parse(xml).iter("testcase")}
    assert list(cases) == ["fail-under", "min-coverage"]
    assert cases["fail-under"].find("failure") is None  # the gate passed: no failure shown
    failure = cases["min-coverage"].find("failure")
    assert failure is not None and "coverage 0.6667" in failure.attrib["message"]
    out = cases["fail-under"].findtext("system-out") or ""
    assert "rows 3  decided 2  coverage 0.6667" in out
    # No gate: one passing summary testcase.
    assert CliRunner().invoke(app, args).exit_code == 0
    assert [c.attrib["name"] for c in _parse(xml).iter("testcase")] == ["summary"]


def test_rows_mode_names_the_classname_after_the_group(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vqagrade.cli import app

    src, xml = _cli_rows(tmp_path), tmp_path / "j.xml"
    args = ["score", str(src), "-o", str(tmp_path / "o.jsonl"), "-q", "--junit", str(xml)]
    res = CliRunner().invoke(app, [*args, "--junit-mode", "rows", "--group-by", "meta.model"])
    assert res.exit_code == 0
    cases = [(c.attrib["name"], c.attrib["classname"]) for c in _parse(xml).iter("testcase")]
    assert cases == [("ok", "a"), ("wrong", "b"), ("hedge", "b")]
