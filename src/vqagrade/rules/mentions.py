"""Where an answer names an option: whole words through the lexicons, guarded fuzzy matching
for typos; then the mentions that name something else are set aside (a side word on another
organ, a landmark, a hypothetical sentence, a side read from the other frame).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from ..labels import Label
from ..lexicon import Lexicon
from .options import Options, stem
from .reading import (
    _ARTICLES,
    _FUZZY_MARGIN,
    _FUZZY_MIN_LEN,
    _FUZZY_SCORE,
    _NEGATORS,
    Hit,
    Reading,
    clause_end,
    clause_start,
    content_word,
    judgement_would,
)
from .text import PhraseSet


@dataclass(frozen=True, slots=True)
class _Matcher:
    phrases: PhraseSet
    owner: dict[tuple[str, ...], Label]
    fuzzy_keys: tuple[tuple[str, Label], ...]
    both_owner: Label | None
    qualities: bool
    """Both options are qualities written as adjectives (see _quality_options)."""


@lru_cache(maxsize=65536)
def option_matcher(opts: Options, lex: Lexicon) -> _Matcher:
    """Phrases that name each option: whole option, its distinguishing words, each such word."""
    cands: dict[tuple[str, ...], set[Label]] = {}
    derived: set[str] = set()  # derived forms: matched whole, never fuzzily
    for label, opt, other in ((Label.A, opts.a, opts.b), (Label.B, opts.b, opts.a)):
        phrases = {opt.words, opt.key}
        inside_other = frozenset().union(*(lex.variant_words.get(o, ()) for o in other.key))
        phrases.update(
            (w,)
            for w in opt.key
            if w not in lex.generic and w not in other.words and w not in inside_other
        )
        # The head of a fixed term does not name the term alone: "the distal colon" is not
        # the sigmoid colon.
        heads = {w.rsplit("_", 1)[1] for w in opt.words if "_" in w}
        phrases.update(
            (w,)
            for w in opt.surface
            if w not in other.surface
            and w not in other.words
            and w not in heads
            and w not in inside_other
        )
        for w in opt.key:
            # "a CT angiogram" names option CT, unless the other option is the narrower term
            phrases.update(
                (n,) for n in lex.narrower.get(w, ()) if n not in other.words + other.key
            )
        for w in opt.surface:
            # "Post" to "pre- or post-contrast?", "Hypo." to "hyper- or hypointense?": a
            # bare prefix names the option whose word differs from the other's by it.
            for pre in lex.canon.join_prefixes:
                rest = w[len(pre) :]
                if (
                    w.startswith(pre)
                    and len(rest) > 2
                    and any(
                        o != w and o.endswith(rest) and o[: -len(rest)] in lex.canon.join_prefixes
                        for o in other.surface
                    )
                ):
                    phrases.add((pre,))
        for w in opt.key:
            # "Spongiotic dermatitis" names option "spongiosis"; "dysplasia", "dysplastic".
            for noun, adj in lex.derived_suffixes:
                if w.endswith(noun) and len(w) - len(noun) >= 4:
                    form = w[: -len(noun)] + adj
                elif w.endswith(adj) and len(w) - len(adj) >= 4:
                    form = w[: -len(adj)] + noun
                else:
                    continue
                if form not in other.words and form not in other.surface:
                    phrases.add((form,))
                    derived.add(form)
        if opts.source == "or-not" and label is Label.A:
            # "Is a nodule present or not?": every word of X names A; B is X denied.
            phrases.update((w,) for w in opt.words if w not in lex.generic)
        if opts.source == "or-not" and label is Label.B:
            # "not X" is named by its own words ("noncontrast"), never by a bare "no".
            phrases = {p for p in phrases if not (len(p) == 1 and p[0] in _NEGATORS)}
        for p in phrases:
            if p:
                cands.setdefault(p, set()).add(label)
    owner = {p: next(iter(ls)) for p, ls in cands.items() if len(ls) == 1}
    both_words = {w for p in lex.both.phrases for w in p}
    both_owner = None
    for label, opt in ((Label.A, opts.a), (Label.B, opts.b)):
        if any(w in both_words for w in opt.key):
            both_owner = label
            for p in lex.both.phrases:
                owner.setdefault(p, label)
    near = any(fuzz.ratio(x, y) >= 60 for x in opts.a.key for y in opts.b.key)
    fuzzy: tuple[tuple[str, Label], ...] = ()
    if not near:
        fuzzy = tuple(
            (p[0], lab)
            for p, lab in owner.items()
            if len(p) == 1 and len(p[0]) >= _FUZZY_MIN_LEN and p[0] not in derived
        )
    return _Matcher(PhraseSet(owner), owner, fuzzy, both_owner, _quality_options(opts, lex))


def find_hits(r: Reading, m: _Matcher) -> list[Hit]:
    words, starts, ends = r.words, r.starts, r.ends
    hits: list[Hit] = []
    taken: set[int] = set()
    breaks = r.breaks
    for i, j in m.phrases.find(words, r.wordset):
        if j - i > 1 and bisect_left(breaks, starts[i]) != bisect_left(breaks, ends[j - 1]):
            # "…lóbulo inferior izquierdo; pulmón derecho…": a phrase across a clause break
            # ("left; lung") is no mention of it; a part that is one on its own is kept.
            hits.extend(_parts_across_break(r, m, i, j))
            continue
        hits.append(Hit(m.owner[words[i:j]], i, j - 1, starts[i], ends[j - 1], "word"))
        taken.update(range(i, j))
    if m.fuzzy_keys and r.oov:
        for i in r.oov:
            if i in taken:
                continue
            w = words[i]
            if any(k in w or w in k for k, _ in m.fuzzy_keys):
                continue  # "unobstructed" holds "obstructed": a different word, not a typo
            scored = sorted(((fuzz.ratio(w, k), lab) for k, lab in m.fuzzy_keys), reverse=True)
            best, lab = scored[0]
            rival = next((s for s, other in scored[1:] if other != lab), 0.0)
            if best >= _FUZZY_SCORE and best - rival >= _FUZZY_MARGIN:
                hits.append(Hit(lab, i, i, starts[i], ends[i], "fuzzy"))
    hits.sort(key=lambda h: h.first)
    return hits


def _loose_number(r: Reading, h: Hit, opts: Options) -> bool:
    """A mention that is a bare number, for options told apart by their numbers ("TI-RADS 3
    or TI-RADS 5?"), without the options' other words just before it."""
    w = r.words[h.first]
    if not w.isdigit():
        return False
    a, b = opts.a.words, opts.b.words
    if not any(x.isdigit() for x in a) or not any(x.isdigit() for x in b):
        return False  # "single or multiple?": one option is no number
    named = {x for x in a + b if not x.isdigit()}
    if not named:
        return False  # options that are numbers alone ("1 or 2?")
    before = r.words[max(0, h.first - 2) : h.first]
    return named.isdisjoint(before)


def _parts_across_break(r: Reading, m: _Matcher, i: int, j: int) -> list[Hit]:
    """The mentions inside words i..j-1 that do not cross a clause break."""
    out = []
    k = i
    while k < j:
        end = k + 1
        while end < j and bisect_left(r.breaks, r.starts[k]) == bisect_left(r.breaks, r.ends[end]):
            end += 1
        owner = m.owner.get(r.words[k:end])
        if owner is not None:
            out.append(Hit(owner, k, end - 1, r.starts[k], r.ends[end - 1], "word"))
        k = end
    return out


def drop_other_structures(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> list[Hit]:
    """Drop mentions that name something else: a side word on another organ ("the left
    ventricle" when asked which lung), a landmark ("near the spleen"), or an option's head
    noun with the other side ("the left kidney" for option "right kidney")."""
    words = r.words
    out = []
    off: list[Hit] = []
    for h in hits:
        if h.first == h.last and _off_structure(r, h, hits, opts, lex):
            off.append(h)
            continue
        if h.first == h.last and _other_marker(r, h, opts, lex):
            continue
        lo = clause_start(r, h.start)
        if any(
            k >= 0
            and r.starts[k] >= lo
            and (p := lex.landmark.match_at(words, k)) is not None
            and all(w in _ARTICLES for w in words[k + len(p) : h.first])
            for k in range(h.first - 4, h.first)
        ):
            continue  # "near the spleen": a landmark
        if _possessor(r, h, opts):
            continue  # "a button on the patient's gown" names the gown, not the patient
        if _reference_or_comparand(r, h, opts, lex):
            continue  # "(normal < 3 mm)", "well beyond a small one": a measure, not an answer
        if h.first == h.last and len(words) > 4 and _loose_number(r, h, opts):
            continue  # "hypoechoic (3) … total 11 points" names no "TI-RADS 3"
        if _plural_class(r, h, opts, lex):
            continue  # "the coronary arteries" for option "right coronary artery"
        if h.first == h.last and _contradicted(r, h, opts, lex):
            continue  # "the left kidney" is not option "right kidney"; "lower left" is
            # neither "upper left" nor "lower right"
        out.append(h)
    if off:
        out = _sides_of_other_structure(r, out, off, lex)
    return out


def _plural_class(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> bool:
    """A mention of a sided option without its side whose noun is plural: the class the
    option belongs to ("the coronary arteries" for "right coronary artery"), not it."""
    opt = opts.a if h.option is Label.A else opts.b
    sides = [w for w in opt.key if "laterality" in lex.parallel.get(w, ())]
    if not sides or any(w in sides for w in r.words[max(0, h.first - 2) : h.last + 1]):
        return False
    for k in (h.last, h.last + 1):
        if k < len(r.words) and r.words[k] in opt.words:
            raw = r.focus[r.starts[k] : r.ends[k]].lower()
            if raw != r.words[k] and raw.endswith("s") and not r.words[k].endswith("s"):
                return True
    return False


def _sides_of_other_structure(
    r: Reading, kept: list[Hit], off: list[Hit], lex: Lexicon
) -> list[Hit]:
    """Side words set aside as naming another structure, read against the sides kept.

    A bare side heading ("Lt:") elides the structure of the heading before it ("Rt
    hemiscrotum: ..."): when that structure was set aside, so is the bare heading. A side
    that places something ("It is located in the right parietal lobe") beside a kept
    mention of the other side ("The lesion is on the left.") is kept, so the answer is read
    with both sides and abstains."""
    f = r.focus
    kept = [
        h
        for h in kept
        if not (
            h.first == h.last
            and r.words[h.first] in ("left", "right")
            and f[h.end : h.end + 1] == ":"
        )
    ]
    back: list[Hit] = []
    locative = lex.grammar["locative"]
    for h in off:
        if not any(x.option is not h.option and not _negator_before(r, x) for x in kept):
            continue  # "in the right adrenal, not the left kidney": the other side denied
        lo = clause_start(r, h.start)
        k = h.first - 1
        while k >= 0 and r.words[k] in _ARTICLES and r.starts[k] >= lo:
            k -= 1
        if k >= 0 and r.starts[k] >= lo and r.words[k] in locative:
            back.append(h)
    return sorted(kept + back, key=lambda h: h.first) if back else kept


def drop_said_elsewhere(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> list[Hit]:
    """Drop mentions said of another structure before a contrast that turns to the
    question's subject: "Carcinoma in situ is present in adjacent ducts, but the main
    lesion infiltrates the stroma" to "Is the breast lesion in situ or invasive?". The
    clause of the mention must place it in something the question does not name ("in
    adjacent ducts") and must not name the question's subject itself."""
    contrast = lex.grammar["contrast"]
    if not hits or contrast.isdisjoint(r.wordset):
        return hits
    words = r.words
    subject = {w for w in opts.outside if content_word(w, lex)}
    option_words = set(opts.a.words) | set(opts.b.words)
    subject -= option_words
    if not subject:
        return hits
    locative = lex.grammar["locative"]
    ends = [m.start() for m in _SENTENCE_END.finditer(r.focus)] + [len(r.focus)]
    out = []
    for h in hits:
        sent = bisect_left(ends, h.start)
        hi = ends[sent]
        lo = ends[sent - 1] + 1 if sent else 0
        c = next(
            (k for k in range(h.last + 1, len(words)) if r.starts[k] < hi and words[k] in contrast),
            None,
        )
        if c is None or not any(w in subject for w in words[c + 1 : c + 4]):
            out.append(h)
            continue
        before = range(bisect_left(r.starts, lo), c)
        if any(words[k] in subject or stem(words[k]) in subject for k in before):
            out.append(h)
            continue
        elsewhere = any(
            words[k] in locative
            and any(
                content_word(w, lex)
                and w not in opts.context
                and stem(w) not in opts.context
                and w not in option_words
                for w in words[k + 1 : min(k + 4, c)]
            )
            for k in range(h.last + 1, c)
        )
        if not elsewhere:
            out.append(h)
    return out


def _negator_before(r: Reading, h: Hit) -> bool:
    """A negation word before the mention in its clause ("not the left kidney")."""
    lo = clause_start(r, h.start)
    k = bisect_left(r.starts, lo)
    return any(w in _NEGATORS for w in r.words[k : h.first])


def drop_other_terms(
    r: Reading, hits: list[Hit], opts: Options, lex: Lexicon, qualities: bool | None = None
) -> list[Hit]:
    """Drop one-word mentions of a longer option that name something else (see
    _part_of_other_term). A word followed by another head is dropped only when no mention
    of the other option remains: beside one, dropping it would leave the other option alone
    ("Gram-positive cocci with Gram-negative rods" for "Gram-positive or Gram-negative
    bacteria?"), so it stays and the answer is read with both."""
    kept: list[Hit] = []
    heads: list[Hit] = []
    if qualities is None:
        qualities = _quality_options(opts, lex)
    for h in hits:
        if qualities and _noun_for_quality(r, h, opts, lex):
            continue
        why = _part_of_other_term(r, h, opts, lex) if h.first == h.last else None
        if why is None:
            kept.append(h)
        elif why == "head":
            heads.append(h)
    if heads and any(h.option is not d.option for h in kept for d in heads):
        return sorted(kept + heads, key=lambda h: h.first)
    return kept


def _part_of_other_term(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> str | None:
    """One word of a longer option that names something else here: the question's own
    subject ("cell" in "a granulated cell" when the question asks "Is the cell a basophil or a
    mast cell?"), or a word of the option followed by another head than the option's ("right
    lower zone" is not the right lower lobe, "the cervical region" not a cervical burnout
    artefact) or joined by a hyphen to another word ("gastro-oesophageal" is not
    para-oesophageal). Side words have their own rule (_off_structure)."""
    own = opts.a if h.option is Label.A else opts.b
    word = r.words[h.first]
    if len(own.words) < 2 or word not in own.words or word in ("left", "right"):
        return None
    at = own.words.index(word)
    words, f = r.words, r.focus
    if at < len(own.words) - 1 and h.last + 1 < len(words):
        # The head after the word, past adjectives ("benign reactive process" is a process)
        j = h.last + 1
        while (
            j < len(words) - 1
            and j - h.last <= 2
            and words[j] not in own.words
            and _modifier_like(words[j], lex)
            and f[r.ends[j - 1] : r.starts[j]] == " "
        ):
            j += 1
        nxt = words[j]
        gap = f[r.ends[j - 1] : r.starts[j]]
        if (
            (gap == " " or gap in _JOINERS)
            and nxt not in own.words
            and content_word(nxt, lex)
            and nxt not in lex.grammar["copula"]
            and nxt not in lex.scope_end
            and not _modifier_like(nxt, lex)
        ):
            return "head"
    if at > 0 and h.first > 0:
        k = h.first - 1
        if f[r.ends[k] : h.start] in _JOINERS and words[k] != own.words[at - 1]:
            return "head"
    if at == len(own.words) - 1 and _other_modifier(r, h, own.words, lex):
        return "head"
    other_opt = opts.b if h.option is Label.A else opts.a
    if (
        at == len(own.words) - 1
        and len(other_opt.words) == 1
        and _adjective(other_opt.words[0], lex)
        and _adjective(own.words[0], lex)
    ):
        # "the valve leaflet" to "mitral or tricuspid valve?": the head both share (kept
        # beside a mention of the other option, so dropping it never leaves that alone)
        return "head"
    other = opts.b if h.option is Label.A else opts.a
    said = r.focus[h.start : h.end].lower()
    if any(
        w.endswith(x)
        and len(w) - len(x) >= 4
        and w[: -len(x)] not in lex.canon.join_prefixes
        and w[: -len(x)] not in lex.negative_prefixes
        for w in other.words + other.surface
        for x in (word, said)
    ):
        return "subject"  # "carcinoma" is also the other option's "adenocarcinoma"
    return "subject" if word in opts.subject_option_words else None


@lru_cache(maxsize=8)
def _organ_words(lex: Lexicon) -> frozenset[str]:
    """Organ nouns, canonical: the organs with parts and `[yes_no] organs`."""
    out = set(lex.parts)
    for p in lex.lists.get("yes_no.organs", ()):
        c = lex.canon.words(p)
        out.update(c if len(c) == 1 else ())
    return frozenset(out)


def _other_modifier(r: Reading, h: Hit, own: tuple[str, ...], lex: Lexicon) -> bool:
    """The head word of a longer option with an organ before it or an unknown word right
    after it that the option does not have: "inflammatory bowel disease" is not Crohn's
    disease, "lentigo maligna" is not a solar lentigo. Adjectives before it ("a simple
    cyst") and known words or punctuation after it leave the option named."""
    words, f = r.words, r.focus
    k = h.first - 1
    if (
        k >= 0
        and f[r.ends[k] : h.start] == " "
        and words[k] not in own
        and words[k] in _organ_words(lex)
    ):
        return True  # "bowel disease": an organ's disease, not the option's
    n = h.last + 1
    if n >= len(words) or f[h.end : r.starts[n]] != " " or words[n] in own:
        return False
    w = words[n]
    # "lentigo maligna", "tinea capitis": a word the lexicons do not know, after the head
    return n in r.oov and w.isalpha()


_JOINERS = frozenset({"-", "\u2013", "/"})
# Prepositions that open what comes with a structure, not a structure it belongs to: "the
# right hemithorax with mediastinal shift" names the hemithorax ("of" would name another).
# The classes of a word without any (read only; no new empty set per lookup).
_NO_CLASSES: frozenset[str] = frozenset()


def _quality_options(opts: Options, lex: Lexicon) -> bool:
    """Both options are qualities written as adjectives ("arterial or portal venous",
    "cystic or solid"): a noun of the same stem names a thing, not the quality."""
    return all(o.surface and all(_adjective(w, lex) for w in o.surface) for o in (opts.a, opts.b))


def _adjective(word: str, lex: Lexicon) -> bool:
    return len(word) > 4 and word.endswith(lex.adjective_suffixes)


def _noun_for_quality(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> bool:
    """A vessel named as a noun where the option is a quality ("the portal vein" for the
    portal venous phase, "arteries" for arterial): it names a vessel that is seen, not the
    option."""
    vessels = lex.grammar["vessel_nouns"]
    # Cheap probe first: the canonical word ends with a vessel noun ("portal_vein", "artery").
    if not any(w.rsplit("_", 1)[-1] in vessels for w in r.words[h.first : h.last + 1]):
        return False
    said = [t.text for t in lex.canon.base(r.focus[h.start : h.end])]
    own = opts.a if h.option is Label.A else opts.b
    # "femoral vein or popliteal vein": the vessel is the option's own noun, as written
    written = {t.text for t in lex.canon.base(own.text)}
    return any(w in vessels and w not in own.surface and w not in written for w in said)


def _modifier_like(word: str, lex: Lexicon) -> bool:
    """An adjective, adverb or participle by its ending or class ("reactive", "reformatted",
    "markedly"): it qualifies a head further on, it is not one."""
    return (
        word in lex.modifiers
        or word.endswith(("ly", "ing"))
        or (len(word) > 4 and word.endswith(lex.adjective_suffixes))
    )


_BOUND_AFTER = re.compile(
    r"\s*(?:range|limits?|values?)?\s*[:=]?\s*(?:[<>\u2264\u2265]|up to\b|\d)"
)


def _possessor(r: Reading, h: Hit, opts: Options) -> bool:
    """A mention in the possessive before a noun its option does not have ("the patient's
    gown", "the liver's neighbour"): the phrase names what is possessed. An option that is
    itself a possessive ("Crohn's disease") keeps it."""
    words, n = r.words, h.last + 1
    if n + 1 >= len(words) or words[n] != "s" or r.focus[h.end : h.end + 1] not in _APOSTROPHES:
        return False
    own = opts.a if h.option is Label.A else opts.b
    if any(c in own.text for c in _APOSTROPHES):
        return False
    return words[n + 1] not in own.words and r.starts[n + 1] == r.ends[n] + 1


_APOSTROPHES = frozenset("'\u2019")


def _reference_or_comparand(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> bool:
    """A mention that gives a reference range ("normal < 3 mm", "normal: 10-20%") or the
    measure an answer is compared against ("well beyond a small one"; unless the question
    asks a comparison, which reads "than" itself)."""
    words = r.words
    if (
        h.first == h.last
        and words[h.first] in lex.grammar["reference_words"]
        and _BOUND_AFTER.match(r.focus, h.end)
    ):
        return True
    if opts.predicate is not None or opts.comparand:
        return False
    k = h.first - 1
    while k >= 0 and words[k] in _ARTICLES:
        k -= 1
    return (
        k >= 0
        and words[k] in lex.grammar["comparand_markers"]
        and r.starts[k] >= clause_start(r, h.start)
    )


def _contradicted(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> bool:
    """A one-word mention next to a word that contradicts the rest of its option."""
    own = opts.a if h.option is Label.A else opts.b
    if len(own.words) < 2:
        return False
    own_classes = {w: lex.parallel.get(w, _NO_CLASSES) for w in own.words}
    for k in (h.first - 1, h.last + 1):
        if k < 0 or k >= len(r.words):
            continue
        near = r.words[k]
        if near in own.words:
            continue
        classes = lex.parallel.get(near, _NO_CLASSES)
        if any(classes & c for w, c in own_classes.items() if w != r.words[h.first]):
            return True
    return False


def _other_marker(r: Reading, h: Hit, opts: Options, lex: Lexicon) -> bool:
    """ "HER2 negative" when the question asks about ER: positive/negative of another marker."""
    if "stain" not in lex.parallel.get(r.words[h.first], _NO_CLASSES):
        return False
    k = h.first - 1
    while k >= 0 and r.words[k] in lex.grammar["stain_filler"]:
        k -= 1
    if k < 0 or r.starts[k] < clause_start(r, h.start):
        return False
    w = r.words[k]
    if w in lex.stopwords or w in _ARTICLES or w == "gram":
        return False
    return w not in opts.context and stem(w) not in opts.context


def qualifier_conflict(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """An answer about another MRI sequence than the question's ("bright on T2" for "on T1")."""
    if not hits:
        return None
    named = r.wordset & lex.sequence_words  # most answers name no sequence
    if not named:
        return None
    option_words = set(opts.a.words) | set(opts.b.words)
    said = named - option_words
    if not said:
        return None
    asked = {
        w
        for w in opts.context
        if "sequence" in lex.parallel.get(w, _NO_CLASSES) and w not in option_words
    }
    if asked and not said & asked:
        told, wanted = " ".join(sorted(said)), " ".join(sorted(asked))
        return f"speaks of {told}; the question asks about {wanted}"
    return None


# A full stop after a lone capital before a lower-case word ("P. vivax would show") is a
# genus abbreviation, not a sentence end. One character class opens the pattern, so the
# regex engine skips ahead to candidates; the same as
# "(?<!\b[A-Z])\.|(?<=\b[A-Z])\.(?!\s[a-z])|[!?;\n]", which is tried at every position
# (measured 4.8x slower on workload answers).
_SENTENCE_END = re.compile(r"[.!?;\n](?:(?<!\.)|(?<!\b[A-Z]\.)|(?<=\b[A-Z]\.)(?!\s[a-z]))")
_SLASH_AFTER = re.compile(r" ?/ ?\w")
_SLASH_BEFORE = re.compile(r"\w ?/ ?$")
_TERMINAL = frozenset(".!?)]*\"'")


def unread_mention(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """Why the mentions cannot be read as an answer, if so: an option said not to be
    assessed ("the left axilla was not imaged"), a side named relative to another
    ("contralateral"), an option joined by a slash to another word ("R/LLQ"), or an echo of
    the question that stops at option A ("Which is bigger in this image, liver")."""
    if not hits:
        return None
    words, f = r.words, r.focus
    if lex.unread_words.isdisjoint(r.wordset) and "/" not in f:
        return _echo(r, hits, opts, lex)  # the common case: none of the cues below
    unassessed = lex.unassessed.find(words) if not lex.unassessed_ends.isdisjoint(words) else []
    for i, _ in unassessed:
        for h in hits:
            lo, hi = clause_start(r, h.start), clause_end(r, h.end)
            if hi < len(f) and f[hi] in ":(":
                hi = clause_end(r, hi + 1)  # "Right hemisphere: not fully included"
            if lo <= r.starts[i] < hi:
                return "an option is said not to be assessed"
    if not lex.equal.isdisjoint(words) and lex.equal.isdisjoint(opts.a.words + opts.b.words):
        return "calls the two the same"
    if not lex.partial.isdisjoint(words) and lex.partial.isdisjoint(opts.a.words + opts.b.words):
        for h in hits:
            k = h.first - 1
            if k >= 0 and words[k] in lex.partial and r.starts[k] >= clause_start(r, h.start):
                return f"says an option holds only in part ('{words[k]} {words[h.first]}')"
    if lex.relative_sides.find(words) and any(
        "laterality" in lex.parallel.get(words[h.first], _NO_CLASSES) for h in hits
    ):
        return "a side named relative to another side or to the viewer"
    if "/" in f:
        for h in hits:
            # "R/LLQ", "late arterial / early portal venous": spaces around it or not
            if _SLASH_AFTER.match(f, h.end) or _SLASH_BEFORE.search(
                f[max(0, h.start - 4) : h.start]
            ):
                return "an option joined to another word by a slash"
    return _echo(r, hits, opts, lex)


def _echo(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """An echo of the question that stops at option A ("Which is bigger, liver")."""
    words, f = r.words, r.focus
    last = hits[-1]
    tail = f.rstrip()
    if last.last == len(words) - 1 and last.first > 0 and tail[-1:] not in _TERMINAL:
        # "The colonies are lactose" to "lactose fermenting or non-lactose fermenting?": cut
        # off inside an option, on words the other option holds too.
        own, other = (opts.a, opts.b) if last.option is Label.A else (opts.b, opts.a)
        said = words[last.first : last.last + 1]
        # the option's first words only, all held by the other ("nonlactose" holds "lactose")
        if (
            said == own.words[: len(said)]
            and len(said) < len(own.words)
            and all(any(o.endswith(w) for o in other.words) for w in said)
        ):
            return "cut off inside an option, on words the other option holds too"
    if (
        last.option is Label.A
        and last.last == len(words) - 1
        and last.first > 0  # "RUQ" alone is the option, not an echo of the question
        and tail[-1:] not in _TERMINAL
        and len(words) >= 3
    ):
        said = tuple(w for w in words if w not in lex.q_articles)
        if opts.lead[-len(said) :] == said:
            return "repeats the question and stops at an option"
    return None


def drop_conditional(r: Reading, hits: list[Hit], lex: Lexicon) -> list[Hit]:
    """Set aside mentions in sentences about what is usual or hypothetical ("would"), or
    that state what a finding is in general ("which can be seen in both X and Y")."""
    if not hits:
        return hits
    said = lex.conditional.find(r.words, r.wordset) + lex.generic_statements.find(
        r.words, r.wordset
    )
    if not said and "?" not in r.focus:
        return hits
    ends = [m.start() for m in _SENTENCE_END.finditer(r.focus)] + [len(r.focus)]
    hedged: set[int] = set()
    for i, _ in said:
        if judgement_would(r.words, i, lex):
            continue  # "I'd call it displaced": the speaker's own judgement
        hedged.add(bisect_left(ends, r.starts[i]))
    for n, e in enumerate(ends):
        if e < len(r.focus) and r.focus[e] == "?":
            hedged.add(n)  # an echoed question: "Is this a CT or an MRI? The image is an MRI."
    return [h for h in hits if bisect_left(ends, h.start) not in hedged]


def drop_purpose(r: Reading, hits: list[Hit], lex: Lexicon) -> list[Hit]:
    """Set aside mentions that follow a purpose phrase in their clause: "biopsy is
    recommended to exclude malignancy", "I'd need a lateral view to assess displacement"
    say what an examination is for, not what the image shows."""
    if not hits or lex.purpose_probe.isdisjoint(r.wordset):
        return hits
    said = lex.purpose.find(r.words, r.wordset)
    if not said:
        return hits
    out = []
    for h in hits:
        lo = clause_start(r, h.start)
        if any(j <= h.first and r.starts[i] >= lo for i, j in said):
            continue
        out.append(h)
    return out


def frame_conflict(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """A side read from the image when the question asks the patient's side, or the reverse."""
    sides = [h for h in hits if "laterality" in lex.parallel.get(r.words[h.first], _NO_CLASSES)]
    if not sides:
        return None
    for h in sides:
        near = r.words[max(0, h.first - 3) : h.last + 5]
        image = any(w in lex.image_frame for w in near)
        patient = any(w in lex.patient_frame for w in near)
        if not (image or patient):
            continue  # the question's words are read only when the answer names a frame
        q_patient = any(w in opts.context for w in lex.patient_frame)
        q_image = any(w in opts.context for w in lex.image_frame)
        if image and not q_image and all(_image_side(r, x, lex) for x in hits):
            # "on the right side of the image" to "left or right kidney?": a radiograph's
            # right is the patient's left, so the image's side is not the patient's (unless
            # the answer names the side otherwise too: "OS - the disc is on the left").
            return "gives the side as seen in the image; the question asks the patient's side"
        if q_image and not q_patient and patient:
            return "gives the patient's side; the question reads sides from the image"
    return None


def _image_side(r: Reading, h: Hit, lex: Lexicon) -> bool:
    """A side said of the image: "the right side of the image", "on the left of the
    screen", "image left" (not "in the image, the right lobe": there the image is where the
    finding is seen, and the side is the patient's)."""
    if "laterality" not in lex.parallel.get(r.words[h.first], _NO_CLASSES):
        return False
    if h.first > 0 and r.words[h.first - 1] in lex.image_frame:
        return True
    after = r.words[h.last + 1 : h.last + 5]
    if "of" not in after:
        return False
    k = after.index("of")
    return any(w in lex.image_frame for w in after[k + 1 : k + 3])


def _off_structure(r: Reading, h: Hit, hits: list[Hit], opts: Options, lex: Lexicon) -> bool:
    """A bare side word followed by a structure the question does not name."""
    word = r.words[h.first]
    if word not in ("left", "right"):
        return False
    if any(x is not h and (x.first == h.last + 1 or x.last == h.first - 1) for x in hits):
        return False  # "left-right symmetric": both sides named together
    parts: set[str] | None = None  # read lazily: most side words end their phrase at once
    hi = clause_end(r, h.end)
    seen = 0
    for j in range(h.last + 1, len(r.words)):
        if r.ends[j] > hi or seen == 2:
            break
        w = r.words[j]
        if w in lex.grammar["side_nouns"]:
            continue
        if w not in lex.stopwords and w not in lex.grammar["copula"] and parts is None:
            parts = {p for c in opts.context for p in lex.parts.get(c, ())}
        if parts and w in parts:
            continue
        if w in lex.stopwords or w in lex.grammar["copula"] or w in lex.grammar["phrase_enders"]:
            break  # the noun phrase after the side word has ended ("right hemithorax with")
        if "position" in lex.parallel.get(w, _NO_CLASSES):
            continue  # "right lower lobe": the position words qualify the side
        if w in opts.context or stem(w) in opts.context or any(x.first == j for x in hits):
            return False
        if j == len(r.words) - 1 and r.focus.rstrip()[-1:].isalpha():
            return False  # "... is the left hem": a word cut off, not another structure
        seen += 1
    return seen > 0


def qualified_mention(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """A mention that is not the plain option: joined by a hyphen to a qualifier prefix
    ("pauci-septate"), said of a part free of the finding ("with clear peripheral cornea"),
    or said of some units only ("Some follicles appear reactive")."""
    if not hits:
        return None
    g = lex.grammar
    words, f = r.words, r.focus
    option_words = set(opts.a.words) | set(opts.b.words)
    for h in hits:
        if h.negation is not None:
            continue
        if h.start >= 2 and f[h.start - 1] == "-":
            m = _WORD_BEFORE.search(f, 0, h.start - 1)
            if m is not None and m.group(1).lower() in g["qualifier_prefixes"]:
                return f"the option is qualified ('{m.group(1)}-')"
        k = h.first - 1
        if k >= 0 and words[k] in g["entity_modifiers"] and words[k] not in option_words:
            return f"the option is qualified ('{words[k]}')"
        if (
            k >= 0
            and words[k] in g["normal_before"]
            and words[k] not in option_words
            and r.starts[k] >= clause_start(r, h.start)
        ):
            return f"the option names a part said to be '{words[k]}'"
        if g["part_quantifiers"].isdisjoint(r.wordset):
            continue
        lo = clause_start(r, h.start)
        if h.first == 0 or words[h.first - 1] not in g["copula"] or words[h.first - 1] in _ARTS:
            continue  # "some follicles appear reactive": the option is the predicate
        for q in range(h.first - 1, -1, -1):
            if r.starts[q] < lo:
                break
            if words[q] in g["part_quantifiers"]:
                said = [
                    w
                    for w in words[q + 1 : h.first]
                    if w not in option_words and w not in opts.context and content_word(w, lex)
                ]
                if said:
                    return f"says it of some units ('{words[q]} {said[0]}')"
                break
    return None


_WORD_BEFORE = re.compile(r"(\w+)$")
_ARTS = frozenset({"a", "an", "the"})
