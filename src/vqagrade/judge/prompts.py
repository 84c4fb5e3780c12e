"""The user's judge prompts: where they live, and how a row is put into each.

The prompt files are the user's seeds, verbatim; they are never edited, only filled in:

* ``gpt`` (``000_*.txt``): one user message, the prompt followed by the row as JSON.
* ``mistral`` (``001_*.txt``): the text between ``[INST]`` and ``[/INST]`` is the user message
  (the ``<s>[INST]`` markers are the model's own chat template, which the server applies),
  followed by the row as JSON.
* ``equivalence`` (``002_*.txt``): a ``system:`` and a ``user:`` part; the placeholders
  ``{{ item.input }}``, ``{{ item.reference }}``, ``{{ item.output_text }}`` take the
  question, gt and pred.
* ``multiple_choice`` (``003_*.txt``, vqagrade's own, not a seed): one user message, the
  prompt followed by the question, its lettered options and the answer as JSON; chosen per
  row for multiple-choice rows (`load_choice_prompt`), never by name.

A user's own prompt (``--judge-prompt-file``, `load_prompt_file`) is filled in the same ways:
with the ``{{ item.* }}`` placeholders like ``equivalence``, else with an ``[INST] … [/INST]``
block like ``mistral``, else like ``gpt``. See prompts/README.md.

Untrusted text is only ever inserted as data: JSON-encoded for the two-option prompts, and for
Equivalence in one pass over the template, so a placeholder inside a prediction stays literal.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import JudgeError

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

Messages = list[dict[str, str]]


class PromptName(str, Enum):
    """The judge prompts vqagrade ships (the user's seeds)."""

    GPT = "gpt"
    """Two-option judge, GPT style (000): replies ``{ score: 0 | 0.5 | 1 }``."""
    MISTRAL = "mistral"
    """Two-option judge, Mistral style (001): replies ``{ mistralscore: 0 | 0.5 | 1 }``."""
    EQUIVALENCE = "equivalence"
    """The 0-5 Equivalence judge (002): replies one integer."""


_FILE_PREFIX = {PromptName.GPT: "000_", PromptName.MISTRAL: "001_", PromptName.EQUIVALENCE: "002_"}
_STARS = frozenset({0.0, 0.5, 1.0})
_EQUIVALENCE = frozenset(float(i) for i in range(6))
_PLACEHOLDER = re.compile(r"\{\{\s*item\.(input|reference|output_text)\s*\}\}")
_INST = re.compile(r"\[INST\](.*?)\[/INST\]", re.S)
_ROLES = re.compile(r"^(system|user):[ \t]*\n", re.M)


class Filling(str, Enum):
    """How a row is put into a prompt."""

    APPEND = "append"
    """The prompt, then the row as JSON on the next line (seed 000)."""
    INST = "inst"
    """The text between ``[INST]`` and ``[/INST]``, then the row as JSON (seed 001)."""
    TEMPLATE = "template"
    """``system:``/``user:`` parts with ``{{ item.* }}`` placeholders (seed 002)."""
    CHOICE = "choice"
    """The prompt, then the question, its lettered options and the answer as JSON (003)."""


_FILLING = {
    PromptName.GPT: Filling.APPEND,
    PromptName.MISTRAL: Filling.INST,
    PromptName.EQUIVALENCE: Filling.TEMPLATE,
}


@dataclass(frozen=True)
class Prompt:
    """A judge prompt (shipped or the user's own), and the scores its reply may carry."""

    name: str
    source: str
    text: str
    allowed: frozenset[float]
    filling: Filling = Filling.APPEND

    def render(
        self, question: str, gt: str, pred: str, choices: Sequence[str] | None = None
    ) -> Messages:
        """The chat messages that ask the judge about one row (`choices`: a multiple-choice
        row's options in letter order, for the multiple-choice prompt)."""
        if self.filling is Filling.CHOICE:
            return _render_choice(self.text, question, pred, choices or ())
        if self.filling is Filling.TEMPLATE:
            return _render_equivalence(self.text, question, gt, pred)
        row = json.dumps({"question": question, "gt": gt, "pred": pred}, ensure_ascii=False)
        if self.filling is Filling.INST:
            m = _INST.search(self.text)
            instructions = (m.group(1) if m else self.text).strip()
            return [{"role": "user", "content": f"{instructions}\n{row}"}]
        # The GPT prompt ends with "Input:"; the row goes on the next line.
        return [{"role": "user", "content": f"{self.text.rstrip()}\n{row}"}]


CHOICE_PROMPT = "multiple_choice"
"""The name of vqagrade's multiple-choice judge prompt (``003_*.txt``)."""
_CHOICE_FILE = "003_"


def _render_choice(text: str, question: str, pred: str, options: Sequence[str]) -> Messages:
    """A multiple-choice row: the question, its lettered options and the answer. The gt's
    letter stays out of the message: the judge only says which option `pred` picks."""
    from ..kinds import LETTERS

    lettered = {LETTERS[i].value: o for i, o in enumerate(options[: len(LETTERS)])}
    row = {"question": question, "options": lettered, "answer": pred}
    row_text = json.dumps(row, ensure_ascii=False)
    return [{"role": "user", "content": f"{text.rstrip()}\n{row_text}"}]


def load_choice_prompt() -> Prompt:
    """Load the multiple-choice judge prompt (``003_*.txt``); its reply is a letter, read by
    `vqagrade.judge.parse.read_choice`, so `allowed` is empty.

    Raises:
        JudgeError: its file is missing.
    """
    folder = prompts_dir()
    found = sorted(
        f.name
        for f in (folder.iterdir() if folder.is_dir() else ())
        if f.name.startswith(_CHOICE_FILE) and f.name.endswith(".txt")
    )
    if not found:
        raise JudgeError(f"judge prompt {CHOICE_PROMPT!r} ({_CHOICE_FILE}*.txt) not found")
    text = folder.joinpath(found[0]).read_text(encoding="utf-8")
    return Prompt(
        name=CHOICE_PROMPT, source=found[0], text=text, allowed=frozenset(), filling=Filling.CHOICE
    )


def _render_equivalence(text: str, question: str, gt: str, pred: str) -> Messages:
    values = {"input": question, "reference": gt, "output_text": pred}
    # Split the template into roles before filling it, so inserted text cannot open a role;
    # one re.sub pass per part, so inserted text is never scanned again for placeholders.
    parts = _ROLES.split(text)
    # split() yields ["", role, body, role, body, ...] when the file starts with "system:".
    pairs = list(zip(parts[1::2], parts[2::2], strict=True)) or [("user", text)]
    return [
        {"role": role, "content": _PLACEHOLDER.sub(lambda m: values[m.group(1)], body).strip()}
        for role, body in pairs
    ]


def _packaged_dir() -> Traversable:
    # Where hatch's force-include puts the top-level prompts/ folder inside the wheel.
    return resources.files("vqagrade") / "_data" / "prompts"


def prompts_dir() -> Traversable:
    """The folder of shipped prompts: package data when installed, the repo folder in dev."""
    packaged = _packaged_dir()
    if packaged.is_dir():
        return packaged
    # Editable/dev install: src/vqagrade/../../prompts is the repository's top-level folder.
    return Path(__file__).resolve().parents[3] / "prompts"


def load_prompt(name: str) -> Prompt:
    """Load a shipped prompt by name (gpt, mistral, equivalence).

    Args:
        name: one of the ``PromptName`` values.

    Raises:
        JudgeError: the name is unknown or its file is missing.
    """
    try:
        key = PromptName(name)
    except ValueError:
        choices = ", ".join(p.value for p in PromptName)
        raise JudgeError(f"unknown judge prompt {name!r}; choose one of: {choices}") from None
    folder = prompts_dir()
    if not folder.is_dir():
        raise JudgeError("the judge prompts folder is missing from this installation")
    found = sorted(
        f.name
        for f in folder.iterdir()
        if f.name.startswith(_FILE_PREFIX[key]) and f.name.endswith(".txt")
    )
    if not found:
        raise JudgeError(f"judge prompt {key.value!r} ({_FILE_PREFIX[key]}*.txt) not found")
    if len(found) > 1:
        raise JudgeError(
            f"judge prompt {key.value!r}: {len(found)} files start with {_FILE_PREFIX[key]} "
            f"({', '.join(found)}); keep one"
        )
    text = folder.joinpath(found[0]).read_text(encoding="utf-8")
    allowed = _EQUIVALENCE if key is PromptName.EQUIVALENCE else _STARS
    return Prompt(
        name=key.value, source=found[0], text=text, allowed=allowed, filling=_FILLING[key]
    )


def load_prompt_file(path: str | Path, *, scores_of: str = PromptName.GPT.value) -> Prompt:
    """Load a user's own judge prompt.

    It is filled in like the seed it resembles: with ``{{ item.input }}``,
    ``{{ item.reference }}`` and ``{{ item.output_text }}`` (question, gt, pred; optional
    ``system:``/``user:`` parts) like ``equivalence``; else with an ``[INST] … [/INST]`` block
    like ``mistral``; else the row is appended as JSON, like ``gpt``.

    Args:
        path: the prompt file (UTF-8 text).
        scores_of: the shipped prompt whose scores the replies must give: ``gpt`` or
            ``mistral`` (0, 0.5, 1) or ``equivalence`` (0-5).

    Raises:
        JudgeError: the file cannot be read or is empty.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeError(f"cannot read the judge prompt file {path}: {exc}") from None
    if not text.strip():
        raise JudgeError(f"the judge prompt file {path} is empty")
    if _PLACEHOLDER.search(text):
        filling = Filling.TEMPLATE
    elif _INST.search(text):
        filling = Filling.INST
    else:
        filling = Filling.APPEND
    allowed = _EQUIVALENCE if scores_of == PromptName.EQUIVALENCE.value else _STARS
    return Prompt(
        name=f"file:{path.name}", source=str(path), text=text, allowed=allowed, filling=filling
    )
