"""Locate the data folders shipped with the package (lexicons/, prompts/)."""

from __future__ import annotations

import importlib.resources
from importlib.resources.abc import Traversable
from pathlib import Path


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
