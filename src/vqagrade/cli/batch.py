"""`vqagrade batch status|collect`: follow OpenAI Batch API judge jobs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app, batch_app, command
from .options import BaseUrl, BatchId, KeyEnv

app.add_typer(batch_app, name="batch")


@command(batch_app, "status")
def batch_status(
    batch_id: BatchId,
    judge_base_url: BaseUrl = None,
    judge_api_key_env: KeyEnv = "OPENAI_API_KEY",
) -> None:
    """Where a batch stands."""
    from ..judge.batch import make_sync_client, status

    client = make_sync_client(judge_base_url, judge_api_key_env)
    typer.echo(status(batch_id, client=client).render())


@command(batch_app, "collect")
def batch_collect(
    batch_id: BatchId,
    judge_base_url: BaseUrl = None,
    judge_api_key_env: KeyEnv = "OPENAI_API_KEY",
    cache: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Judge cache to fill (default: user cache dir)."),
    ] = None,
) -> None:
    """Download a finished batch into the judge cache; re-run 'score' to use it."""
    from ..judge.batch import collect, make_sync_client

    client = make_sync_client(judge_base_url, judge_api_key_env)
    typer.echo(collect(batch_id, cache_path=cache, client=client).render())
