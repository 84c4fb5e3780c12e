"""Find the options of a multiple-choice question: explicit ones, a lettered list in the
question ("A. CT\\nB. MRI\\nC. US", "(A) ... (B) ...", "Options: A: ..., B: ..."), or an
unlettered list of three or more ("in the liver, spleen, or kidney?", lettered in order).
Anything else is not multiple choice, and is never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..kinds import MAX_CHOICES
from ..lexicon import Lexicon

# Option markers: "(A)", "[A]" (any case), "A." "A)" "A:" (upper case, at a line or list
# start, followed by a space), "A:CT" / "A)CT" (no space after the colon or bracket, as
# OmniMedVQA and GMAI-MMBench prompts write them), "a)" (lower case), and at a line start
# any separator with or without spaces ("A:Squamous cell carcinoma", "A - X-ray",
# "A.CT"). Each style is read on its own, never mixed.
_MARKS = (
    re.compile(r"(?<![\w(\[])\(([A-Ha-h])\)(?=\s|$)"),
    re.compile(r"(?<![\w(\[])\[([A-Ha-h])\](?=\s|$)"),
    re.compile(r"(?:^|(?<=[\s:;,?]))([A-H])\.(?=\s)"),
    re.compile(r"(?:^|(?<=[\s:;,?]))([A-H])\)(?=\s)"),
    re.compile(r"(?:^|(?<=[\s:;,?]))([A-H]):(?=\s)"),
    re.compile(r"(?:^|(?<=[\s:;,?]))([a-h])\)(?=\s)"),
    re.compile(r"(?:^|(?<=[\s:;,?]))([A-H])(?:[:)](?=[^\W_])|\.(?=[A-Z0-9]))"),
    re.compile(r"(?<![\w(\[])\(([A-H])\)(?=[^\W_])"),
    re.compile(r"(?m)^[ \t]*([A-H])[ \t]*(?:[.):]|[ \t][-\u2013\u2014])[ \t]*(?=\S)"),
)
# Bare letters ("Which finding? A Hydrops fetalis B Oligohydramnios C ..."): read only as a
# list that opens the line or follows the question's "?" or ":", of short options without
# sentence punctuation (a capital "A" is an article as often as a letter).
_BARE = re.compile(r"(?:^|(?<=\s))([A-H])(?=\s+[A-Z0-9])")
_BARE_OPENS = re.compile(r"(?:^|[?:\n])\s*$")
_BARE_ITEM = re.compile(r"^[^.?!:;()\[\]]+$")
_BARE_WORDS = 6
# Where the last option stops: the prompt's instruction after the list.
_TRAILER = re.compile(
    r"\s*(?:\n|(?:(?<=[.?!])|(?<=\s))(?:answer with|please|choose|select|pick|respond|reply|"
    r"give|return|output|only answer|the answer)\b).*$",
    re.I | re.S,
)
_OPTIONS_LABEL = re.compile(r"(?:options|choices|answer choices)\s*[:\-]?\s*$", re.I)
_MAX_LIST_WORDS = 5
_WORD = re.compile(r"\d+(?:\.\d+)+(?!\w)|[^\W_]+(?:[-'/&][^\W_]+)*|[,?;:.!()]")


@dataclass(frozen=True, slots=True, eq=False)
class Choices:
    """The options of a multiple-choice question, in letter order.

    `words` holds each option's canonical words (what an answer must say to name it); the
    grader keys its label tables by `signature`, which is all that labelling reads.
    """

    texts: tuple[str, ...]
    words: tuple[tuple[str, ...], ...]
    source: str
    state_question: bool = False
    """The question asks which one is normal ("Which organ is normal?", "... not affected?"):
    "the liver is normal" then names the liver instead of denying it."""
    asked: frozenset[str] = frozenset()
    """The question's own words (not the options'): "Splenic lesion." answers a question
    about a lesion."""
    stem: frozenset[str] = frozenset()
    """Every word of the question outside its list of options (an answer that restates the
    question's "cancer" does not name the option "Squamous cell carcinoma")."""
    predicate: tuple[str, int] | None = None
    """The comparative the question asks by ("Which is the biggest, ...?" -> size, +)."""
    signature: tuple[object, ...] = ()

    def __post_init__(self) -> None:
        sig = (self.words, self.texts, self.state_question, self.asked, self.stem, self.predicate)
        object.__setattr__(self, "signature", sig)


def build_choices(
    texts: list[str], lex: Lexicon, source: str = "explicit", question: str = ""
) -> Choices | None:
    """Choices from option texts in letter order; None unless there are 3 to 8 of them."""
    clean = [" ".join(t.split()) for t in texts]
    if not 3 <= len(clean) <= MAX_CHOICES or not all(clean):
        return None
    words = tuple(lex.canon.words(t) for t in clean)
    own = {w for ws in words for w in ws}
    asked = [w for w in lex.canon.words(question) if w not in own]
    negators = lex.grammar["question_negators"]
    state = any(w in lex.state_words or w in negators for w in asked)
    rest = stem_of(question)
    for t in sorted(clean, key=len, reverse=True):
        rest = re.sub(r"(?<!\w)" + re.escape(t) + r"(?!\w)", " ", rest, flags=re.I)
    stem = frozenset(lex.canon.words(rest))
    qwords = lex.canon.words(rest)
    found = lex.comparatives.find(qwords)
    predicate = lex.comparative_sign[qwords[found[0][0] : found[0][1]]] if len(found) == 1 else None
    return Choices(tuple(clean), words, source, state, frozenset(asked), stem, predicate)


def extract_choices(question: str, lex: Lexicon) -> Choices | None:
    """The options a question lists: lettered first, else an unlettered list of 3+."""
    found = lettered(question)
    if found is not None:
        return build_choices(found, lex, "letters", stem_of(question))
    items = unlettered(question, lex)
    return build_choices(items, lex, "list", question) if items else None


def lettered(question: str) -> list[str] | None:
    """The texts of a lettered list A, B, C, ... inside the question (3 or more)."""
    found = _lettered_run(question)
    return None if found is None else found[0]


def _lettered_run(question: str) -> tuple[list[str], int] | None:
    """A lettered list's texts and where the list starts in the question."""
    best: tuple[list[str], int] | None = None
    for pattern in (*_MARKS, _BARE):
        marks = list(pattern.finditer(question))
        if len(marks) < 3:
            continue
        bare = pattern is _BARE
        # The longest run A, B, C, ... in order (a stray "(B)" before the list is skipped).
        for k, m in enumerate(marks):
            if m.group(1).upper() != "A":
                continue
            if bare and not _BARE_OPENS.search(question[: m.start()]):
                continue
            run = [m]
            for nxt in marks[k + 1 :]:
                if nxt.group(1).upper() == chr(ord("A") + len(run)):
                    run.append(nxt)
            if len(run) >= 3 and (best is None or len(run) > len(best[0])):
                texts = []
                for n, mark in enumerate(run):
                    end = run[n + 1].start() if n + 1 < len(run) else len(question)
                    texts.append(question[mark.end() : end])
                texts[-1] = _TRAILER.sub("", texts[-1].lstrip())
                texts = [_strip_item(t) for t in texts]
                if bare and not all(
                    _BARE_ITEM.match(t) and len(t.split()) <= _BARE_WORDS for t in texts
                ):
                    continue
                if all(texts):
                    best = (texts, m.start())
    return best


def _strip_item(text: str) -> str:
    t = " ".join(text.split()).strip(" ,;")
    t = re.sub(r"(?:,?\s+(?:or|and))$", "", t, flags=re.I).strip(" ,;")
    return t.rstrip("?").strip()


def stem_of(question: str) -> str:
    """The question without a lettered list (for reading the question's own words)."""
    found = _lettered_run(question)
    if found is None:
        return question
    return _OPTIONS_LABEL.sub("", question[: found[1]]).strip()


def _adjective_like(word: str, lex: Lexicon) -> bool:
    return len(word) > 4 and word.endswith(lex.adjective_suffixes)


def unlettered(question: str, lex: Lexicon) -> list[str] | None:
    """ "Is the lesion in the liver, spleen, or kidney?": the listed items, in order."""
    q = " ".join(question.split())
    toks = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(q)]
    low = [t[0].lower() for t in toks]
    ors = [i for i, w in enumerate(low) if w == "or"]
    if len(ors) != 1:
        return None
    k = ors[0]
    # The sentence holding "or".
    s_start = max((i + 1 for i in range(k) if low[i] in {"?", "!", ";"}), default=0)
    s_end = next((i for i in range(k + 1, len(low)) if low[i] in {"?", "!", ";", "."}), len(low))
    commas = [i for i in range(s_start, k) if low[i] == ","]
    if len(commas) >= 2 and low[s_start] in lex.intro_starts:
        # "On CT, is the mass solid, cystic, or mixed?": the leading phrase and its comma
        # are not part of the list.
        s_start = commas.pop(0) + 1
    if len(commas) < 1:
        return None
    # Items: comma-separated segments before "or", then the words after it.
    bounds = [*commas, k]
    items: list[list[int]] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        if b > a + 1:  # ", or": the Oxford comma leaves nothing between
            items.append(list(range(a + 1, b)))
    last = []
    for i in range(k + 1, s_end):
        if low[i] in {",", ":", "(", ")"}:
            break
        last.append(i)
    while last and low[last[0]] in lex.q_articles:
        last = last[1:]
    # What belongs to every item is not the last one's: "the head, body, or tail of the
    # pancreas" -> tail; "a T1, T2 or FLAIR image" -> FLAIR.
    width = max((len(it) for it in items), default=0)
    if 0 < width < len(last):
        last = last[: next((n for n, i in enumerate(last) if n and low[i] in lex.q_preps), None)]
    while len(last) > 1 and low[last[-1]] in lex.generic:
        last.pop()
    items.append(last)
    first_seg = list(range(s_start, commas[0]))
    stops = lex.q_articles | lex.q_preps | lex.q_verbs
    colon = max((n for n, i in enumerate(first_seg) if low[i] == ":"), default=-1)
    wh = bool(first_seg) and low[first_seg[0]] in lex.list_starts
    if colon >= 0 or not (wh and len(items) >= 3):
        # The first item is the tail of the first segment ("... in the liver"), no longer
        # than the items after it ("the lesion hypo-, iso-" -> hypo).
        head: list[int] = []
        for i in reversed(first_seg):
            if low[i] in stops or low[i] in {":", "("} or len(head) >= max(width, 1):
                break
            head.insert(0, i)
        if not head:
            return None
        if (
            len(head) == 1
            and head[0] > 1
            and low[head[0] - 2] in lex.q_articles
            and _adjective_like(low[head[0] - 1], lex)
            and not _adjective_like(low[head[0]], lex)
            and all(len(it) == 1 and _adjective_like(low[it[0]], lex) for it in items)
        ):
            # "associated with the crown of an unerupted tooth, dentigerous or radicular?":
            # the noun before the comma ends the stem; the adjectives after it are the list.
            return None
        items.insert(0, head)
    texts = []
    for it in items:
        while it and low[it[0]] in lex.q_articles:
            it = it[1:]
        if not it or len(it) > _MAX_LIST_WORDS or any(low[i] in {"(", ")", ":"} for i in it):
            return None
        if len(it) > 1 and low[it[0]] in lex.q_auxiliaries:
            return None  # "is the hip dislocated" is a clause, not a listed option
        texts.append(q[toks[it[0]][1] : toks[it[-1]][2]])
    if len(texts) < 3 or len({t.lower() for t in texts}) != len(texts):
        return None
    return texts
