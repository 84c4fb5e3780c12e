"""Find the two options a question offers, or say why it does not offer exactly two.

Reads "X or Y", "the X or the Y", "X vs. Y", "Which ..., X or Y?", "What is denser, the X or
the Y?", "A) X B) Y", and restores words the options share ("left or right kidney" -> "left
kidney" / "right kidney"). Three or more alternatives, open questions and questions without
an alternative are recognised and refused, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from rapidfuzz import fuzz

from ..lexicon import Lexicon
from .text import Tok, strip_answer_instruction

# Words and the punctuation that bounds an option phrase; hyphens and slashes are skipped so
# that "non-contrast" and "ragged/asymmetrical" stay inside one option.
# A genus abbreviation ("P. falciparum", "S. aureus") is one token with its full stop, so
# the stop ends no sentence and the species keeps its genus.
_QTOK = re.compile(
    r"\b[A-Z]\.(?=\s[a-z]{3,})|\d+(?:\.\d+)+(?!\w)|[^\W_]+(?:['\u2019][^\W_]+)*|[?.,;:!()\[\]]"
)
_PUNCT = frozenset("?.,;:!()[]")
_SENTENCE_END = frozenset("?;!")
# A spaced dash that ends a question's stem ("Which is dilated — the right, the left, or both?").
_DASH = re.compile(r"\s[\u2014\u2013-]\s")
# "(A) X (B) Y", "A) X B) Y", "A. X B. Y", "A: X B: Y"
_LETTER = re.compile(r"(?:\(([A-Da-d])\)|(?<![\w'])([A-D])[).:])\s*")
_MAX_OPTION_WORDS = 6
_MORE_THAN_OR_LESS = re.compile(r"\b(more|less) (\w+) than ([^,?]+?),? or (less|more)\s*\?", re.I)
_EXAMPLES = re.compile(r"\b(?:e\.?g\.?|i\.?e\.?|such as|for example|for instance)(?:\W|$)", re.I)


@dataclass(frozen=True, slots=True)
class Option:
    """One option: its wording and the canonical words that tell it from the other."""

    text: str
    words: tuple[str, ...]
    key: tuple[str, ...]
    surface: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class Options:
    """The two options of a question and what the question asks about them.

    `signature` holds only what labelling depends on (canonical words, keys, the
    question's predicate): the grader keeps one object per signature so that questions
    with the same options share labelling caches, keyed by identity.
    """

    a: Option
    b: Option
    source: str
    predicate: tuple[str, int] | None = None
    abnormal_question: bool = False
    complementary: bool = False
    yes_no: bool = False
    comparand: tuple[str, ...] = ()
    state_question: bool = False
    question_words: frozenset[str] = frozenset()
    normal_question: bool = False
    signature: tuple[object, ...] = ()
    texts: tuple[str, str] = ("", "")
    """The options' wording, A first."""
    context_reads: list[int] = field(default_factory=lambda: [0], compare=False, repr=False)
    """How often labelling read `context`, as a one-item list (the dataclass is frozen).

    A label that never read it depends only on the signature and is shared between questions
    with the same options. Kept because it pays: on 100,000 workload rows sharing saves a third
    of the labellings (54k instead of 81k when keyed by the question's words too) and 13% of
    the run time (plain Python, measured 2026-11-26).
    """
    question_lead: tuple[str, ...] = ()
    """The question's words up to the end of option A, articles dropped."""
    question_findings: frozenset[str] = frozenset()
    """The findings the question names ("mass", "stone"), from [grammar] finding_words."""
    question_outside: frozenset[str] = frozenset()
    """The question's words outside its options ("cell" in "Is the cell a basophil or a
    mast cell?"): its subject, not an option's."""
    subject_option_words: frozenset[str] = frozenset()
    """The options' words that the question also uses outside them ("cell" above): part of
    the signature (empty for most questions), so reading it keeps labels shared."""
    question_stem: str = ""
    """For options that are "yes" and "no", the question before them ("Is there any anomaly
    in the image?"): what a reasoning before a bare letter is held against."""
    question_negated: frozenset[str] = frozenset()
    """The words that make one of `question_words` behind a negative prefix ("located" for
    "dislocated"): `w in question_negated` is `any(p + w in question_words for p in
    negative_prefixes)`, one lookup. Read it only after reading `context`."""
    long_keys: frozenset[str] = frozenset()
    """The options' key words of five letters or more: the ones a qualifier prefix can be
    glued to ("pseudohyphae"); set once here, not per labelled answer."""
    own_words: frozenset[str] = frozenset()
    """Every word of either option, when an option is a "non-" word ("non-fermenters"),
    else empty: the 'non-' check reads answers only then."""

    def __post_init__(self) -> None:
        sig = (
            self.a.words,
            self.a.key,
            self.b.words,
            self.b.key,
            self.predicate,
            self.abnormal_question,
            self.complementary,
            self.source == "or-not",
            self.comparand,
            # Read by labelling without going through `context`.
            self.yes_no,
            self.state_question,
            self.normal_question,
            self.subject_option_words,
            # The options as written, before synonyms: the mention matching and the cheap
            # probes before a rationale is read look at them too ("renal" / "kidney").
            self.a.surface,
            self.b.surface,
        )
        object.__setattr__(self, "signature", sig)
        object.__setattr__(self, "texts", (self.a.text, self.b.text))
        keys = frozenset(w for w in self.a.key + self.b.key if len(w) >= 5 and w.isalpha())
        object.__setattr__(self, "long_keys", keys)
        own = frozenset(self.a.words + self.b.words)
        if any(w.startswith("non") for w in own):
            object.__setattr__(self, "own_words", own)

    @property
    def lead(self) -> tuple[str, ...]:
        """The question's words up to option A; reading them makes a label depend on the
        whole question, like `context`."""
        self.context_reads[0] += 1
        return self.question_lead

    @property
    def findings(self) -> frozenset[str]:
        """The findings the question names; read like `context`."""
        self.context_reads[0] += 1
        return self.question_findings

    @property
    def outside(self) -> frozenset[str]:
        """The question's words outside the options; read like `context`."""
        self.context_reads[0] += 1
        return self.question_outside

    @property
    def stem(self) -> str:
        """The question before its yes/no options; read like `context`."""
        self.context_reads[0] += 1
        return self.question_stem

    @property
    def context(self) -> frozenset[str]:
        """The question's words; reading them makes a label depend on the whole question."""
        self.context_reads[0] += 1
        return self.question_words


@dataclass(frozen=True, slots=True)
class NotTwoOption:
    """Why a question is not a two-option question."""

    kind: str
    reason: str


def extract_options(question: str, lex: Lexicon) -> Options | NotTwoOption:
    """Read the two options a question offers.

    Args:
        question: the question text.
        lex: the lexicon (canonical forms, question words).
    """
    q = " ".join(strip_answer_instruction(question).split())
    # "Is this an MRI? Or a CT?": one question split in two.
    q = re.sub(r"\?\s+(or|vs\.?|versus)\b", r", \1", q, flags=re.I)
    # "more hyperintense than the cortex, or less?" asks "more or less hyperintense than ...".
    q = _MORE_THAN_OR_LESS.sub(r"\1 or \4 \2 than \3?", q)
    if not q:
        return NotTwoOption("empty", "the question is empty")
    lettered = _lettered(q, lex)
    if lettered is not None:
        return lettered
    if _CJK_CHAR.search(q):
        cjk = _cjk_form(q, lex)
        if cjk is not None:
            return cjk
    if _EXAMPLES.search(q):
        # "What disease origin is the lesion (eg, vascular vs. neoplastic)?" names examples
        # of an open answer, not the two options.
        return NotTwoOption("open", "the alternatives are examples of an open answer")
    toks = [_qtok(m) for m in _QTOK.finditer(q)]
    toks = _spanish_or(toks, lex)
    conj = [i for i, t in enumerate(toks) if t.text in lex.q_conj]
    if not conj:
        return NotTwoOption("no_alternative", "the question offers no 'X or Y' alternative")
    k = conj[0]
    s_start, s_end = _sentence(toks, k)
    if toks[s_start].text in lex.intro_starts:
        # "Based on the image, which is bigger, the liver or the spleen?": the question
        # starts after its introductory phrase.
        comma = next((i for i in range(s_start, k) if toks[i].text == ","), None)
        if comma is not None and comma + 1 < k:
            s_start = comma + 1
    if any(s_start <= c < s_end for c in conj[1:]):
        return NotTwoOption("multiple", "the question offers more than two alternatives")
    first = toks[s_start].text if s_start < len(toks) else ""
    first_q = toks[0].text
    stem_break = next(
        (i for i in range(s_start, k) if toks[i].text in {",", ":"}),
        None,
    )
    if first_q in lex.open_starts and first_q not in lex.list_starts:
        return NotTwoOption("open", "an open question that merely contains 'or'")
    if (first in lex.list_starts or first_q in lex.list_starts) and stem_break is not None:
        # "How does the lesion appear, hyperdense or hypodense?" lists its options too.
        dash = _DASH.search(q, toks[s_start].start, toks[stem_break].start)
        if dash is not None:
            # "Which ventricle is dilated — the right, the left, or both?": the list starts
            # at the dash, before the first comma.
            stem_break = max(i for i in range(s_start, stem_break) if toks[i].end <= dash.start())
        return _list_form(q, toks, stem_break, k, s_end, lex)
    if s_start > 0 and not any(t.text in lex.q_verbs for t in toks[s_start:s_end]):
        # "Which is more likely? Cancer or hemorrhage?"
        return _list_form(q, toks, s_start - 1, k, s_end, lex)
    if first_q in lex.open_starts or first in lex.open_starts:
        return NotTwoOption("open", "an open question that merely contains 'or'")
    return _inline_form(q, toks, k, s_start, s_end, lex)


def build_options(
    a: str, b: str, lex: Lexicon, *, question: str = "", source: str = "explicit"
) -> Options | NotTwoOption:
    """Options from explicit texts (e.g. option_a/option_b columns)."""
    a, b = " ".join(a.split()), " ".join(b.split())
    if not a or not b:
        return NotTwoOption("empty", "an explicit option is empty")
    return _finish(a, b, lex, question, source, ())


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# "这张图像是CT还是MRI？" (Chinese "X or Y"); "病変は右肺ですか、左肺ですか？" (Japanese).
_CJK_ALTERNATIVES = (
    re.compile(r"^(?P<x>.+?)(?:还是|還是)(?P<y>.+?)呢?[？?。]?\s*$"),
    re.compile(
        r"^(?P<x>.+?)(?:です|でしょう)か[、,，]\s*(?:それとも)?(?P<y>.+?)(?:です|でしょう)か[？?。]?\s*$"
    ),
)
# What ends the question's subject before the first option: a copula or a topic marker.
_CJK_LEADS = ("是", "为", "為", "は", "が")
_ASCII_CODE = re.compile(r"[A-Za-z0-9]+")


def _cjk_form(q: str, lex: Lexicon) -> Options | NotTwoOption | None:
    """The two options of a Chinese or Japanese "X or Y" question, read in English through
    the `[cjk]` forms ("右肺" / "左肺" -> right lung / left lung), their wording kept; None
    when the question is not of that form."""
    q = q.strip()
    m = next((mm for p in _CJK_ALTERNATIVES if (mm := p.match(q)) is not None), None)
    if m is None:
        return None
    x, y = m.group("x").strip(), m.group("y").strip()
    x = x[max((x.rfind(c) + len(c) for c in _CJK_LEADS if c in x), default=0) :]
    for n in range(len(x), 0, -1):
        at = y.rfind(x[-n:])
        if at >= 0:
            y = y[: at + n]  # "左心室还是右心室扩大": Y ends where X does, before the predicate
            break
    head = 0
    while head < min(len(x), len(y)) and x[head] == y[head]:
        head += 1
    tail = 0
    while tail < min(len(x), len(y)) - head and x[-1 - tail] == y[-1 - tail]:
        tail += 1
    # Read whole ("右肺" = right lung), never by the part that tells them apart alone: "左心室"
    # read as "left" would take "左心房" (left atrium) for it. Codes are the exception
    # ("T1強調画像" / "T2強調画像": T1 / T2).
    a_en, b_en = _cjk_english(x, lex), _cjk_english(y, lex)
    if not a_en or not b_en:
        a, b = x[head : len(x) - tail], y[head : len(y) - tail]
        if not (_ASCII_CODE.fullmatch(a) and _ASCII_CODE.fullmatch(b)):
            return NotTwoOption("unparsed", "options in Chinese or Japanese that are not known")
        a_en, b_en = x[:head] + a, y[:head] + b
    opts = _finish(a_en, b_en, lex, q, "cjk", ())
    if not isinstance(opts, Options):
        return opts
    # Read in English, shown (and its codes read) as written.
    return replace(opts, a=replace(opts.a, text=x), b=replace(opts.b, text=y))


def _cjk_english(text: str, lex: Lexicon) -> str | None:
    """`text` in English words through the `[cjk]` forms, longest first, Latin-script
    codes ("CT", "T1") kept; None when a character is not covered."""
    out: list[str] = []
    i, n = 0, len(text)
    longest = max((len(f) for f in lex.cjk_words), default=0)
    while i < n:
        c = text[i]
        if c.isascii() and c.isalnum():
            j = i
            while j < n and text[j].isascii() and text[j].isalnum():
                j += 1
            out.append(text[i:j])
            i = j
            continue
        if c.isspace() or c in "-\u30fb":
            i += 1
            continue
        word = None
        for k in range(min(longest, n - i), 0, -1):
            word = lex.cjk_words.get(text[i : i + k])
            if word is not None:
                out.append(word)
                i += k
                break
        if word is None:
            return None
    return " ".join(out) if out else None


def _spanish_or(toks: list[Tok], lex: Lexicon) -> list[Tok]:
    """The tokens with Spanish "o" kept as an "or" only between two words, not after a verb,
    a preposition or a question word, and only where no "ou" shows the question to be
    Portuguese (whose "o" is "the"); elsewhere it becomes "the"."""
    if not any(t.text == "o" for t in toks):
        return toks
    portuguese = any(t.text == "ou" for t in toks)
    out = []
    for i, t in enumerate(toks):
        if t.text == "o":
            prev = toks[i - 1].text if i else ""
            between = (
                not portuguese
                and i + 1 < len(toks)
                and prev.isalnum()
                and toks[i + 1].text.isalnum()
                and prev not in lex.q_verbs
                and prev not in lex.q_preps
                and prev not in lex.list_starts
            )
            if not between:
                t = Tok("the", t.start, t.end)
        out.append(t)
    return out


def _qtok(m: re.Match[str]) -> Tok:
    return Tok(m.group().lower().replace("\u2019", "'"), m.start(), m.end())


def _sentence(toks: list[Tok], k: int) -> tuple[int, int]:
    """Token range of the sentence holding index k ("vs." does not end a sentence)."""
    start = 0
    for i in range(k - 1, -1, -1):
        if toks[i].text in _SENTENCE_END or (
            toks[i].text == "." and not (i > 0 and toks[i - 1].text == "vs")
        ):
            start = i + 1
            break
    end = len(toks)
    for i in range(k + 1, len(toks)):
        if toks[i].text in _SENTENCE_END or (toks[i].text == "." and toks[i - 1].text != "vs"):
            end = i
            break
    return start, end


def _lettered(q: str, lex: Lexicon) -> Options | NotTwoOption | None:
    marks = list(_LETTER.finditer(q))
    letters = [(m.group(1) or m.group(2)).upper() for m in marks]
    if len(marks) < 2 or letters[:2] != ["A", "B"]:
        return None
    a = q[marks[0].end() : marks[1].start()].strip(" ,;")
    end = marks[2].start() if len(marks) > 2 else len(q)
    b = q[marks[1].end() : end].strip(" ,;?.")
    if len(marks) > 2 and letters[2] == "C":
        return NotTwoOption("multiple", "the question lists more than two lettered options")
    if not a or not b:
        return None
    return _finish(a, b, lex, q[: marks[0].start()], "letters", ())


def _strip_articles(toks: list[Tok], lex: Lexicon) -> list[Tok]:
    while toks and toks[0].text in lex.q_articles:
        toks = toks[1:]
    return toks


def _list_form(
    q: str, toks: list[Tok], stem_end: int, k: int, s_end: int, lex: Lexicon
) -> Options | NotTwoOption:
    """ "Which is bigger, X or Y?": the options are the listed items after the stem."""
    items: list[list[Tok]] = [[]]
    for t in toks[stem_end + 1 : s_end]:
        if t.text in {",", ":"} or t.text in lex.q_conj:
            if items[-1]:
                items.append([])
            continue
        if t.text in _PUNCT:
            continue
        items[-1].append(t)
    items = [_strip_articles(it, lex) for it in items if it]
    items = [it for it in items if it]
    if len(items) > 2:
        return NotTwoOption("multiple", "the question lists more than two options")
    if len(items) < 2 or any(len(it) > _MAX_OPTION_WORDS for it in items):
        return NotTwoOption("unparsed", "could not read two options from the question")
    x, y = items
    stem = q[: toks[stem_end].start] if stem_end >= 0 else ""
    noun = _which_noun(toks, stem_end, lex)
    if noun and len(x) == 1 and len(y) == 1:
        # "Which ventricle is dilated, the left or the right?": bare sides after a noun they
        # form a fixed term with are options "left ventricle" / "right ventricle".
        xn, yn = f"{x[0].text} {noun}", f"{y[0].text} {noun}"
        known = lex.known_phrases
        if tuple(lex.canon.words(xn)) != tuple(xn.split()) and all(
            tuple(t.text for t in lex.canon.base(n)) in known for n in (xn, yn)
        ):
            return _finish(xn, yn, lex, stem, "list", (x[0].start, y[-1].end))
    return _restore(q, x, y, lex, stem, "list", modifier_only=True, trim=False)


def _which_noun(toks: list[Tok], stem_end: int, lex: Lexicon) -> str | None:
    """The noun right after a leading "which" ("Which ventricle is ..."), if any."""
    if stem_end < 2 or toks[0].text != "which":
        return None
    noun = toks[1].text
    return None if noun in lex.q_verbs or noun in _PUNCT else noun


def _inline_form(
    q: str, toks: list[Tok], k: int, s_start: int, s_end: int, lex: Lexicon
) -> Options | NotTwoOption:
    """ "Is the lesion on the left or right side?": read outwards from the conjunction."""
    # Y: forward from the conjunction ("vs." carries its full stop).
    j = k + 1
    if j < s_end and toks[j].text == "." and toks[k].text == "vs":
        j += 1
    # "..., or is it on the right?": the repeated verb and pronoun are not the option.
    while j < s_end - 1 and toks[j].text in lex.q_verbs and toks[j].text not in lex.q_preps:
        j += 1
    y_article = j < s_end and toks[j].text in lex.q_articles
    while j < s_end and toks[j].text in lex.q_articles:
        j += 1
    pp = j < s_end and toks[j].text in lex.q_preps
    y: list[Tok] = []
    while j < s_end and len(y) < _MAX_OPTION_WORDS:
        t = toks[j].text
        if t in _PUNCT or t in lex.q_conj:
            break
        if y and (t in lex.q_verbs or (t in lex.q_preps and not pp) or t == "and"):
            break
        if (
            y
            and lex.comparatives.match_at((t,), 0)
            and (j + 1 >= s_end or toks[j + 1].text in _PUNCT or toks[j + 1].text == "than")
        ):
            break  # "Is the left or right lung larger?": the comparative is the predicate
        if (
            y
            and t in ("more", "less")
            and j + 1 < s_end
            and (j + 2 >= s_end or toks[j + 2].text in _PUNCT or toks[j + 2].text == "than")
        ):
            break  # "Is the RV or the LV more dilated?": so is "more X" at the end
        if (
            y
            and len(t) > 4
            and t.endswith("ed")
            and (j + 1 >= s_end or toks[j + 1].text in _PUNCT)
            and q[toks[j].start - 1 : toks[j].start] == " "
        ):
            break  # "Is the retinal vein or artery occluded?": the participle is the predicate
        if y and pp and t in lex.q_preps:
            break
        if not (pp and t in lex.q_articles):
            y.append(toks[j])
        j += 1
    if j < s_end and toks[j].text in lex.q_conj:
        return NotTwoOption("multiple", "the question offers more than two alternatives")
    pp = pp and len(y) > 1  # a lone "outside" is an adjective, not a phrase
    # X: backward from the conjunction; an Oxford comma means a list of three or more.
    i = k - 1
    oxford = i >= s_start and toks[i].text == ","
    if oxford:
        i -= 1  # "on the left, or on the right?"; a list of three shows another comma below
    x: list[Tok] = []
    while i >= s_start and len(x) < _MAX_OPTION_WORDS:
        t = toks[i].text
        if t in _PUNCT:
            break
        # A possessive ends X ("the patient's left or right"), unless it is an eponym, written
        # with a capital ("Alzheimer's disease or frontotemporal dementia").
        eponym = t.endswith("'s") and q[toks[i].start : toks[i].start + 1].isupper()
        if x and (t in lex.q_verbs or t == "and" or (t.endswith("'s") and not eponym)):
            break
        if (
            len(x) == 1
            and x[0].text.endswith("'s")
            and q[x[0].start : x[0].start + 1].isupper()
            and not q[toks[i].start : toks[i].start + 1].isupper()
        ):
            break  # "Is the esophageal finding Barrett's or ...": a lone eponym is the noun
        if x and not pp and (t in lex.q_articles or t in lex.q_preps):
            break
        if not (pp and t in lex.q_articles):
            x.insert(0, toks[i])
        i -= 1
    if oxford and any(t.text == "," for t in toks[s_start : i + 1]):
        # "normal, showing SAM, or showing prolapse": X stopped at a verb, but the comma
        # before it and the one before "or" make a list of three or more.
        return NotTwoOption("multiple", "the question lists more than two options")
    named = i >= s_start and toks[i].text in ("a", "an") and y_article and not pp
    while i >= s_start and toks[i].text in lex.q_articles:
        i -= 1  # "in the left lung, the right lung, or the mediastinum"
    if i >= s_start and toks[i].text == "," and not _intro_phrase(toks, s_start, i, lex):
        return NotTwoOption("multiple", "the question lists more than two options")
    if not x or not y:
        return NotTwoOption("unparsed", "could not read two options from the question")
    if oxford and all(t.text in lex.q_verbs for t in x):
        # "Les deux reins sont-ils atteints, ou seulement le rein gauche ?": the verb before
        # the comma is not the first option; its subject is, and is not read here.
        return NotTwoOption("unparsed", "could not read two options from the question")
    if "/" in q[x[0].start : x[-1].end]:
        # "hyperdense/hypodense or isodense?" hides a third alternative behind the slash.
        return NotTwoOption("multiple", "the question offers more than two alternatives")
    if len(y) == 1 and y[0].text in lex.or_not:
        # "Does this image use contrast or not?" -> contrast / no contrast
        xt = q[x[0].start : x[-1].end]
        return _finish(xt, "no " + xt, lex, q, "or-not", (x[0].start, y[-1].end))
    if pp:
        # "MRI with contrast or without contrast": X starts where its preposition does.
        first_prep = next((n for n, t in enumerate(x) if t.text in lex.q_preps), 0)
        x = x[first_prep:]
    # "a pneumothorax or a pleural effusion": two noun phrases, nothing shared to restore
    # unless X is a bare modifier ("the left or the right side"). "a X or a Y": X is a whole
    # noun phrase ("a basal cell carcinoma or a melanocytic nevus"), nothing to trim.
    return _restore(q, x, y, lex, q, "inline", modifier_only=y_article, pp=pp, trim=not named)


def _intro_phrase(toks: list[Tok], s_start: int, comma: int, lex: Lexicon) -> bool:
    """True when the words before the comma are a leading phrase ("On this image, ..."): the
    sentence's first comma, after an opening word of such a phrase ("On CT, is the mass
    solid, cystic, or mixed?" lists three options: its second comma closes no phrase)."""
    return (
        s_start < comma
        and toks[s_start].text in lex.intro_starts
        and not any(t.text == "," for t in toks[s_start:comma])
    )


def _restore(
    q: str,
    x: list[Tok],
    y: list[Tok],
    lex: Lexicon,
    question: str,
    source: str,
    *,
    modifier_only: bool,
    pp: bool = False,
    trim: bool = True,
) -> Options | NotTwoOption:
    """Restore the words two options share: "left or right kidney" -> "left kidney"."""
    xt = q[x[0].start : x[-1].end]
    yt = q[y[0].start : y[-1].end]
    xb = lex.canon.base(xt)
    yb = lex.canon.base(yt)
    prefix = xb[-1].text if xb else ""
    if prefix in lex.canon.join_prefixes and yb:
        # "hyper- or hypointense", "hyper or hypointense": X is a prefix that shares Y's
        # stem -> "hyperintense" (a prefix is never an option on its own).
        other = next((p for p in lex.canon.join_prefixes if yb[0].text.startswith(p)), None)
        if other is not None and other != prefix and len(yb[0].text) > len(other) + 2:
            xt = prefix + yb[0].text[len(other) :]
            xb = lex.canon.base(xt)
            x = x[-1:]
    while len(yb) > 1 and yb[0].text in lex.stopwords and yb[0].text not in lex.modifiers:
        yb = yb[1:]
    ny = len(yb) - 1
    if (
        trim
        and not pp
        and ny > 0
        and yb[0].text in lex.or_not
        and len(xb) > ny
        and [t.text for t in xb[-ny:]] == [t.text for t in yb[1:]]
    ):
        # "the gallbladder visualised or not visualised": X is what Y denies -> visualised
        xt, xb = xt[xb[-ny].start :], xb[-ny:]
    aligned = bool(yb) and xb[-1].text == yb[-1].text  # "well differentiated or poorly ..."
    subject_cut = False  # X was cut after the subject's noun: X is whole, nothing to restore
    if trim and not pp and aligned and len(xb) > len(yb):
        # "the carcinoma well differentiated or poorly differentiated": as long as Y
        xt, xb = xt[xb[len(xb) - len(yb)].start :], xb[len(xb) - len(yb) :]
    if trim and not pp and len(xb) > 1 and yb and xb[0].text != yb[0].text and not aligned:
        # Keep X parallel to Y: "the bacteria Gram-positive or Gram-negative" ->
        # Gram-positive; "the mass in the liver regular or irregular" -> regular.
        cut = next((k for k in range(1, len(xb)) if _parallel(xb[k].text, yb[0].text, lex)), None)
        if cut is not None and {t.text for t in xb[cut:]} <= {t.text for t in yb}:
            cut = None  # "open-angle or angle-closure": X cut to "angle" would be inside Y
        if cut is None and _adjective(xb[-1].text, lex) and not _adjective(xb[-2].text, lex):
            # "the nodule solid or ground-glass" -> solid; "the contrast phase arterial or
            # portal venous" -> arterial (the noun before the adjective is the subject's)
            cut = len(xb) - 1
            subject_cut = True
        if (
            cut is None
            and len(xb) > len(yb)
            and not _adjective(xb[-1].text, lex)
            and _parallel(xb[0].text, yb[0].text, lex)
        ):
            # "multiple lesions or just 1" -> "just 1 lesions": Y takes X's head noun.
            yt = f"{yt} {xt[xb[len(yb)].start :]}"
            yb = lex.canon.base(yt)
        elif cut is None and len(xt.split()) > len(yt.split()):
            # "the stroke hemorrhagic or ischemic" -> hemorrhagic, "the stain Gram or
            # Ziehl-Neelsen" -> Gram: X keeps as many words as Y has, counted as written (a
            # hyphenated or possessive word is one), unless X is a known phrase ("small bowel
            # or colon").
            # "squamous cell carcinoma or adenocarcinoma": X's head is in Y's word, so X's
            # modifiers are what tell it apart, not the question's subject.
            head_in_y = yb[-1].text != xb[-1].text and yb[-1].text.endswith(xb[-1].text)
            if tuple(t.text for t in xb) not in lex.known_phrases and not head_in_y:
                at = [m.start() for m in re.finditer(r"\S+", xt)][-len(yt.split())]
                cut = next((k for k, t in enumerate(xb) if t.start >= at), None) or None
        if cut:
            xt, xb = xt[xb[cut].start :], xb[cut:]
    while len(yb) > 1 and yb[0].text in lex.stopwords and yb[0].text not in lex.modifiers:
        yb = yb[1:]
    # Where X now starts: the words trimmed off it are the question's subject, outside.
    x_from = q.find(xt, x[0].start)
    x_from = x[0].start if x_from < 0 else x_from
    n = len(xb)
    restorable = (
        not subject_cut
        and "/" not in yt
        and bool(yb)
        and yb[0].text not in lex.or_not
        and not any(t.text == xb[0].text for t in yb)
    )
    if (
        restorable
        and 0 < n < len(yb)
        and [t.text for t in xb[1:]] == [t.text for t in yb[1:n]]
        and yt[yb[n].start - 1 : yb[n].start] == " "
    ):
        # The shared words start a word of their own ("Ziehl-Neelsen" shares nothing).
        x_mod = xb[0].text in lex.modifiers
        y_mod = yb[0].text in lex.modifiers
        # "the mitral or the aortic valve": a lone adjective takes the noun too
        x_adj = n == 1 and all(
            len(w) > 4 and w.isalpha() and _adjective(w, lex) for w in (xb[0].text, yb[0].text)
        )
        if (x_mod or x_adj or not modifier_only) and not (y_mod and not x_mod):
            tail = yt[yb[n].start :]
            xt = f"{xt} {tail}"
    k = len(xb)
    if (
        "/" not in yt
        and 2 <= k < len(yb)
        and [t.text for t in xb[:-1]] == [t.text for t in yb[: k - 1]]
        and _numeral(xb[-1].text, lex)
        and _numeral(yb[k - 1].text, lex)
        and yt[yb[k].start - 1 : yb[k].start] == " "
    ):
        # "type I or type II endoleak", "grade 1 or grade 2 tumour": two numbered names of
        # one thing share the noun after them, as "left or right kidney" do.
        xt = f"{xt} {yt[yb[k].start :]}"
    cue = (x[0].text,)
    if len(x) > 1 and x_from > x[0].start and (cue in lex.both.phrases or cue in lex.none.phrases):
        # "Are both lungs involved or only one?": the option is the cue itself ("both"),
        # which the trim above took for the subject; an answer's "both" then names it.
        xt, x_from = q[x[0].start : x[0].end], x[0].start
    lead = tuple(w for w in lex.canon.words(q[: x[-1].end]) if w not in lex.q_articles)
    return _finish(xt, yt, lex, question, source, (x_from, y[-1].end), lead)


def _adjective(word: str, lex: Lexicon) -> bool:
    # "-ment" is a noun's ending ("detachment", "displacement"), not an adjective's ("-ent").
    return word in lex.parallel or (
        len(word) > 4 and word.endswith(lex.adjective_suffixes) and not word.endswith("ment")
    )


def _parallel(x: str, y: str, lex: Lexicon) -> bool:
    """Two words that can stand for each other in "X or Y" (grey/white, regular/irregular)."""
    if lex.parallel.get(x, set()) & lex.parallel.get(y, set()):
        return True
    cx, cy = lex.comparative_sign.get((x,)), lex.comparative_sign.get((y,))
    if cx is not None and cy is not None and cx[0] == cy[0]:
        return True
    if _complementary((x,), (y,), lex):
        return True
    if fuzz.ratio(x, y) >= 70:
        return True
    # Derived forms of parallel words: "mesially or distally" (mesial, distal).
    wx, wy = lex.canon.words(x), lex.canon.words(y)
    if len(wx) == 1 and len(wy) == 1 and (wx, wy) != ((x,), (y,)):
        return bool(lex.parallel.get(wx[0], set()) & lex.parallel.get(wy[0], set()))
    return False


def _finish(
    a_text: str,
    b_text: str,
    lex: Lexicon,
    question: str,
    source: str,
    span: tuple[int, int] | tuple[()],
    lead: tuple[str, ...] = (),
) -> Options | NotTwoOption:
    a_words = _content(lex.canon.words(a_text), lex)
    b_words = _content(lex.canon.words(b_text), lex)
    if span and len(a_words) == 1 and len(b_words) == 1:
        a_words, b_words = _numbered_options(a_words, b_words, question[: span[0]], lex)
    if not a_words or not b_words:
        return NotTwoOption("unparsed", "an option has no content words")
    if a_words == b_words:
        return NotTwoOption("same", "the two options read the same")
    a_key, b_key = _keys(a_words, b_words, lex)
    # Distinguishing words before synonyms too: "with contrast" is told by "with".
    a_base = _content(tuple(t.text for t in lex.canon.base(a_text)), lex)
    b_base = _content(tuple(t.text for t in lex.canon.base(b_text)), lex)
    a_surface, b_surface = _keys(a_base, b_base, lex)
    # Only when a synonym rewrote a word (most options keep their written words).
    shared = set(a_base) & set(b_base) if not set(a_key + b_key) <= set(a_base + b_base) else ()
    if shared:
        # "small intestine or large intestine" reads as "small bowel" or "colon": the
        # written word both share ("intestine", read "bowel") tells neither apart.
        same = {c for w in shared for c in lex.canon.words(w)}
        a_key = tuple(w for w in a_key if w not in same) or a_key
        b_key = tuple(w for w in b_key if w not in same) or b_key
    if source == "or-not":
        a_key, b_key, b_surface = a_words, b_words, ()
    predicate, abnormal = _predicate(question, span, lex)
    comparand = _comparand(question, span, lex)
    context = frozenset(lex.canon.words(question)) | frozenset(a_words) | frozenset(b_words)
    context |= frozenset(stem(w) for w in context)
    outside = _outside(question, span, lex)
    yes_no = any(w in lex.yes or w in lex.no for w in a_words + b_words)
    return Options(
        a=Option(a_text, a_words, a_key, a_surface),
        b=Option(b_text, b_words, b_key, b_surface),
        source=source,
        predicate=predicate,
        abnormal_question=abnormal,
        complementary=_complementary(a_key, b_key, lex),
        yes_no=yes_no,
        comparand=comparand,
        state_question=not abnormal,
        question_words=context,
        normal_question=not lex.grammar["state_options"].isdisjoint(a_words + b_words),
        question_lead=lead,
        question_findings=context & lex.grammar["finding_words"],
        question_outside=outside,
        subject_option_words=outside & frozenset(a_words + b_words),
        question_stem=_stem(question, span) if yes_no else "",
        question_negated=frozenset(
            c[len(p) :] for c in context for p in lex.negative_prefixes if c.startswith(p)
        ),
    )


def _stem(question: str, span: tuple[int, int] | tuple[()]) -> str:
    """The question before its options (before the first option letter for explicit ones)."""
    if span:
        return question[: span[0]].strip()
    m = _LETTER.search(question)
    return (question[: m.start()] if m else question).strip()


def _numbered_options(
    a: tuple[str, ...], b: tuple[str, ...], before: str, lex: Lexicon
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Roman numeral options after a numbering word ("Is the Bosniak category IIF or III?")
    as the answer's canonical form reads them ("2f", "3")."""
    roman = lex.canon.roman
    if a[0] not in roman or b[0] not in roman:
        return a, b
    last = lex.canon.words(before)[-1:]
    if not last or last[0] not in lex.canon.numbered:
        return a, b
    return (roman[a[0]],), (roman[b[0]],)


def _numeral(word: str, lex: Lexicon) -> bool:
    """A number or a roman numeral ("2", "II"); not a letter label ("type A dissection" would
    read its "A" as an article)."""
    return word.isdigit() or (word in lex.canon.roman and word != "a")


def _outside(question: str, span: tuple[int, int] | tuple[()], lex: Lexicon) -> frozenset[str]:
    """The question's canonical words outside the options' span (all of them without one)."""
    if not span or not question:
        return frozenset()
    lo, hi = span
    return frozenset(t.text for t in lex.canon.canon(question) if t.end <= lo or t.start >= hi)


def _content(words: tuple[str, ...], lex: Lexicon) -> tuple[str, ...]:
    # A trailing one-letter word is a label ("type A"), not an article.
    kept = tuple(
        w
        for n, w in enumerate(words)
        if w not in lex.stopwords or (len(w) == 1 and n == len(words) - 1 and n > 0)
    )
    return kept or words


def _keys(
    a: tuple[str, ...], b: tuple[str, ...], lex: Lexicon
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words that tell each option from the other (shared and generic words dropped)."""

    def key(own: tuple[str, ...], other: tuple[str, ...]) -> tuple[str, ...]:
        distinct = tuple(w for w in own if w not in other)
        if not distinct:  # "right" vs "lower right": the shorter is told apart by length
            return own
        specific = tuple(w for w in distinct if w not in lex.generic)
        return specific or distinct

    return key(a, b), key(b, a)


def _predicate(
    question: str, span: tuple[int, int] | tuple[()], lex: Lexicon
) -> tuple[tuple[str, int] | None, bool]:
    """The comparative the question asks about outside its options, and 'which is abnormal'."""
    toks = lex.canon.canon(question)
    hi = 0
    if span:
        lo, hi = span
        toks = [t for t in toks if t.end <= lo or t.start >= hi]
    words = tuple(t.text for t in toks)
    predicate = None
    for i in range(len(words)):
        p = lex.comparatives.match_at(words, i)
        if p is None:
            continue
        j = i + len(p)
        if (
            span
            and toks[i].start >= hi
            and i > 0
            and words[i - 1] in lex.q_articles
            and j < len(words)
            and words[j].isalpha()
            and words[j] not in lex.stopwords
        ):
            # "… or confined to the lower third?": after the options, a comparative between
            # an article and its noun names a part; "the larger effusion" before them asks.
            continue
        predicate = lex.comparative_sign[p]
        break
    # "Which kidney is normal?" (or "has no mass", "is not fractured") asks for the normal
    # one: "X is normal" must not deny X. Any other question (where is the finding, which is
    # abnormal) reads it as a denial.
    negators = lex.grammar["question_negators"]
    abnormal = not any(
        w in lex.state_words or (w in negators and not _free_noun(words, i, lex))
        for i, w in enumerate(words)
    )
    return predicate, abnormal


def _free_noun(words: tuple[str, ...], i: int, lex: Lexicon) -> bool:
    """ "free" before the noun it describes ("free fluid", "free air"): a finding, not a
    question about what is free of one ("free of stones", "stone-free")."""
    return (
        words[i] == "free"
        and i + 1 < len(words)
        and words[i + 1] not in lex.stopwords
        and words[i + 1] not in lex.q_verbs
    )


def stem(word: str) -> str:
    """A crude stem for matching a question's word with its forms ("fracture"/"fractured")."""
    for end in ("ing", "ed", "es", "d", "s"):
        if len(word) > len(end) + 3 and word.endswith(end):
            word = word[: -len(end)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def _comparand(question: str, span: tuple[int, int] | tuple[()], lex: Lexicon) -> tuple[str, ...]:
    """Content words after "than"/"compared to" past the options ("... than the spleen")."""
    if not span:
        return ()
    toks = [t for t in lex.canon.canon(question) if t.start >= span[1]]
    words = tuple(t.text for t in toks)
    for i in range(len(words)):
        p = lex.than.match_at(words, i)
        if p is not None:
            rest = words[i + len(p) :]
            return tuple(w for w in rest if w not in lex.stopwords and w not in lex.generic)
    return ()


def _complementary(a: tuple[str, ...], b: tuple[str, ...], lex: Lexicon) -> bool:
    """True when denying one option affirms the other (normal/abnormal, X/non-X)."""
    if frozenset(a + b) in lex.complement_pairs:
        return True
    if len(a) != 1 or len(b) != 1:
        return False
    x, y = a[0], b[0]
    for p in lex.negative_prefixes:
        if x == p + y or y == p + x:
            return True
    return False
