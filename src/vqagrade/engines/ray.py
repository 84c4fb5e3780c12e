"""Grade on a Ray cluster (the ``vqagrade[ray]`` extra): input pieces in, Parquet parts out.

The input is cut into numbered pieces (Parquet: runs of row groups, ~128k rows; plain JSON
lines: line-aligned byte ranges, ~32 MB; gzipped or CSV input: one piece). A Ray Data
``map_batches`` hands each piece to a worker, which streams it, grades it record batch by
record batch (:func:`vqagrade.arrow.grade_batch`, the ``grade_table`` machinery; JSON lines
through the row API) and writes ``part-<piece>.parquet`` into the output folder. Read in name
order, the parts are the single-process output, row for row. Rules only: no LLM judge here.

Why not ``read_parquet(...).map_batches(...).write_parquet(...)``: Ray names each written file
after the task that wrote it, and tasks do not follow the input order even with
``preserve_order``, so the output folder came back shuffled. Numbered pieces fix the order
whatever the scheduling.

Watch-outs handled:

* ``ray.init()`` with no address attaches to whatever cluster a previous session left
  running; a local run therefore starts its own (``address="local"``) unless an address is
  given. A Ray already initialised in this process (a notebook) is used as it is.
* The parts are written into a new folder beside the output (``.OUT.XXXX.part``, with a
  ``.vqagrade-ray`` marker) and swapped in when every piece is done; a failed or interrupted
  run removes it and leaves the output as it was. A non-empty output folder is refused
  unless ``overwrite``, and even then only a folder an earlier run wrote (the marker and
  ``part-NNNNNN.parquet`` files, nothing else) is replaced: nothing vqagrade did not write
  is ever deleted. An input inside the output folder is refused.
* Workers find the shipped lexicons in the installed package (``importlib.resources``); user
  lexicon files are read here and shipped with the tasks, so they need not exist on the
  workers. On a cluster where vqagrade is not installed, pass a ``runtime_env`` (e.g.
  ``{"pip": ["vqagrade"]}``). Input and output paths must be visible to every worker (a
  shared filesystem on a real cluster).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, OutputError, VqagradeError

if TYPE_CHECKING:
    import pyarrow as pa

    from ..records import FieldMap

__all__ = ["Piece", "RayRun", "check_output_dir", "plan_pieces", "run_ray"]

BATCH_ROWS = 16_384
PIECE_ROWS = 131_072
PIECE_BYTES = 32 << 20

# Per worker process: lexicon texts written to files once, keyed by their digest.
_LEXICON_DIRS: dict[str, list[str]] = {}


@dataclass(frozen=True)
class RayRun:
    """What a Ray run wrote."""

    output: str
    rows: int
    files: int
    seconds: float


@dataclass(frozen=True)
class Piece:
    """One numbered slice of the input, graded and written by one task."""

    seq: int
    path: str
    kind: str
    """``parquet`` (row groups), ``jsonl`` (a byte range) or ``rows`` (the whole file)"""
    fmt: str | None = None
    row_groups: tuple[int, ...] = ()
    start: int = 0
    end: int = 0
    skipped: int = 0
    """lines before ``start`` (JSON lines), so line numbers match the whole file's"""


MARKER = ".vqagrade-ray"
"""The file a Ray run leaves in its output folder: the mark of a folder vqagrade wrote."""
_PART = re.compile(r"part-\d{6,}\.parquet")


def _ours(entry: Path) -> bool:
    return entry.is_file() and (entry.name == MARKER or _PART.fullmatch(entry.name) is not None)


def check_output_dir(output: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Make sure ``output`` can take a fresh Parquet dataset; returns it as a Path.

    Nothing is deleted here: a run writes a sibling folder and swaps it in at the end.

    Raises:
        OutputError: it is a file, or a non-empty folder (without ``overwrite``), or (with
            ``overwrite``) a folder holding anything but an earlier run's own files (its
            ``part-NNNNNN.parquet`` files and the ``.vqagrade-ray`` marker).
    """
    path = Path(output)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{str(path)!r} is a file; --engine ray writes a folder of Parquet files")
    if not path.is_dir():
        return path
    entries = list(path.iterdir())
    if not entries:
        return path
    if not overwrite:
        raise OutputError(
            f"the output folder {str(path)!r} is not empty: "
            "choose another folder or pass --overwrite"
        )
    others = [e.name for e in entries if not _ours(e)]
    if others or not (path / MARKER).is_file():
        shown = ", ".join(sorted(others)[:3]) or f"no {MARKER} marker"
        raise OutputError(
            f"the output folder {str(path)!r} holds files vqagrade did not write ({shown}); "
            "not overwriting it: clear it yourself or choose another folder"
        )
    return path


def _check_paths(input: str, out: Path) -> None:
    """Refuse an input inside the output folder, or an output inside a folder input."""
    from ..io.atomic import check_outputs

    if input == "-":
        return
    real_in, real_out = os.path.realpath(input), os.path.realpath(out)
    if os.path.commonpath([real_in, real_out]) == real_out:
        raise OutputError(
            f"the input {input!r} is inside the output folder {str(out)!r}: write to another folder"
        )
    check_outputs([input], [out])


def _swap_in(staged: Path, out: Path) -> None:
    """Put the staged folder at ``out``; an earlier run's folder there is removed after."""
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    if not out.exists():
        os.rename(staged, out)
        return
    check_output_dir(out, overwrite=True)  # still only an earlier run's files
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    old.rmdir()
    os.rename(out, old)
    os.rename(staged, out)
    for entry in old.iterdir():
        if _ours(entry):
            entry.unlink()
    with contextlib.suppress(OSError):
        old.rmdir()


def _stage(out: Path) -> Path:
    """A new folder beside ``out`` that the run writes into, with the marker."""
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".part", dir=parent))
    (staged / MARKER).write_text(
        json.dumps({"writer": "vqagrade --engine ray", "files": "part-NNNNNN.parquet"}) + "\n",
        "utf-8",
    )
    return staged


def _remove_staged(staged: Path) -> None:
    """Remove the staged folder (made by this run, holding only what it wrote)."""
    shutil.rmtree(staged, ignore_errors=True)


def plan_pieces(
    input: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    piece_rows: int = PIECE_ROWS,
    piece_bytes: int = PIECE_BYTES,
) -> list[Piece]:
    """Cut an input into numbered pieces, in input order.

    Raises:
        InputError: the input is missing, stdin, or of an unknown format.
    """
    from ..io.rows import detect_format

    name = os.fspath(input)
    kind = detect_format(name, fmt)
    if name == "-":
        raise InputError("--engine ray reads files, not stdin")
    if not os.path.exists(name):
        raise InputError(f"cannot read {name!r}: No such file or directory")
    if kind == "parquet":
        return _parquet_pieces(name, piece_rows)
    if kind == "jsonl" and not name.lower().endswith(".gz"):
        return _jsonl_pieces(name, piece_bytes)
    return [Piece(0, name, "rows", fmt=kind)]


def _parquet_pieces(name: str, piece_rows: int) -> list[Piece]:
    from ..io.parquet import open_parquet, parquet_files

    pieces: list[Piece] = []
    for path in parquet_files(name):
        pf = open_parquet(path)
        try:
            meta = pf.metadata
            group: list[int] = []
            rows = 0
            for i in range(meta.num_row_groups):
                group.append(i)
                rows += meta.row_group(i).num_rows
                if rows >= piece_rows:
                    pieces.append(Piece(len(pieces), path, "parquet", row_groups=tuple(group)))
                    group, rows = [], 0
            if group:
                pieces.append(Piece(len(pieces), path, "parquet", row_groups=tuple(group)))
        finally:
            pf.close()
    return pieces


def _jsonl_pieces(name: str, piece_bytes: int) -> list[Piece]:
    """Line-aligned byte ranges of about ``piece_bytes``, with the lines before each."""
    size = os.path.getsize(name)
    pieces: list[Piece] = []
    start = lines = 0
    with open(name, "rb") as f:
        while start < size:
            f.seek(start)
            chunk = f.read(piece_bytes)
            end = start + len(chunk)
            if end < size:
                rest = f.readline()  # finish the line the chunk cut
                chunk += rest
                end += len(rest)
            pieces.append(Piece(len(pieces), name, "jsonl", start=start, end=end, skipped=lines))
            lines += chunk.count(b"\n")
            start = end
    return pieces


def run_ray(
    input: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    address: str | None = None,
    overwrite: bool = False,
    fields: FieldMap | None = None,
    lexicons: Sequence[str | os.PathLike[str]] = (),
    in_format: str | None = None,
    batch_rows: int = BATCH_ROWS,
    piece_rows: int = PIECE_ROWS,
    num_cpus: int | None = None,
    runtime_env: Mapping[str, Any] | None = None,
    progress: bool = False,
) -> RayRun:
    """Grade ``input`` on Ray and write a folder of Parquet parts to ``output``.

    Reading the parts in name order (``vqagrade.io.read_rows(output)``, Spark, pandas) gives
    the rows of the single-process run, in input order.

    Args:
        input: a Parquet file or folder, or a JSON lines or CSV file (``.gz`` too).
        output: the output folder (created; must be empty unless ``overwrite``).
        address: a Ray cluster to attach to (``"auto"``, ``"ray://host:10001"``); default: a
            fresh local Ray (never a stale one).
        overwrite: replace the Parquet files of a non-empty output folder.
        fields: input column names.
        lexicons: extra lexicon TOML files (read here, shipped to the workers).
        in_format: ``"parquet"``, ``"jsonl"`` or ``"csv"`` when the name does not tell.
        batch_rows: rows per record batch a worker grades at once.
        piece_rows: rows per Parquet piece (one task each).
        num_cpus: CPUs of a local Ray (default: all).
        runtime_env: Ray runtime environment for the job (e.g. to install vqagrade).
        progress: show Ray's progress bars and logs.

    Raises:
        VqagradeError: ray is not installed (``pip install 'vqagrade[ray]'``).
        InputError: the input is missing, stdin, or of an unknown format.
        OutputError: the output folder is not usable (see :func:`check_output_dir`).
    """
    from ..records import FieldMap

    try:
        import ray
        import ray.data
    except ImportError:
        raise VqagradeError("--engine ray needs Ray: pip install 'vqagrade[ray]'") from None
    _check_paths(os.fspath(input), Path(output))
    pieces = plan_pieces(input, in_format, piece_rows=piece_rows)
    out = check_output_dir(output, overwrite=overwrite)
    staged = _stage(out)
    config = {
        "out": str(staged.resolve()),
        "fields": (fields or FieldMap()).model_dump(),
        "lexicons": [(Path(p).name, Path(p).read_text("utf-8")) for p in lexicons],
        "batch_rows": batch_rows,
    }

    started = time.perf_counter()
    try:
        done = _run(ray, pieces, config, address, num_cpus, runtime_env, progress)
        _swap_in(staged, out)
    except BaseException:
        _remove_staged(staged)
        raise
    rows = sum(int(d["rows"]) for d in done)
    return RayRun(str(out), rows, len(done), time.perf_counter() - started)


def _run(
    ray: Any,
    pieces: list[Piece],
    config: dict[str, Any],
    address: str | None,
    num_cpus: int | None,
    runtime_env: Mapping[str, Any] | None,
    progress: bool,
) -> list[dict[str, Any]]:
    owned = not ray.is_initialized()
    if owned:
        init: dict[str, Any] = {
            "address": address or "local",
            "include_dashboard": False,
            "logging_level": logging.INFO if progress else logging.WARNING,
        }
        if address is None and num_cpus is not None:
            init["num_cpus"] = num_cpus
        if runtime_env is not None:
            init["runtime_env"] = dict(runtime_env)
        ray.init(**init)
    try:
        ray.data.DataContext.get_current().enable_progress_bars = progress
        items = [_item(p) for p in pieces]
        done = []
        if items:
            fn: Any = _grade_pieces
            ds = ray.data.from_items(items, override_num_blocks=len(items))
            done = ds.map_batches(
                fn, batch_size=1, batch_format="pyarrow", fn_kwargs=config
            ).take_all()
    finally:
        if owned:
            ray.shutdown()
    return list(done)


def _item(p: Piece) -> dict[str, Any]:
    item = asdict(p)
    item["row_groups"] = list(p.row_groups)
    item["fmt"] = p.fmt or ""
    return item


def _grade_pieces(
    batch: pa.Table,
    out: str,
    fields: dict[str, str],
    lexicons: list[tuple[str, str]],
    batch_rows: int,
) -> pa.Table:
    """On a Ray worker: grade and write each piece; report the rows written."""
    import pyarrow as pa

    from ..records import FieldMap
    from .arrow import grader_for

    grader = grader_for(FieldMap(**fields), _lexicon_files(lexicons))
    seqs, counts = [], []
    for item in batch.to_pylist():
        item["row_groups"] = tuple(item["row_groups"] or ())
        item["fmt"] = item["fmt"] or None
        piece = Piece(**item)
        target = Path(out) / f"part-{piece.seq:06d}.parquet"
        seqs.append(piece.seq)
        counts.append(_write_piece(piece, target, grader, batch_rows))
    return pa.table({"seq": pa.array(seqs, pa.int64()), "rows": pa.array(counts, pa.int64())})


def _write_piece(piece: Piece, target: Path, grader: Any, batch_rows: int) -> int:
    if piece.kind == "parquet":
        return _write_parquet_piece(piece, target, grader, batch_rows)
    from ..io.parquet import ParquetRowWriter
    from ..io.rows import _iter_jsonl, detect_format, read_rows
    from .arrow import writer_hint

    rows: Any
    if piece.kind == "jsonl":
        with open(piece.path, "rb") as f:
            f.seek(piece.start)
            data = io.BytesIO(f.read(piece.end - piece.start))
        rows = _iter_jsonl(data, piece.path, piece.skipped)
    else:
        rows = read_rows(piece.path, piece.fmt)
    hint = writer_hint(detect_format(piece.path, piece.fmt), judge=grader.judge is not None)
    n = 0
    with ParquetRowWriter(target, fieldnames_hint=hint) as writer:
        for row in grader.grade_rows(rows):
            writer.write(row)
            n += 1
    return n


def _write_parquet_piece(piece: Piece, target: Path, grader: Any, batch_rows: int) -> int:
    import pyarrow.parquet as pq

    from ..io.parquet import open_parquet
    from .arrow import grade_batch, output_schema

    pf = open_parquet(piece.path)
    n = 0
    try:
        schema = output_schema(pf.schema_arrow, judge=grader.judge is not None)
        with pq.ParquetWriter(str(target), schema) as writer:
            for batch in pf.iter_batches(
                batch_size=batch_rows, row_groups=list(piece.row_groups), use_threads=False
            ):
                writer.write_batch(grade_batch(batch, grader=grader))
                n += batch.num_rows
    finally:
        pf.close()
    return n


def _lexicon_files(texts: list[tuple[str, str]]) -> list[str]:
    if not texts:
        return []
    digest = hashlib.sha256(repr(texts).encode()).hexdigest()[:16]
    paths = _LEXICON_DIRS.get(digest)
    if paths is None:
        folder = Path(tempfile.mkdtemp(prefix=f"vqagrade-lexicons-{digest}-"))
        paths = []
        for i, (name, text) in enumerate(texts):
            path = folder / f"{i:03d}-{name}"
            path.write_text(text, "utf-8")
            paths.append(str(path))
        _LEXICON_DIRS[digest] = paths
    return paths
