"""Grade rows: rules first, the truth table for what they settle, a judge for the rest.

`Grader` memoises option extraction per question and labelling per (options, text) in
`vqagrade.rules.memo.Tables`, so a million rows over a few thousand questions cost little more
than reading them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .contract import (
    MAX_TEXT_CHARS,
    ChoiceItem,
    FieldMap,
    JudgeItem,
    Method,
    RowGrade,
    merge_judge,
)
from .kinds import QuestionKind, judge_question, parse_kinds
from .lexicon import Lexicon, lexicon_for
from .records import AnswerTrace, Grade, Mention
from .rules.answer import Reading, Verdict, label_reading
from .rules.memo import Outcome, Tables
from .rules.options import NotTwoOption, Options
from .schema import require_fields
from .yes_no_trace import choice_traces, yes_no_traces

if TYPE_CHECKING:
    from .judge import Judge, JudgeConfig, JudgePlan

__all__ = [
    "MAX_TEXT_CHARS",
    "FieldMap",
    "Grader",
    "JudgeLike",
    "Outcome",
    "RowGrade",
    "grade",
    "grade_rows",
]


class JudgeLike(Protocol):
    """What the grader needs from an LLM judge (see `vqagrade.judge.Judge`)."""

    def judge_rows(self, items: Sequence[JudgeItem]) -> list[dict[str, Any]]:
        """Judge rows (question, gt, pred); one dict of output fields per row, in order."""
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
        self._tables.choices_field = names.choices
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
        from .judge.queue import collect_pending, rule_items

        pending: list[JudgeItem] = []
        for _ in collect_pending(rule_items(self, require_fields(rows, self.fields)), pending):
            pass
        requests = [JudgeRequest.of(item) for item in pending]
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

    def grade(
        self,
        question: str,
        gt: str,
        pred: str,
        *,
        options: tuple[str, str] | None = None,
        choices: Sequence[str] | None = None,
    ) -> Grade:
        """Grade one triple by the rules, with the evidence for each label.

        Args:
            question: the question.
            gt: the ground-truth answer.
            pred: the model's answer.
            options: explicit (option_a, option_b), overriding extraction from the question.
            choices: explicit multiple-choice options in letter order (A first); two of
                them are read as `options`.
        """
        texts = tuple(choices) if choices is not None else None
        out, opts = self._tables.evaluate(question, gt, pred, options, texts)
        g = p = None
        traces: tuple[AnswerTrace, AnswerTrace] | None = None
        if opts is not None:
            g, p = self.label(gt, opts), self.label(pred, opts)
        elif out.kind is QuestionKind.YES_NO:
            traces = yes_no_traces(self._tables, question, gt, pred)
        elif out.kind is QuestionKind.MULTIPLE_CHOICE:
            found = self._tables.choices_of(question, tuple(choices) if choices else None)
            if found is not None:
                traces = choice_traces(self._tables, found, gt, pred)
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
            item = JudgeItem(question, gt, pred)
            if out.kind is QuestionKind.YES_NO:
                item = JudgeItem(judge_question(question), gt, pred)
            elif out.kind is QuestionKind.MULTIPLE_CHOICE and out.options:
                letter = out.gt_label.value if out.gt_label else ""
                item = ChoiceItem(question, gt, pred, out.options, letter)
            judged = self.judge.judge_rows([item])[0]
            grade = _apply_judge(grade, judged)
        return grade

    # -- rows -------------------------------------------------------------------------
    def grade_row(self, data: Mapping[str, Any]) -> RowGrade:
        """Grade one row's fields by the rules: the contract's fields (an error row's for a
        malformed row) and what to ask the judge, when the judge should see it."""
        core, texts, triple = self._tables.settle(data if type(data) is dict else dict(data))
        fields = dict(core.row_fields)
        if texts is not None:
            fields["options"] = list(texts)  # rows never share a mutable list
        if triple is None or not (core.needs_judge or self.judge_all):
            return RowGrade(fields, None)
        if core.kind is QuestionKind.MULTIPLE_CHOICE and texts is not None:
            letter = core.gt_label.value if core.gt_label is not None else ""
            return RowGrade(fields, ChoiceItem(*triple, texts, letter))
        return RowGrade(fields, JudgeItem(*triple))

    def grade_rows(
        self, rows: Iterable[Mapping[str, Any] | Any], *, batch: int = 256
    ) -> Iterator[dict[str, Any]]:
        """Grade rows in order: each output row is the input row plus the contract fields.

        Accepts mappings or `vqagrade.io.InputRow` records (unreadable records become
        error rows). With a judge, unsettled rows are judged in batches of `batch` on a
        background thread while the rules go on (`vqagrade.judge.queue`).

        Raises:
            SchemaError: (a `KeyError`) the question, gt or pred field is missing from every
                one of the first rows: the field names are wrong, not the rows (raised when
                the first row is asked for).
        """
        rows = require_fields(rows, self.fields)
        if self.judge is None:
            yield from self._tables.rows(rows)
            return
        from .judge.queue import judge_concurrently, rule_items

        yield from judge_concurrently(rule_items(self, rows), self.judge, batch=batch)


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


def grade(
    question: str,
    gt: str,
    pred: str,
    *,
    options: tuple[str, str] | None = None,
    choices: Sequence[str] | None = None,
) -> Grade:
    """Grade one (question, gt, pred) triple with the shipped rules.

    Args:
        question: the question ("Is the lesion in the left or right kidney?").
        gt: the ground-truth answer.
        pred: the model's answer.
        options: explicit (option_a, option_b), overriding extraction from the question.
        choices: explicit multiple-choice options in letter order (A first).
    """
    return default_grader().grade(question, gt, pred, options=options, choices=choices)


def grade_rows(
    rows: Iterable[Mapping[str, Any]], *, fields: FieldMap | None = None, **names: str
) -> Iterator[dict[str, Any]]:
    """Grade rows (mappings with question/gt/pred; options in option_a/option_b, choices or
    columns A, B, C, ...) with the shipped rules, in order.

    Example: ``grade_rows(rows, gt="answer", pred="model_output")``.

    Args:
        rows: the input rows.
        fields: input field names, when they are not
            question/gt/pred/option_a/option_b/choices.
        **names: the same by role, as keywords: ``question=``, ``gt=``, ``pred=``, ``id=``,
            ``option_a=``, ``option_b=``, ``choices=``.

    Raises:
        SchemaError: (a `KeyError`) a required field is missing from every one of the first
            rows; the message names the fields seen and the near matches.
    """
    from .engines.arrow import grader_for
    from .schema import field_map

    mapped = field_map(fields, **names)
    grader = default_grader() if mapped is None else grader_for(mapped)
    return grader.grade_rows(rows)
