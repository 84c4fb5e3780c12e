"""Label one answer (gt or pred) as A, B, both or none, or abstain, with the evidence.

The steps: focus on the final answer; refuse refusals, hedges and bare yes/no; find each
mention of an option (whole words through the lexicons, guarded fuzzy matching for typos);
scope negation to each mention; read comparatives when the question asks "which is larger";
read both/none cues; then decide. Anything contradictory or unmatched abstains: a wrong
confident label is the failure that matters, abstaining is cheap.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..kinds import YesNo
from ..labels import Label
from ..lexicon import Lexicon
from .cjk import has_cjk, read_cjk
from .comparison import comparand_said, comparative, direction, off_comparand
from .decide import decide
from .final_answer import flag_table
from .mentions import (
    drop_conditional,
    drop_other_structures,
    drop_other_terms,
    drop_purpose,
    drop_said_elsewhere,
    find_hits,
    frame_conflict,
    option_matcher,
    qualified_mention,
    qualifier_conflict,
    unread_mention,
)
from .negation import negate
from .options import Options
from .polar import read_question
from .reading import (
    _LETTER_MARK,
    OPENING_QUESTION,
    ORDINAL_ONLY,
    Hit,
    Reading,
    Verdict,
    clause_end,
    clause_start,
    content_word,
    cut_after_sentences,
    read_answer,
    said_normal,
    sentence_span,
)
from .yes_no import reasoning_contradicts

__all__ = ["Hit", "Reading", "Verdict", "label_answer", "label_reading", "read_answer"]


_WORD = re.compile(r"[^\W_]+")
# Readings that withhold an answer: beside a JSON answer field they withdraw it.
_WITHHOLDING = frozenset({"refusal", "hedge", "junk"})


def label_reading(r: Reading, opts: Options, lex: Lexicon) -> Verdict:
    """Label a read answer against the question's options."""
    v = _label_focus(r, opts, lex)
    if r.retraction is not None and v.label in (Label.A, Label.B):
        # "Answer: T2. Actually, I can't be certain ...": what follows the correction must
        # choose the same option, or the answer is withdrawn.
        if not r.retraction or label_answer(r.retraction, opts, lex).label is not v.label:
            why = "the final answer is corrected after it is given"
            return Verdict(None, "retracted", why, v.focus, v.hits, v.cues)
    if r.reasoning and v.label in (Label.A, Label.B):
        # A reasoning model's <think> block that settles on another label than its
        # <answer> tag: the two disagree, so neither is the answer.
        # A block that also names the tag's option is read as weighing both ("left
        # hemithorax lucent, mediastinum shifted to the right ... left-sided"): kept.
        rr = read_answer(r.reasoning, lex)
        thought = label_reading(rr, opts, lex).label
        other = Label.B if v.label is Label.A else Label.A
        if (
            thought is Label.NONE
            or (
                thought in (Label.A, Label.B)
                and thought is not v.label
                and not _names_key(r.reasoning, opts, v.label, lex)
            )
            # "... so the answer is intraventricular. \boxed{B}": the reasoning's own
            # conclusion chooses the other option.
            or (thought is other and bool(rr.body))
            or (thought is not v.label and _concludes(r.reasoning, opts, lex, other))
        ):
            assert thought is not None
            why = f"the reasoning before the answer tag reads as {thought.value}"
            return Verdict(None, "reasoning", why, v.focus, v.hits, v.cues)
    if r.notes and v.label is not None:
        # {"answer": "left", "comment": "cannot be determined"}: the other fields of a JSON
        # answer must neither withhold it nor choose another label.
        nv = label_answer(r.notes, opts, lex)
        if nv.rule in _WITHHOLDING or (nv.label is not None and nv.label is not v.label):
            why = f"the other fields of the JSON answer disagree ({nv.reason})"
            return Verdict(None, "notes", why, v.focus, v.hits, v.cues)
    if opts.yes_no and (r.reasoning or r.body) and v.label in (Label.A, Label.B):
        # "<think>... no obvious anomalies ...</think><answer>A</answer>" to "Is there any
        # anomaly? A) Yes B) No": the reasoning is read as an answer to the question itself.
        why = _yes_no_reasoning(r.reasoning or r.body, opts, lex, v.label)
        if why:
            return Verdict(None, "reasoning", why, v.focus, v.hits, v.cues)
    if r.body and v.label in (Label.A, Label.B):
        other = Label.B if v.label is Label.A else Label.A
        if _may_name(r.body, opts, other) and (
            _finding_placed(r, opts, lex, other)
            or _concludes(r.body, opts, lex, other)
            or _answered_before(r, opts, lex, other)
        ):
            # "... a lesion in the left parietal lobe ... In summary: right parietal mass";
            # "... so this is a small bowel obstruction. ... Final answer: large bowel"
            why = "the text before the conclusion chooses the other option"
            return Verdict(None, "body", why, v.focus, v.hits, v.cues)
    if (r.rationale or r.reconsidered) and v.label in (Label.A, Label.B):
        other = Label.B if v.label is Label.A else Label.A
        if (
            r.rationale
            and _may_name(r.rationale, opts, other)
            and (label_answer(r.rationale, opts, lex).label is other)
        ):
            why = "the rationale after the final answer chooses the other option"
            return Verdict(None, "rationale", why, v.focus, v.hits, v.cues)
        if r.reconsidered and any(
            h.option is other and h.negation is None
            for h in label_answer(r.reconsidered, opts, lex).hits
        ):
            why = "the reasoning before the final answer corrected itself to the other option"
            return Verdict(None, "reconsidered", why, v.focus, v.hits, v.cues)
    return v


def _yes_no_reasoning(text: str, opts: Options, lex: Lexicon, label: Label) -> str:
    """How a reasoning contradicts the chosen one of yes/no options ("" when it does not)."""
    stem = opts.stem
    chosen = opts.a if label is Label.A else opts.b
    if not stem or not chosen.words:
        return ""
    said = YesNo.YES if chosen.words[0] in lex.yes else YesNo.NO
    if chosen.words[0] not in lex.yes and chosen.words[0] not in lex.no:
        return ""
    prop = read_question(stem, lex)
    if not prop.polar:
        return ""
    other = reasoning_contradicts(text, said, prop, lex)
    return f"the reasoning before the answer {other}" if other else ""


@lru_cache(maxsize=8)
def _turns(concluding: frozenset[str], correcting: frozenset[str]) -> re.Pattern[str]:
    """One pattern for the conclusion words and the one-word self-corrections."""
    words = "|".join(sorted(map(re.escape, concluding | correcting)))
    return re.compile(rf"\b(?:{words})\b", re.I)


def _concludes(text: str, opts: Options, lex: Lexicon, label: Label) -> bool:
    """Whether the last conclusion drawn in a text before the final answer ("..., so this
    is a small bowel obstruction.") chooses option `label` on its own; a self-correction
    after it ("Wait, actually, …": one-word [answer] corrections) drops it."""
    concluding = lex.grammar["concluding"]
    correcting = frozenset(c for c in lex.corrections if " " not in c)
    last = None
    for m in _turns(concluding, correcting).finditer(text):
        last = m if m.group().lower() in concluding else None
    if last is None:
        return False
    start = last.start()
    end = min(
        (j for j in (text.find(". ", start), text.find("\n", start)) if j >= 0), default=len(text)
    )
    return label_answer(text[start:end], opts, lex).label is label


def _own_question(f: str, opts: Options, lex: Lexicon) -> bool:
    """Whether the answer opens with a question that names one option only (not an echo of
    the question, which names both) and answers it "yes"."""
    m = OPENING_QUESTION.match(f)
    if m is None:
        return False
    nxt = _WORD.search(f, m.end())
    if nxt is None or nxt.group().lower() not in lex.yes:
        return False  # "Left? No — right.": a rhetorical question answered (read elsewhere)
    words = set(lex.canon.words(m.group()))
    a, b = not words.isdisjoint(opts.a.key), not words.isdisjoint(opts.b.key)
    return a != b


def _other_compound(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str:
    """An answer word that is a qualifier prefix glued to an option's word ("pseudohyphae" to
    "yeast or hyphae?", `[grammar] qualifier_prefixes`), where no mention covers it, or ""."""
    keys = opts.long_keys
    if not keys:
        return ""
    qualifiers = _prefix_tuple(lex.grammar["qualifier_prefixes"])
    covered: set[int] | None = None
    for i, w in enumerate(r.words):
        if len(w) <= 5 or not w.startswith(qualifiers):
            continue
        if covered is None:
            covered = {k for h in hits for k in range(h.first, h.last + 1)}
        if i in covered:
            continue
        for q in qualifiers:
            if w.startswith(q) and len(w) > len(q) + 4:
                rest = lex.canon.words(w[len(q) :])
                if len(rest) == 1 and rest[0] in keys:
                    return w
    return ""


@lru_cache(maxsize=8)
def _prefix_tuple(prefixes: frozenset[str]) -> tuple[str, ...]:
    """`prefixes` in a fixed order, for one `str.startswith` test per word."""
    return tuple(sorted(prefixes))


def _both_in_one_word(r: Reading, opts: Options) -> str:
    """An answer word that opens with one option's word and ends with the other's
    ("tubulovillous" to "tubular or villous?", "mucocutaneous"), or ""."""
    a = [w for w in opts.a.key if len(w) >= 5]
    b = [w for w in opts.b.key if len(w) >= 5]
    if not a or not b:
        return ""
    own = set(opts.a.words) | set(opts.b.words)
    for w in r.words:
        if len(w) < 9 or w in own:
            continue
        for x, y in [(x, y) for x in a for y in b] + [(y, x) for x in a for y in b]:
            if w.startswith(x[:4]) and w.endswith(y) and len(w) >= len(y) + 4 and w != y:
                return w
    return ""


def _cut_on_function_word(r: Reading, f: str, lex: Lexicon) -> bool:
    """An answer of several words that stops, without punctuation, on an article, preposition,
    conjunction or a verb that needs what follows ("… meniscus shows a", "The left ventricle
    appears"): cut off before it says what."""
    tail = f.rstrip()
    if len(r.words) < 3 or not tail[-1:].isalpha():
        return False
    written = f[r.starts[-1] : r.ends[-1]].lower()  # "appears", read as "appear"
    return r.words[-1] in lex.grammar["unfinished_endings"] and tail.lower().endswith(written)


def _left_as_verb(r: Reading, h: Hit, lex: Lexicon) -> bool:
    """A mention "left" that is the verb ("the right side was left unaffected")."""
    words, k = r.words, h.first
    if h.first != h.last or words[k] != "left" or k == 0 or k + 1 >= len(words):
        return False
    g = lex.grammar
    return words[k - 1] in g["passive_auxiliaries"] and words[k + 1] in g["verb_left_after"]


def _non_form(r: Reading, opts: Options) -> str:
    """An answer word "non-" + a word of the options or the question that neither option
    holds, when an option is itself a "non-" word ("nonlactose" to "lactose fermenters or
    nonfermenters?"), or ""."""
    own = opts.own_words
    if not own:
        return ""
    asked = opts.question_words
    for w in r.words:
        if w.startswith("non") and len(w) > 5 and w not in own and (w[3:] in own or w[3:] in asked):
            return w
    return ""


def _or_after_question(f: str, lex: Lexicon) -> bool:
    """Whether a question mark in the answer is followed by "or" ("…? Or …", "…? Oder …")."""
    at = f.find("?")
    while at >= 0:
        m = _WORD.search(f, at + 1)
        if m is not None and lex.canon.words(m.group()) == ("or",):
            return True
        at = f.find("?", at + 1)
    return False


def _answered_before(r: Reading, opts: Options, lex: Lexicon, label: Label) -> bool:
    """Whether the text before the final answer gives an answer of its own ("**Answer:
    reversible** … **Final answer: fixed**") that is option `label`."""
    low = r.body.lower()
    if not any(m in low for m in lex.final_markers if " " not in m):
        return False  # no answer marker ([answer] final_markers): nothing to read
    body = _body(r, lex)
    if body.focus.strip() == r.body.strip():
        return False  # no answer of its own: the whole text is read
    return label_reading(body, opts, lex).label is label


def _body(r: Reading, lex: Lexicon) -> Reading:
    """The reading of the text before the conclusion, memoised on `r`."""
    body = r.body_reading
    if body is None:
        body = r.body_reading = read_answer(r.body, lex)
    return body


def _finding_placed(r: Reading, opts: Options, lex: Lexicon, label: Label) -> bool:
    """Whether the body of `r` chooses option `label` in a clause that names the finding the
    question asks about ("There is a ring-enhancing lesion in the left parietal lobe")."""
    if not opts.findings:
        return False
    body = _body(r, lex)
    v = label_reading(body, opts, lex)
    if v.label is not label or not body.words:
        return False
    words = body.words
    for h in v.hits:
        if h.option is not label or h.negation is not None:
            continue
        lo, hi = clause_start(body, h.start), clause_end(body, h.end)
        if any(lo <= body.starts[k] < hi and w in opts.findings for k, w in enumerate(words)):
            return True
    return False


def _in_sum(r: Reading, h: Hit) -> bool:
    """A mention that is a number in a sum ("Gleason 4+3=7" names no grade 3)."""
    if h.first != h.last or not r.words[h.first].isdigit():
        return False
    f = r.focus
    after = f[h.end : h.end + 3].lstrip()[:1]
    before = f[max(0, h.start - 3) : h.start].rstrip()[-1:]
    return after in ("+", "=") or before in ("+", "=")


def _code_in_compound(r: Reading, h: Hit, opts: Options) -> bool:
    """A code option glued by a hyphen into a longer term the question does not use ("T2-
    weighted images" to "Is the T category T2 or T3?"): another term, not the option. Read
    for questions about a stage only: elsewhere "T2-weighted" is the T2 of "T1 or T2?"."""
    f = r.focus
    text = f[h.start : h.end]
    code, _, rest = text.partition("-")
    if not (2 <= len(code) <= 4 and code[0].isalpha() and code[1:].isdigit()):
        return False
    if not rest:
        if f[h.end : h.end + 1] != "-":
            return False
        k = h.end + 1
        while k < len(f) and f[k].isalpha():
            k += 1
        rest = f[h.end + 1 : k]
    word = rest.split()[0].lower() if rest.split() else ""
    return word.isalpha() and word not in opts.context


def _negated_option(opts: Options, lex: Lexicon) -> bool:
    """One option is the other behind a negative prefix ("motile" / "non-motile")."""
    a, b = opts.a.key[:1], opts.b.key[:1]
    if not a or not b:
        return False
    return any(
        (x.startswith(p) and x[len(p) :] == y) or (y.startswith(p) and y[len(p) :] == x)
        for x, y in ((a[0], b[0]),)
        for p in lex.negative_prefixes
    )


def _names_key(text: str, opts: Options, label: Label, lex: Lexicon) -> bool:
    """Whether `text` names a word that tells option `label` from the other ("left" of
    "left kidney"; not "kidney", which both share)."""
    own = opts.a if label is Label.A else opts.b
    return _may_name(text, opts, label) and not set(own.key).isdisjoint(lex.canon.words(text))


def _may_name(text: str, opts: Options, label: Label) -> bool:
    """Whether `text` holds a word of option `label` as written: a cheap test before reading
    a rationale in full (most rationales after a final answer are notes like "Slice 15")."""
    own = opts.a if label is Label.A else opts.b
    low = text.lower()
    return any(w in low for w in own.surface + own.words)


def _label_focus(r: Reading, opts: Options, lex: Lexicon) -> Verdict:
    f = r.focus
    if f[:1] == "|" and "\n" in f:
        # A markdown table of yes/no flags, one row per option ("| Right | No |").
        table = flag_table(f)
        if table is not None:
            return label_answer(table, opts, lex)
    m0 = ORDINAL_ONLY.match(f) if len(f) < 30 else None
    if m0:
        # "Option 1", "the second option", "the latter": the options in their order.
        lab = Label.A if (m0.group(1) or m0.group(3) or m0.group(5)) else Label.B
        return Verdict(lab, "letter", f"names option {lab.value} by its order", f)
    if r.two_option_early is not None:
        return r.two_option_early
    if r.early is not None and r.yes_no and opts.source == "or-not":
        # "Is contrast used or not?" - "yes" affirms X, "no" answers "not".
        lab = Label.A if r.words and r.words[0] in lex.yes else Label.B
        return Verdict(lab, "or-not", "yes/no to an 'X or not' question", r.focus)
    if r.early is not None and not (r.yes_no and opts.yes_no):
        return r.early
    f = r.focus
    if r.letter is not None:
        rest_text = r.letter_rest or ""
        if any(
            (m.group(1) or m.group(2)).upper() != r.letter.value
            for m in _LETTER_MARK.finditer(rest_text)
        ):
            return Verdict(None, "contradiction", "names the letters of both options", f)
        rest = label_answer(rest_text, opts, lex)
        # "A) left kidney" agrees; "A. fumigatus" is a genus, not a letter; "(A) X? (B) Y?
        # I choose (B)" quotes the options and abstains.
        named_nothing = rest.rule in ("no-option", "empty", "no-words")
        genus = f.lstrip("(").lstrip()[1:2] == "." and rest_text[:1].islower()
        if rest.label == r.letter or (named_nothing and not genus):
            return Verdict(r.letter, "letter", f"the letter of option {r.letter.value}", f)
        if rest.label is not None:
            return Verdict(None, "contradiction", "the letter and the words disagree", f)
        return rest
    if "?" in f and _or_after_question(f, lex):
        # "Periphere punktförmige Anfärbung? Oder doch zentral": one option asked, the other
        # offered after it.
        return Verdict(None, "alternative", "offers an alternative after a question", f)
    m = option_matcher(opts, lex)
    found = drop_other_structures(r, find_hits(r, m), opts, lex)
    if "left" in r.wordset:
        found = [h for h in found if not _left_as_verb(r, h, lex)]
    if "?" in f and _own_question(f, opts, lex):
        # "Is the right hemidiaphragm elevated? Yes — …" to "Is the right or left …?"
        why = "opens with a question of its own about one option"
        return Verdict(None, "ambiguous", why, f)
    compound = _other_compound(r, found, opts, lex)
    if compound:
        # "Budding yeast together with pseudohyphae" to "yeast or hyphae?"
        why = f"a word holding an option's word ('{compound}') is not read"
        return Verdict(None, "qualifier", why, f, tuple(found))
    joined = _both_in_one_word(r, opts)
    if joined:
        # "Tubulovillous adenoma" to "tubular or villous?": one word that holds both.
        why = f"one word holds both options ('{joined}')"
        return Verdict(None, "compound", why, f, tuple(found))
    negated = _non_form(r, opts)
    if negated:
        # "Non-lactose fermenters" to "lactose fermenters or non-fermenters?"
        why = f"a 'non-' form of an option word ('{negated}') the options do not hold"
        return Verdict(None, "qualifier", why, f, tuple(found))
    if "+" in f or "=" in f:
        found = [h for h in found if not _in_sum(r, h)]
    if "-" in f and found and not opts.context.isdisjoint(lex.grammar["staging_words"]):
        found = [h for h in found if not _code_in_compound(r, h, opts)]
    found = drop_other_terms(r, found, opts, lex, m.qualities)
    found = drop_said_elsewhere(r, found, opts, lex)
    hits = drop_conditional(r, found, lex)
    if found and not hits:
        why = "names the options only in general or hypothetical statements"
        return Verdict(None, "conditional", why, f, tuple(found))
    if len(hits) < len(found) and not lex.grammar["concessive"].isdisjoint(r.wordset):
        # "Likely central... although the haemorrhages are confined to one quadrant, which
        # would suggest branch.": the other option is argued for in a concession.
        left = {h.option for h in hits}
        if any(h.option not in left for h in found):
            why = "argues for the other option in a concession"
            return Verdict(None, "conditional", why, f, tuple(found))
    kept = hits
    hits = drop_purpose(r, hits, lex)
    if kept and not hits:
        why = "names the options only as what an examination is for ('to exclude X')"
        return Verdict(None, "purpose", why, f, tuple(kept))
    frame = (
        frame_conflict(r, hits, opts, lex)
        or qualifier_conflict(r, hits, opts, lex)
        or qualified_mention(r, hits, opts, lex)
    )
    if frame:
        return Verdict(None, "qualifier", frame, f, tuple(hits))
    unread = unread_mention(r, hits, opts, lex)
    if unread:
        return Verdict(None, "unread", unread, f, tuple(hits))
    hits, confirmed = negate(r, hits, opts, lex)
    cues: list[str] = []
    if opts.predicate is not None:
        comp = comparative(r, hits, opts, lex, cues)
        if comp is not None:
            return Verdict(comp[0], "comparative", comp[1], f, tuple(hits), tuple(cues))
    if opts.comparand and opts.predicate is None:
        # "Is the lesion more hyperintense or hypointense than grey matter?" - "darker".
        way = direction(r, opts, lex, cues)
        if way is not None:
            return Verdict(way[0], "comparative", way[1], f, tuple(hits), tuple(cues))
    if opts.comparand and hits:
        off = off_comparand(r, opts, lex)
        if off:
            why = f"compares with '{off}', not with what the question names"
            return Verdict(None, "comparand", why, f, tuple(hits), tuple(cues))
        other = comparand_said(r, opts, lex)
        if other:
            why = f"names the comparand ('{other}') and not the question's subject"
            return Verdict(None, "comparand", why, f, tuple(hits), tuple(cues))
    if opts.state_question:
        # "Which kidney is absent?" - "Absent left kidney": the question's own word confirms.
        for h in hits:
            if h.negation and set(h.negation.split()) & opts.context:
                confirmed.add(h.option)
        hits = [h for h in hits if not (h.negation and h.option in confirmed)]
        if any(h.negation for h in hits):
            why = "a denial in a question about a normal or absent finding"
            return Verdict(None, "state-denial", why, f, tuple(hits), tuple(cues))
        if len(confirmed) == 1:
            lab = next(iter(confirmed))
            why = f"option {lab.value} is the one described as normal"
            return Verdict(lab, "state", why, f, tuple(hits), tuple(cues))
    if not hits and r.words and len(r.words) <= 2 and r.none_cue and _negated_option(opts, lex):
        # A bare "none" to "motile or non-motile?": "none" may be the negated option itself.
        why = "a bare 'none' where an option is itself a negation"
        return Verdict(None, "none-ambiguous", why, f, (), tuple(cues))
    v = decide(r, hits, lex, cues, opts)
    if v.label is not None and _cut_on_function_word(r, f, lex):
        # "**Medial** meniscus appears intact; **lateral** meniscus shows a"
        why = "the answer is cut off after a function word"
        return Verdict(None, "truncated", why, f, v.hits, v.cues)
    if v.label is not None and cut_after_sentences(f, min_chars=300, min_last_words=8):
        # "… To classify it, I compare its size with … the lateral basal segment occupies":
        # a long answer cut off before it concludes.
        why = "a long answer cut off before it ends"
        return Verdict(None, "truncated", why, f, v.hits, v.cues)
    if v.label in _SIDES and v.rule == "mention":
        extra = _added_unnamed(r, v, opts, lex)
        if extra:
            # "Nail pitting and onycholysis, plus scaly plaques along the hairline" to "nails
            # or scalp?": what is added may be the other option under another name.
            why = f"adds '{extra}' to option {v.label.value}: it may be the other option"
            return Verdict(None, "added", why, f, v.hits, v.cues)
    if v.label in _SIDES and not opts.state_question and _chosen_said_normal(r, v, opts, lex):
        # "The duodenum was clear to D2. Active oozing … on the lesser curve", "normal flow
        # on the R": the option read is the one said to be normal.
        why = f"option {v.label.value} is read, but its own clause calls it normal"
        return Verdict(None, "normal-chosen", why, f, v.hits, v.cues)
    if v.rule == "no-option" and has_cjk(f):
        # "嚢胞性病変です。": no word-based mention; read by substring, narrowly.
        read, said = read_cjk(f, opts, lex)
        return Verdict(read, "cjk" if read is not None else "no-option", said, f)
    if opts.predicate is not None and v.label is not None:
        if v.label is Label.BOTH:
            # "Both lungs show effusions" to "Which lung has the larger effusion?": both is
            # no answer to a comparison.
            why = "a 'both' reading answers no comparison"
            return Verdict(None, "comparative-both", why, f, v.hits, v.cues)
        if v.rule == "mention" and any(w.isdigit() for w in r.words):
            # "The right kidney measures 11.2 cm" to "Which is larger?": one option measured,
            # nothing compared.
            why = "measures an option without comparing it"
            return Verdict(None, "comparative-measure", why, f, v.hits, v.cues)
    return v


_SIDES = (Label.A, Label.B)


def _chosen_said_normal(r: Reading, v: Verdict, opts: Options, lex: Lexicon) -> bool:
    """Whether every mention of the option `v` chose is said to be normal: a normal-state
    word (`[question] state_predicates`, `[grammar] normal_before`) right after it ("the
    duodenum was clear to D2"), in a "which …" clause after its clause ("…, which is
    normal"), or before a noun placed at it ("normal flow on the R"). Options that are
    states themselves ("normal or enlarged?") are not read so."""
    chosen = [h for h in v.hits if h.option is v.label and h.negation is None]
    if not chosen or opts.normal_question:
        return False
    states = lex.normal_states
    if r.wordset.isdisjoint(states) or not states.isdisjoint(opts.a.words + opts.b.words):
        return False
    return all(said_normal(r, h, states, lex) for h in chosen)


def _added_unnamed(r: Reading, v: Verdict, opts: Options, lex: Lexicon) -> str:
    """Something added to the chosen option that names no option, when the options are not
    sides: after a connector (`[cues] added`: "plus", "alongside", "as well as"), before a
    trailing one (`added_after`: "… too"), or the option itself added to something named
    before it ("Malar erythema, with the trunk involved as well"). The words added, or ""."""
    if lex.added_probe.isdisjoint(r.wordset) and lex.added_after_probe.isdisjoint(r.wordset):
        return ""
    if any("laterality" in lex.parallel.get(w, ()) for w in opts.a.key + opts.b.key):
        return ""
    first = min(h.first for h in v.hits if h.option is v.label)
    for i, _ in lex.added_after.find(r.words, r.wordset):
        # "… and the mesenteric vessels are opacified too": what the last "and" before "too"
        # brings in, when no option is named there.
        lo = clause_start(r, r.starts[i])
        if lo > 0 and any(lo <= h.start < r.starts[i] for h in v.hits):
            # "Malar erythema, with the trunk involved as well": the option is what is
            # added, to something named before it.
            # Only its own sentence: a long answer that ends "X is involved as well" has
            # not added X to a finding of an earlier sentence.
            top = sentence_span(r.focus, r.starts[i])[0]
            ahead = [k for k in range(len(r.words)) if top < r.starts[k] < lo]
            if not any(h.first in ahead for h in v.hits):
                named = [r.words[k] for k in ahead if content_word(r.words[k], lex)]
                if named:
                    return " ".join(named[:3])
        joins = [k for k in range(first + 1, i) if r.words[k] == "and" and r.starts[k] >= lo]
        if not joins or any(h.first > joins[-1] and h.first < i for h in v.hits):
            continue
        named = [w for w in r.words[joins[-1] + 1 : i] if content_word(w, lex)]
        if named:
            return " ".join(named[:3])
    found = lex.added.find(r.words, r.wordset)
    if not found:
        return ""
    for i, j in found:
        if i <= first:
            continue
        hi = clause_end(r, r.ends[j - 1])
        if any(h.first >= j and h.start < hi for h in v.hits):
            continue  # "cocci as well as bacilli": the other option, read elsewhere
        rest = [w for k, w in enumerate(r.words[j:], j) if r.starts[k] < hi]
        named = [w for w in rest if content_word(w, lex)]
        if named:
            return " ".join(named[:3])
    return ""


def label_answer(text: str, opts: Options, lex: Lexicon) -> Verdict:
    """Label an answer against the question's options.

    Args:
        text: the answer text (gt or pred).
        opts: the options of the question.
        lex: the lexicon.
    """
    return label_reading(read_answer(text, lex), opts, lex)
