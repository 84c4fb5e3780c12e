"""Moved to `vqagrade.engines.processes`; kept so the import path the README gave still works."""

from .engines.processes import *  # noqa: F403
from .engines.processes import __all__ as __all__
