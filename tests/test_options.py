"""Option extraction from question text."""

import pytest

from vqagrade.lexicon import default_lexicon
from vqagrade.rules.options import NotTwoOption, Options, build_options, extract_options

TWO = [
    ("Is the lesion in the left or right kidney?", ("left kidney", "right kidney")),
    ("Is this an MRI or a CT scan?", ("MRI", "CT scan")),
    ("Which is bigger in this image,liver or stomach?", ("liver", "stomach")),
    ("Which is smaller in this image, liver or right kidney?", ("liver", "right kidney")),
    ("Is this a T1 weighted or T2 weighted MRI image?", ("T1 weighted MRI image", "T2 weighted MRI image")),
    ("Was this image taken with or without contrast?", ("with contrast", "without contrast")),
    ("Is the lesion more or less dense than the liver?", ("more dense", "less dense")),
    ("Is this a pneumonia vs. pleural effusion?", ("pneumonia effusion", "pleural effusion")),
    ("What is denser, the lesion or the surrounding tissue?", ("lesion", "surrounding tissue")),
    ("Which is more likely? Cancer or hemorrhage?", ("Cancer", "hemorrhage")),
    ("Does this image use contrast or not?", ("contrast", "no contrast")),
    ("Which finding is shown? (A) pneumothorax (B) pleural effusion", ("pneumothorax", "pleural effusion")),
    ("Which view is this? A) PA B) AP", ("PA", "AP")),
    ("Are the bacteria Gram-positive or Gram-negative?", ("Gram-positive", "Gram-negative")),
    ("Is the mass in the liver regular or irregular in contour?", ("regular", "irregular")),
    ("Are the dark areas grey or white matter?", ("grey matter", "white matter")),
    ("Where is the spleen in this image, right or lower right?", ("right", "lower right")),
    ("On this radiograph, is the effusion on the left or the right?", ("left", "right")),
    ("Is the opacity found on top of the patient or within the patient?", ("on top of the patient", "within the patient")),
]  # fmt: skip

NOT_TWO = [
    ("Which is the biggest in this image, lung, liver or heart?", "multiple"),
    ("Are pleural opacities located on the left, right, or both sides of the lung?", "multiple"),
    ("Is this a T1 weighted, T2 weighted, or FLAIR image?", "multiple"),
    ("Do you favor a viral process or parasitic process or other?", "multiple"),
    ("What test or procedure might reveal the diagnosis?", "open"),
    ("How do you tell which side is R vs L?", "open"),
    ("Is there a mass in the liver?", "no_alternative"),
    ("", "empty"),
    ("Which is it? (A) left (B) right (C) both", "multiple"),
    ("What disease origin is the lesion(eg, vascular vs. neoplastic)?", "open"),
    ("Is the lesion of a known type, such as cyst or abscess?", "open"),
]


@pytest.mark.parametrize(("question", "expected"), [pytest.param(q, e, id=q[:48]) for q, e in TWO])
def test_two_options(question: str, expected: tuple[str, str]) -> None:
    opts = extract_options(question, default_lexicon())
    assert isinstance(opts, Options), opts
    assert opts.texts == expected


@pytest.mark.parametrize(
    ("question", "kind"), [pytest.param(q, k, id=q[:48] or "empty") for q, k in NOT_TWO]
)
def test_not_two_option(question: str, kind: str) -> None:
    opts = extract_options(question, default_lexicon())
    assert isinstance(opts, NotTwoOption)
    assert opts.kind == kind


def test_keys_drop_shared_and_generic_words() -> None:
    opts = extract_options("Is this an MRI or a CT scan?", default_lexicon())
    assert isinstance(opts, Options)
    assert opts.a.key == ("mri",) and opts.b.key == ("ct",)


def test_comparative_predicate_outside_options() -> None:
    lex = default_lexicon()
    bigger = extract_options("Which is bigger in this image, kidney or spleen?", lex)
    assert isinstance(bigger, Options) and bigger.predicate == ("size", 1)
    inside = extract_options("Is the heart smaller or larger than expected?", lex)
    assert isinstance(inside, Options) and inside.predicate is None


@pytest.mark.parametrize(
    ("a", "b", "complementary"),
    [("normal", "abnormal", True), ("contrast", "non-contrast", True), ("male", "female", True),
     ("left", "right", False), ("T1", "T2", False), ("symmetric", "asymmetric", True)],
)  # fmt: skip
def test_complementary_pairs(a: str, b: str, complementary: bool) -> None:
    opts = build_options(a, b, default_lexicon())
    assert isinstance(opts, Options)
    assert opts.complementary is complementary


def test_explicit_options_reject_empty() -> None:
    assert isinstance(build_options("", "right", default_lexicon()), NotTwoOption)
