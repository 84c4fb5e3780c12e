"""Parquet in and out, streamed by record batch; the Arrow types of the output columns.

Reading goes one record batch at a time (``ParquetFile.iter_batches``), so memory is one
batch, never the file. A directory input means every ``*.parquet`` file directly inside it,
in name order (what Spark, Ray and Dask write). ``InputRow.line`` is the 1-based row number
across the whole input.

Writing turns rows into record batches (8k rows) under one schema, fixed by the first batch,
and writes a row group every 64k rows. The schema: the columns of the rows in that first
batch in first-seen order, then the ``fieldnames_hint`` columns they lack. vqagrade's own
columns always have the same types (see :func:`column_types`); a pass-through column takes
the type its first-batch values have (a column that is all null or of mixed types there is
stored as text, non-strings as JSON). Later rows fill missing columns with null; keys outside
the schema are dropped, as in CSV. pyarrow is imported here, never on the JSON lines or CSV
path.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator, Sequence
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract import CONTRACT_COLUMNS, ERROR_COLUMNS, JUDGE_COLUMNS, InputRow
from ..errors import InputError, OutputError
from .atomic import AtomicFile, AtomicOutput
from .jsontext import depth_over, json_text

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "CONTRACT_COLUMNS",
    "ERROR_COLUMNS",
    "JUDGE_COLUMNS",
    "ParquetRowWriter",
    "column_types",
    "count_rows",
    "iter_parquet",
    "open_parquet",
    "parquet_files",
]

READ_BATCH_ROWS = 16_384
WRITE_BATCH_ROWS = 8_192
ROW_GROUP_ROWS = 65_536


def column_types() -> dict[str, pa.DataType]:
    """The fixed Arrow type of every column vqagrade adds to a row."""
    import pyarrow as pa

    return {
        "score": pa.float64(),
        "method": pa.string(),
        "gt_label": pa.string(),
        "pred_label": pa.string(),
        "options": pa.list_(pa.string()),
        "reason": pa.string(),
        "question_kind": pa.string(),
        "judge_model": pa.string(),
        "judge_prompt": pa.string(),
        "judge_raw": pa.string(),
        "judge_cached": pa.bool_(),
        "line": pa.int64(),
        "raw": pa.string(),
    }


# ---- reading ---------------------------------------------------------------------------------


def parquet_files(path: str | os.PathLike[str]) -> list[str]:
    """The Parquet files of an input: the file itself, or a directory's ``*.parquet`` files.

    Raises:
        InputError: the path does not exist, is stdin, or is a directory without Parquet files.
    """
    name = os.fspath(path)
    if name == "-":
        raise InputError("Parquet cannot be read from stdin (it needs a seekable file)")
    from .remote import is_remote

    if is_remote(name):
        return [name]
    if os.path.isdir(name):
        files = sorted(
            str(p) for p in Path(name).iterdir() if p.suffix.lower() == ".parquet" and p.is_file()
        )
        if not files:
            raise InputError(f"no *.parquet files in the directory {name!r}")
        return files
    if not os.path.exists(name):
        raise InputError(f"cannot read {name!r}: No such file or directory")
    return [name]


def open_parquet(name: str) -> Any:
    """A ParquetFile that streams pages (see :func:`iter_parquet`); InputError if unreadable."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .remote import is_remote, open_remote

    source: Any = open_remote(name) if is_remote(name) else name
    try:
        # Stream pages through a 1 MiB buffer: pre-buffering reads whole column chunks, which
        # for a file written as one big row group is most of the file.
        return pq.ParquetFile(source, pre_buffer=False, buffer_size=1 << 20)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot read {name!r} as Parquet: {exc}") from None


def iter_parquet(
    path: str | os.PathLike[str], batch_rows: int = READ_BATCH_ROWS
) -> Generator[InputRow, None, None]:
    """Stream the rows of a Parquet file or directory, one :class:`InputRow` each, in order.

    The first file is opened before this returns, so a missing or corrupt file raises here.

    Raises:
        InputError: a file is missing or not Parquet (a later file of a directory, or a
            corrupt page, raises during iteration).
    """
    files = parquet_files(path)
    first = open_parquet(files[0])
    return _rows(files, first, batch_rows)


def _rows(files: list[str], first: Any, batch_rows: int) -> Generator[InputRow, None, None]:
    import pyarrow as pa

    n = 0
    for i, name in enumerate(files):
        pf = first if i == 0 else open_parquet(name)
        try:
            for batch in pf.iter_batches(batch_size=batch_rows, use_threads=False):
                for data in batch.to_pylist():
                    n += 1
                    yield InputRow(n, data)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot read {name!r}: {exc}") from None
        finally:
            pf.close()


def count_rows(path: str | os.PathLike[str]) -> int:
    """Rows in a Parquet file or directory, from the footers alone (for progress and ETA).

    Raises:
        InputError: as :func:`parquet_files`, or a footer cannot be read.
    """
    total = 0
    for name in parquet_files(path):
        pf = open_parquet(name)
        try:
            total += int(pf.metadata.num_rows)
        finally:
            pf.close()
    return total


# ---- writing ---------------------------------------------------------------------------------


class ParquetRowWriter(AtomicOutput):
    """Writes row dicts to a Parquet file (or stdout) in record batches of fixed schema.

    Rows are turned into Arrow record batches every ``batch_rows`` rows (compact, unlike the
    dicts) and written as one row group every ``row_group_rows`` rows.

    Args:
        path: the output file, or ``"-"`` for stdout.
        fieldnames_hint: columns to include even if the first batch lacks them (typed from
            :func:`column_types` when they are vqagrade's, else text).
        batch_rows: rows per record batch; the first one fixes the schema.
        row_group_rows: rows per Parquet row group.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        fieldnames_hint: Sequence[str] | None = None,
        batch_rows: int = WRITE_BATCH_ROWS,
        row_group_rows: int = ROW_GROUP_ROWS,
    ) -> None:
        import pyarrow as pa

        self._pa = pa
        self._name = os.fspath(path)
        self._hint = list(fieldnames_hint or ())
        self._batch_rows = batch_rows
        self._row_group_rows = max(row_group_rows, 1)
        self._rows: list[dict[str, Any]] = []
        self._batches: list[pa.RecordBatch] = []
        self._buffered = 0
        self._schema: pa.Schema | None = None
        self._writer: Any = None
        self._target: AtomicFile | None = None
        if self._name != "-":  # fail now on an unwritable path, not after the first rows
            self._target = AtomicFile(self._name)

    def write(self, row: dict[str, Any]) -> None:
        """Buffer one row; batches and row groups are written as they fill."""
        self._rows.append(row)
        if len(self._rows) >= self._batch_rows:
            self._convert()
            if self._buffered >= self._row_group_rows:
                self._write_group()

    def _finish(self) -> None:
        """Write what is buffered and the footer."""
        if self._rows or self._schema is None:
            self._convert()
        self._write_group()
        if self._writer is not None:
            self._writer.close()

    def _write_errors(self) -> tuple[type[BaseException], ...]:
        return (OSError, self._pa.ArrowException)

    def _failure(self, exc: BaseException) -> OutputError:
        return OutputError(f"cannot write {self._name!r}: {exc}")

    def _publish(self) -> None:
        if self._target is not None:
            self._target.commit()
        else:
            sys.stdout.buffer.flush()

    def _discard(self) -> None:
        self._rows, self._batches = [], []
        writer, self._writer = self._writer, None
        if writer is not None:
            # The half-written file goes with the target, unclosed: no footer is written, and
            # pyarrow's finaliser must not try to write one into the closed file later (it
            # printed "Exception ignored … write to closed file" on an interrupted run).
            writer.is_open = False
        if self._target is not None:
            self._target.discard()

    def _convert(self) -> None:
        """Turn the buffered rows into a record batch (the first one fixes the schema)."""
        import pyarrow.parquet as pq

        pa = self._pa
        rows, self._rows = self._rows, []
        if self._schema is None:
            self._schema = _first_schema(rows, self._hint)
            sink = self._target.file if self._target is not None else sys.stdout.buffer
            try:
                self._writer = pq.ParquetWriter(pa.PythonFile(sink, mode="w"), self._schema)
            except (OSError, pa.ArrowException) as exc:
                raise OutputError(f"cannot write {self._name!r}: {exc}") from None
        if not rows:
            return
        try:  # one C++ pass over the dicts, no Python objects made: the fast path
            struct = pa.array(rows, type=pa.struct(list(self._schema)))
            batch = pa.RecordBatch.from_struct_array(struct)
        except (pa.ArrowException, OverflowError, TypeError, RecursionError):  # needs fixing up
            batch = self._fixed_batch(rows)
        self._batches.append(batch)
        self._buffered += len(rows)

    def _fixed_batch(self, rows: list[dict[str, Any]]) -> pa.RecordBatch:
        """The slow path: each column converted on its own; text columns take any value as
        JSON text; a value that fits no typed column makes its row an error row."""
        pa = self._pa
        assert self._schema is not None
        fields = list(self._schema)
        names = [f.name for f in fields]
        misfits: dict[int, list[Any]] = {}  # row -> its misfit fields
        arrays = []
        for values, f in zip(_columns(rows, names), fields, strict=True):
            array, bad = _column(list(values), f)
            arrays.append(array)
            for i in bad:
                misfits.setdefault(i, []).append(f)
        if misfits:
            rows = [
                _misfit(r, misfits[i], names) if i in misfits else r for i, r in enumerate(rows)
            ]
            arrays = [
                _column(list(values), f)[0]
                for values, f in zip(_columns(rows, names), fields, strict=True)
            ]
        return pa.RecordBatch.from_arrays(arrays, schema=self._schema)

    def _write_group(self) -> None:
        if not self._batches:
            return
        table = self._pa.Table.from_batches(self._batches, schema=self._schema)
        self._batches, self._buffered = [], 0
        try:
            self._writer.write_table(table, row_group_size=self._row_group_rows)
        except (OSError, self._pa.ArrowException) as exc:
            raise OutputError(f"cannot write {self._name!r}: {exc}") from None


def _columns(rows: list[dict[str, Any]], names: list[str]) -> list[Sequence[Any]]:
    """The rows' values column by column (None where a row lacks a key)."""
    if len(names) > 1:
        get = itemgetter(*names)
        try:  # the usual case, every row has every column: one C call per row
            return list(zip(*[get(r) for r in rows], strict=True))
        except KeyError:
            pass
    return [[r.get(name) for r in rows] for name in names]


def _first_schema(rows: list[dict[str, Any]], hint: list[str]) -> pa.Schema:
    import pyarrow as pa

    names: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in names:
                names[key] = None
    for key in hint:
        names.setdefault(key, None)
    known = column_types()
    fields = []
    for name in names:
        if not isinstance(name, str):
            continue  # Parquet column names are strings; JSON keys always are
        typ = known.get(name) or _infer([r.get(name) for r in rows])
        fields.append(pa.field(name, typ))
    return pa.schema(fields)


# Parquet readers (pyarrow included) fail on columns nested a few dozen levels deep, though
# the writer accepts them: a column nested deeper than this is stored as JSON text.
MAX_NESTING = 16


def _infer(values: list[Any]) -> pa.DataType:
    import pyarrow as pa

    if any(isinstance(v, (dict, list)) and depth_over(v, MAX_NESTING) for v in values):
        return pa.string()
    try:
        typ = pa.array(values).type
    except (pa.ArrowException, OverflowError, TypeError, RecursionError):
        return pa.string()  # mixed types: stored as text
    return pa.string() if pa.types.is_null(typ) else typ


def _column(values: list[Any], field: pa.Field) -> tuple[pa.Array, list[int]]:
    """The column as an Arrow array, and the positions of values that fit no such column
    (written as null; the caller makes their rows error rows)."""
    import pyarrow as pa

    try:
        return pa.array(values, type=field.type), []
    except (pa.ArrowException, OverflowError, TypeError, RecursionError):
        pass
    if pa.types.is_string(field.type):
        return pa.array([_text(v) for v in values], type=pa.string()), []
    fitted: list[Any] = []
    bad: list[int] = []
    for i, v in enumerate(values):  # e.g. ints in a float column fit; a text in an int one not
        try:
            pa.array([v], type=field.type)
        except (pa.ArrowException, OverflowError, TypeError, RecursionError):
            bad.append(i)
            v = None
        fitted.append(v)
    try:
        return pa.array(fitted, type=field.type), bad
    except (pa.ArrowException, OverflowError, TypeError, RecursionError):
        return pa.nulls(len(values), type=field.type), list(range(len(values)))


def _misfit(row: dict[str, Any], columns: list[pa.Field], names: list[str]) -> dict[str, Any]:
    """A row whose values do not fit the columns fixed by the first rows: an error row that
    keeps them as JSON text in ``raw`` (when the output has that column)."""
    out = dict(row)
    bad = [f.name for f in columns]
    shown = ", ".join(f"{f.name!r} ({f.type})" for f in columns)
    if "raw" in names and out.get("raw") is None:
        out["raw"] = json_text({k: row.get(k) for k in bad})
    for k in bad:
        out[k] = None
    out.update(score=None, method="error", gt_label=None, pred_label=None, options=None)
    out["reason"] = (
        f"column {shown} cannot hold this row's value (the Parquet column types "
        "are fixed by the first rows); write JSON lines to keep it"
    )
    return out


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return json_text(value)
