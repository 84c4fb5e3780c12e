"""The Ray engine: a local Ray cluster grades as the single process does, row for row.

The cluster tests are marked ``ray`` (deselect with ``-m 'not ray'``) and skipped when Ray is
not installed; the output-folder checks need no cluster.
"""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scale_support import LEXICON_TOML, LIEN_ROW, case_rows, workload_rows
from vqagrade.engines.arrow import writer_hint
from vqagrade.engines.ray import MARKER, check_output_dir, plan_pieces, run_ray
from vqagrade.errors import InputError, OutputError
from vqagrade.grader import Grader
from vqagrade.io.rows import detect_format, open_writer, read_rows

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="ray is not installed (vqagrade[ray])"
)
# Ray Data warns about its own deprecated settings whenever its context is first created.
ray_own_warnings = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")


def _single_process(
    src: Path, out: Path, lexicons: list[Path] | None = None
) -> list[dict[str, Any]]:
    """What `vqagrade score src -o out.parquet` writes, read back."""
    with open_writer(out, fieldnames_hint=writer_hint(detect_format(src))) as writer:
        for row in Grader(lexicons=lexicons or []).grade_rows(read_rows(src)):
            writer.write(row)
    return pq.read_table(out).to_pylist()


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    data = [LIEN_ROW, *case_rows(), *workload_rows(2_500)]
    return [{**r, "option_a": r.get("option_a"), "option_b": r.get("option_b")} for r in data]


@needs_ray
@ray_own_warnings
@pytest.mark.ray
def test_parquet_folder_on_a_local_cluster(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    import ray

    src = tmp_path / "in"
    src.mkdir()
    table = pa.Table.from_pylist(rows)
    for i, start in enumerate(range(0, len(rows), 1_000)):
        pq.write_table(table.slice(start, 1_000), src / f"part-{i:03d}.parquet")
    lexicon = tmp_path / "mine.toml"
    lexicon.write_text(LEXICON_TOML)
    expected = _single_process(src, tmp_path / "single.parquet", [lexicon])

    out = tmp_path / "out"
    run = run_ray(src, out, lexicons=[lexicon], num_cpus=2, batch_rows=300, piece_rows=500)

    assert not ray.is_initialized()  # it started its own local Ray and shut it down
    assert run.rows == len(rows) and run.files == len(rows) // 1_000 + 1  # a piece per file
    got = [r.data for r in read_rows(out)]
    assert got == expected  # row for row, in input order
    assert got[0]["id"] == "lien" and got[0]["method"] == "rule"  # the lexicon reached them


@needs_ray
@ray_own_warnings
@pytest.mark.ray
def test_jsonl_input_and_overwrite(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows[:1_500]))
    expected = _single_process(src, tmp_path / "single.parquet")
    out = tmp_path / "out"
    out.mkdir()
    # An earlier run's folder: its marker and its own parts (one more than this run writes).
    (out / MARKER).write_text("{}\n")
    (out / "part-000000.parquet").write_bytes(b"left over from an earlier run")
    (out / "part-000099.parquet").write_bytes(b"left over from an earlier run")
    with pytest.raises(OutputError, match="not empty"):
        run_ray(src, out)
    run_ray(src, out, overwrite=True, num_cpus=2)
    assert not (out / "part-000099.parquet").exists()
    assert [r.data for r in read_rows(out)] == expected
    assert (out / MARKER).is_file()
    # Nothing is left beside it: no staged or replaced folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out", "single.parquet"]


# ---- no cluster needed ----------------------------------------------------------------------------


def test_an_empty_or_new_folder_is_fine(tmp_path: Path) -> None:
    assert check_output_dir(tmp_path / "new") == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert check_output_dir(tmp_path / "empty") == tmp_path / "empty"


def test_a_non_empty_folder_needs_overwrite(tmp_path: Path) -> None:
    (tmp_path / MARKER).write_text("{}\n")
    (tmp_path / "part-000000.parquet").write_bytes(b"x")
    with pytest.raises(OutputError, match="--overwrite"):
        check_output_dir(tmp_path)
    check_output_dir(tmp_path, overwrite=True)  # an earlier run's folder: replaceable
    assert (tmp_path / "part-000000.parquet").exists()  # nothing is deleted before the run


@pytest.mark.parametrize(
    "names",
    [
        ["a.parquet"],  # a dataset vqagrade did not write (no marker)
        [MARKER, "part-000000.parquet", "a.parquet"],  # not one of its parts
        [MARKER, "part-000000.parquet", "thesis.docx"],
    ],
)
def test_overwrite_never_deletes_other_files(tmp_path: Path, names: list[str]) -> None:
    for name in names:
        (tmp_path / name).write_bytes(b"precious")
    with pytest.raises(OutputError, match="did not write"):
        check_output_dir(tmp_path, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


@needs_ray
def test_an_input_inside_the_output_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"x")
    for src, out in ((tmp_path, tmp_path), (tmp_path / "x.parquet", tmp_path)):
        with pytest.raises(OutputError, match="inside the output folder"):
            run_ray(src, out, overwrite=True)
    assert [p.name for p in tmp_path.iterdir()] == ["x.parquet"]


def test_a_file_is_not_an_output_folder(tmp_path: Path) -> None:
    (tmp_path / "out.parquet").write_bytes(b"x")
    with pytest.raises(OutputError, match="is a file"):
        check_output_dir(tmp_path / "out.parquet")


def test_stdin_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not stdin"):
        plan_pieces("-")


def test_missing_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No such file"):
        plan_pieces(tmp_path / "missing.parquet")


def test_parquet_pieces_are_runs_of_row_groups_in_order(tmp_path: Path) -> None:
    table = pa.Table.from_pylist(case_rows(1_000))
    (tmp_path / "ds").mkdir()
    pq.write_table(table.slice(0, 700), tmp_path / "ds" / "b.parquet", row_group_size=100)
    pq.write_table(table.slice(700), tmp_path / "ds" / "a.parquet", row_group_size=100)
    pieces = plan_pieces(tmp_path / "ds", piece_rows=250)
    assert [p.seq for p in pieces] == list(range(len(pieces)))
    assert [(Path(p.path).name, p.row_groups) for p in pieces] == [
        ("a.parquet", (0, 1, 2)),
        ("b.parquet", (0, 1, 2)),
        ("b.parquet", (3, 4, 5)),
        ("b.parquet", (6,)),
    ]


def test_jsonl_pieces_are_line_aligned_and_numbered(tmp_path: Path) -> None:
    from vqagrade.io.rows import _iter_jsonl

    src = tmp_path / "in.jsonl"
    lines = [json.dumps(r) for r in case_rows(300)]
    lines[5] = "{broken"
    lines[150] = ""
    src.write_text("\n".join(lines) + "\n")
    pieces = plan_pieces(src, piece_bytes=4_000)
    assert len(pieces) > 5
    assert pieces[0].start == 0 and pieces[-1].end == src.stat().st_size
    assert all(a.end == b.start for a, b in zip(pieces, pieces[1:], strict=False))
    data = src.read_bytes()
    rows = []
    for p in pieces:
        assert p.start == 0 or data[p.start - 1 : p.start] == b"\n"
        rows += list(_iter_jsonl(io.BytesIO(data[p.start : p.end]), str(src), p.skipped))
    assert rows == list(read_rows(src))


def test_gzip_and_csv_are_one_piece(tmp_path: Path) -> None:
    for name in ("in.jsonl.gz", "in.csv"):
        (tmp_path / name).write_bytes(b"")
        [piece] = plan_pieces(tmp_path / name)
        assert piece.kind == "rows"
