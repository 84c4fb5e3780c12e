"""Inputs at a URL (``hf://datasets/…``, ``s3://…``, ``memory://…``) read through fsspec.

``hf://`` paths need huggingface_hub, whose ``HfFileSystem`` fsspec finds by itself
(``pip install 'vqagrade[hf]'``); any other protocol fsspec knows works the same way.
Nothing is imported unless a path has a protocol.
"""

from __future__ import annotations

import importlib
import re
from typing import IO, Any, cast

from ..errors import InputError

__all__ = ["is_remote", "open_remote"]

_PROTOCOL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]+)://")


def is_remote(name: str) -> bool:
    """True for a path with a protocol (``hf://…``); a Windows drive (``C:\\``) is not one."""
    return _PROTOCOL.match(name) is not None and not name.startswith("file://")


def open_remote(name: str) -> IO[bytes]:
    """The file at ``name`` opened for reading bytes (``.gz`` decompressed).

    Raises:
        InputError: fsspec (or the protocol's package) is not installed, or the file cannot
            be opened.
    """
    protocol = _PROTOCOL.match(name)
    scheme = protocol.group(1) if protocol else "?"
    try:
        fsspec: Any = importlib.import_module("fsspec")  # optional: not a dependency
    except ImportError:
        raise InputError(
            f"reading {scheme}:// paths needs fsspec: pip install 'vqagrade[hf]'"
        ) from None
    compression = "gzip" if name.lower().endswith(".gz") else None
    try:
        opened: Any = fsspec.open(name, "rb", compression=compression).open()
    except ImportError:
        package = "huggingface_hub" if scheme == "hf" else f"the {scheme}:// filesystem"
        raise InputError(f"reading {name!r} needs {package}: pip install 'vqagrade[hf]'") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {name!r}: {exc}") from None
    return cast(IO[bytes], opened)
