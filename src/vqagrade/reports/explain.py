"""What `vqagrade explain` prints: one grade, its labels and their evidence, for a person."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import AnswerTrace, Grade

__all__ = ["render_grade"]


def _trace_lines(name: str, text: str, t: AnswerTrace | None) -> list[str]:
    if t is None:
        return [f"{name}: {text!r} -> not labelled"]
    label = t.label.value if t.label else "abstain"
    lines = [f"{name}: {text!r} -> {label}   [{t.rule}] {t.reason}"]
    if t.focus.strip() != text.strip():
        lines.append(f"    read: {t.focus!r}")
    for m in t.mentions:
        neg = f"  negated by '{m.negation}'" if m.negated else ""
        lines.append(f"    mention: option {m.option.value} {m.span!r} ({m.via}){neg}")
    for c in t.cues:
        lines.append(f"    cue: {c}")
    if t.matched:
        lines.append(f"    restates the question's words: {', '.join(t.matched)}")
    return lines


def render_grade(question: str, gt: str, pred: str, g: Grade) -> str:
    """A person-readable explanation of one grade."""
    from ..kinds import QuestionKind

    lines = [f"question: {question}"]
    kind = g.question_kind.value if g.question_kind else "none (not close-ended)"
    lines.append(f"kind: {kind}")
    if g.options and g.question_kind is QuestionKind.YES_NO:
        lines.append("options: yes / no")
    elif g.options:
        from ..kinds import LETTERS

        # Every option with its letter: A and B of a two-option question, A, B, C, ... of a
        # multiple-choice one.
        lettered = zip(LETTERS, g.options, strict=False)
        lines.append("options: " + "   ".join(f"{x.value} = {o!r}" for x, o in lettered))
    lines += _trace_lines("gt", gt, g.gt)
    lines += _trace_lines("pred", pred, g.pred)
    score = "null" if g.score is None else f"{g.score:g}"
    lines.append(f"score: {score}   method: {g.method.value}")
    lines.append(f"reason: {g.reason}")
    return "\n".join(lines)
