"""Moved to `vqagrade.engines.arrow`; kept so the import path the README gave still works."""

from .engines.arrow import *  # noqa: F403
from .engines.arrow import __all__ as __all__
