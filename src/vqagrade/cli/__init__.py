"""The `vqagrade` command line: a thin shell over the library."""

from .score import app, main, render_grade

__all__ = ["app", "main", "render_grade"]
