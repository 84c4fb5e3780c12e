"""promptfoo python assertion: the output graded against the test's question and ground truth.

In ``promptfooconfig.yaml``::

    tests:
      - vars: {question: "Is the lesion in the left or right kidney?", gt: left}
        assert:
          - type: python
            value: file://vqagrade_assert.py

with ``vqagrade_assert.py`` holding ``from vqagrade.promptfoo import get_assert``. The vars
``question`` and ``gt`` (or ``answer``) are read, ``option_a``/``option_b`` when present; the
assertion's ``config`` may rename them (``question_var``, ``gt_var``) and set ``min_score``
(default 1: only a full match passes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import grade_rows

__all__ = ["get_assert"]


def get_assert(output: Any, context: Mapping[str, Any]) -> dict[str, Any]:
    """Grade one promptfoo output; returns a GradingResult ``{pass, score, reason}``.

    An answer the rules cannot settle (or an unreadable row) fails with score 0 and a reason
    that says so, never a guessed score.

    Args:
        output: the provider's output text.
        context: promptfoo's assertion context (``vars``, ``config``...).
    """
    variables: Mapping[str, Any] = context.get("vars") or {}
    config: Mapping[str, Any] = context.get("config") or {}
    gt_vars = [config["gt_var"]] if "gt_var" in config else ["gt", "answer"]
    row: dict[str, Any] = {
        "question": variables.get(config.get("question_var", "question")),
        "gt": next((variables[v] for v in gt_vars if v in variables), None),
        "pred": output if isinstance(output, str) else None,
    }
    for key in ("option_a", "option_b"):
        if variables.get(key) is not None:
            row[key] = variables[key]
    out = next(grade_rows([row]))
    score = out["score"]
    how = ", ".join(str(out[k]) for k in ("method", "question_kind") if out.get(k) is not None)
    if score is None:
        why = "could not read the row" if out["method"] == "error" else "abstained"
        return {"pass": False, "score": 0.0, "reason": f"vqagrade {why}: {out['reason']}"}
    threshold = float(config.get("min_score", 1.0))
    return {
        "pass": score >= threshold,
        "score": score,
        "reason": f"vqagrade {score:g} ({how}): {out['reason']}",
    }
