"""Every shipped lexicon loads, carries its source, and user files extend it."""

import re
from pathlib import Path

import pytest

from vqagrade import Grader
from vqagrade.errors import LexiconError
from vqagrade.lexicon import META_KEYS, load_lexicon, sections, shipped_files


def test_every_shipped_file_loads_and_names_its_source() -> None:
    files = shipped_files()
    assert {f.name for f in files} >= {"core.toml", "imaging.toml", "anatomy.toml"}
    lex = load_lexicon()
    assert len(lex.sources) == len(files)
    assert all("no source given" not in s for s in lex.sources)


def test_synonyms_land_on_one_canonical_form() -> None:
    lex = load_lexicon()
    assert lex.canon.words("computed tomography") == lex.canon.words("CT")
    assert lex.canon.words("oedema") == lex.canon.words("edema")
    assert lex.canon.words("renal") == lex.canon.words("kidneys")
    assert lex.canon.words("non-contrast") == lex.canon.words("non contrast")


def test_user_lexicon_extends_synonyms(tmp_path: Path) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text('[meta]\nname = "mine"\nsource = "test"\n[synonyms]\nspleen = ["lien"]\n')
    q, gt = "Is the lesion in the liver or the spleen?", "spleen"
    assert Grader().grade(q, gt, "lien").pred_label is None
    assert Grader(lexicons=[extra]).grade(q, gt, "lien").score == 1.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[synonyms\n", "not valid TOML"),
        ("[synonyms]\nct = 3\n", "must be a list of strings"),
        ('[comparatives]\nbigger = "size"\n', "dimension"),
    ],
)
def test_bad_user_lexicon_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(content)
    with pytest.raises(LexiconError, match=message):
        load_lexicon([bad])


def test_missing_user_lexicon(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match="not found"):
        load_lexicon([tmp_path / "nope.toml"])


def test_grammar_lists_are_loaded_from_the_lexicon() -> None:
    from vqagrade.lexicon import GRAMMAR_LISTS

    lex = load_lexicon()
    assert set(lex.grammar) == set(GRAMMAR_LISTS)
    assert all(lex.grammar[name] for name in GRAMMAR_LISTS)


def test_user_lexicon_extends_a_grammar_list(tmp_path: Path) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text('[grammar]\nvisibility = ["outlined"]\n')
    lex = load_lexicon([extra])
    assert "outlined" in lex.grammar["visibility"] and "visible" in lex.grammar["visibility"]


def test_shipped_files_carry_license_and_version() -> None:
    import tomllib

    for f in shipped_files():
        meta = tomllib.loads(f.read_text(encoding="utf-8"))["meta"]
        assert set(META_KEYS) <= set(meta), f.name
        assert all(isinstance(meta[k], str) and meta[k] for k in META_KEYS), f.name


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        pytest.param("[synonym]\nspleen = ['lien']\n", "unknown section [synonym]", id="section"),
        pytest.param("[cues]\nbothe = ['x']\n", "unknown key 'bothe' in [cues]", id="key"),
        pytest.param("[meta]\nauthor = 'me'\n", "unknown key 'author' in [meta]", id="meta"),
        pytest.param("name = 'x'\n", "unknown section [name]", id="top-level-key"),
    ],
)
def test_unknown_sections_and_keys_are_refused_with_the_valid_ones(
    tmp_path: Path, toml: str, message: str
) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text(toml)
    with pytest.raises(LexiconError, match=re.escape(message)) as info:
        load_lexicon([extra])
    valid = sections()
    if "section" in message:
        assert all(name in str(info.value) for name in valid)
    else:
        section = message.split("[")[1].split("]")[0]
        assert all(key in str(info.value) for key in valid[section] or ())


def test_the_valid_sections_come_from_the_loader_s_own_tables() -> None:
    valid = sections()
    assert valid["yes_no"] is not None and "polar_starts" in valid["yes_no"]
    assert valid["synonyms"] is None and valid["meta"] == META_KEYS
    assert valid["complements"] == ("negative_prefixes", "variant_prefixes", "pairs")


def test_a_user_file_needs_no_license_or_version(tmp_path: Path) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text('[meta]\nname = "mine"\nsource = "test"\n')
    load_lexicon([extra])


def test_the_lexicon_readme_describes_every_section() -> None:
    readme = (Path(__file__).parents[1] / "lexicons" / "README.md").read_text(encoding="utf-8")
    missing = [name for name in sections() if f"`[{name}]`" not in readme]
    assert not missing, f"lexicons/README.md does not describe {missing}"
