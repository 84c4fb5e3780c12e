"""Properties that must hold for any input: symmetry, determinism, no crashes."""

from hypothesis import given, settings
from hypothesis import strategies as st

from vqagrade import Grader, Label
from vqagrade.lexicon import default_lexicon
from vqagrade.rules.answer import label_answer
from vqagrade.rules.options import Options, build_options

PAIRS = [
    ("left kidney", "right kidney"),
    ("CT", "MRI"),
    ("hyperdense", "hypodense"),
    ("T1", "T2"),
    ("liver", "spleen"),
    ("cystic", "solid"),
    ("normal", "abnormal"),
    ("male", "female"),
    ("PA", "AP"),
    ("benign", "malignant"),
]
FRAGMENTS = [
    "the", "left", "right", "kidney", "CT", "MRI", "not", "no", "both", "neither", "and", "or",
    "is", "larger", "smaller", "than", "hyperdense", "hypodense", "T1", "T2", "liver", "spleen",
    "cystic", "solid", "normal", "abnormal", "male", "female", "PA", "AP", "benign", "malignant",
    ",", ".", "Final answer:", "**", "bilateral", "without", "yes", "could be", "appears",
]  # fmt: skip

answers = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(pair=st.sampled_from(PAIRS), text=answers)
def test_swapping_options_swaps_labels(pair: tuple[str, str], text: str) -> None:
    lex = default_lexicon()
    ab = build_options(pair[0], pair[1], lex)
    ba = build_options(pair[1], pair[0], lex)
    assert isinstance(ab, Options) and isinstance(ba, Options)
    x = label_answer(text, ab, lex).label
    y = label_answer(text, ba, lex).label
    assert (x.swapped() if isinstance(x, Label) else None) == y


@settings(max_examples=200, deadline=None)
@given(pair=st.sampled_from(PAIRS), gt=answers, pred=answers)
def test_grading_is_deterministic(pair: tuple[str, str], gt: str, pred: str) -> None:
    q = f"Is it {pair[0]} or {pair[1]}?"
    first = Grader().grade(q, gt, pred).model_dump()
    second = Grader().grade(q, gt, pred).model_dump()
    assert first == second


@settings(max_examples=400, deadline=None)
@given(question=st.text(max_size=200), gt=st.text(max_size=200), pred=st.text(max_size=400))
def test_no_input_string_crashes(question: str, gt: str, pred: str) -> None:
    g = Grader().grade(question, gt, pred)
    assert g.method.value in {"rule", "unresolved"}
    assert (g.score is None) == (g.method.value != "rule")


@settings(max_examples=300, deadline=None)
@given(pair=st.sampled_from(PAIRS), pred=st.text(max_size=300))
def test_no_answer_crashes_the_labeller(pair: tuple[str, str], pred: str) -> None:
    lex = default_lexicon()
    opts = build_options(pair[0], pair[1], lex)
    assert isinstance(opts, Options)
    v = label_answer(pred, opts, lex)
    assert v.label is None or v.label in Label
