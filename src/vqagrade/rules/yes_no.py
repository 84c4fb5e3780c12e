"""Label an answer to a yes/no question as yes or no, or abstain, with the evidence.

The reading is the two-option labeller's (`vqagrade.reading`: final-answer focus, refusals,
hedges, junk, truncation); then, in order:

1. an explicit answer: a clause that is only a yes/no word ("Yes.", "No, ...", "**No**",
   "Answer: yes", "<answer>no</answer>", `{"answer": "yes"}`, "Correct.", "Not at all");
2. an implicit answer: a clause that restates the question's proposition, every word of it
   matched through the lexicons, with the negation in that clause ("There is no evidence of
   pneumothorax" -> no); a normal/abnormal predicate is also answered by its complement
   ("Is the heart normal?" - "The heart is enlarged" -> no); a negated question flips;
3. an explicit answer contradicted by an implicit one, clauses that disagree, an answer cut
   off before it commits, and anything that restates nothing abstain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..kinds import YesNo
from ..lexicon import Lexicon
from .final_answer import TABLE_FALSE, TABLE_TRUE
from .options import stem
from .polar import Proposition, YesNoVocab, vocab
from .reading import (
    _NEGATORS,
    OPENING_QUESTION,
    Reading,
    clause_start,
    read_answer,
    score_list,
    sentence_span,
)
from .text import cognate

_JSON_ANSWER = re.compile(r"""^\s*\{\s*["']?answer["']?\s*:\s*["']?([^"'{}]*)["']?""", re.I)
_TERMINAL = frozenset(".!?)]}\"'*`")
_EXPLICIT_EARLY = "yes-no"
# Parallel classes of words that pick out a part ("left kidney", "upper lobe").
_PART_CLASSES = frozenset({"laterality", "position"})
_WHOLE = frozenset({"both", "bilateral", "bilaterally"})
_WIDE_BREAKS = frozenset("，、。；：！？")
_NEGATED_NO = "a 'no' to a negated question may mean 'there is none'"


@dataclass(slots=True, eq=False)
class YesNoVerdict:
    """The yes/no label of one answer and why."""

    label: YesNo | None
    rule: str
    reason: str
    focus: str
    matched: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()


def label_yes_no(
    r: Reading,
    prop: Proposition,
    lex: Lexicon,
    depth: int = 0,
    *,
    gt: bool = False,
    text: str = "",
) -> YesNoVerdict:
    """Label a read answer to a yes/no question.

    Args:
        r: the answer's reading (`vqagrade.rules.reading.read_answer`).
        prop: the question's proposition (`vqagrade.rules.polar.read_question`).
        lex: the lexicon.
        depth: nesting of answers read out of a JSON object.
        gt: the answer is a ground truth (see `_label`).
        text: the whole answer, when the reading's focus is a part of it.

    A label is then held against what the answer says beside it: a phrase that withholds
    the answer ("it may also be X", "the two cannot be distinguished"), a "benign" lesion
    to a question about a malignant one, and the reasoning or text beside an answer tag
    ("<think>... So the lung is not healthy.</think><answer>Yes</answer>").
    """
    out = _label(r, prop, lex, depth, gt=gt, text=text)
    if out.label is not None and score_list(r.focus):
        # "melanoma 0.50 / nevus 0.50": a classifier's scores for several labels.
        why = "lists scores for several labels, not an answer"
        return YesNoVerdict(None, "ambiguous", why, r.focus)
    if out.label is None or depth > 0:
        return out
    if _yes_or_no(r.words, lex):
        # "Is there compression? Yes or no, the image shows the spine.": both offered.
        why = "offers both 'yes' and 'no' as alternatives"
        return YesNoVerdict(None, "alternatives", why, out.focus, out.matched, out.cues)
    v = vocab(lex)
    held = _withheld(r.words, prop, v)
    if held is not None:
        why = f"explicit '{out.label.value}' withheld by '{held}'"
        return YesNoVerdict(None, "withheld", why, out.focus, out.matched, out.cues)
    if out.label is YesNo.YES and _benign_to_malignant(r.words, prop, v):
        why = "says 'benign' to a question about a malignant lesion"
        return YesNoVerdict(None, "contradiction", why, out.focus, out.matched, out.cues)
    if r.notes:
        # {"answer": "yes", "impression": "no acute abnormality"}: the other fields of a JSON
        # answer must neither withhold it nor read as the other answer.
        nr = read_answer(r.notes, lex)
        if nr.early is not None and nr.early.rule in ("refusal", "hedge", "junk"):
            why = f"the other fields of the JSON answer withhold it ({nr.early.reason})"
            return YesNoVerdict(None, "notes", why, out.focus, out.matched, out.cues)
        other = _reasoning_reads(r.notes, out.label, prop, lex, v, gt)
        if other:
            why = f"the JSON answer's other fields: {other}"
            return YesNoVerdict(None, "notes", why, out.focus, out.matched, out.cues)
    if text and ("<" in text or r.reasoning):
        # An answer tag's reasoning and surroundings, or the text before a \boxed{} answer.
        beside = _beside_tag(text, r) if "<" in text else r.reasoning
        if beside:
            other = _reasoning_reads(beside, out.label, prop, lex, v, gt)
            if other:
                why = f"the reasoning beside the answer tag {other}"
                return YesNoVerdict(None, "reasoning", why, out.focus, out.matched, out.cues)
    return out


def _label(
    r: Reading,
    prop: Proposition,
    lex: Lexicon,
    depth: int = 0,
    *,
    gt: bool = False,
    text: str = "",
) -> YesNoVerdict:
    """Label a read answer to a yes/no question, the answer alone.

    Args:
        r: the answer's reading (`vqagrade.rules.reading.read_answer`).
        prop: the question's proposition (`vqagrade.rules.polar.read_question`).
        lex: the lexicon.
        depth: nesting of answers read out of a JSON object.
        gt: the answer is a ground truth: it answers the question as posed, so a bare "no"
            to a negated question is read as no (from a model it may mean "there is none").
        text: the whole answer, when the reading's focus is a part of it: a correction after
            the focus ("Answer: Yes. Wait - looking again ...") withdraws the answer.
    """
    v = vocab(lex)
    f = r.focus
    if depth == 0 and text and f and len(text) > len(f):
        at = text.find(f)
        after = text[at + len(f) :] if at >= 0 else ""
        if after.strip() and v.self_corrections.find(lex.canon.words(after)):
            why = "the answer is corrected after it is given"
            return YesNoVerdict(None, "self-correction", why, f)
    m = _JSON_ANSWER.match(f) if depth == 0 and "{" in f else None
    if m and m.group(1).strip():
        return label_yes_no(read_answer(m.group(1), lex), prop, lex, depth + 1, gt=gt)
    early = r.early
    if early is not None and early.rule != _EXPLICIT_EARLY:
        return YesNoVerdict(None, early.rule, early.reason, f, cues=early.cues)
    if depth == 0 and "|" in f and f.count("\n") >= 2:
        row = _table_row(f, prop, lex)
        if row is not None:
            lab, why = row
            return YesNoVerdict(lab, "table" if lab else "ambiguous", why, f)
    if "if" in r.wordset and _conditional_answer(f, lex):
        # "If it represents methaemoglobin then yes; if it is fat, no."
        why = "the yes/no is given under a condition ('if …')"
        return YesNoVerdict(None, "conditional", why, f)
    words = r.words
    if early is not None:  # every word is a yes/no word ("yes", "No no")
        echoed = _own_polarity(words, prop, lex)
        if echoed is not None:
            how = "ambiguous" if echoed[0] is None else "implicit"
            return YesNoVerdict(echoed[0], how, echoed[1], f)
        lab = _polarity(words, 0, len(words), v)
        if lab is None:
            return YesNoVerdict(None, "contradiction", "says both yes and no", f)
        if lab is YesNo.NO and prop.negated and not gt:
            return YesNoVerdict(None, "ambiguous", _NEGATED_NO, f)
        return YesNoVerdict(lab, "explicit", f"explicit '{lab.value}'", f)
    if (
        not lex.yes.isdisjoint(r.wordset)
        and not lex.no.isdisjoint(r.wordset)
        and _flips(f, lex) >= 2
    ):
        # "Yes, there is. No, there is not. Yes, there is.": a loop, not a correction.
        return YesNoVerdict(None, "contradiction", "flips between yes and no", f)
    explicit: set[YesNo] = set()
    cues: list[str] = []
    qualified = False
    clauses = _clauses(r, v)
    corrected = _correction(words, clauses, v)
    if r.lead is not None and corrected is None:  # "No, ..." (the reading set the lead apart)
        lab = YesNo.YES if r.lead in lex.yes else YesNo.NO
        explicit.add(lab)
        cues.append(f"explicit:{r.lead}")
        qualified = bool(words) and words[0] in v.qualifiers
    if corrected is not None:
        # "Yes. Wait, looking again, ...": only what follows the correction is read.
        clauses = corrected
    rest: list[tuple[int, int]] = []
    for a, b in clauses:
        lab = _polarity(words, a, b, v)
        if (
            lab is not None
            and b < len(words)
            and words[b] in ("and", "or")
            and not r.focus[r.ends[b - 1] : r.starts[b]].strip()
            and b + 1 < len(words)
            and (v.yes.match_at(words, b + 1) or v.no.match_at(words, b + 1))
            and any(w in prop.words for w in words[a:b])
        ):
            lab = None  # "Positive and negative controls are shown": a coordination
        if (
            lab is None
            and a == 0
            and b - a > 1
            and words[0] in lex.yes
            and words[1] not in ("or", "and", "nor")
            and not any(w in v.no_words for w in words[a:b])
        ):
            lab = YesNo.YES  # "Yes there is a fracture" (no comma); "No fracture" is a denial
            explicit.add(lab)
            cues.append(f"explicit:{words[0]}")
            rest.append((a + 1, b))
            continue
        if lab is not None and (echoed := _own_polarity(words[a:b], prop, lex)) is not None:
            if echoed[0] is None:
                return YesNoVerdict(None, "ambiguous", echoed[1], f, cues=tuple(cues))
            lab = echoed[0]  # "Positive." to "Is the Gram stain positive?"
        if lab is not None:
            explicit.add(lab)
            cues.append(f"explicit:{' '.join(words[a:b])}")
            # "Yes, but ...": the word after the answer qualifies it.
            qualified = qualified or (b < len(words) and words[b] in v.qualifiers)
        else:
            rest.append((a, b))
    if explicit and qualified:
        why = "the explicit answer is qualified ('but', 'if', ...)"
        return YesNoVerdict(None, "qualified", why, f, cues=tuple(cues))
    if len(explicit) > 1:
        return YesNoVerdict(None, "contradiction", "says both yes and no", f, cues=tuple(cues))
    # An answer in another language ("Kein Pneumothorax."): its terms may be restated in
    # their English form, but its negations are not known; only explicit answers are read.
    foreign = any(w in v.other_language for w in words)
    found = _implicit(r, rest, prop, lex, v) if prop.implicit and not foreign else None
    said = next(iter(explicit)) if explicit else None
    if said is not None and rest:
        clash = _foreign_rest(words, rest, prop, said, v)
        if clash:
            return YesNoVerdict(None, "contradiction", clash, f, cues=tuple(cues))
    if said is YesNo.YES:
        clash = _yes_clash(words, rest, prop, lex, v)
        if clash:
            return YesNoVerdict(None, "contradiction", clash, f, cues=tuple(cues))
    if said is YesNo.YES and prop.negated and words and words[0] in v.contradicting_yes:
        # "Si, épanchement pleural gauche" to "Is there no pleural effusion?"
        why = f"'{words[0]}' to a negated question contradicts it, unlike 'yes'"
        return YesNoVerdict(None, "ambiguous", why, f, cues=tuple(cues))
    if said is not None and rest and (said is YesNo.NO) is not prop.negated:
        # "No, it is benign." to "Is the lesion benign?"; "Yes, it is enlarged." to "Is the
        # spleen not enlarged?": the rest says the question's own predicate holds.
        held = _predicate_held(words, rest, prop, lex, v)
        if held is not None:
            why = f"explicit '{said.value}' but the rest says it is '{held}'"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
    if said is not None and _ASKED.match(f):
        # "Yes? The root apex overlaps the canal ...": a yes that asks.
        return YesNoVerdict(None, "hedge", "the yes/no is asked, not answered", f)
    if said is not None and "?" in f:
        own = _own_question(f, prop, lex, v)
        if own is not None:
            # "Trachea deviated? No." to "Is the trachea midline?": the yes/no answers the
            # answer's own question.
            why = f"the yes/no answers a question of the answer's own ('{own}')"
            return YesNoVerdict(None, "ambiguous", why, f, cues=tuple(cues))
    if said is YesNo.NO and prop.normal_predicate:
        denied = _denies_abnormality(words, rest, v, lex)
        if denied is not None:
            why = f"explicit 'no' but the rest denies '{denied}'"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
    if found is not None and found[0] is None:
        if said is not None and found[1] == "a comparison that is not read":
            # "Yes, the right kidney is larger than the left." to "Is the left kidney larger
            # than the right?": a comparison the rules cannot order may say the opposite.
            why = "the explicit answer is followed by a comparison that is not read"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
        if said is not None and found[1] == "clauses disagree":
            why = "the explicit answer is followed by clauses that disagree"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
        found = None if said is not None else found
    if said is YesNo.NO and found is None:
        if prop.negated and not gt:
            return YesNoVerdict(None, "ambiguous", _NEGATED_NO, f, cues=tuple(cues))
        seen = _finding_seen(words, rest, lex, v)
        if seen is not None:
            # "No, a 6 mm echogenic focus with shadowing is seen": the rest may describe
            # what was asked about in other words.
            why = f"explicit 'no' but the rest says a finding is '{seen}'"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
    if (said is YesNo.YES or (said is None and found is not None and found[0] is YesNo.YES)) and (
        prop.question_words & v.state_words
    ):
        # "Are the lungs clear?" - "Yes, ..., although there is a patchy opacity".
        bad = _abnormal_named(words, rest, prop, v, lex)
        if bad is not None:
            why = f"says '{'yes' if said else 'clear'}' but names an abnormal finding ('{bad}')"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
    if prop.normal_predicate and (
        said is YesNo.YES or (said is None and found is not None and found[0] is YesNo.YES)
    ):
        # "The mucosa appears normal. However, there are areas of erythema.": what follows
        # the contrast is not read as normal or abnormal, and may undo the answer.
        turn = lex.grammar["contrast"] | lex.grammar["concessive"]
        k = next((i for i, w in enumerate(words) if w in turn), None)
        if (
            k is not None
            and k > 0
            and not _denial_in(words[k:], lex, v)
            # "..., but it is important to consult a healthcare professional": advice
            and lex.grammar["advice"].isdisjoint(words[k:])
        ):
            why = f"says it is normal, then '{words[k]}' says more"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
    if said is not None:
        if found is not None and found[0] is not said:
            why = f"explicit '{said.value}' but the rest says '{found[0].value}'"  # type: ignore[union-attr]
            return YesNoVerdict(None, "contradiction", why, f, found[2], tuple(cues))
        if said is YesNo.NO and not prop.negated:
            rival = _rival_denied(words, rest, prop, lex)
            if rival is not None:
                # "Nein, … nicht um einen benignen Tumor, sondern um ein invasives Karzinom."
                why = f"explicit 'no' but the rest denies the rival ('{rival}')"
                return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
        if said is YesNo.NO:
            part = _unseen_part(r, clauses, prop, v)
            if part is not None:
                return YesNoVerdict(None, "qualified", part, f, cues=tuple(cues))
            same = _identity_restated(words, rest, prop, lex, v) or _restated_after_no(
                words, rest, prop, lex, v
            )
            if same is not None:
                # "No, this is a gross photograph of ..." to "is this a gross specimen?"
                why = f"explicit 'no' but the rest says it is '{same}'"
                return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
        double = _double_negation(r)
        if double:
            # "No, I don't think there is no abnormality here — the mucosa is ulcerated."
            why = f"explicit '{said.value}' beside a double negation ('{double}')"
            return YesNoVerdict(None, "contradiction", why, f, cues=tuple(cues))
        if said is YesNo.YES and _defines_finding(_LEAD.sub("", f), prop, lex):
            # "Yes, acoustic shadowing is the dark band that appears deep to …"
            why = "explicit 'yes', then a definition of the question's finding"
            return YesNoVerdict(None, "general", why, f, cues=tuple(cues))
        how = "explicit"
        matched: tuple[str, ...] = found[2] if found is not None else ()
        return YesNoVerdict(said, how, f"explicit '{said.value}'", f, matched, tuple(cues))
    if found is None and not foreign:
        found = _short_answer(words, prop, lex, v)
    if found is None and explicit == set() and prop.implicit:
        found = _foreign_denial(r, prop, v)
    if found is None:
        why = "no yes/no and no restatement of the question"
        return YesNoVerdict(None, "no-answer", why, f)
    lab, why, matched = found
    if lab is None:
        return YesNoVerdict(None, "implicit", why, f, matched)
    if lab is YesNo.YES and _defines_finding(f, prop, lex):
        # "The double bubble sign is associated with duodenal atresia.": a definition of the
        # finding asked about, not a statement that this image shows it.
        why = "defines the question's finding instead of saying it is there"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if OPENING_QUESTION.match(f):
        # "Which hernia do you mean — inguinal or umbilical? Both regions are in the field."
        why = "the answer opens with a question of its own"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if lab is YesNo.YES and _raw_echo(r, prop, text, lex):
        why = "repeats the question's noun without saying whether it is there"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if _reconsidered(r, matched, v):
        # "The lungs are hyperinflated. However, … so they may actually be normal."
        why = "the answer reconsiders what it restated"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if lab is YesNo.YES and _then_this_case(r, lex):
        # "A WES sign is typical of a stone-filled gallbladder, but here the lumen is
        # anechoic …": the question's words in a general sentence, then this case.
        why = "restates the question's words before a contrast with this case ('but here')"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if lab is YesNo.YES and not r.wordset.isdisjoint(_WEIGHING):
        # "Streptococci form chains while staphylococci form clusters": a contrast of two
        # kinds, not a statement about this image.
        why = "restates the question's words in a contrast with something else"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if lab is YesNo.YES and "such" in r.wordset and _CAUSES.search(r.focus):
        # "Various conditions such as allergic reactions ... can cause this.": the
        # restatement is said of such findings in general.
        why = "restates the question's words in a general statement"
        return YesNoVerdict(None, "implicit", why, f, matched)
    if _cut_off(r, v) and not _committed(r, matched, v):
        why = "the answer is cut off before it ends"
        return YesNoVerdict(None, "truncated", why, f, matched)
    if lab is YesNo.NO:
        part = _unseen_part(r, clauses, prop, v)
        if part is not None:
            return YesNoVerdict(None, "qualified", part, f, matched)
    return YesNoVerdict(lab, "implicit", why, f, matched)


# A sentence whose subject is the finding asked about and whose predicate defines it: a
# defining phrase right after "is/are", or a noun phrase and then where it is seen.
_DEFINING = re.compile(
    r"^(?:the |an? )?(?P<subject>[^.;]{2,80}?) (?:is|are) "
    r"(?:(?:associated with|characteristic of|typical of|pathognomonic|caused by|defined as"
    r"|recogni[sz]ed by"
    r"|(?:a |the )?(?:common |typical |classic |frequent )?(?:feature|hallmark|sign)s? of)"
    r"|\w+(?: \w+){1,4} (?:seen|found|observed) in"
    # "… is the dark band that appears deep to …": what the term is, not what is here
    r"|(?:the|an?) (?:\w+ ){0,3}\w+ (?:that|which) (?:appears?|forms?|occurs?|results?|is|are))\b",
    re.I,
)
# A yes or no that opens an answer, with what follows it.
_LEAD = re.compile(r"^\W*(?:yes|no)\b[\s,.;:!\u2014\u2013-]*", re.I)


def _defines_finding(f: str, prop: Proposition, lex: Lexicon) -> bool:
    """Whether a sentence of the answer defines the question's finding (its subject holds
    every word of the question, or the finding an existential question names)."""
    need = {stem(w) for w in prop.words}
    if not need:
        return False
    finding = prop.head or prop.predicate
    head = stem(finding) if finding else None  # "Is there tumour necrosis?": necrosis
    for piece in re.split(r"(?<=[.;!?])\s+", f):
        m = _DEFINING.match(piece.strip())
        if m:
            said = {stem(w) for w in lex.canon.words(m.group("subject"))}
            if need <= said or head in said:
                return True
    return False


_TAGGED = re.compile(r"<think>.*?</think>|<answer>.*?(?:</answer>|$)", re.I | re.S)
_TAG = re.compile(r"</?\w+>")
_THINK_ONLY = re.compile(r"<think>.*?</think>", re.I | re.S)
# Sentences, and a conclusion inside one ("..., so hemosiderin is present").
# (One character class opens the pattern, so the regex engine skips ahead to candidates: the
# same as "(?<=[.!?])\s+|\n+|[,;]\s*(?=...)", which is tried at every position, 2x slower.)
_PIECES = re.compile(
    r"[\s,;](?:(?<=[.!?]\s)\s*|(?<=\n)\n*|(?<=[,;])\s*(?=(?:so|therefore|thus|hence)\b))", re.I
)
# A conclusion word that opens a piece ("So the lung is not healthy."): left out.
_CONCLUDES = re.compile(
    r"\s*(?:so|therefore|thus|hence|overall|in summary|in conclusion)\b[,:]?", re.I
)
# Parts whose words are relative ("contralateral") or whole ("both"): they name no side.
_RELATIVE = frozenset({"contralateral", "ipsilateral", "unilateral"})


def _withheld(words: tuple[str, ...], prop: Proposition, v: YesNoVocab) -> str | None:
    """A phrase that withholds the answer ("may also be", "cannot be distinguished"), unless
    the question asks about it ("Can the two be distinguished?")."""
    for i, j in v.withheld.find(words):
        if not set(words[i:j]) <= prop.question_words:
            return " ".join(words[i:j])
    return None


def _benign_to_malignant(words: tuple[str, ...], prop: Proposition, v: YesNoVocab) -> bool:
    """The question asks about a malignant entity ("Is this a sarcoma?") and the words call
    what is seen benign, without denying it or naming malignancy themselves."""
    if "benign" not in words or not any(w.endswith(v.malignant) for w in prop.question_words):
        return False
    if any(w.endswith(v.malignant) for w in words):
        return False  # "benign or malignant", "not a benign lesion but a sarcoma"
    return any(w == "benign" and not _denied(words, i) for i, w in enumerate(words))


def _beside_tag(text: str, r: Reading) -> str:
    """The reasoning blocks of an answer with an answer tag and the text outside its tags
    ("" when the answer has no answer tag)."""
    if "<answer" not in text.lower():
        # "<think>... So abnormal.</think> Final answer: **No**": the reasoning blocks
        # before an answer outside any tag.
        if "<think" not in text.lower():
            return ""
        return " ".join(m.group(0)[7:-8] for m in _THINK_ONLY.finditer(text)).strip()
    outside = _TAG.sub(" ", _TAGGED.sub(" ", text)).strip()
    return " ".join(x for x in (r.reasoning, outside) if x)


def _reasoning_reads(
    text: str, label: YesNo, prop: Proposition, lex: Lexicon, v: YesNoVocab, gt: bool
) -> str:
    """How a reasoning contradicts the label of its answer tag ("" when it does not): a
    sentence or conclusion of it that reads as the other answer, or one that calls the
    lesion benign when the tag says yes to a malignant one."""
    found = ""
    for piece in _PIECES.split(text):
        if not any(c.isalpha() for c in piece):
            continue
        if v.self_corrections.find(lex.canon.words(piece)):
            found = ""  # "… the answer is no. Hmm, that contradicts …, so yes.": corrected
        m = _CONCLUDES.match(piece)
        pr = read_answer(piece[m.end() :] if m else piece, lex)
        if v.intentions.find(pr.words) or lex.purpose.find(pr.words):
            continue  # "I need to check for pneumothorax": what it sets out to do
        if label is YesNo.YES and _benign_to_malignant(pr.words, prop, v):
            found = found or "calls the lesion benign"
            continue
        out = _label(pr, prop, lex, 1, gt=gt)
        got = out.label
        if got is None and not prop.negated and out.reason.startswith("a denial qualified"):
            # "There are no obvious anomalies" to "Is there any anomaly?": too qualified to
            # answer "no", yet no reasoning behind a "yes" (a healthy organ's denial leans
            # "yes" to "Is the colon healthy?").
            got = YesNo.YES if prop.normal_predicate else YesNo.NO
        if got is not None and got is not label:
            found = found or f"reads as '{got.value}' ('{piece.strip()[:60]}')"
    return found


def reasoning_contradicts(text: str, label: YesNo, prop: Proposition, lex: Lexicon) -> str:
    """How a reasoning (a <think> block, the text before a conclusion) contradicts `label`
    as the answer to the yes/no question `prop` ("" when it does not)."""
    return _reasoning_reads(text, label, prop, lex, vocab(lex), False)


def _other_part(
    words: tuple[str, ...], ranges: list[tuple[int, int]], prop: Proposition, lex: Lexicon
) -> str | None:
    """A side the ranges name when the question names another one and they do not ("Is
    there an effusion on the right?" - "Yes, a left effusion"). Positions ("upper", "apex")
    are left out: an answer often places a finding more closely than the question."""
    for cls in ("laterality",):
        asked = {
            w
            for w in prop.question_words
            if cls in lex.parallel.get(w, ()) and w not in _WHOLE and w not in _RELATIVE
        }
        if not asked:
            continue
        named = [
            words[i]
            for a, b in ranges
            for i in range(a, b)
            if cls in lex.parallel.get(words[i], ()) and words[i] not in _WHOLE
        ]
        named = [w for w in named if w not in _RELATIVE]
        if named and not asked & set(named):
            return named[0]
    return None


def _yes_or_no(words: tuple[str, ...], lex: Lexicon) -> bool:
    """Whether the words hold "yes or no" / "no or yes" (an echo of the choice, no answer)."""
    if "or" not in words:
        return False
    for i in range(1, len(words) - 1):
        if words[i] == "or":
            a, b = words[i - 1], words[i + 1]
            if (a in lex.yes and b in lex.no) or (a in lex.no and b in lex.yes):
                return True
    return False


def bare_yes_no(words: tuple[str, ...], lex: Lexicon) -> bool:
    """Whether an answer is only a yes or only a no, in any language the lexicon knows
    ("Nein", "Sí", "是的", "いいえ")."""
    return bool(words) and _polarity(words, 0, len(words), vocab(lex)) is not None


def label_yes_no_text(text: str, prop: Proposition, lex: Lexicon) -> YesNoVerdict:
    """Label an answer text against a yes/no question's proposition."""
    return label_yes_no(read_answer(text, lex), prop, lex)


def _foreign_denial(
    r: Reading, prop: Proposition, v: YesNoVocab
) -> tuple[YesNo | None, str, tuple[str, ...]] | None:
    """'No' to "Is there X?" from an answer in another language that denies X by name ("No se
    observa neumoperitoneo.", "Kein Hinweis auf einen Mitralklappenprolaps.", "Je ne vois pas
    de hernie hiatale."): a denial cue before a cognate of every word of the question's
    finding, in one clause with no contrast. Anything else is left unread."""
    words = r.words
    if prop.negated or prop.normal_predicate or prop.alternatives or not prop.words:
        return None
    if not any(w in v.foreign_marks or w in v.other_language for w in words):
        return None  # English answers are read by the rules above
    if len(words) > 16 or any(w in v.foreign_contrast for w in words) or ";" in r.focus:
        return None
    needed = [w for w in prop.words if w not in v.image_context]
    if not needed:
        return None
    spots = []
    for target in needed:
        at = next((k for k, w in enumerate(words) if cognate(target, w)), None)
        if at is None:
            return None
        spots.append(at)
    first = min(spots)
    before = range(max(0, first - 6), first)
    cue = next((words[j] for j in before if words[j] in v.foreign_denials), None)
    if cue is None:
        return None
    return YesNo.NO, f"denies the question's finding in another language ('{cue}')", tuple(needed)


def _foreign_rest(
    words: tuple[str, ...],
    rest: list[tuple[int, int]],
    prop: Proposition,
    said: YesNo,
    v: YesNoVocab,
) -> str:
    """Why an explicit yes/no is not kept when the rest of the answer is in another language
    ("" when it is kept or the rest is English): its negations and findings are not read
    there, so the rest must at least point the same way ("Sí. No se identifica trazo de
    fractura" to "Is there a fracture?" points to no)."""
    tail = [w for a, b in rest for w in words[a:b]]
    cjk = [w for w in tail if any("\u3040" <= c <= "\u9fff" for c in w)]
    if not cjk and not any(w in v.foreign_marks or w in v.other_language for w in tail):
        return ""
    if prop.negated:
        return "explicit answer to a negated question, the rest in another language"
    if v.self_corrections.find(tuple(tail)) or any(m in w for w in cjk for m in v.cjk_corrections):
        return "the rest, in another language, corrects the answer"
    denial = any(w in v.foreign_denials for w in tail) or any(
        m in w for w in cjk for m in v.foreign_denial_marks
    )
    normal = any(w in v.foreign_normal for w in tail) or any(
        m in w for w in cjk for m in v.foreign_normal_marks
    )
    absent = denial or normal  # the rest says something is absent or normal
    if prop.normal_predicate:
        expected = YesNo.YES if absent else YesNo.NO
    else:
        expected = YesNo.NO if absent else YesNo.YES
    if expected is said:
        return ""
    what = "says something is absent or normal" if absent else "describes a finding"
    return f"explicit '{said.value}' but the rest, in another language, {what}"


def _polarity(words: tuple[str, ...], a: int, b: int, v: YesNoVocab) -> YesNo | None:
    """YES or NO when words[a:b] is made only of yes phrases or only of no phrases."""
    seen: set[YesNo] = set()
    i = a
    while i < b:
        p = v.no.match_at(words, i)
        q = v.yes.match_at(words, i)
        best = max((x for x in (p, q) if x is not None and i + len(x) <= b), key=len, default=None)
        if best is None:
            return None
        seen.add(YesNo.NO if best == p else YesNo.YES)
        i += len(best)
    return next(iter(seen)) if len(seen) == 1 else None


def _clauses(r: Reading, v: YesNoVocab) -> list[tuple[int, int]]:
    """Token ranges between clause punctuation and clause words ("but", "and")."""
    out: list[tuple[int, int]] = []
    words, starts, breaks = r.words, r.starts, r.breaks
    a = 0
    bi = 0
    for i in range(len(words)):
        cut = False
        while bi < len(breaks) and breaks[bi] < starts[i]:
            bi += 1
            cut = True
        if not cut and i > a and any(c in _WIDE_BREAKS for c in r.focus[r.ends[i - 1] : starts[i]]):
            cut = True  # "是的，心脏增大。", "いいえ、骨折は認められません。"
        if cut and i > a:
            out.append((a, i))
            a = i
        if words[i] in v.clause_words:
            if i > a:
                out.append((a, i))
            a = i + 1
    if a < len(words):
        out.append((a, len(words)))
    return out


def _match(w: str, targets: tuple[str, ...]) -> str | None:
    for t in targets:
        if w == t or stem(w) == stem(t):
            return t
    return None


def _implicit(
    r: Reading,
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> tuple[YesNo | None, str, tuple[str, ...]] | None:
    """The label of the clauses that restate the proposition (None: none restates it)."""
    labels: set[YesNo] = set()
    matched: list[str] = []
    why = ""
    for a, b in _denied_lists(r, ranges, lex):
        got = _clause(r, a, b, prop, lex, v)
        if got is None:
            continue
        lab, reason, words = got
        matched.extend(words)
        if lab is None:
            return None, reason, tuple(matched)
        labels.add(lab)
        why = reason
    if not labels:
        return None
    if len(labels) > 1:
        return None, "clauses disagree", tuple(matched)
    lab = next(iter(labels))
    head = prop.head or (prop.words[-1] if prop.words else None)
    if lab is YesNo.YES and head is not None and _head_denied(r, head, v, prop.words):
        # "no definite fracture line visualised. Occult supracondylar fracture likely.": a
        # denial of the finding itself elsewhere in the answer leaves it undecided.
        return None, f"another clause denies the '{head}'", tuple(matched)
    if lab is YesNo.YES and prop.normal_predicate:
        # "The left kidney is normal but the right kidney is atrophic."
        bad = next(
            (w for i, w in enumerate(r.words) if w in v.abnormal and not _denied(r.words, i)),
            None,
        )
        if bad is not None:
            return None, f"also names an abnormal finding ('{bad}')", tuple(matched)
    if prop.negated:
        lab = YesNo.NO if lab is YesNo.YES else YesNo.YES
        why += "; the question is negated"
    return lab, why, tuple(matched)


_LIST_DENIALS = frozenset({"no", "without"})
# A finding named among causes in general ("conditions such as X, Y or Z can cause this").
_CAUSES = re.compile(
    r"\bsuch as\b.*\b(?:can|may|could) (?:cause|produce|present|look|appear)", re.I | re.S
)
# A yes or no that asks rather than answers ("Yes? The root apex overlaps ...").
_ASKED = re.compile(r"\s*\**(?:yes|no|maybe yes|probably yes|probably no)\**\s*\?", re.I)


def _denied_lists(r: Reading, ranges: list[tuple[int, int]], lex: Lexicon) -> list[tuple[int, int]]:
    """Clauses with the items of a denied list joined back to the denial: "No focal
    consolidation, effusion or pneumothorax." denies all three (a comma after a clause that
    opens with "no" continues its list when what follows is a short verbless phrase)."""
    if len(ranges) < 2 or _LIST_DENIALS.isdisjoint(r.wordset):
        return ranges
    words, f = r.words, r.focus
    verbs = lex.grammar["copula"]
    out = [ranges[0]]
    for a, b in ranges[1:]:
        pa, pb = out[-1]
        gap = f[r.ends[pb - 1] : r.starts[a]] if pb == a else ""
        if (
            words[pa] in _LIST_DENIALS
            and words[a] not in _LIST_DENIALS
            and gap.strip() == ","
            and b - a <= 4
            and not any(w in verbs for w in words[a:b])
        ):
            out[-1] = (pa, b)
        else:
            out.append((a, b))
    return out


def _raw_echo(r: Reading, prop: Proposition, text: str, lex: Lexicon) -> bool:
    """A whole answer that is the question's noun as a small fine-tuned model writes it
    ("necrosis", "polyp" to "is there necrosis?"): lower case, no punctuation, nothing but
    question words. It says nothing about whether the finding is there (a terse "Effusion."
    in report style, or a JSON flag, names it as seen)."""
    f = r.focus.strip()
    return (
        0 < len(r.words) <= 3
        and (not text or text.strip() == f)
        and f == f.lower()
        and f[-1:].isalnum()
        and all(
            w in prop.question_words and not w.endswith(lex.adjective_suffixes) for w in r.words
        )
    )


_PLAIN = frozenset({"yes", "no"})  # listed by "… options: [yes, no]", never a predicate


def _general_statements(words: tuple[str, ...], lex: Lexicon) -> list[tuple[int, int]]:
    """General statements of the answer ("X is a common complication of", "can all present
    with"), less relative clauses ("…, which may suggest"), which comment on a finding."""
    return [
        (i, j) for i, j in lex.generic_statements.find(words) if words[i] not in ("which", "that")
    ]


def _table_row(f: str, prop: Proposition, lex: Lexicon) -> tuple[YesNo | None, str] | None:
    """A markdown table of yes/no values, one row per finding: the value of the one row that
    names every word of the question, else no answer; None when there is no such table."""
    rows: list[tuple[tuple[str, ...], str]] = []
    for line in f.splitlines():
        cells = [c.strip(" *_") for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.lstrip().startswith("|"):
            continue
        flag = cells[-1].lower()
        # A tick or a cross is a yes or a no ("| Pseudohyphae? | ✘ |").
        value: tuple[str, ...] = (
            ("yes",) if flag in TABLE_TRUE else ("no",) if flag in TABLE_FALSE else ()
        )
        value = value or lex.canon.words(cells[-1])
        if len(value) == 1 and (value[0] in lex.yes or value[0] in lex.no):
            rows.append((lex.canon.words(" ".join(cells[:-1])), value[0]))
    if len(rows) < 2:
        return None
    if prop.alternatives:
        # "Is there pneumonia or effusion?": a yes to either is a yes.
        alts = {stem(a) for a in prop.alternatives}
        said = [v for words, v in rows if alts & {stem(w) for w in words}]
        if any(v in lex.yes for v in said) and not prop.negated:
            return YesNo.YES, "a table row about one of the alternatives says yes"
        return None
    need = {stem(w) for w in prop.words}
    if not need:
        return None
    named = [v for words, v in rows if need <= {stem(w) for w in words}]
    if len(named) != 1:
        return None, "a table of yes/no rows, none or several of them about the question"
    lab = YesNo.YES if named[0] in lex.yes else YesNo.NO
    if prop.negated:
        return None, "a table row to a negated question"
    return lab, f"the table row about the question says '{named[0]}'"


_SENTENCE_BREAKS = re.compile(r"[.;!?\n]")


def _flips(f: str, lex: Lexicon) -> int:
    """How often the yes or no that opens a sentence changes from one sentence to the next."""
    leads = []
    for piece in _SENTENCE_BREAKS.split(f):
        ws = lex.canon.words(piece)
        if ws and (ws[0] in lex.yes or ws[0] in lex.no):
            leads.append(ws[0] in lex.yes)
    return sum(x != y for x, y in zip(leads, leads[1:], strict=False))


def _conditional_answer(f: str, lex: Lexicon) -> bool:
    """A sentence with "if" and a yes or a no after it."""
    for piece in _SENTENCE_BREAKS.split(f):
        ws = lex.canon.words(piece)
        if "if" in ws:
            at = ws.index("if")
            if any(w in lex.yes or w in lex.no for w in ws[at + 1 :]):
                return True
    return False


def _own_polarity(
    ws: tuple[str, ...], prop: Proposition, lex: Lexicon
) -> tuple[YesNo | None, str] | None:
    """A yes/no word of the answer that is the question's own word or a rival of it
    ("Negative" or "Positive" to "Is the culture negative?"): not a yes or a no. Repeated
    alone, the question's word affirms it; None when no such word."""
    own = [w for w in ws if w in prop.words and w not in _PLAIN]
    if own:
        if len(own) < len(ws) or prop.negated:
            return None, f"the answer's yes/no word is the question's own ('{own[0]}')"
        return YesNo.YES, "restates the question's words"
    pair = _rival_pair(ws, prop, lex, None)
    rival = pair[1] if pair else None
    if rival is not None:
        return None, f"the answer's yes/no word is a rival of the question's '{rival}'"
    return None


def _rival_pair(
    words: tuple[str, ...], prop: Proposition, lex: Lexicon, classes: frozenset[str] | None
) -> tuple[str, str] | None:
    """(answer word, question word) of an answer word that is a parallel alternative of a
    question word it is not (grey for white, "Positive" for "negative"), in `classes` (any
    class when None); None if no such word."""
    par = lex.parallel
    for w in words:
        mine = par.get(w)
        if not mine or w in prop.words:
            continue
        if classes is not None:
            mine = mine & classes
        for q in prop.words:
            if mine & par.get(q, set()):
                return w, q
    return None


def _clause_rival(clause: tuple[str, ...], prop: Proposition, lex: Lexicon) -> str | None:
    """A word of the clause that opposes a question word (right for left); counts and
    degrees are too loose to oppose (`[grammar] rival_classes` and the exclusive classes)."""
    rivals = lex.grammar["rival_classes"] | lex.grammar["exclusive_classes"]
    pair = _rival_pair(clause, prop, lex, rivals)
    return pair[0] if pair else None


def _head_denied(r: Reading, head: str, v: YesNoVocab, own: tuple[str, ...] = ()) -> bool:
    """A denial cue ("no", "without") up to two words before the question's finding, with no
    clause punctuation between them; the question's `own` words ("gram-negative") are none."""
    words, f = r.words, r.focus
    for i, w in enumerate(words):
        if w != head:
            continue
        for j in range(max(0, i - 2), i):
            x = words[j]
            if x in own:
                continue
            if (x in ("no", "not", "without") or x in v.no_words) and not any(
                c in ",.;:" for c in f[r.ends[j] : r.starts[i]]
            ):
                return True
    return False


def _clause(
    r: Reading, a: int, b: int, prop: Proposition, lex: Lexicon, v: YesNoVocab
) -> tuple[YesNo | None, str, tuple[str, ...]] | None:
    """Whether words[a:b] affirm (YES) or deny (NO) the proposition; None if not about it."""
    words = r.words
    if prop.comparison is not None:
        return _comparison(r, a, b, prop.comparison, lex)
    need = prop.words
    echo = frozenset(w for w in need if w in v.no_words)  # "negative" of "gram-negative rods"
    pred = prop.predicate
    subject = tuple(w for w in need if w != pred) if pred is not None else need
    at: dict[str, int] = {}
    for i in range(a, b):
        t = _match(words[i], subject)
        if t is not None and t not in at:
            at[t] = i
    partial = len(at) < len(subject)
    if partial and _heading_names(r, a, [w for w in subject if w not in at]):
        partial = False  # "L4-5: normal disc height": the heading names the level
    if partial and (prop.head is None or prop.head not in at):
        return None
    if partial and _heading_rival(r, a, [w for w in subject if w not in at], lex):
        return None  # "Right kidney: no hydronephrosis." to "… of the left kidney?"
    alts = [i for i in range(a, b) if _match(words[i], prop.alternatives) is not None]
    if prop.alternatives and not alts:
        return None
    # The predicate: itself, or (normal/abnormal) its complement.
    truth = True
    pred_at: list[int] = []
    if pred is not None:
        same = [i for i in range(a, b) if _match(words[i], (pred,)) is not None]
        normal = [i for k, j in v.normal.find(words[a:b]) for i in range(a + k, a + j)]
        abnormal = [i for i in range(a, b) if words[i] in v.abnormal and i not in normal]
        if same:
            pred_at = same
        elif not subject:
            return None  # "Is there a mass?" - "The liver is normal": normal is not about it
        elif prop.normal_predicate and abnormal:
            pred_at, truth = abnormal, False
        elif not prop.normal_predicate and normal:
            pred_at, truth = normal, False
        else:
            return None
    spots = sorted([*at.values(), *alts, *pred_at])
    if not spots:
        return None
    shown = tuple(words[i] for i in spots)
    clause = words[a:b]
    if at and not partial and truth and _defines(words, a, b, spots[0], spots[-1], lex, v):
        return None, "defines the term instead of saying it is seen", shown
    modal = next((w for w in clause if w in v.modals), None)
    if modal is not None:
        return None, f"hedged with '{modal}'", shown
    hedged = v.hedges.find(clause)
    if hedged:
        i, j = hedged[0]
        return None, f"hedged with '{' '.join(clause[i:j])}'", shown
    for name, found in (
        ("landmark", lex.landmark.find(clause)),
        ("conditional", lex.conditional.find(r.words)),
        ("general statement", _general_statements(r.words, lex)),
        ("past or general", v.unsettled.find(clause)),
    ):
        if found:
            i, j = found[0]
            cue = " ".join(clause[i:j] if name == "past or general" else r.words[i:j])
            return None, f"{name}: '{cue}'", shown
    for i, j in v.other_findings.find(clause):
        if not set(clause[i:j]) <= prop.question_words:
            return None, f"names another finding: '{' '.join(clause[i:j])}'", shown
    for k in range(spots[-1], min(b, len(words) - 1)):
        if ":" in r.focus[r.ends[k] : r.starts[k + 1]]:
            # "PTX: Ø", "Pneumothorax: small": the value after the term is the answer.
            value = words[k + 1]
            place = words[k + 2 : k + 5]
            if place[:1] and place[0] in lex.grammar["locative"]:
                there = [w for w in place[1:] if _place_word(w, lex)]
                if there and not set(there) & set(prop.words):
                    # "Free fluid: none in Morison's pouch." to "… in the pelvis?"
                    return None, f"a value said of another place ('{' '.join(place)}')", shown
            if truth and (value in lex.grammar["report_denials"] or value in v.no_words):
                return YesNo.NO, f"report style: '{value}'", shown
            if truth and value in v.report_presence:
                if not _negations(words, a, b, spots, lex, echo):
                    return YesNo.YES, f"report style: '{value}'", shown
            return None, f"a value after the term that is not read: '{value}'", shown
    cues = _negations(words, a, b, spots, lex, echo)
    if partial and not cues:
        return None  # "A stone is seen": which stone is not said
    if len(cues) > 1:
        return None, "more than one negation in the clause", shown
    if cues:
        if not truth:
            if prop.normal_predicate and all(words[i] in v.generic_abnormal for i in pred_at):
                # "No obvious abnormality is seen in the colon" - "Is the colon healthy?"
                extra = _extra_words(words, a, b, prop, lex, v, cues[0], v.denial_intensifiers)
                if extra:
                    return None, f"a denial qualified by '{extra}'", shown
                return YesNo.YES, f"denies any abnormality ({cues[0]})", shown
            return None, "denies the opposite of the question's predicate", shown
        extra = _extra_words(words, a, b, prop, lex, v, cues[0])
        if extra:
            return None, f"a denial qualified by '{extra}'", shown
        if prop.alternatives and len({words[i] for i in alts}) < len(prop.alternatives):
            return None, "denies only one of the alternatives", shown
        return YesNo.NO, f"denies the question's words ({cues[0]})", shown
    if not prop.alternatives:
        alt = next((w for w in clause if w in v.alternatives), None)
        if alt is not None:
            # "Subdural hematoma vs. artifact", "leukemia or lymphoma": a differential.
            return None, f"names alternatives ('{alt}')", shown
    after = _report_value(r, b, lex)
    if after is not None:
        # "Pneumothorax: absent", "Pneumothorax - not seen": the value after the term.
        if truth and r.focus[r.ends[b - 1] : r.starts[b]].strip()[:1] == ":":
            return YesNo.NO, f"report style: '{after}'", shown
        return None, f"followed by '{after}'", shown
    if not truth:
        return YesNo.NO, f"states the opposite of '{pred}'", shown
    if prop.normal_predicate:
        # "Are the kidneys normal?" - "The left kidney is normal": only part of it.
        for w in clause:
            if (
                w not in prop.question_words
                and w not in _WHOLE
                and lex.parallel.get(w, set()) & _PART_CLASSES
            ):
                return None, f"says '{pred}' of a part only ('{w}')", shown
    mixed = _mixed_with(r, [i for i in range(a, b) if words[i] in prop.words], lex)
    if mixed:
        # "The mass appears both solid and cystic" to "Is the mass solid?"
        return None, f"the predicate joined with a rival ('{mixed}')", shown
    rival = _clause_rival(clause, prop, lex)
    if rival is not None:
        # "The lesion is at the grey-white matter junction" to "… in the white matter?";
        # "The right hemidiaphragm appears elevated relative to the left."
        return None, f"also names a rival of the question's words ('{rival}')", shown
    concession = next(
        (w for w in words[max(0, a - 1) : a + 1] if w in lex.grammar["concessive"]), ""
    )
    if concession and concession != "while":
        # "Although BCC was raised clinically, dermoscopy shows … dermatofibroma."
        return None, f"said in a concession ('{concession}')", shown
    denial = _denied_earlier(r, a, lex)
    if denial:
        # "No convincing radiographic evidence, on this single frontal projection, of a
        # displaced rib fracture": the sentence opened with a denial, clauses ago.
        return None, f"a denial earlier in its sentence ('{denial}')", shown
    return YesNo.YES, "restates the question's words", shown


def _place_word(w: str, lex: Lexicon) -> bool:
    """A word that is not a stopword or an article (a place's own word)."""
    return w not in lex.stopwords and w not in lex.q_articles


def _mixed_with(r: Reading, at: list[int], lex: Lexicon) -> str:
    """A word of a question word's class joined to it by "and" or "or" ("solid and cystic",
    "benign and malignant features"): a mixed answer, neither one nor the other; or ""."""
    par, words = lex.parallel, r.words
    for i in at:
        mine = par.get(words[i], set()) - _LOOSE_CLASSES
        if not mine:
            continue
        for j, k in ((i + 1, i + 2), (i - 1, i - 2)):
            if not 0 <= min(j, k) or max(j, k) >= len(words) or words[j] not in ("and", "or"):
                continue
            lo, hi = min(i, k), max(i, k)
            if any(c in ",.;:" for c in r.focus[r.ends[lo] : r.starts[hi]]):
                continue
            if words[k] != words[i] and par.get(words[k], set()) & mine:
                return f"{words[lo]} {words[j]} {words[hi]}"
    return ""


def _heading_names(r: Reading, a: int, missing: list[str]) -> bool:
    """Whether a heading just before clause `a` ("L4-5:", "Left kidney:") names every
    question word the clause leaves out."""
    if not a or ":" not in r.focus[r.ends[a - 1] : r.starts[a]]:
        return False
    lo = clause_start(r, r.starts[a - 1])
    heading = [r.words[k] for k in range(max(0, a - 3), a) if r.starts[k] >= lo]
    # "Right eye:" to "… in this eye?" qualifies the heading: every heading word is missing
    return all(_match(h, tuple(missing)) is not None for h in heading) and all(
        any(_match(h, (m,)) is not None for h in heading) for m in missing
    )


def _heading_rival(r: Reading, a: int, missing: list[str], lex: Lexicon) -> bool:
    """Whether the words just before clause `a` (a heading such as "Right kidney:") name a
    rival of a question word the clause leaves out (right for left)."""
    par = lex.parallel
    for w in r.words[max(0, a - 3) : a]:
        mine = par.get(w)
        if mine and any(w != m and mine & par.get(m, set()) for m in missing):
            return True
    return False


def _reconsidered(r: Reading, matched: tuple[str, ...], v: YesNoVocab) -> bool:
    """Whether the last self-correction (`[yes_no] self_corrections`: "actually", "wait")
    comes after the first restated word, in a sentence that restates none of them."""
    found = v.self_corrections.find(r.words)
    if not found or not matched:
        return False
    at = [k for k, w in enumerate(r.words) if w in matched]
    i = found[-1][0]
    if not at or i < at[0]:
        return False  # "Actually, there is a moderate effusion": nothing corrected
    lo, hi = sentence_span(r.focus, r.starts[i])
    return not any(lo < r.starts[k] < hi for k in at)


def _then_this_case(r: Reading, lex: Lexicon) -> bool:
    """A contrast word ("but", `[grammar] contrast`) followed at once by words that turn to
    this case (`[answer] case_openers`: "here", "in this case")."""
    words = r.words
    contrast = lex.grammar["contrast"]
    for i, w in enumerate(words[:-1]):
        if w in contrast and any(words[i + 1 : i + 1 + len(o)] == o for o in lex.case_openers):
            return True
    return False


def _double_negation(r: Reading) -> str:
    """Two negators in one clause, four words apart at most ("don't think there is no"), or
    "" (an opening "No" is the answer itself)."""
    words = r.words
    last = -10
    for k, w in enumerate(words):
        if w not in _NEGATORS:
            continue
        if k - last <= 4 and clause_start(r, r.starts[k]) <= r.starts[last]:
            return " ".join(words[last : k + 1])
        if k > 0:
            last = k
    return ""


def _denied_earlier(r: Reading, a: int, lex: Lexicon) -> str:
    """For a clause that goes on with a preposition ("…, of a displaced rib fracture"), a
    negator earlier in its sentence with no scope end ("but") between, or ""."""
    if a >= len(r.words) or r.words[a] not in _CONTINUING:
        return ""
    start = sentence_span(r.focus, r.starts[a])[0]
    for k in range(a - 1, -1, -1):
        if r.starts[k] <= start or r.words[k] in lex.scope_end:
            break
        if r.words[k] in _NEGATORS:
            return r.words[k]
    return ""


# Prepositions that open a clause going on with the noun phrase before it.
_CONTINUING = frozenset({"of", "for", "to", "in", "on", "at"})


def _finding_seen(
    words: tuple[str, ...], ranges: list[tuple[int, int]], lex: Lexicon, v: YesNoVocab
) -> str | None:
    """A presence word ("seen", "noted") of a clause that denies nothing, if any."""
    for a, b in ranges:
        clause = words[a:b]
        hit = next((w for w in clause if w in v.presence), None)
        if hit is None or lex.neg_before.find(clause) or lex.neg_after.find(clause):
            continue
        if any(w in v.no_words or w in ("no", "not", "without", "never") for w in clause):
            continue
        return hit
    return None


def _report_value(r: Reading, b: int, lex: Lexicon) -> str | None:
    """A denial that opens the clause after position b ("X: absent", "X, not seen")."""
    words = r.words
    if b >= len(words):
        return None
    w = words[b]
    if w in lex.grammar["report_denials"] or w in ("not", "never", "without", "nil"):
        return None if w == "no" and _names_other(words, b + 1, len(words), lex) else w
    p = lex.neg_after.match_at(words, b) or lex.neg_before.match_at(words, b)
    if p is not None and p[-1] == "no" and _names_other(words, b + len(p), len(words), lex):
        return None  # "There is an effusion; no focal consolidation": a clause of its own
    return " ".join(p) if p is not None else None


def _negations(
    words: tuple[str, ...],
    a: int,
    b: int,
    spots: list[int],
    lex: Lexicon,
    echo: frozenset[str] = frozenset(),
) -> list[str]:
    """Negation cues of the clause that bear on the matched words.

    ``echo``: the question's own words that are also no-words ("negative" of "Are these
    gram-negative rods?"): in the answer they repeat the question, they deny nothing.
    """
    out: list[str] = []
    last = spots[-1]
    nos = vocab(lex).no_words
    i = a
    while i < b:
        if words[i] in echo:
            i += 1
            continue
        if lex.neg_pseudo.match_at(words, i) is not None:
            i += 2
            continue
        p = lex.neg_before.match_at(words, i)
        if p is not None and i < last:
            out.append(" ".join(p))
            i += len(p)
            continue
        q = lex.neg_after.match_at(words, i) if i > spots[0] else None
        if q is not None and i + len(q) <= b:
            out.append(" ".join(q))
            i += len(q)
            continue
        if p is not None and i > last:
            if p[-1] in ("without", "no") and _names_other(words, i + len(p), b, lex):
                # "An effusion without tamponade": the denial is about another finding.
                i += len(p)
                continue
            # "The fracture line is not clearly visible": a denial after the words may
            # bear on them; counted as a second cue, so the clause abstains.
            out.extend(("after", " ".join(p)))
            i += len(p)
            continue
        if (words[i] in ("not", "no", "without", "never") or words[i] in nos) and i < last:
            out.append(words[i])  # "Negative for pneumothorax"
        elif words[i] in nos and i > last:
            out.extend(("after", words[i]))  # "Pneumothorax negative": not read
        i += 1
    return out


def _extra_words(
    words: tuple[str, ...],
    a: int,
    b: int,
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
    cue: str,
    allowed: frozenset[str] = frozenset(),
) -> str | None:
    """A content word of a denial the question does not have ("no acute fracture")."""
    cue_words = set(cue.split())
    stems = {stem(q) for q in prop.question_words}
    for i in range(a, b):
        w = words[i]
        if (
            w in prop.question_words
            or stem(w) in stems
            or w in v.frame
            or w in lex.stopwords
            or w in lex.generic
            or w in lex.grammar["copula"]
            or w in cue_words
            or w in v.normal_words
            or w in lex.q_articles
            or w in allowed
            or not w.isalpha()
        ):
            continue
        if w in lex.neg_before.phrases_words or w in lex.neg_after.phrases_words:
            continue
        return w
    return None


_IDENTITY_SUBJECTS = frozenset({"this", "these", "it", "that"})


def _identity_restated(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str | None:
    """A word of an identity question ("is this a gross specimen?") that a clause saying
    what it is ("this is a gross photograph") keeps, with no denial and no rival word (the
    "T2" of "this is a T2 image" to "Is this a T1 image?")."""
    if not prop.question_words & _IDENTITY_SUBJECTS:
        return None
    copula = lex.grammar["copula"]
    for a, b in ranges:
        if b - a < 3 or words[a] not in _IDENTITY_SUBJECTS or words[a + 1] not in copula:
            continue
        clause = words[a:b]
        if any(x in ("no", "not", "without", "never") or x in v.no_words for x in clause):
            continue
        if lex.neg_before.find(clause):
            continue  # "this looks like a hypertrophic scar rather than a keloid"
        kept = next((w for w in clause if w in prop.words and w not in lex.generic), None)
        if kept is not None and _rival_pair(clause, prop, lex, None) is None:
            return kept
    return None


def _predicate_held(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str | None:
    """A clause that ends "is/appears <the question's last word>" with no denial ("it is
    benign"), or None."""
    if not prop.words:
        return None
    last = prop.words[-1]
    copula = lex.grammar["linking_verbs"]
    for a, b in ranges:
        clause = words[a:b]
        if last not in clause or _denial_in(clause, lex, v):
            continue
        j = clause.index(last)
        if j > 0 and clause[j - 1] in copula and j == len(clause) - 1:
            return last
    return None


def _restated_after_no(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str | None:
    """After a "no", a clause that says two or more of the question's words with no
    denial, no normal state and no rival ("No, the tumour cells have breached the basement
    membrane" to "is there invasion through the basement membrane?"): it may describe what
    was asked."""
    need = [w for w in prop.words if w not in lex.generic]
    if len(need) < 2:
        return None
    if any(_denial_in(words[a:b], lex, v) for a, b in ranges):
        return None  # "… There is no evidence of metastatic carcinoma.": the no is restated
    if prop.head is None and not any(w in v.abnormal for a, b in ranges for w in words[a:b]):
        # "No, the bladder wall is thin and smooth": a normal description; a finding asked
        # about ("Is there a hiatal hernia?") is affirmed by being named without a denial.
        return None
    for a, b in ranges:
        clause = words[a:b]
        kept = [w for w in need if w in clause]
        if len(kept) < 2 or _clause_rival(clause, prop, lex):
            continue
        if any(w in v.normal_words for w in clause):
            continue
        more = [
            w
            for w in clause
            if w not in need and w not in lex.stopwords and w not in lex.generic and w.isalpha()
        ]
        if more:  # "Russell bodies: none" says nothing more than the terms
            return " ".join(kept)
    return None


def _unseen_part(
    r: Reading, ranges: list[tuple[int, int]], prop: Proposition, v: YesNoVocab
) -> str | None:
    """Why a "no" stands only for part of the image: a clause without the question's words
    says something was not seen or assessed ("Rt kidney: no hydronephrosis. Lt kidney: not
    visualised.")."""
    words = r.words
    if not any(w in prop.words for a, b in ranges for w in words[a:b]):
        return None  # "No, the pancreas is not included": the thing asked about is unseen
    for a, b in ranges:
        clause = words[a:b]
        found = v.lex.unassessed.find(clause)
        if found and not any(w in prop.words for w in clause):
            i, j = found[0]
            return f"a 'no' for part of the image only: '{' '.join(clause[i:j])}'"
    return None


def _own_question(f: str, prop: Proposition, lex: Lexicon, v: YesNoVocab) -> str | None:
    """A word of a question the answer asks itself ("Trachea deviated? No.") that the
    asked question does not have; None when it only repeats the question."""
    end = f.index("?")
    start = max(f.rfind(c, 0, end) for c in ".!\n|:") + 1
    asked = lex.canon.words(f[start:end])
    if any(w in lex.yes or w in lex.no for w in asked):
        return None  # "No. Why? ...": the answer comes first
    stems = {stem(q) for q in prop.question_words}
    for w in asked:
        if (
            w in prop.question_words
            or stem(w) in stems
            or w in v.frame
            or w in lex.stopwords
            or w in lex.grammar["copula"]
            or w in lex.q_articles
            or not w.isalpha()
        ):
            continue
        return w
    return None


def _cut_off(r: Reading, v: YesNoVocab) -> bool:
    """The answer stops on a word that leaves the sentence open ("There is no")."""
    tail = r.focus.rstrip()
    return bool(r.words) and tail[-1:] not in _TERMINAL and r.words[-1] in v.dangling


def _names_other(words: tuple[str, ...], i: int, b: int, lex: Lexicon) -> bool:
    """The words from i name a thing of their own (a content word that is not a presence
    or frame word): "without tamponade", "no focal consolidation"."""
    v = vocab(lex)
    for w in words[i:b]:
        if w in v.frame or w in v.presence or w in lex.stopwords or w in lex.q_articles:
            continue
        if w in lex.grammar["copula"] or w in v.denial_intensifiers or not w.isalpha():
            continue
        return True
    return False


def _correction(
    words: tuple[str, ...], clauses: list[tuple[int, int]], v: YesNoVocab
) -> list[tuple[int, int]] | None:
    """The clauses after the last one that opens with a correction ("Wait, ...", "Actually,
    ..."), the correction words left out; None when no clause opens with one."""
    for k in range(len(clauses) - 1, -1, -1):
        a, b = clauses[k]
        p = v.self_corrections.match_at(words, a)
        if p is not None and (k > 0 or a > 0):
            head = [(a + len(p), b)] if a + len(p) < b else []
            return head + clauses[k + 1 :]
    return None


def _defines(
    words: tuple[str, ...], a: int, b: int, first: int, last: int, lex: Lexicon, v: YesNoVocab
) -> bool:
    """The clause opens with the term and defines it ("Koilocytes are cells with ...")."""
    if any(w not in lex.q_articles and w not in lex.stopwords for w in words[a:first]):
        return False
    k = last + 1
    if k >= b or words[k] not in ("is", "are", "was", "were"):
        return False
    k += 1
    while k < b and words[k] in lex.q_articles:
        k += 1
    return k < b and words[k] in v.definitions


def _comparison(
    r: Reading, a: int, b: int, comp: tuple[str, int, str, str], lex: Lexicon
) -> tuple[YesNo | None, str, tuple[str, ...]] | None:
    """A clause read against a comparative question: the same comparison in the same
    order (or its opposite in the reverse order) affirms it; reversed, it denies it."""
    words = r.words
    dim, sign, left, right = comp
    li = next((i for i in range(a, b) if _match(words[i], (left,)) is not None), None)
    ri = next((i for i in range(a, b) if _match(words[i], (right,)) is not None), None)
    if li is None and ri is None:
        return None
    shown = tuple(words[i] for i in (li, ri) if i is not None)
    found = [(i, j) for i, j in lex.comparatives.find(words[a:b])]
    if li is None or ri is None or len(found) != 1:
        return None, "a comparison that is not read", shown
    i, j = found[0]
    cdim, csign = lex.comparative_sign[words[a + i : a + j]]
    at = a + i
    if cdim != dim or _negations(words, a, b, sorted((li, ri)), lex):
        return None, "a comparison that is not read", shown
    if li < at < ri:
        order = 1
    elif ri < at < li:
        order = -1
    else:
        return None, "a comparison that is not read", shown
    lab = YesNo.YES if sign * csign * order > 0 else YesNo.NO
    return lab, "states the comparison" + ("" if lab is YesNo.YES else " the other way"), shown


def _denied(words: tuple[str, ...], i: int) -> bool:
    """A denial stands shortly before words[i] ("no significant abnormalities")."""
    for k in range(i - 1, max(-1, i - 5), -1):
        if words[k] in ("no", "not", "without", "free", "negative"):
            return True
    return False


def _denies_abnormality(
    words: tuple[str, ...], ranges: list[tuple[int, int]], v: YesNoVocab, lex: Lexicon
) -> str | None:
    """A word for abnormality in general that the ranges deny ("there is no acute
    abnormality"), or a normal word they affirm."""
    for a, b in ranges:
        for i in range(a, b):
            if words[i] in v.generic_abnormal and _denied(words, i):
                return words[i]
    return None


def _abnormal_named(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    v: YesNoVocab,
    lex: Lexicon,
) -> str | None:
    """An abnormal finding the ranges name and do not deny, that the question does not ask."""
    for a, b in ranges:
        for i in range(a, b):
            w = words[i]
            if w in v.abnormal and w not in prop.question_words and not _denied(words, i):
                return w
    return None


def _other_member(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str | None:
    """Another member of a class whose members exclude each other (CT, MRI) named by the
    ranges when the question asks about one of them and they do not name it."""
    rest = {w for a, b in ranges for w in words[a:b]}
    for q in prop.words:
        for cls in lex.parallel.get(q, set()) & v.exclusive:
            others = {w for w in rest if cls in lex.parallel.get(w, set())}
            if others and not others & set(prop.words):
                return f"{cls} ('{min(others)}')"
    return None


def _said_only_conditionally(
    words: tuple[str, ...], rest: list[tuple[int, int]], prop: Proposition, lex: Lexicon
) -> str:
    """The conditional cue (`[cues] conditional`: "would", "if") of every clause of the rest
    that names all the question's words, when there is such a clause; or ""."""
    if not prop.words:
        return ""
    cues = []
    for a, b in rest:
        clause = words[a:b]
        if all(any(_match(x, (w,)) is not None for x in clause) for w in prop.words):
            found = lex.conditional.find(clause)
            if not found:
                return ""
            i, j = found[0]
            cues.append(" ".join(clause[i:j]))
    return cues[0] if cues else ""


def _yes_to_the_image(
    words: tuple[str, ...], rest: list[tuple[int, int]], prop: Proposition, lex: Lexicon
) -> str | None:
    """The modality the clause right after a "yes" says the image is ("Yes, the image is a
    chest X-ray."), when the question asks about no modality and no clause of the rest names
    all the question's words: the yes confirms what the image is."""
    if not rest or not prop.words:
        return None
    if any("modality" in lex.parallel.get(w, ()) or w in lex.generic for w in prop.question_words):
        return None  # "Is this a chest image?" asks what the image is
    a, b = rest[0]
    clause = words[a:b]
    said = next((w for w in clause if "modality" in lex.parallel.get(w, ())), None)
    if said is None or not {"is", "was"} & set(clause):
        return None  # "Yes. On this CT, there is …": the modality places the finding
    if any(_match(w, prop.words) is not None for w in clause):
        return None
    for c, d in rest:
        if all(any(_match(x, (w,)) is not None for x in words[c:d]) for w in prop.words):
            return None
    return said


# Parallel classes read elsewhere (sides, positions) or too loose to oppose two words.
_LOOSE_CLASSES = frozenset({"laterality", "position", "degree", "number"})


def _yes_clash(
    words: tuple[str, ...],
    rest: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str:
    """How the rest of an explicit "yes" contradicts it ("" when it does not)."""
    for a, b in rest:
        left = v.superseded.find(words[a:b])
        if left:
            # "Yes, that was my first thought, but … this is normal lung."
            i, j = left[0]
            return f"explicit 'yes' called a first impression ('{' '.join(words[a + i : a + j])}')"
    other = _other_organ(words, rest, prop, v)
    if other is not None:
        return f"explicit 'yes' but the rest names another organ ('{other}')"
    side = _other_part(words, rest, prop, lex)
    if side is not None:
        return f"explicit 'yes' but the rest names another side ('{side}')"
    member = _other_member(words, rest, prop, lex, v)
    if member is not None:  # "Yes, it is a CT scan." to "Is this an MRI?"
        return f"explicit 'yes' but the rest names another {member}"
    cond = _said_only_conditionally(words, rest, prop, lex)
    if cond:
        # "Yes — … gastric mucosa. Goblet cells would indicate intestinal metaplasia."
        return (
            f"explicit 'yes' but the rest names the question's words only as a condition ('{cond}')"
        )
    image = _yes_to_the_image(words, rest, prop, lex)
    if image is not None:
        # "Yes, the image is a chest X-ray." to "Is there a pleural effusion?"
        return f"explicit 'yes' to what the image is ('{image}'), not to the question"
    # "Yes, there is no haemorrhage."; "Yes. The retinal layers look normal, without …"
    denied = _yes_then_denied(words, rest, prop, lex, v) if not prop.negated else None
    if denied is not None:
        return f"explicit 'yes' but the rest denies ('{denied}')"
    normal = _subject_normal(words, rest, prop, v) if not prop.negated else None
    if normal is not None:
        # "Yes, the trachea is deviated. The trachea is midline."
        return f"explicit 'yes' but the rest calls the subject normal ('{normal}')"
    # "Yes, … malignant cells. The peripheral cells appear benign." (the rival value)
    rival = _rival_restated(words, rest, prop, lex, v)
    if rival is not None:
        return f"explicit 'yes' but the rest says the subject is '{rival}'"
    return ""


def _subject_normal(
    words: tuple[str, ...], rest: list[tuple[int, int]], prop: Proposition, v: YesNoVocab
) -> str | None:
    """After a "yes" to an abnormal predicate ("Is the spleen enlarged?"), a clause that
    names the question's subject and calls it normal (`[yes_no] normal`, `normal_state`)."""
    pred = prop.predicate
    if pred is None or prop.normal_predicate or pred in v.normal_words:
        return None
    subject = {stem(w) for w in prop.words if w != pred}
    if not subject:
        return None
    for n, (a, b) in enumerate(rest):
        if n + 1 < len(rest) and words[rest[n + 1][0]] in ("which", "that"):
            b = rest[n + 1][1]  # "The spleen measures 10 cm, which is within normal limits"
        clause = words[a:b]
        if subject.isdisjoint(stem(w) for w in clause):
            continue
        found = v.normal.find(clause) or v.normal_state.find(clause)
        if found:
            i, j = found[0]
            return " ".join(clause[i:j])
    return None


_WEIGHING = frozenset({"while", "whereas"})


def _yes_then_denied(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str | None:
    """After a "yes", a clause that denies a word of the question ("there is no
    haemorrhage"), or a denial beside a statement that something looks normal."""
    asked = prop.words + prop.alternatives  # "Is the brain atrophied or shrunk?"
    stems = {stem(q) for q in asked}
    own = {stem(q) for q in prop.words}
    normal = "otherwise" not in words and any(
        lex.neg_after_state.find(words[a:b]) for a, b in ranges
    )
    filler = lex.grammar["denial_filler"]
    for a, b in ranges:
        for i in range(a, b):
            if words[i] not in _NEGATORS:
                continue
            j = i + 1
            while j < b - 1 and words[j] in filler:
                j += 1
            if j < b and (words[j] in asked or stem(words[j]) in stems):
                alternative = words[j] not in prop.words and stem(words[j]) not in own
                if alternative and own.isdisjoint(stem(w) for w in words[a:b]):
                    continue  # "no effusion" to "pneumonia or effusion?": one alternative
                return " ".join(words[i : j + 1])
            if normal:
                return " ".join(words[i : min(b, i + 4)])
    return _denied_after(words, ranges[0][0] if ranges else 0, prop, lex)


def _denied_after(words: tuple[str, ...], lo: int, prop: Proposition, lex: Lexicon) -> str | None:
    """The question's words followed at once by a denial after them ("Auer rods, however,
    are not identified"), from word `lo` on; copulas and contrast words may stand between."""
    need = prop.words
    skip = lex.grammar["copula"] | lex.grammar["contrast"]
    for k in range(lo + 1, len(words)):
        cue = lex.neg_after.match_at(words, k)
        if cue is None:
            continue
        near = [w for w in words[lo:k] if w not in skip][-(len(need) + 1) :]
        if (
            near
            and _match(near[-1], need) is not None
            and all(any(_match(x, (w,)) is not None for x in near) for w in need)
        ):
            return " ".join(words[k : k + len(cue)])
    return None


def _rival_denied(
    words: tuple[str, ...], ranges: list[tuple[int, int]], prop: Proposition, lex: Lexicon
) -> str | None:
    """After a "no", a clause that denies a rival of the question's word ("not benign" to
    "malignant?"): the no then means the question's word holds."""
    par = lex.parallel
    for a, b in ranges:
        clause = words[a:b]
        if not lex.neg_before.find(clause):
            continue
        for w in clause:
            mine = par.get(w)
            if not mine or w in prop.words:
                continue
            if any((mine & par.get(q, set())) - _LOOSE_CLASSES for q in prop.words):
                return w
    return None


def _rival_restated(
    words: tuple[str, ...],
    ranges: list[tuple[int, int]],
    prop: Proposition,
    lex: Lexicon,
    v: YesNoVocab,
) -> str | None:
    """A rival of the question's predicate word (benign for malignant) in a clause that
    restates the rest of the question's words, holds no denial and not the predicate."""
    par = lex.parallel
    need = prop.words
    for a, b in ranges:
        clause = words[a:b]
        if any(x in ("no", "not", "without", "never") or x in v.no_words for x in clause):
            continue
        for w in clause:
            mine = par.get(w)
            if not mine or w in need:
                continue
            q = next((q for q in need if (mine & par.get(q, set())) - _LOOSE_CLASSES), None)
            if q is None or q in clause:
                continue
            stems = {stem(x) for x in clause}
            if all(x == q or x in clause or stem(x) in stems for x in need):
                return w
    return None


def _other_organ(
    words: tuple[str, ...], ranges: list[tuple[int, int]], prop: Proposition, v: YesNoVocab
) -> str | None:
    """An organ the ranges name when the question names another one and they do not."""
    asked = {w for w in prop.question_words if w in v.organs}
    if not asked:
        return None
    named = [words[i] for a, b in ranges for i in range(a, b) if words[i] in v.organs]
    if not named or asked & set(named):
        return None
    # A fixed term holding the organ ("transverse colon") names it too.
    said = {p for a, b in ranges for w in words[a:b] for p in w.replace("_", " ").split()}
    return None if asked & said else named[0]


def _modifier_unsaid(pred: str, prop: Proposition, content: list[str], lex: Lexicon) -> bool:
    """Whether a noun predicate's modifier in the question, one of a class of values, goes
    unsaid ("a picture of a tumor" to "is this a benign tumor?"); an adjective predicate has
    none ("abnormal")."""
    if pred.endswith(lex.adjective_suffixes) or pred not in prop.words:
        return False
    k = prop.words.index(pred)
    if k == 0 or prop.words[k - 1] in content:
        return False
    # Only a modifier that picks one of a class ("benign", "acute", "left"), not a place
    # ("pulmonary nodule" is named by "nodule").
    return bool(lex.parallel.get(prop.words[k - 1]))


def _short_answer(
    words: tuple[str, ...], prop: Proposition, lex: Lexicon, v: YesNoVocab
) -> tuple[YesNo | None, str, tuple[str, ...]] | None:
    """Answers that restate no subject but still answer: a bare denial ("Not seen.") to a
    question asking whether something is there, the bare predicate or its opposite
    ("healthy", "normal"), another member of an exclusive class ("CT" to "Is this an
    MRI?")."""
    if not prop.implicit or prop.negated or prop.alternatives or prop.comparison is not None:
        return None
    if not words:
        return None
    negative = any(w in ("no", "not", "without", "never") or w in v.no_words for w in words)
    if prop.predicate is None and v.bare_denials.match_at(words, 0) == words:
        return YesNo.NO, f"a bare denial ('{' '.join(words)}')", words
    content = [
        w
        for w in words
        if w not in lex.stopwords
        and w not in lex.q_articles
        and w not in v.frame
        and w not in lex.grammar["copula"]
        and w.isalnum()
    ]
    if not content or negative or any(w in v.alternatives for w in words):
        return None
    pred = prop.predicate
    if pred is not None and len(content) <= 3:
        rest = [w for w in content if w not in prop.question_words]
        if prop.normal_predicate:
            if all(w in v.normal_words for w in rest) and pred in content:
                return YesNo.YES, f"names the predicate ('{pred}')", (pred,)
            if rest and all(w in v.abnormal for w in rest):
                return YesNo.NO, f"names an abnormal finding ('{rest[0]}')", tuple(rest)
        else:
            if rest and all(w in v.normal_predicates for w in rest):
                return YesNo.NO, f"names the opposite of '{pred}' ('{rest[0]}')", tuple(rest)
            if not rest and pred in content and not _modifier_unsaid(pred, prop, content, lex):
                return YesNo.YES, f"names the predicate ('{pred}')", (pred,)
    last = prop.words[-1]
    if (
        len(prop.words) == 2
        and len(content) == 1
        and prop.predicate != last
        # An adjective, not a noun: "Kidney" to "does this image show a normal kidney?" echoes.
        and last.endswith(lex.adjective_suffixes)
        and last not in v.organs
    ):
        # "Is the lesion hypodense?" - "Hypodense." / "Non-enhancing." to "... enhancing?":
        # a bare word that is the question's last word, or that word with a negative prefix.
        x = content[0]
        if x == last and len(last) > 3:
            return YesNo.YES, f"names the question's word ('{last}')", (last,)
        if any(x == p + last for p in lex.negative_prefixes) and len(last) > 4:
            return YesNo.NO, f"names the question's word with a negative prefix ('{x}')", (x,)
    if len(content) > 6 or lex.comparatives.find(words):
        return None
    if len(content) == 1:
        # "non-contrast" to "Is this study with contrast?": the complement of a question word.
        x = content[0]
        if any(frozenset((x, q)) in lex.complement_pairs for q in prop.words):
            return YesNo.NO, f"names the complement ('{x}')", (x,)
    for w in prop.words:
        classes = lex.parallel.get(w, set()) & v.exclusive
        for cls in classes:
            asked = [q for q in prop.words if cls in lex.parallel.get(q, set())]
            named = {x for x in words if cls in lex.parallel.get(x, set())}
            if len(asked) == 1 and len(named) == 1 and w not in named:
                other = next(iter(named))
                k = words.index(other)
                if any(x in lex.q_preps for x in words[max(0, k - 2) : k]):
                    continue  # "better seen on MRI": how it is seen, not what this is
                if _denial_in(words, lex, v):
                    return None  # "Malignant features are absent": the other one denied
                return YesNo.NO, f"names another {cls} ('{other}')", (other,)
    return None


def _denial_in(words: tuple[str, ...], lex: Lexicon, v: YesNoVocab) -> bool:
    """Any denial word or phrase among the words."""
    return (
        any(w in ("no", "not", "without", "never") or w in v.no_words for w in words)
        or bool(lex.neg_before.find(words))
        or bool(lex.neg_after.find(words))
        or bool(lex.neg_after_state.find(words))
    )


def _committed(r: Reading, matched: tuple[str, ...], v: YesNoVocab) -> bool:
    """A cut-off answer that stops on a preposition after it has restated every matched
    word ("There is no hyaline membrane formation visible in")."""
    words = r.words
    if len(words) < 3 or words[-1] not in v.prepositions or words[-2] in v.dangling:
        return False
    head = words[:-1]
    if not matched or not all(m in head for m in matched):
        return False
    last = max(i for i, w in enumerate(head) if w in matched)
    if any(b > r.starts[last] for b in r.breaks):
        return False  # the cut-off words are a sentence of their own
    return not any(w in v.clause_words or w in v.qualifiers for w in head[last:])
