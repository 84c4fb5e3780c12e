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

InFormat = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(help="Input format (jsonl/csv) when the extension does not tell."),
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


def field_map(question: str, gt: str, pred: str, id: str, option_a: str, option_b: str) -> FieldMap:
    """The input field names given on the command line."""
    from ..contract import FieldMap

    return FieldMap(
        question=question, gt=gt, pred=pred, id=id, option_a=option_a, option_b=option_b
    )


def lexicon_paths(lexicons: list[Path] | None) -> list[str]:
    """The --lexicon files as the library takes them."""
    return [str(p) for p in lexicons or []]
