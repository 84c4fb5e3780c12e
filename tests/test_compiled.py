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

import pytest

import vqagrade
from scale_support import ROOT, case_rows
from vqagrade import Grader
from vqagrade._compiled import compiled_modules, rule_modules

CHILD = """
import json, sys
from vqagrade import Grader
import vqagrade.rules.text
assert vqagrade.rules.text.__file__.endswith(".py"), vqagrade.rules.text.__file__
rows = [json.loads(line) for line in sys.stdin]
print(json.dumps(list(Grader().grade_rows(rows))))
"""


def test_plain_python_and_compiled_grade_alike(tmp_path: Path) -> None:
    package = Path(vqagrade.__file__).parent
    tree = tmp_path / "src" / "vqagrade"
    shutil.copytree(package, tree, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for data in ("lexicons", "prompts"):
        shutil.copytree(ROOT / data, tmp_path / data)
    rows = case_rows()
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
    here = list(Grader().grade_rows(rows))
    assert len(plain) == len(rows) > 1000
    diffs = [(a, b) for a, b in zip(here, plain, strict=True) if a != b]
    assert not diffs, diffs[:5]


def test_every_rule_module_is_compiled() -> None:
    """The build compiles every module of `vqagrade.rules`; VQAGRADE_COMPILE=0 opts out."""
    if os.environ.get("VQAGRADE_COMPILE", "1") == "0":
        pytest.skip("VQAGRADE_COMPILE=0: the rules run as plain Python on purpose")
    assert compiled_modules() == rule_modules(), "rule modules not compiled: run make compile"
