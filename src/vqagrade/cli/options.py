"""Options shared by several commands, declared once (typer `Annotated` aliases)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from ..contract import FieldMap

# Input field names, shared by every command that reads rows.
QuestionField = Annotated[str, typer.Option(help="Field holding the question.")]
GtField = Annotated[str, typer.Option(help="Field holding the ground truth.")]
PredField = Annotated[str, typer.Option(help="Field holding the prediction.")]
IdField = Annotated[str, typer.Option(help="Field holding the row id.")]
OptionAField = Annotated[str, typer.Option(help="Field with explicit option A.")]
OptionBField = Annotated[str, typer.Option(help="Field with explicit option B.")]
ChoicesField = Annotated[
    str,
    typer.Option(
        help="Field with multiple-choice options: a list in letter order, a dict letter -> "
        "text, or a JSON list (CSV); without it, columns A, B, C, ... are read."
    ),
]

InFormat = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(help="Input format (jsonl/csv/parquet) when the extension does not tell."),
]
FieldSpecs = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--map",
        help="Input field = role, comma-separated or repeated: --map answer=gt "
        "--map model_output=pred (roles: question, gt, pred, id, option_a, option_b, "
        "choices).",
    ),
]
GroupBy = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--group-by",
        help="Report figures per value of this field (dotted paths: meta.model; repeatable).",
    ),
]
Lexicons = Annotated[
    Optional[list[Path]],  # noqa: UP045
    typer.Option("--lexicon", help="Extra lexicon TOML file (repeatable); extends the shipped."),
]
CachePath = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--cache", help="Cache file (default: user cache dir)."),
]
BaseUrl = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--judge-base-url", help="OpenAI-compatible endpoint of the batch."),
]
KeyEnv = Annotated[
    str, typer.Option("--judge-api-key-env", help="Environment variable holding the API key.")
]
BatchId = Annotated[str, typer.Argument(help="The id 'score --judge-batch' printed.")]


def field_map(
    question: str,
    gt: str,
    pred: str,
    id: str,
    option_a: str,
    option_b: str,
    specs: list[str] | None = None,
    choices: str = "choices",
) -> FieldMap:
    """The input field names given on the command line (--map wins over --X-field).

    Raises:
        InputError: a --map spec is not ``name=role`` or names an unknown role.
    """
    from ..contract import FieldMap
    from ..schema import parse_map

    fields = FieldMap(
        question=question,
        gt=gt,
        pred=pred,
        id=id,
        option_a=option_a,
        option_b=option_b,
        choices=choices,
    )
    return parse_map(specs or [], fields)


def share(value: float | None) -> float | None:
    """A share between 0 and 1 (checked here: a range in the help text would be cut)."""
    if value is not None and not 0.0 <= value <= 1.0:
        raise typer.BadParameter(f"{value:g} is not between 0 and 1")
    return value


def lexicon_paths(lexicons: list[Path] | None) -> list[str]:
    """The --lexicon files as the library takes them."""
    return [str(p) for p in lexicons or []]
