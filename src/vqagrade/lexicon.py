"""Lexicons: the vocabulary of the rules, loaded from TOML files.

The shipped files live in the top-level ``lexicons/`` folder (inside the wheel as package
data); users extend them with ``--lexicon FILE``. Sections:

- ``[synonyms]`` canonical = [variants]: abbreviations, adjective forms, spellings.
- ``[case_sensitive]`` canonical = [variants]: variants matched with their case ("US").
- ``[tokens]``, ``[cues]``, ``[negation]``, ``[comparatives]``, ``[complements]``,
  ``[question]``, ``[answer]``, ``[notation]``: word lists used by the answer grammar (see
  core.toml).
- ``[meta]``: ``name``, ``source``, ``license``, ``version`` (all four in a shipped file).

An unknown section or key is refused with the list of valid ones (`sections`); every
section is described in lexicons/README.md.

Every phrase goes through the same canonicaliser as the answers, so lists stay consistent
with the synonyms whatever order files are loaded in.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ._resources import data_dir
from .errors import LexiconError
from .rules.text import Canonicalizer, PhraseSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# The closed word lists of [grammar] (see core.toml); read as they stand.
GRAMMAR_LISTS = (
    "copula",
    "concluding",
    "advice",
    "passive_auxiliaries",
    "verb_left_after",
    "linking_verbs",
    "unfinished_endings",
    "view_nouns",
    "between_words",
    "judging_verbs",
    "denial_filler",
    "entity_modifiers",
    "gap_stop",
    "cue_filler",
    "subject_filler",
    "side_nouns",
    "comparison_filler",
    "plural_verbs",
    "singular_verbs",
    "finding_words",
    "concessive",
    "report_denials",
    "visibility",
    "exclusive_classes",
    "stain_filler",
    "question_negators",
    "state_options",
    "vessel_nouns",
    "comparand_markers",
    "reference_words",
    "clause_final_states",
    "example_openers",
    "contrast",
    "locative",
    "qualifier_prefixes",
    "normal_before",
    "part_quantifiers",
    "staging_words",
    "comparand_fillers",
    "phrase_enders",
    "rival_classes",
)

_LIST_SECTIONS = {
    "tokens": (
        "join_prefixes",
        "hyphen_prefixes",
        "pair_prefixes",
        "suspension_links",
        "no_fold",
        "adjective_suffixes",
        "derived_suffixes",
        "stopwords",
        "generic",
        "modifiers",
    ),
    "cues": (
        "both",
        "both_shared",
        "verdict_openers",
        "none",
        "hedge",
        "choice_hedge",
        "conditional",
        "generic_statements",
        "refusal",
        "junk",
        "yes",
        "no",
        "letter_words",
        "also",
        "relative_sides",
        "grading",
        "equal",
        "partial",
        "mixed",
        "cjk_blockers",
        "cjk_comparing",
        "added",
        "added_after",
        "purpose",
    ),
    "negation": (
        "before",
        "pseudo",
        "after",
        "after_state",
        "before_state",
        "scope_end",
        "from_verbs",
        "unassessed",
        "no_article_marks",
    ),
    "complements": ("negative_prefixes", "variant_prefixes"),
    "question": (
        "open_starts",
        "auxiliaries",
        "list_starts",
        "verbs",
        "prepositions",
        "articles",
        "or_not",
        "conjunctions",
        "abnormal_predicates",
        "state_predicates",
        "intro_starts",
    ),
    "places": ("landmark", "image_frame", "patient_frame"),
    "grammar": GRAMMAR_LISTS,
    "notation": ("level_prefixes", "numbered", "roman"),
    "answer": (
        "role_tags",
        "dialogue_roles",
        "final_markers",
        "conclusion_markers",
        "letter_prefixes",
        "corrections",
        "case_openers",
        "history",
        "open_endings",
    ),
    "yes_no": (
        "polar_starts",
        "frame",
        "yes",
        "no",
        "abnormal",
        "normal",
        "normal_state",
        "superseded",
        "dangling",
        "clause_words",
        "unsettled",
        "other_findings",
        "qualifiers",
        "contradicting_yes",
        "alternatives",
        "other_language",
        "foreign_marks",
        "foreign_denials",
        "foreign_denial_marks",
        "foreign_normal",
        "foreign_normal_marks",
        "foreign_contrast",
        "image_context",
        "presence",
        "prepositions",
        "self_corrections",
        "definitions",
        "modals",
        "hedges",
        "organs",
        "bare_denials",
        "report_presence",
        "generic_abnormal",
        "denial_intensifiers",
        "withheld",
        "malignant_entities",
        "intentions",
    ),
    "multiple_choice": (
        "hedge",
        "undecided",
        "conclusion_cues",
        "every_option",
        "all_answers",
        "corrections",
        "choose_letter",
        "answer_markers",
        "denied_after",
        "grade_words",
        "part_nouns",
        "correction_hints",
        "letter_hints",
        "answer_marker_hints",
        "answer_talk",
        "whole_study",
        "components",
        "joiners",
        "not_initialisms",
        "initials_skip",
        "json_letter_keys",
        "json_text_keys",
        "json_reason_keys",
    ),
}


_TABLE_SECTIONS = (
    "synonyms",
    "case_sensitive",
    "spelling",
    "parallel",
    "parts",
    "broader",
    "cjk",
)
"""Sections of ``canonical = [variants]`` entries: any key."""
META_KEYS = ("name", "source", "license", "version")
"""The keys of ``[meta]``; a shipped file must have every one."""
_EXTRA_KEYS = {"complements": ("pairs",), "terms": ("words",)}


def sections() -> dict[str, tuple[str, ...] | None]:
    """Every section a lexicon file may have and its keys (None: any key, a table of entries).

    Derived from the loader's own tables, so a new list section is valid once it is read.
    """
    valid: dict[str, tuple[str, ...] | None] = {"meta": META_KEYS}
    valid.update(dict.fromkeys(_TABLE_SECTIONS))
    valid["comparatives"] = None
    for table in (_LIST_SECTIONS, _EXTRA_KEYS):
        for section, names in table.items():
            valid[section] = (*(valid.get(section) or ()), *names)
    return valid


def _check_keys(data: dict[str, Any], origin: str, *, shipped: bool) -> None:
    """Refuse unknown sections and keys, naming the valid ones; shipped files need `META_KEYS`."""
    valid = sections()
    for section, table in data.items():
        if section not in valid:
            raise LexiconError(
                f"{origin}: unknown section [{section}]; valid sections: {', '.join(valid)}"
            )
        if not isinstance(table, dict):
            raise LexiconError(f"{origin}: [{section}] must be a table")
        keys = valid[section]
        unknown = [k for k in table if keys is not None and k not in keys]
        if unknown:
            raise LexiconError(
                f"{origin}: unknown key {unknown[0]!r} in [{section}]; "
                f"valid keys: {', '.join(keys or ())}"
            )
    if shipped:
        meta = data.get("meta", {})
        missing = [k for k in META_KEYS if not isinstance(meta.get(k), str) or not meta[k]]
        if missing:
            raise LexiconError(f"{origin}: [meta] needs {', '.join(missing)}")


@dataclass
class _Raw:
    """Merged contents of the TOML files before canonicalisation."""

    synonyms: dict[str, list[str]] = field(default_factory=dict)
    case_sensitive: dict[str, list[str]] = field(default_factory=dict)
    spelling: dict[str, list[str]] = field(default_factory=dict)
    parallel: dict[str, list[str]] = field(default_factory=dict)
    parts: dict[str, list[str]] = field(default_factory=dict)
    broader: dict[str, list[str]] = field(default_factory=dict)
    cjk: dict[str, list[str]] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)
    comparatives: dict[str, str] = field(default_factory=dict)
    than: list[str] = field(default_factory=list)
    pairs: list[list[str]] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def _merge(raw: _Raw, data: dict[str, Any], origin: str) -> None:
    meta = data.get("meta", {})
    raw.sources.append(f"{meta.get('name', origin)}: {meta.get('source', 'no source given')}")
    for key in _TABLE_SECTIONS:
        table = data.get(key, {})
        if not isinstance(table, dict):
            raise LexiconError(f"{origin}: [{key}] must be a table of canonical = [variants]")
        target = getattr(raw, key)
        for canonical, variants in table.items():
            if isinstance(variants, str):
                variants = [variants]
            if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
                raise LexiconError(f"{origin}: [{key}] {canonical!r} must be a list of strings")
            target.setdefault(str(canonical), []).extend(variants)
    for section, names in _LIST_SECTIONS.items():
        table = data.get(section, {})
        for name in names:
            values = table.get(name, [])
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise LexiconError(f"{origin}: [{section}] {name} must be a list of strings")
            raw.lists.setdefault(f"{section}.{name}", []).extend(values)
    comps = data.get("comparatives", {})
    for word, spec in comps.items():
        if word == "than":
            raw.than.extend(spec)
            continue
        if not isinstance(spec, str) or spec.count(":") != 1 or spec[-1] not in "+-":
            raise LexiconError(f"{origin}: [comparatives] {word!r} must be 'dimension:+' or ':-'")
        raw.comparatives[word] = spec
    raw.pairs.extend(data.get("complements", {}).get("pairs", []))
    terms = data.get("terms", {}).get("words", [])
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise LexiconError(f"{origin}: [terms] words must be a list of strings")
    raw.terms.extend(terms)


def _read_toml(path: Path | Any, origin: str) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise LexiconError(f"lexicon file not found: {origin}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise LexiconError(f"{origin}: not valid TOML ({exc})") from exc
    except OSError as exc:
        raise LexiconError(f"{origin}: cannot be read ({exc.strerror})") from exc
    return data


def shipped_files() -> list[Any]:
    """The lexicon files shipped with vqagrade, in load order (core first)."""
    folder = data_dir("lexicons")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name)
    return sorted(files, key=lambda f: f.name != "core.toml")


class Lexicon:
    """Canonicaliser plus every word list the rules consult, all in canonical form."""

    def __init__(self, raw: _Raw) -> None:
        lists = raw.lists
        no_fold = lists.get("tokens.no_fold", [])
        spelling = {
            v.lower(): canonical.lower() for canonical, vs in raw.spelling.items() for v in vs
        }
        notation = {
            "level_prefixes": lists.get("notation.level_prefixes", []),
            "numbered": lists.get("notation.numbered", []),
            "roman": dict(r.split("=", 1) for r in lists.get("notation.roman", []) if "=" in r),
        }
        base = Canonicalizer(
            join_prefixes=lists.get("tokens.join_prefixes", []),
            hyphen_prefixes=lists.get("tokens.hyphen_prefixes", []),
            pair_prefixes=lists.get("tokens.pair_prefixes", []),
            suspension_links=lists.get("tokens.suspension_links", []),
            no_fold=no_fold,
            spelling=spelling,
            **notation,  # type: ignore[arg-type]
        )

        def btoks(phrase: str) -> tuple[str, ...]:
            return tuple(t.text for t in base.base(phrase))

        synonyms: dict[tuple[str, ...], tuple[str, ...]] = {}
        for canonical, variants in raw.synonyms.items():
            target = btoks(canonical)
            for v in variants:
                synonyms.setdefault(btoks(v), target)
        terms: dict[tuple[str, ...], str] = {}
        for term in raw.terms:
            # A fixed term becomes one opaque word: its parts never name an option.
            words_ = btoks(term)
            if len(words_) > 1:
                terms[words_] = "_".join(words_)
        if terms:
            # A synonym's canonical side is joined the same way ("portal venous" -> the term
            # "portal vein"), since canonical words are not canonicalised again.
            synonyms = {v: _join_terms(t, terms) for v, t in synonyms.items()}
        for words_, joined in terms.items():
            synonyms[words_] = (joined,)
        case_sensitive = {
            v: btoks(canonical) for canonical, vs in raw.case_sensitive.items() for v in vs
        }
        # A canonical side that holds another entry's variant is taken to that entry's
        # canonical words ("middle cerebral artery" -> "middle brain artery"), so a phrase
        # lands on the same words whether it is written out or reached through a synonym.
        # An entry that only drops words of its variant ("portal venous phase" -> "venous
        # phase") keeps its words as written.
        longest = max((len(v) for v in synonyms), default=0)
        synonyms = {
            v: t if _inside(t, v) else _settle(t, synonyms, longest) for v, t in synonyms.items()
        }
        case_sensitive = {v: _settle(t, synonyms, longest) for v, t in case_sensitive.items()}
        # The words inside a one-word canonical's multi-word variants ("colon" <- "large bowel";
        # not "thyroid" <- "thyroid gland"): such a word ("bowel") alone does not tell that
        # option from another.
        inside: dict[str, set[str]] = {}
        for variant, target in synonyms.items():
            if len(target) == 1 and len(variant) > 1 and target[0] not in variant:
                inside.setdefault(target[0], set()).update(variant)
        self.variant_words = {k: frozenset(ws) for k, ws in inside.items()}
        self.canon = Canonicalizer(
            join_prefixes=lists.get("tokens.join_prefixes", []),
            hyphen_prefixes=lists.get("tokens.hyphen_prefixes", []),
            pair_prefixes=lists.get("tokens.pair_prefixes", []),
            suspension_links=lists.get("tokens.suspension_links", []),
            synonyms=synonyms,
            case_sensitive=case_sensitive,
            no_fold=no_fold,
            spelling=spelling,
            **notation,  # type: ignore[arg-type]
        )
        self.sources = list(raw.sources)

        def words(name: str) -> frozenset[str]:
            return frozenset(w for p in lists.get(name, []) for w in self.canon.words(p))

        def phrases(name: str) -> PhraseSet:
            return PhraseSet(self.canon.words(p) for p in lists.get(name, []))

        self.stopwords = words("tokens.stopwords")
        self.generic = words("tokens.generic")
        self.adjective_suffixes = tuple(lists.get("tokens.adjective_suffixes", []))
        # "osis>otic": a noun ending and the adjective ending derived from it (see core.toml).
        self.derived_suffixes = tuple(
            (noun, adj)
            for noun, _, adj in (x.partition(">") for x in lists.get("tokens.derived_suffixes", []))
            if noun and adj
        )
        self.modifiers = words("tokens.modifiers") | frozenset(lists.get("tokens.modifiers", []))
        # word -> the parallel classes it belongs to ("left" -> {"laterality"})
        self.parallel: dict[str, set[str]] = {}
        for cls, members in raw.parallel.items():
            for m in members:
                for w in {m, *self.canon.words(m)}:
                    self.parallel.setdefault(w, set()).add(cls)
        # Every word the lexicons know: never a typo, so never fuzzy-matched.
        self.known_words = (
            frozenset(w for pair in synonyms.items() for p in pair for w in p)
            | frozenset(spelling)
            | frozenset(spelling.values())
            | frozenset(self.parallel)
        )
        # Multi-word phrases the lexicons know ("small bowel"): kept whole as options.
        self.known_phrases = frozenset(p for pair in synonyms.items() for p in pair if len(p) > 1)
        self.both = phrases("cues.both")
        self.both_shared = phrases("cues.both_shared")
        self.verdict_openers = phrases("cues.verdict_openers")
        self.none = phrases("cues.none")
        self.hedge = phrases("cues.hedge")
        self.choice_hedge = phrases("cues.choice_hedge")
        self.conditional = phrases("cues.conditional")
        self.generic_statements = phrases("cues.generic_statements")
        self.purpose = phrases("cues.purpose")
        # Their second words ("exclude", "assess"), a cheap probe: "to" is in most answers.
        self.purpose_probe = frozenset(p[1] if len(p) > 1 else p[0] for p in self.purpose.phrases)
        self.added = phrases("cues.added")
        self.added_probe = frozenset(p[0] for p in self.added.phrases)
        self.added_after = phrases("cues.added_after")
        self.history = phrases("answer.history")
        self.added_after_probe = frozenset(p[0] for p in self.added_after.phrases)
        self.refusal = phrases("cues.refusal")
        self.junk = phrases("cues.junk")
        self.letter_words = dict(
            item.split("=", 1) for item in lists.get("cues.letter_words", []) if "=" in item
        )
        self.yes = words("cues.yes")
        self.no = words("cues.no")
        self.neg_before = phrases("negation.before")
        self.neg_pseudo = phrases("negation.pseudo")
        self.neg_after = phrases("negation.after")
        self.neg_after_state = phrases("negation.after_state")
        self.unassessed = phrases("negation.unassessed")
        # Compared as written, not through synonyms: "lesão" as a mark must not make every
        # English "lesion" one.
        self.no_article_marks = frozenset(
            w.lower() for w in lists.get("negation.no_article_marks", [])
        )
        # Their last words, a cheap probe: the first is often "not", in many answers.
        self.unassessed_ends = frozenset(p[-1] for p in self.unassessed.phrases)
        self.also = phrases("cues.also")
        self.relative_sides = phrases("cues.relative_sides")
        self.grading = words("cues.grading")
        self.equal = words("cues.equal")
        self.partial = words("cues.partial")
        self.mixed = words("cues.mixed")
        self.state_words = words("question.state_predicates")
        self.scope_end = words("negation.scope_end")
        self.neg_before_state = phrases("negation.before_state")
        self.from_verbs = words("negation.from_verbs")
        self.comparatives = PhraseSet()
        self.comparative_sign: dict[tuple[str, ...], tuple[str, int]] = {}
        for word, spec in raw.comparatives.items():
            key = self.canon.words(word)
            dim, sign = spec.split(":")
            self.comparatives.add(key)
            self.comparative_sign[key] = (dim, 1 if sign == "+" else -1)
        self.than = PhraseSet(self.canon.words(p) for p in raw.than)
        self.complement_pairs = frozenset(
            frozenset(self.canon.words(a) + self.canon.words(b))
            for a, b in (p for p in raw.pairs if len(p) == 2)
        )
        self.negative_prefixes = tuple(
            sorted(lists.get("complements.negative_prefixes", []), key=len, reverse=True)
        )
        self.variant_prefixes = tuple(lists.get("complements.variant_prefixes", []))
        self.open_starts = frozenset(lists.get("question.open_starts", []))
        self.q_auxiliaries = frozenset(lists.get("question.auxiliaries", []))
        self.list_starts = frozenset(lists.get("question.list_starts", []))
        self.q_verbs = frozenset(lists.get("question.verbs", []))
        self.q_preps = frozenset(lists.get("question.prepositions", []))
        self.q_articles = frozenset(lists.get("question.articles", []))
        self.or_not = frozenset(lists.get("question.or_not", []))
        self.q_conj = frozenset(lists.get("question.conjunctions", []))
        self.abnormal_predicates = words("question.abnormal_predicates")
        self.intro_starts = frozenset(lists.get("question.intro_starts", []))
        # organ -> words naming its parts ("lung" -> "lobe", "base"), for side words
        self.parts: dict[str, frozenset[str]] = {}
        for whole, members in raw.parts.items():
            for w in self.canon.words(whole):
                found = {x for m in members for x in self.canon.words(m)}
                self.parts[w] = self.parts.get(w, frozenset()) | found
        # broader word -> narrower words that also name it ("ct" -> "ctangiography")
        self.narrower: dict[str, frozenset[str]] = {}
        for wide, members in raw.broader.items():
            for w in self.canon.words(wide):
                found = {x for m in members for x in self.canon.words(m)}
                self.narrower[w] = self.narrower.get(w, frozenset()) | found
        self.grammar = {n: frozenset(lists.get(f"grammar.{n}", [])) for n in GRAMMAR_LISTS}
        # Words that call a structure normal, in a question or beside an answer's option.
        self.normal_states = self.state_words | self.grammar["normal_before"]
        # Probes built once for the labelling rules: every word that may open a cue the
        # unread-mention rules read, and the words that may follow a denied finding ("no
        # stone is seen") without naming another noun.
        self.unread_words = frozenset(
            {p[0] for p in self.unassessed.phrases}
            | {p[0] for p in self.relative_sides.phrases}
            | self.unassessed_ends
            | self.equal
            | self.partial
        )
        self.sequence_words = frozenset(w for w, c in self.parallel.items() if "sequence" in c)
        self.follow_words = frozenset(
            self.stopwords | self.grammar["copula"] | self.grammar["visibility"] | self.q_verbs
        )
        self.landmark = phrases("places.landmark")
        self.image_frame = words("places.image_frame")
        self.patient_frame = words("places.patient_frame")
        self.role_tags = frozenset(lists.get("answer.role_tags", []))
        self.dialogue_roles = frozenset(lists.get("answer.dialogue_roles", []))
        self.final_markers = tuple(
            sorted(lists.get("answer.final_markers", []), key=len, reverse=True)
        )
        self.conclusion_markers = tuple(lists.get("answer.conclusion_markers", []))
        self.letter_prefixes = frozenset(lists.get("answer.letter_prefixes", []))
        self.corrections = tuple(lists.get("answer.corrections", []))
        # Openings of a sentence about the case at hand ("Here …", "In this image …").
        self.case_openers = tuple(
            self.canon.words(p) for p in lists.get("answer.case_openers", []) if p.strip()
        )
        # Every list as merged ("section.name" -> phrases), for the modules that build their
        # own vocabulary from a section of their own (yes_no.toml's [yes_no]).
        self.lists = {name: tuple(values) for name, values in lists.items()}
        # Chinese and Japanese forms of option words, keyed by the option word's canonical
        # form ("left" -> 左): read by `rules.cjk`, where text is not split into words.
        cjk: dict[str, set[str]] = {}
        for canonical, forms in raw.cjk.items():
            word = " ".join(self.canon.words(canonical))
            cjk.setdefault(word, set()).update(f for f in forms if f)
        self.cjk = {k: tuple(sorted(v, key=len, reverse=True)) for k, v in cjk.items()}
        # The other way, for options written in those languages ("右肺" -> right lung): a
        # form that stands for two words stands for neither.
        owners: dict[str, set[str]] = {}
        for word, fs in self.cjk.items():
            for f in fs:
                owners.setdefault(f, set()).add(word)
        self.cjk_words = {f: next(iter(ws)) for f, ws in owners.items() if len(ws) == 1}
        self.cjk_blockers = tuple(lists.get("cues.cjk_blockers", []))
        self.cjk_comparing = tuple(lists.get("cues.cjk_comparing", []))


def _inside(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """`part` is a run of consecutive words of `whole`."""
    n = len(part)
    return any(whole[i : i + n] == part for i in range(len(whole) - n + 1))


def _settle(
    words: tuple[str, ...],
    synonyms: dict[tuple[str, ...], tuple[str, ...]],
    longest: int,
    rounds: int = 3,
) -> tuple[str, ...]:
    """`words` with the synonym phrases in them replaced, longest first, until nothing
    changes (at most `rounds` passes, so entries that point at each other stop); `longest`:
    the most words of a synonym phrase."""
    for _ in range(rounds):
        out: list[str] = []
        i = 0
        while i < len(words):
            for n in range(min(longest, len(words) - i), 0, -1):
                repl = synonyms.get(words[i : i + n])
                # A variant that opens its own longer canonical words ("ziehl neelsen" in
                # "ziehl neelsen stain") is already there; one that shortens ("squamous cell"
                # -> "squamous") is replaced.
                if repl is not None and not (len(repl) > n and words[i : i + len(repl)] == repl):
                    out.extend(repl)
                    i += n
                    break
            else:
                out.append(words[i])
                i += 1
        if tuple(out) == words:
            break
        words = tuple(out)
    return words


def _join_terms(words: tuple[str, ...], terms: dict[tuple[str, ...], str]) -> tuple[str, ...]:
    """`words` with every fixed term in them joined into its one word, longest first."""
    out: list[str] = []
    i = 0
    while i < len(words):
        for n in range(len(words) - i, 1, -1):
            joined = terms.get(words[i : i + n])
            if joined is not None:
                out.append(joined)
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return tuple(out)


def load_lexicon(extra: Sequence[str | Path] = (), *, shipped: bool = True) -> Lexicon:
    """Load the shipped lexicons plus user files (later files extend earlier ones).

    Args:
        extra: paths of user lexicon TOML files.
        shipped: include the lexicons shipped with vqagrade.
    """
    raw = _Raw()
    files: list[tuple[Any, str, bool]] = []
    if shipped:
        files.extend((f, f"lexicons/{f.name}", True) for f in shipped_files())
    files.extend((Path(p), str(p), False) for p in extra)
    for f, origin, ours in files:
        data = _read_toml(f, origin)
        _check_keys(data, origin, shipped=ours)
        _merge(raw, data, origin)
    return Lexicon(raw)


@cache
def default_lexicon() -> Lexicon:
    """The shipped lexicons, loaded once per process."""
    return load_lexicon()


def lexicon_for(extra: Iterable[str | Path]) -> Lexicon:
    """The default lexicon when no extra files are given, else a fresh merged one."""
    extra = tuple(extra)
    return load_lexicon(extra) if extra else default_lexicon()
