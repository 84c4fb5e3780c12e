"""The HTML report: self-contained, escaped, complete, and clean in a real browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from browser import CHROMIUM, dump_dom, screenshot
from vqagrade.cli import app
from vqagrade.grader import Grader
from vqagrade.reports import charts
from vqagrade.reports import html as report_module
from vqagrade.reports.audit import audit_rows
from vqagrade.reports.html import audit_report_html, is_audit_row, score_report_html

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "examples" / "sample.jsonl"
AUDIT = ROOT / "examples" / "audit_sample.jsonl"
runner = CliRunner()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def _scored() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    return list(Grader().grade_rows(rows))


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _assert_self_contained(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    assert not [t for t in tags if re.match(r"<(link|iframe|img|object|embed|audio|video)", t)]
    assert not [t for t in tags if re.search(r"\s(src|href|srcset|action)=", t)]
    assert "@import" not in html and "url(" not in html
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace is a name, not a fetch
    assert html.count("<script>") == 1 and html.count("</script>") == 1


def _listed(html: str) -> list[str]:
    return re.findall(r'<tr data-kind="([^"]+)"', html)


def test_score_report_sections_and_listing() -> None:
    html = score_report_html(_scored(), source="sample.jsonl")
    _assert_self_contained(html)
    for heading in ("Score histogram", "Method breakdown", "gt × pred labels", "Judge cost"):
        assert heading in html
    assert "no row went to an LLM judge" in html
    kinds = _listed(html)
    # ex-17 ("Does the liver show a mass or a cyst?" - "No") is a yes/no row the rules decide.
    assert kinds.count("unresolved") == 5 and kinds.count("error") == 1
    assert kinds.count("wrong") == 4 and "partial" not in kinds
    assert "missing field &#x27;gt&#x27;" in html
    assert "rule 16 (72.7%)" in html
    assert "By question kind" in html and "yes_no" in html


def test_text_is_escaped() -> None:
    evil = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    rows = [{"id": evil, "question": evil, "gt": evil, "pred": evil, "score": None,
             "method": "unresolved", "reason": evil, "judge_raw": evil}]  # fmt: skip
    html = score_report_html(rows, title=evil)
    _assert_self_contained(html)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html


def test_open_task_histogram_and_judge_cost() -> None:
    rows: list[dict[str, Any]] = [
        {"id": "a", "score": 5, "method": "rule", "reason": "exact"},
        {"id": "b", "score": 3, "method": "llm", "reason": "judge", "judge_model": "m",
         "judge_prompt": "equivalence", "judge_cached": False, "judge_prompt_tokens": 700,
         "judge_completion_tokens": 2},
        {"id": "c", "score": 0, "method": "llm", "reason": "judge", "judge_model": "m",
         "judge_prompt": "equivalence", "judge_cached": True},
        {"id": "d", "score": None, "method": "error", "reason": "judge_timeout", "judge_model": "m",
         "judge_prompt": "equivalence", "judge_cached": False},
    ]  # fmt: skip
    html = score_report_html(rows)
    assert "out of 5" in html and "no labels" in html
    for label in ("0", "1", "2", "3", "4", "5", "no score"):
        assert f">{label}</text>" in html
    assert "3 rows judged: 2 answered fresh, 1 from the cache, 1 judge errors." in html
    assert "700 prompt + 2 completion tokens" in html and "m / equivalence (3)" in html
    assert _listed(html) == ["partial", "wrong", "error"]


def test_listing_is_capped_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(charts, "LISTING_LIMIT", 3)
    rows = [{"id": str(i), "score": None, "method": "unresolved", "reason": "r"} for i in range(10)]
    html = score_report_html(rows)
    assert len(_listed(html)) == 3 and "(the first 3 of 10 are listed)" in html


def test_audit_report_with_statistics() -> None:
    rows = [json.loads(line) for line in AUDIT.read_text().splitlines()]
    result = audit_rows(rows, "judge")
    html = audit_report_html(result.disagreements, result, source="audit_sample.jsonl")
    _assert_self_contained(html)
    assert "Cohen&#x27;s kappa" in html and "quadratic; linear" in html
    assert "Impossible judge scores" in html and "out_of_scale" in html
    assert len(_listed(html)) == 7
    assert html.index("au-04") < html.index("au-29")  # most suspicious first


def test_cli_report_tells_score_output_from_audit_output(tmp_path: Path) -> None:
    scored = _write_jsonl(tmp_path / "out.jsonl", _scored())
    res = runner.invoke(app, ["report", str(scored), "-o", str(tmp_path / "s.html")])
    assert res.exit_code == 0, res.output
    assert "score report of 22 rows" in res.stderr
    dis = tmp_path / "dis.jsonl"
    res = runner.invoke(app, ["audit", str(AUDIT), "--judge-field", "judge", "-o", str(dis)])
    assert res.exit_code == 0, res.output
    assert all(is_audit_row(json.loads(x)) for x in dis.read_text().splitlines())
    res = runner.invoke(app, ["report", str(dis), "-o", str(tmp_path / "d.html")])
    assert res.exit_code == 0 and "audit report of 7 rows" in res.stderr
    html = (tmp_path / "d.html").read_text()
    assert "Agreement and kappa need the audited input" in html and len(_listed(html)) == 7


def test_cli_report_audit_and_bad_usage(tmp_path: Path) -> None:
    out = tmp_path / "a.html"
    res = runner.invoke(
        app, ["report", "--audit", str(AUDIT), "--judge-field", "judge", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "audit of 38 rows, 7 disagreements" in res.stderr and out.exists()
    assert runner.invoke(app, ["report", "-o", str(out)]).exit_code == 2
    assert runner.invoke(app, ["report", "--audit", str(AUDIT)]).exit_code == 2
    missing = runner.invoke(app, ["report", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and missing.stderr.startswith("vqagrade: ")


def test_unreadable_lines_show_up_as_errors(tmp_path: Path) -> None:
    src = tmp_path / "out.jsonl"
    src.write_text('{not json\n{"id": "a", "score": 1.0, "method": "rule", "reason": "r"}\n')
    html, kind, n = report_module.report_from_file(str(src))
    assert (kind, n) == ("score", 2) and _listed(html) == ["error"]


# -- in a real browser ----------------------------------------------------------------------


@pytest.fixture
def pages(tmp_path: Path) -> dict[str, Path]:
    scored = _write_jsonl(tmp_path / "out.jsonl", _scored())
    made = {"score": tmp_path / "score.html", "audit": tmp_path / "audit.html"}
    assert runner.invoke(app, ["report", str(scored), "-o", str(made["score"])]).exit_code == 0
    args = ["report", "--audit", str(AUDIT), "--judge-field", "judge", "-o", str(made["audit"])]
    assert runner.invoke(app, args).exit_code == 0
    return made


@needs_chromium
@pytest.mark.parametrize("kind", ["score", "audit"])
def test_report_renders_without_console_errors(
    pages: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    png = tmp_path / f"{kind}.png"
    problems = screenshot(pages[kind], tmp_path, png)
    assert problems == []
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


@needs_chromium
def test_the_filter_runs_in_the_browser(pages: dict[str, Path], tmp_path: Path) -> None:
    dom, problems = dump_dom(pages["score"], tmp_path, fragment="q=kidney&kind=wrong")
    assert problems == []
    rows = re.findall(r'<tr data-kind="(\w+)"( hidden="")?>(.*?)</tr>', dom)
    shown = [(kind, cells) for kind, hidden, cells in rows if not hidden]
    assert len(rows) == 10 and len(shown) == 0  # no wrong row mentions a kidney
    dom, _ = dump_dom(pages["score"], tmp_path, fragment="kind=unresolved")
    shown_count = re.search(r'<span id="shown">(\d+)</span>', dom)
    assert shown_count is not None and shown_count.group(1) == "5"
    dom, _ = dump_dom(pages["score"], tmp_path, fragment="q=GRAM")
    visible = [
        c
        for _, hidden, c in re.findall(r'<tr data-kind="(\w+)"( hidden="")?>(.*?)</tr>', dom)
        if not hidden
    ]
    assert len(visible) == 1 and "Gram-negative" in visible[0]


@needs_chromium
def test_console_errors_would_be_caught(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><p>x</p><script>console.error('boom'); nosuchfn();</script>")
    _, problems = dump_dom(broken, tmp_path)
    assert any("boom" in p for p in problems)
    assert any("Uncaught ReferenceError" in p for p in problems)


def test_csv_score_output_is_read_with_numbers(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    assert runner.invoke(app, ["score", str(SAMPLE), "-o", str(out), "-q"]).exit_code == 0
    html, kind, n = report_module.report_from_file(str(out))
    assert (kind, n) == ("score", 22)
    assert "rule 16 (72.7%)" in html and ">0.7500<" in html
    assert _listed(html).count("wrong") == 4


def test_score_report_shows_coverage_strict_mean_groups_and_reasons(tmp_path: Path) -> None:
    rows = [{**r, "meta": {"model": "m1" if i % 2 else "m2"}} for i, r in enumerate(_scored())]
    html = score_report_html(rows, by=["meta.model"])
    _assert_self_contained(html)
    assert ">coverage<" in html and ">strict mean<" in html and "95% CI [" in html
    assert "<h2>By meta.model</h2>" in html and 'aria-label="mean by group"' in html
    assert "<td>m1</td>" in html and "<td>m2</td>" in html
    assert "Why rows are undecided" in html and 'aria-label="undecided rows by reason"' in html
    src = _write_jsonl(tmp_path / "graded.jsonl", rows)
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(src), "-o", str(out), "--group-by", "meta.model"])
    assert res.exit_code == 0, res.stderr
    assert "<h2>By meta.model</h2>" in out.read_text()


def test_report_refuses_an_ungraded_file_with_one_line(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(SAMPLE), "-o", str(out)])
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1 and "is not graded output" in res.stderr
    assert not out.exists()


def test_long_ids_wrap_in_the_listing() -> None:
    css = charts.CSS
    assert "white-space:nowrap}" not in css.split(".list td:nth-child(2)")[1].split("\n")[0]
    assert ".list td:nth-child(2){max-width:180px;word-break:break-all}" in css
