"""Outputs that cannot destroy inputs or look complete when they are not (issue 15's
reproductions), run as real `vqagrade` processes on real files.

Each case asserts what the user sees: the exit status and a one-line message, the input's
bytes unchanged, no partial file at OUT (and no temporary file left beside it), one output
row per input row, no traceback. Nothing here is timed: a signal is sent once the run is
seen writing, and the test then waits for the process to end.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scale_support import workload_rows
from vqagrade.io.rows import read_rows

KIDNEY = "Is the lesion in the left or right kidney?"


def _vqagrade(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vqagrade", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def _refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vqagrade: "), done.stderr
    for w in words:
        assert w in lines[0]


def _rows(n: int) -> list[dict[str, Any]]:
    return [
        {"id": f"r{i}", "question": KIDNEY, "gt": "left", "pred": f"The left kidney ({i})."}
        for i in range(n)
    ]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> bytes:
    data = b"".join(orjson.dumps(r) + b"\n" for r in rows)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path.read_bytes()


def _no_leftovers(folder: Path) -> None:
    left = [p.name for p in folder.iterdir() if p.name.endswith(".part")]
    assert not left, left


# ---- OUT is the input -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a.jsonl", "a.jsonl.gz", "a.csv"])
def test_out_equal_to_in_is_refused(tmp_path: Path, name: str) -> None:
    src = tmp_path / name
    if name.endswith(".csv"):
        src.write_text("id,question,gt,pred\n1,Left or right?,left,left\n")
        before = src.read_bytes()
    else:
        before = _jsonl(src, _rows(50))
    _refused(_vqagrade("score", src, "-o", src), "is the input")
    assert src.read_bytes() == before
    _no_leftovers(tmp_path)


def test_out_equal_to_in_parquet_and_with_workers(tmp_path: Path) -> None:
    src = tmp_path / "a.parquet"
    pq.write_table(pa.Table.from_pylist(_rows(200)), src)
    before = src.read_bytes()
    _refused(_vqagrade("score", src, "-o", src), "is the input")
    _refused(_vqagrade("score", src, "-o", src, "--workers", "2"), "is the input")
    assert src.read_bytes() == before
    # Through another spelling of the same path.
    _refused(_vqagrade("score", "a.parquet", "-o", "./sub/../a.parquet", cwd=tmp_path))
    assert src.read_bytes() == before


def test_a_symlink_or_hard_link_to_the_input_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "a.jsonl"
    before = _jsonl(src, _rows(50))
    (tmp_path / "link.jsonl").symlink_to(src)
    os.link(src, tmp_path / "hard.jsonl")
    _refused(_vqagrade("score", src, "-o", tmp_path / "link.jsonl"), "is the input")
    _refused(_vqagrade("score", tmp_path / "link.jsonl", "-o", src), "is the input")
    _refused(_vqagrade("score", src, "-o", tmp_path / "hard.jsonl", "--workers", "2"))
    assert src.read_bytes() == before


def test_an_output_through_a_symlink_replaces_the_file_it_points_to(tmp_path: Path) -> None:
    src = tmp_path / "a.jsonl"
    _jsonl(src, _rows(5))
    real = tmp_path / "real.jsonl"
    real.write_text("earlier\n")
    (tmp_path / "link.jsonl").symlink_to(real)
    assert _vqagrade("score", src, "-o", tmp_path / "link.jsonl").returncode == 0
    assert (tmp_path / "link.jsonl").is_symlink()
    assert len(real.read_text().splitlines()) == 5
    _no_leftovers(tmp_path)


def test_junit_over_the_input_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "a.jsonl"
    before = _jsonl(src, _rows(5))
    _refused(_vqagrade("score", src, "-o", tmp_path / "out.jsonl", "--junit", src))
    assert src.read_bytes() == before
    assert not (tmp_path / "out.jsonl").exists()


def test_an_output_inside_a_folder_input_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(_rows(20)), folder / "part-0.parquet")
    before = (folder / "part-0.parquet").read_bytes()
    _refused(_vqagrade("score", folder, "-o", folder / "graded.parquet"), "inside the input")
    assert sorted(p.name for p in folder.iterdir()) == ["part-0.parquet"]
    assert (folder / "part-0.parquet").read_bytes() == before


# ---- Ray: never deletes what it did not write ---------------------------------------------


@pytest.mark.ray
def test_ray_refuses_an_input_inside_its_output_folder(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(_rows(20)), folder / "x.parquet")
    before = (folder / "x.parquet").read_bytes()
    # score d -o d, and score x.parquet -o . (each with --overwrite)
    _refused(_vqagrade("score", folder, "-o", folder, "--engine", "ray", "--overwrite"))
    _refused(
        _vqagrade("score", "x.parquet", "-o", ".", "--engine", "ray", "--overwrite", cwd=folder)
    )
    assert [p.name for p in folder.iterdir()] == ["x.parquet"]
    assert (folder / "x.parquet").read_bytes() == before


@pytest.mark.ray
def test_ray_overwrite_keeps_datasets_it_did_not_write(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(_rows(20)), src)
    out = tmp_path / "out"
    out.mkdir()
    pq.write_table(pa.Table.from_pylist(_rows(3)), out / "other.parquet")
    _refused(
        _vqagrade("score", src, "-o", out, "--engine", "ray", "--overwrite"),
        "did not write",
    )
    assert [p.name for p in out.iterdir()] == ["other.parquet"]
    _no_leftovers(tmp_path)


# ---- interrupted runs ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 150k rows: long enough that a signal lands mid-run."""
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    block = b"".join(orjson.dumps(r) + b"\n" for r in workload_rows(30_000))
    path.write_bytes(block * 5)
    return path


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(c) for c in text)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_writing(proc: subprocess.Popen[bytes], folder: Path) -> None:
    """Until the run has written its first rows into the temporary file."""
    while proc.poll() is None:
        parts = [p for p in folder.iterdir() if p.name.endswith(".part")]
        if parts and any(p.stat().st_size > 0 for p in parts):
            return
        time.sleep(0.02)
    raise AssertionError("the run ended before it was interrupted")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "workers", "out_name"),
    [
        (signal.SIGTERM, "1", "out.jsonl"),
        (signal.SIGINT, "1", "out.csv.gz"),
        (signal.SIGTERM, "2", "out.parquet"),
        (signal.SIGINT, "2", "out.jsonl"),
    ],
)
def test_an_interrupted_run_leaves_no_output(
    tmp_path: Path, big_input: Path, sig: signal.Signals, workers: str, out_name: str
) -> None:
    before = big_input.stat().st_size, big_input.stat().st_mtime_ns
    out = tmp_path / out_name
    out_args = ["-o", str(out), "--workers", workers, "--quiet", "--junit", tmp_path / "j.xml"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "vqagrade", "score", str(big_input), *map(str, out_args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # Ctrl-C as at a terminal: a job started in the background inherits SIGINT ignored.
        preexec_fn=_default_sigint,
    )
    try:
        _wait_writing(proc, tmp_path)
        children = _children(proc.pid)
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)  # Ctrl-C: the terminal signals the whole group
        else:
            os.kill(proc.pid, sig)  # a job scheduler's SIGTERM: the main process only
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    stderr = err.decode()
    assert proc.returncode != 0
    assert "Traceback" not in stderr, stderr
    assert not out.exists() and not (tmp_path / "j.xml").exists()
    _no_leftovers(tmp_path)
    assert (big_input.stat().st_size, big_input.stat().st_mtime_ns) == before
    # No worker outlives the run (PPID 1, blocked): give them a moment to exit, then check.
    for _ in range(500):
        if not any(_alive(c) for c in children):
            break
        time.sleep(0.02)
    assert not any(_alive(c) for c in children)


@pytest.mark.slow
def test_workers_exit_when_their_parent_is_killed(tmp_path: Path, big_input: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vqagrade", "score", str(big_input), "-o",
         str(tmp_path / "out.jsonl"), "--workers", "2", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        _wait_writing(proc, tmp_path)
        while len(_children(proc.pid)) < 2 and proc.poll() is None:
            time.sleep(0.02)
        children = _children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        for _ in range(1_000):
            if not any(_alive(c) for c in children):
                break
            time.sleep(0.02)
        assert not any(_alive(c) for c in children)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert not (tmp_path / "out.jsonl").exists()


def test_a_failed_run_leaves_no_output(tmp_path: Path) -> None:
    """A gzip input that breaks mid-stream: exit 2, and no prefix of the output at OUT."""
    data = gzip.compress(b"".join(orjson.dumps(r) + b"\n" for r in _rows(20_000)))
    src = tmp_path / "cut.jsonl.gz"
    src.write_bytes(data[: len(data) // 2])
    out = tmp_path / "out.jsonl"
    done = _vqagrade("score", src, "-o", out)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert not out.exists()
    _no_leftovers(tmp_path)


def test_an_earlier_output_survives_a_failed_run(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("earlier\n")
    data = gzip.compress(b"".join(orjson.dumps(r) + b"\n" for r in _rows(20_000)))
    src = tmp_path / "cut.jsonl.gz"
    src.write_bytes(data[: len(data) // 2])
    assert _vqagrade("score", src, "-o", out).returncode == 2
    assert out.read_text() == "earlier\n"


# ---- writers never abort a run --------------------------------------------------------------


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for i in range(depth):
        value = {"k": value} if i % 2 else [value]
    return value


def _deep_input(path: Path, depths: list[int]) -> None:
    lines = []
    for i, d in enumerate(depths):
        row = {"id": f"d{i}", "question": KIDNEY, "gt": "left", "pred": "left", "extra": _deep(d)}
        lines.append(json.dumps(row) if d < 900 else _nested_line(row, d))
    lines.append(json.dumps({"id": "after", "question": KIDNEY, "gt": "left", "pred": "right"}))
    path.write_text("\n".join(lines) + "\n")


def _nested_line(row: dict[str, Any], depth: int) -> str:
    """A JSON line nested ``depth`` deep, written without recursion."""
    head = json.dumps({k: v for k, v in row.items() if k != "extra"})[:-1]
    opens = "".join('{"k":' if i % 2 else "[" for i in reversed(range(depth)))
    closes = "".join("}" if i % 2 else "]" for i in range(depth))
    return f'{head}, "extra": {opens}"leaf"{closes}}}'


@pytest.mark.parametrize("out_name", ["out.jsonl", "out.csv", "out.parquet", "out.jsonl.gz"])
def test_deep_fields_are_written_as_json_text(tmp_path: Path, out_name: str) -> None:
    src = tmp_path / "deep.jsonl"
    depths = [3, 60, 300, 600, 1000]
    _deep_input(src, depths)
    out = tmp_path / out_name
    done = _vqagrade("score", src, "-o", out)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    if out_name.endswith(".parquet"):
        rows = pq.read_table(out).to_pylist()  # Parquet that pyarrow reads back
    else:
        rows = [r.data for r in read_rows(out)]
    assert len(rows) == len(depths) + 1
    assert [r["id"] for r in rows] == [f"d{i}" for i in range(len(depths))] + ["after"]
    assert [r["method"] for r in rows] == ["rule"] * (len(depths) + 1)
    for r, d in zip(rows, depths, strict=False):
        extra = r["extra"]
        if isinstance(extra, str):  # written as its JSON text
            assert extra.count("[") + extra.count("{") == d and extra.count("leaf") == 1
        else:
            assert d <= 200 and extra == _deep(d)


def test_parquet_values_that_do_not_fit_become_error_rows(tmp_path: Path) -> None:
    """The first rows fix a column's type; a later value of another type keeps its row."""
    rows = [dict(r, extra=i) for i, r in enumerate(_rows(9_000))]
    rows[8_500]["extra"] = {"not": "an int"}
    rows[8_600]["extra"] = _deep(100)
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    out = tmp_path / "out.parquet"
    done = _vqagrade("score", src, "-o", out)
    assert done.returncode == 0, done.stderr
    got = pq.read_table(out).to_pylist()
    assert [r["id"] for r in got] == [r["id"] for r in rows]
    bad = [r for r in got if r["method"] == "error"]
    assert [r["id"] for r in bad] == ["r8500", "r8600"]
    assert "'extra' (int64)" in bad[0]["reason"]
    assert json.loads(bad[0]["raw"]) == {"extra": {"not": "an int"}}


def test_csv_cells_that_spreadsheets_would_run_are_quoted(tmp_path: Path) -> None:
    formulas = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3",
                "\tTAB", "\rCR"]  # fmt: skip
    rows = [
        {"id": str(i), "question": KIDNEY, "gt": "left", "pred": f, "note": f}
        for i, f in enumerate(formulas)
    ]
    rows.append({"id": "n", "question": KIDNEY, "gt": "left", "pred": "left", "note": -5})
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    out = tmp_path / "out.csv"
    assert _vqagrade("score", src, "-o", out).returncode == 0
    got = list(csv.DictReader(io.StringIO(out.read_bytes().decode(), newline="")))
    assert [r["note"] for r in got] == ["'" + f for f in formulas] + ["-5"]
    assert [r["pred"] for r in got][:6] == ["'" + f for f in formulas]
    raw = tmp_path / "raw.csv"
    assert _vqagrade("score", src, "-o", raw, "--csv-raw").returncode == 0
    got = list(csv.DictReader(io.StringIO(raw.read_bytes().decode(), newline="")))
    assert [r["note"] for r in got] == formulas + ["-5"]


def test_a_semicolon_csv_names_its_delimiter(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("question;gt;pred\nLeft or right?;left;left\n")
    done = _vqagrade("score", src, "-o", tmp_path / "out.jsonl")
    _refused(done, "';'-delimited")
    assert not (tmp_path / "out.jsonl").exists()


# ---- memory bounded by bytes ------------------------------------------------------------------


_RSS_CHILD = r"""
import resource, sys
from vqagrade.grader import Grader

n, size = int(sys.argv[1]), int(sys.argv[2])
grader = Grader()
words = "the left kidney shows a small lesion near the lower pole and no other finding "
q = "Is the lesion in the left or right kidney?"
rows = ({"question": q, "gt": "left", "pred": f"{i} " + (words * (size // len(words) + 1))[:size]}
        for i in range(n))
count = sum(1 for _ in grader.grade_rows(rows))
print(count, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_rss_mb(n: int, size: int) -> tuple[int, float]:
    done = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(n), str(size)],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    count, kb = done.stdout.split()
    return int(count), int(kb) / 1024


@pytest.mark.slow
def test_long_distinct_predictions_keep_memory_bounded() -> None:
    """Distinct 20 KB predictions cost ~260 KB each when memoised: 3,000 of them ~800 MB.
    Now they are graded afresh and never held (and shorter ones are held up to a budget)."""
    base_count, base = _peak_rss_mb(10, 100)
    count, long = _peak_rss_mb(3_000, 20_000)
    assert (base_count, count) == (10, 3_000)
    assert long - base < 250, (base, long)
