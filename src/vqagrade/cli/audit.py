"""`vqagrade audit`: an LLM judge's scores against the rules."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from .app import app, command, fail
from .options import (
    ChoicesField,
    FieldSpecs,
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
    share,
)


class AuditFormat(str, Enum):
    """How `vqagrade audit` prints its statistics."""

    text = "text"
    json = "json"


@command(app)
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
        typer.Option(callback=share, help="Exit 1 when agreement (0-1) is below this."),
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
    choices_field: ChoicesField = "choices",
    fields_map: FieldSpecs = None,
    lexicon: Lexicons = None,
    in_format: InFormat = None,
) -> None:
    """Compare an LLM judge's scores with the rules: agreement, kappa, disagreements."""
    from ..grader import Grader
    from ..io.rows import open_writer, read_rows
    from ..reports.audit import audit_rows
    from ..reports.audit import fail_under_agreement as gate

    fields = field_map(
        question_field,
        gt_field,
        pred_field,
        id_field,
        option_a_field,
        option_b_field,
        fields_map,
        choices=choices_field,
    )
    grader = Grader(lexicons=lexicon_paths(lexicon), fields=fields)
    result = audit_rows(read_rows(input, in_format), judge_field, grader)
    if output is not None:
        from ..io.atomic import check_outputs

        check_outputs([input], [output])
        with open_writer(output, "jsonl" if output == "-" else None) as writer:
            for row in result.disagreements:
                writer.write(row)
    if format is AuditFormat.json:
        typer.echo(result.stats.model_dump_json(indent=2))
    else:
        typer.echo(result.stats.render(), err=output == "-")
    if fail_under_agreement is not None:
        message = gate(result.stats, fail_under_agreement)
        if message:
            raise fail(message, 1)
