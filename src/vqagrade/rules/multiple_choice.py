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

The entry module: it decides. What it reads lives beside it: `choice_vocab` (the lexicon's
lists), `choice_options` (what a set of options gives), `choice_letters` (letter formats),
`choice_words` (option reading) and `choice_reasoning` (the reasoning check).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..kinds import LETTERS, Letter
from ..labels import Label
from ..lexicon import Lexicon
from .choice_letters import (
    _BOLD_MARK,
    _BRACKET_LABEL,
    _CAPITAL_LETTER,
    _GOES_ON,
    _HYPOTHETICAL,
    _LEAD,
    _LEAD_BRACKET,
    _LETTER_LIST,
    _LIST_GOES_ON,
    _NAMED,
    _NUMBERED,
    _SLASH_LETTER,
    _TRAILING_LETTER,
    _WHOLE,
    _binomial_lead,
    _first_line_letter,
    _has_marker_word,
    _inner_answer,
    _last_sentence_letter,
    _letters_in,
    _tail_letters,
)
from .choice_options import _Info, _info, _pair
from .choice_reasoning import _after_correction, _reasoning_conflict, _reasoning_of
from .choice_vocab import _content, _Vocab, _vocab
from .choice_words import (
    _combined,
    _comparative,
    _cue_outside_options,
    _distinct_words_named,
    _every_option,
    _expand,
    _in_bin,
    _inside,
    _longer_option,
    _modifier_only,
    _other_option_words,
    _partial,
    _reread,
    _said_of_a_component,
    _spans,
    _state_of_a_part,
    _stray_items,
)
from .choices import Choices
from .final_answer import structured_answer
from .reading import (
    _OPEN,
    Hit,
    Reading,
    _cut_in_concession,
    clause_end,
    clause_start,
    content_word,
    judgement_would,
    read_answer,
    said_normal,
)
from .text import cognate

# Where the last sentence of an answer starts.
_LAST_SENTENCE = re.compile(r"[.!?\n]+\s*")
# A letter named with an answer word anywhere ("..., answer B.", "option C"): it must agree
# with the option the words name.
_NAMED_LETTER = re.compile(
    r"\b(?i:answer|option|choice)\s*(?i:is\s*)?[:\uff1a]?\s*\(?([A-H])\)?(?![\w'])"
)
_EARLY_KEEP = frozenset({"letter"})


@dataclass(slots=True, eq=False)
class ChoiceVerdict:
    """The letter one answer chooses and why (internal form of `AnswerTrace`)."""

    label: Letter | None
    rule: str
    reason: str
    focus: str
    cues: tuple[str, ...] = ()
    matched: tuple[str, ...] = ()


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
    if depth == 0 and v.label is not None and _reopened(text):
        # "\boxed{D}... or is the thin wall at the apex an aneurysm?": the answer ends by
        # doubting its own choice.
        why = "the answer ends with a question that reopens its choice"
        return ChoiceVerdict(None, "reopened", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.label is not None:
        cut = _cut_off(text, ch, lex)
        if cut:
            return ChoiceVerdict(None, "truncated", cut, v.focus, v.cues, v.matched)
    if depth == 0 and v.label is not None:
        pair = _two_letters(text, len(ch.texts), ch)
        if pair:
            # "… though there also seems to be a perforation, so C or D."
            why = f"names two letters ('{pair}')"
            return ChoiceVerdict(None, "several", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.label is not None:
        typed = _typed_by_letter(text, ch) - {LETTERS.index(v.label)}
        if typed:
            # "This is a Stanford A dissection … Answer: B" when B is "… Stanford B".
            o = min(typed)
            why = f"names option {LETTERS[o].value} '{ch.texts[o]}' by its type letter"
            return ChoiceVerdict(None, "contradiction", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.label is not None:
        bracket = _bracket_names_another(text, LETTERS.index(v.label), ch, lex)
        if bracket:
            # "Answer: D (pituitary macroadenoma)" when C is pituitary macroadenoma.
            why = f"a letter and the words in brackets after it disagree ('{bracket}')"
            return ChoiceVerdict(None, "contradiction", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.rule == "text" and v.label is not None:
        k = LETTERS.index(v.label)
        for check, rule, why in _TEXT_CHECKS:
            if check(r, k, ch, lex):
                why = why.format(v.label.value)
                return ChoiceVerdict(None, rule, why, v.focus, v.cues, v.matched)
    if depth == 0 and v.rule == "letter" and v.label is not None:
        other = _words_name_another(text, LETTERS.index(v.label), ch)
        if other is not None:
            # "Mielofibrosis — reticulina grado 3. Opción B." when A is Myelofibrosis.
            why = f"the words name option {LETTERS[other].value}, the letter {v.label.value}"
            return ChoiceVerdict(None, "contradiction", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.rule == "text" and v.label is not None and _value_in_ranges(text, ch, v):
        # "about 5 mm" to "<3 mm / 3–5 mm / >5 mm": which range a value falls in is not read.
        why = "a value against options that are ranges of values"
        return ChoiceVerdict(None, "ranges", why, v.focus, v.cues, v.matched)
    if (
        depth == 0
        and v.rule == "text"
        and v.label is not None
        and _case_elsewhere(text, v, ch, lex)
    ):
        # "Weber A is infrasyndesmotic; B …; C above it. Here the fracture is well above …"
        why = "the sentence about this case names none of the chosen option's words"
        return ChoiceVerdict(None, "general", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.rule == "text" and v.label is not None and _general(r, lex):
        # "Gallstones can cause pain in the right upper quadrant ...": said of the option in
        # general, not of this image.
        why = "names the option only in a general statement"
        return ChoiceVerdict(None, "conditional", why, v.focus, v.cues, v.matched)
    if depth == 0 and v.label is not None and reasoning.strip():
        why = _reasoning_conflict(reasoning, LETTERS.index(v.label), ch, lex)
        if why:
            return ChoiceVerdict(None, "reasoning", why, v.focus, v.cues, v.matched)
    return v


# Latin-script words only: in "线性IgG沉积" the code "IgG" is a word of its own.
_TOKEN = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+")


# What ends a label standing first: a dash, colon, stop, comma, bracket, a CJK character, or
# the end ("Mielofibrosis — …", "线性IgG沉积").
_HEAD_END = re.compile(
    r"\s*(?:[\u2014\u2013:;,.(\uff08\uff1a\u3002-]|[\u3040-\u30ff\u4e00-\u9fff]|$)"
)


_TWO_LETTERS = re.compile(
    r"(?<![\w'])\(?([A-H])\)?\s*(?:or|and|/|&|vs\.?|versus)\s*\(?([A-H])\)?(?![\w'])"
)


_PAIR_DENIALS = frozenset({"not", "neither", "nor", "excluding", "exclude", "excludes", "unlike"})
# Capitalised words that may stand before a pair of chosen letters ("Answer: C or D").
_PAIR_LEADS = frozenset({"answer", "so", "either", "between", "options", "option", "maybe"})


def _two_letters(text: str, n: int, ch: Choices) -> str:
    """Two of the offered letters joined by "or", "and" or a slash ("so C or D"), outside
    the options' own words ("Both A and B"), or ""."""
    for m in _TWO_LETTERS.finditer(text):
        a, b = m.group(1), m.group(2)
        if a == b or max(ord(a), ord(b)) - ord("A") >= n:
            continue
        before = _TOKEN.findall(text, max(0, m.start() - 30), m.start())[-3:]
        if any(w.lower() in _PAIR_DENIALS for w in before):
            continue  # "Not A or C, so B": an elimination
        if before and before[-1][:1].isupper() and before[-1].lower() not in _PAIR_LEADS:
            continue  # "Antoni A and B areas", "Kerley B": letters inside a name
        said = m.group().lower()
        if any(said in t.lower() for t in ch.texts):
            continue
        return m.group()
    return ""


def _occurrences(r: Reading, words: tuple[str, ...]) -> list[Hit]:
    n = len(words)
    return [
        Hit(Label.A, i, i + n - 1, r.starts[i], r.ends[i + n - 1], "word")
        for i in range(len(r.words) - n + 1)
        if r.words[i : i + n] == words
    ]


_LETTER_BRACKET = re.compile(r"(?<![\w'])([A-H])\s*\(([^()]{3,80})\)")


def _bracket_names_another(text: str, k: int, ch: Choices, lex: Lexicon) -> str:
    """A letter followed by words in brackets ("D (pituitary macroadenoma)") where the
    letter and the words name different options, one of them option k; or ""."""
    n = len(ch.texts)
    for m in _LETTER_BRACKET.finditer(text):
        letter = ord(m.group(1)) - ord("A")
        if letter >= n:
            continue
        inner = m.group(2)
        v = label_choice(inner, read_answer(inner, lex), ch, lex, 2)
        if v.label is None:
            continue
        named = LETTERS.index(v.label)
        if named != letter and k in (named, letter):
            return m.group()
    return ""


def _only_in_history(r: Reading, k: int, ch: Choices, lex: Lexicon) -> bool:
    """Whether every place the answer names option k is a clause about the past ("known
    prior tuberculosis", "history of …", `[answer] history`)."""
    words = ch.words[k]
    found = _occurrences(r, words) if words else []
    if not found:
        return False
    past = lex.history
    for h in found:
        lo = clause_start(r, h.start)
        before = [w for j, w in enumerate(r.words[: h.first]) if r.starts[j] >= lo]
        if not past.find(tuple(before[-4:])):
            return False
    return True


def _option_said_normal(r: Reading, k: int, ch: Choices, lex: Lexicon) -> bool:
    """Whether every place the answer names option k says it is normal, when the question
    does not ask for the normal one and the option is no state itself."""
    states = lex.normal_states
    words = ch.words[k]
    if ch.state_question or not words or not states.isdisjoint(words):
        return False
    if r.wordset.isdisjoint(states):
        return False
    found = _occurrences(r, words)
    return bool(found) and all(said_normal(r, h, states, lex) for h in found)


def _state_of_another(r: Reading, k: int, ch: Choices, lex: Lexicon) -> bool:
    """For an option that calls the whole study a state ("Normal study"), whether every
    state word of it in the answer is said of another noun ("normal bowel activity")."""
    states = lex.normal_states
    words = ch.words[k]
    own = [w for w in words if w in states]
    whole = _vocab(lex).whole_study
    if not own or whole.isdisjoint(words):
        return False  # a bare "Normal" may be said of the organ asked about
    if any(w not in states and w not in lex.generic and w not in whole for w in words):
        return False
    at = [i for i, w in enumerate(r.words) if w in own]
    if not at:
        return False
    rest = set(words)
    for i in at:
        nxt = r.words[i + 1] if i + 1 < len(r.words) else ""
        if not nxt or nxt in rest or not content_word(nxt, lex):
            return False
        if nxt in ch.stem or nxt in ch.asked or nxt in whole:
            return False  # "Normal fundus" to "… in this fundus photograph?"
    return True


def _named_by(word: str, option_words: list[str]) -> bool:
    """Whether an answer word names an option word: a cognate of a long word (any language,
    "Mielofibrosis" for "Myelofibrosis") or the same code ("IgG", "T2", "I-131")."""
    if len(word) >= 6:
        return any(len(o) >= 6 and cognate(o, word) for o in option_words)
    code = len(word) >= 2 and any(c.isdigit() or c.isupper() for c in word[1:])
    return code and word in option_words


def _words_name_another(text: str, k: int, ch: Choices) -> int | None:
    """The other option that an answer's first word, standing as a label, names when it then
    gives option `k`'s letter ("Mielofibrosis — … Opción B." when A is Myelofibrosis;
    "线性IgG沉积 … 答案：C" when A is Linear IgG). Only the head word is read: an
    explanation goes on to name options it argues against."""
    m = next((x for x in _TOKEN.finditer(text) if len(x.group()) >= 2), None)
    if m is None or not _HEAD_END.match(text, m.end()):
        return None  # "Érosions avec …": a description, not a label
    head = m.group()
    owners = {o for o, t in enumerate(ch.texts) if _named_by(head, _TOKEN.findall(t))}
    if len(owners) != 1 or k in owners:
        return None
    return next(iter(owners))


# A range of values ("<3 mm", "3–5 mm", "10 or more"), not a spinal level ("C6-7").
_RANGE = re.compile(
    r"[<>\u2264\u2265]\s*\d|(?<![A-Za-z\d])\d+\s*(?:[-\u2013\u2014]\s*\d|to\b|or more|or less)"
)


def _value_in_ranges(text: str, ch: Choices, v: ChoiceVerdict) -> bool:
    """Whether a number in the answer is read against options that are ranges, other than
    by the chosen option's own wording written out ("3–5 mm")."""
    if not any(c.isdigit() for c in text) or not any(_RANGE.search(t) for t in ch.texts):
        return False
    assert v.label is not None
    own = ch.texts[LETTERS.index(v.label)].lower()
    return own not in text.lower()


def _case_elsewhere(text: str, v: ChoiceVerdict, ch: Choices, lex: Lexicon) -> bool:
    """Whether the last sentence turns to this case ("Here …", "In this image …",
    `[answer] case_openers`) after others, and says none of the chosen option's words: the
    sentences before it describe the options, the one about the case chooses none by name."""
    pieces = [p.strip() for p in re.split(r"(?<=[.;!?])\s+", text.strip()) if p.strip()]
    if len(pieces) < 2:
        return False
    last = lex.canon.words(pieces[-1])
    if not any(last[: len(o)] == o for o in lex.case_openers):
        return False
    assert v.label is not None
    own = {w for w in ch.words[LETTERS.index(v.label)] if _content(w, lex)}
    return own.isdisjoint(last)


def _only_conditional(r: Reading, k: int, ch: Choices, lex: Lexicon) -> bool:
    """Every mention of option k is the subject of a conditional or general statement: a
    cue of `[cues] conditional` ("would", "typically") right after it, not as "I would"
    ("Rheumatoid arthritis typically spares the DIPs", "HSV would show …")."""
    own = {w for w in ch.words[k] if w not in lex.stopwords}
    at = [t for t, w in enumerate(r.words) if w in own]
    cues = lex.conditional.find(r.words, r.wordset)
    if not at or not cues:
        return False
    for t in at:
        if not any(
            0 < i - t <= 2  # right after it: "HSV would show", not "… until proven otherwise"
            and not any(c in ",;:.\u2014(" for c in r.focus[r.ends[t] : r.starts[i]])
            and not judgement_would(r.words, i, lex)
            and r.words[i - 1] not in ("i", "we")
            for i, _ in cues
        ):
            return False
    return True


# Why an option read from the answer's words is not its choice, in the order checked.
_TextCheck = Callable[[Reading, int, Choices, Lexicon], bool]
_TEXT_CHECKS: tuple[tuple[_TextCheck, str, str], ...] = (
    # "Rheumatoid arthritis typically spares the DIPs …": every mention of the option is
    # the subject of a general or conditional statement.
    (
        _only_conditional,
        "conditional",
        "option {} is named only in general or conditional sentences",
    ),
    # "Known prior tuberculosis. Now there's a cavity in the RUL."
    (_only_in_history, "history", "option {} is named only as history"),
    # "The left kidney measures 11.2 cm, which is normal; the other 8.1 cm."
    (_option_said_normal, "normal-chosen", "option {} is read, but the answer calls it normal"),
    # "… with normal bowel activity" is no "Normal study".
    (_state_of_another, "other-subject", "the state word of option {} is said of something else"),
)


def _general(r: Reading, lex: Lexicon) -> bool:
    """Whether the answer is a general statement ("X can cause ..."): a statement cue that
    does not open a relative clause ("a meningioma, which can calcify" still chooses)."""
    return any(r.words[i] not in ("which", "that") for i, _ in lex.generic_statements.find(r.words))


_LAST_WORD = re.compile(r"([^\W\d_]+)\W*$")
_ELLIPSIS = re.compile(r"(?:\u2026|\.\.\.)\s*$")


def _cut_off(text: str, ch: Choices, lex: Lexicon) -> str:
    """Why an answer was cut off before it chose, or "": it stops on a word that opens a
    complement ("The final answer is"), inside an option's word ("... Adeno"), or on an
    ellipsis after an unfinished clause ("but the image specifically shows\u2026")."""
    t = text.rstrip()
    if not t:
        return ""
    ellipsis = _ELLIPSIS.search(t)
    if not ellipsis and not t[-1].isalpha():
        return ""
    body = t[: ellipsis.start()].rstrip() if ellipsis else t
    m = _LAST_WORD.search(body)
    if m is None or m.end() != len(body):
        return ""
    word = m.group(1).lower()
    if len(body.split()) > 2 and word in _OPEN:
        return f"the answer stops on '{word}', before what it opens"
    if ellipsis:
        words, starts, _ = lex.canon.canon_arrays(body)
        if words and _cut_in_concession(body, words, starts, lex):
            return "the answer trails off inside a contrast ('but the image shows\u2026')"
        return ""
    if len(word) >= 3 and len(body.split()) > 2:
        own = {w.lower() for x in ch.texts for w in re.findall(r"[^\W\d_]+", x)}
        if word not in own and any(w.startswith(word) and w != word for w in own):
            return f"the answer is cut off inside a word ('{m.group(1)}')"
    return ""


def _reopened(text: str) -> bool:
    """Whether the answer's last sentence is a question that offers an alternative ("... or
    is it an aneurysm?"); a letter-only answer ("B?") is left to the other rules."""
    t = text.rstrip()
    if not t.endswith("?"):
        return False
    last = _LAST_SENTENCE.split(t[:-1])[-1].lower()
    return " or " in f" {last} " and len(last.split()) > 2


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
                    if after and any(c.isalpha() for c in after[:40]):
                        # "La respuesta es A) Tibia.": the words after the letter must not
                        # name another option.
                        w = label_choice(after, read_answer(after, lex), ch, lex, 1)
                        if w.label is not None and w.label is not v.label:
                            why = "the letter and the words disagree"
                            return ChoiceVerdict(None, "contradiction", why, f), ""
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
            if v.rule == "contradiction":
                # "... A. Burkitt lymphoma." when Burkitt is C: the last sentence's letter
                # and its words disagree; the words alone do not settle it.
                return v, reasoning
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
    if r.words and f.rstrip()[-1:].isalpha() and r.words[-1] in _CUT_ON and len(r.words) > 3:
        # "… a posterior protrusion indenting the thecal sac at": cut off mid-sentence.
        return ChoiceVerdict(None, "truncated", "the answer is cut off mid-sentence", f)
    if _LETTER_PAIR.match(f):
        return ChoiceVerdict(None, "several", "two letters joined by a slash ('A/D')", f)
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
    if (
        len(said) == 1
        and info.every is not None
        and info.every not in said
        and not r.wordset.isdisjoint(_MORE)
    ):
        # "Kerley B lines and cephalisation." when "All of the above" is offered: the
        # second item may be another option in other words.
        why = "names one option and more, with an 'all of the above' option"
        return ChoiceVerdict(None, "several", why, f, tuple(cues), matched)
    if len(said) == 1:
        k1 = next(iter(said))
        other = _letter_beside_words(f, k1, n)
        if other:
            return ChoiceVerdict(None, "contradiction", other, f, tuple(cues), matched)
        alt = _or_beside(r, spans, k1)
        if alt:
            why = "names the option as one of alternatives ('X or Y')"
            return ChoiceVerdict(None, "hedge", why, f, tuple(cues), matched)
        both = _both_option(r, ch, lex, k1)
        if both is not None:
            why = f"a 'both' cue when option {LETTERS[both].value} says both"
            return ChoiceVerdict(None, "several", why, f, tuple(cues), matched)
        joined = _joined_option(r, ch, k1)
        if joined is not None:
            why = f"names more than option {LETTERS[k1].value}: it may mean {LETTERS[joined].value}"
            return ChoiceVerdict(None, "longer-option", why, f, tuple(cues), matched)
    slash = _slashed(f, ch, lex, next(iter(said))) if len(said) == 1 else False
    if slash:
        why = "an option joined by a slash to something else (alternatives)"
        return ChoiceVerdict(None, "several", why, f, tuple(cues), matched)
    hypo = _hypothetical_mention(r, spans, lex)
    if hypo is not None:
        why = f"names option {LETTERS[hypo].value} under a condition ('would')"
        return ChoiceVerdict(None, "hypothetical", why, f, tuple(cues), matched)
    if said & unsaid:
        why = "an option is both named and denied"
        return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
    said, chosen = _combined(said, chosen, r, info, lex.grammar["contrast"])
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
        if how == "text":
            named = {x.upper() for x in _NAMED_LETTER.findall(f)} - {LETTERS[k].value}
            if named:
                # "This is an epidural hematoma, answer B." when B is another option.
                why = f"the words name option {LETTERS[k].value}, the letter {min(named)}"
                return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
        lab = LETTERS[k]
        why = f"the {'letter' if how == 'letter' else 'words'} of option {lab.value}"
        if how == "letter and text":
            why = f"the letter and the words of option {lab.value}"
        return ChoiceVerdict(lab, how, why, f, tuple(cues), matched)
    if denied or unsaid:
        why = "only denies options"
        return ChoiceVerdict(None, "denial", why, f, tuple(cues), matched)
    return ChoiceVerdict(None, "no-option", "names none of the options", f, tuple(cues))


def _letter(raw: str, n: int, f: str, why: str) -> ChoiceVerdict:
    k = ord(raw.upper()) - ord("A")
    if k >= n:
        return ChoiceVerdict(None, "no-option", f"letter {raw.upper()} is not an option", f)
    lab = LETTERS[k]
    return ChoiceVerdict(lab, "letter", f"the letter of option {lab.value}", f)


_MORE = frozenset({"and", "plus", "also"})
_LETTER_PAIR = re.compile(r"^\W*[A-H]\s*/\s*[A-H](?![\w'-])")
# Words a sentence cannot end on: an answer that stops on one was cut off.
_CUT_ON = _OPEN | frozenset(
    {"at", "in", "on", "to", "from", "into", "a", "and", "or", "by", "for", "which", "that"}
)
_CONDITION_OPENERS = frozenset({"if", "in", "for", "assuming", "given"})


_SLASHED = re.compile(r"[A-Za-z]{3,}[^/\n]*\s/\s*[A-Za-z]{3,}|[A-Za-z]{3,}\s*/\s[A-Za-z]{3,}")


_LETTER_PAREN = re.compile(r"(?<![\w'-])([A-H])\)\s")


def _letter_beside_words(f: str, k: int, n: int) -> str:
    """ "…: B) Meningioma." when Meningioma is option A: a letter in the form "B)" inside
    the answer that is not the letter of the option its words name."""
    for m in _LETTER_PAREN.finditer(f):
        j = ord(m.group(1)) - ord("A")
        if j < n and j != k:
            return f"the words name option {LETTERS[k].value}, the letter {m.group(1)}"
    return ""


_TYPE_LETTER = re.compile(r"(\w+)\s+([A-E])\s*$")


def _typed_by_letter(f: str, ch: Choices) -> set[int]:
    """Options told apart by a closing type letter ("Stanford A", "Stanford B") whose word
    and letter the answer says together ("a Stanford A dissection"), in either order."""
    ends = [_TYPE_LETTER.search(t) for t in ch.texts]
    if sum(m is not None for m in ends) < 2:
        return set()
    out = set()
    for o, m in enumerate(ends):
        if m is None:
            continue
        word, letter = re.escape(m.group(1)), m.group(2)
        said = rf"(?i:\b{word})\s+(?:type\s+)?{letter}\b|\b(?:type\s+)?{letter}\s+(?i:{word})\b"
        if re.search(said, f):
            out.add(o)
    return out


def _or_beside(r: Reading, spans: list[tuple[int, bool, int, int]], k: int) -> bool:
    """ "Placenta previa or just a low-lying placenta": the option joined by "or"."""
    words = r.words
    for o, neg, i, j in spans:
        if o != k or neg:
            continue
        if (j < len(words) and words[j] == "or") or (i > 0 and words[i - 1] == "or"):
            return True
    return False


def _both_option(r: Reading, ch: Choices, lex: Lexicon, k: int) -> int | None:
    """An option that says "both"/"bilateral", when the answer has such a cue and chose
    another option ("Bilateral pneumothoraces, larger on the right.")."""
    cue_words = {p[0] for p in lex.both.phrases if len(p) == 1}
    if r.wordset.isdisjoint(cue_words):
        return None
    for o, ws in enumerate(ch.words):
        if o != k and not cue_words.isdisjoint(ws):
            return o
    return None


def _joined_option(r: Reading, ch: Choices, k: int) -> int | None:
    """An option whose words are option k's and another's ("Fracture-dislocation"), when
    the answer says that other one too, by a word that begins the same way ("dislocated")."""
    own = set(ch.words[k])
    heads = {w[:6] for w in r.words if len(w) >= 6}
    for o, ws in enumerate(ch.words):
        extra = {w for w in ws if w not in own}
        if o == k or not own < set(ws) or not extra:
            continue
        # The rest of the joined option is another option ("Dislocation").
        if not any(set(ch.words[j]) == extra for j in range(len(ch.words)) if j not in (k, o)):
            continue
        if all(w[:6] in heads for w in extra):
            return o
    return None


def _slashed(f: str, ch: Choices, lex: Lexicon, k: int) -> bool:
    """ "Klebsiella / Strep pneumoniae": names joined by a spaced slash (alternatives), one of
    them option k, another one a word that begins or is begun by another option's word
    ("strep", "streptococcus"); a synonym after the slash ("schwannoma / acoustic neuroma")
    is no alternative, nor an option written with a slash."""
    if "/" not in f or any("/" in t for t in ch.texts) or not _SLASHED.search(f):
        return False
    own = set(ch.words[k])
    others = {w for o, ws in enumerate(ch.words) if o != k for w in ws if w not in own}
    others = {w for w in others if len(w) >= 4}
    for w in lex.canon.words(f):
        if w in own or len(w) < 4:
            continue
        if any(o.startswith(w) or w.startswith(o) for o in others):
            return True
    return False


def _hypothetical_mention(
    r: Reading, spans: list[tuple[int, bool, int, int]], lex: Lexicon
) -> int | None:
    """An option named in a clause that says what it would be under a condition ("In a
    young male this would be CSC; in an older patient, nAMD")."""
    words = r.words
    if "would" not in r.wordset:
        return None
    for k, neg, i, _ in spans:
        if neg:
            continue
        lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.starts[i])
        inside = [m for m in range(len(words)) if lo <= r.starts[m] < hi]
        clause = [words[m] for m in inside]
        if "would" in clause and (clause[0] in _CONDITION_OPENERS or "if" in clause):
            if any(words[m] == "would" and judgement_would(words, m, lex) for m in inside):
                continue  # "Given the bright effusion I'd call it T2": a judgement
            return k
    return None


def _lead(
    raw: str, rest: str, capital: str | None, n: int, f: str, ch: Choices, lex: Lexicon
) -> ChoiceVerdict:
    """ "B. MRI", "(B) MRI", "B) MRI", "A (posterior)": a letter followed by text that must
    agree with it."""
    v = _letter(raw, n, f, "")
    if v.label is None:
        return v
    if _HYPOTHETICAL.match(rest):
        why = "the letter is followed by a hypothetical ('would be ...'), not chosen"
        return ChoiceVerdict(None, "hypothetical", why, f)
    if (
        _GOES_ON.match(rest)
        or _SLASH_LETTER.match(rest)
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
        hedge = voc.hedge.find(rx.words)
        if hedge and not _inside(hedge, spans):
            # "D, though A is equally likely."
            i, j = hedge[0]
            cue = " ".join(rx.words[i:j])
            return ChoiceVerdict(None, "hedge", f"hedge after the letter: '{cue}'", f)
        for k, neg, _, _ in spans:
            (unsaid if neg else said).add(k)
        said, _ = _combined(said, set(), rx, info, lex.grammar["contrast"])
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
    # "B. Radioiodine (I-131) - this is a post-ablation scan": the label before its gloss
    body = re.split(r"\s[-\u2013\u2014]\s|\(", body, maxsplit=1)[0].strip()
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


def _text_only(f: str, ch: Choices, lex: Lexicon) -> ChoiceVerdict:
    """A bare yes/no: an option only when an option says exactly that."""
    words = lex.canon.words(f)
    hits = [k for k, w in enumerate(ch.words) if w == words]
    if len(hits) == 1:
        lab = LETTERS[hits[0]]
        return ChoiceVerdict(lab, "text", f"the words of option {lab.value}", f)
    return ChoiceVerdict(None, "no-option", "a bare yes/no names none of the options", f)
