"""One scoring run, as `vqagrade score` does it, callable from Python::

    from vqagrade.run import ScoreRun, score_file

    report = score_file(ScoreRun(input="answers.jsonl", output="graded.jsonl"))
    report.summary.mean, report.summary.methods, report.exit_code

The steps: build the grader (rules, and the judge when one is configured, asked once with
``GET /models`` before any row), refuse an output that is an input, check the input's field
names on its first rows, stream the rows through the grader (in worker processes when the
input is big) into the writer (complete or absent: see `vqagrade.io.atomic`), tally the
summary (per ``group_by`` group too), check the CI gates and write the JUnit file, then the
after-steps a run may ask for: the dry-run plan with its cost, the Batch API submission. The
command line only parses flags into a `ScoreRun` and prints the `RunReport`.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from .contract import FieldMap, JudgeItem
from .errors import VqagradeError
from .judge.records import JudgePlan, JudgeStats
from .modes import Engine, JUnitMode, Task
from .reports.gates import Gate
from .reports.summary import SummaryFigures

if TYPE_CHECKING:
    from .grader import Grader
    from .judge import Judge
    from .judge.records import JudgeRequest
    from .open_task import OpenGrader

__all__ = [
    "BatchJob",
    "Engine",
    "Gate",
    "JUnitMode",
    "JudgeSettings",
    "RayReport",
    "ReportDone",
    "ReportRun",
    "RunFailed",
    "RunReport",
    "ScoreRun",
    "Task",
    "report_file",
    "score_file",
]


class JudgeSettings(BaseModel):
    """The LLM judge of a run (see `vqagrade.judge.JudgeConfig` for each field)."""

    model_config = ConfigDict(extra="forbid")

    model: str
    base_url: str | None = None
    prompt: str = "gpt"
    """A shipped prompt: gpt or mistral (close task); the open task always uses equivalence."""
    prompt_file: Path | None = None
    """The user's own judge prompt; wins over `prompt` (see prompts/README.md)."""
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 4
    cache: Path | None = None
    use_cache: bool = True


class ScoreRun(BaseModel):
    """Everything one `vqagrade score` run is told (the command line's flags)."""

    model_config = ConfigDict(extra="forbid")

    input: str
    """A .jsonl/.csv (optionally .gz) or Parquet file or folder, an fsspec URL
    (``hf://datasets/...``), or ``-`` for stdin."""
    output: str = "-"
    """A .jsonl/.csv/.parquet file or ``-`` (stdout); never one of the inputs."""
    fields: FieldMap = Field(default_factory=FieldMap)
    group_by: list[str] = Field(default_factory=list)
    """Fields (dotted paths: ``meta.model``) to report figures per value of."""
    lexicons: list[Path] = Field(default_factory=list)
    in_format: str | None = None
    out_format: str | None = None
    csv_raw: bool = False
    """CSV output: text cells as they are (by default a cell starting with = + - @ tab or CR
    gets a leading ' so that spreadsheets do not run it)."""
    task: Task = Task.close
    kinds: list[str] | None = None
    """Question kinds to grade (`QuestionKind` values); rows of others come out unresolved."""
    judge: JudgeSettings | None = None
    judge_all: bool = False
    dry_run: bool = False
    """Grade by the rules, call nothing, and plan what the judge would get (`RunReport.plan`);
    the rows go to `output` only when it is a file."""
    price_in: float | None = None
    """Dollars per million prompt tokens, to cost the dry run's plan."""
    price_out: float | None = None
    """Dollars per million completion tokens, to cost the dry run's plan."""
    judge_batch: bool = False
    workers: int | None = None
    """Grading processes; default: `engines.processes.auto_workers`."""
    engine: Engine = Engine.local
    ray_address: str | None = None
    overwrite: bool = False
    strict: bool = False
    """Gate: no error rows."""
    fail_under: float | None = None
    """Gate: the mean score over decided rows is at least this."""
    min_coverage: float | None = None
    """Gate: the share of decided rows (0-1) is at least this."""
    junit: Path | None = None
    junit_mode: JUnitMode = JUnitMode.summary
    """What the JUnit file holds: one testcase per gate, or one per row."""
    progress: bool | None = None
    """Draw a progress bar on stderr; default: when stderr is a terminal."""


class BatchJob(BaseModel):
    """One Batch API job the run submitted."""

    id: str
    total: int


class RayReport(BaseModel):
    """What a run on Ray wrote."""

    output: str
    rows: int
    files: int
    seconds: float


class RunReport(BaseModel):
    """What a run did: its figures, the judge's work, and what the after-steps found."""

    summary: SummaryFigures | None = None
    """None for a run on Ray (its figures are in `ray`)."""
    judge: JudgeStats | None = None
    plan: JudgePlan | None = None
    """The dry run's plan: what the judge would get."""
    pending: list[JudgeItem] | None = None
    """A dry run's or a Batch API run's rows for the judge (question, gt, pred), in order."""
    batches: list[BatchJob] | None = None
    """The Batch API jobs submitted (empty: every unsettled row was cached)."""
    gates: list[Gate] = Field(default_factory=list)
    """The CI gates checked, in order: fail-under, min-coverage, strict, judge (every judge
    call failed)."""
    ray: RayReport | None = None
    notes: list[str] = Field(default_factory=list)
    """Things the user should know about how the run went."""

    @property
    def failed_gates(self) -> list[Gate]:
        """The gates that failed, in order."""
        return [g for g in self.gates if not g.passed]

    @property
    def exit_code(self) -> int:
        """What the command line exits with: 1 when a gate failed, else 0."""
        return 1 if self.failed_gates else 0


class RunFailed(VqagradeError):
    """The rows were graded but a later step failed; `report` holds what was done."""

    def __init__(self, message: str, report: RunReport) -> None:
        super().__init__(message)
        self.report = report


def score_file(run: ScoreRun) -> RunReport:
    """Grade every row of `run.input` into `run.output`, as `vqagrade score` does.

    Args:
        run: what to grade, where to write it, and how.

    Returns:
        The run's report; `exit_code` says whether a CI gate failed.

    Raises:
        VqagradeError: the run could not start (the judge's endpoint cannot be reached, the
            output is an input, a field is in none of the first rows: `SchemaError`) or its
            rows could not be read or written (`RunFailed`, holding the report, when only an
            after-step failed).
    """
    from .io.atomic import install_signal_cleanup
    from .kinds import parse_kinds

    install_signal_cleanup()  # SIGTERM: partial outputs removed, workers shut down
    if run.kinds is not None:
        try:
            parse_kinds(run.kinds)
        except ValueError as exc:
            raise VqagradeError(str(exc)) from None
    if run.engine is Engine.ray:
        if run.kinds is not None:
            raise VqagradeError("--kinds is not supported with --engine ray; use the local engine")
        return _score_on_ray(run)
    if run.judge is None and (run.dry_run or run.judge_all or run.judge_batch):
        raise VqagradeError("--dry-run, --judge-all and --judge-batch need --judge-model")
    if run.judge_batch and run.judge is not None and run.judge.prompt_file is not None:
        # `batch collect` reads replies with the prompt named in the batch: a shipped one.
        raise VqagradeError("--judge-batch does not take --judge-prompt-file yet")
    judge = _judge(run) if run.judge is not None else None
    try:
        return _score_locally(run, judge)
    finally:
        if judge is not None:
            judge.close()


def _score_locally(run: ScoreRun, judge: Judge | None) -> RunReport:
    from .engines.arrow import writer_hint
    from .engines.gc_tuning import gc_tuned
    from .engines.processes import auto_workers, grade_parallel
    from .io.atomic import check_outputs
    from .io.rows import count_rows, detect_format, open_writer, read_rows
    from .judge.queue import JudgeQueueStats, collect_pending, rule_items
    from .kinds import judge_triple
    from .progress import progress
    from .reports.gates import run_gates
    from .reports.summary import Summary
    from .schema import require_fields

    offline = run.dry_run or run.judge_batch  # grade by the rules now, collect rows for the judge
    fallback = None
    if judge is not None and not offline:
        from .judge.adapter import JudgeFallback

        fallback = JudgeFallback(judge)
        judge.preflight()  # one cheap call first: an unreachable endpoint fails now, not row by row
    lexicons = [str(p) for p in run.lexicons]
    fields = run.fields
    grader: Grader | OpenGrader
    if run.task is Task.open:
        from .open_task import OpenGrader

        grader = OpenGrader(
            lexicons=lexicons, judge=fallback, judge_all=run.judge_all, fields=fields
        )
    else:
        from .grader import Grader

        grader = Grader(
            lexicons=lexicons,
            fields=fields,
            judge=fallback,
            judge_all=run.judge_all,
            kinds=run.kinds,
        )
    workers = auto_workers(run.workers, run.input)
    by = tuple(run.group_by)
    summary = Summary(by=by)
    pending: list[JudgeItem] = []
    queue = JudgeQueueStats()
    junit_writer = None
    with contextlib.ExitStack() as stack:
        check_outputs([run.input], [run.output, run.junit])
        if run.junit is not None:
            from .reports.junit import JUnitWriter

            junit_writer = JUnitWriter(
                run.junit,
                full_marks=5 if run.task is Task.open else 1,
                id_field=fields.id,
                question_field=fields.question,
                gt_field=fields.gt,
                pred_field=fields.pred,
                group_by=by,
            )
            stack.callback(junit_writer.abort)  # no report of a run that did not finish
        opened = read_rows(run.input, run.in_format)
        stack.callback(opened.close)  # the input is released even if the output cannot open
        rows = require_fields(opened, fields)  # wrong field names: fail now, not error rows
        if offline and run.task is Task.close:
            # The rules' own choice of rows for the judge (not the ones they found open).
            stream = collect_pending(rule_items(grader, rows), pending)
        elif run.task is Task.open or workers == 1 and fallback is None:
            stream = grader.grade_rows(rows)
        else:
            stream = grade_parallel(
                rows,
                workers=workers,
                lexicons=lexicons,
                fields=fields,
                judge=fallback,
                judge_all=run.judge_all,
                kinds=run.kinds,
                judge_stats=queue,
            )
        total = count_rows(run.input, run.in_format) if run.input != "-" else None
        stack.enter_context(gc_tuned(freeze=True))
        plan_only = run.dry_run and run.output == "-"  # a dry run prints its plan, not the rows
        with (
            open_writer(
                os.devnull if plan_only else run.output,
                "jsonl" if plan_only else run.out_format,
                # CSV/Parquet columns must not depend on which rows come first.
                fieldnames_hint=writer_hint(
                    detect_format(run.input, run.in_format), judge=fallback is not None
                ),
                csv_raw=run.csv_raw,
            ) as writer,
            progress(
                total,
                enabled=run.progress,
                judge_in_flight=(lambda: queue.in_flight) if fallback is not None else None,
            ) as bar,
        ):
            rows_junit = junit_writer if run.junit_mode is JUnitMode.rows else None
            if rows_junit is None and not offline and not bar.enabled and not by:
                # The plain run: nothing else to do per row, so nothing else is looked up.
                write, add = writer.write, summary.add
                for out in stream:
                    write(out)
                    add(out)
            else:
                q, g, p = fields.question, fields.gt, fields.pred
                for out in stream:
                    writer.write(out)
                    summary.add(out)
                    bar.advance()
                    if rows_junit is not None:
                        rows_junit.add(out)
                    if (
                        offline
                        and run.task is Task.open
                        and out.get("method") != "error"
                        and (run.judge_all or out.get("method") == "unresolved")
                    ):
                        pending.append(
                            judge_triple(out, str(out.get(q)), str(out.get(g)), str(out.get(p)))
                        )
        summary.finish()
        gates = run_gates(
            summary,
            fail_under=run.fail_under,
            min_coverage=run.min_coverage,
            strict=run.strict,
            judge_stats=judge.stats if judge is not None and fallback is not None else None,
        )
        if junit_writer is not None:
            if run.junit_mode is JUnitMode.summary:
                junit_writer.add_gates(gates, summary)
            junit_writer.close()
    report = RunReport(summary=summary.record(), gates=gates)
    if judge is not None and not run.dry_run:
        report.judge = judge.stats.model_copy()
    if judge is not None and offline:
        report.pending = pending
    if judge is not None and run.judge_batch:
        report.batches = _submit_batch(judge, pending, report)
    if judge is not None and run.dry_run:
        plan = judge.plan([_request(t) for t in pending])
        report.plan = plan.priced(run.price_in, run.price_out)
    return report


def _request(item: JudgeItem) -> JudgeRequest:
    from .judge import JudgeRequest

    return JudgeRequest.of(item)


def _submit_batch(judge: Judge, pending: list[JudgeItem], report: RunReport) -> list[BatchJob]:
    from .judge.batch import submit

    try:
        batches = submit(judge, [_request(t) for t in pending])
    except VqagradeError as exc:
        raise RunFailed(str(exc), report) from None
    return [BatchJob(id=b.id, total=b.total) for b in batches]


def _judge(run: ScoreRun) -> Judge:
    from .judge import Judge, JudgeConfig

    settings = run.judge
    assert settings is not None
    base_url = settings.base_url
    if run.dry_run and base_url is None:
        # A dry run sends nothing, so it needs no key; the cache is still consulted.
        base_url = "http://dry-run.invalid/v1"
    return Judge(
        JudgeConfig(
            model=settings.model,
            base_url=base_url,
            prompt="equivalence" if run.task is Task.open else settings.prompt,
            prompt_file=settings.prompt_file,
            api_key_env=settings.api_key_env,
            concurrency=settings.concurrency,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
            cache_path=settings.cache,
            use_cache=settings.use_cache,
        )
    )


def _score_on_ray(run: ScoreRun) -> RunReport:
    import sys

    try:
        from .engines.ray import run_ray
    except ImportError:
        raise VqagradeError("the ray engine needs Ray: pip install 'vqagrade[ray]'") from None
    try:
        done = run_ray(
            run.input,
            run.output,
            address=run.ray_address,
            overwrite=run.overwrite,
            fields=run.fields,
            lexicons=[str(p) for p in run.lexicons],
            in_format=run.in_format,
            progress=sys.stderr.isatty() if run.progress is None else run.progress,
        )
    except ImportError:
        raise VqagradeError("the ray engine needs Ray: pip install 'vqagrade[ray]'") from None
    report = RunReport(
        ray=RayReport(output=done.output, rows=done.rows, files=done.files, seconds=done.seconds)
    )
    if run.judge is not None:
        report.notes.append(
            "the ray engine grades by the rules only; judge its unresolved rows "
            "with the local engine"
        )
    return report


class ReportRun(BaseModel):
    """Everything one `vqagrade report` run is told: the rows to report on and where to write
    the page."""

    model_config = ConfigDict(extra="forbid")

    input: str | None = None
    """Output of `vqagrade score`, or disagreements of `vqagrade audit -o` (or ``-``)."""
    output: str = "report.html"
    """The HTML file, written whole or not at all."""
    audit: str | None = None
    """Instead of `input`: rows an LLM judge already scored, audited against the rules now."""
    judge_field: str | None = None
    """With `audit`: the field holding the judge's score or reply."""
    title: str | None = None
    fields: FieldMap = Field(default_factory=FieldMap)
    group_by: list[str] = Field(default_factory=list)
    """Fields (dotted paths) to chart figures per value of (a score report)."""
    lexicons: list[Path] = Field(default_factory=list)
    in_format: str | None = None

    def check(self) -> None:
        """Raise `VqagradeError` unless exactly one of `input` and `audit` is given (`audit`
        with its `judge_field`)."""
        if (self.input is None) == (self.audit is None):
            raise VqagradeError("give either an input file or --audit IN --judge-field FIELD")
        if self.audit is not None and not self.judge_field:
            raise VqagradeError("--audit needs --judge-field")


class ReportDone(BaseModel):
    """What `report_file` wrote."""

    output: str
    what: str
    """What the page reports on: ``score report of 22 rows``, ``audit of 30 rows, 4
    disagreements``."""


def report_file(run: ReportRun) -> ReportDone:
    """Write one self-contained HTML report of a scoring run or a judge audit, as
    `vqagrade report` does (the page appears only once it is whole).

    Raises:
        VqagradeError: the run is misconfigured, or its input cannot be read or its output
            written.
    """
    from .errors import OutputError
    from .io.atomic import write_text_atomic
    from .reports.html import report_from_audit, report_from_file

    run.check()
    fields = run.fields
    if run.audit is not None:
        from .grader import Grader

        assert run.judge_field is not None
        grader = Grader(lexicons=[str(p) for p in run.lexicons], fields=fields)
        html, result = report_from_audit(
            run.audit, run.judge_field, grader, run.in_format, title=run.title
        )
        what = f"audit of {result.stats.rows} rows, {result.stats.disagreements} disagreements"
    else:
        assert run.input is not None
        names = (fields.id, fields.question, fields.gt, fields.pred)
        html, kind, n = report_from_file(
            run.input, run.in_format, title=run.title, fields=names, by=tuple(run.group_by)
        )
        what = f"{kind} report of {n} rows"
    try:
        write_text_atomic(run.output, html)
    except OSError as exc:
        raise OutputError(f"cannot write {run.output}: {exc.strerror or exc}") from None
    return ReportDone(output=run.output, what=what)
