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
