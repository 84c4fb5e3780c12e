"""`vqagrade report`: one self-contained HTML page of a scoring run or a judge audit."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .app import app, command
from .options import (
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
    lexicon_paths,
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
    fields_map: FieldSpecs = None,
    group_by: GroupBy = None,
    lexicon: Lexicons = None,
    in_format: InFormat = None,
) -> None:
    """Write one self-contained HTML report (no network) of a scoring run or a judge audit."""
    from ..errors import OutputError, VqagradeError
    from ..grader import Grader
    from ..io.atomic import write_text_atomic
    from ..reports.html import report_from_audit, report_from_file

    if (input is None) == (audit is None):
        raise VqagradeError("give either an input file or --audit IN --judge-field FIELD")
    if audit is not None and not judge_field:
        raise VqagradeError("--audit needs --judge-field")
    if audit is not None:
        assert judge_field is not None
        fields = field_map(
            question_field, gt_field, pred_field, id_field, option_a_field, option_b_field
        )
        grader = Grader(lexicons=lexicon_paths(lexicon), fields=fields)
        html, result = report_from_audit(audit, judge_field, grader, in_format, title=title)
        what = f"audit of {result.stats.rows} rows, {result.stats.disagreements} disagreements"
    else:
        assert input is not None
        f = field_map(
            question_field, gt_field, pred_field, id_field, option_a_field, option_b_field,
            fields_map,
        )  # fmt: skip
        names = (f.id, f.question, f.gt, f.pred)
        html, kind, n = report_from_file(
            input, in_format, title=title, fields=names, by=group_by or ()
        )
        what = f"{kind} report of {n} rows"
    try:
        write_text_atomic(output, html)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {output} ({what})", err=True)
