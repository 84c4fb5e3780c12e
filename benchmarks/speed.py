"""Speed benchmark: ``vqagrade score`` against a bare JSON read+write loop on the same rows.

Every measurement runs in a fresh child process; wall time is taken around the child, and its
peak RSS comes from ``os.wait4`` (the child's own rusage, no extra dependency). POSIX only.

    python benchmarks/speed.py                # 1,000,000 rows (workload generated if missing)
    python benchmarks/speed.py --rows 200000  # quicker
    python benchmarks/speed.py --cmd "vqagrade score {input} -o {output}"

Prints a table and writes ``benchmarks/out/speed.json``. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import statistics
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

from workload import write_workload  # noqa: E402

# One core: the target is per core; the default run uses every core (measured separately).
SCORE_CMD = "{python} -m vqagrade score {input} -o {output} --workers 1"
SCORE_ALL_CMD = "{python} -m vqagrade score {input} -o {output}"
HELP_CMD = "{python} -m vqagrade --help"
TARGET_ROWS_PER_S = 50_000

# The baselines: what it costs just to read and write these rows, with nothing in between.
JSON_BASELINE = """
import json, sys
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as dst:
    for line in src:
        if line.strip():
            dst.write(json.dumps(json.loads(line)) + "\\n")
"""
ORJSON_BASELINE = """
import orjson, sys
with open(sys.argv[1], "rb") as src, open(sys.argv[2], "wb") as dst:
    for line in src:
        if line.strip():
            dst.write(orjson.dumps(orjson.loads(line), option=orjson.OPT_APPEND_NEWLINE))
"""


# Children are spawned by this tiny launcher, not by the benchmark itself: on Linux a child's
# ru_maxrss can never be lower than its spawner's peak RSS (the kernel carries the pre-exec
# high-water mark over), and this script holds far more than a fresh interpreter does. The
# launcher's own peak (~9 MB) is therefore the floor of every RSS figure.
LAUNCHER = r"""
import os, sys, time
err, argv = sys.argv[1], sys.argv[2:]
actions = [
    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
    (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


@dataclass
class Run:
    """One child process: what ran, how long, how much memory, how many rows came out."""

    name: str
    argv: list[str]
    seconds: float
    peak_rss_mb: float
    exit_code: int
    rows_in: int | None = None
    rows_out: int | None = None

    @property
    def rows_per_s(self) -> float | None:
        return self.rows_in / self.seconds if self.rows_in and self.seconds else None


def run_child(name: str, argv: list[str], rows_in: int | None = None) -> Run:
    """Run argv to completion through the launcher; wall time and the child's peak RSS."""
    with tempfile.NamedTemporaryFile(suffix=".stderr") as err:
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCHER, err.name, *argv],
            capture_output=True,
            text=True,
            check=False,
        )
        if launched.returncode != 0:
            raise SystemExit(f"[{name}] cannot start {shlex.join(argv)}: {launched.stderr}")
        seconds_s, maxrss_s, code_s = launched.stdout.split()
        exit_code = int(code_s)
        if exit_code != 0:
            tail = Path(err.name).read_text("utf-8", "replace")[-2000:]
            print(f"\n[{name}] exited with {exit_code}: {shlex.join(argv)}\n{tail}")
    # ru_maxrss is KiB on Linux, bytes on macOS.
    rss = int(maxrss_s) / (1 << 20 if sys.platform == "darwin" else 1 << 10)
    return Run(name, argv, float(seconds_s), rss, exit_code, rows_in)


def count_lines(path: Path) -> int:
    """Non-blank lines in a JSON lines file (0 if it does not exist)."""
    if not path.exists():
        return 0
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                n += 1
    return n


def ensure_workload(rows: int, seed: int, *, distinct: bool = False) -> Path:
    """The workload file for ``rows`` rows, generated on first use."""
    name = (
        f"workload-{rows}" + ("" if seed == 0 else f"-s{seed}") + ("-distinct" if distinct else "")
    )
    path = OUT / f"{name}.jsonl"
    if not path.exists():
        start = time.perf_counter()
        write_workload(path, rows, seed, distinct=distinct)
        took = time.perf_counter() - start
        print(f"generated {path.name}: {path.stat().st_size / 1e6:.1f} MB in {took:.1f} s")
    return path


def expand(template: str, **values: str) -> list[str]:
    """Split a command template and fill {python}, {input}, {output}."""
    return [part.format(python=sys.executable, **values) for part in shlex.split(template)]


def measure_io(name: str, argv: list[str], src: Path, dst: Path, rows: int, repeat: int) -> Run:
    """Median-time run of a row-in/row-out command; rows out counted from dst."""
    runs = []
    for _ in range(repeat):
        dst.unlink(missing_ok=True)
        run = run_child(name, argv, rows)
        run.rows_out = count_lines(dst)
        runs.append(run)
    runs.sort(key=lambda r: r.seconds)
    return runs[len(runs) // 2]


def _compiled_modules(python: str) -> list[str]:
    """The rule modules the measured interpreter loads compiled (see `make compile`)."""
    code = "from vqagrade._compiled import compiled_modules as c; print(' '.join(c()))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return out.stdout.split()


def warm_cache(path: Path) -> None:
    """Read a file once so every contender starts with it in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
    }


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(runs: list[Run], help_median: float, rows: int) -> None:
    print(f"\n{'measurement':<28}{'wall s':>9}{'rows/s':>12}{'peak RSS MB':>13}{'rows out':>11}")
    print("-" * 71)
    for r in runs:
        out = "-" if r.rows_out is None else f"{r.rows_out:,}"
        print(
            f"{r.name:<28}{r.seconds:>9.2f}{_fmt(r.rows_per_s, ',.0f'):>12}"
            f"{r.peak_rss_mb:>13.1f}{out:>11}"
        )
    print(f"{'vqagrade --help (median)':<28}{help_median:>9.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows in the main workload")
    parser.add_argument("--small-rows", type=int, default=100_000, help="rows for the RSS check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    parser.add_argument("--cmd", default=SCORE_CMD, help="score command: {python} {input} {output}")
    parser.add_argument("--help-cmd", default=HELP_CMD, help="startup-time command")
    parser.add_argument("--help-runs", type=int, default=5)
    parser.add_argument("-o", "--output", type=Path, default=OUT / "speed.json")
    parser.add_argument(
        "--distinct", action="store_true", help="every pred unique (no answer repeats)"
    )
    args = parser.parse_args(argv)

    OUT.mkdir(parents=True, exist_ok=True)
    big = ensure_workload(args.rows, args.seed, distinct=args.distinct)
    small = ensure_workload(args.small_rows, args.seed, distinct=args.distinct)
    rows, small_rows = count_lines(big), count_lines(small)
    scratch = OUT / "speed-scratch.jsonl"
    warm_cache(big)

    py = sys.executable
    baseline = measure_io(
        "json baseline", [py, "-c", JSON_BASELINE, str(big), str(scratch)],
        big, scratch, rows, args.repeat,
    )  # fmt: skip
    orjson_baseline = measure_io(
        "orjson baseline", [py, "-c", ORJSON_BASELINE, str(big), str(scratch)],
        big, scratch, rows, args.repeat,
    )  # fmt: skip
    score = measure_io(
        "vqagrade score (1 core)", expand(args.cmd, input=str(big), output=str(scratch)),
        big, scratch, rows, args.repeat,
    )  # fmt: skip
    score_all = measure_io(
        "vqagrade score (all cores)", expand(SCORE_ALL_CMD, input=str(big), output=str(scratch)),
        big, scratch, rows, args.repeat,
    )  # fmt: skip
    score_small = measure_io(
        f"vqagrade score ({small_rows // 1000}k)",
        expand(args.cmd, input=str(small), output=str(scratch)),
        small, scratch, small_rows, 1,
    )  # fmt: skip
    helps = [run_child("vqagrade --help", expand(args.help_cmd)) for _ in range(args.help_runs)]
    scratch.unlink(missing_ok=True)

    help_median = statistics.median(r.seconds for r in helps)
    compiled = _compiled_modules(py)
    runs = [baseline, orjson_baseline, score, score_all, score_small]
    print_table(runs, help_median, rows)

    ratio = score.seconds / baseline.seconds
    rows_ok = all(r.rows_out == r.rows_in for r in runs)
    ok = rows_ok and all(r.exit_code == 0 for r in [*runs, *helps])
    rate = score.rows_per_s or 0.0
    print(f"\ncompiled rule modules: {', '.join(compiled) if compiled else 'none (plain Python)'}")
    print(f"vqagrade (1 core) / json baseline: {ratio:.2f}x the wall time")
    print(f"rows out == rows in: {'yes' if rows_ok else 'NO'}")
    print(
        f"memory: peak RSS {score_small.peak_rss_mb:.0f} MB at {small_rows:,} rows, "
        f"{score.peak_rss_mb:.0f} MB at {rows:,} rows"
    )
    if score.exit_code != 0 or score.rows_out != score.rows_in:
        print("throughput: not measured, the score run failed")
    else:
        verdict = "meets" if rate >= TARGET_ROWS_PER_S else "MISSES"
        print(f"throughput {rate:,.0f} rows/s {verdict} the {TARGET_ROWS_PER_S:,} rows/s target")

    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "rows": rows,
        "workload": str(big),
        "workload_mb": round(big.stat().st_size / 1e6, 1),
        "runs": [asdict(r) | {"rows_per_s": r.rows_per_s} for r in runs],
        "help_seconds": [r.seconds for r in helps],
        "help_median_seconds": help_median,
        "ratio_vs_json_baseline": ratio,
        "rows_out_equal_rows_in": rows_ok,
        "memory_flat": {
            "small_rows": small_rows,
            "small_peak_rss_mb": score_small.peak_rss_mb,
            "rows": rows,
            "peak_rss_mb": score.peak_rss_mb,
        },
        "target_rows_per_s": TARGET_ROWS_PER_S,
        "compiled_modules": compiled,
        "ok": ok,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
