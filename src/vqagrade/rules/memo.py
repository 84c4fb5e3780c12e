"""The per-row core of grading: memo tables from a row's question and answers to its outcome.

`Tables` extracts options once per question, labels each answer text once per set of options
(kept as the number of the label's kind), and looks up the outcome per pair of kinds. It is
compiled with mypyc with the rule modules (see the Makefile): it runs once per input row.
`vqagrade.grader.Grader` is the public face.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..contract import MAX_TEXT_CHARS, InputRow, Method, field_problem, unreadable, unwrap
from ..kinds import (
    YES_NO_OPTIONS,
    Letter,
    QuestionKind,
    YesNo,
    choice_score,
    judge_question,
    yes_no_score,
)
from ..labels import TRUTH_TABLE, Label
from ..lexicon import Lexicon
from .answer import label_reading, read_answer
from .choices import Choices, build_choices, extract_choices
from .multiple_choice import label_choice
from .options import NotTwoOption, Options, build_options, extract_options
from .polar import Proposition, read_question
from .reading import Reading
from .yes_no import bare_yes_no, label_yes_no

CACHE_SIZE = 100_000
# Label tables hold one small int per (question, answer text): a million cost ~60 MB, and a
# bigger table keeps the answers that recur across a run (measured on 1M rows: 29 s with
# 1M entries, 38 s with 100k).
LABEL_CAP = 1_000_000
# Readings are only reused when an answer recurs under other options (labels are memoised
# per options already); a small table of recent ones is enough, and a large one of big
# objects slowed whole runs down (measured on 1M rows: 19-21 s with 2k, 21-23 s with 100k).
READINGS_SIZE = 10_000
MAX_KINDS = 1 << 16
# Memory is bounded by characters, not only by entries: an answer text longer than
# MEMO_TEXT_CHARS is graded afresh each time (its reading costs ~10x its size, and long texts
# rarely recur), and the tables forget the texts they hold as keys when those add up to more
# than half of MEMO_CHARS (answers; questions and option texts have the other half). With
# entry caps alone, distinct 50 KB preds cost ~650 KB each: 4,000 rows reached 2.6 GB.
MEMO_TEXT_CHARS = 2_048
MEMO_CHARS = 192_000_000
# The readings (token lists, spans) cost far more per character than a key: their own budget.
READINGS_CHARS = 4_000_000
# Outcome key of a pair of kinds: g * _KEY_BASE + p (kind numbers stay below it: max_kinds is
# at most half of it, and a row adds only a few past the cap). Below 2**30 on purpose: compiled
# by mypyc, a product of operands under 2**30 is machine arithmetic; a larger one goes through
# CPython's long multiply, which polls for signals, and mypyc takes its failure for "out of
# memory" and aborts, so a Ctrl-C at that moment killed the run before it removed its
# partial outputs.
_KEY_BASE = 1 << 29
_YES_NO_REASON = "a yes/no question whose wording contains 'or'"
# Questions the rules know are not close-ended: the two-option judge prompt does not fit
# them, so they are not sent to it (only with judge_all); they stay unresolved.
NOT_CLOSE_ENDED = frozenset({"open", "multiple", "no_alternative"})
_TWO = QuestionKind.TWO_OPTION
_YES_NO = QuestionKind.YES_NO
_MC = QuestionKind.MULTIPLE_CHOICE
_COLUMNS = ("A", "B", "C", "D", "E", "F", "G", "H")
Labels = Label | YesNo | Letter


@dataclass(frozen=True, slots=True)
class Outcome:
    """The row contract's fields for one graded triple (the hot-path form of `Grade`)."""

    score: float | None
    method: Method
    gt_label: Labels | None
    pred_label: Labels | None
    options: tuple[str, ...] | None
    reason: str
    needs_judge: bool = False
    refusal: bool = False  # not a two-option question: no options to report
    row_fields: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    kind: QuestionKind | None = None

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
            question_kind=self.kind.value if self.kind else None,
        )

    def with_options(self, options: tuple[str, ...]) -> Outcome:
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
            self.kind,
        )

    def fields(self) -> dict[str, Any]:
        """The fields added to an output row (a fresh dict)."""
        out = dict(self.row_fields)
        if self.options:
            out["options"] = list(self.options)
        return out


def _put(memo: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    """Store in a bounded memo: emptied when full, so memory stays flat on huge inputs.

    Cheaper per hit than an LRU (a plain dict lookup), which matters on the per-row path.
    """
    if len(memo) >= size:
        memo.clear()
    memo[key] = value


def _as_yes_no(core: Outcome, a_yes: bool) -> Outcome:
    """A two-option outcome over the options "yes" and "no" as a yes/no outcome."""
    labels = {
        Label.A: YesNo.YES if a_yes else YesNo.NO,
        Label.B: YesNo.NO if a_yes else YesNo.YES,
    }
    g, p = core.gt_label, core.pred_label
    gy = labels.get(g) if isinstance(g, Label) else None
    py = labels.get(p) if isinstance(p, Label) else None
    reason = f"yes/no options given as letters: {core.reason}"
    if core.method is Method.RULE and gy is not None and py is not None:
        score = yes_no_score(gy, py)
        return Outcome(score, Method.RULE, gy, py, YES_NO_OPTIONS, reason, kind=_YES_NO)
    if core.method is Method.RULE:
        # "both" or "none" of yes and no is no answer to a yes/no question.
        odd = g if gy is None else p
        assert isinstance(odd, Label)
        reason = f"yes/no options given as letters: '{odd.value}' answers no yes/no question"
    return Outcome(None, Method.UNRESOLVED, gy, py, YES_NO_OPTIONS, reason, True, kind=_YES_NO)


class _Question:
    """What the grader keeps per question: its options (or why it has none) and labels."""

    __slots__ = (
        "choices", "choices_read", "labels", "mc_labels", "opts", "prop", "refused", "yn_gt_labels",
        "yn_labels",
    )  # fmt: skip

    def __init__(
        self, opts: Options | None, refused: Outcome | None, choices: Choices | None = None
    ) -> None:
        self.opts = opts
        self.refused = refused
        # Multiple choice: explicit options (a column), or read from the question when it is
        # not a two-option one (None: not read yet; see Tables.multiple_choice).
        self.choices = choices
        self.choices_read = choices is not None or opts is not None
        self.mc_labels: dict[str, int] | None = None
        self.labels: dict[str, int] = {}  # text -> kind of its label
        # Read when the question turns out to be a yes/no one (see Tables.yes_no).
        self.prop: Proposition | None = None
        self.yn_labels: dict[str, int] = {}  # text -> kind of its yes/no label
        # A negated question's gt is read apart: a bare "no" is its answer, not a pred's.
        self.yn_gt_labels: dict[str, int] = {}


class Tables:
    """Bounded memo tables and the per-row path over them.

    Args:
        lex: the lexicon.
        names: the fields read (question, gt, pred, option_a, option_b).
        cache_size, label_cap, readings_size, max_kinds: the bounds of the tables (entries).
        memo_chars, readings_chars: the bounds in characters of the text keys held (answers
            and questions), and of the answers whose readings are held.
        memo_text_chars: answers longer than this are never memoised.
    """

    def __init__(
        self,
        lex: Lexicon,
        names: tuple[str, str, str, str, str],
        *,
        cache_size: int = CACHE_SIZE,
        label_cap: int = LABEL_CAP,
        readings_size: int = READINGS_SIZE,
        max_kinds: int = MAX_KINDS,
        memo_chars: int = MEMO_CHARS,
        readings_chars: int = READINGS_CHARS,
        memo_text_chars: int = MEMO_TEXT_CHARS,
    ) -> None:
        self.lex = lex
        self.names = names
        self.cache_size = cache_size
        self.label_cap = label_cap
        self.readings_size = readings_size
        self.max_kinds = min(max_kinds, _KEY_BASE // 2)
        self.memo_chars = memo_chars
        self.readings_chars = readings_chars
        self.memo_text_chars = memo_text_chars
        self.label_chars = 0  # characters of the answer texts the label tables hold
        self.question_chars = 0  # ... of the questions (and explicit options) held
        self.reading_chars = 0
        self.opts_memo: dict[tuple[str, str | None, str | None], Options | NotTwoOption] = {}
        self.readings: dict[str, Reading] = {}
        self.refusals: dict[str, Outcome] = {}
        # Per question (and explicit options): its options and its own text -> label table.
        self.questions: dict[Any, _Question] = {}
        # Per options signature: the labels that never read the question's own words.
        self.by_signature: dict[tuple[object, ...], dict[str, int]] = {}
        self.label_count = 0
        # A row's outcome depends only on each side's (label, reason, refusal): those "kinds"
        # are few (about 150 on a million rows), so outcomes are memoised per pair of kinds.
        # Keyed with the label's type too: str enums compare by value, so Label.B and
        # Letter.B (a two-option and a multiple-choice label) would share one number.
        self.kinds: dict[tuple[Labels | None, str, bool, type], int] = {}
        self.kind_list: list[tuple[Labels | None, str, bool]] = []
        self.kinds_full = False
        self.cores: dict[int, Outcome] = {}
        self.yn_cores: dict[int, Outcome] = {}
        # Two-option outcomes of questions whose options are "yes" and "no", as yes/no ones.
        self.polar_cores: dict[tuple[int, bool], Outcome] = {}
        self.mc_cores: dict[int, Outcome] = {}
        # The column of explicit multiple-choice options (a list, a dict letter -> text, or
        # a JSON list); without it, VLMEvalKit's columns A, B, C, ...
        self.choices_field = "choices"
        # Kinds: the question kinds graded (None: all); rows of other kinds are unresolved.
        self.only: frozenset[QuestionKind] | None = None
        self.excluded: dict[QuestionKind, Outcome] = {}

    def options(
        self, question: str, option_a: str | None = None, option_b: str | None = None
    ) -> Options | NotTwoOption:
        """The question's two options (explicit ones win), memoised."""
        key = (question, option_a, option_b)
        hit = self.opts_memo.get(key)
        if hit is None:
            if option_a is not None and option_b is not None:
                hit = build_options(option_a, option_b, self.lex, question=question)
                self.question_chars += len(option_a) + len(option_b)
            else:
                hit = extract_options(question, self.lex)
            self.question_chars += len(question)
            _put(self.opts_memo, key, hit, self.cache_size)
        return hit

    def read(self, text: str) -> Reading:
        """The option-independent reading of an answer, memoised per text."""
        hit = self.readings.get(text)
        if hit is None:
            hit = read_answer(text, self.lex)
            size = len(text)
            if size <= self.memo_text_chars:
                if (
                    len(self.readings) >= self.readings_size
                    or self.reading_chars + size > self.readings_chars
                ):
                    self.readings.clear()
                    self.reading_chars = 0
                self.readings[text] = hit
                self.reading_chars += size
        return hit

    def state(self, opts: Options) -> _Question:
        st = self.questions.get(opts)
        if st is None:
            st = self.remember(opts, _Question(opts, None))
        return st

    def question(self, question: str, a: str | None, b: str | None) -> _Question:
        """The memoised state of a question (keyed by its text, plus explicit options)."""
        opts = self.options(question, a, b)
        if isinstance(opts, NotTwoOption):
            st = _Question(None, self.refused(opts.reason, opts.kind not in NOT_CLOSE_ENDED))
        else:
            st = self.state(opts)
        return self.remember(question if a is None else (question, a, b), st)

    def remember(self, key: Any, st: _Question) -> _Question:
        if len(self.questions) >= self.cache_size or self.question_chars > self.memo_chars // 2:
            self.forget_labels()
            self.forget_questions()
        self.questions[key] = st
        return st

    def forget_questions(self) -> None:
        self.questions.clear()
        self.opts_memo.clear()
        self.question_chars = 0

    def kind(self, st: _Question, text: str) -> int:
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
        size = len(text)
        if size > self.memo_text_chars:  # labelled afresh each time, never held
            verdict = label_reading(self.read(text), opts, self.lex)
            return self.number((verdict.label, verdict.reason, verdict.rule == "yes-no"))
        shared = self.by_signature.get(opts.signature)
        if shared is None:
            shared = self.by_signature[opts.signature] = {}
        hit = shared.get(text)
        if hit is None:
            before = opts.context_reads[0]
            verdict = label_reading(self.read(text), opts, self.lex)
            own = opts.context_reads[0] != before
            hit = self.number((verdict.label, verdict.reason, verdict.rule == "yes-no"))
            if not own:
                shared[text] = hit  # the same string as the key below: counted once
        if self.label_count >= self.label_cap or self.label_chars > self.memo_chars // 2:
            self.forget_labels()
        self.label_count += 1
        self.label_chars += size
        st.labels[text] = hit
        return hit

    def number(self, kind: tuple[Labels | None, str, bool]) -> int:
        """The number of a label's kind, assigned on first sight."""
        key = (kind[0], kind[1], kind[2], type(kind[0]))
        hit = self.kinds.get(key)
        if hit is None:
            # Full: renumbered before the next row, never in the middle of one (the
            # row's other label already holds a number).
            self.kinds_full = len(self.kind_list) + 1 >= self.max_kinds
            hit = self.kinds[key] = len(self.kind_list)
            self.kind_list.append(kind)
        return hit

    def renumber_kinds(self) -> None:
        self.forget_labels()
        self.kinds.clear()
        self.kind_list.clear()
        self.cores.clear()
        self.yn_cores.clear()
        self.polar_cores.clear()
        self.mc_cores.clear()
        self.kinds_full = False

    def forget_labels(self) -> None:
        # Bounded: memory stays flat however many distinct answers a run sees.
        for st in self.questions.values():
            st.labels.clear()
            st.yn_labels.clear()
            st.yn_gt_labels.clear()
            if st.mc_labels:
                st.mc_labels.clear()
        self.by_signature.clear()
        self.label_count = 0
        self.label_chars = 0

    def evaluate(
        self,
        question: str,
        gt: str,
        pred: str,
        options: tuple[str, str] | None,
        choices: tuple[str, ...] | None = None,
    ) -> tuple[Outcome, Options | None]:
        """The outcome of one row with the options' wording, and the two options when the
        row is read as a two-option one (whose answers can then be labelled with evidence)."""
        if self.kinds_full:
            self.renumber_kinds()
        if choices is not None and len(choices) == 2:
            options, choices = (choices[0], choices[1]), None
        if choices is not None:
            st = self.explicit_state(question, choices)
            if st is not None:
                return self.worded(self.multiple_choice(st, gt, pred), st), None
        a, b = options or (None, None)
        st = self.questions.get(question if a is None else (question, a, b))
        if st is None:
            st = self.question(question, a, b)
        if st.refused is not None:
            return self.worded(self.yes_no(st, question, gt, pred, st.refused), st), None
        g, p = self.kind(st, gt), self.kind(st, pred)
        core = self.core(g, p)
        if core.refusal:  # the gt answers yes/no: a question about the disjunction
            return self.worded(self.yes_no(st, question, gt, pred, core), st), None
        assert st.opts is not None
        if st.opts.yes_no:
            core = self.polar_letters(g, p, core, st.opts)
            if core.kind is _YES_NO:  # "A. Yes B. No": yes/no labels, answers read as letters
                return self.allowed(core), st.opts
        return self.allowed(core).with_options(st.opts.texts), st.opts

    @staticmethod
    def worded(out: Outcome, st: _Question) -> Outcome:
        """`out` with the multiple-choice options' wording when it is a multiple-choice one."""
        if out.kind is _MC and st.choices is not None:
            return out.with_options(st.choices.texts)
        return out

    def core(self, g: int, p: int) -> Outcome:
        """The outcome of a pair of label kinds, without the options' wording."""
        key = g * _KEY_BASE + p
        core = self.cores.get(key)
        if core is None:
            g_label, g_reason, g_refused = self.kind_list[g]
            p_label, p_reason, _ = self.kind_list[p]
            if g_refused:  # the gt answers a yes/no question, not these options
                core = self.refused(_YES_NO_REASON)
            else:
                # Two-option kinds hold two-option labels (yes/no ones go to yn_cores).
                assert not isinstance(g_label, (YesNo, Letter))
                assert not isinstance(p_label, (YesNo, Letter))
                core = self.outcome(g_label, g_reason, p_label, p_reason)
            self.cores[key] = core
        return core

    def refused(self, why: str, judge: bool = True) -> Outcome:
        """The outcome of a question that is not two-option; `judge`: worth a judge call."""
        key = why if judge else f"{why}\x00"
        hit = self.refusals.get(key)
        if hit is None:
            reason = f"not a two-option question: {why}"
            hit = Outcome(None, Method.UNRESOLVED, None, None, None, reason, judge, True)
            if len(self.refusals) >= self.cache_size:
                self.refusals.clear()
            self.refusals[key] = hit
        return hit

    @staticmethod
    def outcome(g: Label | None, g_reason: str, p: Label | None, p_reason: str) -> Outcome:
        if g is not None and p is not None:
            score = TRUTH_TABLE[g][p]
            reason = f"gt {g.value} ({g_reason}); pred {p.value} ({p_reason})"
            return Outcome(score, Method.RULE, g, p, None, reason, kind=_TWO)
        parts = []
        if g is None:
            parts.append(f"gt abstains: {g_reason}")
        if p is None:
            parts.append(f"pred abstains: {p_reason}")
        return Outcome(None, Method.UNRESOLVED, g, p, None, "; ".join(parts), True, kind=_TWO)

    def settle(
        self, data: dict[str, Any]
    ) -> tuple[Outcome, tuple[str, ...] | None, tuple[str, str, str] | None]:
        """One row: (the outcome without the options' wording, the options' wording, the
        (question, gt, pred) triple or None for a malformed row). Runs once per input row.

        A plain tuple, read only by `Grader.grade_row`: building a named record here cost
        1.4 us a row against 0.2 us for the tuple (timeit, this host, 2026-11-26), several
        per cent of a run; the public side gets `RowGrade` and `JudgeItem`."""
        if self.kinds_full:
            self.renumber_kinds()
        fq, fg, fp, fa, fb = self.names
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
                problem = field_problem(name, v)
                if problem:
                    return Outcome(None, Method.ERROR, None, None, None, problem), None, None
        if self.choices_field in data or "C" in data:
            texts = self.explicit_texts(data)
            if texts is not None and len(texts) > 2:
                mc = self.explicit_state(q, texts)
                if mc is not None:
                    return self.choice_result(mc, self.multiple_choice(mc, gt, pred), q, gt, pred)
            elif texts is not None:
                data = {**data, fa: texts[0], fb: texts[1]}
        a = b = None
        if fa in data or fb in data:  # explicit options count when both are usable text
            a, b = data.get(fa), data.get(fb)
            if not (isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip()):
                a = b = None
        if a is None:
            st = self.questions.get(q)
            if st is None:
                st = self.question(q, None, None)
        else:
            st = self.questions.get((q, a, b))
            if st is None:
                st = self.question(q, a, b)
        triple = (q, gt, pred)
        opts = st.opts
        if opts is None:
            assert st.refused is not None
            core = self.yes_no(st, q, gt, pred, st.refused)
            if core.kind is _MC:
                return self.choice_result(st, core, q, gt, pred)
            return self.yes_no_result(core, triple)
        labels = st.labels
        g = labels.get(gt)
        if g is None:
            g = self.kind(st, gt)
        p = labels.get(pred)
        if p is None:
            p = self.kind(st, pred)
        core = self.cores.get(g * _KEY_BASE + p) or self.core(g, p)
        if core.refusal:  # the gt answers yes/no: a question about the disjunction
            return self.yes_no_result(self.yes_no(st, q, gt, pred, core), triple)
        if opts.yes_no:
            core = self.polar_letters(g, p, core, opts)
            if core.kind is _YES_NO:
                return self.yes_no_result(self.allowed(core), triple)
        if self.only is not None:
            core = self.allowed(core)
        return core, opts.texts, triple

    def polar_letters(self, g: int, p: int, core: Outcome, opts: Options) -> Outcome:
        """The outcome of a question whose two options are "yes" and "no" ("Is there a
        fracture? A. Yes B. No"): a yes/no question with letters, so its labels are yes/no
        (the letters' scores are the same). Other yes-ish options stay two-option."""
        a, b = opts.a.words, opts.b.words
        if len(a) != 1 or len(b) != 1:
            return core
        yes, no = self.lex.yes, self.lex.no
        if a[0] in yes and b[0] in no:
            a_yes = True
        elif a[0] in no and b[0] in yes:
            a_yes = False
        else:
            return core
        key = (g * _KEY_BASE + p, a_yes)
        hit = self.polar_cores.get(key)
        if hit is None:
            hit = self.polar_cores[key] = _as_yes_no(core, a_yes)
        return hit

    # -- yes/no questions (polar, yes_no) ------------------------------------------------
    def yes_no(self, st: _Question, question: str, gt: str, pred: str, refused: Outcome) -> Outcome:
        """The outcome of a row whose question is not a two-option one: a yes/no outcome
        when the question is polar without alternatives or its gt is a bare yes/no, else
        `refused`."""
        if not st.choices_read:
            st.choices, st.choices_read = extract_choices(question, self.lex), True
        if st.choices is not None and st.choices.source == "letters":
            return self.multiple_choice(st, gt, pred)  # lettered options: never yes/no
        prop = st.prop
        if prop is None:
            prop = st.prop = read_question(question, self.lex)
        if not prop.polar or prop.offers_or:
            # "Is this T1, T2 or FLAIR?" - "T1" offers alternatives; "yes" makes it yes/no.
            gr = self.read(gt)
            early = gr.early
            # A gt that is only a yes or a no, in any language ("Nein" to "Sind Granulome
            # vorhanden?"), makes the question a yes/no one; only explicit answers are read.
            if (early is None or early.rule != "yes-no") and not bare_yes_no(gr.words, self.lex):
                if st.choices is not None:
                    return self.multiple_choice(st, gt, pred)
                return refused
        labels = st.yn_labels
        gt_labels = st.yn_gt_labels if prop.negated else labels
        g = gt_labels.get(gt)
        if g is None:
            g = self.yn_kind(prop, gt, gt_labels, prop.negated)
        p = labels.get(pred)
        if p is None:
            p = self.yn_kind(prop, pred, labels, False)
        key = g * _KEY_BASE + p
        core = self.yn_cores.get(key)
        if core is None:
            g_label, g_reason, _ = self.kind_list[g]
            p_label, p_reason, _ = self.kind_list[p]
            core = self.yn_cores[key] = self.yes_no_outcome(g_label, g_reason, p_label, p_reason)
        return self.allowed(core)

    def yn_kind(self, prop: Proposition, text: str, labels: dict[str, int], gt: bool) -> int:
        verdict = label_yes_no(self.read(text), prop, self.lex, gt=gt, text=text)
        hit = self.number((verdict.label, verdict.reason, False))
        size = len(text)
        if size > self.memo_text_chars:
            return hit
        if self.label_count >= self.label_cap or self.label_chars > self.memo_chars // 2:
            self.forget_labels()
        self.label_count += 1
        self.label_chars += size
        labels[text] = hit
        return hit

    @staticmethod
    def yes_no_outcome(g: Labels | None, g_reason: str, p: Labels | None, p_reason: str) -> Outcome:
        if type(g) is YesNo and type(p) is YesNo:
            reason = f"gt {g.value} ({g_reason}); pred {p.value} ({p_reason})"
            score = yes_no_score(g, p)
            return Outcome(score, Method.RULE, g, p, YES_NO_OPTIONS, reason, kind=_YES_NO)
        parts = []
        if g is None:
            parts.append(f"gt abstains: {g_reason}")
        if p is None:
            parts.append(f"pred abstains: {p_reason}")
        reason = "; ".join(parts)
        return Outcome(None, Method.UNRESOLVED, g, p, YES_NO_OPTIONS, reason, True, kind=_YES_NO)

    @staticmethod
    def yes_no_result(
        core: Outcome, triple: tuple[str, str, str]
    ) -> tuple[Outcome, tuple[str, ...] | None, tuple[str, str, str] | None]:
        if core.kind is not _YES_NO:
            return core, None, triple
        # The judge is given the two options of a yes/no question.
        q, gt, pred = triple
        return core, YES_NO_OPTIONS, (judge_question(q), gt, pred)

    # -- multiple choice (choices, multiple_choice) ---------------------------------------
    def explicit_texts(self, data: dict[str, Any]) -> list[str] | None:
        """Explicit options of a row: the choices column, else columns A, B, C, ..."""
        value = data.get(self.choices_field)
        if isinstance(value, str) and value.lstrip().startswith("["):
            try:
                value = json.loads(value)  # a CSV cell holds the list as JSON
            except ValueError:
                return None
        texts: list[str] = []
        if isinstance(value, list):
            texts = [v for v in value if isinstance(v, str)]
            if len(texts) != len(value):
                return None
        elif isinstance(value, dict):
            for letter in _COLUMNS[: len(value)]:
                v = value.get(letter, value.get(letter.lower()))
                if not isinstance(v, str):
                    return None
                texts.append(v)
        elif value is None and "C" in data:
            for letter in _COLUMNS:
                v = data.get(letter)
                if not isinstance(v, str) or not v.strip():
                    break  # VLMEvalKit leaves the unused columns empty (NaN)
                texts.append(v)
        else:
            return None
        if len(texts) < 2 or not all(t.strip() for t in texts):
            return None
        return texts

    def explicit_state(self, question: str, texts: list[str] | tuple[str, ...]) -> _Question | None:
        """The memoised state of a question with explicit options (None: not 3 to 8)."""
        key = (question, tuple(texts))
        st = self.questions.get(key)
        if st is None:
            ch = build_choices(list(texts), self.lex, question=question)
            if ch is None:
                return None
            st = self.remember(key, _Question(None, None, ch))
        return st

    def choices_of(self, question: str, texts: tuple[str, ...] | None = None) -> Choices | None:
        """The multiple-choice options of a question (explicit ones win), if it has any."""
        if texts is not None and len(texts) > 2:
            st = self.explicit_state(question, texts)
            return st.choices if st is not None else None
        st = self.questions.get(question)
        if st is None:
            st = self.question(question, None, None)
        if not st.choices_read:
            st.choices, st.choices_read = extract_choices(question, self.lex), True
        return st.choices

    def multiple_choice(self, st: _Question, gt: str, pred: str) -> Outcome:
        """The outcome of a multiple-choice row: each answer's letter, 1 if equal."""
        ch = st.choices
        assert ch is not None
        labels = st.mc_labels
        if labels is None:
            labels = st.mc_labels = {}
        g = labels.get(gt)
        if g is None:
            g = self.mc_kind(ch, gt, labels)
        p = labels.get(pred)
        if p is None:
            p = self.mc_kind(ch, pred, labels)
        key = g * _KEY_BASE + p
        core = self.mc_cores.get(key)
        if core is None:
            g_label, g_reason, _ = self.kind_list[g]
            p_label, p_reason, _ = self.kind_list[p]
            core = self.mc_cores[key] = self.choice_outcome(g_label, g_reason, p_label, p_reason)
        return self.allowed(core)

    def mc_kind(self, ch: Choices, text: str, labels: dict[str, int]) -> int:
        verdict = label_choice(text, self.read(text), ch, self.lex)
        hit = self.number((verdict.label, verdict.reason, False))
        if self.label_count >= self.label_cap:
            self.forget_labels()
        self.label_count += 1
        labels[text] = hit
        return hit

    @staticmethod
    def choice_outcome(g: Labels | None, g_reason: str, p: Labels | None, p_reason: str) -> Outcome:
        if type(g) is Letter and type(p) is Letter:
            reason = f"gt {g.value} ({g_reason}); pred {p.value} ({p_reason})"
            return Outcome(choice_score(g, p), Method.RULE, g, p, None, reason, kind=_MC)
        parts = []
        if g is None:
            parts.append(f"gt abstains: {g_reason}")
        if p is None:
            parts.append(f"pred abstains: {p_reason}")
        # A gt that names no option cannot be compared with any letter: no judge either.
        needs = g is not None
        return Outcome(None, Method.UNRESOLVED, g, p, None, "; ".join(parts), needs, kind=_MC)

    @staticmethod
    def choice_result(
        st: _Question, core: Outcome, q: str, gt: str, pred: str
    ) -> tuple[Outcome, tuple[str, ...] | None, tuple[str, str, str] | None]:
        if core.kind is not _MC:  # not graded in this run
            return core, None, (q, gt, pred)
        assert st.choices is not None
        # The judge is given the options and the gt's letter (`Grader.grade_row`).
        return core, st.choices.texts, (q, gt, pred)

    def allowed(self, core: Outcome) -> Outcome:
        """`core`, or an unresolved outcome when its kind is not among those graded."""
        only = self.only
        if only is None or core.kind is None or core.kind in only:
            return core
        hit = self.excluded.get(core.kind)
        if hit is None:
            reason = f"{core.kind.value} questions are not graded in this run (kinds)"
            hit = Outcome(None, Method.UNRESOLVED, None, None, None, reason, kind=core.kind)
            self.excluded[core.kind] = hit
        return hit

    def rows(self, rows: Iterable[Any]) -> Iterator[dict[str, Any]]:
        """The rules-only loop: each input row plus the contract's fields, in order."""
        for row in rows:
            data = row.data if type(row) is InputRow else row
            if type(data) is not dict:  # the rare row: another mapping, or unreadable
                data = unwrap(row)
                if data is None:
                    yield unreadable(row)
                    continue
            core, texts, _ = self.settle(data)
            out_row = {**data, **core.row_fields}
            if texts is not None:
                out_row["options"] = list(texts)  # rows never share a mutable list
            yield out_row
