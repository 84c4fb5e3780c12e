"""The vocabulary of multiple-choice answers: the `[multiple_choice]` lists of a lexicon
(lexicons/multiple_choice.toml), canonicalised and compiled once per lexicon, and the test
of a content word."""

from __future__ import annotations

import re
from functools import lru_cache

from ..lexicon import Lexicon
from .reading import _NEGATORS
from .text import PhraseSet


class _Vocab:
    """The `[multiple_choice]` lists of a lexicon, canonicalised or compiled once."""

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
        # "The appendix is not visualized": an option said not to be seen is not chosen.
        self.unassessed = lex.unassessed
        # With the words after which the canonical form turns a roman numeral into digits
        # ("Forrest IIa" reads "forrest 2a"): the numeral after them is a grade.
        self.grade_words = frozenset(
            w for p in lists.get("multiple_choice.grade_words", ()) for w in lex.canon.words(p)
        ) | frozenset(lex.canon.numbered)
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


@lru_cache(maxsize=8)
def _part_words(lex: Lexicon) -> frozenset[str]:
    """Words that name a part of an organ ("parenchyma", "lobe", "pole", "tail")."""
    listed = lex.lists.get("multiple_choice.part_nouns", ())
    return frozenset(w for ws in lex.parts.values() for w in ws) | frozenset(
        w for p in listed for w in lex.canon.words(p)
    )
