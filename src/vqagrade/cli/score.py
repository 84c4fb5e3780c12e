"""`vqagrade score`: flags into a `ScoreRun`, `vqagrade.run.score_file`, the report on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..modes import Engine, JUnitMode, PromptChoice, Task
from .app import app, command, fail
from .options import (
    ChoicesField,
    FieldSpecs,
    GroupBy,
    GtField,
    IdField,
    InFormat,
    Lexicons,
    OptionAField,
    OptionBField,
    PredField,
    QuestionField,
    field_map,
    share,
)

if TYPE_CHECKING:
    from ..run import RunReport


JUDGE = "Judge"
SCALE = "Scale"
CI = "CI"


@command(app)
def score(
    input: Annotated[
        str,
        typer.Argument(
            help="Input file (.jsonl/.csv, optionally .gz; .parquet or a folder of them), "
            "hf://datasets/... with huggingface_hub, or - (stdin)."
        ),
    ],
    output: Annotated[
        str, typer.Option("-o", "--output", help="Output file (.jsonl/.csv/.parquet) or -.")
    ] = "-",
    question_field: QuestionField = "question",
    gt_field: GtField = "gt",
    pred_field: PredField = "pred",
    id_field: IdField = "id",
    option_a_field: OptionAField = "option_a",
    option_b_field: OptionBField = "option_b",
    choices_field: ChoicesField = "choices",
    fields_map: FieldSpecs = None,
    group_by: GroupBy = None,
    lexicon: Lexicons = None,
    in_format: InFormat = None,
    out_format: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(help="Output format (jsonl/csv/parquet) when the extension does not tell."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 if any row is an error row.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary on stderr.")] = False,
    judge_model: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="LLM judge model for rows the rules cannot settle.", rich_help_panel=JUDGE
        ),
    ] = None,
    judge_base_url: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="OpenAI-compatible endpoint (vLLM, Ollama, Azure...).", rich_help_panel=JUDGE
        ),
    ] = None,
    judge_prompt: Annotated[
        PromptChoice, typer.Option(help="Which seed prompt to use.", rich_help_panel=JUDGE)
    ] = PromptChoice.gpt,
    judge_prompt_file: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            help="Your own judge prompt (same placeholders as the seeds; see prompts/README.md); "
            "wins over --judge-prompt.",
            rich_help_panel=JUDGE,
        ),
    ] = None,
    judge_api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.", rich_help_panel=JUDGE)
    ] = "OPENAI_API_KEY",
    judge_concurrency: Annotated[
        int, typer.Option(min=1, help="Requests in flight at once.", rich_help_panel=JUDGE)
    ] = 8,
    judge_timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds per request.", rich_help_panel=JUDGE)
    ] = 60.0,
    judge_max_retries: Annotated[
        int, typer.Option(min=0, help="Retries on 429/5xx/timeouts.", rich_help_panel=JUDGE)
    ] = 4,
    cache: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="SQLite judge cache (default: user cache dir).", rich_help_panel=JUDGE),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option("--no-cache", help="Do not read or write the cache.", rich_help_panel=JUDGE),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the judge plan (rows, prompt tokens, cost); call nothing.",
            rich_help_panel=JUDGE,
        ),
    ] = False,
    price_in: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            min=0.0,
            help="Dollars per million prompt tokens (--dry-run cost).",
            rich_help_panel=JUDGE,
        ),
    ] = None,
    price_out: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            min=0.0,
            help="Dollars per million completion tokens (--dry-run cost).",
            rich_help_panel=JUDGE,
        ),
    ] = None,
    judge_all: Annotated[
        bool,
        typer.Option(
            "--judge-all",
            help="Send every row to the judge, also those the rules decided or found not "
            "close-ended.",
            rich_help_panel=JUDGE,
        ),
    ] = False,
    judge_batch: Annotated[
        bool,
        typer.Option(
            "--judge-batch",
            help="Send the unsettled rows as OpenAI Batch API jobs and exit; "
            "'vqagrade batch collect ID' then fills the cache for a re-run.",
            rich_help_panel=JUDGE,
        ),
    ] = False,
    workers: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            min=1,
            help="Grading processes (default: every core, but 1 for inputs under ~50,000 rows).",
            rich_help_panel=SCALE,
        ),
    ] = None,
    engine: Annotated[
        Engine,
        typer.Option(help="local, or ray (pip install 'vqagrade\\[ray]').", rich_help_panel=SCALE),
    ] = Engine.local,
    ray_address: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="Ray cluster address (default: a fresh local Ray).", rich_help_panel=SCALE
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="With --engine ray: replace a non-empty output folder.",
            rich_help_panel=SCALE,
        ),
    ] = False,
    task: Annotated[
        Task,
        typer.Option(help="close: two-option, 0/0.5/1; open: open-ended, 0-5 (Equivalence)."),
    ] = Task.close,
    kinds: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="Question kinds to grade, comma-separated (two_option,yes_no,"
            "multiple_choice); "
            "rows of other kinds come out unresolved. Default: every kind."
        ),
    ] = None,
    fail_under: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            help="Exit 1 when the mean score over decided rows is below this.", rich_help_panel=CI
        ),
    ] = None,
    min_coverage: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            callback=share,
            help="Exit 1 when the share of decided rows (0-1) is below this.",
            rich_help_panel=CI,
        ),
    ] = None,
    junit: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Write JUnit XML here (see --junit-mode).", rich_help_panel=CI),
    ] = None,
    junit_mode: Annotated[
        JUnitMode,
        typer.Option(help="summary: one testcase per gate; rows: one per row.", rich_help_panel=CI),
    ] = JUnitMode.summary,
    csv_raw: Annotated[
        bool,
        typer.Option(
            "--csv-raw",
            help="CSV output: write text cells as they are (by default a cell starting with "
            "= + - @ tab or CR gets a leading ' so spreadsheets do not run it).",
        ),
    ] = False,
) -> None:
    """Grade every row of IN; write each row plus score, method, labels, options, reason."""
    from .. import run as runs

    judge = None
    if judge_model:
        judge = runs.JudgeSettings(
            model=judge_model,
            base_url=judge_base_url,
            prompt=judge_prompt.value,
            prompt_file=judge_prompt_file,
            api_key_env=judge_api_key_env,
            concurrency=judge_concurrency,
            timeout=judge_timeout,
            max_retries=judge_max_retries,
            cache=cache,
            use_cache=not no_cache,
        )
    spec = runs.ScoreRun(
        input=input,
        output=output,
        fields=field_map(
            question_field,
            gt_field,
            pred_field,
            id_field,
            option_a_field,
            option_b_field,
            fields_map,
            choices=choices_field,
        ),
        group_by=group_by or [],
        lexicons=lexicon or [],
        in_format=in_format,
        out_format=out_format,
        csv_raw=csv_raw,
        task=task,
        kinds=None if kinds is None else [k for k in kinds.split(",") if k.strip()],
        judge=judge,
        judge_all=judge_all,
        dry_run=dry_run,
        price_in=price_in,
        price_out=price_out,
        judge_batch=judge_batch,
        workers=workers,
        engine=engine,
        ray_address=ray_address,
        overwrite=overwrite,
        strict=strict,
        fail_under=fail_under,
        min_coverage=min_coverage,
        junit=junit,
        junit_mode=junit_mode,
        progress=False if quiet else None,
    )
    try:
        report = runs.score_file(spec)
    except runs.RunFailed as exc:
        print_report(exc.report, quiet=quiet)
        raise
    print_report(report, quiet=quiet)
    failed = report.failed_gates
    for gate in failed[:-1]:
        _stderr(f"vqagrade: {gate.message}")
    if failed:
        raise fail(failed[-1].message, 1)


def print_report(report: RunReport, *, quiet: bool) -> None:
    """The run's report on stderr, as `vqagrade score` prints it."""
    echo = _stderr
    if report.ray is not None and not quiet:
        r = report.ray
        echo(
            f"ray: {r.rows} rows graded into {r.files} Parquet files in {r.output} "
            f"({r.seconds:.1f} s, {r.rows / max(r.seconds, 1e-9):,.0f} rows/s)"
        )
    for note in report.notes:
        echo(f"vqagrade: {note}")
    if report.summary is not None and not quiet:
        echo(report.summary.render())
        if report.judge is not None:
            echo(report.judge.render())
    if report.batches is not None:
        if not report.batches:
            echo("judge batch: every unsettled row is already cached; re-run without it")
        for b in report.batches:
            echo(
                f"judge batch: submitted {b.id} ({b.total} rows); "
                f"then: vqagrade batch collect {b.id}"
            )
    if report.plan is not None:
        echo(report.plan.render())


def _stderr(line: str) -> None:
    typer.echo(line, err=True)
