"""Option reading for multiple-choice answers: the answer's words against the options'.
Where each option is named and whether the mention is denied (initialisms, acronyms,
grades, ranges, shared heads, words across small words), and what else the words say:
comparatives, measurements, every option at once, a longer option, another option's words,
a state said of a part, a list of fragments."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from ..kinds import LETTERS
from ..labels import Label
from ..lexicon import Lexicon
from .choice_letters import _SENT_BREAK, _has_letter
from .choice_options import _LEVEL, _NUM, _UPPER, _grade, _Info, _info
from .choice_vocab import _content, _part_words, _Vocab, _vocab
from .choices import Choices
from .negation import _cue_before
from .reading import (
    _NEGATORS,
    Hit,
    Reading,
    _break_positions,
    clause_end,
    clause_start,
)

_RANGE_GAP = re.compile(r"^\s*[-\u2013\u2014/]\s*$")
_HAS_UPPER2 = re.compile(r"[A-Z]{2}")
_GREEK = {"\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta"}
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
            after = r.focus[r.ends[i] : r.ends[i] + 3].lstrip()[:1]
            around = after + r.focus[max(0, r.starts[i] - 3) : r.starts[i]].rstrip()[-1:]
            if "+" in around or "=" in around:
                continue  # "Gleason 4+3=7": a sum of patterns, not grade 4
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
    modifiers = lex.grammar["entity_modifiers"]
    if not modifiers.isdisjoint(r.wordset):
        # "reverse Colles" is a Smith fracture, "reversed halo" no halo: not the option.
        found = [
            x
            for x in found
            if not (
                x[0] > 0 and words[x[0] - 1] in modifiers and words[x[0] - 1] not in ch.words[x[2]]
            )
        ]
    if lex.landmark.find(words, r.wordset):
        found = [x for x in found if not _after_landmark(r, x[0], ch.words[x[2]], lex)]
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
            or _cue_after(r, j, lex, ch.state_question, ch.asked)
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


def _after_landmark(r: Reading, i: int, own: tuple[str, ...], lex: Lexicon) -> bool:
    """A mention at word i placed after a landmark phrase of its clause ("just before it
    enters the bladder", "near the spleen"): a reference point, not the answer."""
    words = r.words
    lo = clause_start(r, r.starts[i])
    for k in range(max(0, i - 4), i):
        p = lex.landmark.match_at(words, k)
        if p is None or r.starts[k] < lo or set(p) & set(own):
            continue
        if all(w in ("the", "a", "an", "it", "its") for w in words[k + len(p) : i]):
            return True
    return False


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


def _cue_after(
    r: Reading, j: int, lex: Lexicon, state_question: bool, asked: frozenset[str] = frozenset()
) -> bool:
    """A denial right after a mention, in its clause ("the liver is excluded"; "the trachea
    is not compressed" to "Which structure is compressed …?")."""
    hi = clause_end(r, r.ends[j - 1])
    words = r.words
    for t in range(j, min(len(words), j + 4)):
        if r.ends[t] > hi:
            break
        if lex.neg_after.match_at(words, t) is not None:
            return True
        if words[t] in ("not", "no") and t + 1 < len(words) and words[t + 1] in asked:
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
        if voc.unassessed.match_at(r.words, t) is not None:
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
    said: set[int], chosen: set[int], r: Reading, info: _Info, contrast: frozenset[str]
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
    if not contrast.isdisjoint(r.wordset):
        # "Both Listeria and Yersinia grow in the cold, but tumbling motility is specific to
        # Listeria": the contrast may single one out; not read as "Both A and B".
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
    if not any(o == k for o, _, _, _ in spans) and k < len(info.distinct):
        # Named by a word only it has ("flutter" of "Atrial flutter"): "AF or flutter" offers
        # it as one of alternatives.
        own = info.distinct[k]
        for t, w in enumerate(words):
            if w not in own:
                continue
            if (t >= 2 and words[t - 1] == "or" and _content(words[t - 2], lex)) or (
                t + 2 < len(words) and words[t + 1] == "or" and _content(words[t + 2], lex)
            ):
                return "an alternative beside the option"
    for o, neg, a, b in spans:
        if o != k or neg:
            continue
        # "LUL or lingula", "abscess or hydatid cyst": an alternative that is no option.
        if b + 1 < len(words) and words[b] == "or" and b + 1 not in taken:
            if _content(words[b + 1], lex) or words[b + 1] in ("a", "an", "the"):
                return "an alternative beside the option"
        if a >= 2 and words[a - 1] == "or" and a - 2 not in taken and _content(words[a - 2], lex):
            return "an alternative beside the option"
    built = _built_on_other(r, k, taken, info)
    if built:
        return built
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
                or _cue_after(r, t + 1, lex, ch.state_question, ch.asked)
                or _denied_after(r, t + 1, voc)
            ):
                continue
            return f"also names words of option {LETTERS[o].value} '{ch.texts[o]}'"
    return ""


def _built_on_other(r: Reading, k: int, taken: set[int], info: _Info) -> str:
    """A longer word that starts with a word only another option has ("ureterovesical" for
    option "Ureter" beside option "Bladder"): the answer may place it there; or ""."""
    for t, w in enumerate(r.words):
        if t in taken or not w.isalpha():
            continue
        for o, ws in enumerate(info.distinct):
            if o == k:
                continue
            root = next(
                (x for x in ws if len(x) >= 5 and len(w) > len(x) + 2 and w.startswith(x)), ""
            )
            if root:
                return f"a word built on option {LETTERS[o].value}'s '{root}' ('{w}')"
    return ""


def _positive_at(r: Reading, t: int, ch: Choices, lex: Lexicon, voc: _Vocab) -> bool:
    """True when the word at t is said, not denied."""
    h = Hit(Label.A, t, t, r.starts[t], r.ends[t], "word")
    return not (
        _cue_before(r, h, lex) is not None
        or _cue_after(r, t + 1, lex, ch.state_question, ch.asked)
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
        mods = lex.grammar["entity_modifiers"]
        if any(t > 0 and words[t - 1] in mods and words[t - 1] not in ch.words[o] for t in at):
            return None  # "reverse Colles": another entity than the option
        said = {
            words[t]
            for t in at
            if _positive_at(r, t, ch, lex, voc) and not _after_landmark(r, t, ch.words[o], lex)
        }
        if len(said) >= 2 and any(
            any(c.isdigit() for c in w) and w not in r.wordset for w in ch.words[o]
        ):
            # "a whole-body scan" is not "I-131 whole-body scan": a phrase of several words
            # without the code that sets the option apart (a one-word name, "FDG", is enough).
            continue
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
