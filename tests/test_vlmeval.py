"""vqagrade.vlmeval.evaluate_file on small files in VLMEvalKit's format (xlsx and tsv)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from adapter_support import cli_graded, sample_rows
from vqagrade.vlmeval import evaluate_file, grading_rows


def vlmeval_frame() -> pd.DataFrame:
    """Sample rows as VLMEvalKit writes predictions, plus two multiple-choice rows whose
    answer is an option letter, and a base64 image column."""
    records: list[dict[str, Any]] = []
    for i, r in enumerate(sample_rows()):
        if "option_a" in r:
            continue
        records.append(
            {
                "index": i,
                "image": "iVBORw0KGgo=",
                "question": r["question"],
                "answer": r["gt"],
                "prediction": r["pred"],
                "category": "yes/no" if i % 3 else "side",
            }
        )
    mc = {"image": "iVBORw0KGgo=", "category": "choice"}
    records.append(
        {
            **mc,
            "index": 100,
            "question": "Which organ is shown enlarged?",
            "A": "liver",
            "B": "spleen",
            "answer": "B",
            "prediction": "B",
        }
    )
    records.append(
        {
            **mc,
            "index": 101,
            "question": "Which organ is shown enlarged?",
            "A": "liver",
            "B": "spleen",
            "answer": "A",
            "prediction": "The spleen is enlarged.",
        }
    )
    return pd.DataFrame(records)


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv"])
def test_scores_and_files_match_the_cli(tmp_path: Path, suffix: str) -> None:
    frame = vlmeval_frame()
    path = tmp_path / f"MyVLM_VQA_RAD{suffix}"
    if suffix == ".xlsx":
        frame.to_excel(path, index=False)
    else:
        frame.to_csv(path, sep="\t", index=False)
    rows = grading_rows(frame.fillna(""))
    assert rows[-2] == {
        "question": "Which organ is shown enlarged?",
        "gt": "spleen",
        "pred": "B",
        "option_a": "liver",
        "option_b": "spleen",
    }
    expected = cli_graded(rows, tmp_path)

    acc = evaluate_file(path, model="exact_matching", nproc=4, verbose=True)

    graded = pd.read_excel(tmp_path / "MyVLM_VQA_RAD_vqagrade.xlsx")
    assert "image" not in graded.columns
    assert list(graded["index"]) == list(frame["index"])
    got = [None if pd.isna(s) else float(s) for s in graded["score"]]
    assert got == [r["score"] for r in expected]
    assert list(graded["method"]) == [r["method"] for r in expected]
    assert list(graded["reason"]) == [r["reason"] for r in expected]
    assert (got[-2], got[-1]) == (1.0, 0.0)

    written = pd.read_csv(tmp_path / "MyVLM_VQA_RAD_acc.csv")
    assert list(written.columns) == ["split", "n", "decided", "mean", "strict_mean", "coverage"]
    assert list(written["split"]) == ["Overall", "choice", "side", "yes/no"]
    overall = written.iloc[0]
    decided = [s for s in got if s is not None]
    assert (overall["n"], overall["decided"]) == (len(got), len(decided))
    assert overall["mean"] == pytest.approx(sum(decided) / len(decided))
    assert overall["strict_mean"] == pytest.approx(sum(decided) / len(got))
    assert overall["coverage"] == pytest.approx(len(decided) / len(got))
    pd.testing.assert_frame_equal(acc, written, check_dtype=False)


def test_unknown_file_type(tmp_path: Path) -> None:
    (tmp_path / "preds.json").write_text("[]")
    with pytest.raises(ValueError, match="xlsx, .tsv or .csv"):
        evaluate_file(tmp_path / "preds.json")
