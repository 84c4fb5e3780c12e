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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache

_WORD = re.compile(r"[^\W_]+")
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
_JOINABLE_GAP = re.compile(r"[\s\-]{1,3}")


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


def raw_words(text: str) -> list[Tok]:
    """Lower-cased word tokens with their spans; contractions expanded."""
    out: list[Tok] = []
    for m in _WORD.finditer(text):
        w = m.group().lower()
        if w == "t" and out and out[-1].text in _CONTRACTIONS and out[-1].end == m.start() - 1:
            prev = out.pop()
            for part in _CONTRACTIONS[prev.text]:
                out.append(Tok(part, prev.start, m.end()))
            continue
        out.append(Tok(w, m.start(), m.end()))
    return out


class Canonicalizer:
    """Turns text into canonical tokens: case, prefixes, plurals, then synonym phrases."""

    def __init__(
        self,
        *,
        join_prefixes: Iterable[str] = (),
        synonyms: Mapping[tuple[str, ...], tuple[str, ...]] | None = None,
        case_sensitive: Mapping[str, tuple[str, ...]] | None = None,
        no_fold: Iterable[str] = (),
    ) -> None:
        self.join_prefixes = frozenset(join_prefixes)
        self.case_sensitive = dict(case_sensitive or {})
        keep = frozenset(no_fold)
        self.lemmas: Mapping[str, str] = _Guarded(lemma_table(), keep) if keep else lemma_table()
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

    def base(self, text: str) -> list[Tok]:
        """Tokens with case folded, prefixes joined and plurals folded (no synonyms)."""
        words = raw_words(text)
        if self.case_sensitive:
            words = self._apply_case_sensitive(text, words)
        out: list[Tok] = []
        i, n = 0, len(words)
        lemmas = self.lemmas
        while i < n:
            w = words[i]
            if (
                w.text in self.join_prefixes
                and i + 1 < n
                and words[i + 1].text.isalpha()
                and _JOINABLE_GAP.fullmatch(text, w.end, words[i + 1].start) is not None
            ):
                nxt = words[i + 1]
                out.append(Tok(_fold_plural(w.text + nxt.text, lemmas), w.start, nxt.end))
                i += 2
                continue
            out.append(Tok(_fold_plural(w.text, lemmas), w.start, w.end))
            i += 1
        return out

    def _apply_case_sensitive(self, text: str, words: list[Tok]) -> list[Tok]:
        out: list[Tok] = []
        for w in words:
            repl = self.case_sensitive.get(text[w.start : w.end])
            if repl is None:
                out.append(w)
            else:
                out.extend(Tok(r, w.start, w.end) for r in repl)
        return out

    def canon(self, text: str) -> list[Tok]:
        """Canonical tokens: `base` plus synonym phrases replaced, longest match first."""
        toks = self.base(text)
        if not self.synonyms:
            return toks
        out: list[Tok] = []
        i, n = 0, len(toks)
        syn, lengths = self.synonyms, self._lengths
        while i < n:
            cands = lengths.get(toks[i].text)
            if cands:
                for length in cands:
                    if i + length > n:
                        continue
                    key = tuple(t.text for t in toks[i : i + length])
                    repl = syn.get(key)
                    if repl is not None:
                        start, end = toks[i].start, toks[i + length - 1].end
                        out.extend(Tok(r, start, end) for r in repl)
                        i += length
                        break
                else:
                    out.append(toks[i])
                    i += 1
                continue
            out.append(toks[i])
            i += 1
        return out

    def words(self, text: str) -> tuple[str, ...]:
        """Canonical token texts only."""
        return tuple(t.text for t in self.canon(text))


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
        for p in self._by_first.get(words[i], ()):
            if words[i : i + len(p)] == p:
                return p
        return None

    def find(self, words: tuple[str, ...]) -> list[tuple[int, int]]:
        """Non-overlapping (start, end) token ranges of phrases, scanning left to right."""
        out: list[tuple[int, int]] = []
        i, n = 0, len(words)
        while i < n:
            p = self.match_at(words, i) if words[i] in self._by_first else None
            if p:
                out.append((i, i + len(p)))
                i += len(p)
            else:
                i += 1
        return out

    def __contains__(self, phrase: object) -> bool:
        return phrase in self.phrases

    def __bool__(self) -> bool:
        return bool(self.phrases)
