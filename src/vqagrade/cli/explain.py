"""`vqagrade explain`: how one answer is graded."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .app import app, command
from .options import Lexicons, lexicon_paths


@command(app)
def explain(
    question: Annotated[
        str, typer.Argument(help="The question (two-option, yes/no or multiple-choice).")
    ],
    gt: Annotated[str, typer.Argument(help="The ground-truth answer.")],
    pred: Annotated[str, typer.Argument(help="The model's answer.")],
    option_a: Annotated[Optional[str], typer.Option(help="Explicit option A.")] = None,  # noqa: UP045
    option_b: Annotated[Optional[str], typer.Option(help="Explicit option B.")] = None,  # noqa: UP045
    choice: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--choice",
            help="An explicit multiple-choice option, in letter order (repeat: --choice CT "
            "--choice MRI --choice US).",
        ),
    ] = None,
    lexicon: Lexicons = None,
    json: Annotated[bool, typer.Option("--json", help="Print the Grade as JSON.")] = False,
) -> None:
    """Show how one answer is graded: kind, options (lettered), labels, mentions, negations,
    cues, score."""
    from ..grader import Grader
    from ..reports.explain import render_grade

    grader = Grader(lexicons=lexicon_paths(lexicon))
    options = (option_a, option_b) if option_a and option_b else None
    g = grader.grade(question, gt, pred, options=options, choices=choice or None)
    if json:
        typer.echo(g.model_dump_json(indent=2))
    else:
        typer.echo(render_grade(question, gt, pred, g))
