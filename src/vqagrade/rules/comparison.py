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
