"""VLMEvalKit: grade a prediction file in its own format, write results by its naming.

Example::

    from vqagrade.vlmeval import evaluate_file

    acc = evaluate_file("outputs/MyVLM/MyVLM_VQA_RAD.xlsx")                 # rules only
    acc = evaluate_file("outputs/MyVLM/MyVLM_VQA_RAD.xlsx", model="gpt-4o-mini", nproc=8)

The file (``.xlsx``, ``.tsv`` or ``.csv``) has ``question``, ``answer`` and ``prediction``
columns and, for multiple-choice data, option columns ``A``, ``B``…: a row with exactly two
options is graded against them, and an answer that is one of their letters stands for that
option's text. Next to the file come ``<name>_vqagrade.xlsx`` (every row with vqagrade's
columns; the ``image`` column is left out) and ``<name>_acc.csv`` (mean over decided rows,
strict mean, coverage and counts, overall and per ``category`` when there is one).

The judge follows VLMEvalKit's settings: ``model`` in the judge kwargs (absent or
``exact_matching`` for rules only), ``nproc`` and ``retry``; when a judge is asked for,
``LOCAL_LLM`` names a local judge model to use instead, ``OPENAI_API_BASE`` the endpoint (a
``.../chat/completions`` URL is accepted) and ``OPENAI_API_KEY`` the key.
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import Grader
from ._tally import tally

if TYPE_CHECKING:
    import pandas as pd

    from .judge import Judge, JudgeVerdict

__all__ = ["evaluate_file", "grading_rows"]

_OPTION_LETTERS = tuple(string.ascii_uppercase)
_RULES_ONLY = {None, "", "exact_matching"}


def evaluate_file(eval_file: str | Path, **judge_kwargs: Any) -> pd.DataFrame:
    """Grade a VLMEvalKit prediction file; returns the accuracy table also written to CSV.

    Args:
        eval_file: the ``.xlsx`` / ``.tsv`` / ``.csv`` prediction file.
        **judge_kwargs: VLMEvalKit's judge settings: ``model``, ``nproc``, ``retry``,
            ``prompt`` (``gpt`` or ``mistral``); others (``verbose``...) are accepted and
            ignored.
    """
    import pandas as pd

    path = Path(eval_file)
    frame = _read(path)
    judge = _judge(judge_kwargs)
    try:
        graded = list(Grader(judge=judge).grade_rows(grading_rows(frame)))
    finally:
        if judge is not None:
            judge.judge.close()
    keep = [c for c in frame.columns if c != "image"]
    out_rows = [
        {**{c: row[c] for c in keep}, **{k: v for k, v in g.items() if k not in _GRADING}}
        for row, g in zip(frame.to_dict("records"), graded, strict=True)
    ]
    result = pd.DataFrame(out_rows)
    if "options" in result:
        result["options"] = [" | ".join(o) if o else None for o in result["options"]]
    stem = path.with_suffix("")
    result.to_excel(f"{stem}_vqagrade.xlsx", index=False)
    acc = _accuracy(result)
    acc.to_csv(f"{stem}_acc.csv", index=False)
    return acc


# Columns of the grading row that are not the contract's output.
_GRADING = ("question", "gt", "pred", "option_a", "option_b")


def grading_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The (question, gt, pred, options) rows vqagrade grades for a VLMEvalKit frame."""
    letters = [c for c in frame.columns if c in _OPTION_LETTERS]
    rows = []
    for rec in frame.to_dict("records"):
        options = {c: _text(rec[c]) for c in letters if _text(rec[c])}
        gt = _text(rec.get("answer"))
        row: dict[str, Any] = {
            "question": _text(rec.get("question")),
            "gt": options.get(gt.strip(), gt) if len(options) == 2 else gt,
            "pred": _text(rec.get("prediction")),
        }
        if len(options) == 2:
            row["option_a"], row["option_b"] = options.values()
        rows.append(row)
    return rows


def _text(value: object) -> str:
    # Spreadsheet cells come back as NaN when empty and as numbers when numeric.
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value)


def _read(path: Path) -> pd.DataFrame:
    import pandas as pd

    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return pd.read_excel(path, dtype=str)
    if suffix in (".tsv", ".csv"):
        sep = "\t" if suffix == ".tsv" else ","
        return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    raise ValueError(f"{path}: expected a .xlsx, .tsv or .csv VLMEvalKit file")


def _accuracy(result: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    groups: list[tuple[str, pd.DataFrame]] = [("Overall", result)]
    if "category" in result:
        groups += [(str(k), g) for k, g in result.groupby("category", sort=True)]
    table = []
    for name, group in groups:
        # An all-null column is object-typed (None), a mixed one float (NaN).
        scores = [None if s is None or s != s else float(s) for s in group["score"]]
        t = tally(scores)
        table.append({"split": name, **t, "decided": sum(s is not None for s in scores)})
    return pd.DataFrame(table, columns=["split", "n", "decided", "mean", "strict_mean", "coverage"])


class _JudgeRows:
    """The grader's judge seam over a `vqagrade.judge.Judge` (output fields per verdict)."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        from .judge import JudgeRequest

        requests = [JudgeRequest(question=q, gt=gt, pred=pred) for q, gt, pred in items]
        return [_fields(v) for v in self.judge.judge_many(requests)]


def _fields(v: JudgeVerdict) -> dict[str, Any]:
    out: dict[str, Any] = {
        "judge_model": v.model,
        "judge_prompt": v.prompt,
        "judge_raw": v.raw,
        "judge_cached": v.cached,
    }
    if v.score is None or v.error:
        out.update(score=None, method="error", reason=v.error or "judge_unparseable")
    else:
        tag = "cached" if v.cached else f"{v.attempts} attempt(s)"
        out.update(score=v.score, method="llm", reason=f"judge {v.model} ({tag})")
    return out


def _judge(kwargs: Mapping[str, Any]) -> _JudgeRows | None:
    model = kwargs.get("model")
    if model in _RULES_ONLY:
        return None
    model = os.environ.get("LOCAL_LLM") or model  # VLMEvalKit's local judge wins
    from .judge import Judge, JudgeConfig

    base = os.environ.get("OPENAI_API_BASE") or None
    if base:
        base = base.rstrip("/").removesuffix("/chat/completions")
    config = JudgeConfig(
        model=str(model),
        base_url=base,
        prompt=str(kwargs.get("prompt", "gpt")),
        concurrency=int(kwargs.get("nproc", 4)),
        max_retries=int(kwargs.get("retry", 4)),
    )
    return _JudgeRows(Judge(config))
