"""Grade rows: rules first, the truth table for what they settle, a judge for the rest.

`Grader` memoises option extraction per question and labelling per (options, text), so a
million rows over a few thousand questions cost little more than reading them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from . import options as options_module
from .answer import Reading, Verdict, label_reading, read_answer
from .labels import TRUTH_TABLE, Label
from .lexicon import Lexicon, lexicon_for
from .options import NotTwoOption, Options, build_options, extract_options
from .records import AnswerTrace, Grade, Mention, Method

MAX_TEXT_CHARS = 100_000
_CACHE_SIZE = 100_000
_YES_NO_REASON = "a yes/no question whose wording contains 'or'"


class FieldMap(BaseModel):
    """Names of the input fields vqagrade reads (remappable on the command line)."""

    question: str = "question"
    gt: str = "gt"
    pred: str = "pred"
    id: str = "id"
    option_a: str = "option_a"
    option_b: str = "option_b"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The row contract's fields for one graded triple (the hot-path form of `Grade`)."""

    score: float | None
    method: Method
    gt_label: Label | None
    pred_label: Label | None
    options: tuple[str, str] | None
    reason: str
    needs_judge: bool = False
    row_fields: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Built once: outcomes are memoised and shared by every row with the same labels.
        if self.row_fields:
            return
        self.row_fields.update(
            score=self.score,
            method=self.method.value,
            gt_label=self.gt_label.value if self.gt_label else None,
            pred_label=self.pred_label.value if self.pred_label else None,
            options=list(self.options) if self.options else None,
            reason=self.reason,
        )

    def with_options(self, options: tuple[str, str]) -> Outcome:
        """The same verdict for a question whose options read differently."""
        fields = dict(self.row_fields)
        fields["options"] = list(options)
        return Outcome(
            self.score,
            self.method,
            self.gt_label,
            self.pred_label,
            options,
            self.reason,
            self.needs_judge,
            fields,
        )

    def fields(self) -> dict[str, Any]:
        """The fields added to an output row (a fresh dict)."""
        out = dict(self.row_fields)
        if self.options:
            out["options"] = list(self.options)
        return out


class JudgeLike(Protocol):
    """What the grader needs from an LLM judge (see `vqagrade.judge.Judge`)."""

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """Judge (question, gt, pred) triples; one dict of output fields per triple."""
        ...


class _Memo(dict[Any, Any]):
    """A bounded memo: emptied when full, so memory stays flat on huge inputs.

    Cheaper per hit than an LRU (a plain dict lookup), which matters on the per-row path.
    """

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        if len(self) >= self.size:
            self.clear()
        self[key] = value


def _trace(v: Verdict) -> AnswerTrace:
    return AnswerTrace(
        label=v.label,
        rule=v.rule,
        reason=v.reason,
        focus=v.focus,
        mentions=tuple(
            Mention(
                option=h.option,
                span=v.focus[h.start : h.end],
                start=h.start,
                via=h.via,
                negated=h.negation is not None,
                negation=h.negation,
            )
            for h in v.hits
        ),
        cues=v.cues,
    )


class Grader:
    """Rule-based grader with memoisation; optionally backed by an LLM judge.

    Args:
        lexicon: a loaded lexicon; default: the shipped lexicons plus `lexicons` files.
        lexicons: extra lexicon TOML files that extend the shipped ones.
        judge: an LLM judge for the rows the rules cannot settle.
        judge_all: send every row to the judge, not only the unsettled ones.
        fields: input field names.
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
        self.lex = lexicon or lexicon_for(lexicons)
        self.judge = judge
        self.judge_all = judge_all
        self.fields = fields or FieldMap()
        self._opts = _Memo(_CACHE_SIZE)
        self._labels = _Memo(_CACHE_SIZE)
        self._readings = _Memo(_CACHE_SIZE)
        self._outcomes = _Memo(_CACHE_SIZE)
        # One token per distinct options signature: the key of labels shared by questions.
        self._shared = _Memo(_CACHE_SIZE)

    # -- rules ------------------------------------------------------------------------
    def options(
        self, question: str, option_a: str | None = None, option_b: str | None = None
    ) -> Options | NotTwoOption:
        """The question's two options (explicit ones win), memoised."""
        key = (question, option_a, option_b)
        hit = self._opts.get(key)
        if hit is None:
            if option_a is not None and option_b is not None:
                hit = build_options(option_a, option_b, self.lex, question=question)
            else:
                hit = extract_options(question, self.lex)
            self._opts.put(key, hit)
        return hit

    def read(self, text: str) -> Reading:
        """The option-independent reading of an answer, memoised per text."""
        hit = self._readings.get(text)
        if hit is None:
            hit = read_answer(text, self.lex)
            self._readings.put(text, hit)
        return hit

    def label(self, text: str, opts: Options) -> Verdict:
        """Label one answer against the options, memoised.

        A label that never looked at the question's own words is shared by every question
        with the same options (key: the options' signature); one that did is kept per
        question.
        """
        shared = self._shared.get(opts.signature)
        if shared is None:
            shared = self._shared.setdefault(opts.signature, object())
        hit = self._labels.get((shared, text))
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        hit = self._labels.get((opts, text))
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        before = options_module.CONTEXT_READS
        verdict = label_reading(self.read(text), opts, self.lex)
        own = options_module.CONTEXT_READS != before
        self._labels.put((opts, text) if own else (shared, text), verdict)
        return verdict

    def _yes_no(self, text: str) -> bool:
        return self.read(text).yes_no

    def _evaluate(
        self, question: str, gt: str, pred: str, options: tuple[str, str] | None
    ) -> tuple[Outcome, Verdict | None, Verdict | None]:
        opts = self.options(question, *(options or (None, None)))
        if isinstance(opts, NotTwoOption):
            return self._refused(opts.reason), None, None
        if self._yes_no(gt) and not opts.yes_no and opts.source != "or-not":
            return self._refused(_YES_NO_REASON), None, None
        g = self.label(gt, opts)
        p = self.label(pred, opts)
        # Verdicts are memoised objects: the pair is an identity key. The options' wording is
        # per question, so it is added to the shared part here.
        core = self._outcomes.get((g, p))
        if core is None:
            core = self._outcome(opts, g, p)
            self._outcomes.put((g, p), core)
        if core.options == opts.texts:
            return core, g, p
        return core.with_options(opts.texts), g, p

    def _refused(self, why: str) -> Outcome:
        hit = self._outcomes.get(why)
        if hit is None:
            reason = f"not a two-option question: {why}"
            hit = Outcome(None, Method.UNRESOLVED, None, None, None, reason, True)
            self._outcomes.put(why, hit)
        return hit

    @staticmethod
    def _outcome(opts: Options, g: Verdict, p: Verdict) -> Outcome:
        texts = opts.texts
        if g.label is not None and p.label is not None:
            score = TRUTH_TABLE[g.label][p.label]
            reason = f"gt {g.label.value} ({g.reason}); pred {p.label.value} ({p.reason})"
            return Outcome(score, Method.RULE, g.label, p.label, texts, reason)
        parts = []
        if g.label is None:
            parts.append(f"gt abstains: {g.reason}")
        if p.label is None:
            parts.append(f"pred abstains: {p.reason}")
        return Outcome(None, Method.UNRESOLVED, g.label, p.label, texts, "; ".join(parts), True)

    def outcome(
        self, question: str, gt: str, pred: str, options: tuple[str, str] | None = None
    ) -> Outcome:
        """The row-contract fields for one triple, by the rules alone (fast path)."""
        return self._evaluate(question, gt, pred, options)[0]

    def grade(
        self, question: str, gt: str, pred: str, *, options: tuple[str, str] | None = None
    ) -> Grade:
        """Grade one triple by the rules, with the evidence for each label.

        Args:
            question: the two-option question.
            gt: the ground-truth answer.
            pred: the model's answer.
            options: explicit (option_a, option_b), overriding extraction from the question.
        """
        out, g, p = self._evaluate(question, gt, pred, options)
        grade = Grade(
            score=out.score,
            method=out.method,
            gt_label=out.gt_label,
            pred_label=out.pred_label,
            options=out.options,
            reason=out.reason,
            gt=_trace(g) if g else None,
            pred=_trace(p) if p else None,
        )
        if self.judge is not None and (out.needs_judge or self.judge_all):
            judged = self.judge.judge_rows([(question, gt, pred)])[0]
            grade = _apply_judge(grade, judged)
        return grade

    # -- rows -------------------------------------------------------------------------
    def row_outcome(self, data: Mapping[str, Any]) -> tuple[Outcome, tuple[str, str, str] | None]:
        """Validate a row's fields and grade it; malformed rows become error outcomes."""
        f = self.fields
        values: list[str] = []
        for name in (f.question, f.gt, f.pred):
            v = data.get(name)
            problem = _field_problem(name, v)
            if problem:
                return Outcome(None, Method.ERROR, None, None, None, problem), None
            assert isinstance(v, str)
            values.append(v)
        explicit: tuple[str, str] | None = None
        a, b = data.get(f.option_a), data.get(f.option_b)
        if isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip():
            explicit = (a, b)
        q, gt, pred = values
        return self.outcome(q, gt, pred, explicit), (q, gt, pred)

    def grade_rows(
        self, rows: Iterable[Mapping[str, Any] | Any], *, batch: int = 256
    ) -> Iterator[dict[str, Any]]:
        """Grade rows in order: each output row is the input row plus the contract fields.

        Accepts mappings or `vqagrade.io.InputRow` records (unreadable records become
        error rows). With a judge, unsettled rows are judged in batches of `batch`.
        """
        if self.judge is None:
            for row in rows:
                yield self._row(row)[0]
            return
        pending: list[tuple[dict[str, Any], tuple[str, str, str] | None, bool]] = []
        for row in rows:
            out_row, triple, needs = self._row(row)
            pending.append((out_row, triple, needs))
            if len(pending) >= batch:
                yield from self._flush(pending)
                pending = []
        if pending:
            yield from self._flush(pending)

    def _row(self, row: Mapping[str, Any] | Any) -> tuple[dict[str, Any], Any, bool]:
        # Exact type checks first: the ABC checks of isinstance(…, Mapping) cost on every row.
        data = row if type(row) is dict else getattr(row, "data", row)
        if type(data) is not dict and (data is None or not isinstance(data, Mapping)):
            line = getattr(row, "line", None)
            why = getattr(row, "error", None) or "the row is not an object"
            out_row: dict[str, Any] = {"line": line, "raw": getattr(row, "raw", None)}
            out_row.update(Outcome(None, Method.ERROR, None, None, None, why).fields())
            return out_row, None, False
        outcome, triple = self.row_outcome(data)
        out_row = dict(data)
        out_row.update(outcome.row_fields)
        if outcome.options:
            out_row["options"] = list(outcome.options)  # rows never share a mutable list
        needs = triple is not None and (outcome.needs_judge or self.judge_all)
        return out_row, triple, needs

    def _flush(
        self, pending: list[tuple[dict[str, Any], tuple[str, str, str] | None, bool]]
    ) -> Iterator[dict[str, Any]]:
        assert self.judge is not None
        todo = [(i, t) for i, (_, t, needs) in enumerate(pending) if needs and t is not None]
        if todo:
            results = self.judge.judge_rows([t for _, t in todo])
            for (i, _), fields in zip(todo, results, strict=True):
                row = pending[i][0]
                rules = row.get("reason")
                row.update(fields)
                if rules and fields.get("method") == "llm":
                    row["reason"] = f"{fields['reason']}; rules: {rules}"
        for out_row, _, _ in pending:
            yield out_row


def _field_problem(name: str, value: Any) -> str | None:
    if type(value) is str and len(value) <= MAX_TEXT_CHARS and value and not value.isspace():
        return None
    if value is None:
        return f"missing field '{name}'"
    if not isinstance(value, str):
        return f"field '{name}' is {type(value).__name__}, expected a string"
    if not value.strip():
        return f"field '{name}' is empty"
    if len(value) > MAX_TEXT_CHARS:
        return f"field '{name}' is longer than {MAX_TEXT_CHARS:,} characters"
    return None


def _apply_judge(grade: Grade, judged: Mapping[str, Any]) -> Grade:
    method = Method(judged.get("method", Method.ERROR.value))
    return grade.model_copy(
        update={
            "score": judged.get("score"),
            "method": method,
            "reason": judged.get("reason", grade.reason),
            "judge": dict(judged),
        }
    )


_default: Grader | None = None


def default_grader() -> Grader:
    """A process-wide grader with the shipped lexicons and no judge."""
    global _default
    if _default is None:
        _default = Grader()
    return _default


def grade(question: str, gt: str, pred: str, *, options: tuple[str, str] | None = None) -> Grade:
    """Grade one (question, gt, pred) triple with the shipped rules.

    Args:
        question: the two-option question ("Is the lesion in the left or right kidney?").
        gt: the ground-truth answer.
        pred: the model's answer.
        options: explicit (option_a, option_b), overriding extraction from the question.
    """
    return default_grader().grade(question, gt, pred, options=options)


def grade_rows(rows: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Grade rows (mappings with question/gt/pred) with the shipped rules, in order."""
    return default_grader().grade_rows(rows)
