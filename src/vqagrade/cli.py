"""The `vqagrade` command line: a thin shell over the library.

Heavy modules are imported inside the commands so that `vqagrade --help` starts fast.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

if TYPE_CHECKING:
    from .grader import Grader
    from .records import AnswerTrace, Grade

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Grade close-ended two-option biomedical VQA answers: rules first, a judge for the rest.",
)
cache_app = typer.Typer(no_args_is_help=True, help="Inspect or clear the judge cache.")
app.add_typer(cache_app, name="cache")

# Input field names, shared by every command that reads rows.
QuestionField = Annotated[str, typer.Option(help="Field holding the question.")]
GtField = Annotated[str, typer.Option(help="Field holding the ground truth.")]
PredField = Annotated[str, typer.Option(help="Field holding the prediction.")]
IdField = Annotated[str, typer.Option(help="Field holding the row id.")]
OptionAField = Annotated[str, typer.Option(help="Field with explicit option A.")]
OptionBField = Annotated[str, typer.Option(help="Field with explicit option B.")]

InFormat = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(help="Input format (jsonl/csv/parquet) when the extension does not tell."),
]
FieldSpecs = Annotated[
    Optional[list[str]],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(
        "--map",
        help="Input field = role, comma-separated or repeated: --map answer=gt "
        "--map model_output=pred (roles: question, gt, pred, id, option_a, option_b).",
    ),
]
GroupBy = Annotated[
    Optional[list[str]],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(
        "--group-by",
        help="Report figures per value of this field (dotted paths: meta.model; repeatable).",
    ),
]


class JUnitMode(str, Enum):
    """What the JUnit file holds."""

    summary = "summary"
    """One testcase per gate (--fail-under, --min-coverage, --strict, the judge)."""
    rows = "rows"
    """One testcase per row (a failure below full marks)."""


Lexicons = Annotated[
    Optional[list[Path]],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option("--lexicon", help="Extra lexicon TOML file (repeatable); extends the shipped."),
]


class Task(str, Enum):
    """What kind of answers `score` grades."""

    close = "close"
    """Two-option questions, 0 / 0.5 / 1 by the truth table (judge prompts gpt/mistral)."""
    open = "open"
    """Open-ended answers, 0-5 (rules for the certain cases, the Equivalence judge for the rest)."""


class Engine(str, Enum):
    """Where grading runs."""

    local = "local"
    ray = "ray"


class PromptChoice(str, Enum):
    """The judge prompts for two-option grading (the user's seeds 000 and 001)."""

    gpt = "gpt"
    mistral = "mistral"


def _field_map(
    question: str,
    gt: str,
    pred: str,
    id: str,
    option_a: str,
    option_b: str,
    specs: list[str] | None = None,
) -> Any:
    """The input field names given on the command line (--map wins over --X-field)."""
    from .errors import VqagradeError
    from .records import FieldMap
    from .schema import parse_map

    fields = FieldMap(
        question=question, gt=gt, pred=pred, id=id, option_a=option_a, option_b=option_b
    )
    try:
        return parse_map(specs or [], fields)
    except VqagradeError as exc:
        raise _fail(str(exc)) from None


def _share(value: float | None) -> float | None:
    """A share between 0 and 1 (checked here: a range in the help text would be cut)."""
    if value is not None and not 0.0 <= value <= 1.0:
        raise typer.BadParameter(f"{value:g} is not between 0 and 1")
    return value


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"vqagrade: {message}", err=True)
    return typer.Exit(code)


def _grader(lexicons: list[Path] | None, **kwargs: Any) -> Grader:
    from .errors import VqagradeError
    from .grader import Grader

    try:
        return Grader(lexicons=[str(p) for p in lexicons or []], **kwargs)
    except VqagradeError as exc:
        raise _fail(str(exc)) from None


@app.command()
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
            help="LLM judge model for rows the rules cannot settle.", rich_help_panel="Judge"
        ),
    ] = None,
    judge_base_url: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="OpenAI-compatible endpoint (vLLM, Ollama, Azure...).", rich_help_panel="Judge"
        ),
    ] = None,
    judge_prompt: Annotated[
        PromptChoice, typer.Option(help="Which seed prompt to use.", rich_help_panel="Judge")
    ] = PromptChoice.gpt,
    judge_api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.", rich_help_panel="Judge")
    ] = "OPENAI_API_KEY",
    judge_concurrency: Annotated[
        int, typer.Option(min=1, help="Requests in flight at once.", rich_help_panel="Judge")
    ] = 8,
    judge_timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds per request.", rich_help_panel="Judge")
    ] = 60.0,
    judge_max_retries: Annotated[
        int, typer.Option(min=0, help="Retries on 429/5xx/timeouts.", rich_help_panel="Judge")
    ] = 4,
    cache: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="SQLite judge cache (default: user cache dir).", rich_help_panel="Judge"),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option("--no-cache", help="Do not read or write the cache.", rich_help_panel="Judge"),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the judge plan (rows, prompt tokens, cost); call nothing.",
            rich_help_panel="Judge",
        ),
    ] = False,
    price_in: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            min=0.0,
            help="Dollars per million prompt tokens (--dry-run cost).",
            rich_help_panel="Judge",
        ),
    ] = None,
    price_out: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            min=0.0,
            help="Dollars per million completion tokens (--dry-run cost).",
            rich_help_panel="Judge",
        ),
    ] = None,
    judge_all: Annotated[
        bool,
        typer.Option(
            "--judge-all",
            help="Send every row to the judge, also those the rules decided or found not "
            "close-ended.",
            rich_help_panel="Judge",
        ),
    ] = False,
    judge_batch: Annotated[
        bool,
        typer.Option(
            "--judge-batch",
            help="Send the unsettled rows as OpenAI Batch API jobs and exit; "
            "'vqagrade batch collect ID' then fills the cache for a re-run.",
            rich_help_panel="Judge",
        ),
    ] = False,
    workers: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            min=1,
            help="Grading processes (default: every core for inputs over 5 MB, else 1).",
            rich_help_panel="Scale",
        ),
    ] = None,
    engine: Annotated[
        Engine,
        typer.Option(
            help="local, or ray (pip install 'vqagrade\\[ray]').", rich_help_panel="Scale"
        ),
    ] = Engine.local,
    ray_address: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="Ray cluster address (default: a fresh local Ray).", rich_help_panel="Scale"
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="With --engine ray: replace a non-empty output folder.",
            rich_help_panel="Scale",
        ),
    ] = False,
    task: Annotated[
        Task,
        typer.Option(help="close: two-option, 0/0.5/1; open: open-ended, 0-5 (Equivalence)."),
    ] = Task.close,
    kinds: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="Question kinds to grade, comma-separated (two_option,yes_no); "
            "rows of other kinds come out unresolved. Default: every kind."
        ),
    ] = None,
    fail_under: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            help="Exit 1 when the mean score over decided rows is below this.", rich_help_panel="CI"
        ),
    ] = None,
    min_coverage: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            callback=_share,
            help="Exit 1 when the share of decided rows (0-1) is below this.",
            rich_help_panel="CI",
        ),
    ] = None,
    junit: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Write JUnit XML here (see --junit-mode).", rich_help_panel="CI"),
    ] = None,
    junit_mode: Annotated[
        JUnitMode,
        typer.Option(
            help="summary: one testcase per gate; rows: one per row.", rich_help_panel="CI"
        ),
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
    from .errors import VqagradeError
    from .io.rows import open_writer, read_rows
    from .kinds import judge_triple
    from .reports.summary import Summary

    fields = _field_map(
        question_field, gt_field, pred_field, id_field, option_a_field, option_b_field, fields_map
    )
    kind_list = _kinds(kinds)
    if engine is Engine.ray and kind_list is not None:
        raise _fail("--kinds is not supported with --engine ray; use the local engine")
    if engine is Engine.ray:
        _score_on_ray(input, output, ray_address, overwrite, fields, lexicon, in_format, quiet)
        if judge_model:
            typer.echo(
                "vqagrade: the ray engine grades by the rules only; judge its unresolved rows "
                "with the local engine",
                err=True,
            )
        return
    offline = dry_run or judge_batch  # grade by the rules now, collect rows for the judge
    judge = None
    if judge_model:
        judge = _judge(
            judge_model,
            judge_base_url,
            "equivalence" if task is Task.open else judge_prompt.value,
            judge_api_key_env,
            judge_concurrency,
            judge_timeout,
            judge_max_retries,
            cache,
            no_cache,
            dry_run,
        )
    elif dry_run or judge_all or judge_batch:
        raise _fail("--dry-run, --judge-all and --judge-batch need --judge-model")
    fallback = None
    if judge is not None and not offline:
        from .judge.adapter import JudgeFallback

        fallback = JudgeFallback(judge)
        try:  # one cheap call first: an unreachable endpoint fails now, not row by row
            judge.preflight()
        except VqagradeError as exc:
            judge.close()
            raise _fail(str(exc)) from None
    if task is Task.open:
        from .open_task import OpenGrader

        try:
            grader: Any = OpenGrader(
                lexicons=[str(p) for p in lexicon or []],
                judge=fallback,
                judge_all=judge_all,
                fields=fields,
            )
        except VqagradeError as exc:
            raise _fail(str(exc)) from None
    else:
        grader = _grader(
            lexicon, fields=fields, judge=fallback, judge_all=judge_all, kinds=kind_list
        )
    n_workers = workers or _default_workers(input)
    summary = Summary(by=group_by or ())
    pending: list[tuple[str, str, str]] = []
    junit_writer = None
    stack = contextlib.ExitStack()
    try:
        from .io.atomic import check_outputs

        check_outputs([input], [output, junit])
        if junit is not None:
            from .reports.junit import JUnitWriter

            junit_writer = JUnitWriter(
                junit,
                full_marks=5 if task is Task.open else 1,
                id_field=fields.id,
                question_field=fields.question,
                gt_field=fields.gt,
                pred_field=fields.pred,
                group_by=group_by or (),
            )
            stack.callback(junit_writer.abort)  # no report of a run that did not finish
        from .engines.arrow import writer_hint
        from .io.rows import count_rows, detect_format
        from .judge.queue import JudgeQueueStats
        from .progress import progress
        from .schema import require_fields

        opened = read_rows(input, in_format)
        stack.callback(opened.close)  # the input is released even if the output cannot open
        rows = require_fields(opened, fields)  # wrong field names: exit 2 now, not error rows
        queue = JudgeQueueStats()
        if offline and task is Task.close:
            from .judge.queue import collect_pending, rule_items

            # The rules' own choice of rows for the judge (not the ones they found open).
            stream = collect_pending(rule_items(grader, rows, judge_all=judge_all), pending)
        elif task is Task.open or n_workers == 1 and fallback is None:
            stream = grader.grade_rows(rows)
        else:
            from .engines.processes import grade_parallel

            stream = grade_parallel(
                rows,
                workers=n_workers,
                lexicons=[str(p) for p in lexicon or []],
                fields=fields,
                judge=fallback,
                judge_all=judge_all,
                kinds=kind_list,
                judge_stats=queue,
            )
        total = count_rows(input, in_format) if input != "-" else None
        # The memos hold many long-lived objects that every full collection would walk again,
        # and what a row allocates is freed by reference counting: collect rarely (measured:
        # about a quarter off the run time).
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        with (
            open_writer(
                # A dry run prints its plan, not the rows; a file named with -o is written.
                os.devnull if dry_run and output == "-" else output,
                "jsonl" if dry_run and output == "-" else out_format,
                # CSV/Parquet columns must not depend on which rows come first.
                fieldnames_hint=writer_hint(
                    detect_format(input, in_format), judge=fallback is not None
                ),
                csv_raw=csv_raw,
            ) as writer,
            progress(
                total,
                enabled=False if quiet else None,
                judge_in_flight=(lambda: queue.in_flight) if fallback is not None else None,
            ) as bar,
        ):
            rows_junit = junit_writer if junit_mode is JUnitMode.rows else None
            if rows_junit is None and not offline and not bar.enabled and not group_by:
                # The plain run: nothing else to do per row, so nothing else is looked up.
                write, add = writer.write, summary.add
                for out in stream:
                    write(out)
                    add(out)
            else:
                for out in stream:
                    writer.write(out)
                    summary.add(out)
                    bar.advance()
                    if rows_junit is not None:
                        rows_junit.add(out)
                    if (
                        offline
                        and task is Task.open
                        and out.get("method") != "error"
                        and (judge_all or out.get("method") == "unresolved")
                    ):
                        pending.append(judge_triple(out, *_triple(out, fields)))
        summary.finish()
        from .reports.gates import run_gates

        gates = run_gates(
            summary,
            fail_under=fail_under,
            min_coverage=min_coverage,
            strict=strict,
            judge_stats=judge.stats if judge is not None and fallback is not None else None,
        )
        if junit_writer is not None:
            if junit_mode is JUnitMode.summary:
                junit_writer.add_gates(gates, summary)
            junit_writer.close()
    except VqagradeError as exc:
        raise _fail(str(exc)) from None
    finally:
        stack.close()
        if judge is not None:
            judge.close()
    if not quiet:
        typer.echo(summary.render(), err=True)
        if judge is not None and not dry_run:
            typer.echo(judge.stats.render(), err=True)
    if judge_batch and judge is not None:
        _submit_batch(judge, pending)
    if dry_run and judge is not None:
        from .judge import JudgeRequest

        plan = judge.plan([JudgeRequest(question=q, gt=g, pred=p) for q, g, p in pending])
        typer.echo(plan.priced(price_in, price_out).render(), err=True)
    failed = [g for g in gates if not g.passed]
    for gate in failed[:-1]:
        typer.echo(f"vqagrade: {gate.message}", err=True)
    if failed:
        raise _fail(failed[-1].message, 1)


def _kinds(kinds: str | None) -> list[str] | None:
    """The --kinds names, checked (exit 2 on an unknown one)."""
    if kinds is None:
        return None
    from .kinds import parse_kinds

    names = [k for k in kinds.split(",") if k.strip()]
    try:
        parse_kinds(names)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    return names


def _default_workers(input: str) -> int:
    """Every core for big inputs; one process (no start-up cost) for small ones.

    Measured on the 1M-row JSONL workload on 2 cores: one process 54 s, 2 workers 30 s.
    """
    import os

    from .engines.processes import default_workers

    try:
        big = input != "-" and os.path.getsize(input) > 5_000_000
    except OSError:
        big = False
    return default_workers() if big else 1


def _score_on_ray(
    input: str,
    output: str,
    address: str | None,
    overwrite: bool,
    fields: Any,
    lexicon: list[Path] | None,
    in_format: str | None,
    quiet: bool,
) -> None:
    from .errors import VqagradeError

    try:
        from .engines.ray import run_ray

        run = run_ray(
            input,
            output,
            address=address,
            overwrite=overwrite,
            fields=fields,
            lexicons=[str(p) for p in lexicon or []],
            in_format=in_format,
            progress=sys.stderr.isatty() and not quiet,
        )
    except ImportError:
        raise _fail("the ray engine needs Ray: pip install 'vqagrade[ray]'") from None
    except VqagradeError as exc:
        raise _fail(str(exc)) from None
    if not quiet:
        typer.echo(
            f"ray: {run.rows} rows graded into {run.files} Parquet files in {run.output} "
            f"({run.seconds:.1f} s, {run.rows / max(run.seconds, 1e-9):,.0f} rows/s)",
            err=True,
        )


def _submit_batch(judge: Any, pending: list[tuple[str, str, str]]) -> None:
    from .errors import VqagradeError
    from .judge import JudgeRequest
    from .judge.batch import submit

    try:
        batches = submit(judge, [JudgeRequest(question=q, gt=g, pred=p) for q, g, p in pending])
    except VqagradeError as exc:
        raise _fail(str(exc)) from None
    if not batches:
        typer.echo(
            "judge batch: every unsettled row is already cached; re-run without it", err=True
        )
    for b in batches:
        typer.echo(
            f"judge batch: submitted {b.id} ({b.total} rows); then: vqagrade batch collect {b.id}",
            err=True,
        )


def _triple(row: dict[str, Any], fields: Any) -> tuple[str, str, str]:
    return (str(row.get(fields.question)), str(row.get(fields.gt)), str(row.get(fields.pred)))


def _judge(
    model: str,
    base_url: str | None,
    prompt: str,
    api_key_env: str,
    concurrency: int,
    timeout: float,
    max_retries: int,
    cache: Path | None,
    no_cache: bool,
    dry_run: bool,
) -> Any:
    from .errors import VqagradeError
    from .judge import Judge, JudgeConfig

    if dry_run and base_url is None:
        # A dry run sends nothing, so it needs no key; the cache is still consulted.
        base_url = "http://dry-run.invalid/v1"
    try:
        return Judge(
            JudgeConfig(
                model=model,
                base_url=base_url,
                prompt=prompt,
                api_key_env=api_key_env,
                concurrency=concurrency,
                timeout=timeout,
                max_retries=max_retries,
                cache_path=cache,
                use_cache=not no_cache,
            )
        )
    except VqagradeError as exc:
        raise _fail(str(exc)) from None


def _trace_lines(name: str, text: str, t: AnswerTrace | None) -> list[str]:
    if t is None:
        return [f"{name}: {text!r} -> not labelled"]
    label = t.label.value if t.label else "abstain"
    lines = [f"{name}: {text!r} -> {label}   [{t.rule}] {t.reason}"]
    if t.focus.strip() != text.strip():
        lines.append(f"    read: {t.focus!r}")
    for m in t.mentions:
        neg = f"  negated by '{m.negation}'" if m.negated else ""
        lines.append(f"    mention: option {m.option.value} {m.span!r} ({m.via}){neg}")
    for c in t.cues:
        lines.append(f"    cue: {c}")
    if t.matched:
        lines.append(f"    restates the question's words: {', '.join(t.matched)}")
    return lines


def render_grade(question: str, gt: str, pred: str, g: Grade) -> str:
    """A person-readable explanation of one grade."""
    from .kinds import QuestionKind

    lines = [f"question: {question}"]
    kind = g.question_kind.value if g.question_kind else "none (not close-ended)"
    lines.append(f"kind: {kind}")
    if g.options and g.question_kind is QuestionKind.YES_NO:
        lines.append("options: yes / no")
    elif g.options:
        lines.append(f"options: A = {g.options[0]!r}   B = {g.options[1]!r}")
    lines += _trace_lines("gt", gt, g.gt)
    lines += _trace_lines("pred", pred, g.pred)
    score = "null" if g.score is None else f"{g.score:g}"
    lines.append(f"score: {score}   method: {g.method.value}")
    lines.append(f"reason: {g.reason}")
    return "\n".join(lines)


@app.command()
def explain(
    question: Annotated[str, typer.Argument(help="The two-option question.")],
    gt: Annotated[str, typer.Argument(help="The ground-truth answer.")],
    pred: Annotated[str, typer.Argument(help="The model's answer.")],
    option_a: Annotated[Optional[str], typer.Option(help="Explicit option A.")] = None,  # noqa: UP045
    option_b: Annotated[Optional[str], typer.Option(help="Explicit option B.")] = None,  # noqa: UP045
    lexicon: Lexicons = None,
    json: Annotated[bool, typer.Option("--json", help="Print the Grade as JSON.")] = False,
) -> None:
    """Show how one answer is graded: options, labels, mentions, negations, cues, score."""
    grader = _grader(lexicon)
    options = (option_a, option_b) if option_a and option_b else None
    g = grader.grade(question, gt, pred, options=options)
    if json:
        typer.echo(g.model_dump_json(indent=2))
    else:
        typer.echo(render_grade(question, gt, pred, g))


@app.command()
def bench(
    file: Annotated[Path, typer.Argument(help="Labelled JSONL (shared/data/labeled format).")],
    show: Annotated[bool, typer.Option(help="List every wrong and missed row.")] = False,
    lexicon: Lexicons = None,
) -> None:
    """Accuracy, coverage and speed of the rules on a labelled file."""
    from .errors import VqagradeError
    from .reports.accuracy import read_labelled, run_bench

    try:
        rows = read_labelled(str(file))
    except VqagradeError as exc:
        raise _fail(str(exc)) from None
    result = run_bench(rows, _grader(lexicon))
    if show:
        for d in result.details:
            typer.echo(f"{d.kind.upper()} {d.id}: {d.question!r} gt={d.gt!r} pred={d.pred!r}")
            typer.echo(f"    want gt={d.expect_gt} pred in {d.accept_pred}; got {d.got}")
    typer.echo(result.render())
    typer.echo(result.render_scores())


batch_app = typer.Typer(no_args_is_help=True, help="Follow OpenAI Batch API judge jobs.")
app.add_typer(batch_app, name="batch")

BaseUrl = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--judge-base-url", help="OpenAI-compatible endpoint of the batch."),
]
KeyEnv = Annotated[
    str, typer.Option("--judge-api-key-env", help="Environment variable holding the API key.")
]


@batch_app.command("status")
def batch_status(
    batch_id: Annotated[str, typer.Argument(help="The id 'score --judge-batch' printed.")],
    judge_base_url: BaseUrl = None,
    judge_api_key_env: KeyEnv = "OPENAI_API_KEY",
) -> None:
    """Where a batch stands."""
    from .errors import VqagradeError
    from .judge.batch import make_sync_client, status

    try:
        client = make_sync_client(judge_base_url, judge_api_key_env)
        typer.echo(status(batch_id, client=client).render())
    except VqagradeError as exc:
        raise _fail(str(exc)) from None


@batch_app.command("collect")
def batch_collect(
    batch_id: Annotated[str, typer.Argument(help="The id 'score --judge-batch' printed.")],
    judge_base_url: BaseUrl = None,
    judge_api_key_env: KeyEnv = "OPENAI_API_KEY",
    cache: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Judge cache to fill (default: user cache dir)."),
    ] = None,
) -> None:
    """Download a finished batch into the judge cache; re-run 'score' to use it."""
    from .errors import VqagradeError
    from .judge.batch import collect, make_sync_client

    try:
        client = make_sync_client(judge_base_url, judge_api_key_env)
        typer.echo(collect(batch_id, cache_path=cache, client=client).render())
    except VqagradeError as exc:
        raise _fail(str(exc)) from None


@cache_app.command("stats")
def cache_stats_cmd(
    path: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option("--cache", help="Cache file (default: user cache dir)."),
    ] = None,
) -> None:
    """Entries, size, models and token totals of the judge cache."""
    import json as _json

    from .judge import cache_stats

    typer.echo(_json.dumps(cache_stats(path), indent=2, default=str))


@cache_app.command("clear")
def cache_clear_cmd(
    path: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option("--cache", help="Cache file (default: user cache dir)."),
    ] = None,
) -> None:
    """Delete every cached judge reply."""
    from .judge import cache_clear

    typer.echo(f"removed {cache_clear(path)} entries")


class AuditFormat(str, Enum):
    """How `vqagrade audit` prints its statistics."""

    text = "text"
    json = "json"


@app.command()
def audit(
    input: Annotated[str, typer.Argument(help="Rows an LLM judge already scored, or -.")],
    judge_field: Annotated[
        str, typer.Option(help="Field with the judge's score or raw reply ({ score: 0.5 }).")
    ],
    output: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("-o", "--output", help="Write the disagreements (JSONL), worst first."),
    ] = None,
    fail_under_agreement: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(callback=_share, help="Exit 1 when agreement (0-1) is below this."),
    ] = None,
    format: Annotated[
        AuditFormat, typer.Option("--format", help="Print the statistics as text or JSON.")
    ] = AuditFormat.text,
    question_field: QuestionField = "question",
    gt_field: GtField = "gt",
    pred_field: PredField = "pred",
    id_field: IdField = "id",
    option_a_field: OptionAField = "option_a",
    option_b_field: OptionBField = "option_b",
    lexicon: Lexicons = None,
    in_format: InFormat = None,
) -> None:
    """Compare an LLM judge's scores with the rules: agreement, kappa, disagreements."""
    from .errors import VqagradeError
    from .io.rows import open_writer, read_rows
    from .reports.audit import audit_rows
    from .reports.audit import fail_under_agreement as gate

    fields = _field_map(
        question_field, gt_field, pred_field, id_field, option_a_field, option_b_field
    )
    grader = _grader(lexicon, fields=fields)
    try:
        result = audit_rows(read_rows(input, in_format), judge_field, grader)
        if output is not None:
            from .io.atomic import check_outputs

            check_outputs([input], [output])
            with open_writer(output, "jsonl" if output == "-" else None) as writer:
                for row in result.disagreements:
                    writer.write(row)
    except VqagradeError as exc:
        raise _fail(str(exc)) from None
    if format is AuditFormat.json:
        typer.echo(result.stats.model_dump_json(indent=2))
    else:
        typer.echo(result.stats.render(), err=output == "-")
    if fail_under_agreement is not None:
        message = gate(result.stats, fail_under_agreement)
        if message:
            raise _fail(message, 1)


@app.command()
def report(
    input: Annotated[
        Optional[str],  # noqa: UP045
        typer.Argument(help="Output of `score`, or disagreements of `audit -o` (or -)."),
    ] = None,
    output: Annotated[str, typer.Option("-o", "--output", help="HTML file to write.")] = (
        "report.html"
    ),
    audit: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--audit", help="Audit this judge-scored input and report on it."),
    ] = None,
    judge_field: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(help="With --audit: the field with the judge's score."),
    ] = None,
    title: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(help="Page title."),
    ] = None,
    question_field: QuestionField = "question",
    gt_field: GtField = "gt",
    pred_field: PredField = "pred",
    id_field: IdField = "id",
    option_a_field: OptionAField = "option_a",
    option_b_field: OptionBField = "option_b",
    fields_map: FieldSpecs = None,
    group_by: GroupBy = None,
    lexicon: Lexicons = None,
    in_format: InFormat = None,
) -> None:
    """Write one self-contained HTML report (no network) of a scoring run or a judge audit."""
    from .errors import VqagradeError
    from .reports.html import report_from_audit, report_from_file

    if (input is None) == (audit is None):
        raise _fail("give either an input file or --audit IN --judge-field FIELD")
    if audit is not None and not judge_field:
        raise _fail("--audit needs --judge-field")
    try:
        if audit is not None:
            fields = _field_map(
                question_field, gt_field, pred_field, id_field, option_a_field, option_b_field
            )
            assert judge_field is not None
            grader = _grader(lexicon, fields=fields)
            html, result = report_from_audit(audit, judge_field, grader, in_format, title=title)
            what = f"audit of {result.stats.rows} rows, {result.stats.disagreements} disagreements"
        else:
            assert input is not None
            f = _field_map(
                question_field, gt_field, pred_field, id_field, option_a_field, option_b_field,
                fields_map,
            )  # fmt: skip
            names = (f.id, f.question, f.gt, f.pred)
            html, kind, n = report_from_file(
                input, in_format, title=title, fields=names, by=group_by or ()
            )
            what = f"{kind} report of {n} rows"
        from .io.atomic import write_text_atomic

        write_text_atomic(output, html)
    except VqagradeError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write {output}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {output} ({what})", err=True)


def main() -> None:
    """Entry point of the `vqagrade` script."""
    from .io.atomic import install_signal_cleanup

    install_signal_cleanup()  # SIGTERM: partial outputs removed, workers shut down
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)
