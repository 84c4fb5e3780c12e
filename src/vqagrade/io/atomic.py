"""Outputs that are complete or absent, and never the input.

Every file vqagrade writes (JSON lines, CSV, ``.gz``, Parquet, JUnit XML, HTML reports) goes
through :class:`AtomicFile`, and every writer over one shares its close-or-abort
(:class:`AtomicOutput`): the bytes go to a temporary file in the target's own folder
(``.NAME.XXXX.part``), which on success is flushed, ``fsync``-ed and renamed over the target
with ``os.replace`` (atomic on one filesystem), and on an error or an interrupt is unlinked.
So a reader of the target sees either the previous file or the whole new one, never a
prefix that ends on a complete line. Temporary files still open are also unlinked by
:func:`remove_partial_files` (the SIGTERM handler of :func:`install_signal_cleanup` and an
``atexit`` hook call it); only ``kill -9`` can leave a ``.part`` file behind, never a partial
target.

:func:`check_outputs` refuses an output that is one of the inputs (the same file by
``os.path.samefile``: symlinks and hard links included) or that lies inside a folder input,
before anything is opened for writing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Iterable
from types import FrameType, TracebackType
from typing import IO, Any, TypeVar

from ..errors import OutputError

__all__ = [
    "AtomicFile",
    "AtomicOutput",
    "check_outputs",
    "install_signal_cleanup",
    "remove_partial_files",
    "write_text_atomic",
]

_BUFFER = 1 << 20
_LIVE: set[str] = set()  # temporary files not yet committed or discarded
_LOCK = threading.Lock()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()


_Output = TypeVar("_Output", bound="AtomicOutput")


class AtomicOutput:
    """An output that is published whole or not at all: the one close-or-abort of
    `AtomicFile` and of every writer over one (rows, Parquet, JUnit XML).

    `close` finishes the output (`_finish`: what is buffered written, the temporary file
    flushed) and then publishes it (`_publish`: renamed over the target). When finishing
    fails, or on `abort`, `_discard` removes what was written and the target is left as it
    was. Both are idempotent. As a context manager, leaving the block closes the output, or
    aborts it when the block raised.

    Subclasses implement the three steps; `_write_errors` are the exceptions of a failed write
    (reported as `OutputError` by `_failure`), anything else is re-raised after the discard.
    """

    _closed = False
    _name = ""

    def _finish(self) -> None:
        """Write what is still buffered; the output is complete when this returns."""

    def _publish(self) -> None:
        """Make the finished output visible under its own name."""

    def _discard(self) -> None:
        """Remove what was written; the target is left as it was."""

    def _write_errors(self) -> tuple[type[BaseException], ...]:
        return (OSError,)

    def _failure(self, exc: BaseException) -> OutputError:
        why = getattr(exc, "strerror", None) or exc
        return OutputError(f"cannot write {self._name!r}: {why}")

    def close(self) -> None:
        """Finish and publish the output (once).

        Raises:
            OutputError: it cannot be written (what was written is removed).
        """
        if self._closed:
            return
        self._closed = True
        try:
            self._finish()
        except self._write_errors() as exc:
            self._discard()
            raise self._failure(exc) from None
        except BaseException:
            self._discard()
            raise
        self._publish()

    def abort(self) -> None:
        """Stop: what was written is removed and the target left as it was."""
        if self._closed:
            return
        self._closed = True
        self._discard()

    def __enter__(self: _Output) -> _Output:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class AtomicFile(AtomicOutput):
    """A binary file written under a temporary name next to ``path``; ``commit`` publishes it.

    Raises:
        OutputError: the folder of ``path`` cannot take a new file.
    """

    def __init__(self, path: str | os.PathLike[str], buffering: int = _BUFFER) -> None:
        self.path = self._name = os.fspath(path)
        if os.path.isdir(self.path):
            raise OutputError(f"cannot write {self.path!r}: Is a directory")
        # Through a symlink, the file it points to is replaced (the link stays a link).
        self.real = os.path.realpath(os.path.abspath(self.path))
        folder, base = os.path.split(self.real)
        try:
            fd, self.temp = tempfile.mkstemp(prefix=f".{base}.", suffix=".part", dir=folder)
        except OSError as exc:
            raise OutputError(f"cannot write {self.path!r}: {exc.strerror or exc}") from None
        with _LOCK:
            _LIVE.add(self.temp)
        try:
            os.fchmod(fd, _MODE)  # mkstemp makes 0600; the output gets the usual mode
        except OSError:
            pass
        self.file: IO[bytes] = os.fdopen(fd, "wb", buffering=buffering)

    def commit(self) -> None:
        """Flush, fsync and rename over the target (then fsync its folder).

        Raises:
            OutputError: the data cannot be written or renamed (the temporary file is removed).
        """
        self.close()

    def discard(self) -> None:
        """Close and remove the temporary file; the target is left as it was."""
        self.abort()

    def _finish(self) -> None:
        if not self.file.closed:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
        else:  # closed by a library that wrote through it (pyarrow)
            _fsync_path(self.temp)
        os.replace(self.temp, self.real)

    def _publish(self) -> None:
        with _LOCK:
            _LIVE.discard(self.temp)
        _fsync_folder(os.path.dirname(self.real))

    def _discard(self) -> None:
        # The unlink comes whatever the close raises (a compressor's last flush can fail in
        # any way, or be interrupted).
        try:
            with contextlib.suppress(OSError, ValueError):
                self.file.close()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.temp)
            with _LOCK:
                _LIVE.discard(self.temp)


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write a whole text file (UTF-8) atomically.

    Raises:
        OutputError: it cannot be written.
    """
    with AtomicFile(path) as f:
        try:
            f.file.write(text.encode("utf-8"))
        except OSError as exc:
            raise OutputError(f"cannot write {f.path!r}: {exc.strerror or exc}") from None


def remove_partial_files() -> None:
    """Unlink every temporary output file not yet committed (safe from a signal handler)."""
    with _LOCK:
        temps = list(_LIVE)
        _LIVE.clear()
    for temp in temps:
        with contextlib.suppress(OSError):
            os.unlink(temp)


atexit.register(remove_partial_files)

_installed = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    remove_partial_files()
    # Unwinds the main thread like Ctrl-C does: writers discard, worker pools shut down.
    raise SystemExit(128 + signum)


def install_signal_cleanup() -> None:
    """On SIGTERM (and SIGHUP), remove partial outputs and exit 128+signal, cleaning up on the
    way out. Only from the main thread; a no-op elsewhere or when already installed."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _on_sigterm)
    _installed = True


# ---- the output is not an input ------------------------------------------------------------


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _inside(path: str, folder: str) -> bool:
    path, folder = _real(path), _real(folder)
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one existing file (symlinks and hard links followed)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(inputs: Iterable[str | os.PathLike[str] | None], outputs: Iterable[Any]) -> None:
    """Refuse outputs that would overwrite an input or land inside a folder input.

    ``"-"`` (stdin/stdout) and None are skipped.

    Raises:
        OutputError: an output is an input (same file), or inside an input folder.
    """
    ins = [os.fspath(i) for i in inputs if i is not None and os.fspath(i) != "-"]
    for out in outputs:
        if out is None:
            continue
        name = os.fspath(out)
        if name in ("-", os.devnull):
            continue
        for src in ins:
            if os.path.isdir(src):
                if _inside(name, src):
                    raise OutputError(
                        f"the output {name!r} is inside the input folder {src!r}: "
                        "write it somewhere else"
                    )
            elif same_file(src, name) or _real(src) == _real(name):
                raise OutputError(
                    f"the output {name!r} is the input {src!r}: write to another file"
                )
