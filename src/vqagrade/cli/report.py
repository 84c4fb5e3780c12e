"""`vqagrade report`: one self-contained HTML page of a scoring run or a judge audit."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .app import app, command
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
)


@command(app)
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
    choices_field: ChoicesField = "choices",
    fields_map: FieldSpecs = None,
    group_by: GroupBy = None,
    lexicon: Lexicons = None,
    in_format: InFormat = None,
) -> None:
    """Write one self-contained HTML report (no network) of a scoring run or a judge audit."""
    from ..run import ReportRun, report_file

    spec = ReportRun(
        input=input,
        output=output,
        audit=audit,
        judge_field=judge_field,
        title=title,
        group_by=group_by or [],
        lexicons=lexicon or [],
        in_format=in_format,
    )
    spec.check()  # before the field names: an input or --audit is the first thing to give
    # --map names the fields of a score output; an audit reads the --X-field names.
    spec.fields = field_map(
        question_field,
        gt_field,
        pred_field,
        id_field,
        option_a_field,
        option_b_field,
        fields_map if audit is None else None,
        choices=choices_field,
    )
    done = report_file(spec)
    typer.echo(f"wrote {done.output} ({done.what})", err=True)
