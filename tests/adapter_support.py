"""What the framework adapters are checked against: `vqagrade score` run on the same rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample.jsonl"


def sample_rows() -> list[dict[str, Any]]:
    """The sample's rows with a ground truth (rule decisions, abstentions) plus a 0.5, explicit
    options and an empty answer."""
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if "gt" in r]
    rows.append(
        {
            "id": "explicit",
            "question": "Which sequence shows the lesion best?",
            "gt": "T2",
            "pred": "It is brightest on the T2 image.",
            "option_a": "T1",
            "option_b": "T2",
        }
    )
    rows.append(
        {
            "id": "half",
            "question": "Which organ is abnormal, heart or lung?",
            "gt": "Heart",
            "pred": "Both the heart and the lung are abnormal.",
        }
    )
    rows.append({"id": "empty", "question": "Is this a CT or an MRI?", "gt": "CT", "pred": ""})
    return rows


def cli_graded(rows: list[dict[str, Any]], tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    """Each row as `vqagrade score [args]` grades it (JSON lines in and out, a real process)."""
    src, out = tmp_path / "cli_in.jsonl", tmp_path / "cli_out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "vqagrade", "score", str(src), "-o", str(out), "--quiet", *args],
        check=True,
        capture_output=True,
    )
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
