"""Label an answer to a multiple-choice question with the letter it chooses, or abstain.

The reading is the two-option labeller's (`vqagrade.rules.reading`: final-answer focus,
refusals, hedges, junk, truncation); then:

1. letters in the common forms ("B", "(B)", "B)", "**B**", "Option B", "[B]", "the second
   option", "B is correct", `{"answer": "B"}`, ``\\boxed{B}``, "Respuesta: B"); a bare capital
   inside a sentence ("A mass", "Kerley B lines", "Type B dissection") is a word, not a letter.
   A last sentence that commits to a letter after a discussion ("... No contrast given. B.")
   is the answer; a self-correction ("X — no wait, ... Y") leaves what follows it;
2. option texts: each option's canonical words through the lexicons, longest first ("T1
   post-contrast" before "T1"), an option's abbreviation in brackets ("Retinal pigment
   epithelium (RPE)"), initialisms both ways ("RUL" / "right upper lobe"), grades written
   with another numeral ("grade III" / "Grade 3"), with the negation scoped to each mention
   ("not the liver", "no mass, swelling, or nodule");
3. decide: one option chosen by its letter, its text or both in agreement; eliminations
   ("not A or C, so B") leave the option they name. A letter and a text that disagree, two
   options chosen (also through a range, "KL 3-4", or a shared head, "the temporal and
   occipital lobes"), words of another option, an answer that names no option, and a
   longer option that may be meant abstain;
4. a reasoning before the answer (a ``<think>`` block, the text before "The answer is")
   that concludes another option, denies the chosen one, denies every option or says it
   cannot be determined makes the answer abstain.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from ..kinds import LETTERS, Letter
from ..labels import Label
from ..lexicon import Lexicon
from .choices import Choices
from .final_answer import structured_answer
from .negation import _cue_before
from .reading import (
    _NEGATORS,
    Hit,
    Reading,
    _break_positions,
    clause_end,
    clause_start,
    read_answer,
)
from .text import PhraseSet

_JSON_ANSWER = re.compile(
    r"""^\s*\{\s*["']?(?:answer|choice|option|letter)["']?\s*:\s*["']?([^"'{}]*)["']?""", re.I
)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_BOLD_MARK = re.compile(r"[*_`]+")
_WHOLE = re.compile(
    r"^\W*(?:(?:the\s+)?(?:correct\s+|best\s+|final\s+)?(?:option|choice|answer|ans|letter)"
    r"(?:\s+is)?\s*[:\-]?\s*)?[(\[]?([A-Ha-h])[)\]]?[\s.!]*$",
    re.I,
)
_LEAD = re.compile(
    r"^\W*(?:\(([A-Ha-h])\)|\[([A-Ha-h])\]|([A-H])(?:[).:,]|\s+[-\u2013\u2014]|(?=[ \t]*\n)"
    r"|(?=\s+(?:because|since|as|given|due|based)\b)))\s*(\S.*)$",
    re.S,
)
# "A (posterior dislocation)": a letter and, in brackets, the option it stands for.
_LEAD_BRACKET = re.compile(r"^\W*([A-H])\s*\(([^()]+)\)[\s.!]*$")
# A letter named as a choice anywhere in the focus.
# What may follow a bare capital for it to be a letter: the end, punctuation, "is correct".
_AFTER = (
    r"(?=\s*(?:[.,;:!)\]]|$|(?i:is|seems|appears)\s+(?:the\s+)?(?i:correct|right|best|answer)))"
)
_NAMED = re.compile(
    r"\b(?i:option|choice|letter)\s*[:#]?\s*(?:[(\[]([A-Ha-h])[)\]]|([A-H])(?![\w'-])"
    r"|([a-h])" + _AFTER + r")"
    r"|[(\[]([A-H])[)\]]"
    r"|\b([A-H])\s+(?:is|seems|appears)\s+(?:the\s+)?(?:correct|right|best|most\s+likely)\b"
    r"|\b(?i:answer)\s*[:\uff1a]\s*[(\[]?([A-H])[)\]]?(?=[ \t]*(?:[.,;:!)\]]|\n|$))"
    r"|\b(?i:choose|chose|select|pick|go\s+with|so|therefore|thus|hence|believe|think|say|guess"
    r"|would\s+be|is|leaves|leaving|leaves\s+us\s+with|must\s+be|sticking\s+with|stick\s+with"
    r"|going\s+with|final)\s*[,:]?\s*(?i:the\s+answer\s+is\s+)?[(\[]?([A-H])[)\]]?" + _AFTER
)
# "... so it must arise from the pancreatic tail — C.": a letter after a dash at the end.
_TRAILING_LETTER = re.compile(r"\s[\u2014\u2013-]\s*[(\[]?([A-H])[)\]]?[.!]?\s*$")
# After the final answer: a correction or another alternative ("C. Wait, no, it's B").
_GOES_ON = re.compile(
    r"^\W*(?:or|and|nor|but|wait|actually|no\b|correction|rather|on\s+second\s+thought|sorry)\b",
    re.I,
)
_NEGATED_LETTERS = re.compile(
    r"\b(?i:not|exclude|excludes|excluding|eliminate|rule\s+out|ruling\s+out)\s+"
    r"((?i:(?:options?|choices?)\s+)?[(\[]?[A-H][)\]]?"
    r"(?:\s*(?:,|or|nor|and|,\s*or|,\s*and)\s*(?:(?:options?|choices?)\s+)?[(\[]?[A-H][)\]]?)*)"
    r"(?![\w'-])"
)
# "(A)", "(option A)": a letter that labels the option just named.
_BRACKET_LABEL = re.compile(r"[(\[](?:(?:option|choice)\s+)?[A-H][)\]]", re.I)
_CAPITAL_CANDIDATE = re.compile(r"[A-H](?:[)\]])?(?![\w'-])")
_ALPHA = re.compile(r"[^\W\d_]{2,}")
_SENT_BREAK = re.compile(r"[.!?]\s+|\n+")
_CAPITAL_LETTER = re.compile(r"(?<![\w'-])[(\[]?[A-H][)\]]?(?![\w'-])")
# "A, B and C are wrong": the letter opens a list of letters.
_LIST_GOES_ON = re.compile(r"^\W*[A-H](?:\s*(?:,|and|or|&)\s*[A-H])*\s+(?:and|or|are|,)\b")
_LETTER_IN = re.compile(r"(?<![\w'-])[(\[]?([A-H])[)\]]?(?![\w'-])")
_LETTER_DENIED_AFTER = re.compile(
    r"^[)\]]?\s*(?:is|are|seems|appears)?\s*(?:incorrect|wrong|not\s+correct|unlikely|excluded|"
    r"ruled\s+out|eliminated|not\s+the\s+answer)\b",
    re.I,
)
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5,
             "seventh": 6, "eighth": 7, "last": -1}  # fmt: skip
_ORDINAL = re.compile(
    r"\bthe\s+(first|second|third|fourth|fifth|sixth|seventh|eighth|last)\s+"
    r"(?:option|choice|answer|one)\b",
    re.I,
)
# "A and B", "A, C", "(A) or (B)": several letters and nothing else.
_LETTER_LIST = re.compile(
    r"^\W*(?:(?:options?|choices?|both)\s+)?[(\[]?[A-H][)\]]?"
    r"(?:(?:\s*(?:,|,\s*and|,\s*or)\s*|\s+(?:and|or|&|\+)\s+)[(\[]?[A-H][)\]]?)+[\s.!]*$",
    re.I,
)
# "Option 3", "choice #2": the options counted from one.
_NUMBERED = re.compile(
    r"^\W*(?:option|choice|answer)\s*(?:number\s*|no\.?\s*|#\s*)?([1-8])\W*$", re.I
)
_EARLY_KEEP = frozenset({"letter"})
# A reasoning that goes through the options by letter ("Option B, pneumothorax, shows ...").
_DISCUSSES = re.compile(r"(?i:option|choice)\s+[A-Ha-h]\b|[A-H][)\]:](?=\s)")
# Sentences of a focus (a last one that commits to a letter is the answer).
_SENTENCE_STOP = re.compile(r"[.!?\n]")
_MODAL_BEFORE = re.compile(r"\b(?:may|might|could|can|would)\s+(?:\w+\s+)?$", re.I)
_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.I | re.S)
_ANSWER_TAG = re.compile(r"<answer>.*?(?:</answer>|$)", re.I | re.S)
_RANGE_GAP = re.compile(r"^\s*[-\u2013\u2014/]\s*$")
_ROMAN = re.compile(r"^(x?)(ix|iv|v?i{0,3})([a-c]?)$")
_ROMAN_VALUES = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8,
                 "ix": 9}  # fmt: skip
_NUMBER = re.compile(r"^(\d{1,2})([a-c]?)$")
_UPPER = re.compile(r"^[A-Z]{2,6}$")
_HAS_UPPER2 = re.compile(r"[A-Z]{2}")
_GREEK = {"\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta"}
_LEVEL = re.compile(r"^[ctls]\d{1,2}$")
# A genus and a species ("Cryptococcus neoformans", "Escherichia coli").
_BINOMIAL = re.compile(
    r"[A-Z][a-z]{3,}(?:us|a|um|as|es|is|ia) [a-z]{3,}(?:us|is|ae|um|i|a|ans|ens|es)"
)


@dataclass(slots=True, eq=False)
class ChoiceVerdict:
    """The letter one answer chooses and why (internal form of `AnswerTrace`)."""

    label: Letter | None
    rule: str
    reason: str
    focus: str
    cues: tuple[str, ...] = ()
    matched: tuple[str, ...] = ()


class _Vocab:
    """The `[multiple_choice]` lists of a lexicon, canonicalised once."""

    def __init__(self, lex: Lexicon) -> None:
        lists = lex.lists

        def phrases(name: str) -> PhraseSet:
            return PhraseSet(lex.canon.words(p) for p in lists.get(f"multiple_choice.{name}", ()))

        self.hedge = phrases("hedge")
        self.undecided = phrases("undecided")
        self.conclusion_cues = phrases("conclusion_cues")
        self.every_option = phrases("every_option")
        self.all_answers = phrases("all_answers")
        self.corrections = phrases("corrections")
        self.denied_after = phrases("denied_after")
        self.grade_words = frozenset(
            w for p in lists.get("multiple_choice.grade_words", ()) for w in lex.canon.words(p)
        )
        markers = sorted(lists.get("multiple_choice.answer_markers", ()), key=len, reverse=True)
        copulas = (" es", " est", " ist", " é", " è")
        latin = [m for m in markers if m.isascii() or m[0].isascii()]
        verb = [m for m in latin if m.endswith(copulas)]
        plain = [m for m in latin if m not in verb]
        cjk = [m for m in markers if m not in latin]

        def alt(ms: list[str]) -> str:
            return "|".join(re.escape(m) for m in ms) or r"(?!x)x"

        # "Respuesta: C", "La respuesta es C", "答案是E", "选B": the letter after the marker
        # (a colon or a verb after a Latin-script one), not inside a word.
        # An article and a word for "letter"/"option" may stand before the letter ("la
        # respuesta es la B", "a resposta é a letra D", "réponse B", "答えはB").
        filler = (
            r"(?:(?:la|el|a|o|le|die|der)\s+)?"
            r"(?:(?:letra|lettre|buchstabe|opci[o\u00f3]n|op[c\u00e7][a\u00e3]o|alternativa)\s+)?"
        )
        self.marker = re.compile(
            r"(?:(?:^|(?<=[\s\W]))(?:(?:"
            + alt(verb)
            + r")\s+"
            + filler
            + r"|(?:"
            + alt(plain)
            + r")(?:\s*[:\uff1a\u279c\u2192]\s*|\s+)"
            + filler
            + r")"
            r"|(?:" + alt(cjk) + r")\s*[:\uff1a\u662f\u4e3a\u70ba\u306f]?\s*)"
            r"[(\[\uff08]?([A-H])(?![A-Za-z])",
            re.I,
        )
        corr = sorted(lists.get("multiple_choice.corrections", ()), key=len, reverse=True)
        self.correction = re.compile(
            r"(?<![\w])(?:" + "|".join(re.escape(c) for c in corr) + r")(?![\w])", re.I
        )

        def raw(name: str) -> tuple[str, ...]:
            return tuple(lists.get(f"multiple_choice.{name}", ()))

        # Read as they stand: substrings for cheap tests before a pattern, words compared
        # with canonical or lower-cased tokens, the keys of a JSON answer.
        self.correction_hints = raw("correction_hints")
        self.letter_hints = raw("letter_hints")
        self.marker_hints = raw("answer_marker_hints")
        self.answer_talk = frozenset(raw("answer_talk"))
        self.whole_study = frozenset(raw("whole_study"))
        self.components = frozenset(raw("components"))
        self.joiners = frozenset(raw("joiners"))
        self.not_initialisms = frozenset(raw("not_initialisms"))
        self.initials_skip = frozenset(raw("initials_skip"))
        self.json_letter_keys = raw("json_letter_keys")
        self.json_text_keys = raw("json_text_keys")
        self.json_reason_keys = raw("json_reason_keys")


@lru_cache(maxsize=8)
def _vocab(lex: Lexicon) -> _Vocab:
    return _Vocab(lex)


@dataclass(frozen=True, slots=True, eq=False)
class _Info:
    """What labelling needs to know about a set of options, built once per set."""

    phrases: PhraseSet
    owner: dict[tuple[str, ...], int]
    reduced: frozenset[tuple[str, ...]]  # forms without the words every option shares
    distinct: tuple[frozenset[str], ...]  # content words only this option has
    distinct_all: tuple[frozenset[str], ...]  # every content word of each option
    numbers: tuple[str, ...]  # the grade of each option when options differ by a number
    initialisms: dict[str, int]  # "rul" -> the option "Right upper lobe"
    acronyms: dict[str, tuple[str, int]]  # "uip" -> (its canonical word, the option)
    every: int | None  # "All of the above"
    nothing: int | None  # "None of the above"
    pair: tuple[int, tuple[int, ...]] | None  # "Both A and B": the option and what it joins
    uncertain: frozenset[int]  # options that themselves say it cannot be told
    frame: frozenset[str]
    cores: dict[tuple[str, ...], int]  # "diabetic retinopathy" -> the option "No diabetic ..."
    levels: bool  # the options are spinal levels ("L4-L5")
    holders: tuple[tuple[int, ...], ...]  # the options that hold all of each option's words
    binomials: dict[tuple[str, str], str]  # ("s", "aureus") -> "staphylococcus"
    genera: frozenset[int]  # options that are a genus and a species ("Cryptococcus neoformans")
    bins: tuple[tuple[float, float, bool, bool, str], ...]  # "<1 cm", "1-2 cm", ... as ranges
    signal: frozenset[str]  # the written words of the options, cut to 4 letters
    multi: bool  # some option is named by two words or more


def label_choice(text: str, r: Reading, ch: Choices, lex: Lexicon, depth: int = 0) -> ChoiceVerdict:
    """Label an answer (gt or pred) to a multiple-choice question.

    Args:
        text: the answer text.
        r: its reading (`vqagrade.rules.reading.read_answer`).
        ch: the question's options.
        lex: the lexicon.
        depth: nesting of answers read out of JSON, ``\\boxed{}`` or a last sentence.
    """
    v, reasoning = _label(text, r, ch, lex, depth)
    if depth == 0 and v.label is not None and reasoning.strip():
        why = _reasoning_conflict(reasoning, LETTERS.index(v.label), ch, lex)
        if why:
            return ChoiceVerdict(None, "reasoning", why, v.focus, v.cues, v.matched)
    return v


def _label(
    text: str, r: Reading, ch: Choices, lex: Lexicon, depth: int
) -> tuple[ChoiceVerdict, str]:
    """The verdict of the final answer and the reasoning before it ("" when there is none)."""
    n = len(ch.texts)
    if depth == 0 and text.lstrip()[:1] in ("{", "`") and structured_answer(text):
        # The two-option reading renders a JSON answer as plain text; the options' letters
        # and texts are read from the object itself here.
        r = read_answer(text, lex, structured=False)
    f = r.focus
    if len(text) <= 12 and f == text.strip() and (r.early is None or r.early.rule == "letter"):
        m0 = _WHOLE.match(_BOLD_MARK.sub("", f).strip())
        if m0:  # "B", "(b)", "**C**": the common answer, read at once
            return _letter(m0.group(1), n, f, "the answer is the letter"), ""
    voc = _vocab(lex)
    reasoning = _reasoning_of(text, f) if depth == 0 else ""
    if depth == 0:
        inner = _inner_answer(text if "\\boxed" in text else f, voc)
        if inner is not None:
            answer, why = inner
            v = label_choice(answer, read_answer(answer, lex), ch, lex, 1)
            return v, why or reasoning
        m = voc.marker.search(text) if not text.isascii() or _has_marker_word(text, voc) else None
        if m is not None:
            v = _letter(m.group(1).upper(), n, f, "")
            if v.label is not None:
                after = text[m.end() :].strip(" .\u3002)）")
                if not _CAPITAL_LETTER.search(after):
                    return v, text[: m.start()]
    tail = ""
    if depth == 0 and f and len(f) < len(text.strip()) and f in text:
        tail = text[text.rfind(f) + len(f) :]
    first = _first_line_letter(f)
    if first is not None:
        # "B. MRI\n\nThe image shows ...": the answer, then its explanation.
        tail = f[len(first) :] + tail
        f = first.strip()
        r = read_answer(f, lex)
    if tail.strip():
        if _GOES_ON.match(tail) or _tail_letters(tail, n, lex.q_verbs, voc):
            why = "the answer goes on after its final answer"
            return ChoiceVerdict(None, "goes-on", why, f), reasoning
        reasoning = (reasoning + " " + tail).strip()
    if depth <= 1:
        last = _last_sentence_letter(f, n)
        if last is not None:
            sentence, before = last
            v = label_choice(sentence, read_answer(sentence, lex), ch, lex, 2)
            if v.label is not None:
                return v, (reasoning + " " + before).strip()
        fixed = _after_correction(f, voc)
        if fixed is not None:
            if not fixed.strip():
                return ChoiceVerdict(None, "correction", "corrects itself", f), reasoning
            v = label_choice(fixed, read_answer(fixed, lex), ch, lex, 2)
            if v.label is None:
                why = f"corrects itself and then {v.reason}"
                return ChoiceVerdict(None, "correction", why, f, v.cues), reasoning
            return v, (reasoning + " " + f[: len(f) - len(fixed)]).strip()
    info = _info(ch, lex)
    early = r.early
    if early is not None and early.rule in ("hedge", "refusal") and (info.uncertain or ch.words):
        # A hedge or refusal inside an option's own words ("Indeterminate", "Mixed
        # solid-cystic", "It's difficult to determine ...") is that option, not a hedge.
        rr = _reread(f, lex)
        if rr is not None and not _cue_outside_options(rr, ch, lex, early.rule):
            r, early = rr, None
    if early is not None and early.rule not in _EARLY_KEEP:
        if early.rule == "yes-no":
            return _text_only(f, ch, lex), reasoning
        return ChoiceVerdict(None, early.rule, early.reason, f, early.cues), reasoning
    plain = _BOLD_MARK.sub("", f).strip()
    m = _WHOLE.match(plain)
    if m:
        return _letter(m.group(1), n, plain, "the answer is the letter"), reasoning
    m = _LETTER_LIST.match(plain)
    if m:
        letters = {ord(x) - ord("A") for x in re.findall(r"\b[A-Ha-h]\b", m.group(0).upper())}
        joined = _pair(ch, lex)
        if joined is not None and " or " not in plain.lower() and letters == set(joined[1]):
            return _letter(LETTERS[joined[0]].value, n, plain, ""), reasoning
        why = "chooses more than one option"
        return ChoiceVerdict(None, "several", why, f, ()), reasoning
    m = _NUMBERED.match(plain)
    if m:
        k = int(m.group(1)) - 1
        if k < n:
            return _letter(LETTERS[k].value, n, plain, ""), reasoning
        return ChoiceVerdict(None, "no-option", f"option {k + 1} is not offered", f), reasoning
    m2 = _LEAD_BRACKET.match(plain)
    if m2:
        return _lead(m2.group(1), m2.group(2), None, n, plain, ch, lex), reasoning
    m = _LEAD.match(plain)
    if m and not _binomial_lead(m, info):
        raw = m.group(1) or m.group(2) or m.group(3)
        return _lead(raw, m.group(4), m.group(3), n, plain, ch, lex), reasoning
    words = r.words
    if not words:
        return ChoiceVerdict(None, "no-words", "the answer has no words", f), reasoning
    return _read_words(r, plain, ch, lex, info, voc), reasoning


def _read_words(
    r: Reading, plain: str, ch: Choices, lex: Lexicon, info: _Info, voc: _Vocab
) -> ChoiceVerdict:
    """Decide from the letters and option words of a focus that is not a bare letter."""
    f = r.focus
    n = len(ch.texts)
    if _BRACKET_LABEL.search(f):
        # Read the words without the letters that label them ("The liver (A) appears
        # normal" denies the liver); the letters are read below.
        blank = _BRACKET_LABEL.sub(lambda m: " " * len(m.group(0)), f)
        rb = _reread(blank, lex)
        if rb is not None:
            r = Reading(f, None, rb.words, rb.starts, rb.ends, rb.breaks)
    r = _expand(r, ch, lex, info)
    spans = _spans(r, ch, lex, info, voc)
    # "the liver (A), not the spleen (B)": a letter in brackets right after an option's
    # mention labels it, and is chosen or denied with it.
    labelled: set[int] = set()
    for lm in _BRACKET_LABEL.finditer(f):
        lk = ord(lm.group(0).strip("()[]").split()[-1].upper()) - ord("A")
        for o, neg, _, b in spans:
            if o == lk and not f[r.ends[b - 1] : lm.start()].strip():
                labelled.add(lk)
                if neg:
                    f = f[: lm.start()] + " " * (lm.end() - lm.start()) + f[lm.end() :]
                break
    if f != r.focus:
        plain = _BOLD_MARK.sub("", f).strip()
    chosen, denied, cues = _letters_in(plain, n, voc)
    denied |= {k for k in labelled if k not in chosen and any(o == k and g for o, g, _, _ in spans)}
    f = r.focus
    m = _TRAILING_LETTER.search(plain)
    if m and ord(m.group(1)) - ord("A") < n and not chosen:
        chosen.add(ord(m.group(1)) - ord("A"))
        cues.append(f"letter:{m.group(1)}")
    of_part = _state_of_a_part(r, spans, ch, lex, voc) or _said_of_a_component(
        r, spans, ch, lex, voc
    )
    if of_part:
        return ChoiceVerdict(None, "state", of_part, f, tuple(cues))
    hedge = voc.hedge.find(r.words)
    if hedge and not _inside(hedge, spans):
        i, j = hedge[0]
        cue = " ".join(r.words[i:j])
        return ChoiceVerdict(None, "hedge", f"hedge: '{cue}'", f, (*cues, f"hedge:{cue}"))
    odd = _stray_items(r, spans, lex) or _modifier_only(r, spans, ch, lex)
    if odd:
        return ChoiceVerdict(None, "no-option", odd, f, tuple(cues))
    predicate = ch.predicate or ("likelihood", 1)  # "X is more likely than Y"
    if spans:
        compared = _comparative(r, spans, ch, lex, predicate)
        if compared is not None:
            ck, why = compared
            if ck is None:
                return ChoiceVerdict(None, "comparative", why, f, tuple(cues))
            if not chosen or chosen == {ck}:
                lab = LETTERS[ck]
                return ChoiceVerdict(lab, "comparative", why, f, tuple(cues), (ch.texts[ck],))
    every = _every_option(r, voc)
    said = {k for k, neg, _, _ in spans if not neg}
    unsaid = {k for k, neg, _, _ in spans if neg}
    if every == "deny" and info.nothing is None:
        unsaid |= set(range(n)) - said
    elif every == "none" and info.nothing is not None:
        said.add(info.nothing)
    elif every == "all" and info.every is not None:
        said = {info.every}
    if not said and not chosen and info.bins:
        binned = _in_bin(f, info.bins)
        if binned is not None:
            bk, why = binned
            if bk is None:
                return ChoiceVerdict(None, "measurement", why, f, tuple(cues))
            lab = LETTERS[bk]
            return ChoiceVerdict(lab, "measurement", why, f, tuple(cues), (ch.texts[bk],))
    if not said and not chosen:
        part = _partial(r, spans, ch, lex, info, voc)
        if part is not None:
            said = {part}
            cues.append(f"partial:{ch.texts[part]}")
    matched = tuple(ch.texts[k] for k in sorted(said))
    if said & unsaid:
        why = "an option is both named and denied"
        return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
    said, chosen = _combined(said, chosen, r, info)
    denied_words = {i for _, neg, a, b in spans if neg for i in range(a, b)}
    longer = _longer_option(said, r, ch, lex, denied_words, spans)
    if longer is not None:
        why = f"may mean the longer option {LETTERS[longer].value} '{ch.texts[longer]}'"
        return ChoiceVerdict(None, "longer-option", why, f, tuple(cues), matched)
    if chosen & denied:
        why = "a letter is both chosen and denied"
        return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
    if chosen and said and chosen != said:
        why = "the letter and the option's words disagree"
        return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
    picked = chosen | said
    if denied & said:
        why = "a denied letter's option is named"
        return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
    if len(picked) > 1:
        why = "chooses more than one option"
        return ChoiceVerdict(None, "several", why, f, tuple(cues), matched)
    if len(picked) == 1:
        k = next(iter(picked))
        other = _other_option_words(k, r, spans, ch, lex, info, voc) if said else ""
        if k in (info.every, info.nothing) or (info.pair is not None and k == info.pair[0]):
            other = ""  # "All of them: X, Y and Z", "Both A and B": the others are expected
        if other:
            return ChoiceVerdict(None, "several", other, f, tuple(cues), matched)
        how = "letter and text" if chosen and said else "letter" if chosen else "text"
        lab = LETTERS[k]
        why = f"the {'letter' if how == 'letter' else 'words'} of option {lab.value}"
        if how == "letter and text":
            why = f"the letter and the words of option {lab.value}"
        return ChoiceVerdict(lab, how, why, f, tuple(cues), matched)
    if denied or unsaid:
        why = "only denies options"
        return ChoiceVerdict(None, "denial", why, f, tuple(cues), matched)
    return ChoiceVerdict(None, "no-option", "names none of the options", f, tuple(cues))


# -- structured and reasoning answers -----------------------------------------------------


def _has_marker_word(text: str, voc: _Vocab) -> bool:
    """True when the text may hold the word for answer in a Latin-script language (parts
    of the words that hold in either case: "espuesta" is in "Respuesta" and "respuesta")."""
    return any(w in text for w in voc.marker_hints)


def _inner_answer(text: str, voc: _Vocab) -> tuple[str, str] | None:
    """The answer inside ``\\boxed{}`` (the last one) or a JSON object's answer field, and
    the reasoning the object gives ("" when none)."""
    if "\\boxed" in text:
        found = _BOXED.findall(text)
        if found and found[-1].strip():
            return str(found[-1]).strip(), ""
    if "{" in text:
        body = text.strip()
        fence = _FENCE.match(body)
        if fence:
            body = fence.group(1)
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            low = {str(k).lower(): v for k, v in data.items()}
            letter = next(
                (str(low[k]).strip() for k in voc.json_letter_keys if isinstance(low.get(k), str)),
                "",
            )
            words = next(
                (str(low[k]).strip() for k in voc.json_text_keys if isinstance(low.get(k), str)),
                "",
            )
            why = " ".join(str(low[k]) for k in voc.json_reason_keys if isinstance(low.get(k), str))
            if letter and words and re.fullmatch(r"[(\[]?[A-Ha-h][)\]]?\.?", letter):
                # {"answer": "B", "answer_text": "Coronal"}: the letter and its option's
                # words must agree, as in "B. Coronal".
                return f"{letter.strip('()[].').upper()}. {words}", why
            if letter:
                return letter, why
            if words:
                return words, why
            return None
        m = _JSON_ANSWER.match(text)
        if m and m.group(1).strip():
            return m.group(1).strip(), ""
    return None


def _reasoning_of(text: str, focus: str) -> str:
    """What an answer says before its final answer: the ``<think>`` block, or the text
    before the focus when the focus is its last part."""
    if "<" in text:
        think = _THINK.findall(text)
        if think:
            rest = _THINK.sub(" ", text)
            rest = _ANSWER_TAG.sub(" ", rest)
            return " ".join([*think, rest]).strip()
    if focus and focus in text:
        at = text.rfind(focus)
        return text[:at]  # the text after it is added where it is read (see _label)
    return ""


def _has_letter(f: str) -> bool:
    """True when a capital A-H stands alone in the text (a pattern that opens with its
    character class: the engine skips ahead to the candidates)."""
    for m in _CAPITAL_CANDIDATE.finditer(f):
        at = m.start()
        if at and f[at - 1] == "(" or at and f[at - 1] == "[":
            at -= 1
        if at == 0 or not (f[at - 1].isalnum() or f[at - 1] in "_'-"):
            return True
    return False


def _split_sentences(f: str) -> list[str]:
    """The sentences of a text, each with its closing punctuation."""
    out: list[str] = []
    at = 0
    for m in _SENT_BREAK.finditer(f):
        cut = m.start() + (1 if f[m.start()] in ".!?" else 0)
        if f[at:cut].strip():
            out.append(f[at:cut])
        at = m.end()
    if f[at:].strip():
        out.append(f[at:])
    return out


def _first_line_letter(f: str) -> str | None:
    """The first line of a focus of several lines when it is a letter answer ("B. MRI",
    "**Answer: C**", "C"), else None."""
    if "\n" not in f.strip():
        return None
    line = f.lstrip().split("\n", 1)[0]
    plain = _BOLD_MARK.sub("", line).strip()
    if plain and (_WHOLE.match(plain) or _LEAD.match(plain) or _LEAD_BRACKET.match(plain)):
        return f[: f.index(line) + len(line)]
    return None


def _tail_letters(tail: str, n: int, verbs: frozenset[str], voc: _Vocab) -> bool:
    """True when the text after a final answer names a letter that it neither denies nor
    uses as the label of an option it names ("The liver (A) appears normal" is fine; "so A
    would also fit" is not)."""
    t = _BRACKET_LABEL.sub(" ", _BOLD_MARK.sub("", tail))
    _, denied, _ = _letters_in(t, n, voc)
    for m in _CAPITAL_LETTER.finditer(t):
        letter = m.group(0).strip("()[]")
        k = ord(letter) - ord("A")
        if k in denied:
            continue
        nxt = re.match(r"\s+([a-z]+)", t[m.end() :])
        if letter == "A" and nxt and nxt.group(1) not in verbs:
            continue  # "A mass is seen": the article (not "A would also fit")
        return True
    return False


def _last_sentence_letter(f: str, n: int) -> tuple[str, str] | None:
    """ "... No contrast given. B.": a short last sentence that commits to a letter, after
    a discussion, and the text before it."""
    if not any(c in f for c in ".!?\n") or len(f) < 8:
        return None
    low = f.lower()
    if not _has_letter(f) and not any(w in low for w in ("option", "choice", "letter")):
        return None
    parts = _split_sentences(f.strip())
    if len(parts) < 2:
        return None
    last = _BOLD_MARK.sub("", parts[-1]).strip()
    if len(last.split()) > 8:
        return None
    if not (
        _WHOLE.match(last)
        or _LEAD.match(last)
        or _LEAD_BRACKET.match(last)
        or any(g for m in _NAMED.finditer(last) for g in m.groups())
    ):
        return None
    return parts[-1], f[: f.rfind(parts[-1])]


def _after_correction(f: str, voc: _Vocab) -> str | None:
    """The text after the last self-correction ("X — no wait. ... Y"), or None when the
    answer does not correct itself."""
    low = f.lower()
    if not any(w in low for w in voc.correction_hints):
        return None
    # "it may actually be the right": a modal before the cue makes it a hedge, not a
    # correction (the hedge is read on the whole answer).
    found = [m for m in voc.correction.finditer(f) if not _MODAL_BEFORE.search(f, 0, m.start())]
    if not found:
        return None
    m = found[-1]
    if not f[: m.start()].strip(" .,;:-\u2014\u2013"):
        return None  # "Actually, it is B": nothing corrected
    return f[m.end() :].strip(" .,;:!-\u2014\u2013")


def _reasoning_conflict(reasoning: str, k: int, ch: Choices, lex: Lexicon) -> str:
    """Why the reasoning before an answer contradicts its choice of option k, or ""."""
    facts = _reasoning_facts(reasoning, ch, lex)
    if facts is None:
        return ""
    info = _info(ch, lex)
    if facts.undecided and k not in info.uncertain:
        return "the reasoning says it cannot be determined"
    if k in facts.denied_letters:
        return f"the reasoning denies option {LETTERS[k].value}"
    last_denial = facts.last_denial.get(k, -1)
    if last_denial >= 0 and not any(o == k and i > last_denial for o, i in facts.settled):
        return f"the reasoning denies option {LETTERS[k].value}"
    settled_on = {o for o, _ in facts.settled}
    if settled_on and k not in settled_on:
        return f"the reasoning settles on option {LETTERS[min(settled_on)].value}"
    if facts.every_denied and k != info.nothing:
        return "the reasoning denies every option"
    if facts.lone is not None and k != facts.lone and k not in facts.said:
        # "The image shows the chest ..." before the letter of "Upper limbs".
        return f"the reasoning concludes option {LETTERS[facts.lone].value}"
    chosen = facts.chosen
    if chosen and k not in chosen and len(chosen) == 1 and not facts.denied_letters & chosen:
        return f"the reasoning chooses option {LETTERS[next(iter(chosen))].value}"
    return ""


@dataclass(frozen=True, slots=True, eq=False)
class _Facts:
    """What a reasoning says of the options, whatever the answer after it chooses."""

    undecided: bool
    chosen: frozenset[int]
    denied_letters: frozenset[int]
    last_denial: dict[int, int]  # option -> where the reasoning last denies it
    settled: frozenset[tuple[int, int]]  # (option, where) it settles on
    every_denied: bool
    said: frozenset[int]  # options named and not denied anywhere
    lone: int | None  # the one option named outside hypothetical sentences, if that is all


@lru_cache(maxsize=4096)
def _reasoning_facts(reasoning: str, ch: Choices, lex: Lexicon) -> _Facts | None:
    """The facts of a reasoning (memoised: answers that share a reasoning share them),
    read sentence by sentence, each sentence's reading memoised too: the reasoning of
    chains of thought repeats its sentences from answer to answer."""
    info = _info(ch, lex)
    voc = _vocab(lex)
    low = reasoning.lower()
    if not any(w[:4] in info.signal for w in _ALPHA.findall(low)) and not _has_letter(reasoning):
        if not any(w in low for w in ("determin", "say", "tell", "any of", "none of")):
            return None  # it names no option, letter or doubt
    fixed = _after_correction(reasoning, voc)
    if fixed is not None:
        reasoning = fixed  # what a reasoning retracted does not count
    parts: list[_Part] = []
    for x in _split_sentences(reasoning):
        part = _sentence_part(x, ch, lex)
        if part is not None:
            parts.append(part)
    if not parts:
        return None
    chosen: set[int] = set()
    denied: set[int] = set()
    last_denial: dict[int, int] = {}
    settled: set[tuple[int, int]] = set()
    said: set[int] = set()
    plain_said: set[int] = set()
    for n, part in enumerate(parts):
        chosen |= part.chosen
        denied |= part.denied
        for o, neg, i, _ in part.spans:
            at = n * _PART_SPAN + i
            if neg:
                last_denial[o] = max(at, last_denial.get(o, -1))
            else:
                said.add(o)
                if i not in part.hypothetical:
                    plain_said.add(o)
        settled |= {(o, n * _PART_SPAN + i) for o, i in part.settled}
    lone = None
    if (
        len(plain_said) == 1
        and not any(p.discusses or p.hedged for p in parts)
        and not any(
            _other_option_words(next(iter(plain_said)), p.reading, p.spans, ch, lex, info, voc)
            for p in parts
        )
    ):
        lone = next(iter(plain_said))
    return _Facts(
        any(p.undecided for p in parts),
        frozenset(chosen),
        frozenset(denied),
        last_denial,
        frozenset(settled),
        any(p.every_denied for p in parts),
        frozenset(said),
        lone,
    )


_PART_SPAN = 100_000  # orders (sentence, word) pairs as one number


@dataclass(frozen=True, slots=True, eq=False)
class _Part:
    """What one sentence of a reasoning says of the options."""

    reading: Reading
    spans: list[tuple[int, bool, int, int]]
    hypothetical: frozenset[int]
    settled: frozenset[tuple[int, int]]
    chosen: frozenset[int]
    denied: frozenset[int]
    undecided: bool
    every_denied: bool
    hedged: bool
    discusses: bool


@lru_cache(maxsize=16384)
def _sentence_part(sentence: str, ch: Choices, lex: Lexicon) -> _Part | None:
    info = _info(ch, lex)
    voc = _vocab(lex)
    bracket = "(" in sentence or "[" in sentence
    words_text = sentence
    if bracket:
        words_text = _BRACKET_LABEL.sub(lambda m: " " * len(m.group(0)), sentence)
    rr = _reread(words_text, lex)
    if rr is None or not rr.words:
        return None
    plain = _BOLD_MARK.sub("", sentence) if "*" in sentence or "_" in sentence else sentence
    if bracket:
        plain = _BRACKET_LABEL.sub(" ", plain)
    chosen, denied, _ = _letters_in(plain, len(ch.texts), voc)
    rx = _expand(rr, ch, lex, info)
    spans = _spans(rx, ch, lex, info, voc)
    return _Part(
        rx,
        spans,
        frozenset(_hypothetical(rx, lex)) if spans else frozenset(),
        frozenset(_concluded(rx, spans, voc)),
        frozenset(chosen),
        frozenset(denied),
        bool(voc.undecided.find(rr.words)),
        _every_option(rx, voc) == "deny",
        bool(lex.hedge.find(rx.words)),
        bool(_DISCUSSES.search(sentence)),
    )


def _hypothetical(r: Reading, lex: Lexicon) -> set[int]:
    """The words of the sentences that speak of what is usual or possible ("which are
    typically associated with conjunctivitis"), not of this image."""
    out: set[int] = set()
    f, words, starts = r.focus, r.words, r.starts
    begin = 0
    for m in _SENTENCE_STOP.finditer(f + "."):
        lo = bisect_left(starts, begin)
        hi = bisect_left(starts, m.end())
        if hi > lo and lex.conditional.find(words[lo:hi]):
            out.update(range(lo, hi))
        begin = m.end()
    return out


def _concluded(
    r: Reading, spans: list[tuple[int, bool, int, int]], voc: _Vocab
) -> set[tuple[int, int]]:
    """(option, where) of the options a reasoning settles on: named right after
    "characteristic of", "consistent with", "suggests" and the like."""
    out: set[tuple[int, int]] = set()
    words = r.words
    for k, neg, i, _ in spans:
        if neg:
            continue
        t = i
        while t > 0 and words[t - 1] in ("a", "an", "the", "those", "that", "of"):
            t -= 1  # "consistent with those of a kidney"
        for end in range(t, i + 1):
            for size in (1, 2, 3, 4):
                a = end - size
                if (
                    a >= 0
                    and voc.conclusion_cues.match_at(words, a) == words[a:end]
                    and clause_start(r, r.starts[i]) <= r.starts[a]
                    and not any(w in _NEGATORS for w in words[max(0, a - 2) : a])
                ):
                    out.add((k, i))
                    break
    return out


# -- letters ------------------------------------------------------------------------------


def _letter(raw: str, n: int, f: str, why: str) -> ChoiceVerdict:
    k = ord(raw.upper()) - ord("A")
    if k >= n:
        return ChoiceVerdict(None, "no-option", f"letter {raw.upper()} is not an option", f)
    lab = LETTERS[k]
    return ChoiceVerdict(lab, "letter", f"the letter of option {lab.value}", f)


def _lead(
    raw: str, rest: str, capital: str | None, n: int, f: str, ch: Choices, lex: Lexicon
) -> ChoiceVerdict:
    """ "B. MRI", "(B) MRI", "B) MRI", "A (posterior)": a letter followed by text that must
    agree with it."""
    v = _letter(raw, n, f, "")
    if v.label is None:
        return v
    if (
        _GOES_ON.match(rest)
        or any(g and g.upper() != raw.upper() for x in _NAMED.finditer(rest) for g in x.groups())
        or _LIST_GOES_ON.match(rest)
    ):
        return ChoiceVerdict(None, "several", "names another letter after its own", f)
    rr = read_answer(rest, lex)
    if rr.early is not None and rr.early.rule in ("refusal", "hedge", "junk", "truncated"):
        re_read = _reread(rest, lex)
        if re_read is None or _cue_outside_options(re_read, ch, lex, rr.early.rule):
            return ChoiceVerdict(None, rr.early.rule, rr.early.reason, f, rr.early.cues)
        rr = re_read
    said: set[int] = set()
    unsaid: set[int] = set()
    if rr.words:
        info = _info(ch, lex)
        rx = _expand(rr, ch, lex, info)
        voc = _vocab(lex)
        spans = _spans(rx, ch, lex, info, voc)
        for k, neg, _, _ in spans:
            (unsaid if neg else said).add(k)
        said, _ = _combined(said, set(), rx, info)
        k = LETTERS.index(v.label)
        if said == {k} and not unsaid:
            if _other_option_words(k, rx, spans, ch, lex, info, voc):
                return ChoiceVerdict(None, "contradiction", "the words name another option", f)
            why = f"the letter and the words of option {v.label.value}"
            return ChoiceVerdict(v.label, "letter and text", why, f, matched=(ch.texts[k],))
        if said or unsaid:
            return ChoiceVerdict(None, "contradiction", "the letter and the words disagree", f)
        if _distinct_words_named(rx, info) - {k}:
            return ChoiceVerdict(None, "contradiction", "the words name another option", f)
        if _names_something_else(rest, k, ch, lex, voc):
            why = f"the words after the letter are not option {v.label.value}"
            return ChoiceVerdict(None, "contradiction", why, f)
    if capital and f.lstrip("*_ ")[1:2] == "." and rest[:1].islower():
        # "A. fumigatus": an abbreviated genus, not option A.
        return ChoiceVerdict(
            None, "no-option", "a capital and a full stop before a lower-case word", f
        )
    return v


_LABEL_WORDS = 5


def _names_something_else(rest: str, k: int, ch: Choices, lex: Lexicon, voc: _Vocab) -> bool:
    """ "E. Melanocytic nevus" when E is Melanoma: a short label after the letter, with
    none of option k's words nor the question's, names something that is not option k
    (an explanation after the letter, "B. Because ...", is not a label)."""
    body = rest.strip().rstrip(".!*_ ")
    if not body or any(c in body for c in ".;:!?()[]\n") or not body[:1].isalpha():
        return False
    words = lex.canon.words(body)
    if not 1 <= len(words) <= _LABEL_WORDS or not _content(words[0], lex):
        return False
    if any(w in lex.q_verbs or w in lex.grammar["copula"] or w in voc.answer_talk for w in words):
        return False
    own = set(ch.words[k]) | ch.stem | ch.asked
    content = [w for w in words if _content(w, lex)]
    return bool(content) and not any(w in own for w in words)


def _binomial_lead(m: re.Match[str], info: _Info) -> bool:
    """ "C. neoformans" among genus-species options: an abbreviated genus, not option C."""
    cap, rest = m.group(3), m.group(4)
    if not cap or m.group(0).lstrip("*_ ")[1:2] != ".":
        return False
    word = re.match(r"[a-z]+", rest)
    return word is not None and (cap.lower(), word.group()) in info.binomials


def _letters_in(f: str, n: int, voc: _Vocab) -> tuple[set[int], set[int], list[str]]:
    """Letters the focus chooses and letters it denies ("not A or C")."""
    chosen: set[int] = set()
    denied: set[int] = set()
    cues: list[str] = []
    low = f.lower()
    if (
        not _has_letter(f)
        and not any(w in low for w in ("option", "choice", "letter"))
        and not (any(w in low for w in voc.letter_hints) and _ORDINAL.search(f))
    ):
        return chosen, denied, cues  # no capital letter standing alone, no "option b"
    denied_spans: list[tuple[int, int]] = []
    for m in _NEGATED_LETTERS.finditer(f):
        for x in _LETTER_IN.finditer(m.group(1)):
            k = ord(x.group(1)) - ord("A")
            if k < n:
                denied.add(k)
                cues.append(f"denied:{x.group(1)}")
        denied_spans.append(m.span(1))
    for m in _NAMED.finditer(f):
        raw = next(g for g in m.groups() if g)
        pos = m.start()
        if any(a <= pos < b for a, b in denied_spans):
            continue
        k = ord(raw.upper()) - ord("A")
        if k >= n:
            chosen.add(k)  # a letter that is not an option: never a valid choice
            cues.append(f"letter:{raw.upper()}")
            continue
        if _LETTER_DENIED_AFTER.match(f[m.end() :]) or _LETTER_DENIED_AFTER.match(
            f[m.end() :].lstrip(")] ")
        ):
            denied.add(k)
            cues.append(f"denied:{raw.upper()}")
            continue
        chosen.add(k)
        cues.append(f"letter:{raw.upper()}")
    for m in _ORDINAL.finditer(f):
        k = _ORDINALS[m.group(1).lower()]
        k = n - 1 if k < 0 else k
        if k < n:
            chosen.add(k)
            cues.append(f"ordinal:{m.group(1).lower()}")
    return chosen, denied, cues


# -- the options' words -------------------------------------------------------------------


def _grade(word: str) -> str | None:
    """A numeral as a grade: "3", "iii" and "III" -> "3"; "ib" -> "1b"; else None."""
    m = _NUMBER.match(word)
    if m:
        return str(int(m.group(1))) + m.group(2)
    m = _ROMAN.match(word)
    if m and (m.group(1) or m.group(2)):
        value = (10 if m.group(1) else 0) + _ROMAN_VALUES.get(m.group(2), 0)
        return str(value) + m.group(3) if value else None
    return None


def _initials(tokens: list[tuple[str, bool]], skip: frozenset[str]) -> set[str]:
    """Initialisms of a run of words: every word's first letter, with and without its
    small words ("ductal carcinoma in situ" -> dcis, dcs), and each hyphenated word as one
    letter or one per part ("age-related macular degeneration" -> amd, armd)."""
    out: set[str] = set()
    for drop_small in (False, True):
        for join in (False, True):
            letters = ""
            for w, joined in tokens:
                if drop_small and w in skip:
                    continue
                if join and joined:
                    continue
                if w[:1].isalpha():
                    letters += w[0]
            if len(letters) >= 2:
                out.add(letters)
    return out


@lru_cache(maxsize=4096)
def _info(ch: Choices, lex: Lexicon) -> _Info:
    """The phrases that name each option and what else labelling reads from the options."""
    voc = _vocab(lex)
    owner: dict[tuple[str, ...], set[int]] = {}
    reduced_forms: set[tuple[str, ...]] = set()
    n = len(ch.words)
    frame = frozenset.intersection(*(frozenset(ws) for ws in ch.words)) if n else frozenset()

    def add(p: tuple[str, ...], k: int) -> None:
        if p:
            owner.setdefault(p, set()).add(k)

    for k, words in enumerate(ch.words):
        forms = {words, tuple(w for w in words if w not in lex.stopwords)}
        forms.add(tuple(w for w in words if w not in lex.stopwords and w not in lex.generic))
        text = ch.texts[k]
        m = re.match(r"^(.*\S)\s*\(([^()]+)\)\s*$", text)
        if m:
            # "Retinal pigmented epithelium (RPE)": either part names the option.
            for part in (m.group(1), m.group(2)):
                pw = lex.canon.words(part)
                forms.add(pw)
                forms.add(tuple(w for w in pw if w not in lex.stopwords))
        for p in forms:
            add(p, k)
        if frame and len(frame) < len(set(words)):
            # "Confocal microscopy" among "... microscopy" options: "confocal" names it.
            rest = tuple(w for w in words if w not in frame and w not in lex.stopwords)
            if rest and not all(_grade(w) for w in rest):
                add(rest, k)
                reduced_forms.add(rest)
    own = {p: next(iter(ks)) for p, ks in owner.items() if len(ks) == 1}
    reduced = frozenset(p for p in reduced_forms if p in own and p not in _full_forms(ch, lex))
    content = [{w for w in ws if _content(w, lex)} for ws in ch.words]
    distinct = tuple(
        frozenset(w for w in content[k] if not any(w in content[o] for o in range(n) if o != k))
        for k in range(n)
    )
    # Options that differ only by a grade ("KL 1" ... "KL 4", "Stage II", "Grade 3").
    grades: list[str] = []
    for words in ch.words:
        own_words = [w for w in words if w not in frame and w not in lex.stopwords]
        g = _grade(own_words[0]) if len(own_words) == 1 else None
        if g is None:
            grades = []
            break
        grades.append(g)
    numbers = tuple(grades) if len(set(grades)) == n else ()
    initialisms: dict[str, set[int]] = {}
    acronyms: dict[str, tuple[str, int]] = {}
    for k, text in enumerate(ch.texts):
        toks = [(m.group(), m.start(), m.end()) for m in re.finditer(r"[^\W_]+", text)]
        tokens = [(t.lower(), a > 0 and text[a - 1] == "-") for t, a, _ in toks]
        head = text.split("(")[0]
        ctoks = [(w, j) for w, j in tokens[: len(re.findall(r"[^\W_]+", head))]]
        if len(ctoks) >= 2:
            found = _initials(ctoks, voc.initials_skip)
            if len(ctoks) >= 3:
                found |= {s for s in _initials(ctoks[:-1], voc.initials_skip) if len(s) >= 3}
            for s in found:
                initialisms.setdefault(s, set()).add(k)
        for t, _, _ in toks:
            if _UPPER.match(t) and len(t) >= 3:
                cw = lex.canon.words(t)
                if len(cw) == 1:
                    acronyms[t.lower()] = (cw[0], k)
    unique_initials = {s: next(iter(ks)) for s, ks in initialisms.items() if len(ks) == 1}
    every = nothing = None
    pair: tuple[int, tuple[int, ...]] | None = None
    uncertain: set[int] = set()
    for k, words in enumerate(ch.words):
        text = ch.texts[k].lower().strip(" .")
        if voc.all_answers.find(words) and len(words) <= 5:
            every = k
        elif voc.every_option.find(words) or text in ("none", "neither", "neither of them"):
            nothing = k
        m2 = re.fullmatch(
            r"both(?:\s+(?:([a-h])\s+and\s+([a-h])|of\s+the\s+above|of\s+them|sides?))?", text
        )
        if m2 is None and words == ("bilateral",) and n == 3:
            m2 = re.fullmatch("(.*)", "")  # "bilateral" beside "left" and "right"
        if m2:
            joined = (
                (ord(m2.group(1)) - ord("a"), ord(m2.group(2)) - ord("a"))
                if m2.lastindex and m2.group(1)
                else tuple(o for o in range(n) if o != k)[:2]
            )
            pair = (k, joined)
        if lex.hedge.find(words) or voc.undecided.find(words) or lex.refusal.find(words):
            uncertain.add(k)
    # "No diabetic retinopathy": saying "diabetic retinopathy" denies it.
    cores: dict[tuple[str, ...], int] = {}
    for k, words in enumerate(ch.words):
        if len(words) > 1 and words[0] in ("no", "not", "without", "non"):
            core = tuple(w for w in words[1:] if w not in lex.stopwords)
            if core and core not in own:
                cores[core] = k
    phrase_set = PhraseSet(own)
    for core in cores:
        phrase_set.add(core)
    return _Info(
        phrase_set,
        own,
        reduced,
        distinct,
        tuple(frozenset(c) for c in content),
        numbers,
        unique_initials,
        acronyms,
        every,
        nothing,
        pair,
        frozenset(uncertain),
        frame,
        cores,
        any(_LEVEL.match(w) for ws in ch.words for w in ws),
        tuple(
            tuple(o for o in range(n) if o != k and set(ch.words[k]) < set(ch.words[o]))
            for k in range(n)
        ),
        _binomials(ch),
        frozenset(
            k
            for k, t in enumerate(ch.texts)
            if _BINOMIAL.fullmatch(t) and sum(ws[:1] == ch.words[k][:1] for ws in ch.words) == 1
        ),
        _bins(ch.texts),
        _signal(ch, unique_initials),
        any(len(p) > 1 for p in own),
    )


def _signal(ch: Choices, initials: dict[str, int]) -> frozenset[str]:
    """The first 4 letters of every written word of the options ("pulm" finds
    "pulmonary") and of their initialisms: a cheap test of whether a text may name one."""
    stems = {w.lower()[:4] for t in ch.texts for w in _ALPHA.findall(t)}
    stems |= {s[:4] for s in initials if len(s) >= 3}
    return frozenset(stems)


def _binomials(ch: Choices) -> dict[tuple[str, str], str]:
    """("s", "aureus") -> "staphylococcus" for two-word options, when only one fits."""
    seen: dict[tuple[str, str], set[str]] = {}
    for ws in ch.words:
        if len(ws) == 2 and len(ws[0]) > 2 and ws[0].isalpha():
            seen.setdefault((ws[0][0], ws[1]), set()).add(ws[0])
    return {key: next(iter(v)) for key, v in seen.items() if len(v) == 1}


_NUM = r"(\d+(?:\.\d+)?)"
_UNIT = r"\s*(mm|cm|%)?"
_BIN_BELOW = re.compile(r"^(?:<|\u2264|<=|less than|under|below)\s*" + _NUM + _UNIT + r"$", re.I)
_BIN_ABOVE = re.compile(
    r"^(?:>|\u2265|>=|more than|greater than|over|above)\s*" + _NUM + _UNIT + r"$", re.I
)
_BIN_RANGE = re.compile(r"^" + _NUM + _UNIT + r"\s*(?:-|\u2013|to)\s*" + _NUM + _UNIT + r"$", re.I)
_MEASURE = re.compile(
    r"(?<![\w.])"
    + _NUM
    + r"(?:\s*(?:x|\u00d7|by)\s*"
    + _NUM
    + r")?(?:\s*(?:x|\u00d7|by)\s*"
    + _NUM
    + r")?\s*(?:(?:-|\u2013|to)\s*"
    + _NUM
    + r")?\s*(mm|cm|%)(?!\w)",
    re.I,
)
_TO_MM = {"mm": 1.0, "cm": 10.0, "%": 1.0}


def _bins(texts: tuple[str, ...]) -> tuple[tuple[float, float, bool, bool, str], ...]:
    """Options that are ranges of one measure ("<1 cm", "1-2 cm", ">4 cm"; "<30%",
    "30-40%"): (low, high, low included, high included, unit) each, or () otherwise."""
    out: list[tuple[float, float, bool, bool, str]] = []
    units: set[str] = set()
    for t in texts:
        t = t.strip().replace(" ", " ")
        m = _BIN_BELOW.match(t)
        if m:
            strict = not t.startswith(("\u2264", "<="))
            out.append((float("-inf"), float(m.group(1)), False, not strict, m.group(2) or ""))
            continue
        m = _BIN_ABOVE.match(t)
        if m:
            strict = not t.startswith(("\u2265", ">="))
            out.append((float(m.group(1)), float("inf"), not strict, False, m.group(2) or ""))
            continue
        m = _BIN_RANGE.match(t)
        if m:
            out.append(
                (float(m.group(1)), float(m.group(3)), True, True, m.group(4) or m.group(2) or "")
            )
            continue
        return ()
    units = {u.lower() for *_, u in out if u}
    if len(units) != 1:
        return ()
    unit = units.pop()
    return tuple((lo, hi, a, b, unit) for lo, hi, a, b, _ in out)


def _in_bin(
    f: str, bins: tuple[tuple[float, float, bool, bool, str], ...]
) -> tuple[int | None, str] | None:
    """The option whose range holds the one measurement the answer gives ("28 x 19 mm"
    is 2-4 cm: its largest dimension; "~20-25%" must fall in one range whole)."""
    unit = bins[0][4]
    found = [m for m in _MEASURE.finditer(f) if (m.group(5).lower() == "%") == (unit == "%")]
    if not found:
        return None
    if len(found) > 1:
        return None, "gives more than one measurement"
    m = found[0]
    if re.search(r"\d", f[: m.start()] + f[m.end() :]):
        return None, "gives other numbers beside the measurement"
    scale = _TO_MM[m.group(5).lower()] / _TO_MM[unit]
    dims = [float(g) * scale for g in m.groups()[:3] if g]
    values = [max(dims)]
    if m.group(4):
        values = [float(m.group(1)) * scale, float(m.group(4)) * scale]
    hit: set[int] = set()
    for v in values:
        ks = {
            k
            for k, (lo, hi, a, b, _) in enumerate(bins)
            if (lo < v or (a and lo == v)) and (v < hi or (b and v == hi))
        }
        if len(ks) != 1:
            return None, "the measurement falls in no single option"
        hit |= ks
    if len(hit) != 1:
        return None, "the measurement spans two options"
    k = hit.pop()
    return k, f"the measurement falls in option {LETTERS[k].value}"


def _pair(ch: Choices, lex: Lexicon) -> tuple[int, tuple[int, ...]] | None:
    """The option that joins two others ("Both A and B") and those two, if there is one."""
    return _info(ch, lex).pair


def _full_forms(ch: Choices, lex: Lexicon) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for words in ch.words:
        out.add(words)
        out.add(tuple(w for w in words if w not in lex.stopwords))
        out.add(tuple(w for w in words if w not in lex.stopwords and w not in lex.generic))
    return out


def _content(w: str, lex: Lexicon) -> bool:
    return (
        w not in lex.stopwords
        and w not in lex.generic
        and w not in lex.q_preps
        and w not in lex.q_articles
        and w not in _NEGATORS
        and w not in lex.grammar["copula"]
        and not w.isdigit()
        and len(w) > 1
    )


def _reread(f: str, lex: Lexicon) -> Reading | None:
    """The words of a text without its cue checks (hedges inside options are read later).
    A long text is read sentence by sentence, each sentence's words memoised: the
    reasoning of chains of thought repeats its sentences from answer to answer."""
    if len(f) < 160:
        words, starts, ends = lex.canon.canon_arrays(f)
    else:
        words_l: list[str] = []
        starts_l: list[int] = []
        ends_l: list[int] = []
        at = 0
        for m in _SENT_BREAK.finditer(f + " "):
            chunk = f[at : m.end()]
            cw, cs, ce = _sentence_words(chunk, lex)
            words_l.extend(cw)
            starts_l.extend(x + at for x in cs)
            ends_l.extend(x + at for x in ce)
            at = m.end()
        if at < len(f):
            cw, cs, ce = _sentence_words(f[at:], lex)
            words_l.extend(cw)
            starts_l.extend(x + at for x in cs)
            ends_l.extend(x + at for x in ce)
        words, starts, ends = tuple(words_l), tuple(starts_l), tuple(ends_l)
    if not words:
        return None
    return Reading(f, None, words, starts, ends, _break_positions(f))


@lru_cache(maxsize=8192)
def _sentence_words(
    chunk: str, lex: Lexicon
) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
    return lex.canon.canon_arrays(chunk)


def _cue_outside_options(r: Reading, ch: Choices, lex: Lexicon, rule: str) -> bool:
    """True when a hedge (or refusal) cue of the text lies outside every option it names,
    unless the option named is itself an uncertain one ("Indeterminate — could be ...")."""
    info = _info(ch, lex)
    phrases = lex.hedge if rule == "hedge" else lex.refusal
    found = phrases.find(r.words)
    if rule == "hedge":
        found = found + _vocab(lex).hedge.find(r.words)
    if not found:
        return False
    spans = _spans(_expand(r, ch, lex, info), ch, lex, info, _vocab(lex))
    if any(k in info.uncertain for k, neg, _, _ in spans if not neg):
        return False
    return not _inside(found, spans)


def _inside(cues: list[tuple[int, int]], spans: list[tuple[int, bool, int, int]]) -> bool:
    """True when every cue lies within an option mention."""
    return all(any(a <= i and j <= b for _, _, a, b in spans) for i, j in cues)


def _expand(r: Reading, ch: Choices, lex: Lexicon, info: _Info) -> Reading:
    """The reading with initialisms of options written out ("RUL" -> right upper lobe) and
    the words of an option's acronym written as it ("usual interstitial pneumonia" -> UIP)."""
    f = r.focus
    words, starts, ends = list(r.words), list(r.starts), list(r.ends)
    changed = False
    if info.initialisms and _HAS_UPPER2.search(f) and not (f.isupper() and len(words) > 2):
        never = _vocab(lex).not_initialisms
        k = 0
        while k < len(words):
            surface = f[starts[k] : ends[k]]
            low = surface.lower()
            alone = len(words) == 1
            if _UPPER.match(surface) and (alone or low not in never) and low in info.initialisms:
                o = info.initialisms[low]
                if words[k] not in set(ch.words[o]) and not info.owner.get((words[k],)):
                    add = ch.words[o]
                    words[k : k + 1] = list(add)
                    starts[k : k + 1] = [starts[k]] * len(add)
                    ends[k : k + 1] = [ends[k]] * len(add)
                    changed = True
                    k += len(add)
                    continue
            k += 1
    if info.acronyms:
        k = 0
        while k < len(words):
            first = f[starts[k] : starts[k] + 1].lower()
            for acr, (canon, _) in info.acronyms.items():
                if first != acr[0]:
                    continue
                end = _acronym_run(f, words, starts, ends, k, acr, lex)
                if end is not None:
                    words[k:end] = [canon]
                    starts[k:end] = [starts[k]]
                    ends[k:end] = [ends[end - 1]]
                    changed = True
                    break
            k += 1
    if not f.isascii():
        for k, w in enumerate(words):
            greek = _GREEK.get(w)
            if greek is not None:
                words[k] = greek  # "β-haemolysis"
                changed = True
    k = 0
    possessive = "'s" in f or "\u2019s" in f
    binomial = bool(info.binomials) and ". " in f
    while (possessive or binomial) and k < len(words) - 1:
        gap = f[ends[k] : starts[k + 1]]
        if words[k + 1] == "s" and gap in ("'", "\u2019"):
            # "Brodie's abscess", "Crohn's": the possessive of an eponym.
            del words[k + 1], starts[k + 1], ends[k + 1]
            changed = True
        elif (
            len(words[k]) == 1
            and gap.strip() == "."
            and f[starts[k + 1] : starts[k + 1] + 1].islower()
            and (words[k], words[k + 1]) in info.binomials
        ):
            # "S. aureus" for "Staphylococcus aureus".
            words[k] = info.binomials[(words[k], words[k + 1])]
            changed = True
        k += 1
    if info.levels:
        # "L4-5" for "L4-L5": a spinal level keeps its letter across the dash.
        for k in range(len(words) - 1):
            if (
                _LEVEL.match(words[k])
                and words[k + 1].isdigit()
                and f[ends[k] : starts[k + 1]] in ("-", "/", "\u2013")
            ):
                words[k + 1] = words[k][0] + words[k + 1]
                changed = True
    breaks = r.breaks
    if "\u2192" in f or "=>" in f or "->" in f:
        # "... no pigment network → BCC": an arrow ends a clause as a colon does.
        breaks = _break_positions(f.replace("\u2192", ":").replace("=>", ": ").replace("->", ": "))
        changed = True
    if not changed:
        return r
    return Reading(
        f, r.early, tuple(words), tuple(starts), tuple(ends), breaks, (), r.both_cue, r.none_cue
    )


def _acronym_run(
    f: str,
    words: list[str],
    starts: list[int],
    ends: list[int],
    k: int,
    acr: str,
    lex: Lexicon,
) -> int | None:
    """The end of the words from k whose written initials spell the acronym ("middle
    cerebral artery" -> MCA; "low-grade squamous intraepithelial lesion" -> LSIL, a
    hyphenated word giving one letter), or None."""
    t, n = k, 0
    while n < len(acr):
        if t >= len(words) or not words[t].isalpha() or words[t] in lex.stopwords:
            return None
        if " " in f[starts[t] : ends[t]] or f[starts[t] : starts[t] + 1].lower() != acr[n]:
            return None
        t += 1
        n += 1
        while t < len(words) and f[ends[t - 1] : starts[t]] == "-":
            t += 1  # the rest of a hyphenated word
    return t


def _grade_spans(
    r: Reading, info: _Info, voc: _Vocab, taken: set[int]
) -> list[tuple[int, int, int]]:
    """(option, first, end) of grades written with another numeral ("grade III" for "Grade
    3", "category 5" for "BI-RADS 5"): a numeral right after a grading word."""
    out: list[tuple[int, int, int]] = []
    if not info.numbers:
        return out
    words = r.words
    for i, w in enumerate(words):
        if i in taken or i == 0:
            continue
        g = _grade(w)
        if g is None or g not in info.numbers:
            continue
        before = words[i - 1]
        if before in voc.grade_words or before in info.frame:
            out.append((info.numbers.index(g), i, i + 1))
    return out


def _spans(
    r: Reading, ch: Choices, lex: Lexicon, info: _Info, voc: _Vocab
) -> list[tuple[int, bool, int, int]]:
    """(option index, negated, first word, end word) of each mention, in order."""
    own = info.owner
    words = r.words
    cores = info.cores
    found = [
        (i, j, own[words[i:j]] if words[i:j] in own else cores[words[i:j]])
        for i, j in info.phrases.find(words)
    ]
    found = [x for x in found if not _reduced_conflict(words[x[0] : x[1]], x, r, info, lex)]
    if info.multi and len(words) > 2 and any(w in lex.stopwords for w in words):
        found = _across_small_words(r, found, info, lex)
    taken = {t for i, j, _ in found for t in range(i, j)}
    found += [(i, j, k) for k, i, j in _grade_spans(r, info, voc, taken)]
    found += _shared_head(r, found, ch, lex)
    found.sort()
    out: list[tuple[int, bool, int, int]] = []
    for n, (i, j, k) in enumerate(found):
        h = Hit(Label.A, i, j - 1, r.starts[i], r.ends[j - 1], "word")
        neg = (
            _cue_before(r, h, lex) is not None
            or _cue_after(r, j, lex, ch.state_question)
            or bool(_denied_after(r, j, voc))
        )
        if words[i:j] in cores and words[i:j] not in own:
            neg = not neg  # "diabetic retinopathy" denies "No diabetic retinopathy"
        if not neg and n > 0 and out[-1][1]:
            # "not the liver or the spleen", "no mass, swelling, or nodule": a denial
            # carries over a list joined by "or".
            pj = found[n - 1][1]
            between = words[pj:i]
            gap = r.focus[r.ends[pj - 1] : r.starts[i]]
            joined = "or" in between or "nor" in between
            if all(w in ("or", "nor", "the", "a", "an") for w in between) and (
                joined or ("," in gap and _list_ends_in_or(r, i, found))
            ):
                neg = True
        out.append((k, neg, i, j))
    return out


def _across_small_words(
    r: Reading, found: list[tuple[int, int, int]], info: _Info, lex: Lexicon
) -> list[tuple[int, int, int]]:
    """Options of several words named with other small words between them ("the distal
    radius and the ulnar styloid", "adenocarcinoma in the left lower lobe"): matched on the
    words that are not stopwords, within one clause; such a mention replaces the shorter
    ones inside it."""
    words = r.words
    idx = [t for t, w in enumerate(words) if w not in lex.stopwords]
    view = tuple(words[t] for t in idx)
    for a, b in info.phrases.find(view):
        p = view[a:b]
        if len(p) < 2 or p not in info.owner:
            continue
        i, j = idx[a], idx[b - 1] + 1
        if j - i == b - a or j - i - (b - a) > 3:
            continue  # matched already, or too far apart
        if clause_end(r, r.starts[i]) < r.ends[j - 1]:
            continue
        inside = [x for x in found if i <= x[0] and x[1] <= j]
        if any(x[0] < j and i < x[1] for x in found if x not in inside):
            continue  # overlaps a mention it does not hold
        found = [x for x in found if x not in inside] + [(i, j, info.owner[p])]
    return sorted(found)


def _list_ends_in_or(r: Reading, i: int, found: list[tuple[int, int, int]]) -> bool:
    """True when the list that holds the mention at i goes on to an "or" ("mass, swelling,
    or nodule")."""
    later = [x for x in found if x[0] > i]
    for a, _, _ in later:
        t = a - 1
        while t > 0 and r.words[t] in ("a", "an", "the"):
            t -= 1
        if t >= 0 and r.words[t] in ("or", "nor"):
            return True
    return False


def _reduced_conflict(
    p: tuple[str, ...], at: tuple[int, int, int], r: Reading, info: _Info, lex: Lexicon
) -> bool:
    """A form without the options' shared words ("confocal" for "Confocal microscopy") is a
    mention only when no word of the same kind as a dropped one stands beside it ("left
    upper lobe" does not name "Right upper lobe")."""
    if p not in info.reduced:
        return False
    i, j, _ = at
    words = r.words
    for t in (i - 1, j):
        if 0 <= t < len(words):
            w = words[t]
            if w in info.frame or not _content(w, lex):
                continue
            return True
    classes = {c for w in info.frame for c in lex.parallel.get(w, ())}
    lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.ends[j - 1])
    for t, w in enumerate(words):
        if lo <= r.starts[t] < hi and w not in info.frame and classes & lex.parallel.get(w, set()):
            return True
    return False


def _shared_head(
    r: Reading, found: list[tuple[int, int, int]], ch: Choices, lex: Lexicon
) -> list[tuple[int, int, int]]:
    """ "the temporal and occipital lobes": a modifier joined to a mention by "and"/"or"/a
    comma names the option made of it and the mention's head noun."""
    out: list[tuple[int, int, int]] = []
    words = r.words
    by_words = {ws: k for k, ws in enumerate(ch.words)}
    for i, j, _ in found:
        if j - i < 2:
            continue
        head = words[i + 1 : j]
        t = i - 1
        while t >= 1 and words[t] in ("and", "or", "nor"):
            k = by_words.get((words[t - 1], *head))
            if k is None:
                break
            out.append((k, t - 1, t))
            t -= 2
    return [(a, b, k) for k, a, b in out]


def _comparative(
    r: Reading,
    spans: list[tuple[int, bool, int, int]],
    ch: Choices,
    lex: Lexicon,
    predicate: tuple[str, int],
) -> tuple[int | None, str] | None:
    """ "Which is the biggest, lung, liver or heart?" - "the heart appears to be the largest
    among the lung, liver, and heart", "the liver appears larger than the spleen and
    kidney": the option said to be so. Saying the opposite of one option ("X is smaller")
    leaves the others open and abstains; None when no comparative answers the question."""
    dim, want = predicate
    words = r.words
    picked: set[int] = set()
    for i, j in lex.comparatives.find(words):
        d, sign = lex.comparative_sign[words[i:j]]
        if d != dim or any(a <= i < b for _, _, a, b in spans):
            continue  # another dimension, or an option's own word ("lower zone")
        if any(w in _NEGATORS for w in words[max(0, i - 3) : i]):
            return None, "a negated comparative"
        lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.ends[j - 1])
        before = [s for s in spans if s[3] <= i and r.starts[s[2]] >= lo and not s[1]]
        if not before:
            continue
        lead = [
            w
            for t, w in enumerate(words[: before[-1][2]])
            if r.starts[t] >= lo and _content(w, lex) and w not in ch.stem
        ]
        if lead:
            return None, f"says it of '{' '.join(lead)}', not of an option"
        than_at = next(
            (
                t
                for t in range(j, len(words))
                if r.ends[t] <= hi and (lex.than.match_at(words, t) or words[t] == "among")
            ),
            None,
        )
        after = range(than_at, len(words)) if than_at is not None else range(0)
        named = {t for s in spans for t in range(s[2], s[3])}
        filler = lex.grammar["comparison_filler"]
        other = [
            words[t]
            for t in after
            if r.ends[t] <= hi
            and t not in named
            and _content(words[t], lex)
            and words[t] not in ch.stem
            and words[t] not in filler
            and not lex.than.match_at(words, t)
            and words[t] != "among"
        ]
        if other:
            return None, f"compares with '{' '.join(other)}', not with the other options"
        if sign != want:
            return None, "says which option is not the one asked for"
        picked.add(before[-1][0])
    if not picked:
        return None
    if len(picked) > 1:
        return None, "comparatives point to different options"
    k = picked.pop()
    return k, f"the comparative selects option {LETTERS[k].value}"


def _cue_after(r: Reading, j: int, lex: Lexicon, state_question: bool) -> bool:
    """A denial right after a mention, in its clause ("the liver is excluded")."""
    hi = clause_end(r, r.ends[j - 1])
    for t in range(j, min(len(r.words), j + 4)):
        if r.ends[t] > hi:
            break
        if lex.neg_after.match_at(r.words, t) is not None:
            return True
        # "the liver is unremarkable": a state that says the option is not the finding.
        if not state_question and lex.neg_after_state.match_at(r.words, t) is not None:
            return True
    return False


def _denied_after(r: Reading, j: int, voc: _Vocab) -> bool:
    """ "the lunate is normally aligned", "the left kidney is separate from it"."""
    hi = clause_end(r, r.ends[j - 1])
    for t in range(j, min(len(r.words), j + 3)):
        if r.ends[t] > hi:
            break
        if voc.denied_after.match_at(r.words, t) is not None:
            return True
    return False


def _every_option(r: Reading, voc: _Vocab) -> str:
    """ "none of these" / "not ... any of these" -> "deny" (or "none" when the answer is
    just that); "all of them" -> "all"; else ""."""
    words = r.words
    for i, _ in voc.all_answers.find(words):
        if not any(w in _NEGATORS for w in words[max(0, i - 3) : i]):
            return "all"
    for i, _ in voc.every_option.find(words):
        if words[i] == "none":
            return "none" if i <= 1 else "deny"
        if any(w in _NEGATORS for w in words[max(0, i - 6) : i]):
            return "deny"
    return ""


def _combined(
    said: set[int], chosen: set[int], r: Reading, info: _Info
) -> tuple[set[int], set[int]]:
    """An option that joins the others the answer names ("Both A and B" when it says
    "both", "A and B", or names both together with "Both A and B")."""
    if len(said) >= 2 and not chosen:
        union = {w for o in said for w in info.distinct_all[o]}
        holders = [
            o
            for o in range(len(info.distinct_all))
            if o not in said and union <= info.distinct_all[o]
        ]
        if len(holders) == 1 and ("both" in r.words or r.both_cue):
            return {holders[0]}, chosen  # "both the distal radius and the ulnar styloid"
    if info.pair is None:
        return said, chosen
    k, joined = info.pair
    parts = set(joined)
    if k in said and said - {k} <= parts:
        return {k}, chosen - parts
    both = any(w == "both" for w in r.words[:2]) or bool(r.both_cue)
    if chosen == parts and not said and (both or " and " in r.focus):
        return said, {k}
    if both and said == parts and not chosen and len(r.words) <= 3:
        return {k}, chosen
    if r.words[:1] == ("both",) and not said and not chosen and _said_plainly(r):
        return {k}, chosen
    return said, chosen


def _said_plainly(r: Reading) -> bool:
    """True when nothing in the answer denies what it says ("Both." but not "Both are
    absent.")."""
    return not any(w in _NEGATORS for w in r.words) and not any(
        w in ("absent", "normal", "unremarkable", "excluded", "incorrect", "wrong") for w in r.words
    )


def _distinct_words_named(r: Reading, info: _Info) -> set[int]:
    """Options whose own words the text says (outside a denial)."""
    out: set[int] = set()
    for k, ws in enumerate(info.distinct):
        if ws and not ws.isdisjoint(r.words):
            out.add(k)
    return out


def _other_option_words(
    k: int,
    r: Reading,
    spans: list[tuple[int, bool, int, int]],
    ch: Choices,
    lex: Lexicon,
    info: _Info,
    voc: _Vocab,
) -> str:
    """Why the answer may also name another option than k, or "": a range or alternative
    with another option's word ("KL 3-4", "Stage II or III", "mid to lower zone"), or words
    only another option has ("abscess or infected hydatid cyst"), said and not denied."""
    words = r.words
    taken = {t for _, _, a, b in spans for t in range(a, b)}
    for o, neg, a, b in spans:
        if o != k or neg:
            continue
        for nxt, gap_at in ((b, b), (b + 1, b)):
            if nxt >= len(words) or gap_at >= len(words):
                continue
            if nxt == b + 1 and words[b] not in voc.joiners:
                continue
            if nxt == b and not _RANGE_GAP.match(r.focus[r.ends[b - 1] : r.starts[b]]):
                continue
            other = _owner_of(words[nxt], k, info)
            if other is not None:
                return f"a range or alternative with option {LETTERS[other].value}"
        if a >= 2 and words[a - 1] in voc.joiners:
            other = _owner_of(words[a - 2], k, info)
            if other is not None:
                return f"a range or alternative with option {LETTERS[other].value}"
    for o, neg, a, b in spans:
        if o != k or neg:
            continue
        # "LUL or lingula", "abscess or hydatid cyst": an alternative that is no option.
        if b + 1 < len(words) and words[b] == "or" and b + 1 not in taken:
            if _content(words[b + 1], lex) or words[b + 1] in ("a", "an", "the"):
                return "an alternative beside the option"
        if a >= 2 and words[a - 1] == "or" and a - 2 not in taken and _content(words[a - 2], lex):
            return "an alternative beside the option"
    if info.numbers:
        return ""
    heads = {b for o, neg, _, b in spans if o == k and not neg}
    heads |= {a - 1 for o, neg, a, _ in spans if o == k and not neg}
    for t, w in enumerate(words):
        if t in taken or w in ch.stem:
            continue
        for o, ws in enumerate(info.distinct):
            if o == k or w not in ws:
                continue
            if (
                t in heads
                and ws & set(words) == {w}
                and _joined(r, t, spans, k)
                and not _spelled_across(r, t, spans, k, ch.words[o])
            ):
                # "Trichrome stain" among "... Silver stain", "posterior acoustic
                # shadowing" beside "Posterior enhancement": a word of the answer's own
                # mention, not the other option
                continue
            h = Hit(Label.A, t, t, r.starts[t], r.ends[t], "word")
            if (
                _cue_before(r, h, lex) is not None
                or _cue_after(r, t + 1, lex, ch.state_question)
                or _denied_after(r, t + 1, voc)
            ):
                continue
            return f"also names words of option {LETTERS[o].value} '{ch.texts[o]}'"
    return ""


def _positive_at(r: Reading, t: int, ch: Choices, lex: Lexicon, voc: _Vocab) -> bool:
    """True when the word at t is said, not denied."""
    h = Hit(Label.A, t, t, r.starts[t], r.ends[t], "word")
    return not (
        _cue_before(r, h, lex) is not None
        or _cue_after(r, t + 1, lex, ch.state_question)
        or _denied_after(r, t + 1, voc)
    )


def _partial(
    r: Reading,
    spans: list[tuple[int, bool, int, int]],
    ch: Choices,
    lex: Lexicon,
    info: _Info,
    voc: _Vocab,
) -> int | None:
    """The option named by every word only it has, when the answer names no option in full
    ("pseudocyst" for "Pancreatic pseudocyst" beside "Pancreatic adenocarcinoma";
    "epidermoid, not arachnoid cyst"). Each such word must stand on its own or beside the
    option's other words ("pleural thickening" does not name "Pleural effusion"), and no
    other option's own word may be said."""
    if info.numbers:
        return None
    words = r.words
    taken = {t for _, _, a, b in spans for t in range(a, b)}
    found: list[int] = []
    for o, ws in enumerate(info.distinct):
        if not ws:
            continue
        at = [t for t, w in enumerate(words) if w in ws and t not in taken]
        said = {words[t] for t in at if _positive_at(r, t, ch, lex, voc)}
        genus = o in info.genera and said == {ch.words[o][0]}
        if said and said != ws and not genus:
            return None  # some of another option's own words
        if said != ws and not genus:
            continue
        mine = set(ch.words[o])
        for t in at:
            for u in (t + 1,):
                if not 0 <= u < len(words) or u in taken:
                    continue
                a, b = (r.ends[u], r.starts[t]) if u < t else (r.ends[t], r.starts[u])
                if r.focus[a:b].strip():
                    continue  # punctuation between
                w = words[u]
                if w in mine or w in ch.stem or w in info.frame or not _content(w, lex):
                    continue
                return None
        found.append(o)
    return found[0] if len(found) == 1 else None


def _joined(r: Reading, t: int, spans: list[tuple[int, bool, int, int]], k: int) -> bool:
    """True when the word at t stands right before or after a mention of option k, with
    no punctuation between."""
    for o, _, a, b in spans:
        if o != k:
            continue
        if t == b and not r.focus[r.ends[b - 1] : r.starts[t]].strip():
            return True
        if t == a - 1 and not r.focus[r.ends[t] : r.starts[a]].strip():
            return True
    return False


def _said_of_a_component(
    r: Reading, spans: list[tuple[int, bool, int, int]], ch: Choices, lex: Lexicon, voc: _Vocab
) -> str:
    """Why an option's word describes a part of the lesion, or "": "around a non-enhancing
    necrotic centre" says the centre does not enhance, not the lesion."""
    words = r.words
    own = {w for ws in ch.words for w in ws}
    for k, neg, _, j in spans:
        if neg:
            continue
        for t in range(j, min(j + 2, len(words))):
            w = words[t]
            if r.focus[r.ends[t - 1] : r.starts[t]].strip():
                break  # punctuation ends the phrase
            if w in voc.components and w not in ch.stem and w not in own:
                return f"'{ch.texts[k]}' describes the {w}, a part of the lesion"
            if not _content(w, lex):
                break
    return ""


def _sentence_of(r: Reading, i: int) -> tuple[int, int]:
    """The words (first, end) of the sentence or ';'-part that holds word i."""
    f, at = r.focus, r.starts[i]
    a = max(f.rfind(c, 0, at) for c in ".;!?\n") + 1
    ends = [e for e in (f.find(c, at) for c in ".;!?\n") if e >= 0]
    b = min(ends, default=len(f))
    return bisect_left(r.starts, a), bisect_left(r.starts, b)


def _state_of_a_part(
    r: Reading, spans: list[tuple[int, bool, int, int]], ch: Choices, lex: Lexicon, voc: _Vocab
) -> str:
    """Why a state option ("Normal") is named of a part rather than of the image, or "":
    "liver and spleen size normal" beside free fluid says nothing of the whole study."""
    if ch.state_question:
        return ""
    words = r.words
    for k, neg, i, _ in spans:
        if neg or not ch.words[k] or not all(w in lex.state_words for w in ch.words[k]):
            continue
        lo, hi = _sentence_of(r, i)
        subject = [
            w
            for w in words[lo:i]
            if _content(w, lex)
            and w not in ch.stem
            and w not in lex.generic
            and w not in voc.whole_study
        ]
        if not subject:
            continue
        # Said of parts only ("Disc, macula and vessels appear healthy") it stands for the
        # study, unless the answer describes something else that it does not deny.
        for t, w in enumerate(words):
            if lo <= t < hi or not _content(w, lex) or w in ch.stem or w in lex.generic:
                continue
            if w in lex.state_words or w in voc.whole_study:
                continue
            c0 = _sentence_of(r, t)[0]
            if any(x in _NEGATORS for x in words[c0 : t + 1]):
                continue
            return f"'{ch.texts[k]}' is said of '{' '.join(subject)}', not of the image"
    return ""


def _spelled_across(
    r: Reading, t: int, spans: list[tuple[int, bool, int, int]], k: int, other: tuple[str, ...]
) -> bool:
    """True when the word at t and the mention of option k beside it hold every word of
    the other option: "lamellar macular hole" names *Lamellar hole* as well as *Macular
    hole* ("trichrome stain" does not name *Silver stain*)."""
    for o, _, a, b in spans:
        if o == k and (t == b or t == a - 1):
            phrase = set(r.words[min(a, t) : max(b, t + 1)])
            if set(other) <= phrase:
                return True
    return False


def _owner_of(word: str, k: int, info: _Info) -> int | None:
    """The option other than k that this word (or grade) belongs to only."""
    if info.numbers:
        g = _grade(word)
        if g is not None and g in info.numbers and info.numbers.index(g) != k:
            return info.numbers.index(g)
        return None
    for o, ws in enumerate(info.distinct):
        if o != k and word in ws:
            return o
    return None


def _stray_items(r: Reading, spans: list[tuple[int, bool, int, int]], lex: Lexicon) -> str:
    """ "Liver, Top": a list of fragments, some of them no option (an answer to another
    question, or several answers)."""
    if not r.breaks or len(r.words) > 8 or _has_letter(r.focus) or "option" in r.focus.lower():
        return ""
    parts = [p for p in re.split(r"[,;/\n]", r.focus) if p.strip()]
    if len(parts) < 2 or any(len(p.split()) > 3 for p in parts):
        return ""
    if any(w in _NEGATORS or w in lex.q_verbs or w in lex.stopwords for w in r.words):
        return ""  # a sentence ("MRI, not CT"), not a list of fragments
    taken = {i for _, _, a, b in spans for i in range(a, b)}
    first = parts[0]
    lone = [p.strip().lower() for p in parts[1:] if len(p.split()) == 1]
    if (
        spans
        and spans[0][2] == 0
        and all(k == spans[0][0] for k, _, _, _ in spans)
        and not any(w in lex.parallel for w in lone)
    ):
        end = r.ends[spans[0][3] - 1]
        if end >= len(r.focus) - len(r.focus.lstrip()) + len(first.strip()) - 1:
            return ""  # "RUL, apical segment": the option, then a detail of it
    for n, w in enumerate(r.words):
        if n not in taken and w not in lex.stopwords and w not in lex.generic:
            return "a list of fragments, not all of them options"
    return ""


def _modifier_only(
    r: Reading, spans: list[tuple[int, bool, int, int]], ch: Choices, lex: Lexicon
) -> str:
    """ "Pulmonary bronchus": an option named only through an adjective of another noun."""
    for k, _, a, b in spans:
        if b >= len(r.words) or b - a != 1:
            continue
        surface = r.focus[r.starts[a] : r.ends[a]].lower()
        if any(surface == t.lower() or surface in t.lower().split() for t in ch.texts):
            continue  # the option's own word, not a derived form
        if not surface.replace(" ", "").isalpha():
            continue  # a notation ("L4-5" for "L4-L5"), not a derived adjective
        if len(surface.split()) > 1 or not r.focus[r.ends[a] : r.starts[b]].isspace():
            continue  # a phrase the lexicons know ("sagittal section"), or punctuation
        nxt = r.words[b]
        if nxt in lex.q_preps or nxt in ch.asked or nxt in _part_words(lex):
            continue  # "sagittal through", "splenic lesion" when the question asks of
            # lesions, "splenic parenchyma"
        if nxt not in lex.stopwords and nxt not in lex.q_verbs and nxt not in lex.generic:
            if nxt.isalpha() and not any(nxt in w for w in ch.words):
                return f"names option {LETTERS[k].value} only as a modifier of '{nxt}'"
    return ""


@lru_cache(maxsize=8)
def _part_words(lex: Lexicon) -> frozenset[str]:
    """Words that name a part of an organ ("parenchyma", "lobe", "pole", "tail")."""
    listed = lex.lists.get("multiple_choice.part_nouns", ())
    return frozenset(w for ws in lex.parts.values() for w in ws) | frozenset(
        w for p in listed for w in lex.canon.words(p)
    )


def _longer_option(
    said: set[int],
    r: Reading,
    ch: Choices,
    lex: Lexicon,
    denied: set[int],
    spans: list[tuple[int, bool, int, int]],
) -> int | None:
    """An option that holds a named one's words and whose other words the answer also says
    (outside the mentions it denies), or a word right before the mention that may stand
    for them ("very hypoechoic" among "Hypoechoic" / "Markedly hypoechoic")."""
    holders = [(k, o) for k in said for o in _info(ch, lex).holders[k] if o not in said]
    if not holders:
        return None
    voc = _vocab(lex)
    longer = {w for _, o in holders for w in ch.words[o]}
    present = {
        w
        for i, w in enumerate(r.words)
        if w in longer and i not in denied and _positive_at(r, i, ch, lex, voc)
    }
    for k, other in holders:
        mine = set(ch.words[k])
        extra = set(ch.words[other]) - mine - lex.stopwords
        if extra & present:
            return other
        for o, neg, a, _ in spans:
            if o != k or neg or a == 0:
                continue
            before = r.words[a - 1]
            gap = r.focus[r.ends[a - 1] : r.starts[a]]
            if gap.strip() or before in mine:
                continue
            if _content(before, lex) or before in ("very", "markedly", "mildly"):
                return other
    return None


def _text_only(f: str, ch: Choices, lex: Lexicon) -> ChoiceVerdict:
    """A bare yes/no: an option only when an option says exactly that."""
    words = lex.canon.words(f)
    hits = [k for k, w in enumerate(ch.words) if w == words]
    if len(hits) == 1:
        lab = LETTERS[hits[0]]
        return ChoiceVerdict(lab, "text", f"the words of option {lab.value}", f)
    return ChoiceVerdict(None, "no-option", "a bare yes/no names none of the options", f)
