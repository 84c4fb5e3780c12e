"""Locate the data folders shipped with the package (lexicons/, prompts/)."""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # importlib.resources.abc is new in 3.11; importlib.abc has the same class on 3.10.
    from importlib.abc import Traversable


def data_dir(name: str) -> Traversable:
    """The shipped `name` folder: inside the wheel, or the repository's top-level folder.

    Wheels carry the folders under ``vqagrade/_data/`` (hatch force-include); an editable
    install reads them straight from the repository, where they live at the top level.
    """
    packaged = importlib.resources.files("vqagrade") / "_data" / name
    if packaged.is_dir():
        return packaged
    repo = Path(__file__).resolve().parents[2] / name
    if repo.is_dir():
        return repo
    raise FileNotFoundError(f"vqagrade data folder {name!r} is missing from the installation")
