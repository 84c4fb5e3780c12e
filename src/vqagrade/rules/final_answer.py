"""Find the part of a verbose answer that states the answer.

Order of preference: the last ``<answer>`` tag; the text after the last explicit marker
("Final answer:", "The answer is"); the last short bold span; the concluding sentence of a
chain of thought ("Therefore, ..."); otherwise the whole answer. Leaked chat role tags
("Human:", "Assistant:") are dropped first. The last explicit answer wins.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from ..lexicon import Lexicon

_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.I | re.S)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.I | re.S)
_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.I | re.S)
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__", re.S)
# White space after a stop, or line breaks: the same as "(?<=[.!?])\s+|\n+" (a pattern that
# opens with a character class, so the engine skips ahead; measured 2.3x faster).
_SENTENCE_SPLIT = re.compile(r"\s(?:(?<=[.!?]\s)\s*|(?<=\n)\n*)")
# Patterns that open with a character class, not a lookbehind: the engine skips ahead to
# candidates instead of trying the lookbehind at every position (~2x faster on answers).
# Where _SENTENCE_SPLIT would split: a line break, or this (a pattern that opens with a
# character class, so the engine skips ahead; "[.!?]\s|\n" is tried at every position).
_STOP_SPACE = re.compile(r"[.!?]\s")
_SENTENCE_END = re.compile(r"[.!?](?<=[^\s.]{2}[.!?])(?:\s|$)")
_MAX_BOLD_WORDS = 6
_JSON_FENCE = re.compile(r"^```(?:json)?\s*(\{.*\})\s*```$", re.S | re.I)
# Keys whose value is the answer itself; any other key with a yes/no value is a claim about
# the thing it names ({"left": false, "right": true}).
_ANSWER_KEYS = frozenset(
    {"answer", "final_answer", "choice", "option", "label", "prediction", "result", "side"}
    # The same key in the languages answers come in ({"antwort": "B"}, {"答案": "是"}).
    | {"antwort", "respuesta", "réponse", "reponse", "resposta", "risposta", "答案", "回答", "答え"}
)
# LaTeX answers of reasoning models: "$\boxed{B}$", "\boxed{\text{left}}".
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_LATEX_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textit)\{([^{}]*)\}")
# Keys whose value is no note on the answer: the answer itself, or the question echoed.
_NOT_NOTES = _ANSWER_KEYS | {"question", "prompt", "options", "choices", "image", "modality"}
_TRUE = frozenset({"yes", "true", "present", "y"})
_FALSE = frozenset({"no", "false", "absent", "none", "n"})
# What may stand before a self-correction: a clause break, or nothing.
_CLAUSE_OPEN = frozenset(".,;:!?\u2026\u2013\u2014-(\n")
_ANY_OPEN = re.compile("[" + re.escape("".join(sorted(_CLAUSE_OPEN))) + "]")


# Not frozen: a frozen dataclass sets each field through object.__setattr__, several
# times slower to build, and one is built per answer.
@dataclass(slots=True, init=False)
class Focus:
    """The focused answer text and how it was found."""

    text: str
    how: str
    rationale: str = ""
    """Text after an explicit final answer (its rationale): must not choose the other option."""
    reconsidered: str = ""
    """The reasoning before a final answer, from its last self-correction on: must not name
    the other option ("Right. On second thought ... a left eye. Final answer: right")."""
    retraction: str | None = None
    """What follows a self-correction in the text after an explicit final answer ("Answer:
    T2. Actually, I can't be certain ..."): must choose the same option, or the answer is
    withdrawn. None when the rationale holds no self-correction."""
    body: str = ""
    """The text before a final answer or a concluding sentence: must not choose the other
    option ("... a lesion in the left parietal lobe ... In summary: right parietal mass")."""
    reasoning: str = ""
    """The reasoning blocks (``<think>``) before an answer tag: must not read as another
    label than the tag's ("<think>... no haemorrhage in either eye</think><answer>Left")."""
    notes: str = ""
    """The other fields of a JSON answer ("impression", "comment"): must not contradict its
    answer field nor withhold it ("cannot be determined")."""

    def __init__(
        self,
        text: str,
        how: str,
        rationale: str = "",
        reconsidered: str = "",
        retraction: str | None = None,
        body: str = "",
        reasoning: str = "",
        notes: str = "",
    ) -> None:
        # Its own __init__ (init=False): native code when compiled (see reading.Hit).
        self.text = text
        self.how = how
        self.rationale = rationale
        self.reconsidered = reconsidered
        self.retraction = retraction
        self.body = body
        self.reasoning = reasoning
        self.notes = notes


@dataclass(frozen=True, slots=True)
class _Patterns:
    """The lexicon's answer patterns; `final_plain` and `conclusion_plain`: the same markers
    for lower-cased ASCII text without the leading lookbehind (None: a marker is not ASCII).
    A pattern that opens with a lookbehind, or ignores case, is tried at every position; a
    plain one skips ahead to its first letters (~3x faster), and the word boundary before a
    match is checked in Python (see `_last_mark`, `_concludes`)."""

    role: re.Pattern[str]
    final: re.Pattern[str]
    conclusion: re.Pattern[str]
    conclusion_words: tuple[str, ...]
    final_plain: re.Pattern[str] | None
    conclusion_plain: re.Pattern[str] | None


def _plain(alternatives: list[str], tail: str) -> re.Pattern[str] | None:
    low = [a.lower() for a in alternatives]
    if not low or not all(a.isascii() for a in low):
        return None
    return re.compile(r"(?:" + "|".join(low) + r")" + tail)


@lru_cache(maxsize=8)
def _patterns(lex: Lexicon) -> _Patterns:
    tags = "|".join(re.escape(t) for t in sorted(lex.role_tags, key=len, reverse=True))
    role = re.compile(rf"^\s*(?:(?:{tags})\s*:\s*)+", re.I) if tags else re.compile(r"^\b$")
    # "answer" alone must be followed by a colon; longer markers may be followed by "is"/":".
    # A marker must introduce something: "Final answer: X", "The answer is X", never "before
    # giving a final answer." in passing.
    marks = []
    for m in lex.final_markers:
        body = r"\s+".join(re.escape(w) for w in m.split())
        if m.split()[-1] == "is":
            marks.append(body + r"\s*[:\-=]?")
        else:
            marks.append(body + r"(?:\s+is\b\s*[:\-=]?|\s*[:\-=])")
    final = re.compile(r"(?<![\w])(?:" + "|".join(marks) + r")\s*", re.I)
    words = []
    for m in lex.conclusion_markers:
        body = r"\s+".join(re.escape(w) for w in m.rstrip(",").split())
        words.append(body)
    conclusion = re.compile(r"(?<![\w])(?:" + "|".join(words) + r")\b[\s,:]*", re.I)
    starts = tuple({m.split()[0].rstrip(",").lower() for m in lex.conclusion_markers})
    # The plain patterns end as the others do, less what cannot change whether or where a
    # match starts (the conclusion's trailing "[\s,:]*"); the final one keeps its "\s*",
    # since its end is where the answer starts.
    return _Patterns(role, final, conclusion, starts, _plain(marks, r"\s*"), _plain(words, r"\b"))


@dataclass(frozen=True, slots=True)
class _Corrections:
    """The self-correction markers as one pattern, and the words that probe for them."""

    pattern: re.Pattern[str]
    probes: tuple[str, ...]
    """Each marker's longest word, lower-cased, none holding another ("correct" covers
    "correction"): a text without one of them as a substring holds no marker. Substring
    tests run in C without a regex (several times cheaper than a regex probe)."""

    def may_hold(self, low: str, end: int | None = None, *, at_start: bool = False) -> bool:
        """Whether lower-cased `low` (up to `end`) may hold a marker that opens a clause:
        after a clause break, or (`at_start`) at the very start, or after white space that
        opens the text. Only the text after the first clause break is searched."""
        stop = len(low) if end is None else end
        start = 0
        if not at_start and not low[:1].isspace():
            m = _ANY_OPEN.search(low, 0, stop)
            if m is None:
                return False  # no clause break: no marker can open a clause
            start = m.start() + 1
        return any(low.find(w, start, stop) >= 0 for w in self.probes)


@lru_cache(maxsize=8)
def _corrections(lex: Lexicon) -> _Corrections:
    alts = "|".join([r"\W+".join(re.escape(w) for w in m.split()) for m in lex.corrections])
    pattern = re.compile(r"\b(?:" + (alts or "$^") + r")\b[\s,:;.\u2014\u2013-]*", re.I)
    longest = {max(m.split(), key=len).lower() for m in lex.corrections}
    probes = tuple(sorted(w for w in longest if not any(o != w and o in w for o in longest)))
    return _Corrections(pattern, probes)


def find_focus(text: str, lex: Lexicon, *, structured: bool = True) -> Focus:
    """The part of `text` that carries the answer.

    Args:
        text: the raw answer.
        lex: the lexicon (role tags and answer markers).
        structured: render a JSON object answer as plain text.
    """
    fix = _corrections(lex)
    focus, low = _find(text, lex, fix, structured)
    return _corrected(focus, fix, low)


def _corrected(focus: Focus, fix: _Corrections, low: str | None = None) -> Focus:
    """The text after the last self-correction that opens a clause ("Left. Actually, ...");
    `low` is the focus lower-cased, when the caller has it."""
    t = focus.text
    if not fix.may_hold(t.lower() if low is None else low):
        return focus
    found = None
    for m in fix.pattern.finditer(t):
        before = t[: m.start()].rstrip()
        if m.start() > 0 and (not before or before[-1] in _CLAUSE_OPEN):
            found = m
    if found is None:
        return focus
    rest = t[found.end() :].strip()
    return Focus(rest, "self-correction") if any(c.isalpha() for c in rest) else focus


def _after_correction(t: str, low: str | None, fix: _Corrections) -> str:
    """The text after the last self-correction of `t`, or "" when it has none. `low`, when
    given, is a lower-cased text as long as the one `t` was cut from, starting with `t`
    lower-cased: it is probed up to the length of `t`, without a copy."""
    if not t:
        return ""
    if not (fix.may_hold(t.lower()) if low is None else fix.may_hold(low, len(t))):
        return ""
    found = _corrected(Focus(t, ""), fix)
    return found.text if found.how == "self-correction" else ""


def _retraction(after: str, fix: _Corrections) -> str | None:
    """The text after the last self-correction that opens a clause of `after` (the text after
    a final answer, so a correction at its start counts), or None when it has none."""
    if not after or not fix.may_hold(after.lower(), at_start=True):
        return None
    found = None
    for m in fix.pattern.finditer(after):
        before = after[: m.start()].rstrip()
        if not before or before[-1] in _CLAUSE_OPEN:
            found = m
    return None if found is None else after[found.end() :].strip()


@lru_cache(maxsize=8)
def _open_endings(lex: Lexicon) -> re.Pattern[str]:
    words = sorted(lex.lists.get("answer.open_endings", ()), key=len, reverse=True)
    alts = "|".join(r"\W+".join(re.escape(w) for w in p.split()) for p in words)
    # The last sentence of the answer is one of them, alone or with a few words after it.
    lead = r"(?:^|[.!?\n]\s*|[,;:\u2014\u2013-]\s*)"
    return re.compile(rf"{lead}(?:{alts})\b[^.!?\n]{{0,40}}[.!?\u2026]*\s*$", re.I)


def open_ending(text: str, lex: Lexicon) -> str:
    """The deliberation an answer ends on ("Let me reconsider"), or "" when it ends on an
    answer: an answer left open this way has no final answer."""
    tail = text[-120:]
    if not tail or tail.rstrip()[-1:] in (">", "}", "`", "*"):
        return ""  # an answer tag, a JSON object or a bold answer ends it
    m = _open_endings(lex).search(tail)
    return m.group(0).strip(" .!?,;:\n\u2014\u2013-") if m else ""


def structured_answer(text: str) -> bool:
    """Whether `find_focus` renders `text` as a JSON object answer."""
    return _structured(text.strip()) is not None


def _structured(t: str) -> tuple[str, str] | None:
    """A JSON object answer as plain text: its answer key's value, or "X and Y. no Z." from
    yes/no values (None when `t` is not a JSON object); with the text of its other fields
    (a comment, an impression), which must not contradict the answer."""
    m = _JSON_FENCE.match(t)
    body = m.group(1) if m else t
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    answer: str | None = None
    notes: list[str] = []
    given = {
        str(value).strip().lower()
        for key, value in data.items()
        if str(key).lower() in _ANSWER_KEYS and isinstance(value, str) and value.strip()
    }
    if len(given & _TRUE) + len(given & _FALSE) > 1 or len({g for g in given if len(g) == 1}) > 1:
        # {"answer": "yes", "final_answer": "no"}, {"answer": "A", "choice": "B"}: two answers,
        # neither is final ({"choice": "A", "label": "pigmented"} names one option twice).
        return "", ""
    for key, value in data.items():
        if answer is None and str(key).lower() in _ANSWER_KEYS:
            answer = value if isinstance(value, str) else ""
    yes: list[str] = []
    no: list[str] = []
    for key, value in data.items():
        if answer is not None and str(key).lower() in _ANSWER_KEYS:
            continue  # the answer itself, not a flag beside it
        name = str(key).replace("_", " ")
        if isinstance(value, str):
            flag = value.strip().lower()
            is_yes, is_no = flag in _TRUE, flag in _FALSE
            if not (is_yes or is_no) and str(key).lower() not in _NOT_NOTES and value.strip():
                notes.append(value.strip().rstrip("."))
        else:  # a list or a number says neither ({"stations": ["4R", "7"]})
            is_yes, is_no = value is True, value is False
        if is_yes:
            yes.append(name)
        elif is_no:
            no.append(name)
    if answer is not None:
        # {"answer": "yes", "thyroid_enlarged": false}: the flags beside the answer are notes
        # too ("no thyroid enlarged"), held against it like the other fields.
        notes += [f"no {n}" for n in no] + yes
        return answer, ". ".join(notes)
    note = ". ".join(notes)
    parts = [" and ".join(yes)] if yes else []
    parts += [f"no {n}" for n in no]
    return ". ".join(parts), note


TABLE_TRUE = _TRUE | {"\u2713", "\u2714", "positive", "+"}
TABLE_FALSE = _FALSE | {"\u2717", "\u2718", "negative", "-", "\u2014"}


def flag_table(t: str) -> str | None:
    """A markdown table of yes/no flags as plain text, like a JSON object of flags ("| Right
    | No |" / "| Left | Yes |" -> "Left. no Right"); None for any other table or text."""
    rows = [line.strip().strip("|").split("|") for line in t.strip().splitlines()]
    if not all(len(r) >= 2 for r in rows) or len(rows) < 3:
        return None
    rows = [[c.strip() for c in r] for r in rows]
    head, body = rows[0], [r for r in rows[2:] if any(c for c in r)]
    if not body or not set("".join(rows[1])) <= set("-: "):
        return None
    yes: list[str] = []
    no: list[str] = []
    two = len(head) == 2 and all(len(r) == 2 for r in body)
    for r in body:
        cells = [(r[0], r[1])] if two else list(zip(head[1:], r[1:], strict=False))
        for name, value in cells:
            flag = value.lower().strip("*_ ")
            if flag in TABLE_TRUE:
                yes.append(name)
            elif flag in TABLE_FALSE:
                no.append(name)
            else:
                return None  # a table of values, not of flags: read as text
    parts = [" and ".join(yes)] if yes else []
    return ". ".join(parts + [f"no {n}" for n in no]) or None


def _trailing_object(t: str) -> tuple[str, str, str] | None:
    """A JSON object with an answer key that ends a longer answer ("Reasoning: ... {"answer":
    "A"}"): its answer, its other fields and the text before it; None without one."""
    end = t.rstrip("`").rstrip()
    if not end.endswith("}"):
        return None
    at = len(end)
    for _ in range(3):  # the object opens at one of the last few braces
        at = end.rfind("{", 0, at)
        if at <= 0:
            return None
        found = _structured(end[at:])
        if found is not None:
            before = end[:at].rstrip().removesuffix("```json").removesuffix("```").rstrip()
            low = end[at:].lower()
            if not any(f'"{k}"' in low for k in _ANSWER_KEYS) or not any(
                c.isalpha() for c in before
            ):
                return None
            return found[0], found[1], before
    return None


def _find(
    text: str, lex: Lexicon, fix: _Corrections, structured: bool = True
) -> tuple[Focus, str | None]:
    """The focus, and the focus lower-cased when it was made on the way (else None)."""
    pats = _patterns(lex)
    role = pats.role
    t = text.strip()
    if structured and t[:1] in ("{", "`"):
        rendered = _structured(t)
        if rendered is not None:
            return Focus(rendered[0], "structured answer", notes=rendered[1]), None
    if structured and "\\boxed" in t:
        boxes = [_LATEX_TEXT.sub(r"\1", m.group(1)).strip() for m in _BOXED.finditer(t)]
        if boxes:
            if len({b.lower() for b in boxes}) > 1:
                return Focus("", "boxed answers that disagree"), None
            # "... **Final Answer:** $\boxed{Yes}$": the box holds the answer; the text
            # before it is held against it like a <think> block.
            at = t.find("\\boxed")
            return Focus(boxes[-1], "boxed answer", reasoning=t[:at].strip()), None
    if structured and t[-1:] in ("}", "`") and "{" in t:
        obj = _trailing_object(t)
        if obj is not None:
            # The reasoning before the object is held against its answer, as a <think> block.
            return Focus(obj[0], "structured answer", notes=obj[1], reasoning=obj[2]), None
    # Cheap character probes first: most answers have no tags, markers or bold text.
    if "<" in t:
        tags = _ANSWER_TAG.findall(t)
        if tags:
            if len({" ".join(x.split()).strip(" .").lower() for x in tags}) > 1:
                # "<answer>B</answer><answer>D</answer>": two answers, neither is final.
                return Focus("", "answer tags that disagree"), None
            thought = " ".join(m.group(1) for m in _THINK_BLOCK.finditer(t)).strip()
            return Focus(_clean(tags[-1], role), "answer tag", reasoning=thought), None
        if _THINK_OPEN.search(t):
            stripped = _THINK.sub(" ", t).strip()
            if not stripped:
                return Focus("", "unfinished reasoning"), None
            t = stripped
    if ":" in t:
        t = role.sub("", t).strip()
        turn = _next_turn(t, lex.dialogue_roles) if ":" in t else None
        if turn is not None:
            rest = t[turn[1] :]
            while True:
                nxt = _next_turn(rest, lex.dialogue_roles)
                following = (rest[: nxt[0]] if nxt is not None else rest).strip()
                if not following.endswith("?"):
                    # "Human: Yes, there is growth. Human: No growth.": a made-up dialogue
                    # goes on with another answer; which turn is the model's own is unknown.
                    return Focus("", "a leaked dialogue of several turns"), None
                if nxt is None:
                    break
                rest = rest[nxt[1] :]
            # "The answer is left.\n\nHuman: Is there midline shift?": a made-up next
            # question after the answer; the answer is what came before it.
            t = t[: turn[0]].strip()
    low = t.lower()
    last = max(low.rfind("answer"), low.rfind("conclusion"))
    if last >= 0:
        # Every marker holds one of those words: scan only around the last of them.
        mark = _last_mark(t, low, max(0, last - 40), pats)
        if mark is not None:
            start, end = mark
            rest = t[end:].strip()
            if rest:
                clean = _clean(rest, role)
                answer = _first_sentence(clean)
                after = clean[clean.find(answer) + len(answer) :].strip(" *\n")
                cut = start
                # Lower-casing may change a length (a dotted capital I): then no offsets.
                same = len(low) == len(t)
                before = _after_correction(t[:cut], low if same else None, fix)
                focus = Focus(
                    answer, "final-answer marker", after, before, _retraction(after, fix), t[:cut]
                )
                return focus, None
    if "**" in t or "__" in t:
        # Only a lone bold span that ends the answer is the answer ("... is **solid**.");
        # bold section labels ("**Left:** ..."), emphasis mid-sentence or several bold
        # terms are read as ordinary text.
        spans = [m for m in _BOLD.finditer(t) if (m.group(1) or m.group(2) or "").strip()]
        if len(spans) == 1:
            b = (spans[0].group(1) or spans[0].group(2)).strip()
            tail = t[spans[0].end() :].strip()
            if len(b.split()) <= _MAX_BOLD_WORDS and not b.endswith(":") and tail in ("", ".", "!"):
                return Focus(b, "bold answer"), None
    if (
        not any(w in low for w in pats.conclusion_words)
        or not ("\n" in t or _STOP_SPACE.search(t))
        or not _concludes(t, low, pats)
    ):
        return Focus(t, "whole answer"), low if len(low) == len(t) else None
    sentences = [s for s in _SENTENCE_SPLIT.split(t) if s.strip()]
    if len(sentences) > 1:
        for k in range(len(sentences) - 1, -1, -1):
            s = sentences[k].strip()
            m = pats.conclusion.match(s)
            if m and s[m.end() :].strip():
                # From the conclusion to the end: a later correction still counts.
                rest = " ".join([s[m.end() :].strip(), *(x.strip() for x in sentences[k + 1 :])])
                body = " ".join(x.strip() for x in sentences[:k])
                return Focus(rest, "concluding sentence", body=body), None
    return Focus(t, "whole answer"), low if len(low) == len(t) else None


def _word_start(low: str, a: int) -> bool:
    """Whether offset `a` of ASCII `low` starts a word (the patterns' leading lookbehind)."""
    return a == 0 or not (low[a - 1].isalnum() or low[a - 1] == "_")


def _last_mark(t: str, low: str, pos: int, pats: _Patterns) -> tuple[int, int] | None:
    """The span of the last match of `pats.final` in `t` from `pos` on (`low`: `t`
    lower-cased), as `finditer` finds them. On ASCII text lower-casing is exact and keeps
    offsets, so `final_plain` finds the same markers in `low`, where each match must start a
    word (the lookbehind of `final`)."""
    plain = pats.final_plain
    if plain is None or not t.isascii():
        marks = list(pats.final.finditer(t, pos))
        return (marks[-1].start(), marks[-1].end()) if marks else None
    last: tuple[int, int] | None = None
    while True:
        hit = plain.search(low, pos)
        if hit is None:
            return last
        a = hit.start()
        if _word_start(low, a):
            last = (a, hit.end())
            pos = hit.end()  # matches are never empty: finditer goes on from the end
        else:
            pos = a + 1


def _concludes(t: str, low: str, pats: _Patterns) -> bool:
    """Whether `pats.conclusion` matches somewhere in `t` (`low`: `t` lower-cased), found
    the way `_last_mark` finds final-answer markers."""
    plain = pats.conclusion_plain
    if plain is None or not t.isascii():
        return pats.conclusion.search(t) is not None
    pos = 0
    while True:
        m = plain.search(low, pos)
        if m is None:
            return False
        a = m.start()
        if _word_start(low, a):
            return True
        pos = a + 1


def _next_turn(t: str, roles: frozenset[str]) -> tuple[int, int] | None:
    """(start, end) of the first chat role tag ("Human:") that opens the text, a sentence or
    a line: a dialogue turn. Found from the colons (few), not by a regex tried everywhere."""
    pos = t.find(":")
    while pos >= 0:
        j = pos
        while j > 0 and t[j - 1] == " ":
            j -= 1
        i = j
        while i > 0 and t[i - 1].isalpha():
            i -= 1
        if i < j and t[i:j].lower() in roles:
            k = i
            while k > 0 and t[k - 1].isspace():
                k -= 1
            if k == 0 or t[k - 1] in ".!?\n" or "\n" in t[k:i]:
                return k, pos + 1
        pos = t.find(":", pos + 1)
    return None


def _clean(text: str, role: re.Pattern[str]) -> str:
    text = text.strip().strip("*").strip()
    return role.sub("", text).strip() if ":" in text else text  # role tags end with ':'


def _first_sentence(text: str) -> str:
    """Text up to the end of its first line or sentence ("B. The lesion is..." keeps "B")."""
    line = text.split("\n", 1)[0]
    m = _SENTENCE_END.search(line)
    return line[: m.start() + 1].strip() if m else line.strip()
