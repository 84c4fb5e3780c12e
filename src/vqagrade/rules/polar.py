"""Yes/no questions: recognise a polar question and read the proposition it asks about.

"Does this image show acute pancreatitis?" asks about {acute, pancreatitis}; "Is the heart
normal?" about the heart with the predicate *normal*; "Is there no fracture?" is negated
(an answer that denies the fracture says yes); "Is there pneumonia or effusion?" asks about
a disjunction. The words come from the lexicons (`lexicons/yes_no.toml`, `[yes_no]`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lexicon import Lexicon
from .text import PhraseSet, strip_answer_instruction

_CONTRACTED = re.compile(r"\b\w+n['\u2019]t\b", re.I)


class YesNoVocab:
    """The `[yes_no]` lists of a lexicon, canonicalised once."""

    def __init__(self, lex: Lexicon) -> None:
        lists = lex.lists

        def words(name: str) -> frozenset[str]:
            return frozenset(
                w for p in lists.get(f"yes_no.{name}", ()) for w in (*lex.canon.words(p), p)
            )

        def single(name: str) -> frozenset[str]:
            # Only words that stay one word: "cardiomegaly" reads as "enlarged heart", and
            # "heart" is not an abnormal finding.
            out: set[str] = set()
            for p in lists.get(f"yes_no.{name}", ()):
                c = lex.canon.words(p)
                out.update(c if len(c) == 1 else ())
            return frozenset(out)

        def phrases(name: str) -> PhraseSet:
            return PhraseSet(lex.canon.words(p) for p in lists.get(f"yes_no.{name}", ()))

        self.lex = lex
        self.polar_starts = words("polar_starts")
        self.frame = words("frame")
        self.yes = phrases("yes")
        self.no = phrases("no")
        self.abnormal = single("abnormal")
        self.normal = phrases("normal")
        self.normal_words = frozenset(w for p in self.normal.phrases for w in p)
        self.normal_state = phrases("normal_state")
        self.superseded = phrases("superseded")
        self.normal_words = words("normal")
        # The words that make a question's predicate "normal" ("Is the heart normal?"): one
        # word phrases only, as "no abnormality" would make "abnormal" one of them.
        self.normal_predicates = single("normal") - self.abnormal
        self.dangling = words("dangling")
        self.clause_words = words("clause_words")
        self.unsettled = phrases("unsettled")
        self.other_findings = phrases("other_findings")
        self.qualifiers = words("qualifiers")
        self.contradicting_yes = words("contradicting_yes")
        self.alternatives = words("alternatives")
        self.other_language = words("other_language")
        self.foreign_marks = words("foreign_marks")
        self.foreign_denials = words("foreign_denials")
        self.foreign_normal = words("foreign_normal")
        # Matched inside Chinese and Japanese text (not split into words): tuples to scan.
        self.foreign_denial_marks = tuple(lists.get("yes_no.foreign_denial_marks", ()))
        self.foreign_normal_marks = tuple(lists.get("yes_no.foreign_normal_marks", ()))
        self.foreign_contrast = words("foreign_contrast")
        self.image_context = words("image_context")
        self.cjk_corrections = tuple(
            p for p in lists.get("yes_no.self_corrections", ()) if not p.isascii()
        )
        self.presence = words("presence")
        self.prepositions = words("prepositions")
        # Single-word denials ("negative", "none") read as negation cues in a restatement.
        self.no_words = frozenset(p[0] for p in self.no.phrases if len(p) == 1)
        self.self_corrections = phrases("self_corrections")
        self.definitions = words("definitions")
        self.modals = words("modals")
        self.hedges = phrases("hedges")
        self.organs = words("organs")
        self.bare_denials = phrases("bare_denials")
        self.report_presence = words("report_presence")
        # Parallel classes whose members cannot both hold of one image (CT and MRI).
        self.exclusive = frozenset(lex.grammar["exclusive_classes"])
        self.generic_abnormal = words("generic_abnormal")
        self.denial_intensifiers = words("denial_intensifiers")
        self.withheld = phrases("withheld")
        self.intentions = phrases("intentions")
        # Matched as a word or a word's ending ("adenocarcinoma"): a tuple for str.endswith.
        self.malignant = tuple(sorted(words("malignant_entities")))
        # Questions about a state that nothing abnormal may break ("Are the lungs clear?").
        self.state_words = lex.state_words | self.normal_predicates


_VOCABS: dict[int, YesNoVocab] = {}


def vocab(lex: Lexicon) -> YesNoVocab:
    """The yes/no vocabulary of a lexicon (built once per lexicon)."""
    hit = _VOCABS.get(id(lex))
    if hit is None or hit.lex is not lex:
        hit = _VOCABS[id(lex)] = YesNoVocab(lex)
    return hit


@dataclass(frozen=True, slots=True)
class Proposition:
    """What a yes/no question asks, as canonical words.

    `words` must all be restated by an implicit answer; with `alternatives` ("X or Y"), at
    least one of them too. `predicate` is the question's normal/abnormal word, if any.
    """

    polar: bool
    words: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()
    predicate: str | None = None
    normal_predicate: bool = False
    negated: bool = False
    implicit: bool = False
    question_words: frozenset[str] = frozenset()
    offers_or: bool = False
    comparison: tuple[str, int, str, str] | None = None
    """A comparative question ("Is the liver larger than the spleen?"): the dimension, its
    sign, and the compared words (liver, spleen)."""
    """The question holds "or": yes/no only when its gt is a bare yes/no."""
    head: str | None = None
    """The finding an existential question asks about, when it has other words ("Is there
    an ulcer in the gastric antrum?" -> ulcer; "Is there a kidney stone?" -> stone): a
    denial of it alone ("No ulcer.") denies the question."""


NOT_POLAR = Proposition(polar=False)
_SHOW = frozenset({"show", "shows", "demonstrate", "demonstrates", "reveal", "reveals"})


def _existential(body: tuple[str, ...]) -> bool:
    """ "Is there X", "Are there X", "Any X", "Evidence of X", "Does the image show X"."""
    return (
        body[0] in ("any", "evidence", "there")
        or (len(body) > 1 and body[1] == "there")
        or any(w in _SHOW for w in body[1:5])
    )


def read_question(question: str, lex: Lexicon) -> Proposition:
    """The proposition of a polar question (`polar=False` when it does not read as one).

    Args:
        question: the question text.
        lex: the lexicon.
    """
    v = vocab(lex)
    question = strip_answer_instruction(question)
    words = lex.canon.words(question)
    if not words:
        return NOT_POLAR
    start = 0
    rest = question
    if words[0] in lex.intro_starts and "," in question:
        # "In this image, is there a fracture?"
        intro, rest = question.split(",", 1)
        start = len(lex.canon.words(intro))
    if start >= len(words) or words[start] not in v.polar_starts:
        return NOT_POLAR
    body = words[start:]
    qset = frozenset(words)
    # Negation inside the question: "Is there no fracture?", "Are the changes absent?".
    cues: list[tuple[int, int]] = []
    i = 0
    while i < len(body):
        if lex.neg_pseudo.match_at(body, i) is not None:
            i += 1
            continue
        p = lex.neg_before.match_at(body, i) or lex.neg_after.match_at(body, i)
        if p is not None:
            cues.append((i, i + len(p)))
            i += len(p)
        else:
            i += 1
    # "Isn't there ...", "Is there not ...", two negations: which answer means what is
    # unclear, so only explicit answers are read.
    ambiguous = (
        bool(_CONTRACTED.search(question))
        or len(cues) > 1
        or any(body[a] == "not" and a <= 2 for a, _ in cues)
    )
    cue_at = {k for a, b in cues for k in range(a, b)}
    content = [
        (k, w)
        for k, w in enumerate(body)
        if k not in cue_at
        and w not in v.frame
        and w not in lex.stopwords
        and w not in lex.q_articles
        and w.replace("_", "").isalnum()  # "left_ventricle": a multi-word term
    ]
    alternatives: tuple[str, ...] = ()
    ors = [k for k, w in enumerate(body) if w in ("or", "nor")]
    # A list ("X, Y or Z") or a second sentence: explicit answers only.
    implicit = bool(content) and not ambiguous and "," not in rest and rest.count("?") <= 1
    if len(ors) > 1:
        implicit = False
    elif ors:
        o = ors[0]
        left = [w for k, w in content if k < o]
        right = [w for k, w in content if k > o]
        if left and right:
            alternatives = (left[-1], right[0])
            content = [(k, w) for k, w in content if w not in alternatives]
        else:
            implicit = False
    required = tuple(dict.fromkeys(w for _, w in content if w != "or"))
    comparison = None
    # A comparative before the noun it names ("the right lower lobe", "the greater
    # curvature") is part of that name, not a comparison the question asks about.
    comps = [
        (i, j)
        for i, j in lex.comparatives.find(body)
        if j >= len(body)
        or body[j] in lex.than.phrases_words
        or not body[j].isalpha()
        or body[j] in lex.stopwords
    ]
    if comps:
        # "Is the liver larger than the spleen?": read only as a comparison, else abstain.
        i, j = comps[0]
        dim, sign = lex.comparative_sign[body[i:j]]
        left = [w for k, w in content if k < i]
        right = [w for k, w in content if k >= j and w not in lex.than.phrases_words]
        if len(comps) == 1 and left and right and not alternatives:
            comparison = (dim, sign, left[-1], right[0])
        else:
            implicit = False
    predicate = None
    normal_predicate = False
    for w in reversed(required):
        if w in v.normal_predicates:
            predicate, normal_predicate = w, True
            break
        if w in v.abnormal:
            predicate = w
            break
    head = None
    if predicate is None and not alternatives and len(required) > 1 and _existential(body):
        # The finding: the content words before the first preposition after it.
        first = content[0][0]
        cut = next((k for k in range(first + 1, len(body)) if body[k] in v.prepositions), None)
        before = [w for k, w in content if cut is None or k < cut]
        head = before[-1] if before else None
    return Proposition(
        head=head,
        polar=True,
        words=required,
        alternatives=alternatives,
        predicate=predicate,
        normal_predicate=normal_predicate,
        negated=bool(cues) and not ambiguous,
        implicit=implicit and bool(required or alternatives),
        question_words=qset,
        offers_or=bool(ors),
        comparison=comparison,
    )
