"""Answer labelling: one named case per rule, positive and adversarial."""

import pytest

from vqagrade import Label
from vqagrade.lexicon import default_lexicon
from vqagrade.rules.answer import label_answer
from vqagrade.rules.options import Options, extract_options

A, B, BOTH, NONE = Label.A, Label.B, Label.BOTH, Label.NONE

CASES = [
    # (id, question, answer, expected label or None for abstain, expected rule)
    ("bare-option", "Is the lesion in the left or right kidney?", "Left", A, "mention"),
    ("sentence", "Is this an MRI or a CT scan?", "This is a computed tomography image.", B, "mention"),
    ("synonym-renal", "Is the cyst in the kidney or the liver?", "A renal cyst.", A, "mention"),
    ("plural", "Is the nodule in the lung or the liver?", "Both lungs look clear; the liver has a nodule.", B, "mention"),
    ("letter", "Is this a PA or AP film?", "(b)", B, "letter"),
    ("letter-option", "Is this a PA or AP film?", "Option A", A, "letter"),
    ("final-answer", "Is the mass cystic or solid?", "It looks solid at first, but there is fluid. Final answer: cystic", A, "mention"),
    ("answer-tag", "Is the mass cystic or solid?", "<think>solid?</think><answer>cystic</answer>", A, "mention"),
    ("bold", "Is the mass cystic or solid?", "After review, the lesion is **solid**.", B, "mention"),
    ("conclusion", "Is the mass cystic or solid?", "Cystic lesions are dark. This one enhances. Therefore, it is solid.", B, "mention"),
    ("neg-then-assert", "Is the lesion on the left or right?", "No, the lesion is not on the left. It is on the right.", B, "mention"),
    ("neg-post-intact", "Is the fracture in the radius or the ulna?", "The radius is intact; the ulna is fractured.", B, "mention"),
    ("neg-left-alone", "Is the lesion on the left or right?", "It is not on the left.", None, "denial-only"),
    ("neg-complement", "Is this image normal or abnormal?", "There is no abnormality.", A, "complement"),
    ("neg-but-scope", "Is the effusion on the left or right?", "Not on the right but on the left.", A, "mention"),
    ("both-cue", "Is the effusion on the left or right?", "Bilateral effusions.", BOTH, "both-cue"),
    ("both-and", "Which organ is abnormal, heart or lung?", "The heart and the lung are abnormal.", BOTH, "both-and"),
    ("neither", "Is there a pneumothorax or an effusion?", "Neither.", NONE, "none-cue"),
    ("no-x-or-y", "Is there a pneumothorax or an effusion?", "There is no pneumothorax or effusion.", NONE, "both-denied"),
    ("owned-both", "Is the lung hyperinflated on one or both sides?", "bilateral", B, "mention"),
    ("hedge-or", "Is this a PA or AP film?", "It is PA or AP, hard to say.", None, "hedge"),
    ("hedge-could", "Is this a CT or MRI?", "This could be an MRI.", None, "hedge"),
    ("soft-hedge", "Is this a CT or MRI?", "This is likely an MRI.", B, "mention"),
    ("refusal", "Is the patient male or female?", "I'm sorry, I cannot see the image.", None, "refusal"),
    ("bare-yes", "Is this a CT or MRI?", "Yes", None, "yes-no"),
    ("yes-prefix", "Was a CT or MRI used?", "Yes, an MRI was used.", B, "mention"),
    ("role-tag", "Is the patient a female or male?", "Human: No, the patient is a male.", B, "mention"),
    ("truncated-or", "Are the bubbles normal or abnormal?", "The bubbles are normal or", None, "truncated"),
    ("nothing", "Is the lesion on the left or right?", "banana", None, "no-option"),
    ("junk", "Is the lesion on the left or right?", "(c) 2018 Regents. All rights reserved.", None, "junk"),
    ("substring-cleft", "Is the lesion on the left or right?", "There is a cleft palate.", None, "no-option"),
    ("substring-female", "Is the patient male or female?", "female", B, "mention"),
    ("substring-nodule", "Is this a PA or AP film?", "A nodule on a PA film.", A, "mention"),
    ("fuzzy-typo", "Is this a pneumonia or an abscess?", "pnuemonia", A, "mention"),
    ("fuzzy-blocked-near", "Is the lesion hyperdense or hypodense?", "hyperdnse", None, "no-option"),
    ("comparative", "Which is bigger in this image, liver or spleen?", "The spleen is smaller than the liver.", A, "comparative"),
    ("comparative-compared", "Which is smaller, colon or small bowel?", "The colon appears smaller compared to the small bowel.", A, "comparative"),
    ("comparative-negated", "Which is bigger, liver or spleen?", "The liver is not bigger than the spleen.", None, "comparative"),
    ("same-size", "Which is bigger, liver or spleen?", "They are about the same size.", None, "hedge"),
    ("empty", "Is this a CT or MRI?", "   ", None, "empty"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "answer", "label", "rule"),
    [pytest.param(q, a, lab, r, id=i) for i, q, a, lab, r in CASES],
)
def test_label(question: str, answer: str, label: Label | None, rule: str) -> None:
    lex = default_lexicon()
    opts = extract_options(question, lex)
    assert isinstance(opts, Options)
    v = label_answer(answer, opts, lex)
    assert (v.label, v.rule) == (label, rule), v.reason


def test_negation_is_recorded_on_the_mention() -> None:
    lex = default_lexicon()
    opts = extract_options("Is the lesion on the left or right?", lex)
    assert isinstance(opts, Options)
    v = label_answer("not the left, the right", opts, lex)
    assert v.label is B
    negated = [h for h in v.hits if h.negation]
    assert [h.option for h in negated] == [A] and negated[0].negation == "not"
