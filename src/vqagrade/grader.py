"""Grade rows: rules first, the truth table for what they settle, a judge for the rest.

`Grader` memoises option extraction per question and labelling per (options, text), so a
million rows over a few thousand questions cost little more than reading them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from . import options as options_module
from .answer import Reading, Verdict, label_reading, read_answer
from .io import InputRow
from .labels import TRUTH_TABLE, Label
from .lexicon import Lexicon, lexicon_for
from .options import NotTwoOption, Options, build_options, extract_options
from .pipeline import error_row
from .records import AnswerTrace, FieldMap, Grade, Mention, Method

MAX_TEXT_CHARS = 100_000
_CACHE_SIZE = 100_000
# Label tables hold one small int per (question, answer text): a million cost ~60 MB, and a
# bigger table keeps the answers that recur across a run (measured on 1M rows: 29 s with
# 1M entries, 38 s with 100k).
_LABEL_CAP = 1_000_000
# Readings are only reused when an answer recurs under other options (labels are memoised
# per options already); a small table of recent ones is enough, and a large one of big
# objects slowed whole runs down (measured on 1M rows: 19-21 s with 2k, 21-23 s with 100k).
_READINGS_SIZE = 10_000
_MAX_KINDS = 1 << 16
_KEY_BASE = 1 << 32  # outcome key of a pair of kinds: g * _KEY_BASE + p
_YES_NO_REASON = "a yes/no question whose wording contains 'or'"


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
    refusal: bool = False  # not a two-option question: no options to report
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
            self.refusal,
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


def _put(memo: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    """Store in a bounded memo: emptied when full, so memory stays flat on huge inputs.

    Cheaper per hit than an LRU (a plain dict lookup), which matters on the per-row path.
    """
    if len(memo) >= size:
        memo.clear()
    memo[key] = value


class _Question:
    """What the grader keeps per question: its options (or why it has none) and labels."""

    __slots__ = ("labels", "opts", "refused")

    def __init__(self, opts: Options | None, refused: Outcome | None) -> None:
        self.opts = opts
        self.refused = refused
        self.labels: dict[str, int] = {}  # text -> kind of its label


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
        self._opts: dict[tuple[str, str | None, str | None], Options | NotTwoOption] = {}
        self._readings: dict[str, Reading] = {}
        self._refusals: dict[str, Outcome] = {}
        # Per question (and explicit options): its options and its own text -> label table.
        self._questions: dict[Any, _Question] = {}
        # Per options signature: the labels that never read the question's own words.
        self._by_signature: dict[tuple[object, ...], dict[str, int]] = {}
        self._label_count = 0
        # A row's outcome depends only on each side's (label, reason, refusal): those "kinds"
        # are few (about 150 on a million rows), so outcomes are memoised per pair of kinds.
        self._kinds: dict[tuple[Label | None, str, bool], int] = {}
        self._kind_list: list[tuple[Label | None, str, bool]] = []
        self._kinds_full = False
        self._cores: dict[int, Outcome] = {}
        names = self.fields
        self._names = (names.question, names.gt, names.pred, names.option_a, names.option_b)

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
            _put(self._opts, key, hit, _CACHE_SIZE)
        return hit

    def read(self, text: str) -> Reading:
        """The option-independent reading of an answer, memoised per text."""
        hit = self._readings.get(text)
        if hit is None:
            hit = read_answer(text, self.lex)
            _put(self._readings, text, hit, _READINGS_SIZE)
        return hit

    def label(self, text: str, opts: Options) -> Verdict:
        """Label one answer against the options, with its evidence (the reading is memoised)."""
        return label_reading(self.read(text), opts, self.lex)

    def _state(self, opts: Options) -> _Question:
        st = self._questions.get(opts)
        if st is None:
            st = self._remember(opts, _Question(opts, None))
        return st

    def _question(self, question: str, a: str | None, b: str | None) -> _Question:
        """The memoised state of a question (keyed by its text, plus explicit options)."""
        opts = self.options(question, a, b)
        if isinstance(opts, NotTwoOption):
            st = _Question(None, self._refused(opts.reason))
        else:
            st = self._state(opts)
        return self._remember(question if a is None else (question, a, b), st)

    def _remember(self, key: Any, st: _Question) -> _Question:
        if len(self._questions) >= _CACHE_SIZE:
            self._forget_labels()
            self._questions.clear()
        self._questions[key] = st
        return st

    def _kind(self, st: _Question, text: str) -> int:
        """The kind of the label of `text` for the question, memoised.

        Only the kind is kept, not the verdict and its evidence: a million distinct answers
        cost a few dozen bytes each. A label that never looked at the question's own words is
        shared by every question with the same options (key: the options' signature).
        """
        hit = st.labels.get(text)
        if hit is not None:
            return hit
        opts = st.opts
        assert opts is not None
        shared = self._by_signature.get(opts.signature)
        if shared is None:
            shared = self._by_signature[opts.signature] = {}
        hit = shared.get(text)
        if hit is None:
            before = options_module.CONTEXT_READS
            verdict = label_reading(self.read(text), opts, self.lex)
            own = options_module.CONTEXT_READS != before
            kind = (verdict.label, verdict.reason, verdict.rule == "yes-no")
            hit = self._kinds.get(kind)
            if hit is None:
                # Full: renumbered before the next row, never in the middle of one (the
                # row's other label already holds a number).
                self._kinds_full = len(self._kind_list) + 1 >= _MAX_KINDS
                hit = self._kinds[kind] = len(self._kind_list)
                self._kind_list.append(kind)
            if not own:
                shared[text] = hit
        if self._label_count >= _LABEL_CAP:
            self._forget_labels()
        self._label_count += 1
        st.labels[text] = hit
        return hit

    def _renumber_kinds(self) -> None:
        self._forget_labels()
        self._kinds.clear()
        self._kind_list.clear()
        self._cores.clear()
        self._kinds_full = False

    def _forget_labels(self) -> None:
        # Bounded: memory stays flat however many distinct answers a run sees.
        for st in self._questions.values():
            st.labels.clear()
        self._by_signature.clear()
        self._label_count = 0

    def _evaluate(
        self, question: str, gt: str, pred: str, options: tuple[str, str] | None
    ) -> tuple[Outcome, Options | None]:
        """The outcome (without the options' wording) and the options, if it has any."""
        if self._kinds_full:
            self._renumber_kinds()
        a, b = options or (None, None)
        st = self._questions.get(question if a is None else (question, a, b))
        if st is None:
            st = self._question(question, a, b)
        if st.refused is not None:
            return st.refused, None
        core = self._core(self._kind(st, gt), self._kind(st, pred))
        return core, None if core.refusal else st.opts

    def _core(self, g: int, p: int) -> Outcome:
        """The outcome of a pair of label kinds, without the options' wording."""
        key = g * _KEY_BASE + p
        core = self._cores.get(key)
        if core is None:
            g_label, g_reason, g_refused = self._kind_list[g]
            p_label, p_reason, _ = self._kind_list[p]
            if g_refused:  # the gt answers a yes/no question, not these options
                core = self._refused(_YES_NO_REASON)
            else:
                core = self._outcome(g_label, g_reason, p_label, p_reason)
            self._cores[key] = core
        return core

    def _refused(self, why: str) -> Outcome:
        hit = self._refusals.get(why)
        if hit is None:
            reason = f"not a two-option question: {why}"
            hit = Outcome(None, Method.UNRESOLVED, None, None, None, reason, True, True)
            if len(self._refusals) >= _CACHE_SIZE:
                self._refusals.clear()
            self._refusals[why] = hit
        return hit

    @staticmethod
    def _outcome(g: Label | None, g_reason: str, p: Label | None, p_reason: str) -> Outcome:
        if g is not None and p is not None:
            score = TRUTH_TABLE[g][p]
            reason = f"gt {g.value} ({g_reason}); pred {p.value} ({p_reason})"
            return Outcome(score, Method.RULE, g, p, None, reason)
        parts = []
        if g is None:
            parts.append(f"gt abstains: {g_reason}")
        if p is None:
            parts.append(f"pred abstains: {p_reason}")
        return Outcome(None, Method.UNRESOLVED, g, p, None, "; ".join(parts), True)

    def outcome(
        self, question: str, gt: str, pred: str, options: tuple[str, str] | None = None
    ) -> Outcome:
        """The row-contract fields for one triple, by the rules alone (fast path)."""
        core, opts = self._evaluate(question, gt, pred, options)
        return core if opts is None else core.with_options(opts.texts)

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
        out, opts = self._evaluate(question, gt, pred, options)
        g = p = None
        if opts is not None:
            out = out.with_options(opts.texts)
            g, p = self.label(gt, opts), self.label(pred, opts)
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
    def row_fields(
        self, data: Mapping[str, Any]
    ) -> tuple[dict[str, Any], tuple[str, str, str] | None, bool]:
        """The contract's fields for one row (a fresh dict), its (question, gt, pred) triple
        (None for a malformed row) and whether the rules left it unsettled."""
        core, texts, triple = self._settle(data)
        fields = dict(core.row_fields)
        if texts is not None:
            fields["options"] = [texts[0], texts[1]]  # rows never share a mutable list
        return fields, triple, triple is not None and core.needs_judge

    def row_outcome(self, data: Mapping[str, Any]) -> tuple[Outcome, tuple[str, str, str] | None]:
        """Validate a row's fields and grade it; malformed rows become error outcomes."""
        core, texts, triple = self._settle(data)
        if texts is not None and core.options != texts:
            core = core.with_options(texts)
        return core, triple

    def _settle(
        self, data: Mapping[str, Any]
    ) -> tuple[Outcome, tuple[str, str] | None, tuple[str, str, str] | None]:
        """The per-row hot path: (verdict without the options' wording, the options' wording,
        the triple for a judge). Inlined memo lookups: this runs once per input row."""
        if self._kinds_full:
            self._renumber_kinds()
        fq, fg, fp, fa, fb = self._names
        # Any: the checks below make them non-empty strings; an assert per row would cost.
        q: Any = data.get(fq)
        gt: Any = data.get(fg)
        pred: Any = data.get(fp)
        # The common case in one expression (a helper function per field costs on every row).
        if not (
            type(q) is str
            and type(gt) is str
            and type(pred) is str
            and 0 < len(q) <= MAX_TEXT_CHARS
            and 0 < len(gt) <= MAX_TEXT_CHARS
            and 0 < len(pred) <= MAX_TEXT_CHARS
            and not (q.isspace() or gt.isspace() or pred.isspace())
        ):
            for name, v in ((fq, q), (fg, gt), (fp, pred)):
                problem = _field_problem(name, v)
                if problem:
                    return Outcome(None, Method.ERROR, None, None, None, problem), None, None
        a = b = None
        if fa in data or fb in data:  # explicit options count when both are usable text
            a, b = data.get(fa), data.get(fb)
            if not (isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip()):
                a = b = None
        if a is None:
            st = self._questions.get(q)
            if st is None:
                st = self._question(q, None, None)
        else:
            st = self._questions.get((q, a, b))
            if st is None:
                st = self._question(q, a, b)
        triple = (q, gt, pred)
        opts = st.opts
        if opts is None:
            assert st.refused is not None
            return st.refused, None, triple
        labels = st.labels
        g = labels.get(gt)
        if g is None:
            g = self._kind(st, gt)
        p = labels.get(pred)
        if p is None:
            p = self._kind(st, pred)
        core = self._cores.get(g * _KEY_BASE + p) or self._core(g, p)
        return core, None if core.refusal else opts.texts, triple

    def grade_rows(
        self, rows: Iterable[Mapping[str, Any] | Any], *, batch: int = 256
    ) -> Iterator[dict[str, Any]]:
        """Grade rows in order: each output row is the input row plus the contract fields.

        Accepts mappings or `vqagrade.io.InputRow` records (unreadable records become
        error rows). With a judge, unsettled rows are judged in batches of `batch`.
        """
        if self.judge is None:
            # The rules-only loop, with _row inlined for the common record: this runs once
            # per input row, and a function call plus a tuple per row measurably cost.
            settle = self._settle
            for row in rows:
                data = row.data if type(row) is InputRow else row
                if type(data) is not dict:
                    yield self._row(row)[0]
                    continue
                core, texts, _ = settle(data)
                out_row = {**data, **core.row_fields}
                if texts is not None:
                    out_row["options"] = [texts[0], texts[1]]  # rows never share a list
                yield out_row
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
        """One output row, its triple for a judge, and whether the judge should see it."""
        # Exact type checks first: the ABC checks of isinstance(…, Mapping) cost on every row.
        data = row if type(row) is dict else getattr(row, "data", row)
        if type(data) is not dict and (data is None or not isinstance(data, Mapping)):
            why = getattr(row, "error", None) or "the row is not an object"
            return (
                error_row(getattr(row, "line", None), getattr(row, "raw", None), why),
                None,
                False,
            )
        fields, triple, unsettled = self.row_fields(data)
        return {**data, **fields}, triple, triple is not None and (unsettled or self.judge_all)

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
