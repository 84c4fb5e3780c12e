"""Negation scoped to each mention: a cue before it in its clause ("not the left"), or right
after it ("the radius is intact"), carried over coordinated mentions ("no X or Y").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from ..labels import Label
from ..lexicon import Lexicon
from .options import Options, stem
from .reading import (
    _COORD,
    _NEG_WINDOW,
    _POST_GAP,
    Hit,
    Reading,
    clause_end,
    clause_start,
)

# Words as written (letters only), for marks compared without synonyms.
_LETTERS = re.compile(r"[^\W\d_]+")


def negate(
    r: Reading, hits: list[Hit], opts: Options, lex: Lexicon
) -> tuple[list[Hit], set[Label]]:
    """Mark mentions denied by a cue before them in their clause, or right after them.

    Returns the marked mentions and, for questions that ask which one is normal, the
    options confirmed by a state cue ("the left kidney is normal").
    """
    words = r.words
    out: list[Hit] = []
    confirmed: set[Label] = set()
    for h in hits:
        cue = (
            _cue_before(r, h, lex)
            or _finding_denied(r, h, opts, lex)
            or _denied_there(r, h, hits, opts, lex)
        )
        if cue is None:
            cue, state = _cue_after(r, h, hits, opts, lex)
            if cue is None and (opts.abnormal_question or opts.state_question):
                cue = _state_before(r, h, lex)
                state = cue is not None
            if state and opts.state_question:
                confirmed.add(h.option)
                cue = None
        out.append(Hit(h.option, h.first, h.last, h.start, h.end, h.via, cue) if cue else h)
    _carry_back(r, out, opts, lex)
    # "no pneumothorax or effusion": a denial carries over coordinated mentions.
    for k in range(1, len(out)):
        prev, cur = out[k - 1], out[k]
        between = words[prev.last + 1 : cur.first]
        if (
            prev.negation
            and not cur.negation
            and all(w in _COORD for w in between)
            and any(w in {"or", "nor"} for w in between)
        ):
            out[k] = Hit(
                cur.option, cur.first, cur.last, cur.start, cur.end, cur.via, prev.negation
            )
    return out, confirmed


def _carry_back(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> None:
    """A cue after the last item of a list denies every item: "tibia and fibula intact",
    "the head, body and tail look unremarkable" (a singular "is ..." does not carry)."""
    words, f = r.words, r.focus
    for k in range(len(hits) - 1, 0, -1):
        prev, cur = hits[k - 1], hits[k]
        cue = cur.negation
        if not cue or prev.negation or cue.split()[0] in lex.grammar["singular_verbs"]:
            continue
        if _cue_before(r, cur, lex) is not None:
            continue  # "left intact, no right ...": a cue before names only its own mention
        between = words[prev.last + 1 : cur.first]
        others = [w for w in between if w not in _COORD]
        gap = f[prev.end : cur.start]
        if (
            len(others) <= 2
            and ("and" in between or "," in gap)
            and all(c.isalpha() or c in " ,-" for c in gap)
            and not any(w in opts.context or stem(w) in opts.context for w in others)
            and ("and" in between or not _finding_before(r, prev, lex))
        ):
            hits[k - 1] = Hit(
                prev.option, prev.first, prev.last, prev.start, prev.end, prev.via, cue
            )


def _finding_before(r: Reading, h: Hit, lex: Lexicon) -> bool:
    """Content words before the mention in its clause ("Fracture of the radius, ulna
    intact", "Fraktur des Radius, Ulna intakt"): the mention is where something is said to
    be, not an item of a bare list of intact parts ("Radius, ulna intact")."""
    lo = clause_start(r, h.start)
    stop = lex.stopwords
    return any(
        r.starts[i] >= lo and r.words[i] not in stop and r.words[i].isalpha()
        for i in range(max(0, h.first - 4), h.first)
    )


def _denied_there(r: Reading, h: Hit, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """ "On the left the gastric bubble makes assessment harder, but no definite free air is
    seen there": after the mention and a contrast, a denial of the question's words said
    of "there", the place just named."""
    words = r.words
    if "there" not in r.wordset:
        return None
    end = r.focus.find(".", h.end)
    stop = len(r.focus) if end < 0 else end
    contrasts = lex.grammar["contrast"] | lex.grammar["concessive"]
    k = h.last + 1
    while k < len(words) and r.starts[k] < stop and words[k] not in contrasts:
        k += 1
    if k >= len(words) or r.starts[k] >= stop:
        return None
    if any(x is not h and h.last < x.first < k for x in hits):
        return None  # "C5-C6, with narrowing at C6-C7 but no compression there"
    rest = [w for m, w in enumerate(words) if m > k and r.starts[m] < stop]
    if "there" not in rest or not any(w in ("no", "not") for w in rest):
        return None
    asked = {w for w in opts.question_outside if w not in opts.a.words + opts.b.words}
    if any(w in asked for w in rest if w not in ("is", "the", "there", "no", "not")):
        return "no … there"
    return None


def _state_after_pair(
    r: Reading, j: int, hi: int, hits: list[Hit], opts: Options, lex: Lexicon
) -> str | None:
    """After "and" and a short second subject that names no option, a plural copula and a
    state ("… and the sensorimotor cortex are relatively preserved"): the state of both."""
    words, ends = r.words, r.ends
    for k in range(j + 1, min(len(words), j + 5)):
        if ends[k] > hi or any(h.first == k for h in hits):
            return None
        if words[k] in ("are", "remain", "appear", "look"):
            for m in (k, k + 1):
                p = lex.neg_after_state.match_at(words, m)
                if p is not None and ends[m + len(p) - 1] <= hi:
                    if not opts.state_question and p[-1] in opts.context:
                        return None
                    return " ".join(p)
            return None
    return None


def _state_before(r: Reading, h: Hit, lex: Lexicon) -> str | None:
    """A state right before the mention that calls it normal ("a normal-sized spleen")."""
    words = r.words
    for n in (2, 1):
        k = h.first - n
        if k < 0 or r.starts[k] < clause_start(r, h.start):
            continue
        p = lex.neg_before_state.match_at(words, k)
        if p is not None and k + len(p) == h.first:
            return " ".join(p)
    return None


def _cue_before(r: Reading, h: Hit, lex: Lexicon) -> str | None:
    """A negation cue before the mention, in its clause and scope ("not the left")."""
    words, starts = r.words, r.starts
    lo = clause_start(r, h.start)
    i = h.first - 1
    pseudo, before = lex.neg_pseudo, lex.neg_before  # attributes of a Python object: once
    while i >= 0 and h.first - i <= _NEG_WINDOW and starts[i] >= lo:
        if pseudo.match_at(words, i) is not None:
            i -= 1  # "not surprisingly", "without doubt", "not only": not a denial
            continue
        for back in (0, 1, 2, 3):  # a cue that ends here ("away from") beats "from" ending scope
            k = i - back
            p = before.match_at(words, k) if k >= 0 and starts[k] >= lo else None
            if p is not None and k + len(p) > i and k + len(p) <= h.first:
                if p == ("no",) and _portuguese(r, lex):
                    continue  # Portuguese "no pulmão esquerdo": "in the", no denial
                return " ".join(p)
        if words[i] in lex.scope_end and not (
            words[i] == "from" and i > 0 and words[i - 1] in lex.from_verbs
        ):
            return None
        i -= 1
    return None


def _finding_denied(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> str | None:
    """A clause that opens by denying the question's finding denies it at the option it
    names further on, however far: "No obvious stone is seen in the left kidney" says
    nothing of a stone in the left kidney but that there is none."""
    words, starts = r.words, r.starts
    lo = clause_start(r, h.start)
    k = bisect_left(starts, lo)
    if (
        k >= h.first
        or words[k] not in ("no", "without")
        or lex.neg_pseudo.match_at(words, k) is not None
    ):
        return None
    option_words = opts.a.words + opts.b.words
    finding = next(
        (
            m
            for m in range(k + 1, min(k + 4, h.first))
            if (words[m] in opts.context or stem(words[m]) in opts.context)
            and words[m] not in option_words
            and words[m] not in lex.stopwords
        ),
        None,
    )
    if finding is None or any(w in lex.scope_end for w in words[finding + 1 : h.first]):
        return None
    return words[k]


def _cue_after(
    r: Reading, h: Hit, hits: list[Hit], opts: Options, lex: Lexicon
) -> tuple[str | None, bool]:
    """A cue right after the mention ("the radius is intact"); (cue, is a state cue)."""
    words, ends = r.words, r.ends
    hi = clause_end(r, h.end)
    colon = hi < len(r.focus) and r.focus[hi] in ":("
    if colon:  # report style: "Left kidney lesion: absent.", "Left kidney (incorrect)."
        hi = clause_end(r, hi + 1)
    j = h.last + 1
    gap = 0
    # Attributes of a Python object, looked up once rather than per word.
    after, after_state, grammar = lex.neg_after, lex.neg_after_state, lex.grammar
    while j < len(words) and ends[j] <= hi:
        p = after.match_at(words, j)
        if p is not None:
            return " ".join(p), False
        p = after_state.match_at(words, j)
        if p is not None and not opts.state_question and p[-1] in opts.context:
            p = None  # "The left lung is collapsed" to "Which lung is collapsed?"
        if p is not None and (opts.abnormal_question or opts.state_question):
            return " ".join(p), True
        if (
            words[j] in ("not", "no")
            and j + 1 < len(words)
            and (words[j + 1] in opts.context or stem(words[j + 1]) in opts.context)
            and words[j + 1] not in opts.a.words + opts.b.words
            and words[j + 1] not in lex.stopwords
        ):
            return f"not {words[j + 1]}", False  # "the left side is not fractured"
        if words[j] in grammar["clause_final_states"] and (
            j + 1 >= len(words) or r.starts[j + 1] > hi
        ):
            return words[j], True  # report style: "Upper lobes clear."
        w = words[j]
        if w not in opts.context and w in opts.question_negated:
            return w, False  # "the right hip is located" to "Which hip is dislocated?"
        if colon and r.starts[j] > h.end and words[j] in grammar["report_denials"]:
            return words[j], words[j] in ("normal", "unremarkable")
        nxt = None
        for x in hits:
            if x.first == j:
                nxt = x
                break
        if nxt is not None:
            if nxt.option != h.option and not all(w in _COORD for w in words[h.last + 1 : j]):
                return None, False
            j = nxt.last + 1  # "the heart and lungs are normal": read past "lungs"
            continue
        if words[j] in _COORD:
            k = j
            while k < len(words) and words[k] in _COORD:
                k += 1
            nxt2 = next((x for x in hits if x.first == k), None)
            if (
                nxt2 is not None
                and nxt2.last + 1 < len(words)
                and words[nxt2.last + 1] in grammar["plural_verbs"]
            ):
                j = k  # "the left and right hemispheres show no abnormality"
                continue
        if words[j] in grammar["example_openers"]:
            # "Malignant features such as irregular margins are absent": the examples are
            # part of the subject; read on from the verb after them.
            k = j + 1
            while k < len(words) and ends[k] <= hi and words[k] not in grammar["copula"]:
                k += 1
            if k < len(words) and ends[k] <= hi:
                j = k
                continue
        if words[j] == "and" and (opts.abnormal_question or opts.state_question):
            state = _state_after_pair(r, j, hi, hits, opts, lex)
            if state is not None:
                return state, True  # "the frontal lobes and motor cortex are preserved"
        if words[j] in grammar["gap_stop"]:
            return None, False  # "female and is not pregnant": another predicate
        if words[j] not in grammar["copula"]:
            gap += 1
            if gap > _POST_GAP:
                return None, False
        j += 1
    return None, False


def _portuguese(r: Reading, lex: Lexicon) -> bool:
    """Whether the answer holds a word that marks it as Portuguese, as written."""
    return not lex.no_article_marks.isdisjoint(_written_words(r.focus))


@lru_cache(maxsize=64)
def _written_words(focus: str) -> frozenset[str]:
    # Once per answer: a long answer asks for every "no" before every mention (the focus
    # string keeps its hash, so a hit here costs no scan of the text).
    return frozenset(_LETTERS.findall(focus.lower()))
