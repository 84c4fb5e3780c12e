"""Scale benchmark: the same Parquet workload at 1 and N workers and under the Ray engine.

    python benchmarks/scale.py                     # 1,000,000 rows, 1 and all-cores workers, Ray
    python benchmarks/scale.py --rows 200000       # quicker
    python benchmarks/scale.py --workers 1,2,4 --no-ray

The JSON lines workload of ``workload.py`` is converted once to Parquet
(``benchmarks/out/workload-<rows>.parquet``, 64k-row row groups). Every measurement runs in a
fresh child process started by a small launcher, which times it and samples the resident
memory of the child *and all its descendants* (worker processes, Ray's daemons) every 50 ms:
``peak RSS`` is the largest sum seen, ``max proc`` the largest single process (``ru_maxrss``).
Children call the library directly (``grade_parallel``, ``run_ray``), reading Parquet and
writing Parquet. Prints a table and writes ``benchmarks/out/scale.json``. POSIX only.

Goals: N workers >= 0.8 x N x the 1-worker rate on a quiet machine; memory flat in the input
size (compare the 1M run with the ``--memory-rows`` one); Ray output identical to the
single-process output. ``CPU s`` (the tree's user+sys time) shows the cost of parallelism
apart from how busy the machine was: N workers should need little more CPU than one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
sys.path.insert(0, str(HERE))

from speed import ensure_workload, machine, warm_cache  # noqa: E402

# The launcher: spawns argv, samples the RSS of its process tree, reports as one JSON line.
LAUNCHER = r"""
import json, os, sys, threading, time
err, argv = sys.argv[1], sys.argv[2:]

def tree_rss(root):
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kids.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(kids.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total

peak = 0
done = threading.Event()
def sample(pid):
    global peak
    while not done.wait(0.05):
        peak = max(peak, tree_rss(pid))

actions = [
    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
    (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
sampler = threading.Thread(target=sample, args=(pid,), daemon=True)
sampler.start()
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
done.set()
sampler.join()
print(json.dumps({"seconds": seconds, "maxrss_kb": usage.ru_maxrss, "tree_peak": peak,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "exit": os.waitstatus_to_exitcode(status)}))
"""

# The children: the library, Parquet in and out.
WORKERS_CHILD = """
import sys
from vqagrade.io.rows import open_writer, read_rows
from vqagrade.engines.processes import grade_parallel

def main():
    src, dst, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open_writer(dst) as writer:
        for row in grade_parallel(read_rows(src), workers=workers):
            writer.write(row)

if __name__ == "__main__":
    main()
"""
RAY_CHILD = """
import sys
from vqagrade.engines.ray import run_ray

if __name__ == "__main__":
    run_ray(sys.argv[1], sys.argv[2], overwrite=True, num_cpus=int(sys.argv[3]))
"""


@dataclass
class Run:
    """One child process: what it did, how long, how much memory, rows written."""

    name: str
    rows_in: int
    seconds: float
    cpu_seconds: float
    peak_rss_mb: float
    max_proc_mb: float
    exit_code: int
    rows_out: int | None = None

    @property
    def rows_per_s(self) -> float:
        return self.rows_in / self.seconds if self.seconds else 0.0


def ensure_parquet(rows: int, seed: int) -> Path:
    """The Parquet twin of the JSON lines workload, converted on first use."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = ensure_workload(rows, seed)
    dst = src.with_suffix(".parquet")
    if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
        return dst
    start = time.perf_counter()
    tmp = dst.with_name(dst.name + ".part")
    schema = pa.schema([(k, pa.string()) for k in ("id", "question", "gt", "pred")])
    with open(src, "rb") as f, pq.ParquetWriter(tmp, schema) as writer:
        batch: list[dict[str, Any]] = []
        for line in f:
            batch.append(json.loads(line))
            if len(batch) == 65_536:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    tmp.replace(dst)
    took = time.perf_counter() - start
    print(f"converted {src.name} to {dst.name} ({dst.stat().st_size / 1e6:.1f} MB) in {took:.1f} s")
    return dst


def run_child(name: str, argv: list[str], rows: int) -> Run:
    """Run argv through the launcher: wall time, peak RSS of its tree, its exit code."""
    with tempfile.NamedTemporaryFile(suffix=".stderr") as err:
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCHER, err.name, *argv],
            capture_output=True,
            text=True,
            check=False,
        )
        if launched.returncode != 0:
            raise SystemExit(f"[{name}] launcher failed: {launched.stderr}")
        report = json.loads(launched.stdout.strip().splitlines()[-1])
        if report["exit"] != 0:
            tail = Path(err.name).read_text("utf-8", "replace")[-3000:]
            print(f"\n[{name}] exited with {report['exit']}\n{tail}")
    return Run(
        name,
        rows,
        report["seconds"],
        report["cpu"],
        report["tree_peak"] / 1e6,
        report["maxrss_kb"] / 1024,
        report["exit"],
    )


def count_parquet_rows(path: Path) -> int | None:
    from vqagrade.io.rows import count_rows

    try:
        return count_rows(path)
    except Exception:  # a failed run leaves nothing readable
        return None


def same_rows(a: Path, b: Path) -> bool:
    """Whether two Parquet outputs hold the same rows in the same order (streamed)."""
    from itertools import zip_longest

    from vqagrade.io.rows import read_rows

    for x, y in zip_longest(read_rows(a), read_rows(b)):
        if x is None or y is None or x.data != y.data:
            where = (x or y).line if (x or y) else "?"
            if x is None or y is None:
                print(f"  {b.name}: row counts differ from row {where} on")
            else:
                dx, dy = x.data or {}, y.data or {}
                keys = sorted(k for k in {*dx, *dy} if dx.get(k) != dy.get(k))
                print(f"  {b.name}: first difference at row {where}: {keys}")
                for k in keys[:3]:
                    print(f"    {k}: {dx.get(k)!r} != {dy.get(k)!r}")
            return False
    return True


def measure(name: str, child: str, src: Path, dst: Path, rows: int, arg: int, repeat: int) -> Run:
    runs = []
    for _ in range(repeat):
        if dst.is_dir():
            shutil.rmtree(dst)
        dst.unlink(missing_ok=True)
        run = run_child(name, [sys.executable, "-c", child, str(src), str(dst), str(arg)], rows)
        run.rows_out = count_parquet_rows(dst)
        runs.append(run)
    runs.sort(key=lambda r: r.seconds)
    return runs[len(runs) // 2]


def print_table(runs: list[Run], base: Run) -> None:
    head = f"{'measurement':<26}{'wall s':>8}{'CPU s':>8}{'rows/s':>10}{'x 1 worker':>11}"
    print(f"\n{head}{'peak RSS MB':>13}{'max proc MB':>13}{'rows out':>11}")
    print("-" * 100)
    for r in runs:
        ratio = r.rows_per_s / base.rows_per_s if base.rows_per_s else 0.0
        out = "-" if r.rows_out is None else f"{r.rows_out:,}"
        print(
            f"{r.name:<26}{r.seconds:>8.2f}{r.cpu_seconds:>8.1f}{r.rows_per_s:>10,.0f}"
            f"{ratio:>11.2f}{r.peak_rss_mb:>13.1f}{r.max_proc_mb:>13.1f}{out:>11}"
        )


def main(argv: list[str] | None = None) -> int:
    from vqagrade.engines.processes import default_workers

    cores = default_workers()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument(
        "--memory-rows", type=int, default=2_000_000,
        help="a second, larger input for the memory check at N workers (0: skip)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", default=f"1,{cores}", help="comma-separated worker counts")
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray engine")
    parser.add_argument("-o", "--output", type=Path, default=OUT / "scale.json")
    args = parser.parse_args(argv)
    counts = sorted({int(w) for w in args.workers.split(",")})
    if 1 not in counts:
        counts.insert(0, 1)

    OUT.mkdir(parents=True, exist_ok=True)
    big = ensure_parquet(args.rows, args.seed)
    bigger = ensure_parquet(args.memory_rows, args.seed) if args.memory_rows else None
    warm_cache(big)
    scratch = OUT / "scale-scratch"
    scratch.mkdir(exist_ok=True)

    runs: list[Run] = []
    outputs: dict[str, Path] = {}
    for w in counts:
        dst = scratch / f"workers-{w}.parquet"
        runs.append(measure(f"{w} worker(s)", WORKERS_CHILD, big, dst, args.rows, w, args.repeat))
        outputs[runs[-1].name] = dst
    top = max(counts)
    memory_run = None
    if bigger is not None:
        warm_cache(bigger)
        memory_run = measure(
            f"{top} worker(s), {args.memory_rows / 1e6:g}M rows", WORKERS_CHILD, bigger,
            scratch / "bigger.parquet", args.memory_rows, top, 1,
        )  # fmt: skip
        runs.append(memory_run)
    ray_run = None
    if not args.no_ray:
        dst = scratch / "ray"
        ray_run = measure(f"ray (local, {cores} cpus)", RAY_CHILD, big, dst, args.rows, cores, 1)
        runs.append(ray_run)
        outputs[ray_run.name] = dst

    base = runs[0]
    print_table(runs, base)
    ok = all(r.exit_code == 0 and r.rows_out == r.rows_in for r in runs)
    identical = {
        name: same_rows(outputs[base.name], path)
        for name, path in outputs.items()
        if name != base.name
    }
    full_top = next(r for r in runs if r.name == f"{top} worker(s)")
    speedup = full_top.rows_per_s / base.rows_per_s if base.rows_per_s else 0.0
    goal = 0.8 * top
    print(f"\nrows out == rows in: {'yes' if ok else 'NO'}")
    for name, same in identical.items():
        print(f"{name}: output {'identical to' if same else 'DIFFERS from'} 1 worker's")
    print(
        f"{top} workers: {speedup:.2f}x the 1-worker rate "
        f"({'meets' if speedup >= goal else 'MISSES'} the {goal:.1f}x goal on {cores} cores)"
    )
    if memory_run is not None:
        print(
            f"memory at {top} workers: peak RSS {full_top.peak_rss_mb:.0f} MB at {args.rows:,} "
            f"rows, {memory_run.peak_rss_mb:.0f} MB at {args.memory_rows:,} rows"
        )
    shutil.rmtree(scratch, ignore_errors=True)

    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "rows": args.rows,
        "workload": str(big),
        "runs": [asdict(r) | {"rows_per_s": r.rows_per_s} for r in runs],
        "speedup": speedup,
        "cpu_efficiency": (base.cpu_seconds / full_top.cpu_seconds)
        if full_top.cpu_seconds
        else None,
        "speedup_goal": goal,
        "identical_to_1_worker": identical,
        "ok": ok and all(identical.values()),
    }
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
