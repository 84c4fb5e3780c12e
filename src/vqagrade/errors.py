"""Exceptions raised by vqagrade.

Exception tree::

    VqagradeError
    ├── InputError          an input file cannot be opened or its format is unknown
    │   └── SchemaError     a required field is in none of the first rows (also a KeyError;
    │                       in vqagrade.schema)
    ├── OutputError         an output file cannot be written
    ├── LexiconError        a lexicon file is missing or malformed
    └── JudgeError          the judge is misconfigured (model, key, prompt)

Per-row problems (a malformed line, a field missing from some rows) are never raised: they become
``method="error"`` rows so that a run always returns one row per input row.
"""

from __future__ import annotations


class VqagradeError(Exception):
    """Base class of every error vqagrade raises on purpose."""


class InputError(VqagradeError):
    """An input file cannot be opened, decoded as a whole, or its format is unknown."""


class OutputError(VqagradeError):
    """An output file cannot be created or written."""


class LexiconError(VqagradeError):
    """A lexicon file is missing, is not valid TOML, or has an unknown shape."""


class JudgeError(VqagradeError):
    """The LLM judge is misconfigured (no model, no API key, unknown prompt)."""
