"""The reasoning check of multiple-choice answers: what a chain of thought, a ``<think>``
block or the text before the final answer says of the options (the ones it settles on,
chooses, denies or eliminates, that it cannot tell), after its last self-correction, and
whether that contradicts the option the answer chooses."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from ..kinds import LETTERS
from ..lexicon import Lexicon
from .choice_letters import _BOLD_MARK, _BRACKET_LABEL, _has_letter, _letters_in, _split_sentences
from .choice_options import _ALPHA, _info
from .choice_vocab import _Vocab, _vocab
from .choice_words import _every_option, _expand, _other_option_words, _partial, _reread, _spans
from .choices import Choices
from .reading import _NEGATORS, Reading, clause_start

# A reasoning that goes through the options by letter ("Option B, pneumothorax, shows ...").
_DISCUSSES = re.compile(r"(?i:option|choice)\s+[A-Ha-h]\b|[A-H][)\]:](?=\s)")
# Sentences of a focus (a last one that commits to a letter is the answer).
_SENTENCE_STOP = re.compile(r"[.!?\n]")
_MODAL_BEFORE = re.compile(r"\b(?:may|might|could|can|would)\s+(?:\w+\s+)?$", re.I)
_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.I | re.S)
_ANSWER_TAG = re.compile(r"<answer>.*?(?:</answer>|$)", re.I | re.S)


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
    if facts.partial and not facts.said and not facts.chosen and k not in facts.partial:
        # "... this is Neisseria. Answer: B": the reasoning names option C by its own word.
        return f"the reasoning names option {LETTERS[min(facts.partial)].value}"
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
    partial: frozenset[int]  # options named by their own words only ("Neisseria", "ectopic")


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
    partial = frozenset(p.partial for p in parts if p.partial is not None)
    return _Facts(
        any(p.undecided for p in parts),
        frozenset(chosen),
        frozenset(denied),
        last_denial,
        frozenset(settled),
        any(p.every_denied for p in parts),
        frozenset(said),
        lone,
        partial,
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
    partial: int | None  # the option a sentence that names none in full names by its own words


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
    hedged = bool(lex.hedge.find(rx.words))
    partial = None
    if not spans and not hedged and not lex.conditional.find(rx.words):
        partial = _partial(rx, spans, ch, lex, info, voc)
        if partial is not None and rx.words[-1] not in ch.words[partial]:
            partial = None  # only a sentence that ends on the option's word concludes it
    return _Part(
        rx,
        spans,
        frozenset(_hypothetical(rx, lex)) if spans else frozenset(),
        frozenset(_concluded(rx, spans, voc)),
        frozenset(chosen),
        frozenset(denied),
        bool(voc.undecided.find(rr.words)),
        _every_option(rx, voc) == "deny",
        hedged,
        bool(_DISCUSSES.search(sentence)),
        partial,
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
