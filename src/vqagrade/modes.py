"""What a scoring run grades and where it runs (shared by `vqagrade.run` and the CLI)."""

from __future__ import annotations

from enum import Enum

__all__ = ["Engine", "JUnitMode", "PromptChoice", "Task"]


class Task(str, Enum):
    """What kind of answers a run grades."""

    close = "close"
    """Close-ended questions, 0 / 0.5 / 1 (two-option by the truth table; yes/no)."""
    open = "open"
    """Open-ended answers, 0-5 (rules for the certain cases, the Equivalence judge for the rest)."""


class Engine(str, Enum):
    """Where grading runs."""

    local = "local"
    """This machine: one process, or worker processes for big inputs."""
    ray = "ray"
    """Ray tasks writing a folder of Parquet parts (rules only)."""


class PromptChoice(str, Enum):
    """The shipped judge prompts for close-ended grading (the user's seeds 000 and 001)."""

    gpt = "gpt"
    mistral = "mistral"


class JUnitMode(str, Enum):
    """What the JUnit file holds."""

    summary = "summary"
    """One testcase per gate (--fail-under, --min-coverage, --strict, the judge)."""
    rows = "rows"
    """One testcase per row (a failure below full marks)."""
