"""What an answer says before the options are looked at: its focus, canonical words, and
whether it refuses, hedges, is cut off or is a bare yes/no. Also the records shared by the
labelling modules (mentions, verdicts) and the word lists of the answer grammar.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from ..labels import Label
from ..lexicon import Lexicon
from .final_answer import Focus, find_focus, open_ending
from .text import lemma_table

_LETTER_ONLY = re.compile(
    r"^\s*(?:(?:option|choice|answer|letter)\s*)?[(\[]?([ab])[)\].:]?[.!]?\s*$", re.I
)
# The options by their order: "Option 1", "the second option", "the first one", "the latter".
ORDINAL_ONLY = re.compile(
    r"^\s*(?:the\s+)?(?:(?:(first|1st)|(second|2nd))\s+(?:option|one|choice|alternative)"
    r"|(?:option|choice)\s*(?:(1|one)|(2|two))|(former)|(latter))\s*[.!]?\s*$",
    re.I,
)
# Another option's letter after a leading one: "(A) / (B)", "A) or B)" name both letters.
_LETTER_MARK = re.compile(r"\(([AaBb])\)|(?<![\w'])([AB])[).:]")
# A letter with its text: "(A) axial", "B. coronal", "A (coronal)" (the text in brackets).
_LETTER_LEAD = re.compile(
    r"^\s*(?:\(([AaBb])\)|([AB])[).:]|([AB])(?=\s+\([^()]*\)\W*$))\s+(\S.*)$", re.S
)
# A stop or bracket, or a dash between spaces. One character class opens the pattern, so
# the regex engine skips ahead to candidates (with two branches, or a leading lookbehind,
# it tries every position: "[.;:!?,()\n]|[-\u2013\u2014](?<=\s.)(?=\s)" split 2.4x slower).
_CLAUSE_BREAK = re.compile(r"[.;:!?,()\n\-\u2013\u2014](?:(?<![-\u2013\u2014])|(?<=\s.)(?=\s))")
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
# Last words that leave a coordination open: the answer was cut off ("left kidney and the").
_DANGLING = frozenset({"and", "or", "nor", "but", "versus", "vs"})
_ARTICLES = frozenset({"the", "a", "an", "its", "their"})
# Last words that open a complement the answer never gives ("On balance this is"); "a" is
# left out, since it ends names ("hepatitis A", "type A").
_OPEN = frozenset({"is", "are", "was", "were", "be", "of", "the", "an", "with"})
_FUZZY_MIN_LEN = 5
_FUZZY_SCORE = 85.0
_FUZZY_MARGIN = 12.0


# The records below are built per answer on the hot path: not frozen, because a frozen
# dataclass sets each field through object.__setattr__ (several times slower to build).
# Each has its own __init__ (init=False): compiled with mypyc it is native code, while the
# one dataclasses would write is plain Python called through the type (4-8x slower to build).
@dataclass(slots=True, init=False)
class Hit:
    """An option mention found in the focused text (internal, cheap to build)."""

    option: Label
    first: int
    last: int
    start: int
    end: int
    via: str
    negation: str | None = None

    def __init__(
        self,
        option: Label,
        first: int,
        last: int,
        start: int,
        end: int,
        via: str,
        negation: str | None = None,
    ) -> None:
        self.option = option
        self.first = first
        self.last = last
        self.start = start
        self.end = end
        self.via = via
        self.negation = negation


@dataclass(slots=True, eq=False, init=False)
class Verdict:
    """The label of one answer and why (internal form of `AnswerTrace`)."""

    label: Label | None
    rule: str
    reason: str
    focus: str
    hits: tuple[Hit, ...] = ()
    cues: tuple[str, ...] = ()

    def __init__(
        self,
        label: Label | None,
        rule: str,
        reason: str,
        focus: str,
        hits: tuple[Hit, ...] = (),
        cues: tuple[str, ...] = (),
    ) -> None:
        self.label = label
        self.rule = rule
        self.reason = reason
        self.focus = focus
        self.hits = hits
        self.cues = cues


@lru_cache(maxsize=4)
def _sorted_vocabulary(lex: Lexicon) -> tuple[str, ...]:
    """English words and the lexicon's own words, sorted for prefix search."""
    return tuple(sorted(vocabulary() | lex.known_words))


_LAST_TOKEN = re.compile(r"[^\W\d_]+$")


def _cut_in_word(tail: str, lex: Lexicon) -> bool:
    """Whether the text's last word, unknown itself, is the start of a longer known word
    ("carcinom", "hydroneph"): the text was cut off inside it."""
    m = _LAST_TOKEN.search(tail)
    if m is None or len(m.group()) < 5:
        return False
    w = m.group().lower()
    vocab = vocabulary()
    if w in vocab or w in lex.known_words:
        return False
    words = _sorted_vocabulary(lex)
    k = bisect_left(words, w)
    return k < len(words) and words[k].startswith(w) and len(words[k]) > len(w)


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    table = lemma_table()
    return frozenset(table) | frozenset(table.values())


@dataclass(slots=True, eq=False, init=False)
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
    wordset: frozenset[str] = frozenset()
    """The set of `words`: membership probes look up the fewer of two sets' members."""
    yes_no: bool = False
    lead: str | None = None
    rationale: str = ""
    reconsidered: str = ""
    retraction: str | None = None
    body: str = ""
    reasoning: str = ""
    two_option_early: Verdict | None = None
    """A verdict only the two-option reader abstains on: a hedge that withholds a choice
    between two options ("suspicious for", "cannot distinguish"), or an answer cut off after
    a word that opens a complement ("On balance this is"). The yes/no reader reads its own
    hedges clause by clause and its own truncation."""
    notes: str = ""
    """The other fields of a JSON answer (see `Focus.notes`)."""
    body_reading: Reading | None = None
    """The reading of `body`, made on first need (option-independent like the rest): an
    answer labelled under several options reads its body once."""

    def __init__(
        self,
        focus: str,
        early: Verdict | None,
        words: tuple[str, ...] = (),
        starts: tuple[int, ...] = (),
        ends: tuple[int, ...] = (),
        breaks: tuple[int, ...] = (),
        oov: tuple[int, ...] = (),
        both_cue: tuple[tuple[int, int], ...] = (),
        none_cue: tuple[tuple[int, int], ...] = (),
        letter: Label | None = None,
        letter_rest: str | None = None,
        wordset: frozenset[str] = frozenset(),
        yes_no: bool = False,
        lead: str | None = None,
        rationale: str = "",
        reconsidered: str = "",
        retraction: str | None = None,
        body: str = "",
        reasoning: str = "",
        two_option_early: Verdict | None = None,
        body_reading: Reading | None = None,
        notes: str = "",
    ) -> None:
        self.focus = focus
        self.early = early
        self.words = words
        self.starts = starts
        self.ends = ends
        self.breaks = breaks
        self.oov = oov
        self.both_cue = both_cue
        self.none_cue = none_cue
        self.letter = letter
        self.letter_rest = letter_rest
        self.wordset = wordset
        self.yes_no = yes_no
        self.lead = lead
        self.rationale = rationale
        self.reconsidered = reconsidered
        self.retraction = retraction
        self.body = body
        self.reasoning = reasoning
        self.two_option_early = two_option_early
        self.body_reading = body_reading
        self.notes = notes


def _letter_reading(
    focus: Focus, early: Verdict | None, letter: Label | None = None, rest: str | None = None
) -> Reading:
    """The reading of a letter answer, with the text around the focus kept to check it."""
    return Reading(
        focus.text,
        early,
        letter=letter,
        letter_rest=rest,
        rationale=focus.rationale,
        reconsidered=focus.reconsidered,
        retraction=focus.retraction,
        body=focus.body,
        reasoning=focus.reasoning,
        notes=focus.notes,
    )


def read_answer(text: str, lex: Lexicon, *, structured: bool = True) -> Reading:
    """The option-independent reading of an answer: focus, tokens, refusals, hedges.

    Args:
        text: the answer text (gt or pred).
        lex: the lexicon.
        structured: render a JSON object answer as plain text (the multiple-choice reader
            reads the object itself).
    """
    focus = find_focus(text, lex, structured=structured)
    f = focus.text
    if not f.strip():
        why = "the answer is empty" if not text.strip() else f"no answer text ({focus.how})"
        return Reading(f, Verdict(None, "empty", why, f))
    if len(text) > len(f) + 8 and focus.how != "structured answer":
        # "The answer is occult - hmm, actually ... suggests classic. Let me reconsider".
        left_open = open_ending(text, lex)
        if left_open and not f.rstrip().endswith(left_open):
            why = f"hedge: the answer ends in an open deliberation ('{left_open[:40]}')"
            return Reading(f, Verdict(None, "hedge", why, f, cues=(f"hedge:{left_open[:40]}",)))
    word = lex.letter_words.get(f.strip().rstrip("."))
    if word is not None:  # "R", "F": a whole answer that is one letter standing for a word
        return read_answer(word, lex)
    m = _LETTER_ONLY.match(f)
    if m:
        lab = Label.A if m.group(1).lower() == "a" else Label.B
        # What came before the letter stays to be held against it (a <think> block that
        # concludes the other option, a report that places the finding elsewhere).
        return _letter_reading(
            focus, Verdict(lab, "letter", f"the letter of option {lab.value}", f)
        )
    m2 = _LETTER_LEAD.match(f)
    if m2:
        lab = Label.A if (m2.group(1) or m2.group(2) or m2.group(3)).lower() == "a" else Label.B
        return _letter_reading(focus, None, lab, m2.group(4))
    words, starts, ends = lex.canon.canon_arrays(f)
    if not words:
        return Reading(f, Verdict(None, "no-words", "the answer has no words", f))
    ws = frozenset(words)
    for name, phrases in (("refusal", lex.refusal), ("junk", lex.junk), ("hedge", lex.hedge)):
        found = phrases.find(words, ws)
        if found and name == "hedge":
            # "no hemorrhage in either hemisphere" denies both: a none cue, not a hedge.
            negated = set(negated_either(words, lex))
            found = [(i, j) for i, j in found if (i, j) not in negated]
        if found:
            i, j = found[0]
            cue = " ".join(words[i:j])
            return Reading(f, Verdict(None, name, f"{name}: '{cue}'", f, cues=(f"{name}:{cue}",)))
    two_option_early = None
    held = lex.choice_hedge.find(words, ws)
    if held:
        i, j = held[0]
        cue = " ".join(words[i:j])
        two_option_early = Verdict(None, "hedge", f"hedge: '{cue}'", f, cues=(f"hedge:{cue}",))
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
    if (
        not yes_no
        and words[-1] in {"or", "nor", "either", "vs", "versus"}
        and not (
            # "no haemorrhage there either.": the adverb after a denial, not a cut alternative
            words[-1] == "either" and f.rstrip()[-1:] == "." and negated_either(words, lex)
        )
    ):
        cut = Verdict(None, "truncated", "the answer stops on an unfinished alternative", f)
        return Reading(f, cut)
    tail = f.rstrip()
    if (
        len(words) > 1
        and tail[-1:].isalpha()
        and (
            words[-1] in _DANGLING
            or (len(words) > 2 and words[-2] in _DANGLING and words[-1] in _ARTICLES)
            # "... in the upper pole as well as": an additive phrase with nothing after it
            or words[-3:] == ("as", "well", "as")
            or words[-2:] in (("along", "with"), ("together", "with"))
        )
    ):
        cut = Verdict(None, "truncated", "the answer is cut off inside a coordination", f)
        return Reading(f, cut)
    if two_option_early is None and len(words) > 2 and tail[-1:].isalpha() and words[-1] in _OPEN:
        why = "the answer is cut off before its complement"
        two_option_early = Verdict(None, "truncated", why, f)
    if two_option_early is None and tail[-1:].isalpha() and _cut_in_verdict(tail, lex):
        why = "the answer is cut off in the sentence about this image"
        two_option_early = Verdict(None, "truncated", why, f)
    if (
        two_option_early is None
        and tail[-1:].isalpha()
        and _cut_in_concession(f, words, starts, lex)
    ):
        why = "the answer is cut off inside a concessive clause ('although there is a')"
        two_option_early = Verdict(None, "truncated", why, f)
    if len(words) >= 6 and tail[-1:].isalpha() and _cut_in_word(tail, lex):
        # "… but these features indicate squamous cell carcinom": cut inside its last word.
        cut = Verdict(None, "truncated", "the answer is cut off inside its last word", f)
        return Reading(f, cut)
    if tail.endswith(":"):
        cut = Verdict(None, "truncated", "the answer stops after a heading ('X:')", f)
        return Reading(f, cut)
    if tail.endswith("?"):
        back = Verdict(None, "question", "the answer is a question back", f)
        return Reading(f, back)
    breaks = _break_positions(f)
    # Words that fuzzy matching may consider: long, alphabetic, not known English.
    if lead is not None:
        ws = frozenset(words)  # the lead yes/no was set apart
    unknown = ws.difference(vocabulary(), lex.known_words)
    oov: tuple[int, ...] = ()
    if unknown:
        oov = tuple(
            i
            for i, w in enumerate(words)
            if w in unknown and len(w) >= _FUZZY_MIN_LEN and w.isalpha()
        )
    both = tuple(lex.both.find(words, ws))
    if both:
        # "Spots are common to both": a remark on what the options share.
        shared = {j for _, j in lex.both_shared.find(words, ws)}
        both = tuple((i, j) for i, j in both if i not in shared)
    none = tuple(lex.none.find(words, ws)) + tuple(negated_either(words, lex))
    early = None
    if yes_no:
        early = Verdict(None, "yes-no", "a bare yes/no to a two-option question", f)
    return Reading(
        f,
        early,
        words,
        starts,
        ends,
        breaks,
        oov,
        both,
        none,
        yes_no=yes_no,
        lead=lead,
        rationale=focus.rationale,
        reconsidered=focus.reconsidered,
        retraction=focus.retraction,
        body=focus.body,
        reasoning=focus.reasoning,
        two_option_early=two_option_early,
        notes=focus.notes,
        wordset=ws,
    )


def _cut_in_verdict(tail: str, lex: Lexicon) -> bool:
    """The answer stops inside a last sentence that opens on this image ("... suggest
    malignancy. In this image, the margins"): what came before was background."""
    cut = max(tail.rfind(". "), tail.rfind("\n"), tail.rfind("; "), tail.rfind(": "))
    if cut < 0:
        return False
    last = lex.canon.words(tail[cut + 1 :])
    return any(last[: len(p)] == p for p in lex.verdict_openers.phrases)


def _cut_in_concession(
    f: str, words: tuple[str, ...], starts: tuple[int, ...], lex: Lexicon
) -> bool:
    """An answer without a closing stop whose last sentence ends in a concessive or contrast
    clause of three or more words ("The left lung appears normal, and the right lung appears
    normal as well, although there is a subtle"): the clause was cut off before it said what
    it concedes, which may take back what came before."""
    # A contrast cut off the same way ("benign-appearing, but the nuclear pleomorphism and
    # frequent mitoses at the edge") leaves open what it turns to.
    concessive = lex.grammar["concessive"] | lex.grammar["contrast"]
    if concessive.isdisjoint(words):
        return False
    k = max(i for i, w in enumerate(words) if w in concessive)
    if len(words) - k <= 3:
        return False  # "Right, though subtle": a short qualifier, complete as it stands
    return not any(c in _SENTENCE_STOPS for c in f[starts[k] :])


_SENTENCE_STOPS = frozenset(".;!?\n")


def _break_positions(f: str) -> tuple[int, ...]:
    """Offsets of the clause breaks of `f` (each one character wide)."""
    parts = _CLAUSE_BREAK.split(f)
    if len(parts) == 1:
        return ()
    # Break k sits after k + 1 parts and k earlier breaks. A plain loop: native code when
    # compiled, cheaper than chained map/accumulate iterators.
    out: list[int] = []
    pos = -1
    for k in range(len(parts) - 1):
        pos += len(parts[k]) + 1
        out.append(pos)
    return tuple(out)


def negated_either(words: tuple[str, ...], lex: Lexicon) -> list[tuple[int, int]]:
    """Positions of "either" inside a negation ("not in either kidney" means neither)."""
    out: list[tuple[int, int]] = []
    if "either" not in words:
        return out
    for i, w in enumerate(words):
        if w == "either" and any(x in _NEGATORS for x in words[max(0, i - _NEG_WINDOW) : i]):
            out.append((i, i + 1))
    return out


# Two or more labels each followed by a score ("melanoma 0.50 / nevus 0.50", "benign: 92%,
# malignant: 8%"): a classifier's output, not a chosen answer.
_SCORE_LIST = re.compile(
    r"\s*(?:[^\W\d_][\w\- ]{0,40}?\s*[:=(]?\s*(?:0?\.\d+|1\.0+|\d{1,3}(?:\.\d+)?\s?%)\)?"
    r"\s*[/,;|\n]?\s*){2,}[.]?\s*"
)


_DIGIT = re.compile(r"\d")


def score_list(text: str) -> bool:
    """Whether `text` is a list of labels with scores (a classifier's output)."""
    return len(text) < 300 and _DIGIT.search(text) is not None and bool(_SCORE_LIST.fullmatch(text))


# A first sentence that is a question ("Which hernia do you mean — inguinal or umbilical?"),
# not a bracketed query mark ("GPC in clusters (?Staph)").
OPENING_QUESTION = re.compile(r"[^.!?\n(]{3,}\?(?=\s|$)")
_WORD = re.compile(r"[^\W_]+")


def cut_after_sentences(f: str, *, min_chars: int = 0, min_last_words: int = 0) -> bool:
    """A text of several sentences whose last one stops without punctuation ("… at the
    fovea. Both an epiretinal membrane and a macular hole"): cut off before it ends. Callers
    that read long answers ask for `min_chars` and a last sentence of `min_last_words`."""
    tail = f.rstrip()
    if len(tail) < min_chars or not tail[-1:].isalnum():
        return False
    cut = max(tail.rfind(". "), tail.rfind("\n"))
    return cut > 0 and len(_WORD.findall(tail, cut)) >= min_last_words


def judgement_would(words: tuple[str, ...], i: int, lex: Lexicon) -> bool:
    """ "would" between "I"/"we" and a verb of judgement ("I would say", "we'd call it")."""
    return (
        words[i] == "would"
        and 0 < i < len(words) - 1
        and words[i - 1] in ("i", "we")
        and words[i + 1] in lex.grammar["judging_verbs"]
    )


_SENTENCE_END = re.compile(r"[.;!?\n](?:\s|$)")


def said_normal(r: Reading, h: Hit, states: frozenset[str], lex: Lexicon) -> bool:
    """Whether the mention `h` is said to be normal: a state word of `states` right after it
    ("the duodenum was clear to D2"), in a "which …" clause after it ("…, which is normal"),
    or before a noun placed at it ("normal flow on the R")."""
    words, n = r.words, len(r.words)
    g = lex.grammar
    copula, locative = g["copula"], g["locative"]

    def state_at(k: int) -> bool:
        return k < n and words[k] in states and (k + 1 >= n or words[k + 1] not in ("of", "from"))

    k = h.last + 1
    while k < n and words[k] in copula:
        k += 1
    if k > h.last + 1 and state_at(k):
        return True  # "the duodenum was clear to D2"
    for j in range(h.last + 1, min(n, h.last + 9)):
        if _SENTENCE_END.search(r.focus[r.ends[j - 1] : r.starts[j] + 1]):
            break
        if words[j] in ("which", "that"):
            k = j + 1
            while k < n and words[k] in copula:
                k += 1
            if state_at(k):
                return True  # "the left kidney measures 11.2 cm, which is normal"
            break
    lo = clause_start(r, h.start)
    for k in range(max(0, h.first - 5), h.first - 2):
        if r.starts[k] < lo or not state_at(k):
            continue
        between = words[k + 2 : h.first]
        if between and between[0] in locative and all(w in _ARTICLES for w in between[1:]):
            return True  # "normal flow on the R": one noun, then the place
    return False


_STOPS = (". ", "; ", "! ", "? ", "\n")


def sentence_span(f: str, pos: int) -> tuple[int, int]:
    """The bounds of the sentence of `f` that holds position `pos` (its stop excluded)."""
    lo = max(f.rfind(stop, 0, pos) for stop in _STOPS)
    hi = min((j for j in (f.find(stop, pos) for stop in _STOPS) if j >= 0), default=len(f))
    return lo, hi


def clause_start(r: Reading, pos: int) -> int:
    k = bisect_left(r.breaks, pos)
    return r.breaks[k - 1] + 1 if k else 0


def clause_end(r: Reading, pos: int) -> int:
    k = bisect_left(r.breaks, pos)
    return r.breaks[k] if k < len(r.breaks) else len(r.focus)


def other_option(label: Label) -> Label:
    return Label.B if label is Label.A else Label.A


def content_word(w: str, lex: Lexicon) -> bool:
    return (
        w not in lex.stopwords
        and w not in lex.generic
        and w not in lex.grammar["copula"]
        and w not in lex.grammar["comparison_filler"]
        and not w.isdigit()
    )
