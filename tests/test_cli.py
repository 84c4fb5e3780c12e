"""The command line: `score`, `explain` and `bench` on real files, in-process and as a process.

In-process tests use typer's `CliRunner`; anything about pipes, exit codes and stderr as a
user sees them runs `python -m vqagrade` in a subprocess.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vqagrade.cli import app

CONTRACT = ("score", "method", "gt_label", "pred_label", "options", "reason", "question_kind")
# CSV output always carries the columns of unreadable records too (empty on good rows), so
# its header never depends on which rows come first.
CSV_CONTRACT = (*CONTRACT, "line", "raw")
KIDNEY = "Is the lesion in the left or right kidney?"
LEFT_RIGHT = ["left kidney", "right kidney"]
REFUSAL = "I'm sorry, I cannot see the image."

# Rows whose grade is known: (row, score, method, gt_label, pred_label).
GRADED: list[tuple[dict[str, Any], float | None, str, str | None, str | None]] = [
    (
        {"id": "r1", "question": KIDNEY, "gt": "left", "pred": "The left kidney."},
        1.0,
        "rule",
        "A",
        "A",
    ),
    (
        {"id": "r2", "question": KIDNEY, "gt": "left", "pred": "The right kidney."},
        0.0,
        "rule",
        "A",
        "B",
    ),
    (
        {"id": "r3", "question": KIDNEY, "gt": "right", "pred": REFUSAL},
        None,
        "unresolved",
        "B",
        None,
    ),
    (
        {"id": "r4", "question": "Is this a CT or an MRI?", "gt": "CT", "pred": "MRI"},
        0.0,
        "rule",
        "A",
        "B",
    ),
]
ROWS = [row for row, *_ in GRADED]

runner = CliRunner()


# --- helpers ------------------------------------------------------------------------------


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def _csv(rows: list[dict[str, Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode()


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    name = path.name.removesuffix(".gz")
    data = _csv(rows) if name.endswith(".csv") else _jsonl(rows)
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def _parse_jsonl(text: str | bytes) -> list[dict[str, Any]]:
    if isinstance(text, bytes):
        text = text.decode()
    return [json.loads(line) for line in text.split("\n") if line]  # not splitlines(): U+2028


def _parse_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _read_out(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    if path.name.removesuffix(".gz").endswith(".csv"):
        return _parse_csv(data.decode())
    return _parse_jsonl(data)


def _run(
    *args: str | Path, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m vqagrade ARGS` as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "vqagrade", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _stderr_lines(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    return proc.stderr.decode().splitlines()


def _without_contract(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in CSV_CONTRACT}


# --- help and entry points ------------------------------------------------------------------


def test_module_help_lists_the_verbs() -> None:
    proc = _run("--help")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    for verb in ("score", "explain", "bench"):
        assert verb in out
    assert b"Traceback" not in proc.stderr


def test_score_help_lists_the_options() -> None:
    result = runner.invoke(app, ["score", "--help"])
    assert result.exit_code == 0
    for flag in (
        "--output",
        "--question-field",
        "--gt-field",
        "--pred-field",
        "--id-field",
        "--option-a-field",
        "--option-b-field",
        "--lexicon",
        "--strict",
        "--quiet",
    ):
        assert flag in result.stdout


# --- score: files in, files out (in-process) ------------------------------------------------


@pytest.mark.parametrize(
    ("in_name", "out_name"),
    [
        pytest.param("in.jsonl", "out.jsonl", id="jsonl-to-jsonl"),
        pytest.param("in.jsonl", "out.csv", id="jsonl-to-csv"),
        pytest.param("in.csv", "out.jsonl", id="csv-to-jsonl"),
        pytest.param("in.csv", "out.csv", id="csv-to-csv"),
        pytest.param("in.jsonl.gz", "out.jsonl", id="jsonl-gz-input"),
        pytest.param("in.csv.gz", "out.csv", id="csv-gz-input"),
        pytest.param("in.ndjson", "out.jsonl.gz", id="ndjson-to-jsonl-gz"),
    ],
)
def test_score_file_to_file(tmp_path: Path, in_name: str, out_name: str) -> None:
    src = _write(tmp_path / in_name, ROWS)
    dst = tmp_path / out_name
    result = runner.invoke(app, ["score", str(src), "-o", str(dst), "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    out = _read_out(dst)
    assert [r["id"] for r in out] == [r["id"] for r in ROWS]
    as_csv = out_name.removesuffix(".gz").endswith(".csv")
    for got, (row, score, method, gt_label, pred_label) in zip(out, GRADED, strict=True):
        assert list(got)[: len(row)] == list(row), "input columns come first, in order"
        assert list(got)[len(row) :] == list(CSV_CONTRACT if as_csv else CONTRACT)
        assert {k: got[k] for k in row} == row
        assert got["method"] == method
        assert got["reason"]
        if as_csv:  # cells are text: None is empty, lists are JSON
            assert got["score"] == ("" if score is None else str(score))
            assert got["gt_label"] == (gt_label or "")
            assert got["pred_label"] == (pred_label or "")
            assert json.loads(got["options"]) == (
                [*LEFT_RIGHT] if row["question"] == KIDNEY else ["CT", "MRI"]
            )
        else:
            assert got["score"] == score
            assert got["gt_label"] == gt_label
            assert got["pred_label"] == pred_label
            assert got["options"] == (LEFT_RIGHT if row["question"] == KIDNEY else ["CT", "MRI"])


def test_score_writes_stdout_by_default(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", ROWS)
    result = runner.invoke(app, ["score", str(src), "--quiet"])
    assert result.exit_code == 0, result.stderr
    out = _parse_jsonl(result.stdout)
    assert [r["id"] for r in out] == ["r1", "r2", "r3", "r4"]
    assert [r["score"] for r in out] == [1.0, 0.0, None, 0.0]


def test_score_summary_goes_to_stderr(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", ROWS)
    result = runner.invoke(app, ["score", str(src), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "rows 4  decided 3" in result.stderr
    assert "rule 3" in result.stderr
    assert "unresolved 1" in result.stderr
    assert "error 0" in result.stderr


@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_score_quiet_prints_nothing_on_stderr(tmp_path: Path, flag: str) -> None:
    src = _write(tmp_path / "in.jsonl", ROWS)
    result = runner.invoke(app, ["score", str(src), flag])
    assert result.exit_code == 0
    assert result.stderr == ""
    assert len(_parse_jsonl(result.stdout)) == len(ROWS)


def test_score_explicit_formats_override_extensions(tmp_path: Path) -> None:
    src = tmp_path / "rows.txt"
    src.write_bytes(_csv(ROWS))
    dst = tmp_path / "graded.dat"
    args = ["score", str(src), "-o", str(dst), "--in-format", "csv", "--out-format", "csv", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    out = _parse_csv(dst.read_text())
    assert [r["id"] for r in out] == ["r1", "r2", "r3", "r4"]
    assert [r["method"] for r in out] == ["rule", "rule", "unresolved", "rule"]


# --- score: field mapping, explicit options, lexicons ----------------------------------------


def test_field_remapping(tmp_path: Path) -> None:
    rows = [
        {"uid": 7, "q": KIDNEY, "answer": "left", "response": "left kidney", "note": "x"},
        {"uid": 8, "q": KIDNEY, "answer": "left", "response": "the right one", "note": "y"},
    ]
    src = _write(tmp_path / "in.jsonl", rows)
    remap = [
        "--question-field",
        "q",
        "--gt-field",
        "answer",
        "--pred-field",
        "response",
        "--id-field",
        "uid",
    ]
    result = runner.invoke(app, ["score", str(src), *remap, "-q"])
    assert result.exit_code == 0, result.stderr
    out = _parse_jsonl(result.stdout)
    assert [_without_contract(r) for r in out] == rows, "remapped fields are not renamed"
    assert [(r["method"], r["score"]) for r in out] == [("rule", 1.0), ("rule", 0.0)]

    # Without the mapping the same file has no `question` field in any row: exit 2 naming
    # what the rows have, not a run of error rows.
    plain = runner.invoke(app, ["score", str(src), "-q"])
    assert plain.exit_code == 2 and plain.stdout == ""
    assert "no fields 'question' (--question-field), 'gt' (--gt-field)" in plain.stderr
    assert "fields seen: uid, q, answer, response, note" in plain.stderr


@pytest.mark.parametrize(
    ("extra", "method", "score"),
    [
        pytest.param(
            {"option_a": "blood", "option_b": "fluid"}, "rule", 0.0, id="both-options-honoured"
        ),
        pytest.param({"option_a": "blood"}, "unresolved", None, id="one-option-ignored"),
        pytest.param(
            {"option_a": "blood", "option_b": "  "}, "unresolved", None, id="blank-option-ignored"
        ),
        pytest.param(
            {"option_a": None, "option_b": None}, "unresolved", None, id="null-options-ignored"
        ),
        pytest.param({"option_a": 1, "option_b": 2}, "unresolved", None, id="non-text-ignored"),
    ],
)
def test_explicit_option_columns(
    tmp_path: Path, extra: dict[str, Any], method: str, score: float | None
) -> None:
    # The question offers no "X or Y", so only explicit options can make it gradable.
    row = {"id": "o1", "question": "What is seen here?", "gt": "fluid", "pred": "blood", **extra}
    src = _write(tmp_path / "in.jsonl", [row])
    result = runner.invoke(app, ["score", str(src), "-q"])
    assert result.exit_code == 0, result.stderr
    [out] = _parse_jsonl(result.stdout)
    assert (out["method"], out["score"]) == (method, score)
    if method == "rule":
        assert out["options"] == ["blood", "fluid"]
        assert (out["gt_label"], out["pred_label"]) == ("B", "A")


def test_explicit_option_columns_remapped(tmp_path: Path) -> None:
    row = {
        "id": "o1",
        "question": "What is seen here?",
        "gt": "fluid",
        "pred": "fluid",
        "x": "blood",
        "y": "fluid",
    }
    src = _write(tmp_path / "in.csv", [row])
    args = ["score", str(src), "--option-a-field", "x", "--option-b-field", "y", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    [out] = _parse_jsonl(result.stdout)
    assert (out["method"], out["score"], out["options"]) == ("rule", 1.0, ["blood", "fluid"])


LIVER_SPLEEN = "Is the lesion in the liver or the spleen?"


def _lexicon(path: Path, canonical: str, variant: str) -> Path:
    path.write_text(f'[meta]\nname = "{path.stem}"\n\n[synonyms]\n{canonical} = ["{variant}"]\n')
    return path


def test_lexicon_option_is_repeatable(tmp_path: Path) -> None:
    rows = [
        {"id": "z", "question": LIVER_SPLEEN, "gt": "liver", "pred": "zorbo"},
        {"id": "q", "question": LIVER_SPLEEN, "gt": "liver", "pred": "quaxel"},
    ]
    src = _write(tmp_path / "in.jsonl", rows)
    lex1 = _lexicon(tmp_path / "one.toml", "liver", "zorbo")
    lex2 = _lexicon(tmp_path / "two.toml", "spleen", "quaxel")

    def methods(*extra: str) -> list[tuple[str, str | None]]:
        result = runner.invoke(app, ["score", str(src), "-q", *extra])
        assert result.exit_code == 0, result.stderr
        return [(r["method"], r["pred_label"]) for r in _parse_jsonl(result.stdout)]

    assert methods() == [("unresolved", None), ("unresolved", None)]
    assert methods("--lexicon", str(lex1)) == [("rule", "A"), ("unresolved", None)]
    assert methods("--lexicon", str(lex1), "--lexicon", str(lex2)) == [("rule", "A"), ("rule", "B")]


def test_missing_lexicon_is_a_clear_error(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", ROWS)
    result = runner.invoke(app, ["score", str(src), "--lexicon", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("vqagrade: ")
    assert "nope.toml" in result.stderr
    assert len(result.stderr.splitlines()) == 1


# --- explain --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "gt", "pred", "options", "labels", "score"),
    [
        pytest.param(
            KIDNEY,
            "left",
            "The right kidney.",
            ("left kidney", "right kidney"),
            ("A", "B"),
            "0",
            id="wrong-side",
        ),
        pytest.param(
            KIDNEY,
            "Left kidney",
            "left",
            ("left kidney", "right kidney"),
            ("A", "A"),
            "1",
            id="right-side",
        ),
        pytest.param(
            "Which organ is abnormal, heart or lung?",
            "Both",
            "The heart is enlarged and the lung shows consolidation, so both are abnormal.",
            ("heart", "lung"),
            ("both", "both"),
            "1",
            id="both",
        ),
        pytest.param(
            "Is there a pneumothorax or a pleural effusion?",
            "Neither",
            "Neither a pneumothorax nor a pleural effusion is present.",
            ("pneumothorax", "pleural effusion"),
            ("none", "none"),
            "1",
            id="neither-pleural-effusion",
        ),
        pytest.param(
            "Is there a fracture or a dislocation?",
            "Neither",
            "There is neither a fracture nor a dislocation.",
            ("fracture", "dislocation"),
            ("none", "none"),
            "1",
            id="neither",
        ),
        pytest.param(
            "Are the pleural effusions unilateral or bilateral?",
            "bilateral",
            "It is unilateral.",
            ("unilateral", "bilateral"),
            ("B", "A"),
            "0",
            id="adjectives",
        ),
    ],
)
def test_explain_shows_options_labels_and_score(
    question: str, gt: str, pred: str, options: tuple[str, str], labels: tuple[str, str], score: str
) -> None:
    result = runner.invoke(app, ["explain", question, gt, pred])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert f"question: {question}" in text
    assert f"options: A = {options[0]!r}   B = {options[1]!r}" in text
    assert f"gt: {gt!r} -> {labels[0]} " in text
    assert f"pred: {pred!r} -> {labels[1]} " in text
    assert f"score: {score}   method: rule" in text
    assert "reason: " in text


def test_explain_abstention_shows_null_score() -> None:
    result = runner.invoke(app, ["explain", KIDNEY, "left", REFUSAL])
    assert result.exit_code == 0
    assert f"pred: {REFUSAL!r} -> abstain" in result.stdout
    assert "score: null   method: unresolved" in result.stdout


def test_explain_json() -> None:
    result = runner.invoke(app, ["explain", KIDNEY, "left", "The right kidney.", "--json"])
    assert result.exit_code == 0, result.stderr
    grade = json.loads(result.stdout)
    assert grade["score"] == 0.0
    assert grade["method"] == "rule"
    assert (grade["gt_label"], grade["pred_label"]) == ("A", "B")
    assert grade["options"] == LEFT_RIGHT
    assert grade["pred"]["label"] == "B"
    assert grade["pred"]["mentions"][0]["option"] == "B"


def test_explain_explicit_options() -> None:
    args = [
        "explain",
        "What is seen here?",
        "fluid",
        "blood",
        "--option-a",
        "blood",
        "--option-b",
        "fluid",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "options: A = 'blood'   B = 'fluid'" in result.stdout
    assert "gt: 'fluid' -> B " in result.stdout
    assert "pred: 'blood' -> A " in result.stdout
    assert "score: 0   method: rule" in result.stdout


# A person reads each pred as denying option A without naming B: the rules must not say A.
@pytest.mark.parametrize(
    "pred",
    [
        pytest.param("The left kidney is the wrong answer.", id="is-the-wrong-answer"),
        pytest.param("Left kidney lesion: absent.", id="lesion-absent"),
        pytest.param("The left kidney is ruled out.", id="ruled-out"),
        pytest.param("The lesion is absent from the left kidney.", id="absent-from"),
        pytest.param("The lesion spares the left kidney.", id="spares"),
        pytest.param("Left kidney: negative for lesion.", id="negative-for"),
        pytest.param("Left kidney (incorrect).", id="parenthesised-incorrect"),
    ],
)
def test_explain_rejection_of_an_option_is_not_affirmation(pred: str) -> None:
    result = runner.invoke(app, ["explain", KIDNEY, "left", pred, "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["pred_label"] != "A"


# --- bench ----------------------------------------------------------------------------------


def _labelled(
    id: str,
    question: str,
    gt: str,
    pred: str,
    expect_gt: str,
    accept: list[str],
    scores: list[float],
) -> dict[str, Any]:
    return {
        "id": id,
        "source": "test",
        "question": question,
        "gt": gt,
        "pred": pred,
        "two_option": True,
        "options": None,
        "expect_gt": expect_gt,
        "accept_pred": accept,
        "accept_scores": scores,
    }


# Labels are a careful human reading of each answer, not what the rules happen to say.
BENCH_ROWS = [
    # decided, right
    _labelled("ok-1", KIDNEY, "left", "The lesion is in the right kidney.", "A", ["B"], [0.0]),
    _labelled("ok-2", "Is this a CT or an MRI?", "CT", "This is a CT scan.", "A", ["A"], [1.0]),
    # a refusal: the rules must not decide, and do not
    _labelled("abstain-1", KIDNEY, "right", REFUSAL, "B", ["abstain"], []),
    # a person reads B ("actually the right kidney"); the rules abstain: missed
    _labelled(
        "missed-1",
        KIDNEY,
        "left",
        "I would have said left, but it is actually the right kidney.",
        "A",
        ["B"],
        [0.0],
    ),
    # rejects option A without naming B: a person would accept B or abstaining
    _labelled(
        "rejects-1",
        KIDNEY,
        "left",
        "The lesion spares the left kidney.",
        "A",
        ["B", "abstain"],
        [0.0],
    ),
]
# A row whose label deliberately disagrees with an unambiguous answer: it checks that the
# bench counts a wrong decision (the rules say A for "left"; the label says B).
MISLABELLED = _labelled("wrong-1", KIDNEY, "left", "Left kidney.", "A", ["B"], [0.0])


def test_bench_figures_add_up(tmp_path: Path) -> None:
    src = _write(tmp_path / "labelled.jsonl", [*BENCH_ROWS, MISLABELLED])
    result = runner.invoke(app, ["bench", str(src)])
    assert result.exit_code == 0, result.stderr
    line, scores = result.stdout.strip().split("\n", 1)
    assert scores.startswith("scores: rows 6  decided 3  coverage 0.5000 [")
    # 6 rows; decided: ok-1, ok-2, wrong-1; must decide: ok-1, ok-2, missed-1, wrong-1
    assert line.startswith("rows 6  decided 3  wrong 1  precision 0.6667  coverage 0.7500 (3/4)  ")
    assert "judge-call fraction 0.500" in line
    assert line.endswith(" rows/s")


def test_bench_show_lists_wrong_and_missed_rows(tmp_path: Path) -> None:
    src = _write(tmp_path / "labelled.jsonl", [*BENCH_ROWS, MISLABELLED])
    result = runner.invoke(app, ["bench", str(src), "--show"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    heads = [ln.split(":")[0] for ln in lines if ln.startswith(("WRONG", "MISSED"))]
    assert heads == ["MISSED missed-1", "WRONG wrong-1"]
    wrong = lines.index(next(ln for ln in lines if ln.startswith("WRONG")))
    assert "want gt=A pred in ['B']" in lines[wrong + 1]
    assert "'score': 1.0" in lines[wrong + 1]
    assert lines[-4].startswith("rows 6  decided 3  wrong 1")


def test_bench_all_right(tmp_path: Path) -> None:
    src = _write(tmp_path / "labelled.jsonl", BENCH_ROWS[:3])
    result = runner.invoke(app, ["bench", str(src), "--show"])
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "rows 3  decided 2  wrong 0  precision 1.0000  coverage 1.0000 (2/2)  "
    )
    assert "WRONG" not in result.stdout and "MISSED" not in result.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "cannot read", id="missing-file"),
        pytest.param(b"{not json}\n", "not JSON", id="not-json"),
        pytest.param(b"\xff\xfe\n", "not JSON", id="invalid-utf8"),
    ],
)
def test_bench_unreadable_file(tmp_path: Path, content: bytes | None, message: str) -> None:
    src = tmp_path / "labelled.jsonl"
    if content is not None:
        src.write_bytes(content)
    proc = _run("bench", src)
    assert proc.returncode == 2
    lines = _stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith("vqagrade: ") and message in lines[0]
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(json.dumps({"id": "1", "question": KIDNEY, "gt": "left"}), id="missing-pred"),
        pytest.param('["a", "b"]', id="array-line"),
    ],
)
def test_bench_malformed_labelled_row(tmp_path: Path, line: str) -> None:
    src = tmp_path / "labelled.jsonl"
    src.write_text(line + "\n")
    proc = _run("bench", src)
    assert b"Traceback" not in proc.stderr
    assert proc.returncode == 2
    lines = _stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith("vqagrade: ")


# --- pipes, order, pass-through (subprocess) --------------------------------------------------


@pytest.mark.parametrize("out_flag", [[], ["-o", "-"]], ids=["default-stdout", "dash-o-dash"])
def test_stdin_to_stdout_jsonl(out_flag: list[str]) -> None:
    proc = _run("score", "-", *out_flag, "--quiet", stdin=_jsonl(ROWS))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    out = _parse_jsonl(proc.stdout)
    assert [_without_contract(r) for r in out] == ROWS
    assert [r["score"] for r in out] == [1.0, 0.0, None, 0.0]


def test_stdin_to_stdout_csv() -> None:
    proc = _run("score", "-", "--in-format", "csv", "--out-format", "csv", "-q", stdin=_csv(ROWS))
    assert proc.returncode == 0, proc.stderr
    out = _parse_csv(proc.stdout.decode())
    assert [r["id"] for r in out] == ["r1", "r2", "r3", "r4"]
    assert [r["score"] for r in out] == ["1.0", "0.0", "", "0.0"]
    assert list(out[0]) == [*ROWS[0], *CSV_CONTRACT]


def test_stdin_summary_on_stderr_keeps_stdout_clean() -> None:
    proc = _run("score", "-", stdin=_jsonl(ROWS))
    assert proc.returncode == 0
    assert len(_parse_jsonl(proc.stdout)) == len(ROWS)  # stdout is pure JSON lines
    assert "rows 4  decided 3" in proc.stderr.decode()


def test_rows_out_equal_rows_in_order_and_ids(tmp_path: Path) -> None:
    # 60 rows with ids of several types, in a scrambled order, some of them error rows.
    ids: list[Any] = []
    rows: list[dict[str, Any]] = []
    for i in range(60):
        rid: Any = [f"s{i}", i * 7919 % 1000, f"ü-{i}", None][i % 4]
        ids.append(rid)
        row: dict[str, Any] = {"id": rid, "question": KIDNEY, "gt": ["left", "right"][i % 2]}
        if i % 5 != 3:  # every fifth row lacks its pred: an error row that keeps its id
            row["pred"] = ["left kidney", "right kidney", REFUSAL][i % 3]
        rows.append(row)
    src = _write(tmp_path / "in.jsonl", rows)
    proc = _run("score", src, "-q")
    assert proc.returncode == 0, proc.stderr
    out = _parse_jsonl(proc.stdout)
    assert len(out) == len(rows)
    assert [r["id"] for r in out] == ids
    assert [_without_contract(r) for r in out] == rows
    assert [r["method"] == "error" for r in out] == [i % 5 == 3 for i in range(60)]


EXTRA: dict[str, Any] = {
    "model": "llava-med",
    "n": 3,
    "ratio": 0.25,
    "neg": -17,
    "flag": True,
    "nothing": None,
    "nested": {"a": [1, "two", {"three": 3.5}], "b": None},
    "tags": ["x", "y"],
    "text": "ünïcödé — 日本語 😀",
    "empty": "",
}


def test_extra_fields_pass_through_untouched(tmp_path: Path) -> None:
    rows = [
        {"before": 1, "id": "p1", "question": KIDNEY, "gt": "left", "pred": "left", **EXTRA},
        {**EXTRA, "question": KIDNEY, "gt": "left", "pred": REFUSAL, "id": "p2"},
        {"id": "p3", "question": KIDNEY, "gt": 5, "pred": "left", **EXTRA},  # an error row
    ]
    src = _write(tmp_path / "in.jsonl", rows)
    proc = _run("score", src, "-q")
    assert proc.returncode == 0, proc.stderr
    out = _parse_jsonl(proc.stdout)
    for got, row in zip(out, rows, strict=True):
        assert list(got) == [*row, *CONTRACT], "input keys first, in their order"
        assert _without_contract(got) == row
    assert [r["method"] for r in out] == ["rule", "unresolved", "error"]


def test_extra_csv_columns_pass_through(tmp_path: Path) -> None:
    rows = [
        {
            "model": "m1",
            "id": "c1",
            "question": KIDNEY,
            "gt": "left",
            "pred": "left",
            "note": 'a, "quoted"\nline',
        }
    ]
    src = _write(tmp_path / "in.csv", rows)
    dst = tmp_path / "out.csv"
    proc = _run("score", src, "-o", dst, "-q")
    assert proc.returncode == 0, proc.stderr
    [got] = _parse_csv(dst.read_text())
    assert list(got) == [*rows[0], *CSV_CONTRACT]
    assert _without_contract(got) == rows[0]


def test_big_integer_fields_pass_through(tmp_path: Path) -> None:
    big = 123456789012345678901234567890
    src = tmp_path / "in.jsonl"
    src.write_text(
        json.dumps({"id": big, "question": KIDNEY, "gt": "left", "pred": "left", "n": 2**64}) + "\n"
    )
    proc = _run("score", src, "-q")
    assert proc.returncode == 0
    [out] = _parse_jsonl(proc.stdout)
    assert (out["id"], out["n"], out["method"]) == (big, 2**64, "rule")


# --- exit codes (subprocess) ------------------------------------------------------------------

ERROR_ROW = {"id": "e1", "question": KIDNEY, "gt": "left"}  # no pred


@pytest.mark.parametrize(
    ("rows", "strict", "code"),
    [
        pytest.param(ROWS, False, 0, id="clean"),
        pytest.param(ROWS, True, 0, id="clean-strict"),
        pytest.param([*ROWS, ERROR_ROW], False, 0, id="error-row"),
        pytest.param([ERROR_ROW, *ROWS, ERROR_ROW], True, 1, id="error-row-strict"),
    ],
)
def test_exit_codes(tmp_path: Path, rows: list[dict[str, Any]], strict: bool, code: int) -> None:
    src = _write(tmp_path / "in.jsonl", rows)
    proc = _run("score", src, "-q", *(["--strict"] if strict else []))
    assert proc.returncode == code
    assert b"Traceback" not in proc.stderr
    out = _parse_jsonl(proc.stdout)
    assert [r.get("id") for r in out] == [r["id"] for r in rows], (
        "every row is written, even under --strict"
    )
    errors = sum(r["method"] == "error" for r in out)
    if code == 1:
        assert _stderr_lines(proc) == [f"vqagrade: {errors} error rows (--strict)"]
    else:
        assert proc.stderr == b""


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        pytest.param(["score", "missing.jsonl"], "missing.jsonl", id="missing-input"),
        pytest.param(
            ["score", "missing.csv.gz", "-o", "out.jsonl"], "missing.csv.gz", id="missing-gz-input"
        ),
        pytest.param(["score", "adir.jsonl"], "adir.jsonl", id="input-is-a-directory"),
        pytest.param(
            ["score", "in.jsonl", "-o", "no/such/dir/out.jsonl"],
            "no/such/dir/out.jsonl",
            id="output-dir-missing",
        ),
        pytest.param(
            ["score", "in.jsonl", "-o", "adir.jsonl"], "adir.jsonl", id="output-is-a-directory"
        ),
        pytest.param(["score", "in.txt"], "in.txt", id="unknown-input-extension"),
        pytest.param(
            ["score", "in.jsonl", "-o", "out.xml"], "out.xml", id="unknown-output-extension"
        ),
        pytest.param(["score", "fake.jsonl.gz"], "fake.jsonl.gz", id="corrupt-gzip"),
        pytest.param(
            ["score", "in.jsonl", "--lexicon", "nope.toml"], "nope.toml", id="missing-lexicon"
        ),
        pytest.param(["bench", "missing.jsonl"], "missing.jsonl", id="bench-missing-input"),
    ],
)
def test_exit_2_one_clear_line(tmp_path: Path, args: list[str], mentions: str) -> None:
    _write(tmp_path / "in.jsonl", ROWS)
    _write(tmp_path / "in.txt", ROWS)
    (tmp_path / "adir.jsonl").mkdir()
    (tmp_path / "fake.jsonl.gz").write_bytes(b"this is not gzip\n")
    proc = _run(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    lines = _stderr_lines(proc)
    assert len(lines) == 1, lines
    assert lines[0].startswith("vqagrade: ")
    assert mentions in lines[0]
    assert proc.stdout == b""
    assert not (tmp_path / "out.jsonl").exists(), "no output file for an input that cannot be read"


def test_unwritable_output_closes_the_input(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", ROWS)
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-m",
            "vqagrade",
            "score",
            str(src),
            "-o",
            str(tmp_path / "no" / "out.jsonl"),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert len(_stderr_lines(proc)) == 1, proc.stderr.decode()


def test_csv_output_keeps_input_columns_after_an_unreadable_first_line(tmp_path: Path) -> None:
    # The CSV header must not come from an unreadable first line (keys line, raw + contract).
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"this is not json\n" + _jsonl(ROWS))
    dst = tmp_path / "out.csv"
    proc = _run("score", src, "-o", dst, "-q")
    assert proc.returncode == 0
    out = _parse_csv(dst.read_text())
    assert len(out) == 1 + len(ROWS)
    assert (out[0]["method"], out[0]["line"], out[0]["raw"]) == ("error", "1", "this is not json")
    assert [r.get("id") for r in out[1:]] == ["r1", "r2", "r3", "r4"]
    assert [r.get("pred") for r in out[1:]] == [r["pred"] for r in ROWS]
