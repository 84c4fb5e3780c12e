"""`vqagrade.run.score_file`: everything `vqagrade score` does, as one call from Python."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scale_support import case_rows, workload_rows
from vqagrade.cli import app
from vqagrade.contract import FieldMap
from vqagrade.engines.gc_tuning import GC_THRESHOLDS, gc_tuned
from vqagrade.errors import VqagradeError
from vqagrade.run import JudgeSettings, ScoreRun, score_file


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_the_cli_and_score_file_write_the_same_bytes(
    tmp_path: Path, workers: int, suffix: str
) -> None:
    # The benchmark workload plus every golden case: the old entry and the new, byte for byte.
    rows = workload_rows(3000) + case_rows()
    source = _write(tmp_path / "in.jsonl", rows)
    by_cli, by_run = tmp_path / f"cli.{suffix}", tmp_path / f"run.{suffix}"
    result = CliRunner().invoke(
        app, ["score", str(source), "-o", str(by_cli), "--workers", str(workers)]
    )
    assert result.exit_code == 0, result.output
    report = score_file(ScoreRun(input=str(source), output=str(by_run), workers=workers))
    assert by_cli.read_bytes() == by_run.read_bytes()
    assert report.summary is not None and report.summary.rows == len(rows)
    # The summary the command line printed is the report's, apart from the clock.
    printed = result.stderr.splitlines()
    assert printed[:-1] == report.summary.render().splitlines()[:-1]


def test_the_report_holds_the_gates(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "in.jsonl",
        [
            {"question": "Is this a CT or an MRI?", "gt": "CT", "pred": "MRI"},
            {"question": "Is this a CT or an MRI?", "gt": "CT"},
        ],
    )
    report = score_file(
        ScoreRun(input=str(source), output=str(tmp_path / "out.jsonl"), strict=True, fail_under=0.5)
    )
    assert report.exit_code == 1
    # In a fixed order, as the command line prints them: fail-under, min-coverage, strict, judge.
    assert [(g.name, g.passed) for g in report.gates] == [("fail-under", False), ("strict", False)]
    assert report.gates[1].message == "1 error rows (--strict)"
    assert report.summary is not None and report.summary.methods["error"] == 1


def test_a_dry_run_plans_without_calling(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "in.jsonl",
        [{"question": "Is this a CT or an MRI?", "gt": "CT", "pred": "I cannot tell."}],
    )
    report = score_file(
        ScoreRun(
            input=str(source),
            output=str(tmp_path / "out.jsonl"),
            judge=JudgeSettings(model="m", cache=tmp_path / "judge.sqlite3"),
            dry_run=True,
        )
    )
    assert report.plan is not None and report.plan.rows == 1 and report.plan.to_send == 1
    assert report.judge is None and report.batches is None


def test_field_names_and_kinds_pass_through(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "in.jsonl",
        [
            {"q": "Is there a fracture?", "a": "yes", "p": "Yes."},
            {"q": "Is this a CT or an MRI?", "a": "CT", "p": "CT"},
        ],
    )
    out = tmp_path / "out.jsonl"
    score_file(
        ScoreRun(
            input=str(source),
            output=str(out),
            fields=FieldMap(question="q", gt="a", pred="p"),
            kinds=["two_option"],
        )
    )
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["method"] for r in got] == ["unresolved", "rule"]


@pytest.mark.parametrize(
    ("run", "message"),
    [
        pytest.param({"kinds": ["three_option"]}, "three_option", id="kinds"),
        pytest.param({"dry_run": True}, "need --judge-model", id="dry-run-without-judge"),
        pytest.param({"input": "/no/such/file.jsonl"}, "cannot read", id="missing-input"),
    ],
)
def test_a_run_that_cannot_start_raises(
    tmp_path: Path, run: dict[str, object], message: str
) -> None:
    spec = {"input": str(_write(tmp_path / "in.jsonl", [])), "output": str(tmp_path / "o.jsonl")}
    with pytest.raises(VqagradeError, match=message):
        score_file(ScoreRun(**{**spec, **run}))


def test_gc_tuning_restores_the_previous_thresholds() -> None:
    before = gc.get_threshold()
    with gc_tuned(freeze=True):
        assert gc.get_threshold() == GC_THRESHOLDS
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), gc_tuned():
        raise RuntimeError
    assert gc.get_threshold() == before


@pytest.mark.parametrize(
    "args",
    [
        ["score", "/no/such/file.jsonl"],
        ["audit", "/no/such/file.jsonl", "--judge-field", "judge"],
        ["report", "/no/such/file.jsonl", "-o", "/tmp/never.html"],
        ["bench", "/no/such/file.jsonl"],
        ["explain", "Q or R?", "Q", "Q", "--lexicon", "/no/such/lexicon.toml"],
    ],
    ids=["score", "audit", "report", "bench", "explain"],
)
def test_every_command_fails_the_same_way(args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("vqagrade: "), result.stderr


def test_a_dry_run_counts_what_the_cache_already_holds(tmp_path: Path) -> None:
    from vqagrade.judge import Judge, JudgeConfig, JudgeRequest
    from vqagrade.judge.cache import Entry

    question, gt, pred = "Is this a CT or an MRI?", "CT", "I cannot tell."
    source = _write(tmp_path / "in.jsonl", [{"question": question, "gt": gt, "pred": pred}])
    cache = tmp_path / "judge.sqlite3"
    config = JudgeConfig(model="m", base_url="http://dry-run.invalid/v1", cache_path=cache)
    with Judge(config) as judge:
        key = judge._key(JudgeRequest(question=question, gt=gt, pred=pred))
        assert judge._cache is not None
        judge._cache.put(key, Entry("m", "gpt", "{ score: 1 }", 1.0, "stop", 1, 1, 0.1))
    report = score_file(
        ScoreRun(
            input=str(source),
            output=str(tmp_path / "out.jsonl"),
            judge=JudgeSettings(model="m", cache=cache),
            dry_run=True,
        )
    )
    assert report.plan is not None and (report.plan.cached, report.plan.to_send) == (1, 0)


# ---- what main's command line did, now one call from Python -------------------------------

KIDNEY = "Is the lesion in the left or right kidney?"


def test_groups_coverage_and_the_min_coverage_gate(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "in.jsonl",
        [
            {"question": KIDNEY, "gt": "left", "pred": "left", "meta": {"model": "a"}},
            {"question": KIDNEY, "gt": "left", "pred": "could be either", "meta": {"model": "a"}},
            {"question": KIDNEY, "gt": "left", "pred": "right", "meta": {"model": "b"}},
        ],
    )
    report = score_file(
        ScoreRun(
            input=str(source),
            output=str(tmp_path / "out.jsonl"),
            group_by=["meta.model"],
            min_coverage=0.9,
        )
    )
    s = report.summary
    assert s is not None and (s.rows, s.decided, s.by) == (3, 2, ("meta.model",))
    assert s.groups["a"].coverage == 0.5 and s.groups["b"].mean == 0.0
    assert s.figures.coverage_ci is not None and s.reasons
    assert [(g.name, g.passed) for g in report.gates] == [("min-coverage", False)]
    assert report.exit_code == 1
    assert "by meta.model" in s.render()


def test_junit_summary_mode_holds_one_testcase_per_gate(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.jsonl", [{"question": KIDNEY, "gt": "left", "pred": "left"}])
    junit = tmp_path / "junit.xml"
    report = score_file(
        ScoreRun(
            input=str(source),
            output=str(tmp_path / "out.jsonl"),
            junit=junit,
            fail_under=0.5,
            strict=True,
        )
    )
    assert report.exit_code == 0
    xml = junit.read_text()
    assert 'name="fail-under"' in xml and 'name="strict"' in xml and "<failure" not in xml


def test_a_dry_run_lists_the_pending_rows_and_costs_them(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "in.jsonl",
        [
            {"question": KIDNEY, "gt": "left", "pred": "left"},
            {"question": KIDNEY, "gt": "left", "pred": "could be either"},
            {"question": "What organ is this?", "gt": "liver", "pred": "liver"},
        ],
    )
    report = score_file(
        ScoreRun(
            input=str(source),
            judge=JudgeSettings(model="m", use_cache=False),
            dry_run=True,
            price_in=1.0,
            price_out=2.0,
        )
    )
    # The open question is not sent to a two-option prompt (only with judge_all).
    assert report.pending == [(KIDNEY, "left", "could be either")]
    assert report.plan is not None and report.plan.prompt_cost is not None
    assert "cost: prompts" in report.plan.render()


def test_the_output_is_never_the_input_and_field_names_are_checked(tmp_path: Path) -> None:
    from vqagrade import SchemaError
    from vqagrade.errors import OutputError

    source = _write(tmp_path / "in.jsonl", [{"question": KIDNEY, "gt": "left", "pred": "left"}])
    before = source.read_bytes()
    with pytest.raises(OutputError, match="is the input"):
        score_file(ScoreRun(input=str(source), output=str(source)))
    assert source.read_bytes() == before
    with pytest.raises(SchemaError, match="no field .prediction. .--pred-field."):
        score_file(
            ScoreRun(
                input=str(source),
                output=str(tmp_path / "out.jsonl"),
                fields=FieldMap(pred="prediction"),
            )
        )
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(("raw", "cell"), [(False, "'=1+1"), (True, "=1+1")])
def test_csv_formula_cells(tmp_path: Path, raw: bool, cell: str) -> None:
    source = _write(
        tmp_path / "in.jsonl", [{"id": "=1+1", "question": KIDNEY, "gt": "left", "pred": "left"}]
    )
    out = tmp_path / "out.csv"
    score_file(ScoreRun(input=str(source), output=str(out), csv_raw=raw))
    assert out.read_text().splitlines()[1].startswith(cell + ",")


def test_report_file_writes_the_page(tmp_path: Path) -> None:
    from vqagrade.run import ReportRun, report_file

    source = _write(tmp_path / "in.jsonl", [{"question": KIDNEY, "gt": "left", "pred": "left"}])
    graded = tmp_path / "graded.jsonl"
    score_file(ScoreRun(input=str(source), output=str(graded)))
    page = tmp_path / "report.html"
    done = report_file(ReportRun(input=str(graded), output=str(page)))
    assert done.what == "score report of 1 rows" and page.read_text().startswith("<!")
    with pytest.raises(VqagradeError, match="give either"):
        report_file(ReportRun(output=str(page)))
