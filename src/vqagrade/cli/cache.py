"""`vqagrade cache stats|clear`: the judge cache."""

from __future__ import annotations

import typer

from .app import cache_app, command
from .options import CachePath


@command(cache_app, "stats")
def cache_stats_cmd(path: CachePath = None) -> None:
    """Entries, size, models and token totals of the judge cache."""
    import json

    from ..judge import cache_stats

    typer.echo(json.dumps(cache_stats(path), indent=2, default=str))


@command(cache_app, "clear")
def cache_clear_cmd(path: CachePath = None) -> None:
    """Delete every cached judge reply."""
    from ..judge import cache_clear

    typer.echo(f"removed {cache_clear(path)} entries")
