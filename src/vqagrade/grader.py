"""Grade rows: rules first, the truth table for what they settle, a judge for the rest.

`Grader` memoises option extraction per question and labelling per (options, text) in
`vqagrade.rules.memo.Tables`, so a million rows over a few thousand questions cost little more
than reading them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .contract import MAX_TEXT_CHARS, FieldMap, Method, merge_judge, unreadable, unwrap
from .kinds import QuestionKind, judge_question, parse_kinds
from .lexicon import Lexicon, lexicon_for
from .records import AnswerTrace, Grade, Mention
from .rules.answer import Reading, Verdict, label_reading
from .rules.memo import Outcome, Tables
from .rules.options import NotTwoOption, Options
from .schema import require_fields
from .yes_no_trace import yes_no_traces

if TYPE_CHECKING:
    from .judge import Judge, JudgeConfig, JudgePlan

__all__ = ["MAX_TEXT_CHARS", "FieldMap", "Grader", "JudgeLike", "Outcome", "grade", "grade_rows"]


class JudgeLike(Protocol):
    """What the grader needs from an LLM judge (see `vqagrade.judge.Judge`)."""

    def judge_rows(self, items: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """Judge (question, gt, pred) triples; one dict of output fields per triple."""
        ...


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
        judge: an LLM judge for the rows the rules cannot settle: a model name
            (``"gpt-4o-mini"``, with the default endpoint and ``OPENAI_API_KEY``), a
            `vqagrade.JudgeConfig`, a `vqagrade.judge.Judge`, or anything with a
            ``judge_rows`` method. A judge the grader built is closed by `close`.
        judge_all: send every row to the judge, not only the unsettled ones.
        fields: input field names.
        kinds: the question kinds to grade (`QuestionKind` values, e.g. ``["two_option"]``);
            rows of other kinds come out unresolved with the reason. Default: every kind.
    """

    def __init__(
        self,
        lexicon: Lexicon | None = None,
        *,
        lexicons: Sequence[str | Path] = (),
        judge: JudgeLike | Judge | JudgeConfig | str | None = None,
        judge_all: bool = False,
        fields: FieldMap | None = None,
        kinds: Iterable[QuestionKind | str] | None = None,
    ) -> None:
        self.lex = lexicon or lexicon_for(lexicons)
        self._owned: Judge | None = None
        self.judge: JudgeLike | None = self._judge_like(judge)
        self.judge_all = judge_all
        self.fields = fields or FieldMap()
        names = self.fields
        self._tables = Tables(
            self.lex, (names.question, names.gt, names.pred, names.option_a, names.option_b)
        )
        if kinds is not None:
            self._tables.only = parse_kinds(kinds)

    def _judge_like(self, judge: Any) -> JudgeLike | None:
        """The judge as the grader calls it (a `JudgeFallback` over a `Judge`)."""
        if judge is None or hasattr(judge, "judge_rows"):
            return judge  # type: ignore[no-any-return]
        from .judge import Judge, JudgeConfig
        from .judge.adapter import JudgeFallback

        if isinstance(judge, str):
            judge = JudgeConfig(model=judge)
        if isinstance(judge, JudgeConfig):
            judge = self._owned = Judge(judge)
        if isinstance(judge, Judge):
            return JudgeFallback(judge)
        raise TypeError(
            "judge must be a model name, a JudgeConfig, a Judge or have judge_rows(), "
            f"not {type(judge).__name__}"
        )

    @property
    def llm(self) -> Judge | None:
        """The `vqagrade.judge.Judge` behind the grader's judge, if it has one."""
        inner = getattr(self.judge, "judge", None)
        from .judge import Judge

        return inner if isinstance(inner, Judge) else None

    def check_judge(self) -> None:
        """Ask the judge's endpoint once (``GET /models``) before a run.

        Raises:
            JudgeError: the endpoint cannot be reached or refuses the key (one line).
        """
        if self.llm is not None:
            self.llm.preflight()

    def plan(
        self,
        rows: Iterable[Mapping[str, Any] | Any],
        *,
        price_in: float | None = None,
        price_out: float | None = None,
    ) -> JudgePlan:
        """What judging `rows` would cost, calling nothing: the rows the rules leave (every
        readable row with ``judge_all``), how many the cache answers, estimated prompt
        tokens and, given prices in dollars per million tokens, the cost.

        Args:
            rows: input rows (mappings or `vqagrade.io.InputRow` records).
            price_in: dollars per million prompt tokens.
            price_out: dollars per million completion tokens.

        Raises:
            JudgeError: the grader has no `vqagrade.judge.Judge`.
        """
        from .errors import JudgeError
        from .judge import JudgeRequest

        judge = self.llm
        if judge is None:
            raise JudgeError("plan needs a judge: Grader(judge=JudgeConfig(model=...))")
        requests = []
        for row in require_fields(rows, self.fields):
            data = unwrap(row)
            if data is None:
                continue
            _, triple, unsettled = self.row_fields(data)
            if triple is not None and (unsettled or self.judge_all):
                requests.append(JudgeRequest(question=triple[0], gt=triple[1], pred=triple[2]))
        return judge.plan(requests).priced(price_in, price_out)

    def close(self) -> None:
        """Close the judge the grader built from a model name or `JudgeConfig`."""
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- rules ------------------------------------------------------------------------
    def options(
        self, question: str, option_a: str | None = None, option_b: str | None = None
    ) -> Options | NotTwoOption:
        """The question's two options (explicit ones win), memoised."""
        return self._tables.options(question, option_a, option_b)

    def read(self, text: str) -> Reading:
        """The option-independent reading of an answer, memoised per text."""
        return self._tables.read(text)

    def label(self, text: str, opts: Options) -> Verdict:
        """Label one answer against the options, with its evidence (the reading is memoised)."""
        return label_reading(self.read(text), opts, self.lex)

    def _evaluate(
        self, question: str, gt: str, pred: str, options: tuple[str, str] | None
    ) -> tuple[Outcome, Options | None]:
        return self._tables.evaluate(question, gt, pred, options)

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
        traces: tuple[AnswerTrace, AnswerTrace] | None = None
        if opts is not None:
            out = out.with_options(opts.texts)
            g, p = self.label(gt, opts), self.label(pred, opts)
        elif out.kind is QuestionKind.YES_NO:
            traces = yes_no_traces(self._tables, question, gt, pred)
        grade = Grade(
            score=out.score,
            method=out.method,
            gt_label=out.gt_label,
            pred_label=out.pred_label,
            options=out.options,
            reason=out.reason,
            question_kind=out.kind,
            gt=_trace(g) if g else traces[0] if traces else None,
            pred=_trace(p) if p else traces[1] if traces else None,
        )
        if self.judge is not None and (out.needs_judge or self.judge_all):
            if out.kind is QuestionKind.YES_NO:
                question = judge_question(question)
            judged = self.judge.judge_rows([(question, gt, pred)])[0]
            grade = _apply_judge(grade, judged)
        return grade

    # -- rows -------------------------------------------------------------------------
    def row_fields(
        self, data: Mapping[str, Any]
    ) -> tuple[dict[str, Any], tuple[str, str, str] | None, bool]:
        """The contract's fields for one row (a fresh dict), its (question, gt, pred) triple
        (None for a malformed row) and whether the rules left it unsettled."""
        core, texts, triple = self._tables.settle(data if type(data) is dict else dict(data))
        fields = dict(core.row_fields)
        if texts is not None:
            fields["options"] = [texts[0], texts[1]]  # rows never share a mutable list
        return fields, triple, triple is not None and core.needs_judge

    def row_outcome(self, data: Mapping[str, Any]) -> tuple[Outcome, tuple[str, str, str] | None]:
        """Validate a row's fields and grade it; malformed rows become error outcomes."""
        core, texts, triple = self._tables.settle(data if type(data) is dict else dict(data))
        if texts is not None and core.options != texts:
            core = core.with_options(texts)
        return core, triple

    def grade_rows(
        self, rows: Iterable[Mapping[str, Any] | Any], *, batch: int = 256
    ) -> Iterator[dict[str, Any]]:
        """Grade rows in order: each output row is the input row plus the contract fields.

        Accepts mappings or `vqagrade.io.InputRow` records (unreadable records become
        error rows). With a judge, unsettled rows are judged in batches of `batch`.

        Raises:
            SchemaError: (a `KeyError`) the question, gt or pred field is missing from every
                one of the first rows: the field names are wrong, not the rows.
        """
        rows = require_fields(rows, self.fields)
        if self.judge is None:
            yield from self._tables.rows(rows)
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
        data = unwrap(row)
        if data is None:
            return unreadable(row), None, False
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
                merge_judge(pending[i][0], fields)
        for out_row, _, _ in pending:
            yield out_row


def _apply_judge(grade: Grade, judged: Mapping[str, Any]) -> Grade:
    row: dict[str, Any] = {"reason": grade.reason}
    merge_judge(row, judged)
    method = Method(judged.get("method", Method.ERROR.value))
    return grade.model_copy(
        update={
            "score": judged.get("score"),
            "method": method,
            "reason": row["reason"],
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


def grade_rows(
    rows: Iterable[Mapping[str, Any]], *, fields: FieldMap | None = None, **names: str
) -> Iterator[dict[str, Any]]:
    """Grade rows (mappings with question/gt/pred) with the shipped rules, in order.

    Example: ``grade_rows(rows, gt="answer", pred="model_output")``.

    Args:
        rows: the input rows.
        fields: input field names, when they are not question/gt/pred/option_a/option_b.
        **names: the same by role, as keywords: ``question=``, ``gt=``, ``pred=``, ``id=``,
            ``option_a=``, ``option_b=``.

    Raises:
        SchemaError: (a `KeyError`) a required field is missing from every one of the first
            rows; the message names the fields seen and the near matches.
    """
    from .engines.arrow import grader_for
    from .schema import field_map

    mapped = field_map(fields, **names)
    grader = default_grader() if mapped is None else grader_for(mapped)
    return grader.grade_rows(rows)
