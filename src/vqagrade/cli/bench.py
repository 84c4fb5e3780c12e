"""`vqagrade bench`: accuracy, coverage and speed of the rules on a labelled file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import app, command
from .options import Lexicons, lexicon_paths


@command(app)
def bench(
    file: Annotated[Path, typer.Argument(help="Labelled JSONL (shared/data/labeled format).")],
    show: Annotated[bool, typer.Option(help="List every wrong and missed row.")] = False,
    lexicon: Lexicons = None,
) -> None:
    """Accuracy, coverage and speed of the rules on a labelled file."""
    from ..grader import Grader
    from ..reports.accuracy import read_labelled, run_bench

    rows = read_labelled(str(file))
    result = run_bench(rows, Grader(lexicons=lexicon_paths(lexicon)))
    if show:
        for d in result.details:
            typer.echo(f"{d.kind.upper()} {d.id}: {d.question!r} gt={d.gt!r} pred={d.pred!r}")
            typer.echo(f"    want gt={d.expect_gt} pred in {d.accept_pred}; got {d.got}")
    typer.echo(result.render())
    typer.echo(result.render_scores())
