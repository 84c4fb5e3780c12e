"""Streaming row readers and writers: JSON lines and CSV (each optionally gzipped), Parquet.

Reading never stops at a bad record: a line that is not JSON, not a JSON object, not UTF-8,
or a CSV row of the wrong width comes out as an :class:`InputRow` with ``data=None``, an
``error`` and the ``raw`` text, so the grader can emit one ``error`` row for it. Only problems
with the input as a whole (missing file, unknown format, corrupt gzip stream, a pretty-printed
JSON document where JSON lines were expected) raise :class:`InputError`. Writers raise
:class:`OutputError`. ``"-"`` means stdin or stdout; neither is ever closed.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import os
import re
import sys
import zlib
from collections.abc import Generator, Iterator, Sequence
from types import TracebackType
from typing import IO, Any, Protocol, cast

import orjson

from ..contract import InputRow
from ..errors import InputError, OutputError
from .atomic import AtomicFile
from .jsontext import depth_over, json_text

__all__ = [
    "FORMATS",
    "InputRow",
    "RowWriter",
    "count_rows",
    "detect_format",
    "open_writer",
    "read_rows",
]

FORMATS = ("jsonl", "csv", "parquet")
_EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
}
_BUFFER = 1 << 20
_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\udc80-\udcff]")
_DUMPS_OPTION = orjson.OPT_APPEND_NEWLINE
_STREAM_ERRORS = (OSError, EOFError, zlib.error)


def _raise_csv_field_limit() -> None:
    # The stdlib default (128 KiB) would turn every long chain-of-thought answer into an error.
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:  # a C long is 32 bits on Windows
            limit //= 2


_raise_csv_field_limit()


class RowWriter(Protocol):
    """A sink for output rows; also a context manager that closes itself."""

    def write(self, row: dict[str, Any]) -> None: ...

    def close(self) -> None: ...

    def abort(self) -> None: ...

    def __enter__(self) -> RowWriter: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def detect_format(path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """Return ``"jsonl"``, ``"csv"`` or ``"parquet"`` for a path, from ``fmt`` or its name.

    Args:
        path: a file name; ``.jsonl``, ``.ndjson``, ``.json`` (read as JSON lines) or ``.csv``,
            each optionally followed by ``.gz``, or ``.parquet``; an existing directory is a
            folder of Parquet files. ``"-"`` (stdin/stdout) is JSON lines.
        fmt: an explicit format, which wins over the extension.

    Raises:
        InputError: the format is unknown.
    """
    if fmt is not None:
        fmt = fmt.lower()
        if fmt in ("json", "ndjson"):
            return "jsonl"
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
        return fmt
    name = os.fspath(path)
    if name in ("-", os.devnull):
        return "jsonl"
    lowered = name.lower()
    ext = os.path.splitext(lowered.removesuffix(".gz"))[1]
    if _EXTENSIONS.get(ext) == "parquet":
        if lowered.endswith(".gz"):
            raise InputError(f"{name!r}: Parquet is compressed inside the file; drop the .gz")
        return "parquet"
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if os.path.isdir(name):
        return "parquet"
    raise InputError(
        f"cannot tell the format of {name!r} from its extension: use .jsonl, .ndjson, .json "
        "or .csv (optionally .gz), or .parquet, or give the format with --in-format "
        "(--out-format for an output)"
    )


def read_rows(
    path: str | os.PathLike[str], fmt: str | None = None
) -> RowStream | Generator[InputRow, None, None]:
    """Stream the records of a JSON lines, CSV or Parquet input, one :class:`InputRow` each.

    The file is opened before this returns, so a missing file raises here, not on iteration;
    ``close()`` the generator to release the file early.

    Args:
        path: the input file, ``"-"`` for stdin (read as bytes; not for Parquet), or a
            directory of Parquet files (every ``*.parquet`` inside, in name order).
        fmt: ``"jsonl"``, ``"csv"`` or ``"parquet"``; default from the extension (see
            :func:`detect_format`).

    Raises:
        InputError: the file cannot be opened or its format is unknown; also raised during
            iteration when the stream itself breaks (truncated gzip, read error, corrupt
            Parquet page) or a JSON lines input turns out to be a pretty-printed JSON document.
    """
    kind = detect_format(path, fmt)
    name = os.fspath(path)
    if kind == "parquet":
        from .parquet import iter_parquet

        return iter_parquet(name)
    stream = _open_input(name)
    rows = _iter_jsonl(stream, name) if kind == "jsonl" else _iter_csv(stream)
    return RowStream(rows, stream, name)


def count_rows(path: str | os.PathLike[str], fmt: str | None = None) -> int | None:
    """The number of rows of an input when it is cheap to know (Parquet footers), else None.

    Raises:
        InputError: a Parquet input cannot be opened.
    """
    if os.fspath(path) == "-" or detect_format(path, fmt) != "parquet":
        return None
    from .parquet import count_rows as parquet_rows

    return parquet_rows(path)


def open_writer(
    path: str | os.PathLike[str],
    fmt: str | None = None,
    fieldnames_hint: Sequence[str] | None = None,
    *,
    csv_raw: bool = False,
) -> RowWriter:
    """Open a row writer for a JSON lines or CSV file (``.gz`` compresses), or Parquet.

    CSV columns are fixed when the first row arrives: that row's keys in order, then the keys
    of ``fieldnames_hint`` it lacks. Later rows fill missing columns with empty cells and their
    keys outside the header are dropped. Cells: ``None`` is empty, booleans are ``true``/
    ``false``, lists and dicts are JSON. JSON lines keep every key of every row. Parquet
    columns are fixed the same way by the first record batch (64k rows), with typed columns
    (see :mod:`vqagrade.parquet`).

    Args:
        path: the output file, or ``"-"`` for stdout.
        fmt: ``"jsonl"``, ``"csv"`` or ``"parquet"``; default from the extension.
        fieldnames_hint: CSV/Parquet columns to include even if the first row (batch) lacks
            them (and the header/schema to write when no row arrives at all).
        csv_raw: write CSV cells as they are; by default a text cell starting with ``=``,
            ``+``, ``-``, ``@``, tab or CR gets a leading ``'`` so that a spreadsheet shows it
            as text instead of running it as a formula (OWASP's CSV injection advice).

    A file is written to a temporary file next to it and renamed over ``path`` by
    ``close()`` (see :mod:`vqagrade.io.atomic`); ``abort()``, or leaving the ``with`` block on
    an exception, removes it and leaves ``path`` untouched. stdout is streamed.

    Raises:
        OutputError: the path cannot be created or written, or its format is unknown.
    """
    try:
        kind = detect_format(path, fmt)
    except InputError as exc:
        raise OutputError(str(exc)) from None
    name = os.fspath(path)
    if kind == "parquet":
        from .parquet import ParquetRowWriter

        return cast(RowWriter, ParquetRowWriter(name, fieldnames_hint))
    stream, target = _open_output(name)
    if kind == "jsonl":
        return _JsonlWriter(stream, target, name)
    return _CsvWriter(stream, target, name, fieldnames_hint, raw=csv_raw)


def _open_input(name: str) -> IO[bytes]:
    if name == "-":
        return sys.stdin.buffer
    from .remote import is_remote, open_remote

    if is_remote(name):
        return open_remote(name)
    try:
        if name.lower().endswith(".gz"):
            return io.BufferedReader(cast(io.RawIOBase, gzip.open(name, "rb")), _BUFFER)
        return open(name, "rb", buffering=_BUFFER)
    except OSError as exc:
        raise InputError(f"cannot read {name!r}: {exc.strerror or exc}") from None


def _open_output(name: str) -> tuple[IO[bytes], AtomicFile | None]:
    """The byte stream to write and, for a regular file, the atomic file behind it.

    stdout, devices and pipes are written directly (streamed: a reader sees rows as they come).
    """
    if name == "-":
        return sys.stdout.buffer, None
    try:
        if os.path.exists(name) and not os.path.isfile(name):
            if os.path.isdir(name):
                raise OutputError(f"cannot write {name!r}: it is a folder")
            return open(name, "wb", buffering=_BUFFER), None
        target = AtomicFile(name)
        if name.lower().endswith(".gz"):
            gz = gzip.GzipFile(
                os.path.basename(name)[: -len(".gz")], "wb", compresslevel=6, fileobj=target.file
            )
            return io.BufferedWriter(cast(io.RawIOBase, gz), _BUFFER), target
        return target.file, target
    except OSError as exc:
        raise OutputError(f"cannot write {name!r}: {exc.strerror or exc}") from None


class RowStream(Iterator[InputRow]):
    """The rows of an opened file; closes the file at the end, on error, or on `close()`.

    A class rather than a generator so that `close()` releases the file even before the
    first row is read (a generator that never started cannot run its cleanup).
    """

    def __init__(self, rows: Iterator[InputRow], stream: IO[bytes], name: str) -> None:
        self._rows, self._stream, self._name = rows, stream, name
        self._closed = False

    def __iter__(self) -> RowStream:
        return self

    def __next__(self) -> InputRow:
        try:
            return next(self._rows)
        except StopIteration:
            self.close()
            raise
        except _STREAM_ERRORS as exc:
            self.close()
            raise InputError(f"cannot read {self._name!r}: {exc}") from None
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release the file (never stdin)."""
        if not self._closed:
            self._closed = True
            if self._stream is not sys.stdin.buffer:
                self._stream.close()


def _text(raw: bytes) -> str:
    return raw.rstrip(b"\r\n").decode("utf-8", errors="replace")


def _iter_jsonl(stream: IO[bytes], name: str, skipped: int = 0) -> Iterator[InputRow]:
    """JSON lines records; ``skipped`` lines come before ``stream`` (a slice of a file)."""
    # Hot path: one orjson call and one type check per line; everything unusual
    # (blank line, BOM, bad JSON, bad UTF-8) is sorted out in _odd_line.
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    to_zeros = _DIGITS_TO_ZERO
    n = skipped
    blanks = 0
    for raw in stream:
        n += 1
        try:
            obj = loads(raw)
        except decode_error as exc:
            first = not skipped and n == blanks + 1
            row = _odd_line(raw, n, first, exc, name)
            if row is None:
                blanks += 1
            else:
                yield row
            continue
        if type(obj) is dict:
            if _NINETEEN_DIGITS in raw.translate(to_zeros):
                # orjson reads integers past 64 bits as floats: ids must survive unchanged.
                obj = json.loads(raw)
            yield InputRow(n, obj)
        else:
            yield _not_object(obj, raw, n)


# Integers of 19+ digits may exceed 64 bits. Probed with translate + substring search (both
# in C): a regex search for \d{19} cost ~2 us per line, as much as parsing it.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19


def _not_object(obj: object, raw: bytes, n: int) -> InputRow:
    kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    what = kind.get(type(obj), "a number")
    return InputRow(n, None, f"not a JSON object (got {what})", _text(raw))


def _odd_line(
    raw: bytes, n: int, first: bool, exc: orjson.JSONDecodeError, name: str
) -> InputRow | None:
    """Explain a line orjson rejected; None for a blank line."""
    if n == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as retry:
            exc = retry
        else:
            return InputRow(n, obj) if type(obj) is dict else _not_object(obj, raw, n)
    stripped = raw.strip()
    if not stripped:
        return None
    if first and stripped in (b"[", b"{"):
        raise InputError(
            f"{name!r} looks like a pretty-printed JSON document, not JSON lines "
            "(one object per line); convert it, e.g. with jq -c '.[]'"
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        msg = f"invalid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})"
        return InputRow(n, None, msg, _text(raw))
    return InputRow(n, None, f"invalid JSON: {exc.msg} (column {exc.colno})", _text(raw))


def _iter_csv(stream: IO[bytes]) -> Iterator[InputRow]:
    # surrogateescape keeps undecodable bytes as lone surrogates, found per row below.
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="surrogateescape", newline="")
    try:
        reader = csv.reader(text)
        header = _csv_header(reader)
        if header is None:
            return
        width = len(header)
        n = 0
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                n += 1
                yield InputRow(n, None, f"unreadable CSV row: {exc}")
                continue
            n += 1
            if not fields:  # a blank line, skipped as csv.DictReader does
                continue
            if len(fields) != width:
                msg = f"CSV row has {_fields(len(fields))}, header has {_fields(width)}"
                yield InputRow(n, None, msg, _csv_line(fields))
            elif _SURROGATE.search("".join(fields)):
                bad = next(h for h, f in zip(header, fields, strict=True) if _SURROGATE.search(f))
                yield InputRow(n, None, f"invalid UTF-8 in column {bad!r}", _csv_line(fields))
            else:
                yield InputRow(n, dict(zip(header, fields, strict=True)))
    finally:
        if stream is sys.stdin.buffer:
            text.detach()
        else:
            text.close()


def _fields(count: int) -> str:
    return f"{count} field" if count == 1 else f"{count} fields"


def _csv_header(reader: Iterator[list[str]]) -> list[str] | None:
    for header in reader:
        if not header:
            continue
        if _SURROGATE.search("".join(header)):
            raise InputError("the CSV header is not valid UTF-8")
        if len(header) == 1:
            for sep, name in ((";", "';'"), ("\t", "tab"), ("|", "'|'")):
                if sep in header[0]:
                    raise InputError(
                        f"the CSV header is one column, {_clip(header[0])!r}: the file looks "
                        f"{name}-delimited, and vqagrade reads comma-separated CSV; convert it "
                        "(e.g. with Python's csv module or csvformat -d)"
                    )
        seen = set()
        for column in header:
            if column in seen:
                raise InputError(f"the CSV header repeats column {column!r}")
            seen.add(column)
        return header
    return None


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _csv_line(fields: list[str]) -> str:
    """Re-join a CSV row as text, undecodable bytes shown as U+FFFD."""
    buf = io.StringIO()
    csv.writer(buf).writerow(fields)
    line = buf.getvalue().rstrip("\r\n")
    return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class ClosingWriter:
    """A row writer usable as a context manager: leaving the block closes it (publishing the
    output), or aborts it (removing the output) when the block raised."""

    def close(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> RowWriter:
        return cast(RowWriter, self)

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


class _Writer(ClosingWriter):
    """Shared plumbing: OSError becomes OutputError, close is idempotent."""

    def __init__(self, stream: IO[bytes], target: AtomicFile | None, name: str) -> None:
        self._stream = stream
        self._target = target
        # The atomic file itself is flushed, synced and closed by its commit.
        self._owned = stream is not sys.stdout.buffer and (
            target is None or stream is not target.file
        )
        self._name = name
        self._closed = False

    def _fail(self, exc: OSError) -> OutputError:
        return OutputError(f"cannot write {self._name!r}: {exc.strerror or exc}")

    def _finish(self) -> None:
        """Flush any text layer; subclasses override."""

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._finish()
            if self._owned:
                self._stream.close()  # a gzip layer leaves the atomic file open
            else:
                self._stream.flush()
        except OSError as exc:
            self._discard()
            raise self._fail(exc) from None
        except BaseException:
            self._discard()
            raise
        if self._target is not None:
            self._target.commit()

    def abort(self) -> None:
        """Stop writing: a file output is removed, the target left as it was."""
        if self._closed:
            return
        self._closed = True
        self._discard()

    def _discard(self) -> None:
        if self._target is not None:
            with contextlib.suppress(OSError, ValueError):
                self._stream.close()
            self._target.discard()
        else:
            with contextlib.suppress(OSError, ValueError):
                self._stream.flush()


class _JsonlWriter(_Writer):
    def write(self, row: dict[str, Any]) -> None:
        try:
            data = orjson.dumps(row, default=str, option=_DUMPS_OPTION)
        except TypeError:  # non-str keys, lone surrogates, ints beyond 64 bits, deep nesting
            data = (_safe_json(row) + "\n").encode("ascii")
        try:
            self._stream.write(data)
        except OSError as exc:
            raise self._fail(exc) from None


# Deeper than this, a field is written as its JSON text (a string): orjson writes at most 254
# levels, and a reader of the output (orjson, Python's json) must be able to read it back.
MAX_JSON_DEPTH = 200


def _safe_json(row: dict[str, Any]) -> str:
    """The row as JSON text whatever it holds (the rare slow path): a field nested deeper than
    ``MAX_JSON_DEPTH`` becomes a string holding its JSON text."""
    safe = {k: json_text(v) if depth_over(v, MAX_JSON_DEPTH) else v for k, v in row.items()}
    return json_text(safe)


_CSV_HOLD_ROWS = 10_000
# OWASP's CSV injection advice: a cell starting with one of these is a formula to a spreadsheet.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class _CsvWriter(_Writer):
    def __init__(
        self,
        stream: IO[bytes],
        target: AtomicFile | None,
        name: str,
        hint: Sequence[str] | None,
        *,
        raw: bool = False,
    ) -> None:
        super().__init__(stream, target, name)
        self._text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="")
        self._csv = csv.writer(self._text)
        self._cell = _cell if raw else _guarded_cell
        self._hint = list(hint or ())
        self._fields: list[str] | None = None
        # Rows held back until the header is known: an unreadable first line has none of
        # the input's columns, so the header waits for a readable row (or the end).
        self._held: list[dict[str, Any]] = []

    def write(self, row: dict[str, Any]) -> None:
        try:
            if self._fields is None:
                self._held.append(row)
                if "raw" in row and "line" in row and len(self._held) < _CSV_HOLD_ROWS:
                    return
                self._start()
                return
            cell = self._cell
            self._csv.writerow([cell(row.get(k)) for k in self._fields])
        except OSError as exc:
            raise self._fail(exc) from None

    def _start(self) -> None:
        """Write the header (union of the held rows' keys, readable rows first) and them."""
        fields: dict[str, None] = {}
        for row in sorted(self._held, key=lambda r: "raw" in r and "line" in r):
            fields.update(dict.fromkeys(row))
        fields.update(dict.fromkeys(self._hint))
        self._fields = list(fields)
        cell = self._cell
        self._csv.writerow([cell(str(f)) for f in self._fields])
        held, self._held = self._held, []
        for row in held:
            self._csv.writerow([cell(row.get(k)) for k in self._fields])

    def _finish(self) -> None:
        if self._fields is None and (self._held or self._hint):
            self._start()
        self._text.flush()
        self._text.detach()  # the byte stream is closed (or left open) by _Writer.close

    def _discard(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._text.detach()  # never flushed into a file being removed
        super()._discard()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:  # non-str keys, lone surrogates, big ints, deep nesting
        return json_text(value)


def _guarded_cell(value: Any) -> str:
    """A cell a spreadsheet shows as text: a leading ``'`` before a formula's first char.

    Only text is guarded: numbers (-1) are numbers, and JSON starts with { or [."""
    if type(value) is str:
        return "'" + value if value.startswith(_FORMULA_START) else value
    return _cell(value)
