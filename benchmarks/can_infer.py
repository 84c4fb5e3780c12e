"""vqagrade against VLMEvalKit's `can_infer` on the multiple-choice golden cases.

VLMEvalKit's exact-matching step (``vlmeval/utils/matching_util.py``) is re-implemented here
from its public description, not copied:

* ``can_infer_option``: a known refusal sentence gives ``Z``; otherwise the punctuation
  ``. ( ) [ ] , : ; ! * # { }`` becomes spaces and the answer is split into tokens; when
  exactly one offered letter is a token it is the answer, unless a capital ``A`` is a token
  of an answer longer than three tokens (then ``A`` may be an article and it gives up); when
  no letter is a token but ``Z`` is, ``Z``.
* ``can_infer_text``: the options whose text (lower-cased) is a substring of the lower-cased
  answer; exactly one gives its letter.
* ``can_infer``: the option reading, else the text reading.

Both read the pred of every case in ``tests/cases/multiple_choice_*.jsonl`` against the options
vqagrade reads for it. A decision is a letter (``Z`` and ``False`` are no decision); it is
right when the case accepts that letter, wrong otherwise (including a case that accepts only
an abstention). Precision = right / decided; coverage = decided / cases; "certain" = right
decisions on the cases whose answer a careful reader is certain of (one letter accepted).

    python benchmarks/can_infer.py            # the table
    python benchmarks/can_infer.py --show     # also every wrong decision
    python benchmarks/can_infer.py --rounds   # only the rows of the independent rounds
"""

from __future__ import annotations

import argparse
import json
import re
import string
from pathlib import Path
from typing import Any

from vqagrade import Grader

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases"
REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
PUNCTUATION = ".()[],:;!*#{}"


def can_infer_option(answer: str, letters: list[str]) -> str | None:
    """The letter the answer names as a token, ``Z`` for a refusal, None when unsure."""
    if any(r in answer for r in REFUSALS):
        return "Z"
    table = str.maketrans({c: " " for c in PUNCTUATION})
    tokens = answer.translate(table).split()
    named = [x for x in letters if x in tokens]
    if len(named) == 1:
        if "A" in tokens and len(tokens) > 3:
            return None  # "A" may be an article
        return named[0]
    if not named and "Z" in tokens:
        return "Z"
    return None


def can_infer_text(answer: str, options: dict[str, str]) -> str | None:
    """The one option whose text occurs in the answer (case folded), else None."""
    low = answer.lower()
    found = [k for k, v in options.items() if v.lower() in low]
    return found[0] if len(found) == 1 else None


def can_infer(answer: str, options: dict[str, str]) -> str | None:
    return can_infer_option(answer, list(options)) or can_infer_text(answer, options)


def load(rounds: bool = False) -> list[dict[str, Any]]:
    """The multiple-choice cases; with `rounds`, only those of the independent rounds
    (ids `mc-<behaviour>-<round><n>`, written and graded by people who never saw the code)."""
    cases = []
    for path in sorted(CASES.glob("multiple_choice_*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                case = json.loads(line)
                if not rounds or re.fullmatch(r"mc-[a-z]+-[abr]\d+", case["id"]):
                    cases.append(case)
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--show", action="store_true", help="print every wrong decision")
    ap.add_argument("--rounds", action="store_true", help="only the independent rounds' rows")
    args = ap.parse_args()
    grader = Grader()
    tally: dict[str, dict[str, Any]] = {
        name: {"decided": 0, "right": 0, "certain": 0, "wrong": []}
        for name in ("vqagrade", "can_infer")
    }
    cases = load(args.rounds)
    for case in cases:
        row = {"question": case["question"], "gt": case["gt"], "pred": case["pred"]}
        row.update(case.get("columns") or {})
        if case.get("choices") is not None:
            row["choices"] = case["choices"]
        out = next(grader.grade_rows([row]))
        options = dict(zip(string.ascii_uppercase, out["options"] or [], strict=False))
        theirs = can_infer(case["pred"], options)
        if theirs == "Z":
            theirs = None
        for name, label in (("vqagrade", out["pred_label"]), ("can_infer", theirs)):
            if label is None:
                continue
            t = tally[name]
            t["decided"] += 1
            if label in case["pred_label"]:
                t["right"] += 1
                t["certain"] += case["pred_label"] == [label]
            else:
                t["wrong"].append((case["id"], case["pred"], label, case["pred_label"]))
    n = len(cases)
    sure = sum(1 for c in cases if len(c["pred_label"]) == 1 and c["pred_label"] != ["abstain"])
    which = "of the independent rounds " if args.rounds else ""
    print(
        f"{n} multiple-choice golden cases {which}(tests/cases/multiple_choice_*.jsonl), pred side;"
    )
    print(f"{sure} of them have an answer a careful reader is certain of")
    head = ("matcher", "decided", "right", "wrong", "precision", "coverage", "certain")
    print("{:<11} {:>8} {:>6} {:>6} {:>10} {:>9} {:>8}".format(*head))
    for name, t in tally.items():
        decided, right, wrong = t["decided"], t["right"], len(t["wrong"])
        precision = right / decided if decided else 0.0
        cells = (name, decided, right, wrong, f"{precision:.3f}", f"{decided / n:.3f}")
        print(
            "{:<11} {:>8} {:>6} {:>6} {:>10} {:>9}".format(*cells), f"{t['certain'] / sure:>8.3f}"
        )
    if args.show:
        for name, t in tally.items():
            for case_id, pred, label, accepted in t["wrong"]:
                print(f"{name}: {case_id}: {pred!r} -> {label}, accepted {accepted}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
