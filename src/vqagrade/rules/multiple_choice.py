"""Label an answer to a multiple-choice question with the letter it chooses, or abstain.

The reading is the two-option labeller's (`vqagrade.rules.reading`: final-answer focus,
refusals, hedges, junk, truncation); then:

1. letters in the common forms ("B", "(B)", "B)", "**B**", "Option B", "[B]", "the second
   option", "B is correct", `{"answer": "B"}`, ``\\boxed{B}``); a bare capital inside a
   sentence ("A mass", "Kerley B lines", "Type B dissection") is a word, not a letter;
2. option texts: each option's canonical words through the lexicons, longest first ("T1
   post-contrast" before "T1"), with the negation scoped to each mention ("not the liver");
3. decide: one option chosen by its letter, its text or both in agreement; eliminations
   ("not A or C, so B") leave the option they name. A letter and a text that disagree, two
   options chosen, an answer that names no option, and a longer option that may be meant
   abstain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..kinds import LETTERS, Letter
from ..labels import Label
from ..lexicon import Lexicon
from .choices import Choices
from .negation import _cue_before
from .reading import _NEGATORS, Hit, Reading, clause_end, read_answer
from .text import PhraseSet

_JSON_ANSWER = re.compile(
    r"""^\s*\{\s*["']?(?:answer|choice|option|letter)["']?\s*:\s*["']?([^"'{}]*)["']?""", re.I
)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_BOLD_MARK = re.compile(r"[*_`]+")
_WHOLE = re.compile(
    r"^\W*(?:(?:the\s+)?(?:correct\s+|best\s+|final\s+)?(?:option|choice|answer|letter)"
    r"(?:\s+is)?\s*[:\-]?\s*)?[(\[]?([A-Ha-h])[)\]]?[\s.!]*$",
    re.I,
)
_LEAD = re.compile(
    r"^\W*(?:\(([A-Ha-h])\)|\[([A-Ha-h])\]|([A-H])(?:[).:]|\s+[-\u2013\u2014]))\s*(\S.*)$", re.S
)
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
    r"|\b(?i:choose|chose|select|pick|go\s+with|so|therefore|thus|hence|believe|think|say|guess"
    r"|would\s+be|is)\s*,?\s*(?i:the\s+answer\s+is\s+)?[(\[]?([A-H])[)\]]?" + _AFTER
)
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
_LETTER_TAIL = re.compile(r"(?<![\w'-])[(\[]?[A-H][)\]]?(?![\w'-])|\b(?:option|choice)\b", re.I)
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
        depth: nesting of answers read out of JSON or ``\\boxed{}``.
    """
    n = len(ch.texts)
    f = r.focus
    if depth == 0:
        inner = _inner_answer(text if "\\boxed" in text else f)
        if inner is not None:
            return label_choice(inner, read_answer(inner, lex), ch, lex, 1)
    if depth == 0 and f and len(f) < len(text.strip()):
        tail = text[text.rfind(f) + len(f) :] if f in text else ""
        if _GOES_ON.match(tail) or _LETTER_TAIL.search(tail):
            why = "the answer goes on after its final answer"
            return ChoiceVerdict(None, "goes-on", why, f)
    early = r.early
    if early is not None and early.rule not in _EARLY_KEEP:
        if early.rule == "yes-no":
            return _text_only(f, ch, lex)
        return ChoiceVerdict(None, early.rule, early.reason, f, early.cues)
    plain = _BOLD_MARK.sub("", f).strip()
    m = _WHOLE.match(plain)
    if m:
        return _letter(m.group(1), n, plain, "the answer is the letter")
    m = _LEAD.match(plain)
    if m:
        return _lead(m, n, plain, ch, lex)
    words = r.words
    if not words:
        return ChoiceVerdict(None, "no-words", "the answer has no words", f)
    chosen, denied, cues = _letters_in(plain, n)
    spans = _spans(r, ch, lex)
    odd = _stray_items(r, spans, lex) or _modifier_only(r, spans, ch, lex)
    if odd:
        return ChoiceVerdict(None, "no-option", odd, f, tuple(cues))
    said = {k for k, neg, _, _ in spans if not neg}
    unsaid = {k for k, neg, _, _ in spans if neg}
    matched = tuple(ch.texts[k] for k in sorted(said))
    if said & unsaid:
        why = "an option is both named and denied"
        return ChoiceVerdict(None, "contradiction", why, f, tuple(cues), matched)
    denied_words = {i for _, neg, a, b in spans if neg for i in range(a, b)}
    longer = _longer_option(said, r, ch, lex, denied_words)
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


def _inner_answer(text: str) -> str | None:
    """The answer inside ``\\boxed{}`` (the last one) or a JSON object's answer field."""
    if "\\boxed" in text:
        found = _BOXED.findall(text)
        if found and found[-1].strip():
            return str(found[-1]).strip()
    if "{" in text:
        m = _JSON_ANSWER.match(text)
        if m and m.group(1).strip():
            return m.group(1).strip()
    return None


def _letter(raw: str, n: int, f: str, why: str) -> ChoiceVerdict:
    k = ord(raw.upper()) - ord("A")
    if k >= n:
        return ChoiceVerdict(None, "no-option", f"letter {raw.upper()} is not an option", f)
    lab = LETTERS[k]
    return ChoiceVerdict(lab, "letter", f"the letter of option {lab.value}", f)


def _lead(m: re.Match[str], n: int, f: str, ch: Choices, lex: Lexicon) -> ChoiceVerdict:
    """ "B. MRI", "(B) MRI", "B) MRI": a letter followed by text that must agree with it."""
    raw = m.group(1) or m.group(2) or m.group(3)
    rest = m.group(4)
    v = _letter(raw, n, f, "")
    if v.label is None:
        return v
    if _GOES_ON.match(rest) or any(
        g and g.upper() != raw.upper() for x in _NAMED.finditer(rest) for g in x.groups()
    ):
        return ChoiceVerdict(None, "several", "names another letter after its own", f)
    rr = read_answer(rest, lex)
    if rr.early is not None and rr.early.rule in ("refusal", "hedge", "junk", "truncated"):
        return ChoiceVerdict(None, rr.early.rule, rr.early.reason, f, rr.early.cues)
    said: set[int] = set()
    unsaid: set[int] = set()
    if rr.words:
        for k, neg in _mentions(rr, ch, lex):
            (unsaid if neg else said).add(k)
    k = LETTERS.index(v.label)
    if said == {k} and not unsaid:
        why = f"the letter and the words of option {v.label.value}"
        return ChoiceVerdict(v.label, "letter and text", why, f, matched=(ch.texts[k],))
    if said or unsaid:
        return ChoiceVerdict(None, "contradiction", "the letter and the words disagree", f)
    if m.group(3) and f.lstrip("*_ ")[1:2] == "." and rest[:1].islower():
        # "A. fumigatus": an abbreviated genus, not option A.
        return ChoiceVerdict(
            None, "no-option", "a capital and a full stop before a lower-case word", f
        )
    return v


def _letters_in(f: str, n: int) -> tuple[set[int], set[int], list[str]]:
    """Letters the focus chooses and letters it denies ("not A or C")."""
    chosen: set[int] = set()
    denied: set[int] = set()
    cues: list[str] = []
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


@lru_cache(maxsize=4096)
def _phrases(ch: Choices, lex: Lexicon) -> tuple[PhraseSet, dict[tuple[str, ...], int]]:
    """The phrases that name each option (built once per set of options)."""
    owner: dict[tuple[str, ...], set[int]] = {}
    for k, words in enumerate(ch.words):
        forms = {words, tuple(w for w in words if w not in lex.stopwords)}
        forms.add(tuple(w for w in words if w not in lex.stopwords and w not in lex.generic))
        for p in forms:
            if p:
                owner.setdefault(p, set()).add(k)
    own = {p: next(iter(ks)) for p, ks in owner.items() if len(ks) == 1}
    return PhraseSet(own), own


def _mentions(r: Reading, ch: Choices, lex: Lexicon) -> list[tuple[int, bool]]:
    """(option index, negated) for each mention of an option's words, longest first."""
    return [(k, neg) for k, neg, _, _ in _spans(r, ch, lex)]


def _spans(r: Reading, ch: Choices, lex: Lexicon) -> list[tuple[int, bool, int, int]]:
    """(option index, negated, first word, end word) of each mention."""
    phrases, own = _phrases(ch, lex)
    words = r.words
    out: list[tuple[int, bool, int, int]] = []
    found = phrases.find(words)
    for n, (i, j) in enumerate(found):
        k = own[words[i:j]]
        h = Hit(Label.A, i, j - 1, r.starts[i], r.ends[j - 1], "word")
        neg = _cue_before(r, h, lex) is not None or _cue_after(r, j, lex, ch.state_question)
        if not neg and n > 0:
            # "not the liver or the spleen": a denial carries over "or".
            pi, pj = found[n - 1]
            between = words[pj:i]
            if (
                out[-1][1]
                and between
                and all(w in ("or", "nor", "the", "a", "an") for w in between)
            ):
                neg = "or" in between or "nor" in between
        out.append((k, neg, i, j))
    return out


def _stray_items(r: Reading, spans: list[tuple[int, bool, int, int]], lex: Lexicon) -> str:
    """ "Liver, Top": a list of fragments, some of them no option (an answer to another
    question, or several answers)."""
    if not r.breaks or len(r.words) > 8 or _LETTER_TAIL.search(r.focus):
        return ""
    parts = [p for p in re.split(r"[,;/\n]", r.focus) if p.strip()]
    if len(parts) < 2 or any(len(p.split()) > 3 for p in parts):
        return ""
    if any(w in _NEGATORS or w in lex.q_verbs or w in lex.stopwords for w in r.words):
        return ""  # a sentence ("MRI, not CT"), not a list of fragments
    taken = {i for _, _, a, b in spans for i in range(a, b)}
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
        nxt = r.words[b]
        if nxt not in lex.stopwords and nxt not in lex.q_verbs and nxt not in lex.generic:
            if nxt.isalpha() and not any(nxt in w for w in ch.words):
                return f"names option {LETTERS[k].value} only as a modifier of '{nxt}'"
    return ""


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


def _longer_option(
    said: set[int], r: Reading, ch: Choices, lex: Lexicon, denied: set[int]
) -> int | None:
    """An option that holds a named one's words and whose other words the answer also says
    (outside the mentions it denies)."""
    present = {w for i, w in enumerate(r.words) if i not in denied}
    for k in said:
        mine = set(ch.words[k])
        for other, words in enumerate(ch.words):
            if other == k or other in said or not mine < set(words):
                continue
            extra = set(words) - mine - lex.stopwords
            if extra & present:
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
