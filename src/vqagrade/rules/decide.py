"""The decision: {A} -> A, {B} -> B, both/none cues, complements; anything else abstains."""

from __future__ import annotations

from bisect import bisect_left

from ..labels import Label
from ..lexicon import Lexicon
from .options import Options, stem
from .reading import (
    _AND,
    _COORD,
    _NEG_WINDOW,
    _NEGATORS,
    _OR,
    _POST_WINDOW,
    _YES_NO_LEAD,
    Hit,
    Reading,
    Verdict,
    clause_end,
    clause_start,
    content_word,
    cut_after_sentences,
    other_option,
)


def _counting(opts: Options, lex: Lexicon) -> bool:
    """Options that are counts ("single or multiple"): "both" there means two, not A and B."""
    return all(any("number" in lex.parallel.get(w, set()) for w in o.key) for o in (opts.a, opts.b))


def _exclusive(opts: Options, lex: Lexicon) -> bool:
    """Options that cannot both hold of one image (CT and MRI, T1 and T2, male and female)."""
    classes = [
        {c for w in o.key for c in lex.parallel.get(w, set())} & lex.grammar["exclusive_classes"]
        for o in (opts.a, opts.b)
    ]
    return bool(classes[0] & classes[1])


def _says_more(r: Reading, opts: Options, lex: Lexicon) -> bool:
    """Whether the answer says more than the options and a both cue ("Both CT and MRI")."""
    option_words = set(opts.a.words) | set(opts.b.words)
    return any(
        w not in option_words and w not in lex.both.phrases_words and content_word(w, lex)
        for w in r.words
    )


def _about_question(r: Reading, i: int, j: int, opts: Options, lex: Lexicon) -> bool:
    """Whether the clause around words[i:j] says something the question asks about."""
    lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.ends[j - 1])
    option_words = set(opts.a.words) | set(opts.b.words)
    clause = [
        w
        for k, w in enumerate(r.words)
        if r.starts[k] >= lo and r.ends[k] <= hi and w not in option_words
    ]
    rest = [w for w in clause if w not in lex.both.phrases_words and content_word(w, lex)]
    visible = lex.grammar["visibility"]
    findings = lex.grammar["finding_words"]
    if any(w in visible for w in rest) and all(
        w in visible
        or w in lex.generic
        or w in lex.grammar["view_nouns"]
        or (w in opts.context and w not in findings and w not in opts.findings)
        for w in rest
    ):
        # "Both ovaries are visualised" to "Is the ovarian cyst on the left or the right?",
        # "Supratentorial and infratentorial regions are both visible in this slice": the
        # options said to be seen, no finding said of them.
        return False
    if not rest:
        # "The portal vein and arteries are seen": only that they are visible.
        return not any(w in lex.grammar["visibility"] for w in clause)
    findings = lex.grammar["finding_words"]
    if (
        any(w in findings for w in rest)
        and opts.findings
        and all(w not in opts.context and stem(w) not in opts.context for w in rest)
    ):
        # "Hepatosplenomegaly with a splenic infarct" to "lesion in the liver or spleen?":
        # another finding, not the one the question asks about.
        return False
    # Only a remark that the options are visible is not an answer ("both kidneys are
    # visible"); any other predicate is taken as the question's.
    return not all(w in lex.grammar["visibility"] for w in rest)


def decide(r: Reading, hits: list[Hit], lex: Lexicon, cues: list[str], opts: Options) -> Verdict:
    f, words = r.focus, r.words
    owned = {i for h in hits for i in range(h.first, h.last + 1)}
    both_cue = [(i, j) for i, j in r.both_cue if i not in owned]
    if not lex.mixed.isdisjoint(words):
        # "Mixed dentition" to "primary or permanent dentition?": mixed + the shared word
        shared = set(opts.a.words) & set(opts.b.words)
        both_cue += [
            (i, i + 2)
            for i in range(len(words) - 1)
            if words[i] in lex.mixed and words[i + 1] in shared and i not in owned
        ]
    if both_cue and {h.option for h in hits if h.negation is None} != {Label.A, Label.B}:
        # With both options named, "both layers are involved" sums them up.
        both_cue = [(i, j) for i, j in both_cue if not _cue_on_other_noun(r, j, opts, lex)]
    none_cue = [(i, j) for i, j in r.none_cue if i not in owned]
    cues += ["both:" + " ".join(words[i:j]) for i, j in both_cue]
    cues += ["none:" + " ".join(words[i:j]) for i, j in none_cue]
    aff = {h.option for h in hits if h.negation is None}
    neg = {h.option for h in hits if h.negation is not None}
    t_hits, t_cues = tuple(hits), tuple(cues)

    # Verdicts are built in place, not by a nested helper: under mypyc a closure costs an
    # object per call and a generic call per use.
    if opts.source != "or-not" and "or" in r.wordset and _alternative(r, hits, lex):
        # "mild or moderate ventriculomegaly", "Greenstick or buckle - both are ...": an
        # option offered as one of alternatives is no choice, whatever else is said.
        return Verdict(
            None, "hedge", "names an option as one of alternatives ('X or Z')", f, t_hits, t_cues
        )
    if "to" in r.wordset and len(aff) == 1 and _range_end(r, hits, lex):
        # "The findings range from mild to moderate." to "mild or severe?": an option that
        # ends a range whose other end is not the other option is no choice.
        return Verdict(
            None, "hedge", "names an option as one end of a range ('X to Z')", f, t_hits, t_cues
        )
    if len(aff) == 1 and _numeral_span(r, hits):
        # "SFU grade III–IV" to "grade 2 or grade 3?": a span of numbers that reaches past
        # the options is neither of them.
        why = "names an option as one end of a span of numbers"
        return Verdict(None, "hedge", why, f, t_hits, t_cues)
    if opts.source == "or-not" and hits and not both_cue and not none_cue:
        return _or_not(hits, words, opts, lex, f, t_hits, t_cues)
    if opts.source == "or-not" and not hits and r.lead is not None:
        # "Yes, it does." to "Does this image use contrast or not?"
        lab = Label.A if r.lead in lex.yes else Label.B
        return Verdict(lab, "or-not", "yes/no to an 'X or not' question", f, t_hits, t_cues)
    if aff & neg:
        return Verdict(
            None, "contradiction", "the answer both affirms and denies an option", f, t_hits, t_cues
        )
    if aff and neg and _denied_by_option(r, hits):
        # "ulcerated intact": the other option's word read as a denial is only its mention.
        return Verdict(
            None,
            "both-mentioned",
            "an option denied only by the other option's word",
            f,
            t_hits,
            t_cues,
        )
    denied = _subject_denied(r, hits, opts, lex)
    if denied:
        if aff:
            why = f"denies the '{denied}' the question asks about, yet names an option"
            return Verdict(None, "contradiction", why, f, t_hits, t_cues)
        return Verdict(
            Label.NONE, "subject-denied", f"denies the '{denied}' outright", f, t_hits, t_cues
        )
    if both_cue and not hits:
        i, j = both_cue[0]
        # "Adrenals: unremarkable bilaterally": a state word right before the cue.
        state_before = opts.abnormal_question and any(
            (p := lex.neg_after_state.match_at(words, k)) is not None and k + len(p) == i
            for k in range(max(0, i - 3), i)
        )
        after = range(j, min(len(words), j + _POST_WINDOW))
        denied_after = opts.abnormal_question and any(
            lex.neg_after_state.match_at(words, k) or lex.neg_after.match_at(words, k)
            for k in after
        )
        negated = any(w in _NEGATORS for w in words[max(0, i - _NEG_WINDOW) : i])
        if state_before or denied_after or negated:
            # "no effusion bilaterally", "both kidneys are normal": neither side has it.
            both_cue, none_cue = [], [*none_cue, both_cue[0]]
    if (both_cue or none_cue) and not hits:
        # Without a mention, the cue must be the answer ("Both.", "Bilateral", "Neither is
        # abnormal"), not a remark about something else ("Both lungs are clear").
        cue_words = {w for i, j in both_cue + none_cue for w in words[i:j]}
        other = [
            w
            for w in words
            if w not in cue_words
            and w not in opts.context
            and w not in lex.stopwords
            and w not in lex.generic
            and w not in lex.grammar["cue_filler"]
        ]
        first, end = (both_cue + none_cue)[0]
        direct = first == 0 and (end >= len(words) or _YES_NO_LEAD.match(f[r.ends[end - 1] :]))
        about = [w for w in words if w in opts.context and w not in lex.stopwords]
        contrary = next((w for w in other if _prefix_variant(w, opts.context, lex)), None)
        if contrary is not None and not direct:
            # "Both hips are enlocated." to "Is the hip dislocated on the left or right?":
            # the cue is said with another predicate than the question's.
            why = f"a both/none cue said of another predicate ('{contrary}')"
            return Verdict(None, "cue-elsewhere", why, f, t_hits, t_cues)
        if other and not direct and not (len(other) <= 2 and about):
            why = f"a both/none cue about something else ('{' '.join(other[:3])}')"
            return Verdict(None, "cue-elsewhere", why, f, t_hits, t_cues)
        if other and not direct and _finding_apart(r, first, opts):
            # "Both lobes are heterogeneous; a dominant nodule is seen": the cue speaks of
            # another predicate; the finding asked about is named in another clause.
            why = "a both/none cue in another clause than the finding asked about"
            return Verdict(None, "cue-elsewhere", why, f, t_hits, t_cues)
    if both_cue and _counting(opts, lex):
        both_cue = []  # "Both lesions enhance" to "one lesion or multiple?" counts lesions
    if both_cue and hits and _pair_of_one(r, both_cue[0], hits, opts, lex):
        both_cue = []  # "Both maxillary antra are opacified": the pair of one option
    if both_cue and hits:
        # "Both the left and right kidneys are visible": a cue about something the question
        # does not ask, or about options that cannot both hold (CT and MRI), is no answer.
        i, j = both_cue[0]
        if (_exclusive(opts, lex) and _says_more(r, opts, lex)) or not _about_question(
            r, i, j, opts, lex
        ):
            both_cue = []
            if aff == {Label.A, Label.B}:
                return Verdict(
                    None,
                    "both-mentioned",
                    "names both options without an answer",
                    f,
                    t_hits,
                    t_cues,
                )
    if both_cue and aff:
        i, j = both_cue[0]
        if any(
            lex.neg_after_state.match_at(words, k) or lex.neg_after.match_at(words, k)
            for k in range(j, min(len(words), j + _POST_WINDOW))
        ):
            both_cue = []  # "Both lungs look clear; the liver has a nodule": the cue is denied
    if none_cue and any(lex.neg_after_state.match_at(words, k) for k in range(len(words))):
        # "Neither the heart nor the lung appears normal" says both are abnormal.
        return Verdict(
            None, "contradiction", "a 'neither' cue around a state word", f, t_hits, t_cues
        )
    if both_cue:
        if neg:
            return Verdict(
                None, "contradiction", "a 'both' cue next to a denied option", f, t_hits, t_cues
            )
        if aff == {Label.A, Label.B} and _joined(hits, words, _OR, strict=False):
            # "A radicular cyst vs dentigerous cyst - both are possible": alternatives.
            return Verdict(
                None, "hedge", "names both options as alternatives ('X vs Y')", f, t_hits, t_cues
            )
        if aff in ({Label.A, Label.B}, set()):
            if cut_after_sentences(f):
                why = "a 'both' cue in a last sentence that is cut off"
                return Verdict(None, "truncated", why, f, t_hits, t_cues)
            return Verdict(
                Label.BOTH, "both-cue", "a 'both' cue affirms both options", f, t_hits, t_cues
            )
        if _graded(r, hits, lex):
            why = "a 'both' cue with the sides ranked ('right greater than left')"
            return Verdict(Label.BOTH, "both-graded", why, f, t_hits, t_cues)
        return Verdict(
            None, "contradiction", "a 'both' cue but only one option affirmed", f, t_hits, t_cues
        )
    if none_cue:
        if aff:
            return Verdict(
                None, "contradiction", "a 'none' cue next to an affirmed option", f, t_hits, t_cues
            )
        return Verdict(Label.NONE, "none-cue", "a 'neither/none' cue", f, t_hits, t_cues)
    if len(aff) == 1:
        lab = next(iter(aff))
        site = _second_site(r, hits, lab, opts, lex)
        if site:
            why = f"places the finding in a second site too ('{site}')"
            return Verdict(None, "second-site", why, f, t_hits, t_cues)
        if _cut_prefix(r, hits, lex):
            # "The tumour is intra": a sentence cut off inside its deciding word.
            why = "the answer is cut off inside an option's word (a bare prefix)"
            return Verdict(None, "truncated", why, f, t_hits, t_cues)
        if _not_only_more(r, hits, lab):
            # "not only the dermis but also the subcutaneous fat": the second may be the
            # other option in words the rules do not know.
            why = "'not only' the option 'but also' something more"
            return Verdict(None, "both-mentioned", why, f, t_hits, t_cues)
        term = _other_in_term(r, hits, lab, opts)
        if term:
            # "into the right and left main pulmonary arteries": "left main" is a fixed
            # term, yet its side word is the other option, coordinated with this one.
            why = f"the other option's word is inside a term coordinated with it ('{term}')"
            return Verdict(None, "both-mentioned", why, f, t_hits, t_cues)
        normal = _subject_normal(r, hits, opts, lex)
        if normal:
            # "Anterior disc displacement. The condyle itself is in a normal position." to
            # "Is the condyle displaced anteriorly or posteriorly?": the option is said of
            # something else.
            why = f"says the '{normal}' the question asks about is normal"
            return Verdict(None, "other-subject", why, f, t_hits, t_cues)
        site = _contrast_site(r, hits, lab, opts, lex)
        if site:
            why = f"a contrast after the option places the finding elsewhere ('{site}')"
            return Verdict(None, "second-site", why, f, t_hits, t_cues)
        other_subject = _other_subject(r, hits, lab, opts, lex)
        if other_subject:
            why = f"says it of '{other_subject}', not of what the question asks about"
            return Verdict(None, "other-subject", why, f, t_hits, t_cues)
        return Verdict(lab, "mention", f"affirms option {lab.value} only", f, t_hits, t_cues)
    if len(aff) == 2:
        if _joined(hits, words, _OR, strict=False):
            return Verdict(
                None, "hedge", "names both options as alternatives ('X or Y')", f, t_hits, t_cues
            )
        if _joined(hits, words, _AND, strict=True):
            if not lex.grammar["between_words"].isdisjoint(words[: hits[0].first]):
                return Verdict(
                    None, "hedge", "weighs one option against the other", f, t_hits, t_cues
                )
            first = min(h.first for h in hits)
            last = max(h.last for h in hits)
            if (_exclusive(opts, lex) and _says_more(r, opts, lex)) or not _about_question(
                r, first, last + 1, opts, lex
            ):
                return Verdict(
                    None,
                    "both-mentioned",
                    "names both options without an answer",
                    f,
                    t_hits,
                    t_cues,
                )
            return Verdict(
                Label.BOTH, "both-and", "affirms both options ('X and Y')", f, t_hits, t_cues
            )
        also = lex.also.find(words)
        if also and not neg and not _exclusive(opts, lex):
            first = min(h.first for h in hits)
            last = max(h.last for h in hits)
            if any(w in lex.grammar["concluding"] for w in words[first:last]):
                # "Dysplasia is present. In addition, ... so this is invasive carcinoma.":
                # a conclusion after the first option may name the answer, not a second one.
                why = "a conclusion between the two options"
                return Verdict(None, "both-mentioned", why, f, t_hits, t_cues)
            if _about_question(r, first, last + 1, opts, lex):
                cues.append("also:" + " ".join(words[also[0][0] : also[0][1]]))
                why = "affirms both options ('X as well as Y', 'Y also')"
                return Verdict(Label.BOTH, "both-also", why, f, t_hits, tuple(cues))
        return Verdict(
            None, "both-mentioned", "mentions both options without choosing", f, t_hits, t_cues
        )
    if neg == {Label.A, Label.B}:
        noun = _other_noun_denied(r, hits, opts, lex)
        if noun:
            # "Absent flow in the internal carotid; the external carotid is patent": the
            # denial is of the flow, which places the occlusion in the first.
            why = f"denies the '{noun}' in an option, not the option"
            return Verdict(None, "contradiction", why, f, t_hits, t_cues)
        seen = _finding_named(r, hits, opts, lex)
        if seen:
            # "The left lung is clear. The right lung is clear. There is a 9 mm nodule ...":
            # the finding asked about is there, placed by something else.
            why = f"denies both options, yet names the '{seen}' the question asks about"
            return Verdict(None, "contradiction", why, f, t_hits, t_cues)
        return Verdict(Label.NONE, "both-denied", "denies both options", f, t_hits, t_cues)
    if len(neg) == 1:
        denied = next(iter(neg))
        if opts.complementary and not _state_denial(hits, lex):
            lab = other_option(denied)
            return Verdict(
                lab,
                "complement",
                f"denies option {denied.value}, the only other",
                f,
                t_hits,
                t_cues,
            )
        return Verdict(
            None,
            "denial-only",
            f"denies option {denied.value} without naming another",
            f,
            t_hits,
            t_cues,
        )
    absent = _subject_absent(r, hits, opts, lex)
    if absent is not None:
        why = f"denies the '{absent[1]}' the question asks about: option {absent[0].value}"
        return Verdict(absent[0], "subject-absent", why, f, t_hits, t_cues)
    return Verdict(None, "no-option", "names neither option", f, t_hits, t_cues)


def _denied_by_option(r: Reading, hits: list[Hit]) -> bool:
    """A denial whose cue is the other option's affirmed mention ("ulcerated intact")."""
    said = [h for h in hits if h.negation is None]
    return any(
        x.option is not h.option
        and x.start >= h.end
        and r.focus[x.start : x.end].lower() == h.negation.lower()
        for h in hits
        if h.negation
        for x in said
    )


_PLACE_PREPS = frozenset({"in", "of", "at", "within", "through"})


def _other_noun_denied(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str:
    """A denial before an option that is of another noun placed in it ("absent flow in the
    internal carotid"): the noun, or "" when the denial is of the option itself."""
    words = r.words
    option_words = set(opts.a.words) | set(opts.b.words)
    for h in hits:
        if h.negation is None:
            continue
        lo = clause_start(r, h.start)
        for i in range(max(0, h.first - _NEG_WINDOW), h.first):
            if r.starts[i] < lo:
                continue
            p = lex.neg_before.match_at(words, i)
            if p is None:
                continue
            between = words[i + len(p) : h.first]
            if (
                len(between) >= 2
                and between[-1] in _PLACE_PREPS
                or (len(between) >= 3 and between[-2] in _PLACE_PREPS)
            ):
                nouns = [
                    w
                    for w in between
                    if w not in option_words and w not in opts.context and content_word(w, lex)
                ]
                if nouns:
                    return nouns[0]
            break
    return ""


_SITE_PREPS = frozenset({"in", "on", "at", "over", "along", "into", "onto", "within", "to"})


def _second_site(r: Reading, hits: list[Hit], lab: Label, opts: Options, lex: Lexicon) -> str:
    """After the one affirmed option, the finding placed in another part as well ("on the
    extensor surfaces as well as in the antecubital fossae"): it is in two places, so no one
    option."""
    words = r.words
    if "well" not in r.wordset:
        return ""
    own = [h.last for h in hits if h.option is lab and h.negation is None]
    if not own:
        return ""
    option_words = set(opts.a.words) | set(opts.b.words)
    for k in range(min(own) + 1, len(words) - 1):
        w = words[k]
        if (
            w == "well"
            and words[k - 1] == "as"
            and words[k + 1] == "as"
            and k + 2 < len(words)
            and words[k + 2] in _SITE_PREPS
        ):
            j = k + 3
        else:
            continue
        hi = clause_end(r, r.ends[j - 1])
        rest = [
            x
            for m in range(j, len(words))
            if r.starts[m] < hi
            and (x := words[m]) not in option_words
            and x not in opts.context
            and x not in _SITE_PREPS
            and content_word(x, lex)
        ]
        if rest and not any(h.first >= j and r.starts[h.first] < hi for h in hits):
            return " ".join(rest[:3])
    return ""


def _pair_of_one(
    r: Reading, cue: tuple[int, int], hits: list[Hit], opts: Options, lex: Lexicon
) -> bool:
    """A both cue whose clause names one option only, when the options are not sides:
    "both maxillary antra", "maxillary sinuses (bilateral)" speak of that option's pair."""
    if any("laterality" in lex.parallel.get(w, ()) for w in opts.a.key + opts.b.key):
        return False
    if lex.also.find(r.words):
        return False  # "in the neck as well as in both axillae": two places
    i, j = cue
    lo, hi = clause_start(r, r.starts[i]), clause_end(r, r.ends[j - 1])
    if r.focus[:lo].rstrip().endswith("("):
        lo = clause_start(r, r.focus.rfind("(", 0, lo))  # "maxillary sinuses (bilateral)"
    before = tuple(w for k, w in enumerate(r.words[:i]) if r.starts[k] >= lo)
    if lex.neg_before.find(before) or any(w in _NEGATORS for w in before):
        return False  # "separate from both adrenal glands": the pair is denied
    inside = {h.option for h in hits if lo <= h.start < hi and h.negation is None}
    return len(inside) == 1


def _cut_prefix(r: Reading, hits: list[Hit], lex: Lexicon) -> bool:
    """The last word is a bare prefix that names an option ("intra" of intramedullary),
    after other words and with no closing punctuation: the sentence stops inside it."""
    words = r.words
    last = len(words) - 1
    return (
        last > 0
        and words[last] in lex.canon.join_prefixes
        and any(h.first == last for h in hits)
        and r.focus.rstrip()[-1:].isalpha()
    )


def _not_only_more(r: Reading, hits: list[Hit], lab: Label) -> bool:
    """ "not only X but also Y" with X the option and no option mention after "also"."""
    words = r.words
    if "only" not in r.wordset or "also" not in r.wordset:
        return False
    for k in range(len(words) - 1):
        if words[k] == "not" and words[k + 1] == "only":
            also = next((m for m in range(k + 2, len(words)) if words[m] == "also"), None)
            if also is None:
                return False
            mine = any(k < h.first < also and h.option is lab for h in hits)
            after = any(h.first > also for h in hits)
            return mine and not after and also + 1 < len(words)
    return False


def _other_in_term(r: Reading, hits: list[Hit], lab: Label, opts: Options) -> str:
    """A fixed term ("left_main") right after "<option> and" whose first word is the other
    option's key word."""
    other = opts.b if lab is Label.A else opts.a
    words = r.words
    for h in hits:
        if h.option is not lab or h.last + 2 >= len(words) or words[h.last + 1] not in _AND_OR:
            continue
        nxt = words[h.last + 2]
        if "_" in nxt and nxt.split("_", 1)[0] in other.key and nxt not in other.words:
            return nxt.replace("_", " ")
    return ""


_AND_OR = frozenset({"and", "or", "&"})


def _subject_normal(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str:
    """A word of the question's subject in a sentence that names no option and calls it
    normal ("The condyle itself is in a normal position")."""
    if opts.normal_question or opts.state_question:
        return ""
    words = r.words
    for k, w in enumerate(words):
        if (
            w not in opts.question_outside
            or w in lex.generic
            or w in lex.stopwords
            or not content_word(w, lex)
        ):
            continue
        lo, hi = _sentence_start(r.focus, r.starts[k]), _sentence_end(r.focus, r.ends[k])
        if any(lo <= h.start < hi for h in hits):
            continue
        if "(" in r.focus[lo:hi]:
            continue  # "uptake is 68% (normal 10-30%)": a reference range, not a state
        first = bisect_left(r.starts, r.starts[k])
        after = tuple(x for m, x in enumerate(words) if m > first and r.starts[m] < hi)
        if lex.neg_after_state.find(after):
            return w
    return ""


def _contrast_site(r: Reading, hits: list[Hit], lab: Label, opts: Options, lex: Lexicon) -> str:
    """After the one affirmed option, a contrast that places something at a site that is
    no option ("faint calvarial uptake, but the intense focus is at T10 vertebral body"):
    the main finding may be there, so no option."""
    words = r.words
    contrasts = lex.grammar["contrast"] | lex.grammar["concessive"]
    if r.wordset.isdisjoint(contrasts):
        return ""
    own = [h.last for h in hits if h.option is lab and h.negation is None]
    if not own:
        return ""
    option_words = set(opts.a.words) | set(opts.b.words)
    for k in range(min(own) + 1, len(words) - 1):
        if words[k] not in contrasts:
            continue
        hi = clause_end(r, r.ends[k])
        if any(r.starts[h.first] > r.starts[k] and r.starts[h.first] < hi for h in hits):
            return ""  # the contrast names an option itself
        clause = tuple(words[m] for m in range(k + 1, len(words)) if r.starts[m] < hi)
        if (
            any(w in _NEGATORS for w in clause)
            or lex.neg_before.find(clause)
            or lex.neg_after.find(clause)
            or lex.neg_after_state.find(clause)
        ):
            continue  # "but the right kidney is normal in size": nothing placed there
        at = next(
            (m for m in range(k + 1, len(words)) if r.starts[m] < hi and words[m] in _SITE_PREPS),
            None,
        )
        if at is None:
            continue
        rest = [
            x
            for m in range(at + 1, len(words))
            if r.starts[m] < hi
            and (x := words[m]) not in option_words
            and x not in opts.context
            and content_word(x, lex)
        ]
        if rest:
            return " ".join(rest[:3])
    return ""


_RANGE_WORDS = frozenset({"range", "ranges", "ranging", "ranged"})
_NO_CLASSES: frozenset[str] = frozenset()


def _range_end(r: Reading, hits: list[Hit], lex: Lexicon) -> bool:
    """An affirmed mention at one end of a range ("range from X to Z", "from X to Z",
    "ranging X to Z", "mild to moderate") whose other end is no mention: a span of grades,
    not one of them."""
    words = r.words
    ranged = not _RANGE_WORDS.isdisjoint(r.wordset)
    starts = {h.first for h in hits}
    ends = {h.last for h in hits}
    for h in hits:
        if h.negation is not None:
            continue
        if h.last + 2 < len(words) and words[h.last + 1] == "to":
            # "mild to moderate": the other end is a word of the same scale
            scale = lex.parallel.get(words[h.last], _NO_CLASSES) & lex.parallel.get(
                words[h.last + 2], _NO_CLASSES
            )
            opens = ranged or (h.first > 0 and words[h.first - 1] == "from") or "severity" in scale
            if opens and h.last + 2 not in starts:
                return True
        if h.first >= 2 and words[h.first - 1] == "to" and h.first - 2 not in ends:
            scale = lex.parallel.get(words[h.first], _NO_CLASSES) & lex.parallel.get(
                words[h.first - 2], _NO_CLASSES
            )
            if ranged or (h.first >= 3 and words[h.first - 3] == "from") or "severity" in scale:
                return True
    return False


_SPAN_MARKS = frozenset({"-", "\u2013", "\u2014", "/", "to"})


def _numeral_span(r: Reading, hits: list[Hit]) -> bool:
    """An affirmed mention that ends in a number joined by a dash, a slash or "to" to another
    number that no mention starts or ends with ("grade 3-4" when 4 is no option)."""
    words, focus = r.words, r.focus
    firsts = {h.first for h in hits}
    lasts = {h.last for h in hits}
    for h in hits:
        if h.negation is not None or not words[h.last].isdigit():
            continue
        k = h.last
        if k + 1 < len(words) and words[k + 1].isdigit() and k + 1 not in firsts:
            if focus[r.ends[k] : r.starts[k + 1]].strip() in _SPAN_MARKS:
                return True
        if k >= 1 and words[k - 1].isdigit() and k - 1 not in lasts and h.first == k:
            if focus[r.ends[k - 1] : r.starts[k]].strip() in _SPAN_MARKS:
                return True
    return False


def _root(word: str, prefixes: tuple[str, ...]) -> str:
    return next((word[len(p) :] for p in prefixes if word.startswith(p)), word)


def _prefix_variant(word: str, context: frozenset[str], lex: Lexicon) -> bool:
    """A word that is a question word with another prefix ("enlocated" for "dislocated";
    `[complements] variant_prefixes`)."""
    prefixes = lex.variant_prefixes
    root = _root(word, prefixes)
    if len(root) < 5:
        return False
    return any(q != word and len(q) > 5 and _root(q, prefixes) == root for q in context)


def _state_denial(hits: list[Hit], lex: Lexicon) -> bool:
    """A denial by a state word only ("The ICA is patent"): it says the option is normal,
    not that the finding is in the other option (an occlusion may be in neither)."""
    return all(
        h.negation is None or not lex.state_words.isdisjoint(h.negation.split()) for h in hits
    )


def _alternative(r: Reading, hits: list[Hit], lex: Lexicon) -> bool:
    """An affirmed mention coordinated by "or" with another word, right before or after it
    ("mild or moderate", "greenstick or buckle"), with no punctuation between and the other
    word not a mention of the same option ("RLL or right lower lobe")."""
    words, f = r.words, r.focus
    for h in hits:
        if h.negation is not None:
            continue
        for step, k in ((1, h.last + 1), (-1, h.first - 1)):
            while 0 <= k < len(words) and words[k] in _ARTICLES:
                k += step
            if not (0 <= k < len(words)) or words[k] != "or":
                continue
            m = k + step
            while 0 <= m < len(words) and words[m] in _ARTICLES:
                m += step
            if not (0 <= m < len(words)):
                continue
            lo, hi = (h.end, r.starts[m]) if step == 1 else (r.ends[m], h.start)
            if any(c in _PUNCT for c in f[lo:hi]):
                continue  # "Right, or rather ...": a clause break between
            if any(x.option is h.option and x.first <= m <= x.last for x in hits):
                continue
            if content_word(words[m], lex) and words[m] not in lex.scope_end:
                return True
    return False


_ARTICLES = frozenset({"the", "a", "an"})
_PUNCT = frozenset(".,;:!?()[]\n\u2013\u2014")


def _cue_on_other_noun(r: Reading, j: int, opts: Options, lex: Lexicon) -> bool:
    """A "both" that quantifies another noun than the options' ("Hypometabolism in both
    temporal lobes" to "increased or decreased metabolism?"): unless the options are sides
    or positions, which "both <organ>" names ("both kidneys" to "left or right kidney?")."""
    words = r.words
    while j < len(words) and words[j] in _ARTICLES_OF:
        j += 1
    if j >= len(words) or r.starts[j] >= clause_end(r, r.ends[j - 1]):
        return False
    w = words[j]
    option_words = opts.a.words + opts.b.words
    if w in option_words or not content_word(w, lex) or w in lex.grammar["cue_filler"]:
        return False
    if w in lex.grammar["side_nouns"]:
        return False
    sided = {"laterality", "position"}
    for o in (opts.a, opts.b):
        if any(lex.parallel.get(x, set()) & sided for x in o.key):
            return False
    return True


_ARTICLES_OF = frozenset({"the", "of", "a", "an", "its", "their"})


def _finding_named(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """The question's finding named outside any denial, in a clause with no option."""
    findings = opts.findings
    if not findings or findings.isdisjoint(r.wordset):
        return None
    words = r.words
    for k, w in enumerate(words):
        if w not in findings:
            continue
        lo, hi = clause_start(r, r.starts[k]), clause_end(r, r.ends[k])
        if any(lo <= h.start < hi for h in hits):
            continue
        before = words[max(0, k - _NEG_WINDOW) : k]
        if any(x in _NEGATORS for x in before) or any(
            lex.neg_before.match_at(words, i) is not None for i in range(max(0, k - _NEG_WINDOW), k)
        ):
            continue
        if any(
            lex.neg_after.match_at(words, i) or lex.neg_after_state.match_at(words, i)
            for i in range(k + 1, min(len(words), k + 1 + _POST_WINDOW))
            if r.starts[i] < hi
        ):
            continue
        return w
    return None


def _finding_apart(r: Reading, cue: int, opts: Options) -> bool:
    """The question's finding is named only outside the clause of the cue at word `cue`."""
    findings = opts.findings
    if findings.isdisjoint(r.wordset):
        return False
    found = [k for k, w in enumerate(r.words) if w in findings]
    if not found:
        return False
    lo, hi = clause_start(r, r.starts[cue]), clause_end(r, r.ends[cue])
    return all(not lo <= r.starts[k] < hi for k in found)


def _graded(r: Reading, hits: list[Hit], lex: Lexicon) -> bool:
    """Every mention stands beside a grading word in its clause ("right greater than left",
    "prédominant à droite"): it ranks the sides of a bilateral finding, it does not choose."""
    words = r.words
    grading = lex.grading
    for h in hits:
        lo, hi = clause_start(r, h.start), clause_end(r, h.end)
        near = [
            k
            for k in range(max(0, h.first - 3), min(len(words), h.last + 4))
            if lo <= r.starts[k] < hi and words[k] in grading
        ]
        if not near:
            return False
    return bool(hits)


def _subject_absent(
    r: Reading, hits: list[Hit], opts: Options, lex: Lexicon
) -> tuple[Label, str] | None:
    """ "Are Reed-Sternberg cells present or absent?" - "No Reed-Sternberg cells are
    identified": the question's subject denied outright chooses the option that says it is
    absent (a word of [grammar] question_negators), when no option is named."""
    if hits or not opts.complementary or not opts.normal_question:
        return None
    negators = lex.grammar["question_negators"]
    absent = [lab for lab, o in ((Label.A, opts.a), (Label.B, opts.b)) if set(o.key) & negators]
    if len(absent) != 1:
        return None
    words = r.words
    filler = lex.grammar["denial_filler"]
    subject = {w for w in opts.outside if content_word(w, lex)} - set(opts.a.words + opts.b.words)
    for i in range(len(words)):
        p = lex.neg_before.match_at(words, i)
        if p is None or lex.neg_pseudo.match_at(words, i) is not None:
            continue
        hi = clause_end(r, r.ends[i])
        for k in range(i + len(p), min(len(words), i + len(p) + 3)):
            if r.starts[k] >= hi:
                break
            if words[k] in subject or stem(words[k]) in subject:
                between = words[i + len(p) : k]
                if any(w not in filler and content_word(w, lex) for w in between):
                    break  # "no intraretinal fluid" to "subretinal fluid present?"
                if _finding_said(r, words[k], k, lex):
                    return None  # "…; subretinal fluid is visible": said elsewhere
                return absent[0], words[k]
    return None


def _subject_denied(r: Reading, hits: list[Hit], opts: Options, lex: Lexicon) -> str | None:
    """The finding the question asks about, denied in a clause that names no option ("No
    renal calculi are seen" to "Which kidney has a stone?")."""
    if not opts.abnormal_question or opts.source == "or-not" or opts.complementary:
        return None
    if any(c.isdigit() for w in opts.a.key + opts.b.key for c in w):
        # "Forrest Ia or Forrest III?" - "without stigmata of recent haemorrhage": grades of
        # the finding, one of which may be its absence.
        return None
    findings = lex.grammar["finding_words"]
    if findings.isdisjoint(r.wordset):
        return None
    words = r.words
    follow = lex.follow_words
    for k, w in enumerate(words):
        if w not in findings:
            continue
        lo, hi = clause_start(r, r.starts[k]), clause_end(r, r.ends[k])
        if any(lo <= h.start < hi for h in hits):
            continue  # "no fracture of the tibia": said of an option
        if ":" in r.focus[_sentence_start(r.focus, lo) : lo]:
            continue  # "Right hip: joint space preserved, no fracture": under a heading
        if k + 1 < len(words) and r.starts[k + 1] < hi and words[k + 1] not in follow:
            continue  # "no mass effect": another noun
        for i in range(max(0, k - _NEG_WINDOW), k):
            if r.starts[i] < lo or any(x in lex.scope_end for x in words[i:k]):
                continue
            p = lex.neg_before.match_at(words, i)
            if p is not None and lex.neg_pseudo.match_at(words, i) is None:
                # The question's own finding: only now is the question read.
                if w in opts.findings and not _finding_said(r, w, k, lex):
                    return w
                break
    return None


def _finding_said(r: Reading, w: str, k: int, lex: Lexicon) -> bool:
    """Whether finding `w`, denied at words[k], is also said without a denial in another
    clause ("Apical LV thrombus; LAA free of thrombus"): placed somewhere, not denied."""
    words = r.words
    for m, x in enumerate(words):
        if x != w or m == k:
            continue
        lo = clause_start(r, r.starts[m])
        if lo == clause_start(r, r.starts[k]):
            continue
        before = range(max(0, m - _NEG_WINDOW), m)
        if not any(r.starts[i] >= lo and lex.neg_before.match_at(words, i) for i in before):
            return True
    return False


def _other_subject(
    r: Reading, hits: list[Hit], lab: Label, opts: Options, lex: Lexicon
) -> str | None:
    """For normal/abnormal and present/absent questions: the subject of "... is normal" when
    it is something the question does not ask about ("Overall, the heart and mediastinum are
    normal", "RAC absent" to "Is H. pylori gastritis present or absent?")."""
    if not opts.normal_question:
        return None
    words = r.words
    found: str | None = None
    for h in hits:
        if h.option is not lab or h.negation:
            continue
        first = bisect_left(r.starts, clause_start(r, h.start))
        before = [
            w
            for w in words[first : h.first]
            if w not in lex.generic
            and w not in lex.stopwords
            and w not in lex.grammar["copula"]
            and w not in lex.grammar["subject_filler"]
        ]
        if before:  # the question's own words may name the subject ("the appendix")
            before = [w for w in before if w not in opts.context]
        if not before:
            return None  # one plain "the image is normal" is enough
        found = found or " ".join(before)
    return found


def _or_not(
    hits: list[Hit],
    words: tuple[str, ...],
    opts: Options,
    lex: Lexicon,
    f: str,
    t_hits: tuple[Hit, ...],
    t_cues: tuple[str, ...],
) -> Verdict:
    """ "X or not?": X's head word decides ("an air-fluid level is present" despite "no free
    air"); otherwise any word of X when its head only asks whether X is there ("Is a nodule
    present or not?"), or a word only "not X" has ("no contrast"). A head that says more
    ("Is the effusion haemodynamically significant or not?") must itself be answered."""
    if any(h.option is Label.B for h in hits):  # a word only "not X" has: "no contrast"
        return Verdict(Label.B, "or-not", "denies X in an 'X or not' question", f, t_hits, t_cues)
    head = opts.a.words[-1]
    on_head = [h for h in hits if head in words[h.first : h.last + 1]]
    if not on_head and len(opts.a.words) > 1 and head not in lex.q_verbs:
        why = f"names what the question asks about but not whether it is '{head}'"
        return Verdict(None, "or-not-unanswered", why, f, t_hits, t_cues)
    pool = on_head or hits
    says_not = {h.option is Label.B or h.negation is not None for h in pool}
    if says_not == {True}:
        return Verdict(Label.B, "or-not", "denies X in an 'X or not' question", f, t_hits, t_cues)
    if says_not == {False}:
        return Verdict(Label.A, "or-not", "affirms X in an 'X or not' question", f, t_hits, t_cues)
    return Verdict(None, "contradiction", "both affirms and denies X", f, t_hits, t_cues)


def _joined(hits: list[Hit], words: tuple[str, ...], conj: frozenset[str], *, strict: bool) -> bool:
    """True when mentions of different options are linked by one of `conj` words.

    With `strict`, nothing but coordination may stand between them: "hyperintense on T1
    and hypointense on T2" is not "both".
    """
    for a, b in zip(hits, hits[1:], strict=False):
        between = words[a.last + 1 : b.first]
        if a.option == b.option or not any(w in conj for w in between):
            continue
        if not strict or all(w in _COORD for w in between):
            return True
    return False


def _sentence_start(f: str, pos: int) -> int:
    """Where the sentence holding offset `pos` of `f` begins."""
    return max(f.rfind(c, 0, pos) for c in ".;\n!?") + 1


def _sentence_end(f: str, pos: int) -> int:
    """Where the sentence holding offset `pos` of `f` ends."""
    ends = [e for e in (f.find(c, pos) for c in ".;\n!?") if e >= 0]
    return min(ends) if ends else len(f)
