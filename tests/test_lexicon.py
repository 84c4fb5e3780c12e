"""Every shipped lexicon loads, carries its source, and user files extend it."""

from pathlib import Path

import pytest

from vqagrade import Grader
from vqagrade.errors import LexiconError
from vqagrade.lexicon import load_lexicon, shipped_files


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
