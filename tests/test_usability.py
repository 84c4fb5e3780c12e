"""The small things a new user trips over: help text, error lines, remote paths, docs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vqagrade.cli import app
from vqagrade.errors import InputError
from vqagrade.io.rows import read_rows
from vqagrade.lexicon import _LIST_SECTIONS

ROOT = Path(__file__).parents[1]
KIDNEY = "Is the lesion in the left or right kidney?"
runner = CliRunner()


def _help(*command: str) -> str:
    env = {**os.environ, "COLUMNS": "80", "TERMINAL_WIDTH": "80", "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "vqagrade", *command, "--help"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return proc.stdout


def test_help_keeps_brackets_mentions_parquet_and_whole_option_names() -> None:
    text = _help("score")
    assert "vqagrade[ray]" in text
    assert ".parquet" in text
    assert "…" not in text  # rich cuts a name or word that does not fit with an ellipsis
    for name in (
        "--judge-api-key-env",
        "--judge-concurrency",
        "--judge-max-retries",
        "--min-coverage",
        "--junit-mode",
        "--group-by",
        "--price-in",
        "--map",
    ):
        assert name in text, name  # fmt: skip
    for command in ("audit", "report"):
        assert "…" not in _help(command), command


def test_an_unknown_extension_names_in_format(tmp_path: Path) -> None:
    src = tmp_path / "answers.txt"
    src.write_text(json.dumps({"question": KIDNEY, "gt": "left", "pred": "left"}) + "\n")
    res = runner.invoke(app, ["score", str(src)])
    assert res.exit_code == 2 and "--in-format" in res.stderr
    res = runner.invoke(app, ["score", str(src), "--in-format", "jsonl", "-q"])
    assert res.exit_code == 0 and json.loads(res.stdout)["method"] == "rule"


def test_paths_with_a_protocol_are_read_through_fsspec() -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    rows = [{"question": KIDNEY, "gt": "left", "pred": "left"}]
    fs.pipe("/vqagrade-test/answers.jsonl", "".join(json.dumps(r) + "\n" for r in rows).encode())
    try:
        got = [r.data for r in read_rows("memory://vqagrade-test/answers.jsonl")]
        assert got == rows
        res = runner.invoke(app, ["score", "memory://vqagrade-test/answers.jsonl", "-q"])
        assert res.exit_code == 0 and json.loads(res.stdout)["score"] == 1.0
    finally:
        fs.rm("/vqagrade-test", recursive=True)
    with pytest.raises(InputError, match="cannot read 'memory://vqagrade-test/none.jsonl'"):
        list(read_rows("memory://vqagrade-test/none.jsonl"))


def test_hf_paths_go_to_huggingface_hub_s_filesystem() -> None:
    pytest.importorskip("huggingface_hub")
    import fsspec

    # The protocol resolves to HfFileSystem without any network access.
    assert type(fsspec.filesystem("hf")).__name__ == "HfFileSystem"


def test_every_user_extendable_lexicon_section_is_documented() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Lexicons", 1)[1].split("\n## ", 1)[0]
    for name in [*_LIST_SECTIONS, "synonyms", "spelling", "case_sensitive", "parallel",
                 "parts", "broader", "comparatives", "terms"]:  # fmt: skip
        assert re.search(rf"\[{name}\]", section), name
    assert "pairs" in section and "negative_prefixes" in section
