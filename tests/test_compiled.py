"""The compiled rule modules (mypyc) and the plain Python source grade identically.

The source files are copied, without any compiled extension, into a temporary tree and run
in a child process over every golden case; its outcomes must equal this process's, which
uses the compiled modules when they are built.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import vqagrade
from vqagrade import Grader
from vqagrade._compiled import MODULES, compiled_modules

ROOT = Path(__file__).resolve().parents[1]
CASES = Path(__file__).parent / "cases"

CHILD = """
import json, sys
from vqagrade import Grader
import vqagrade.text
assert vqagrade.text.__file__.endswith(".py"), vqagrade.text.__file__
g = Grader()
out = []
for line in sys.stdin:
    c = json.loads(line)
    o = g.outcome(c["question"], c["gt"], c["pred"])
    out.append([o.score, o.method.value, o.reason, list(o.options or [])])
print(json.dumps(out))
"""


def _cases() -> list[dict[str, str]]:
    rows = []
    for path in sorted(CASES.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                c = json.loads(line)
                rows.append({k: c[k] for k in ("question", "gt", "pred")})
    return rows


def test_plain_python_and_compiled_grade_alike(tmp_path: Path) -> None:
    package = Path(vqagrade.__file__).parent
    tree = tmp_path / "src" / "vqagrade"
    shutil.copytree(package, tree, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for data in ("lexicons", "prompts"):
        shutil.copytree(ROOT / data, tmp_path / data)
    rows = _cases()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        input="".join(json.dumps(r) + "\n" for r in rows),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    plain = json.loads(child.stdout)
    g = Grader()
    here = []
    for r in rows:
        o = g.outcome(r["question"], r["gt"], r["pred"])
        here.append([o.score, o.method.value, o.reason, list(o.options or [])])
    assert len(plain) == len(rows) > 1000
    diffs = [(r, a, b) for r, a, b in zip(rows, here, plain, strict=True) if a != b]
    assert not diffs, diffs[:5]


def test_compiled_modules_are_known() -> None:
    assert set(compiled_modules()) <= set(MODULES)
