"""Letter formats of multiple-choice answers: how a letter is written and where it is found
("B", "(B)", "B. MRI", "Option B", "the second option", "B is correct", "not A or C",
``{"answer": "B"}``, ``\\boxed{B}``, "Respuesta: B", a last sentence that commits to a
letter), and when a capital is a word rather than a letter ("A mass", "C. neoformans")."""

from __future__ import annotations

import json
import re

from .choice_options import _Info
from .choice_vocab import _Vocab

_JSON_ANSWER = re.compile(
    r"""^\s*\{\s*["']?(?:answer|choice|option|letter)["']?\s*:\s*["']?([^"'{}]*)["']?""", re.I
)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_BOLD_MARK = re.compile(r"[*_`]+")
_WHOLE = re.compile(
    r"^\W*(?:(?:the\s+)?(?:correct\s+|best\s+|final\s+)?(?:option|choice|answer|ans|letter)"
    r"(?:\s+is)?\s*[:\-]?\s*)?[(\[]?([A-Ha-h])[)\]]?[\s.!]*$",
    re.I,
)
_LEAD = re.compile(
    r"^\W*(?:\(([A-Ha-h])\)|\[([A-Ha-h])\]|([A-H])(?:[).:,]|\s+[-\u2013\u2014]|(?=[ \t]*\n)"
    r"|(?=\s+(?:because|since|as|given|due|based)\b)))\s*(\S.*)$",
    re.S,
)
# What a letter is followed by when an option is discussed, not chosen ("(A) would be
# painful").
_HYPOTHETICAL = re.compile(r"(?:would|could|might|may|can|should)\b", re.I)
# "A (posterior dislocation)": a letter and, in brackets, the option it stands for.
_LEAD_BRACKET = re.compile(r"^\W*([A-H])\s*\(([^()]+)\)[\s.!]*$")
# A letter named as a choice anywhere in the focus.
# What may follow a bare capital for it to be a letter: the end, punctuation, "is correct"
# (not a full stop before a lower-case word: "is C. difficile" abbreviates a genus).
_AFTER = (
    r"(?=\s*(?:\.(?!\s+[a-z])|[,;:!)\]]|$"
    r"|(?i:is|seems|appears)\s+(?:the\s+)?(?i:correct|right|best|answer)))"
)
_NAMED = re.compile(
    r"\b(?i:option|choice|letter)\s*[:#]?\s*(?:[(\[]([A-Ha-h])[)\]]|([A-H])(?![\w'-])"
    r"|([a-h])" + _AFTER + r")"
    r"|[(\[]([A-H])[)\]]"
    r"|\b([A-H])\s+(?:is|seems|appears)\s+(?:the\s+)?(?:correct|right|best|most\s+likely)\b"
    r"|\b(?i:answer)\s*[:\uff1a]\s*[(\[]?([A-H])[)\]]?(?=[ \t]*(?:[.,;:!)\]]|\n|$))"
    r"|\b(?i:choose|chose|select|pick|go\s+with|so|therefore|thus|hence|believe|think|say|guess"
    r"|would\s+be|is|leaves|leaving|leaves\s+us\s+with|must\s+be|sticking\s+with|stick\s+with"
    r"|going\s+with|final)\s*[,:]?\s*(?i:the\s+answer\s+is\s+)?[(\[]?([A-H])[)\]]?" + _AFTER
)
# "... so it must arise from the pancreatic tail — C.": a letter after a dash at the end.
_TRAILING_LETTER = re.compile(r"\s[\u2014\u2013-]\s*[(\[]?([A-H])[)\]]?[.!]?\s*$")
# After the final answer: a correction or another alternative ("C. Wait, no, it's B").
_GOES_ON = re.compile(
    r"^\W*(?:or|and|nor|but|wait|actually|no\b|correction|rather|on\s+second\s+thought|sorry)\b",
    re.I,
)
_NEGATED_LETTERS = re.compile(
    r"\b(?i:not|exclude|excludes|excluding|eliminate|rule\s+out|ruling\s+out)\s+"
    r"((?i:(?:options?|choices?)\s+)?[(\[]?[A-H][)\]]?"
    r"(?:\s*(?:,|or|nor|and|,\s*or|,\s*and)\s*(?:(?:options?|choices?)\s+)?[(\[]?[A-H][)\]]?)*)"
    r"(?![\w'-])"
)
# "(A)", "(option A)": a letter that labels the option just named.
_BRACKET_LABEL = re.compile(r"[(\[](?:(?:option|choice)\s+)?[A-H][)\]]", re.I)
_CAPITAL_CANDIDATE = re.compile(r"[A-H](?:[)\]])?(?![\w'-])")
# "C. difficile": a lone capital, a full stop and a lower-case word go on one sentence.
# The same as "[!?]\s+|(?<!\b[A-Z])\.\s+|\.\s+(?![a-z])|\n+", opened by one character class
# so that the regex engine skips ahead to candidates (measured 5x faster on answers).
_SENT_BREAK = re.compile(
    r"[.!?\n](?:(?<=[!?])\s+|(?<!\b[A-Z]\.)(?<=\.)\s+|(?<=\.)\s+(?![a-z])|(?<=\n)\n*)"
)
_CAPITAL_LETTER = re.compile(r"(?<![\w'-])[(\[]?[A-H][)\]]?(?![\w'-])")
# "A, B and C are wrong": the letter opens a list of letters.
# "A/D - the clot extends …": a second letter after a slash.
_SLASH_LETTER = re.compile(r"^\s*[/&+]\s*[(\[]?[A-H][)\]]?(?![\w'-])")
_LIST_GOES_ON = re.compile(r"^\W*[A-H](?:\s*(?:,|and|or|&)\s*[A-H])*\s+(?:and|or|are|,)\b")
_LETTER_IN = re.compile(r"(?<![\w'-])[(\[]?([A-H])[)\]]?(?![\w'-])")
_LETTER_DENIED_AFTER = re.compile(
    r"^[)\]]?\s*(?:is|are|seems|appears)?\s*(?:incorrect|wrong|not\s+correct|unlikely|excluded|"
    r"ruled\s+out|eliminated|not\s+the\s+answer)\b",
    re.I,
)
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5,
             "seventh": 6, "eighth": 7, "last": -1}  # fmt: skip
_ORDINAL = re.compile(
    r"\bthe\s+(first|second|third|fourth|fifth|sixth|seventh|eighth|last)\s+"
    r"(?:option|choice|answer|one)\b",
    re.I,
)
# "A and B", "A, C", "(A) or (B)": several letters and nothing else.
_LETTER_LIST = re.compile(
    r"^\W*(?:(?:options?|choices?|both)\s+)?[(\[]?[A-H][)\]]?"
    r"(?:(?:\s*(?:,|,\s*and|,\s*or)\s*|\s+(?:and|or|&|\+)\s+)[(\[]?[A-H][)\]]?)+[\s.!]*$",
    re.I,
)
# "Option 3", "choice #2": the options counted from one.
_NUMBERED = re.compile(
    r"^\W*(?:option|choice|answer)\s*(?:number\s*|no\.?\s*|#\s*)?([1-8])\W*$", re.I
)


def _has_marker_word(text: str, voc: _Vocab) -> bool:
    """True when the text may hold the word for answer in a Latin-script language (parts
    of the words that hold in either case: "espuesta" is in "Respuesta" and "respuesta")."""
    return any(w in text for w in voc.marker_hints)


def _inner_answer(text: str, voc: _Vocab) -> tuple[str, str] | None:
    """The answer inside ``\\boxed{}`` (the last one) or a JSON object's answer field, and
    the reasoning the object gives ("" when none)."""
    if "\\boxed" in text:
        found = _BOXED.findall(text)
        boxes = list(dict.fromkeys(str(x).strip() for x in found if str(x).strip()))
        if len(boxes) > 1:
            # "\boxed{B} or \boxed{C}": boxes that disagree choose more than one option.
            return " and ".join(boxes), ""
        if found and found[-1].strip():
            return str(found[-1]).strip(), ""
    if "{" in text:
        body = text.strip()
        fence = _FENCE.match(body)
        if fence:
            body = fence.group(1)
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            low = {str(k).lower(): v for k, v in data.items()}
            letter = next(
                (str(low[k]).strip() for k in voc.json_letter_keys if isinstance(low.get(k), str)),
                "",
            )
            words = next(
                (str(low[k]).strip() for k in voc.json_text_keys if isinstance(low.get(k), str)),
                "",
            )
            why = " ".join(str(low[k]) for k in voc.json_reason_keys if isinstance(low.get(k), str))
            if letter and words and re.fullmatch(r"[(\[]?[A-Ha-h][)\]]?\.?", letter):
                # {"answer": "B", "answer_text": "Coronal"}: the letter and its option's
                # words must agree, as in "B. Coronal".
                return f"{letter.strip('()[].').upper()}. {words}", why
            if letter:
                return letter, why
            if words:
                return words, why
            return None
        m = _JSON_ANSWER.match(text)
        if m and m.group(1).strip():
            return m.group(1).strip(), ""
    return None


def _has_letter(f: str) -> bool:
    """True when a capital A-H stands alone in the text (a pattern that opens with its
    character class: the engine skips ahead to the candidates)."""
    for m in _CAPITAL_CANDIDATE.finditer(f):
        at = m.start()
        if at and f[at - 1] == "(" or at and f[at - 1] == "[":
            at -= 1
        if at == 0 or not (f[at - 1].isalnum() or f[at - 1] in "_'-"):
            return True
    return False


_LONE_LETTER = re.compile(r"\s*[A-H]\.$")


def _split_sentences(f: str) -> list[str]:
    """The sentences of a text, each with its closing punctuation."""
    out: list[str] = []
    at = 0
    for m in _SENT_BREAK.finditer(f):
        cut = m.start() + (1 if f[m.start()] in ".!?" else 0)
        if _LONE_LETTER.match(f, at, cut) and f[m.start()] == ".":
            continue  # "A. Burkitt lymphoma.": a letter and its option's text, one sentence
        if f[at:cut].strip():
            out.append(f[at:cut])
        at = m.end()
    if f[at:].strip():
        out.append(f[at:])
    return out


def _first_line_letter(f: str) -> str | None:
    """The first line of a focus of several lines when it is a letter answer ("B. MRI",
    "**Answer: C**", "C"), else None."""
    if "\n" not in f.strip():
        return None
    line = f.lstrip().split("\n", 1)[0]
    plain = _BOLD_MARK.sub("", line).strip()
    if plain and (_WHOLE.match(plain) or _LEAD.match(plain) or _LEAD_BRACKET.match(plain)):
        return f[: f.index(line) + len(line)]
    return None


def _tail_letters(tail: str, n: int, verbs: frozenset[str], voc: _Vocab) -> bool:
    """True when the text after a final answer names a letter that it neither denies nor
    uses as the label of an option it names ("The liver (A) appears normal" is fine; "so A
    would also fit" is not)."""
    t = _BRACKET_LABEL.sub(" ", _BOLD_MARK.sub("", tail))
    _, denied, _ = _letters_in(t, n, voc)
    for m in _CAPITAL_LETTER.finditer(t):
        letter = m.group(0).strip("()[]")
        k = ord(letter) - ord("A")
        if k in denied:
            continue
        nxt = re.match(r"\s+([a-z]+)", t[m.end() :])
        if letter == "A" and nxt and nxt.group(1) not in verbs:
            continue  # "A mass is seen": the article (not "A would also fit")
        return True
    return False


def _last_sentence_letter(f: str, n: int) -> tuple[str, str] | None:
    """ "... No contrast given. B.": a short last sentence that commits to a letter, after
    a discussion, and the text before it."""
    if not any(c in f for c in ".!?\n") or len(f) < 8:
        return None
    low = f.lower()
    if not _has_letter(f) and not any(w in low for w in ("option", "choice", "letter")):
        return None
    parts = _split_sentences(f.strip())
    if len(parts) < 2:
        return None
    last = _BOLD_MARK.sub("", parts[-1]).strip()
    if len(last.split()) > 8:
        return None
    m = _LEAD.match(last)
    if m and _HYPOTHETICAL.match(m.group(4)):
        return None  # "(B) Chalazion. (A) would be painful.": A is discussed, not chosen
    if not (
        _WHOLE.match(last)
        or _LEAD.match(last)
        or _LEAD_BRACKET.match(last)
        or any(g for m in _NAMED.finditer(last) for g in m.groups())
    ):
        return None
    return parts[-1], f[: f.rfind(parts[-1])]


def _binomial_lead(m: re.Match[str], info: _Info) -> bool:
    """ "C. neoformans" among genus-species options: an abbreviated genus, not option C."""
    cap, rest = m.group(3), m.group(4)
    if not cap or m.group(0).lstrip("*_ ")[1:2] != ".":
        return False
    word = re.match(r"[a-z]+", rest)
    return word is not None and (cap.lower(), word.group()) in info.binomials


def _letters_in(f: str, n: int, voc: _Vocab) -> tuple[set[int], set[int], list[str]]:
    """Letters the focus chooses and letters it denies ("not A or C")."""
    chosen: set[int] = set()
    denied: set[int] = set()
    cues: list[str] = []
    low = f.lower()
    if (
        not _has_letter(f)
        and not any(w in low for w in ("option", "choice", "letter"))
        and not (any(w in low for w in voc.letter_hints) and _ORDINAL.search(f))
    ):
        return chosen, denied, cues  # no capital letter standing alone, no "option b"
    denied_spans: list[tuple[int, int]] = []
    for m in _NEGATED_LETTERS.finditer(f):
        for x in _LETTER_IN.finditer(m.group(1)):
            k = ord(x.group(1)) - ord("A")
            if k < n:
                denied.add(k)
                cues.append(f"denied:{x.group(1)}")
        denied_spans.append(m.span(1))
    for m in _NAMED.finditer(f):
        raw = next(g for g in m.groups() if g)
        pos = m.start()
        if any(a <= pos < b for a, b in denied_spans):
            continue
        k = ord(raw.upper()) - ord("A")
        if k >= n:
            chosen.add(k)  # a letter that is not an option: never a valid choice
            cues.append(f"letter:{raw.upper()}")
            continue
        if _LETTER_DENIED_AFTER.match(f[m.end() :]) or _LETTER_DENIED_AFTER.match(
            f[m.end() :].lstrip(")] ")
        ):
            denied.add(k)
            cues.append(f"denied:{raw.upper()}")
            continue
        chosen.add(k)
        cues.append(f"letter:{raw.upper()}")
    for m in _ORDINAL.finditer(f):
        k = _ORDINALS[m.group(1).lower()]
        k = n - 1 if k < 0 else k
        if k < n:
            chosen.add(k)
            cues.append(f"ordinal:{m.group(1).lower()}")
    return chosen, denied, cues
