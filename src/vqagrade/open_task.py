"""Open-ended answers, scored 0-5 like the Equivalence judge (seed ``002_…``).

The rules decide a row only when the answer is certain; every other row goes to the
Equivalence judge (prompt ``equivalence``), or comes out ``unresolved`` without one.

What the rules decide, in order (the first that applies wins):

1. **empty pred → 0** (rule ``empty-pred``): the prediction is an empty string or only
   whitespace. A missing or non-string ``pred`` field is an ``error`` row, as in the
   two-option task, not an empty answer.
2. **normalised exact match → 5** (rule ``exact``): gt and pred are equal after Unicode NFKC,
   case folding, collapsing whitespace, removing wrapping quotes, backticks and ``*``
   (markdown emphasis), trailing ``. ! , ; :``, and one leading article (``the``/``a``/``an``,
   only when words follow it). ``"The left kidney."`` = ``"left kidney"``.
3. **lexicon equivalence → 5** (rule ``lexicon``): gt and pred have the same non-empty
   sequence of canonical words (``Lexicon.canon.words``: case and punctuation dropped,
   plurals folded, British spellings, synonyms and abbreviations mapped through the shipped
   and user lexicons, number words as digits; a leading article dropped), **and** the same
   signs: the sequence of decimal numbers (``5.5``, ``5,5``, each kept whole) and of the
   symbols ``+ ± < > ≤ ≥ = % ° / × ~ #`` plus every dash that is not a hyphen inside a word
   (``-5``, ``HER2-``, ``5-10``) must be identical. So ``CT`` = ``computed tomography``,
   ``tumours`` = ``tumor``, ``X-ray`` = ``radiograph``, ``one`` = ``1``, but ``HER2+`` ≠
   ``HER2-``, ``-5`` ≠ ``5``, ``5.5`` ≠ ``5,5`` ≠ ``55`` and ``10%`` ≠ ``10``.

Nothing else is decided by rules: no partial credit, no 0 for a mismatch (``yes`` vs ``no``
goes to the judge), no fuzzy matching, no final-answer extraction from verbose text. Word
order matters (``left lung`` ≠ ``lung left``). The lexicon tier trusts the lexicons: an entry
that maps near-synonyms together also makes them score 5 here.

Output rows follow the row contract with ``score`` an integer 0-5 (``None`` when unresolved
or on error) and ``gt_label``, ``pred_label``, ``options`` always ``None``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .contract import Method, field_problem, merge_judge, unreadable, unwrap

if TYPE_CHECKING:
    from .contract import FieldMap
    from .grader import JudgeLike
    from .lexicon import Lexicon

__all__ = ["FULL_MARKS", "OpenDecision", "OpenGrader", "normalise"]

FULL_MARKS = 5
_ARTICLES = ("the", "a", "an")
_LEADING_ARTICLE = re.compile(r"^(?:the|an|a)\s+(?=\S)")
_WRAP = "\"'`*“”‘’«»"
_TRAILING = ".!,;:。"
_DASHES = "-‐‑‒–—―−"
# Numbers with a separator as wholes (5.5, 1,000: the words see "5 5"), and the signs that
# change meaning; a dash counts unless it joins a letter to a letter or digit inside a word
# (X-ray, COVID-19, T1-weighted). Plain integers are words already ("one" = "1").
_SIGNIFICANT = re.compile(
    r"\d+(?:[.,]\d+)+"
    r"|[+±<>≤≥=%°/×~#]"
    rf"|(?<![^\W_])[{_DASHES}]|[{_DASHES}](?![^\W_])"
    rf"|(?<=\d)[{_DASHES}](?=\d)"
)


def normalise(text: str) -> str:
    """The form compared by the exact-match rule (see the module docstring)."""
    t = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    while True:
        stripped = t.strip().strip(_WRAP).rstrip(_TRAILING).strip()
        if stripped == t:
            break
        t = stripped
    return _LEADING_ARTICLE.sub("", t)


def _signs(text: str) -> tuple[str, ...]:
    t = unicodedata.normalize("NFKC", text)
    return tuple("-" if m[0] in _DASHES else m for m in _SIGNIFICANT.findall(t))


@dataclass(frozen=True, slots=True)
class OpenDecision:
    """What the rules say about one open-ended answer."""

    score: int | None
    rule: str
    reason: str

    @property
    def decided(self) -> bool:
        """True when the rules gave a score."""
        return self.score is not None


def _short(words: Sequence[str], limit: int = 60) -> str:
    text = " ".join(words)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _contract(score: int | None, method: Method, reason: str) -> dict[str, Any]:
    return {
        "score": score,
        "method": method.value,
        "gt_label": None,
        "pred_label": None,
        "options": None,
        "reason": reason,
        "question_kind": None,
    }


class OpenGrader:
    """Grades open-ended answers 0-5: the certain cases by rule, the rest by the judge.

    Args:
        lexicon: a loaded lexicon; default: the shipped lexicons plus `lexicons` files.
        lexicons: extra lexicon TOML files that extend the shipped ones.
        judge: an Equivalence judge for the rows the rules cannot settle (an object with
            ``judge_rows(items) -> list[dict]``, e.g. ``JudgeFallback`` over a ``Judge``
            configured with ``prompt="equivalence"``).
        judge_all: send every readable row to the judge, not only the unsettled ones.
        fields: input field names (only question, gt, pred and id are read).
    """

    def __init__(
        self,
        lexicon: Lexicon | None = None,
        *,
        lexicons: Sequence[str | Path] = (),
        judge: JudgeLike | None = None,
        judge_all: bool = False,
        fields: FieldMap | None = None,
    ) -> None:
        from .contract import FieldMap
        from .lexicon import lexicon_for

        self.lex = lexicon or lexicon_for(lexicons)
        self.judge = judge
        self.judge_all = judge_all
        self.fields = fields or FieldMap()

    def _words(self, text: str) -> tuple[str, ...]:
        words = self.lex.canon.words(text)
        if len(words) > 1 and words[0] in _ARTICLES:
            return words[1:]
        return words

    def decide(self, gt: str, pred: str) -> OpenDecision:
        """What the rules say about one (gt, pred) pair.

        Args:
            gt: the reference answer.
            pred: the model's answer.
        """
        if not pred.strip():
            return OpenDecision(0, "empty-pred", "the prediction is empty")
        ng, np_ = normalise(gt), normalise(pred)
        if ng and ng == np_:
            return OpenDecision(FULL_MARKS, "exact", "gt and pred match after normalisation")
        wg, wp = self._words(gt), self._words(pred)
        if wg and wg == wp:
            if _signs(gt) == _signs(pred):
                why = f"same canonical words through the lexicons ({_short(wg)!r})"
                return OpenDecision(FULL_MARKS, "lexicon", why)
            why = "same words but the numbers or signs differ; no rule is certain"
            return OpenDecision(None, "signs-differ", why)
        why = f"no rule is certain: canonical forms differ ({_short(wg)!r} vs {_short(wp)!r})"
        return OpenDecision(None, "differ", why)

    def outcome(
        self, data: Mapping[str, Any]
    ) -> tuple[dict[str, Any], tuple[str, str, str] | None]:
        """The contract fields for one row and its (question, gt, pred), or an error row."""
        f = self.fields
        q, gt, pred = data.get(f.question), data.get(f.gt), data.get(f.pred)
        for name, value, empty_ok in (
            (f.question, q, False),
            (f.gt, gt, False),
            (f.pred, pred, True),
        ):
            problem = field_problem(name, value, allow_empty=empty_ok)
            if problem:
                return _contract(None, Method.ERROR, problem), None
        assert isinstance(q, str) and isinstance(gt, str) and isinstance(pred, str)
        d = self.decide(gt, pred)
        if d.decided:
            return _contract(d.score, Method.RULE, f"{d.rule}: {d.reason}"), (q, gt, pred)
        return _contract(None, Method.UNRESOLVED, d.reason), (q, gt, pred)

    def grade_rows(
        self, rows: Iterable[Mapping[str, Any] | Any], *, batch: int = 256
    ) -> Iterator[dict[str, Any]]:
        """Grade rows in order: each output row is the input row plus the contract fields.

        Accepts mappings or `vqagrade.io.InputRow` records (unreadable records become
        error rows). With a judge, unsettled rows are judged in batches of `batch`.
        """
        pending: list[tuple[dict[str, Any], tuple[str, str, str] | None]] = []
        for row in rows:
            out_row, triple = self._row(row)
            if self.judge is None:
                yield out_row
                continue
            pending.append((out_row, triple))
            if len(pending) >= batch:
                yield from self._flush(pending)
                pending = []
        if pending:
            yield from self._flush(pending)

    def _row(self, row: Mapping[str, Any] | Any) -> tuple[dict[str, Any], Any]:
        data = unwrap(row)
        if data is None:
            return unreadable(row), None
        fields, triple = self.outcome(data)
        out_row = dict(data)
        out_row.update(fields)
        needs = triple is not None and (self.judge_all or fields["method"] == "unresolved")
        return out_row, triple if needs else None

    def _flush(
        self, pending: list[tuple[dict[str, Any], tuple[str, str, str] | None]]
    ) -> Iterator[dict[str, Any]]:
        assert self.judge is not None
        todo = [(row, t) for row, t in pending if t is not None]
        if todo:
            results = self.judge.judge_rows([t for _, t in todo])
            for (row, _), fields in zip(todo, results, strict=True):
                merge_judge(row, _judged(fields))
        for out_row, _ in pending:
            yield out_row


def _judged(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The judge's fields with its score as an integer 0-5, or an error when it is not one."""
    out = dict(fields)
    if out.get("method") != Method.LLM.value:
        return out
    score = out.get("score")
    if (
        isinstance(score, (int, float))
        and not isinstance(score, bool)
        and float(score).is_integer()
        and 0 <= score <= FULL_MARKS
    ):
        out["score"] = int(score)
        return out
    out.update(
        score=None,
        method=Method.ERROR.value,
        reason=f"judge score {score!r} is not an integer 0-{FULL_MARKS} "
        "(the open task needs the equivalence prompt)",
    )
    return out
