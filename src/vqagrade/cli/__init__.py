"""The `vqagrade` command line: a thin shell over `vqagrade.run` and the public API.

One module per command group (score, explain, audit, report, bench, cache, batch); `app`
holds the application and the one error handler, `options` the options several share.
Heavy modules are imported inside the commands so that `vqagrade --help` starts fast.
"""

from __future__ import annotations

# Each module registers its commands on `app` when imported, in the order --help lists them.
# isort: off
from . import score, explain, bench, audit, report, cache, batch  # noqa: F401

# isort: on
from .app import app, main

__all__ = ["app", "main"]
