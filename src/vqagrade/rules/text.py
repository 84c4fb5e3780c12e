"""Tokens and canonical forms: the one place where wording is normalised.

Questions, options, answers and lexicon phrases all pass through the same canonicaliser, so a
synonym, an abbreviation, a plural or a British spelling lands on the same token everywhere.
spaCy's English lemma lookup table (from spacy-lookups-data) folds plurals; a regex tokenizer
is used instead of a spaCy pipeline because it is ~10x faster on this hot path (2.7 us vs
32 us per sentence, measured) and needs no model.
"""

from __future__ import annotations

import gzip
import importlib.resources
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache

# Words that join the two ends of a span of numerals ("grade ii to iii").
_SPAN_JOINS = frozenset({"to", "or", "and"})
# Splitting on a capturing group gives separators and words alternately; their lengths give
# every span without building a match object per word.
_WORD_SPLIT = re.compile(r"([^\W_]+)")
_WORD_SPLIT_ASCII = re.compile(r"([a-z0-9]+)")  # the same on lower-cased ASCII text
# Contractions split by the tokenizer ("isn't" -> "isn", "t"), mapped back to words.
_CONTRACTIONS = {
    "can": ("cannot",),
    "don": ("do", "not"),
    "doesn": ("does", "not"),
    "didn": ("did", "not"),
    "isn": ("is", "not"),
    "aren": ("are", "not"),
    "wasn": ("was", "not"),
    "weren": ("were", "not"),
    "won": ("will", "not"),
    "wouldn": ("would", "not"),
    "couldn": ("could", "not"),
    "shouldn": ("should", "not"),
    "haven": ("have", "not"),
    "hasn": ("has", "not"),
    "hadn": ("had", "not"),
}
_PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she", "it", "one"})
_PRONOUN_CONTRACTIONS = {"d": "would", "ll": "will"}
_CONTRACTED = frozenset(_PRONOUN_CONTRACTIONS)
_JOINABLE_GAP = re.compile(r"[\s\-]{1,3}")
# A suspended hyphen: "hypo- to anechoic", "pre- and post-contrast".
_SUSPENDED = re.compile(r"-\s+")
# The shortest combining form joined across a hyphen ("neuro-", "tubulo-"; not "two-").
_COMBINING_MIN = 5
# A separator inside a spinal level: "L4-L5", "L4\u20135", "L4/5", "C6 - 7".
_LEVEL_GAP = re.compile(r"\s?[-\u2010\u2011\u2013\u2014/]\s?")


@dataclass(frozen=True, slots=True)
class Tok:
    """A canonical token and the character span of the source text it stands for."""

    text: str
    start: int
    end: int


@cache
def lemma_table() -> Mapping[str, str]:
    """spaCy's English lemma lookup table (inflected form -> lemma)."""
    path = importlib.resources.files("spacy_lookups_data") / "data" / "en_lemma_lookup.json.gz"
    with path.open("rb") as fh:
        table: dict[str, str] = json.loads(gzip.decompress(fh.read()))
    return table


@cache
def norm_table() -> Mapping[str, str]:
    """spaCy's English spelling norms, single lower-case words only (colour -> color)."""
    path = importlib.resources.files("spacy_lookups_data") / "data" / "en_lexeme_norm.json.gz"
    with path.open("rb") as fh:
        table: dict[str, str] = json.loads(gzip.decompress(fh.read()))
    return {k: v for k, v in table.items() if k.islower() and k.isalpha() and v.isalpha()}


def _fold_plural(word: str, lemmas: Mapping[str, str]) -> str:
    """Singular of a plural noun; other words are left alone ("left" must not become "leave")."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("s"):
        if word.endswith(("ss", "us", "is")):
            return word
    elif not word.endswith(("i", "ae")):
        return word
    return lemmas.get(word, word)


class _Guarded(Mapping[str, str]):
    """A lemma table that leaves some words alone."""

    def __init__(self, table: Mapping[str, str], keep: frozenset[str]) -> None:
        self.table, self.keep = table, keep

    def __getitem__(self, key: str) -> str:
        if key in self.keep:
            return key
        return self.table[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)


def _expand_contractions(
    raw: list[str], starts: list[int], ends: list[int]
) -> tuple[list[str], list[int], list[int]]:
    r2: list[str] = []
    s2: list[int] = []
    e2: list[int] = []
    for w, a, b in zip(raw, starts, ends, strict=True):
        if w == "t" and r2 and r2[-1] in _CONTRACTIONS and e2[-1] == a - 1:
            prev, pa = r2.pop(), s2.pop()
            e2.pop()
            for part in _CONTRACTIONS[prev]:
                r2.append(part)
                s2.append(pa)
                e2.append(b)
            continue
        if w in _PRONOUN_CONTRACTIONS and r2 and r2[-1] in _PRONOUNS and e2[-1] == a - 1:
            w = _PRONOUN_CONTRACTIONS[w]  # "I'd need" is "I would need" ("I'd" rarely "I had")
        r2.append(w)
        s2.append(a)
        e2.append(b)
    return r2, s2, e2


class Canonicalizer:
    """Turns text into canonical tokens: case, prefixes, plurals, then synonym phrases."""

    def __init__(
        self,
        *,
        join_prefixes: Iterable[str] = (),
        hyphen_prefixes: Iterable[str] = (),
        synonyms: Mapping[tuple[str, ...], tuple[str, ...]] | None = None,
        case_sensitive: Mapping[str, tuple[str, ...]] | None = None,
        no_fold: Iterable[str] = (),
        spelling: Mapping[str, str] | None = None,
        level_prefixes: Iterable[str] = (),
        numbered: Iterable[str] = (),
        roman: Mapping[str, str] | None = None,
        pair_prefixes: Iterable[str] = (),
        suspension_links: Iterable[str] = (),
    ) -> None:
        self.join_prefixes = frozenset(join_prefixes)
        # Prefixes that are words too ("radio", Spanish radius): glued across a hyphen only.
        self._hyphen_only = frozenset(hyphen_prefixes)
        self._links = frozenset(suspension_links)
        # Prefixes that take a stem only when suspended ("macro- and microvesicular").
        self._pair_prefixes = frozenset(pair_prefixes)
        # Prefixes a suspended one may borrow its stem from ("hypo- to anechoic"), longest
        # first so "an" wins over "a".
        self._stem_prefixes = tuple(
            sorted(self.join_prefixes | frozenset(pair_prefixes), key=len, reverse=True)
        )
        # Notation: spinal levels become one word ("L4-5" -> "l4_l5"); roman numerals after
        # a numbered word become arabic ("grade II" -> "grade 2").
        self.numbered = frozenset(numbered)
        # Every word that sends `base_arrays` off its common path (a numbered word, a prefix
        # to join): most answers hold none, decided in one pass over their words.
        self._raw_cues = self.numbered | self.join_prefixes | self._pair_prefixes
        self.roman = dict(roman or {})
        letters = "".join(sorted({p.lower() for p in level_prefixes}))
        # Opens with a digit: letters are everywhere in answers, digits are rare.
        self._level_probe = (
            re.compile(rf"\d\s?[-\u2010\u2011\u2013\u2014/]\s?[{letters}]?\d") if letters else None
        )
        # The same on ASCII text, where \d is [0-9]: a plain character class is scanned for
        # several times faster than the Unicode digit category.
        self._level_probe_ascii = (
            re.compile(rf"[0-9]\s?[-\u2010\u2011\u2013\u2014/]\s?[{letters}]?[0-9]")
            if letters
            else None
        )
        self._level_letters = frozenset(letters)
        self.case_sensitive = dict(case_sensitive or {})
        keep = frozenset(no_fold)
        self.lemmas: Mapping[str, str] = _Guarded(lemma_table(), keep) if keep else lemma_table()
        self._folds: dict[str, str] = {}
        # British -> American: spaCy's lexeme-norm table, then the lexicons' own spellings.
        self.spelling: dict[str, str] = {**norm_table(), **(spelling or {})}
        probes = sorted(self.case_sensitive, key=len, reverse=True)
        # Whole words only: "L" must not fire on every capital L in "Left".
        alternatives = "|".join(re.escape(p) for p in probes)
        # The word boundary before a probe is checked in Python: a pattern that opens with a
        # lookbehind is tried at every position (measured 4x slower on typical answers).
        self._cs_probe = re.compile(r"(?:" + alternatives + r")(?![\w/])") if probes else None
        self.synonyms: dict[tuple[str, ...], tuple[str, ...]] = {}
        # first token -> phrase lengths present, longest first (bounds the lookups per token)
        self._lengths: dict[str, list[int]] = {}
        for variant, canonical in (synonyms or {}).items():
            self.add_synonym(variant, canonical)

    def add_synonym(self, variant: tuple[str, ...], canonical: tuple[str, ...]) -> None:
        """Register a variant token sequence (already base-normalised) for a canonical one."""
        if not variant or variant == canonical:
            return
        self.synonyms[variant] = canonical
        lengths = self._lengths.setdefault(variant[0], [])
        if len(variant) not in lengths:
            lengths.append(len(variant))
            lengths.sort(reverse=True)

    def _fold(self, word: str) -> str:
        folded = self._folds.get(word)
        if folded is None:
            folded = _fold_plural(self.spelling.get(word, word), self.lemmas)
            if len(self._folds) > 500_000:  # bounded: memory stays flat on huge inputs
                self._folds.clear()
            self._folds[word] = folded
        return folded

    def base_arrays(self, text: str) -> tuple[list[str], list[int], list[int]]:
        """Words with case folded, prefixes joined and plurals folded, plus their spans.

        Parallel lists rather than `Tok` objects: this is the per-answer hot path.
        """
        low = text.lower()
        if len(low) != len(text):  # a few Unicode letters change length when lower-cased
            low = "".join(c.lower()[:1] or c for c in text)
        ascii_text = low.isascii()
        # Lower-cased ASCII text: [^\W_] is [a-z0-9], a plain character set (~20% faster).
        parts = (_WORD_SPLIT_ASCII if ascii_text else _WORD_SPLIT).split(low)
        if len(parts) == 1:
            return [], [], []
        # parts: separator, word, separator, ..., word, separator. A plain loop (native code
        # when compiled) rather than a list of running sums sliced twice.
        raw = parts[1::2]
        starts: list[int] = []
        ends: list[int] = []
        pos = len(parts[0])
        for k in range(1, len(parts) - 1, 2):
            starts.append(pos)
            pos += len(parts[k])
            ends.append(pos)
            pos += len(parts[k + 1])
        if "t" in raw or ("'" in low and not _CONTRACTED.isdisjoint(raw)):
            raw, starts, ends = _expand_contractions(raw, starts, ends)
        if ascii_text:
            # In ASCII text a level's separator is "-" or "/": most answers hold neither.
            probe = self._level_probe_ascii if "-" in low or "/" in low else None
        else:
            probe = self._level_probe
        if probe is not None and probe.search(low) is not None:
            raw, starts, ends = self._join_levels(low, raw, starts, ends)
        # None of the cues: no numeral to convert and, unless `raw` changes below, no prefix.
        quiet = self._raw_cues.isdisjoint(raw)
        if not quiet and self.roman and not self.numbered.isdisjoint(raw):
            raw = self._arabic(raw)
        if self._cs_probe is not None and self._has_case_sensitive(text):
            raw, starts, ends = self._apply_case_sensitive(text, raw, starts, ends)
            quiet = False
        join, fold, folds = self.join_prefixes, self._fold, self._folds
        combining = "o-" in low
        pairs = self._pair_prefixes if "- " in low else frozenset()
        if not combining and (quiet or (join.isdisjoint(raw) and pairs.isdisjoint(raw))):
            # The common case: no prefix to glue, one lookup per word.
            return [folds.get(w) or fold(w) for w in raw], starts, ends
        words: list[str] = []
        ws: list[int] = []
        we: list[int] = []
        i, n = 0, len(raw)
        while i < n:
            w = raw[i]
            if (
                combining
                and len(w) >= _COMBINING_MIN
                and w[-1] == "o"
                and i + 1 < n
                and ends[i] + 1 == starts[i + 1]
                and low[ends[i]] == "-"
                and w.isalpha()
                and raw[i + 1].isalpha()
            ):
                # A combining form written with a hyphen is one word: "tubulo-villous" =
                # "tubulovillous", "antero-posterior" = "anteroposterior".
                words.append(fold(w + raw[i + 1]))
                ws.append(starts[i])
                we.append(ends[i + 1])
                i += 2
                continue
            if (
                (w in join or w in pairs)
                and i + 1 < n
                and _SUSPENDED.fullmatch(low, ends[i], starts[i + 1])
            ):
                # "hypo- to anechoic", "pre- and post-contrast": a suspended prefix takes the
                # stem of the word after the connector; unread, it stands alone.
                words.append(fold(w + self._stem(raw, i)))
                ws.append(starts[i])
                we.append(ends[i])
                i += 1
                continue
            if w in join and i + 1 < n and raw[i + 1] in self._links:
                # "hyper or hypointense", "mono or polymorphic": a prefix before "or" is
                # suspended without its hyphen; never glued to the connector ("hyperor").
                words.append(fold(w + self._stem(raw, i)))
                ws.append(starts[i])
                we.append(ends[i])
                i += 1
                continue
            if (
                w in join
                and i + 1 < n
                and raw[i + 1].isalpha()
                and _JOINABLE_GAP.fullmatch(low, ends[i], starts[i + 1]) is not None
                and (w not in self._hyphen_only or "-" in low[ends[i] : starts[i + 1]])
            ):
                words.append(fold(w + raw[i + 1]))
                ws.append(starts[i])
                we.append(ends[i + 1])
                i += 2
                continue
            words.append(fold(w))
            ws.append(starts[i])
            we.append(ends[i])
            i += 1
        return words, ws, we

    def _stem(self, raw: list[str], i: int) -> str:
        """The stem a suspended prefix `raw[i]` shares with the word after its connector
        ("echoic" of "anechoic" in "hypo- to anechoic"), or "" when there is none."""
        if i + 2 >= len(raw) or raw[i + 1] not in self._links:
            return ""
        nxt = raw[i + 2]
        for p in self._stem_prefixes:
            if nxt.startswith(p) and len(nxt) > len(p) + 3 and p != raw[i]:
                return nxt[len(p) :]
        return ""

    def _level(self, w: str) -> bool:
        return len(w) >= 2 and w[0] in self._level_letters and w[1:].isdigit()

    def _join_levels(
        self, low: str, raw: list[str], starts: list[int], ends: list[int]
    ) -> tuple[list[str], list[int], list[int]]:
        """ "L4-L5", "L4-5", "L4/5", "C6\u20137" -> one word "l4_l5" ("c6_c7")."""
        r2: list[str] = []
        s2: list[int] = []
        e2: list[int] = []
        i, n = 0, len(raw)
        while i < n:
            w = raw[i]
            if (
                i + 1 < n
                and self._level(w)
                and (raw[i + 1].isdigit() or self._level(raw[i + 1]))
                and _LEVEL_GAP.fullmatch(low, ends[i], starts[i + 1]) is not None
            ):
                nxt = raw[i + 1]
                r2.append(f"{w}_{w[0] + nxt if nxt.isdigit() else nxt}")
                s2.append(starts[i])
                e2.append(ends[i + 1])
                i += 2
                continue
            r2.append(w)
            s2.append(starts[i])
            e2.append(ends[i])
            i += 1
        return r2, s2, e2

    def _arabic(self, raw: list[str]) -> list[str]:
        """Roman numerals after a numbered word as arabic ("grade iv" -> "grade 4"), and
        the numerals that continue a span of them ("grade ii-iii", "grade ii to iii")."""
        out = list(raw)
        converted = -2  # the index of the last numeral read as arabic
        for k in range(1, len(out)):
            prev = out[k - 1]
            after_numeral = converted == k - 1 or (converted == k - 2 and prev in _SPAN_JOINS)
            if prev in self.numbered or after_numeral:
                arabic = self.roman.get(out[k])
                if arabic is not None:
                    out[k] = arabic
                    converted = k
        return out

    def _has_case_sensitive(self, text: str) -> bool:
        assert self._cs_probe is not None
        for m in self._cs_probe.finditer(text):
            a = m.start()
            if a == 0 or not (text[a - 1].isalnum() or text[a - 1] in "_/"):
                return True
        return False

    def _apply_case_sensitive(
        self, text: str, raw: list[str], starts: list[int], ends: list[int]
    ) -> tuple[list[str], list[int], list[int]]:
        r2: list[str] = []
        s2: list[int] = []
        e2: list[int] = []
        for w, a, b in zip(raw, starts, ends, strict=True):
            repl = self.case_sensitive.get(text[a:b])
            for r in repl or (w,):
                r2.append(r)
                s2.append(a)
                e2.append(b)
        return r2, s2, e2

    def canon_arrays(self, text: str) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
        """Canonical words and spans: `base_arrays` plus synonym phrases, longest first."""
        words, starts, ends = self.base_arrays(text)
        lengths = self._lengths
        if not lengths or lengths.keys().isdisjoint(words):
            return tuple(words), tuple(starts), tuple(ends)
        syn = self.synonyms
        ow: list[str] = []
        os_: list[int] = []
        oe: list[int] = []
        # Words up to `copied` are in the output; the runs between replacements are copied
        # as slices, not word by word.
        copied = 0
        i, n = 0, len(words)
        while i < n:
            cands = lengths.get(words[i])
            if cands:
                for length in cands:
                    if i + length > n:
                        continue
                    repl = syn.get(tuple(words[i : i + length]))
                    if repl is not None:
                        ow.extend(words[copied:i])
                        os_.extend(starts[copied:i])
                        oe.extend(ends[copied:i])
                        a, b = starts[i], ends[i + length - 1]
                        for r in repl:
                            ow.append(r)
                            os_.append(a)
                            oe.append(b)
                        i += length
                        copied = i
                        break
                else:
                    i += 1
                continue
            i += 1
        if not copied:  # no phrase replaced
            return tuple(words), tuple(starts), tuple(ends)
        ow.extend(words[copied:])
        os_.extend(starts[copied:])
        oe.extend(ends[copied:])
        return tuple(ow), tuple(os_), tuple(oe)

    def base(self, text: str) -> list[Tok]:
        """Tokens with case folded, prefixes joined and plurals folded (no synonyms)."""
        return [Tok(w, a, b) for w, a, b in zip(*self.base_arrays(text), strict=True)]

    def canon(self, text: str) -> list[Tok]:
        """Canonical tokens: `base` plus synonym phrases replaced, longest match first."""
        return [Tok(w, a, b) for w, a, b in zip(*self.canon_arrays(text), strict=True)]

    def words(self, text: str) -> tuple[str, ...]:
        """Canonical token texts only."""
        return self.canon_arrays(text)[0]


class PhraseSet:
    """A set of canonical token phrases, found in token lists longest-first."""

    def __init__(self, phrases: Iterable[tuple[str, ...]] = ()) -> None:
        self._by_first: dict[str, list[tuple[str, ...]]] = {}
        self.phrases: set[tuple[str, ...]] = set()
        for p in phrases:
            self.add(p)

    def add(self, phrase: tuple[str, ...]) -> None:
        """Add one phrase (empty phrases are ignored)."""
        if not phrase or phrase in self.phrases:
            return
        self.phrases.add(phrase)
        bucket = self._by_first.setdefault(phrase[0], [])
        bucket.append(phrase)
        bucket.sort(key=len, reverse=True)

    def match_at(self, words: tuple[str, ...], i: int) -> tuple[str, ...] | None:
        """The longest phrase starting at position i, if any."""
        bucket = self._by_first.get(words[i])
        if bucket is None:
            return None
        for p in bucket:
            k = len(p)
            if k == 1:
                return p  # a bucket holds the phrases whose first word is words[i]
            if i + k <= len(words) and words[i + 1] == p[1] and words[i : i + k] == p:
                return p
        return None

    def find(
        self, words: tuple[str, ...], wordset: frozenset[str] | None = None
    ) -> list[tuple[int, int]]:
        """Non-overlapping (start, end) token ranges of phrases, scanning left to right.

        `wordset`: the set of `words` (or a superset), when the caller has it: the common
        case, no phrase's first word there, is then decided by looking up the fewer of the
        two sets' members, not every word."""
        if self._by_first.keys().isdisjoint(words if wordset is None else wordset):
            return []
        out: list[tuple[int, int]] = []
        i, n = 0, len(words)
        while i < n:
            p = self.match_at(words, i)
            if p:
                out.append((i, i + len(p)))
                i += len(p)
            else:
                i += 1
        return out

    @property
    def phrases_words(self) -> frozenset[str]:
        """Every word of every phrase."""
        return frozenset(w for p in self.phrases for w in p)

    def __contains__(self, phrase: object) -> bool:
        return phrase in self.phrases

    def __bool__(self) -> bool:
        return bool(self.phrases)


# A closing instruction to answer yes or no ("Answer yes or no.", "Please reply with 'yes' or
# 'no'.", "(yes/no)"): it offers no alternatives, the question before it is a polar one.
_ANSWER_INSTRUCTION = re.compile(
    r"\s*(?:\(\s*yes\s*/\s*no\s*\)|(?:please\s+)?(?:answer|reply|respond)(?:\s+with)?"
    r"(?:\s+(?:only|just))?\s*['\"]?yes['\"]?\s*(?:or|/)\s*['\"]?no['\"]?(?:\s+only)?)\s*[.!:]?\s*$",
    re.I,
)


def strip_answer_instruction(question: str) -> str:
    """The question without a closing "Answer yes or no." instruction."""
    if "yes" not in question.lower():
        return question
    cut = _ANSWER_INSTRUCTION.sub("", question)
    return cut if cut.strip() else question


def fold_cognate(word: str) -> str:
    """A word in a form shared by its cognates in European languages ("neumoperitoneo",
    "pneumoperitoneum" -> "neumoperitone..."): accents, "ph", "th", "y", "k" and doubled
    letters folded."""
    w = unicodedata.normalize("NFKD", word.lower())
    w = "".join(c for c in w if c.isalpha() and c.isascii())
    if w.startswith(("pn", "ps")):
        w = w[1:]
    w = w.replace("ph", "f").replace("th", "t").replace("y", "i").replace("k", "c")
    return re.sub(r"(.)\1", r"\1", w)


def cognate(english: str, word: str) -> bool:
    """Whether an answer word in another language is the English word's cognate ("hernie"
    for "hernia", "fractura" for "fracture"; a German compound holding it counts)."""
    a, b = fold_cognate(english), fold_cognate(word)
    if len(a) < 5 or len(b) < 5:
        return False
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    if n >= max(5, int(0.7 * min(len(a), len(b)))):
        return True
    return len(b) >= 12 and a[:6] in b
