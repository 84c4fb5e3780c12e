"""Rows for the scale tests: the golden cases (every tricky shape) and the benchmark workload."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"

# A user lexicon that settles rows the shipped one cannot: "lien" is Latin for the spleen.
LEXICON_TOML = '[meta]\nname = "mine"\nsource = "test"\n[synonyms]\nspleen = ["lien"]\n'
LIEN_ROW = {
    "id": "lien",
    "question": "Is the lesion in the spleen or the liver?",
    "gt": "spleen",
    "pred": "the lien",
}


@cache
def _cases() -> tuple[dict[str, Any], ...]:
    rows = []
    for path in sorted(CASES.glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            row = {k: case[k] for k in ("id", "question", "gt", "pred")}
            if case.get("options"):
                row["option_a"], row["option_b"] = case["options"]
            rows.append(row)
    return tuple(rows)


def case_rows(n: int | None = None) -> list[dict[str, Any]]:
    """The golden cases as input rows, repeated (with new ids) up to ``n`` rows."""
    cases = _cases()
    if n is None:
        return [dict(r) for r in cases]
    return [dict(cases[i % len(cases)], id=f"c{i}") for i in range(n)]


def workload_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """The first ``n`` rows of the benchmark workload (benchmarks/workload.py)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from workload import generate
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return list(generate(n, seed))
