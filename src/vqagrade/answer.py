"""Label one answer (gt or pred) as A, B, both or none, or abstain, with the evidence.

The steps: focus on the final answer; refuse refusals, hedges and bare yes/no; find each
mention of an option (whole words through the lexicons, guarded fuzzy matching for typos);
scope negation to each mention; read comparatives when the question asks "which is larger";
read both/none cues; then decide. Anything contradictory or unmatched abstains: a wrong
confident label is the failure that matters, abstaining is cheap.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from .focus import find_focus
from .labels import Label
from .lexicon import Lexicon
from .options import Options, stem
from .text import PhraseSet, lemma_table

_LETTER_ONLY = re.compile(
    r"^\s*(?:(?:option|choice|answer|letter)\s*)?[(\[]?([ab])[)\].:]?\s*$", re.I
)
_LETTER_LEAD = re.compile(r"^\s*(?:\(([AaBb])\)|([AB])[).:])\s+(\S.*)$", re.S)
_CLAUSE_BREAK = re.compile(r"[.;:!?,()\n]|(?<=\s)[-\u2013\u2014](?=\s)")
_YES_NO_LEAD = re.compile(r"\s*[,.;:!\-\u2013\u2014]")
_NEGATORS = frozenset({"no", "not", "without", "nor", "never", "neither", "none"})
# Words that may sit between coordinated mentions ("the left and the right kidney").
_COORD = frozenset({"and", "or", "nor", "the", "a", "an", "both", "either", "neither", "plus"})
_AND = frozenset({"and", "plus"})
_OR = frozenset({"or", "vs", "versus"})
_NEG_WINDOW = 6
_POST_WINDOW = 4
# Words allowed between a mention and a cue after it ("the left kidney itself is intact").
_POST_GAP = 2
_COPULA = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "appear",
        "appears",
        "look",
        "looks",
        "seem",
        "seems",
        "remain",
        "remains",
        "the",
        "a",
        "an",
        "itself",
        "completely",
        "entirely",
        "otherwise",
        "also",
        "still",
    }
)
_GAP_STOP = frozenset(
    {
        "and",
        "but",
        "which",
        "who",
        "that",
        "with",
        "whose",
        "while",
        "where",
        "when",
        "although",
        "though",
        "because",
        "or",
        "nor",
    }
)
# Words that may stand next to a bare both/none cue ("neither of them", "both are seen").
_CUE_FILLER = frozenset(
    {
        "of",
        "them",
        "is",
        "are",
        "seen",
        "present",
        "visible",
        "affected",
        "involved",
        "side",
        "one",
        "1",
        "option",
        "answer",
        "correct",
        "none_of",
        "either",
        "neither",
        "nor",
        "no",
    }
)
# Words that may precede "normal" without naming another subject ("it is described as").
_SUBJECT_FILLER = frozenset(
    {
        "as",
        "overall",
        "describe",
        "described",
        "entirely",
        "completely",
        "quite",
        "clearly",
        "rather",
        "very",
        "there",
        "this",
        "it",
        "be",
        "in",
        "appear",
        "looks",
        "seem",
        "considered",
        "likely",
        "probably",
        "most",
        "all",
        "everything",
        "study",
        "exam",
        "findings",
        "finding",
        "ct",
        "mri",
        "xray",
        "ultrasound",
        "radiograph",
    }
)
# Last words that leave a coordination open: the answer was cut off ("left kidney and the").
_DANGLING = frozenset({"and", "or", "nor", "but", "versus", "vs"})
_ARTICLES = frozenset({"the", "a", "an", "its", "their"})
# Words that may follow a bare side word without naming another structure ("left side").
_SIDE_NOUNS = frozenset(
    {"side", "sided", "aspect", "half", "part", "portion", "region", "area", "section", "segment"}
    | {"sector", "division", "1", "one", "hand", "lateral"}
)
# Words around a comparative that name no structure ("in this image, X appears slightly ...").
_COMPARISON_FILLER = frozenset(
    {"appear", "appears", "seem", "seems", "significantly", "slightly", "much", "far", "clearly"}
    | {"somewhat", "considerably", "markedly", "overall", "size", "sized", "visibly", "here"}
    | {"which", "organ", "one", "both", "two", "it", "they", "than", "compared", "relative"}
)
_PLURAL = frozenset({"are", "were", "appear", "look", "show", "remain", "both", "have", "seem"})
_CONCESSIVE = frozenset({"although", "though", "while", "whereas", "even"})
_REPORT_DENIALS = frozenset(
    {
        "negative_for",
        "incorrect",
        "wrong",
        "absent",
        "no",
        "none",
        "negative",
        "normal",
        "unremarkable",
        "nil",
    }
)
_FUZZY_MIN_LEN = 5
_FUZZY_SCORE = 85.0
_FUZZY_MARGIN = 12.0


@dataclass(frozen=True, slots=True)
class Hit:
    """An option mention found in the focused text (internal, cheap to build)."""

    option: Label
    first: int
    last: int
    start: int
    end: int
    via: str
    negation: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Verdict:
    """The label of one answer and why (internal form of `AnswerTrace`)."""

    label: Label | None
    rule: str
    reason: str
    focus: str
    hits: tuple[Hit, ...] = ()
    cues: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Matcher:
    phrases: PhraseSet
    owner: dict[tuple[str, ...], Label]
    fuzzy_keys: tuple[tuple[str, Label], ...]
    both_owner: Label | None


@lru_cache(maxsize=65536)
def _matcher(opts: Options, lex: Lexicon) -> _Matcher:
    """Phrases that name each option: whole option, its distinguishing words, each such word."""
    cands: dict[tuple[str, ...], set[Label]] = {}
    for label, opt, other in ((Label.A, opts.a, opts.b), (Label.B, opts.b, opts.a)):
        phrases = {opt.words, opt.key}
        phrases.update((w,) for w in opt.key if w not in lex.generic and w not in other.words)
        phrases.update((w,) for w in opt.surface if w not in other.surface and w not in other.words)
        for w in opt.key:
            # "a CT angiogram" names option CT, unless the other option is the narrower term
            phrases.update(
                (n,) for n in lex.narrower.get(w, ()) if n not in other.words + other.key
            )
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
            (p[0], lab) for p, lab in owner.items() if len(p) == 1 and len(p[0]) >= _FUZZY_MIN_LEN
        )
    return _Matcher(PhraseSet(owner), owner, fuzzy, both_owner)


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    table = lemma_table()
    return frozenset(table) | frozenset(table.values())


@dataclass(frozen=True, slots=True)
class Reading:
    """What can be read from an answer before looking at the options (cached per text)."""

    focus: str
    early: Verdict | None
    words: tuple[str, ...] = ()
    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    breaks: tuple[int, ...] = ()
    oov: tuple[int, ...] = ()
    both_cue: tuple[tuple[int, int], ...] = ()
    none_cue: tuple[tuple[int, int], ...] = ()
    letter: Label | None = None
    letter_rest: str | None = None
    yes_no: bool = False
    lead: str | None = None


def read_answer(text: str, lex: Lexicon) -> Reading:
    """The option-independent reading of an answer: focus, tokens, refusals, hedges.

    Args:
        text: the answer text (gt or pred).
        lex: the lexicon.
    """
    focus = find_focus(text, lex)
    f = focus.text
    if not f.strip():
        why = "the answer is empty" if not text.strip() else f"no answer text ({focus.how})"
        return Reading(f, Verdict(None, "empty", why, f))
    word = lex.letter_words.get(f.strip().rstrip("."))
    if word is not None:  # "R", "F": a whole answer that is one letter standing for a word
        return read_answer(word, lex)
    m = _LETTER_ONLY.match(f)
    if m:
        lab = Label.A if m.group(1).lower() == "a" else Label.B
        return Reading(f, Verdict(lab, "letter", f"the letter of option {lab.value}", f))
    m2 = _LETTER_LEAD.match(f)
    if m2:
        lab = Label.A if (m2.group(1) or m2.group(2)).lower() == "a" else Label.B
        return Reading(f, None, letter=lab, letter_rest=m2.group(3))
    words, starts, ends = lex.canon.canon_arrays(f)
    if not words:
        return Reading(f, Verdict(None, "no-words", "the answer has no words", f))
    for name, phrases in (("refusal", lex.refusal), ("junk", lex.junk), ("hedge", lex.hedge)):
        found = phrases.find(words)
        if name == "hedge":
            # "no hemorrhage in either hemisphere" denies both: a none cue, not a hedge.
            negated = set(_negated_either(words, lex))
            found = [(i, j) for i, j in found if (i, j) not in negated]
        if found:
            i, j = found[0]
            cue = " ".join(words[i:j])
            return Reading(f, Verdict(None, name, f"{name}: '{cue}'", f, cues=(f"{name}:{cue}",)))
    yes_no = False
    lead: str | None = None
    if words[0] in lex.yes or words[0] in lex.no:
        if all(w in lex.yes or w in lex.no for w in words):
            yes_no = True
        elif _YES_NO_LEAD.match(f[ends[0] :]):
            # "No, the patient is a male.": the yes/no answers the wrong question; read the
            # rest. Without the comma, "No effusion" is a negation and stays.
            lead = words[0]
            words, starts, ends = words[1:], starts[1:], ends[1:]
    if not yes_no and words[-1] in {"or", "nor", "either", "vs", "versus"}:
        cut = Verdict(None, "truncated", "the answer stops on an unfinished alternative", f)
        return Reading(f, cut)
    tail = f.rstrip()
    if (
        len(words) > 2
        and tail[-1:].isalpha()
        and (words[-1] in _DANGLING or (words[-2] in _DANGLING and words[-1] in _ARTICLES))
    ):
        cut = Verdict(None, "truncated", "the answer is cut off inside a coordination", f)
        return Reading(f, cut)
    if tail.endswith("?"):
        back = Verdict(None, "question", "the answer is a question back", f)
        return Reading(f, back)
    breaks = tuple(m.start() for m in _CLAUSE_BREAK.finditer(f))
    # Words that fuzzy matching may consider: long, alphabetic, not known English.
    unknown = set(words).difference(_vocabulary(), lex.known_words)
    oov: tuple[int, ...] = ()
    if unknown:
        oov = tuple(
            i
            for i, w in enumerate(words)
            if w in unknown and len(w) >= _FUZZY_MIN_LEN and w.isalpha()
        )
    both = tuple(lex.both.find(words))
    none = tuple(lex.none.find(words)) + tuple(_negated_either(words, lex))
    early = None
    if yes_no:
        early = Verdict(None, "yes-no", "a bare yes/no to a two-option question", f)
    return Reading(f, early, words, starts, ends, breaks, oov, both, none, yes_no=yes_no, lead=lead)


def _negated_either(words: tuple[str, ...], lex: Lexicon) -> list[tuple[int, int]]:
    """Positions of "either" inside a negation ("not in either kidney" means neither)."""
    out: list[tuple[int, int]] = []
    if "either" not in words:
        return out
    for i, w in enumerate(words):
        if w == "either" and any(x in _NEGATORS for x in words[max(0, i - _NEG_WINDOW) : i]):
            out.append((i, i + 1))
    return out


def label_reading(r: Reading, opts: Options, lex: Lexicon) -> Verdict:
    """Label a read answer against the question's options."""
    if r.early is not None and r.yes_no and opts.source == "or-not":
        # "Is contrast used or not?" - "yes" affirms X, "no" answers "not".
        lab = Label.A if r.words and r.words[0] in lex.yes else Label.B
        return Verdict(lab, "or-not", "yes/no to an 'X or not' question", r.focus)
    if r.early is not None and not (r.yes_no and opts.yes_no):
        return r.early
    f = r.focus
    if r.letter is not None:
        rest_text = r.letter_rest or ""
        rest = label_answer(rest_text, opts, lex)
        # "A) left kidney" agrees; "A. fumigatus" is a genus, not a letter; "(A) X? (B) Y?
        # I choose (B)" quotes the options and abstains.
        named_nothing = rest.rule in ("no-option", "empty", "no-words")
        genus = f.lstrip("(").lstrip()[1:2] == "." and rest_text[:1].islower()
        if rest.label == r.letter or (named_nothing and not genus):
            return Verdict(r.letter, "letter", f"the letter of option {r.letter.value}", f)
        if rest.label is not None:
            return Verdict(None, "contradiction", "the letter and the words disagree", f)
        return rest
    m = _matcher(opts, lex)
    found = _drop_other_structures(r, _find_hits(r, m), opts, lex)
    hits = _drop_conditional(r, found, lex)
    if found and not hits:
        why = "names the options only in general or hypothetical statements"
        return Verdict(None, "conditional", why, f, tuple(found))
    frame = _frame_conflict(r, hits, opts, lex)
    if frame:
        return Verdict(None, "frame", frame, f, tuple(hits))
    hits, confirmed = _negate(r, hits, opts, lex)
    cues: list[str] = []
    if opts.predicate is not None:
        comp = _comparative(r, hits, opts, lex, cues)
        if comp is not None:
            return Verdict(comp[0], "comparative", comp[1], f, tuple(hits), tuple(cues))
    if opts.comparand and hits:
        off = _off_comparand(r, opts, lex)
        if off:
            why = f"compares with '{off}', not with what the question names"
            return Verdict(None, "comparand", why, f, tuple(hits), tuple(cues))
    if opts.state_question:
        # "Which kidney is absent?" - "Absent left kidney": the question's own word confirms.
        for h in hits:
            if h.negation and set(h.negation.split()) & opts.context:
                confirmed.add(h.option)
        hits = [h for h in hits if not (h.negation and h.option in confirmed)]
        if any(h.negation for h in hits):
            why = "a denial in a question about a normal or absent finding"
            return Verdict(None, "state-denial", why, f, tuple(hits), tuple(cues))
        if len(confirmed) == 1:
            lab = next(iter(confirmed))
            why = f"option {lab.value} is the one described as normal"
            return Verdict(lab, "state", why, f, tuple(hits), tuple(cues))
    return _decide(r, hits, lex, cues, opts)


def _off_comparand(r: Reading, opts: Options, lex: Lexicon) -> str | None:
    """What the answer compares against, when it is not the question's comparand."""
    words = r.words
    for i in range(len(words)):
        p = lex.than.match_at(words, i)
        if p is not None:
            rest = [w for w in words[i + len(p) : i + len(p) + 6] if _content_word(w, lex)]
            known = set(opts.comparand) | {stem(w) for w in opts.comparand}
            off = [w for w in rest if w not in known and stem(w) not in known]
            if off:
                return " ".join(off)
    return None


def label_answer(text: str, opts: Options, lex: Lexicon) -> Verdict:
    """Label an answer against the question's options.

    Args:
        text: the answer text (gt or pred).
        opts: the options of the question.
        lex: the lexicon.
    """
    return label_reading(read_answer(text, lex), opts, lex)


def _find_hits(r: Reading, m: _Matcher) -> list[Hit]:
    words, starts, ends = r.words, r.starts, r.ends
    hits: list[Hit] = []
    taken: set[int] = set()
    for i, j in m.phrases.find(words):
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


def _drop_other_structures(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> list[Hit]:
    """Drop mentions that name something else: a side word on another organ ("the left
    ventricle" when asked which lung), a landmark ("near the spleen"), or an option's head
    noun with the other side ("the left kidney" for option "right kidney")."""
    words = r.words
    out = []
    for h in hits:
        span = words[h.first : h.last + 1]
        if h.first == h.last and _off_structure(r, h, hits, opts, lex):
            continue
        lo = _clause_start(r, h.start)
        if any(
            k >= 0
            and r.starts[k] >= lo
            and (p := lex.landmark.match_at(words, k)) is not None
            and all(w in _ARTICLES for w in words[k + len(p) : h.first])
            for k in range(h.first - 4, h.first)
        ):
            continue  # "near the spleen": a landmark
        if h.first == h.last and h.first > 0:
            own = opts.a if h.option is Label.A else opts.b
            prev = words[h.first - 1]
            if (
                span[0] in own.key
                and len(own.key) > 1
                and prev not in own.words
                and lex.parallel.get(prev, set())
                & {c for w in own.key for c in lex.parallel.get(w, set())}
            ):
                continue  # "the left kidney" is not option "right kidney"
        out.append(h)
    return out


_SENTENCE_END = re.compile(r"[.!?;\n]")


def _drop_conditional(r: Reading, hits: list[Hit], lex: Lexicon) -> list[Hit]:
    """Set aside mentions in sentences about what is usual or hypothetical ("would")."""
    if not hits or (not lex.conditional.find(r.words) and "?" not in r.focus):
        return hits
    ends = [m.start() for m in _SENTENCE_END.finditer(r.focus)] + [len(r.focus)]
    hedged: set[int] = set()
    for i, _ in lex.conditional.find(r.words):
        hedged.add(bisect_left(ends, r.starts[i]))
    for n, e in enumerate(ends):
        if e < len(r.focus) and r.focus[e] == "?":
            hedged.add(n)  # an echoed question: "Is this a CT or an MRI? The image is an MRI."
    return [h for h in hits if bisect_left(ends, h.start) not in hedged]


def _frame_conflict(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """A side read from the image when the question asks the patient's side, or the reverse."""
    sides = [h for h in hits if "laterality" in lex.parallel.get(r.words[h.first], set())]
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
        if q_patient and image:
            return "gives the side as seen in the image; the question asks the patient's side"
        if q_image and not q_patient and patient:
            return "gives the patient's side; the question reads sides from the image"
    return None


def _off_structure(r: Reading, h: Hit, hits: list[Hit], opts: Options, lex: Lexicon) -> bool:
    """A bare side word followed by a structure the question does not name."""
    word = r.words[h.first]
    if word not in ("left", "right"):
        return False
    parts: set[str] | None = None  # read lazily: most side words end their phrase at once
    hi = _clause_end(r, h.end)
    seen = 0
    for j in range(h.last + 1, len(r.words)):
        if r.ends[j] > hi or seen == 2:
            break
        w = r.words[j]
        if w in _SIDE_NOUNS:
            continue
        if w not in lex.stopwords and w not in _COPULA and parts is None:
            parts = {p for c in opts.context for p in lex.parts.get(c, ())}
        if parts and w in parts:
            continue
        if w in lex.stopwords or w in _COPULA:
            break  # the noun phrase after the side word has ended
        if "position" in lex.parallel.get(w, set()):
            continue  # "right lower lobe": the position words qualify the side
        if w in opts.context or stem(w) in opts.context or any(x.first == j for x in hits):
            return False
        if j == len(r.words) - 1 and r.focus.rstrip()[-1:].isalpha():
            return False  # "... is the left hem": a word cut off, not another structure
        seen += 1
    return seen > 0


def _clause_start(r: Reading, pos: int) -> int:
    k = bisect_left(r.breaks, pos)
    return r.breaks[k - 1] + 1 if k else 0


def _clause_end(r: Reading, pos: int) -> int:
    k = bisect_left(r.breaks, pos)
    return r.breaks[k] if k < len(r.breaks) else len(r.focus)


def _negate(
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
        cue = _cue_before(r, h, lex)
        if cue is None:
            cue, state = _cue_after(r, h, hits, opts, lex)
            if state and opts.state_question:
                confirmed.add(h.option)
                cue = None
        out.append(Hit(h.option, h.first, h.last, h.start, h.end, h.via, cue) if cue else h)
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


def _cue_before(r: Reading, h: Hit, lex: Lexicon) -> str | None:
    """A negation cue before the mention, in its clause and scope ("not the left")."""
    words, starts = r.words, r.starts
    lo = _clause_start(r, h.start)
    i = h.first - 1
    while i >= 0 and h.first - i <= _NEG_WINDOW and starts[i] >= lo:
        if lex.neg_pseudo.match_at(words, i) is not None:
            i -= 1  # "not surprisingly", "without doubt", "not only": not a denial
            continue
        for back in (0, 1, 2):  # a cue that ends here ("away from") beats "from" ending scope
            k = i - back
            p = lex.neg_before.match_at(words, k) if k >= 0 and starts[k] >= lo else None
            if p is not None and k + len(p) > i and k + len(p) <= h.first:
                return " ".join(p)
        if words[i] in lex.scope_end:
            return None
        i -= 1
    return None


def _cue_after(
    r: Reading, h: Hit, hits: list[Hit], opts: Options, lex: Lexicon
) -> tuple[str | None, bool]:
    """A cue right after the mention ("the radius is intact"); (cue, is a state cue)."""
    words, ends = r.words, r.ends
    hi = _clause_end(r, h.end)
    colon = hi < len(r.focus) and r.focus[hi] in ":("
    if colon:  # report style: "Left kidney lesion: absent.", "Left kidney (incorrect)."
        hi = _clause_end(r, hi + 1)
    j = h.last + 1
    gap = 0
    while j < len(words) and ends[j] <= hi:
        p = lex.neg_after.match_at(words, j)
        if p is not None:
            return " ".join(p), False
        p = lex.neg_after_state.match_at(words, j)
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
        if colon and r.starts[j] > h.end and words[j] in _REPORT_DENIALS:
            return words[j], words[j] in ("normal", "unremarkable")
        nxt = next((x for x in hits if x.first == j), None)
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
            if nxt2 is not None and nxt2.last + 1 < len(words) and words[nxt2.last + 1] in _PLURAL:
                j = k  # "the left and right hemispheres show no abnormality"
                continue
        if words[j] in _GAP_STOP:
            return None, False  # "female and is not pregnant": another predicate
        if words[j] not in _COPULA:
            gap += 1
            if gap > _POST_GAP:
                return None, False
        j += 1
    return None, False


def _other(label: Label) -> Label:
    return Label.B if label is Label.A else Label.A


def _comparative(
    r: Reading, hits: list[Hit], opts: Options, lex: Lexicon, cues: list[str]
) -> tuple[Label | None, str] | None:
    """Read "X is larger than Y" when the question asks which is larger; None if no reading."""
    assert opts.predicate is not None
    words = r.words
    dim, want = opts.predicate
    choices: set[Label] = set()
    for i, j in lex.comparatives.find(words):
        d, sign = lex.comparative_sign[words[i:j]]
        if d != dim:
            continue
        cues.append("comparative:" + " ".join(words[i:j]))
        lo, hi = _clause_start(r, r.starts[i]), _clause_end(r, r.ends[j - 1])
        if any(w in {"not", "no", "never"} for w in words[max(0, i - 3) : i]):
            return None, "a negated comparative"
        clause = [w for w, a in zip(words[:i], r.starts[:i], strict=True) if a >= lo]
        if any(w in _CONCESSIVE for w in clause):
            continue  # "Benign, although malignancy is more likely in smokers"
        # Denied mentions are not the subject: "the liver rather than the spleen is larger".
        before = [h for h in hits if h.last < i and h.start >= lo and not h.negation]
        after = [h for h in hits if h.first >= j and h.end <= hi]
        than_at = next(
            (k for k in range(j, len(words)) if lex.than.match_at(words, k) and r.ends[k] <= hi),
            None,
        )
        if than_at is not None:
            # "bigger than the liver" (a third organ), "smaller than expected": something
            # other than the options is the measure.
            p = lex.than.match_at(words, than_at)
            assert p is not None
            k0 = than_at + len(p)
            named = {k for h in hits for k in range(h.first, h.last + 1)}
            other = [
                w
                for k, w in enumerate(words[k0 : k0 + 6], k0)
                if k not in named and r.ends[k] <= hi and _content_word(w, lex)
            ]
            if other and not any(h.first >= k0 and h.first < k0 + 3 for h in hits):
                return None, f"compares with '{' '.join(other)}', not with the other option"
        subject = before[-1] if before else None
        if subject is None:
            # "The left kidney is smaller than the liver": the subject is not an option.
            lead = [
                w for k, w in enumerate(words[:i]) if r.starts[k] >= lo and _content_word(w, lex)
            ]
            if lead:
                return None, f"says it of '{' '.join(lead)}', not of an option"
        comparand = None
        for h in after:
            if than_at is not None and h.first > than_at:
                comparand = h
                break
            if subject is None:
                subject = h
        if subject is None and comparand is None:
            continue
        if subject is not None and comparand is not None and subject.option == comparand.option:
            return None, "compares an option with itself"
        if subject is not None:
            chosen = subject.option if sign == want else _other(subject.option)
        else:
            assert comparand is not None
            chosen = _other(comparand.option) if sign == want else comparand.option
        choices.add(chosen)
    if not choices:
        return None
    if len(choices) > 1:
        return None, "comparatives point to different options"
    chosen = choices.pop()
    return chosen, f"the comparative selects option {chosen.value}"


_EXCLUSIVE = frozenset({"modality", "sequence", "plane", "projection", "sex"})
_VISIBILITY = frozenset(
    {"visible", "see", "seen", "show", "shown", "depict", "depicted", "display", "displayed"}
    | {"include", "included", "image", "imaged", "picture", "identified", "captured", "view"}
    | {"demonstrate", "demonstrated", "visualized", "evident", "appreciated", "noted"}
)


def _exclusive(opts: Options, lex: Lexicon) -> bool:
    """Options that cannot both hold of one image (CT and MRI, T1 and T2, male and female)."""
    classes = [
        {c for w in o.key for c in lex.parallel.get(w, set())} & _EXCLUSIVE
        for o in (opts.a, opts.b)
    ]
    return bool(classes[0] & classes[1])


def _says_more(r: Reading, opts: Options, lex: Lexicon) -> bool:
    """Whether the answer says more than the options and a both cue ("Both CT and MRI")."""
    option_words = set(opts.a.words) | set(opts.b.words)
    return any(
        w not in option_words and w not in lex.both.phrases_words and _content_word(w, lex)
        for w in r.words
    )


def _about_question(r: Reading, i: int, j: int, opts: Options, lex: Lexicon) -> bool:
    """Whether the clause around words[i:j] says something the question asks about."""
    lo, hi = _clause_start(r, r.starts[i]), _clause_end(r, r.ends[j - 1])
    option_words = set(opts.a.words) | set(opts.b.words)
    rest = [
        w
        for k, w in enumerate(r.words)
        if r.starts[k] >= lo
        and r.ends[k] <= hi
        and w not in option_words
        and w not in lex.both.phrases_words
        and _content_word(w, lex)
    ]
    if not rest:
        return True
    # Only a remark that the options are visible is not an answer ("both kidneys are
    # visible"); any other predicate is taken as the question's.
    return not all(w in _VISIBILITY for w in rest)


def _content_word(w: str, lex: Lexicon) -> bool:
    return (
        w not in lex.stopwords
        and w not in lex.generic
        and w not in _COPULA
        and w not in _COMPARISON_FILLER
        and not w.isdigit()
    )


def _decide(r: Reading, hits: list[Hit], lex: Lexicon, cues: list[str], opts: Options) -> Verdict:
    f, words = r.focus, r.words
    owned = {i for h in hits for i in range(h.first, h.last + 1)}
    both_cue = [(i, j) for i, j in r.both_cue if i not in owned]
    none_cue = [(i, j) for i, j in r.none_cue if i not in owned]
    cues += ["both:" + " ".join(words[i:j]) for i, j in both_cue]
    cues += ["none:" + " ".join(words[i:j]) for i, j in none_cue]
    aff = {h.option for h in hits if h.negation is None}
    neg = {h.option for h in hits if h.negation is not None}
    t_hits, t_cues = tuple(hits), tuple(cues)

    def verdict(label: Label | None, rule: str, reason: str) -> Verdict:
        return Verdict(label, rule, reason, f, t_hits, t_cues)

    if opts.source == "or-not" and hits and not both_cue and not none_cue:
        return _or_not(hits, words, opts, verdict)
    if opts.source == "or-not" and not hits and r.lead is not None:
        # "Yes, it does." to "Does this image use contrast or not?"
        lab = Label.A if r.lead in lex.yes else Label.B
        return verdict(lab, "or-not", "yes/no to an 'X or not' question")
    if aff & neg:
        return verdict(None, "contradiction", "the answer both affirms and denies an option")
    if both_cue and not hits:
        i, j = both_cue[0]
        after = range(j, min(len(words), j + _POST_WINDOW))
        denied_after = opts.abnormal_question and any(
            lex.neg_after_state.match_at(words, k) or lex.neg_after.match_at(words, k)
            for k in after
        )
        if denied_after or any(w in _NEGATORS for w in words[max(0, i - _NEG_WINDOW) : i]):
            # "no effusion bilaterally", "both kidneys are normal": neither side has it.
            both_cue, none_cue = [], [*none_cue, both_cue[0]]
    if (both_cue or none_cue) and not hits:
        # Without a mention, the cue must be the answer ("Both.", "Bilateral", "Neither is
        # abnormal"), not a remark about something else ("Both lungs are clear").
        cue_words = {w for i, j in both_cue + none_cue for w in words[i:j]}
        other = [
            w
            for w in words
            if w not in cue_words
            and w not in opts.context
            and w not in lex.stopwords
            and w not in lex.generic
            and w not in _CUE_FILLER
        ]
        first, end = (both_cue + none_cue)[0]
        direct = first == 0 and (end >= len(words) or _YES_NO_LEAD.match(f[r.ends[end - 1] :]))
        about = [w for w in words if w in opts.context and w not in lex.stopwords]
        if other and not direct and not (len(other) <= 2 and about):
            why = f"a both/none cue about something else ('{' '.join(other[:3])}')"
            return verdict(None, "cue-elsewhere", why)
    if both_cue and hits:
        # "Both the left and right kidneys are visible": a cue about something the question
        # does not ask, or about options that cannot both hold (CT and MRI), is no answer.
        i, j = both_cue[0]
        if (_exclusive(opts, lex) and _says_more(r, opts, lex)) or not _about_question(
            r, i, j, opts, lex
        ):
            both_cue = []
            if aff == {Label.A, Label.B}:
                return verdict(None, "both-mentioned", "names both options without an answer")
    if both_cue and aff:
        i, j = both_cue[0]
        if any(
            lex.neg_after_state.match_at(words, k) or lex.neg_after.match_at(words, k)
            for k in range(j, min(len(words), j + _POST_WINDOW))
        ):
            both_cue = []  # "Both lungs look clear; the liver has a nodule": the cue is denied
    if none_cue and any(lex.neg_after_state.match_at(words, k) for k in range(len(words))):
        # "Neither the heart nor the lung appears normal" says both are abnormal.
        return verdict(None, "contradiction", "a 'neither' cue around a state word")
    if both_cue:
        if neg:
            return verdict(None, "contradiction", "a 'both' cue next to a denied option")
        if aff in ({Label.A, Label.B}, set()):
            return verdict(Label.BOTH, "both-cue", "a 'both' cue affirms both options")
        return verdict(None, "contradiction", "a 'both' cue but only one option affirmed")
    if none_cue:
        if aff:
            return verdict(None, "contradiction", "a 'none' cue next to an affirmed option")
        return verdict(Label.NONE, "none-cue", "a 'neither/none' cue")
    if len(aff) == 1:
        lab = next(iter(aff))
        other_subject = _other_subject(r, hits, lab, opts, lex)
        if other_subject:
            why = f"says it of '{other_subject}', not of what the question asks about"
            return verdict(None, "other-subject", why)
        return verdict(lab, "mention", f"affirms option {lab.value} only")
    if len(aff) == 2:
        if _joined(hits, words, _OR, strict=False):
            return verdict(None, "hedge", "names both options as alternatives ('X or Y')")
        if _joined(hits, words, _AND, strict=True):
            if any(w in {"between", "vs", "versus"} for w in words[: hits[0].first]):
                return verdict(None, "hedge", "weighs one option against the other")
            first = min(h.first for h in hits)
            last = max(h.last for h in hits)
            if (_exclusive(opts, lex) and _says_more(r, opts, lex)) or not _about_question(
                r, first, last + 1, opts, lex
            ):
                return verdict(None, "both-mentioned", "names both options without an answer")
            return verdict(Label.BOTH, "both-and", "affirms both options ('X and Y')")
        return verdict(None, "both-mentioned", "mentions both options without choosing")
    if neg == {Label.A, Label.B}:
        return verdict(Label.NONE, "both-denied", "denies both options")
    if len(neg) == 1:
        denied = next(iter(neg))
        if opts.complementary:
            lab = _other(denied)
            return verdict(lab, "complement", f"denies option {denied.value}, the only other")
        return verdict(None, "denial-only", f"denies option {denied.value} without naming another")
    return verdict(None, "no-option", "names neither option")


def _other_subject(
    r: Reading, hits: list[Hit], lab: Label, opts: Options, lex: Lexicon
) -> str | None:
    """For normal/abnormal questions: the subject of "... is normal" when it is something the
    question does not ask about ("Overall, the heart and mediastinum are normal")."""
    if not opts.normal_question:
        return None
    words = r.words
    found: str | None = None
    for h in hits:
        if h.option is not lab or h.negation:
            continue
        first = bisect_left(r.starts, _clause_start(r, h.start))
        before = [
            w
            for w in words[first : h.first]
            if w not in lex.generic
            and w not in lex.stopwords
            and w not in _COPULA
            and w not in _SUBJECT_FILLER
        ]
        if before:  # the question's own words may name the subject ("the appendix")
            before = [w for w in before if w not in opts.context]
        if not before:
            return None  # one plain "the image is normal" is enough
        found = found or " ".join(before)
    return found


def _or_not(hits: list[Hit], words: tuple[str, ...], opts: Options, verdict: Any) -> Verdict:
    """ "X or not?": X's head word decides ("an air-fluid level is present" despite "no free
    air"); otherwise any word of X, or a word only "not X" has ("no contrast")."""
    if any(h.option is Label.B for h in hits):  # a word only "not X" has: "no contrast"
        return verdict(Label.B, "or-not", "denies X in an 'X or not' question")  # type: ignore[no-any-return]
    head = opts.a.words[-1]
    on_head = [h for h in hits if head in words[h.first : h.last + 1]]
    pool = on_head or hits
    says_not = {h.option is Label.B or h.negation is not None for h in pool}
    if says_not == {True}:
        return verdict(Label.B, "or-not", "denies X in an 'X or not' question")  # type: ignore[no-any-return]
    if says_not == {False}:
        return verdict(Label.A, "or-not", "affirms X in an 'X or not' question")  # type: ignore[no-any-return]
    return verdict(None, "contradiction", "both affirms and denies X")  # type: ignore[no-any-return]


def _joined(hits: list[Hit], words: tuple[str, ...], conj: frozenset[str], *, strict: bool) -> bool:
    """True when mentions of different options are linked by one of `conj` words.

    With `strict`, nothing but coordination may stand between them: "hyperintense on T1
    and hypointense on T2" is not "both".
    """
    for a, b in zip(hits, hits[1:], strict=False):
        between = words[a.last + 1 : b.first]
        if a.option == b.option or not any(w in conj for w in between):
            continue
        if not strict or all(w in _COORD for w in between):
            return True
    return False
