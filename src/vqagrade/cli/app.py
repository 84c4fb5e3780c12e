"""The `vqagrade` application, its command groups, and the one way a command fails.

Every command is registered with `command`, which turns a `VqagradeError` into one line on
stderr (``vqagrade: <message>``) and exit status 2; a failed CI gate exits 1 through `fail`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from ..errors import VqagradeError

__all__ = ["app", "batch_app", "cache_app", "command", "fail", "main"]

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Grade close-ended two-option biomedical VQA answers: rules first, a judge for the rest.",
)
cache_app = typer.Typer(no_args_is_help=True, help="Inspect or clear the judge cache.")
app.add_typer(cache_app, name="cache")
batch_app = typer.Typer(no_args_is_help=True, help="Follow OpenAI Batch API judge jobs.")

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``vqagrade: message`` on stderr; raise the returned exit with `code`."""
    typer.echo(f"vqagrade: {message}", err=True)
    return typer.Exit(code)


def command(group: typer.Typer, name: str | None = None) -> Callable[[F], F]:
    """Register a command on `group`; its `VqagradeError`s become one stderr line, exit 2."""

    def register(fn: F) -> F:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except VqagradeError as exc:
                raise fail(str(exc)) from None

        group.command(name)(run)
        return fn

    return register


def main() -> None:
    """Entry point of the `vqagrade` script."""
    from ..io.atomic import install_signal_cleanup

    install_signal_cleanup()  # SIGTERM: partial outputs removed, workers shut down
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)
