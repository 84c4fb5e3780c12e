"""Chinese and Japanese answers to two-option questions, read by substring.

Text in these languages has no spaces between words, so the word-based reading finds no
option in it. Here each option's forms (`[cjk]` in `lexicons/languages.toml`, plus the
option's own Latin-script codes such as "T2" or "OS") are looked for as substrings, longest
first. The reading is deliberately narrow: it decides only when the forms of exactly one
option occur and the text holds no denial, hedge, alternative, "both" or contrast word
(`[cues] cjk_blockers`); anything else abstains. In a question that compares, a character of
size or degree (`[cues] cjk_comparing`) abstains too.
"""

from __future__ import annotations

import re

from ..labels import Label
from ..lexicon import Lexicon
from .options import Option, Options

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# A Latin-script code inside CJK text ("T2強調像", "左眼（OS）"): letters and digits, at least
# one capital or digit, not glued to other Latin letters or digits.
_CODE = re.compile(r"^(?=.*[A-Z0-9])[A-Za-z0-9]{2,6}$")


def has_cjk(text: str) -> bool:
    """Whether `text` holds Chinese or Japanese characters."""
    return _CJK.search(text) is not None


def _forms(opt: Option, text: str, lex: Lexicon) -> list[str]:
    """The CJK forms of an option (its distinguishing words as one phrase, or its one word);
    an option written in Chinese or Japanese is named by its own wording only ("右肺", not
    any "右")."""
    if has_cjk(opt.text):
        return [opt.text]
    key = " ".join(opt.key)
    forms = list(lex.cjk.get(key, ()))
    if not forms and len(opt.key) == 1:
        forms = list(lex.cjk.get(opt.key[0], ()))
    return forms


def _codes(text: str) -> list[str]:
    """The Latin-script codes of an option's wording ("T2" of "T2-weighted", "OS")."""
    return [t for t in re.findall(r"[A-Za-z0-9]+", text) if _CODE.match(t)]


def _spans(text: str, forms: list[str], codes: list[str]) -> list[tuple[int, int]]:
    spans = []
    for f in forms:
        start = text.find(f)
        while start >= 0:
            spans.append((start, start + len(f)))
            start = text.find(f, start + 1)
    for c in codes:
        for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(c)}(?![A-Za-z0-9])", text):
            spans.append((m.start(), m.end()))
    return spans


def _outside(text: str, word: str, spans: list[tuple[int, int, Label]]) -> bool:
    """Whether `word` occurs in `text` other than inside one of `spans`."""
    at = text.find(word)
    while at >= 0:
        if not any(a <= at and at + len(word) <= b for a, b, _ in spans):
            return True
        at = text.find(word, at + 1)
    return False


def read_cjk(text: str, opts: Options, lex: Lexicon) -> tuple[Label | None, str]:
    """The option a Chinese or Japanese answer names, or None with the reason."""
    if opts.state_question or opts.normal_question:
        # "Which kidney is normal?" - "右肾积水": the finding named is on the other side.
        return None, "a question about a normal or absent part (Chinese or Japanese text)"
    found: list[tuple[int, int, Label]] = []
    for label, opt, wording in ((Label.A, opts.a, opts.texts[0]), (Label.B, opts.b, opts.texts[1])):
        other = opts.texts[1] if label is Label.A else opts.texts[0]
        codes = [c for c in _codes(wording) if c not in _codes(other)]
        found += [(a, b, label) for a, b in _spans(text, _forms(opt, text, lex), codes)]
    if not found:
        return None, "names neither option (Chinese or Japanese text)"
    # Longest first: a form inside a longer one of the other option does not count.
    found.sort(key=lambda x: (x[0] - x[1], x[0]))
    kept: list[tuple[int, int, Label]] = []
    for a, b, lab in found:
        if not any(a < kb and ka < b for ka, kb, _ in kept):
            kept.append((a, b, lab))
    labels = {lab for _, _, lab in kept}
    if len(labels) > 1:
        return None, "names both options (Chinese or Japanese text)"
    rest = text
    for a, b, _ in sorted(kept, reverse=True):
        rest = rest[:a] + " " + rest[b:]
    # A blocker counts unless it lies inside an option's form ("双侧" of "bilateral");
    # one across a form's edge ("囊实性" around "实性") counts.
    blocker = next((w for w in lex.cjk_blockers if _outside(text, w, kept)), None)
    if blocker is not None:
        return None, f"a denial, hedge or alternative beside the option ('{blocker}')"
    if (opts.predicate is not None or opts.comparand) and any(c in rest for c in lex.cjk_comparing):
        # "肝脏较小" to "Which is bigger?": the comparison is not read.
        return None, "a comparison that is not read (Chinese or Japanese text)"
    lab = next(iter(labels))
    return lab, f"names option {lab.value} (Chinese or Japanese text)"
