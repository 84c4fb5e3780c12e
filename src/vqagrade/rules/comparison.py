"""Comparatives: "Which is larger, X or Y?" answered "Y is smaller than X" selects X; a
comparison with something other than the options abstains.
"""

from __future__ import annotations

from ..labels import Label
from ..lexicon import Lexicon
from .options import Options, stem
from .reading import Hit, Reading, clause_end, clause_start, content_word, other_option


def comparative(
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
        lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.ends[j - 1])
        if any(w in {"not", "no", "never"} for w in words[max(0, i - 3) : i]):
            return None, "a negated comparative"
        clause = [w for w, a in zip(words[:i], r.starts[:i], strict=True) if a >= lo]
        if any(w in lex.grammar["concessive"] for w in clause):
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
                if k not in named and r.ends[k] <= hi and content_word(w, lex)
            ]
            if other and not any(h.first >= k0 and h.first < k0 + 3 for h in hits):
                return None, f"compares with '{' '.join(other)}', not with the other option"
        subject = before[-1] if before else None
        if subject is None:
            # "The left kidney is smaller than the liver": the subject is not an option.
            lead = [
                w for k, w in enumerate(words[:i]) if r.starts[k] >= lo and content_word(w, lex)
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
            chosen = subject.option if sign == want else other_option(subject.option)
        else:
            assert comparand is not None
            chosen = other_option(comparand.option) if sign == want else comparand.option
        choices.add(chosen)
    if not choices:
        return None
    if len(choices) > 1:
        return None, "comparatives point to different options"
    chosen = choices.pop()
    return chosen, f"the comparative selects option {chosen.value}"


def off_comparand(r: Reading, opts: Options, lex: Lexicon) -> str | None:
    """What the answer compares against, when it is not the question's comparand."""
    words = r.words
    for i in range(len(words)):
        p = lex.than.match_at(words, i)
        if p is not None:
            rest = [w for w in words[i + len(p) : i + len(p) + 6] if content_word(w, lex)]
            known = set(opts.comparand) | {stem(w) for w in opts.comparand}
            off = [w for w in rest if w not in known and stem(w) not in known]
            if off:
                return " ".join(off)
    return None


def comparand_said(r: Reading, opts: Options, lex: Lexicon) -> str | None:
    """A word that names the question's comparand, in an answer that names not its subject
    ("The right lobe is smaller." to "Is the left lobe larger or smaller than the right
    lobe?"): the answer's comparative may be said of the comparand."""
    comparand = set(opts.comparand)
    texts = " ".join(opts.texts).lower()
    if any(c in texts for c in comparand):
        return None  # "wider-than-tall or taller-than-wide?": the options hold it
    subject = {
        w
        for w in opts.question_outside
        if w not in comparand and content_word(w, lex) and w not in opts.a.words + opts.b.words
    }
    distinct = [c for c in opts.comparand if c not in subject and content_word(c, lex)]
    said = next((c for c in distinct if c in r.wordset), None)
    if said is None:
        return None
    par = lex.parallel
    # The subject's word that opposes the comparand's ("left" for "right"), else all of it.
    rivals = {w for w in subject for c in distinct if par.get(w, set()) & par.get(c, set())}
    own = rivals or subject
    return None if own & r.wordset else said


def _sign_of(words: tuple[str, ...], lex: Lexicon) -> tuple[str, int] | None:
    """The dimension and sign an option names ("more hyperintense", "darker", "less dense";
    "hyperintense" of "more hyperintense or hypointense than X?" read with its "more")."""
    signs = lex.comparative_sign
    return signs.get(words) or signs.get(("more",) + words)


def direction(
    r: Reading, opts: Options, lex: Lexicon, cues: list[str]
) -> tuple[Label | None, str] | None:
    """Read "X is darker than Y" when the options are two directions of one dimension and
    the question names what the subject is compared with ("Is the lesion more hyperintense
    or hypointense than grey matter?"; "brighter or darker than CSF?"); None if no reading.

    The comparand must come after the comparative ("... than the grey matter"); said the
    other way round ("the grey matter is brighter than the lesion") the sign flips only when
    the question's subject is what follows "than". A negated or equal comparison abstains.
    """
    a, b = _sign_of(opts.a.words, lex), _sign_of(opts.b.words, lex)
    if a is None or b is None or a[0] != b[0] or a[1] == b[1]:
        return None
    dim = a[0]
    words = r.words
    comparand = set(opts.comparand) | {stem(w) for w in opts.comparand}
    subject = {
        w
        for w in opts.outside
        if content_word(w, lex)
        and w not in comparand
        and w not in opts.a.words
        and w not in opts.b.words
    }
    # Words that still name the comparand ("the adjacent hepatic parenchyma" for "the
    # liver"): its parts, and where it lies.
    filler = lex.grammar["comparison_filler"] | lex.grammar["comparand_fillers"]
    filler = filler | {p for c in opts.comparand for p in lex.parts.get(c, ())}
    found: set[Label] = set()
    for i, j in _comparisons(r, lex):
        key = words[i:j]
        d, sign = lex.comparative_sign.get(key) or lex.comparative_sign[("more",) + key]
        if d != dim:
            continue
        cues.append("comparative:" + " ".join(key))
        lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.ends[j - 1])
        if any(w in {"not", "no", "never", "as"} for w in words[max(0, i - 3) : i]) or (
            # "isointense to slightly hyperintense": a range ("appears to be smaller" is not)
            i >= 2 and (words[i - 1] == "to" or (words[i - 2] == "to" and words[i - 1] != "be"))
        ):
            return None, "a negated, equal or ranged comparison"
        if any(w in lex.equal for w in words[max(0, lo_word(r, lo)) : i]):
            return None, "a negated, equal or ranged comparison"
        than_at = next(
            (k for k in range(j, min(len(words), j + 3)) if lex.than.match_at(words, k)), None
        )
        if than_at is None:
            continue
        p = lex.than.match_at(words, than_at)
        assert p is not None
        after = [w for k, w in enumerate(words) if than_at + len(p) <= k and r.ends[k] <= hi]
        before = [w for k, w in enumerate(words[:i]) if r.starts[k] >= lo]
        said = [w for w in after[:6] if content_word(w, lex) and w not in filler]
        if any(w not in comparand and stem(w) not in comparand and w not in subject for w in said):
            # "larger than if the image was taken PA" to "... than if taken AP?"
            return None, f"compares with '{' '.join(said)}'"
        if any(w in comparand or stem(w) in comparand for w in after[:6]):
            if any(w in comparand or stem(w) in comparand for w in before):
                return None, "names what is compared on both sides"
            found.add(Label.A if sign == a[1] else Label.B)
        elif any(w in subject or stem(w) in subject for w in after[:6]) and any(
            w in comparand or stem(w) in comparand for w in before
        ):
            # "The grey matter is brighter than the lesion": the subject is darker.
            found.add(Label.A if -sign == a[1] else Label.B)
        else:
            return None, "compares with something the question does not name"
    if not found:
        return None
    if len(found) > 1:
        return None, "comparatives point to different options"
    chosen = found.pop()
    return chosen, f"the comparative selects option {chosen.value}"


def lo_word(r: Reading, lo: int) -> int:
    """The index of the first word at or after character `lo`."""
    return next((k for k, a in enumerate(r.starts) if a >= lo), len(r.starts))


def _comparisons(r: Reading, lex: Lexicon) -> list[tuple[int, int]]:
    """Comparatives in the answer: listed ones ("darker", "more hypointense"), and a word
    that reads as one with "more" when "than"/"relative to" follows it ("hypodense
    relative to the spleen")."""
    words = r.words
    out = list(lex.comparatives.find(words))
    taken = {k for i, j in out for k in range(i, j)}
    for i, w in enumerate(words):
        if i in taken or ("more", w) not in lex.comparative_sign:
            continue
        if any(lex.than.match_at(words, k) for k in range(i + 1, min(len(words), i + 3))):
            out.append((i, i + 1))
    return sorted(out)
