"""What labelling a multiple-choice answer needs to know of a set of options, read once per
set: the phrases that name each option and the words only it has, the grades, initialisms
and acronyms that stand for options, "All/None of the above" and "Both A and B", options
that are ranges of a measure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..lexicon import Lexicon
from .choice_vocab import _content, _vocab
from .choices import Choices
from .text import PhraseSet

_ALPHA = re.compile(r"[^\W\d_]{2,}")
_ROMAN = re.compile(r"^(x?)(ix|iv|v?i{0,3})([a-c]?)$")
_ROMAN_VALUES = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8,
                 "ix": 9}  # fmt: skip
_NUMBER = re.compile(r"^(\d{1,2})([a-c]?)$")
_UPPER = re.compile(r"^[A-Z]{2,6}$")
_LEVEL = re.compile(r"^[ctls]\d{1,2}$")
# A genus and a species ("Cryptococcus neoformans", "Escherichia coli").
_BINOMIAL = re.compile(
    r"[A-Z][a-z]{3,}(?:us|a|um|as|es|is|ia) [a-z]{3,}(?:us|is|ae|um|i|a|ans|ens|es)"
)


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


def _subsequence(short: str, long: str) -> bool:
    """Whether the letters of `short` appear in `long` in order ("asd" in "avsd")."""
    it = iter(long)
    return all(c in it for c in short)


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
    capitals: dict[str, int] = {}  # every capitalised option token -> its option
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
                capitals[t.lower()] = k
                cw = lex.canon.words(t)
                if len(cw) == 1:
                    acronyms[t.lower()] = (cw[0], k)
    # "ASD" beside "AVSD": "atrioventricular septal defect" spells both, one word holding two
    # letters; an acronym inside another option's is not read from a phrase's initials.
    acronyms = {
        a: v
        for a, v in acronyms.items()
        if not any(b != a and v[1] != o and _subsequence(a, b) for b, o in capitals.items())
    }
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
