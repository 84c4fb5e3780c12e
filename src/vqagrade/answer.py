"""Label one answer (gt or pred) as A, B, both or none, or abstain, with the evidence.

The steps: focus on the final answer; refuse refusals, hedges and bare yes/no; find each
mention of an option (whole words through the lexicons, guarded fuzzy matching for typos);
scope negation to each mention; read comparatives when the question asks "which is larger";
read both/none cues; then decide. Anything contradictory or unmatched abstains: a wrong
confident label is the failure that matters, abstaining is cheap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from .focus import find_focus
from .labels import Label
from .lexicon import Lexicon
from .options import Options
from .text import PhraseSet, Tok, lemma_table

_LETTER_ONLY = re.compile(r"^\s*(?:(?:option|choice|answer|letter)\s*)?[(\[]?([ab])[)\].:]?\s*$", re.I)
_LETTER_LEAD = re.compile(r"^\s*(?:\(([AaBb])\)|([AB])[).:])\s+(\S.*)$", re.S)
_CLAUSE_BREAK = re.compile(r"[.;:!?,()\n]")
_NEG_WINDOW = 6
_POST_WINDOW = 4
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


@dataclass(frozen=True, slots=True)
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


def label_answer(text: str, opts: Options, lex: Lexicon) -> Verdict:
    """Label an answer against the question's options.

    Args:
        text: the answer text (gt or pred).
        opts: the options of the question.
        lex: the lexicon.
    """
    focus = find_focus(text, lex)
    f = focus.text
    if not f.strip():
        why = "the answer is empty" if not text.strip() else f"no answer text ({focus.how})"
        return Verdict(None, "empty", why, f)
    letter = _letter(f, opts, lex)
    if letter is not None:
        return letter
    toks = lex.canon.canon(f)
    words = tuple(t.text for t in toks)
    if not words:
        return Verdict(None, "no-words", "the answer has no words", f)
    for name, phrases in (("refusal", lex.refusal), ("junk", lex.junk), ("hedge", lex.hedge)):
        found = phrases.find(words)
        if found:
            i, j = found[0]
            cue = " ".join(words[i:j])
            return Verdict(None, name, f"{name}: '{cue}'", f, cues=(f"{name}:{cue}",))
    if words[0] in lex.yes or words[0] in lex.no:
        if all(w in lex.yes or w in lex.no for w in words):
            return Verdict(None, "yes-no", "a bare yes/no to a two-option question", f)
        # "No, the patient is a male.": the yes/no answers the wrong question; read the rest.
        toks, words = toks[1:], words[1:]
    if words[-1] in {"or", "nor", "either", "vs", "versus"}:
        return Verdict(None, "truncated", "the answer stops on an unfinished alternative", f)
    m = _matcher(opts, lex)
    hits = _find_hits(f, toks, words, m, lex)
    hits = _negate(f, toks, words, hits, opts, lex)
    cues: list[str] = []
    if opts.predicate is not None:
        comp = _comparative(f, toks, words, hits, opts, lex, cues)
        if comp is not None:
            return Verdict(comp[0], "comparative", comp[1], f, tuple(hits), tuple(cues))
    return _decide(f, toks, words, hits, m, opts, lex, cues)


def _letter(f: str, opts: Options, lex: Lexicon) -> Verdict | None:
    m = _LETTER_ONLY.match(f)
    if m:
        lab = Label.A if m.group(1).lower() == "a" else Label.B
        return Verdict(lab, "letter", f"answers with the letter of option {lab.value}", f)
    m2 = _LETTER_LEAD.match(f)
    if m2:
        lab = Label.A if (m2.group(1) or m2.group(2)).lower() == "a" else Label.B
        rest = label_answer(m2.group(3), opts, lex)
        if rest.label not in (None, lab):
            return Verdict(None, "contradiction", "the letter and the words disagree", f)
        return Verdict(lab, "letter", f"answers with the letter of option {lab.value}", f)
    return None


def _find_hits(
    f: str, toks: list[Tok], words: tuple[str, ...], m: _Matcher, lex: Lexicon
) -> list[Hit]:
    hits: list[Hit] = []
    taken: set[int] = set()
    for i, j in m.phrases.find(words):
        p = words[i:j]
        hits.append(Hit(m.owner[p], i, j - 1, toks[i].start, toks[j - 1].end, "word"))
        taken.update(range(i, j))
    if m.fuzzy_keys:
        vocab = _vocabulary()
        for i, w in enumerate(words):
            if i in taken or len(w) < _FUZZY_MIN_LEN or w in vocab or not w.isalpha():
                continue
            scored = sorted(((fuzz.ratio(w, k), lab) for k, lab in m.fuzzy_keys), reverse=True)
            best, lab = scored[0]
            rival = next((s for s, other in scored[1:] if other != lab), 0.0)
            if best >= _FUZZY_SCORE and best - rival >= _FUZZY_MARGIN:
                hits.append(Hit(lab, i, i, toks[i].start, toks[i].end, "fuzzy"))
    hits.sort(key=lambda h: h.first)
    return hits


def _clause_start(f: str, pos: int) -> int:
    for m in reversed(list(_CLAUSE_BREAK.finditer(f, 0, pos))):
        return m.end()
    return 0


def _clause_end(f: str, pos: int) -> int:
    m = _CLAUSE_BREAK.search(f, pos)
    return m.start() if m else len(f)


def _negate(
    f: str,
    toks: list[Tok],
    words: tuple[str, ...],
    hits: list[Hit],
    opts: Options,
    lex: Lexicon,
) -> list[Hit]:
    """Mark mentions negated by a cue before them in their clause, or after them."""
    out: list[Hit] = []
    for h in hits:
        lo = _clause_start(f, h.start)
        cue = None
        i = h.first - 1
        while i >= 0 and h.first - i <= _NEG_WINDOW and toks[i].start >= lo:
            if words[i] in lex.scope_end:
                break
            p = lex.neg_before.match_at(words, i)
            if p is not None and i + len(p) <= h.first:
                cue = " ".join(p)
                break
            i -= 1
        if cue is None:
            hi = _clause_end(f, h.end)
            j = h.last + 1
            while j < len(words) and j - h.last <= _POST_WINDOW and toks[j].end <= hi:
                p = lex.neg_after.match_at(words, j)
                if p is not None and (opts.abnormal_question or p not in lex.neg_after_abnormal_only):
                    cue = " ".join(p)
                    break
                if any(x.first == j for x in hits):
                    break
                j += 1
        out.append(Hit(h.option, h.first, h.last, h.start, h.end, h.via, cue) if cue else h)
    return out


def _other(label: Label) -> Label:
    return Label.B if label is Label.A else Label.A


def _comparative(
    f: str,
    toks: list[Tok],
    words: tuple[str, ...],
    hits: list[Hit],
    opts: Options,
    lex: Lexicon,
    cues: list[str],
) -> tuple[Label | None, str] | None:
    """Read "X is larger than Y" when the question asks which is larger; None if no reading."""
    assert opts.predicate is not None
    dim, want = opts.predicate
    choices: set[Label] = set()
    for i, j in lex.comparatives.find(words):
        d, sign = lex.comparative_sign[words[i:j]]
        if d != dim:
            continue
        cues.append("comparative:" + " ".join(words[i:j]))
        lo, hi = _clause_start(f, toks[i].start), _clause_end(f, toks[j - 1].end)
        if any(w in {"not", "no", "never"} for w in words[max(0, i - 3) : i]):
            return None, "a negated comparative"
        before = [h for h in hits if h.last < i and h.start >= lo]
        after = [h for h in hits if h.first >= j and h.end <= hi]
        than_at = next((k for k in range(j, len(words)) if lex.than.match_at(words, k)), None)
        subject = before[-1] if before else None
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


def _decide(
    f: str,
    toks: list[Tok],
    words: tuple[str, ...],
    hits: list[Hit],
    m: _Matcher,
    opts: Options,
    lex: Lexicon,
    cues: list[str],
) -> Verdict:
    owned = {i for h in hits for i in range(h.first, h.last + 1)}
    both_cue = [(i, j) for i, j in lex.both.find(words) if i not in owned]
    none_cue = [(i, j) for i, j in lex.none.find(words) if i not in owned]
    cues += ["both:" + " ".join(words[i:j]) for i, j in both_cue]
    cues += ["none:" + " ".join(words[i:j]) for i, j in none_cue]
    aff = {h.option for h in hits if h.negation is None}
    neg = {h.option for h in hits if h.negation is not None}
    t_hits, t_cues = tuple(hits), tuple(cues)

    def verdict(label: Label | None, rule: str, reason: str) -> Verdict:
        return Verdict(label, rule, reason, f, t_hits, t_cues)

    if aff & neg:
        return verdict(None, "contradiction", "the answer both affirms and denies an option")
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
        return verdict(lab, "mention", f"affirms option {lab.value} only")
    if len(aff) == 2:
        if _joined(hits, words, {"or", "vs", "versus"}):
            return verdict(None, "hedge", "names both options as alternatives ('X or Y')")
        if _joined(hits, words, {"and", "plus"}):
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


def _joined(hits: list[Hit], words: tuple[str, ...], conj: set[str]) -> bool:
    """True when mentions of different options are linked by one of `conj` words."""
    for a, b in zip(hits, hits[1:]):
        if a.option != b.option and any(w in conj for w in words[a.last + 1 : b.first]):
            return True
    return False
