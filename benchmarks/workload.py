"""Generate a deterministic JSON lines workload for ``vqagrade score``.

About 2,000 distinct close-ended biomedical questions are built from templates and realistic
vocabularies (laterality, modalities, MRI sequences, planes and views, densities, lesion
character, SLAKE-style size comparisons, stains; ~5% three-option or yes/no-with-or
questions). Each row draws one question, a ground truth in a varied surface form, and a
prediction in one of many styles: short labels, sentences, negations, comparatives, hedges,
chain of thought ending in "Final answer: X", junk. A quarter of the predictions carry a
row-specific detail so that they are unique (defeating any per-string cache); the rest repeat.

    python benchmarks/workload.py --rows 1000000 -o benchmarks/out/workload.jsonl

Same ``--seed`` and ``--rows`` give byte-identical output.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).parent / "out" / "workload.jsonl"
N_QUESTIONS = 2000

FINDINGS = [
    "lesion", "mass", "nodule", "cyst", "tumor", "opacity", "calcification", "hematoma",
    "abscess", "infarct", "consolidation", "effusion", "fracture", "stone", "polyp",
]  # fmt: skip
PAIRED_ORGANS = [
    "kidney", "lung", "breast", "ovary", "adrenal gland", "hemisphere", "hip", "knee",
    "shoulder", "parotid gland", "thyroid lobe", "testis", "femur", "orbit",
]  # fmt: skip
SOLID_ORGANS = [
    "liver", "spleen", "pancreas", "left kidney", "right kidney", "heart", "bladder",
    "stomach", "left lung", "right lung", "brain", "gallbladder", "colon", "small bowel",
    "uterus", "prostate", "aorta",
]  # fmt: skip
MODALITIES = [
    ("CT", ["CT", "ct", "CT scan", "a CT", "computed tomography"]),
    ("MRI", ["MRI", "mri", "MR", "an MRI scan", "magnetic resonance imaging"]),
    ("X-ray", ["X-ray", "x-ray", "xray", "a radiograph", "plain film"]),
    ("ultrasound", ["ultrasound", "Ultrasound", "US", "sonography", "an ultrasound image"]),
    ("PET", ["PET", "pet", "a PET scan", "positron emission tomography"]),
    ("mammogram", ["mammogram", "Mammography", "a mammogram"]),
]
SEQUENCES = [
    ("T1-weighted", "T2-weighted", ["T1", "t1", "T1WI", "T1-weighted"], ["T2", "t2", "T2WI"]),
    ("T2-weighted", "FLAIR", ["T2", "T2-weighted", "t2"], ["FLAIR", "flair", "T2 FLAIR"]),
    ("DWI", "ADC", ["DWI", "diffusion-weighted", "dwi"], ["ADC", "ADC map", "adc"]),
    ("pre-contrast", "post-contrast", ["pre-contrast", "precontrast", "non-contrast"],
     ["post-contrast", "postcontrast", "contrast-enhanced"]),
    ("arterial phase", "venous phase", ["arterial", "arterial phase"], ["venous", "portal venous"]),
]  # fmt: skip
PLANES = [
    ("axial", "coronal"), ("axial", "sagittal"), ("coronal", "sagittal"),
    ("AP", "PA"), ("PA", "lateral"), ("supine", "erect"),
]  # fmt: skip
DENSITIES = [
    ("hyperintense", "hypointense", ["bright", "high signal"], ["dark", "low signal"]),
    ("hyperdense", "hypodense", ["high density", "denser"], ["low density", "less dense"]),
    ("hyperechoic", "hypoechoic", ["echogenic", "bright"], ["echo-poor", "dark"]),
    ("radiopaque", "radiolucent", ["opaque", "white"], ["lucent", "black"]),
]
CHARACTERS = [
    ("cystic", "solid"), ("benign", "malignant"), ("well-circumscribed", "ill-defined"),
    ("homogeneous", "heterogeneous"), ("normal", "abnormal"), ("acute", "chronic"),
    ("calcified", "non-calcified"), ("enhancing", "non-enhancing"),
]  # fmt: skip
STAINS = [
    ("H&E", "IHC"), ("Gram-positive", "Gram-negative"), ("H&E", "PAS"), ("Giemsa", "Wright"),
    ("low power", "high power"), ("squamous", "glandular"),
]  # fmt: skip
HEDGES = [
    "It could be either {a} or {b}.", "Cannot determine from this image.",
    "Possibly {x}, but I am not certain.", "Either {a} or {b}; the image is unclear.",
    "Hard to say, maybe {x}?", "I am unable to tell whether it is {a} or {b}.",
]  # fmt: skip
JUNK = [
    "", " ", "N/A", "asdf", "42", "?", "I'm sorry, I can't help with that.", "<image>",
    "The image shows a medical scan.", "Yes", "No", "null", "```", "Answer:",
]  # fmt: skip
DETAILS = [
    " (case {i})", " Measuring {mm} mm, study {i}.", " [accession {i}]",
    " Slice {mm} of series {i}.", " See report {i}.", " Size {mm} mm; case {i}.",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Question:
    """One question with the surface forms each answer may take."""

    text: str
    a: list[str]  # forms of option A, canonical first
    b: list[str]
    subject: str  # what a sentence answer talks about ("the lesion", "this image")
    frame: str  # sentence family: side, modality, attribute, compare, three, yesno
    both: list[str] | None = None  # forms of "both"/"none" when they make sense
    none: list[str] | None = None


def _an(word: str) -> str:
    return ("an " if word[0].lower() in "aeiou" or word[:2] in ("MR", "X-") else "a ") + word


def _side_questions() -> Iterator[Question]:
    for finding in FINDINGS:
        for organ in PAIRED_ORGANS:
            plural = organ + ("es" if organ.endswith("s") else "s")
            a = ["left", f"left {organ}", f"the left {organ}", "Left", "LEFT", "left side"]
            b = ["right", f"right {organ}", f"the right {organ}", "Right", "R", "right-sided"]
            both = ["both", "bilateral", f"both {plural}", "Both sides"]
            none = ["neither", "none", f"no {finding}", "Neither side"]
            s = f"the {finding}"
            yield Question(f"Is the {finding} in the left or right {organ}?", a, b, s, "side",
                           both, none)  # fmt: skip
            yield Question(f"Which {organ} contains the {finding}, the left or the right?",
                           a, b, s, "side", both, none)  # fmt: skip
            yield Question(f"Is the {finding} located in the right {organ} or the left {organ}?",
                           b, a, s, "side", both, none)  # fmt: skip


def _pair_questions() -> Iterator[Question]:
    for (m1, f1), (m2, f2) in (
        (x, y) for i, x in enumerate(MODALITIES) for y in MODALITIES[i + 1 :]
    ):
        s = "this image"
        for p, q, fp, fq in ((m1, m2, f1, f2), (m2, m1, f2, f1)):
            yield Question(f"Is this {_an(p)} or {_an(q)}?", fp, fq, s, "modality")
            yield Question(f"Was this image taken with {p} or {q}?", fp, fq, s, "modality")
            yield Question(f"Which modality is shown, {p} or {q}?", fp, fq, s, "modality")
    for p, q, fp, fq in SEQUENCES:
        for organ in ("brain", "spine", "knee", "liver", "pelvis", "abdomen"):
            yield Question(f"Is this {organ} MRI {p} or {q}?", [p, *fp], [q, *fq],
                           "this sequence", "modality")  # fmt: skip
            yield Question(f"Is this {q} or {p} imaging of the {organ}?", [q, *fq], [p, *fp],
                           "this sequence", "modality")  # fmt: skip
    for p, q in PLANES:
        for organ in ("chest", "head", "abdomen", "spine", "pelvis", "neck"):
            fp, fq = [p, p.lower(), f"{p} view"], [q, q.upper(), f"{q} plane"]
            yield Question(f"Is this {organ} image {p} or {q}?", fp, fq, "the view", "attribute")
            yield Question(f"In which plane is this {organ} scan, {q} or {p}?", fq, fp,
                           "the plane", "attribute")  # fmt: skip


def _attribute_questions() -> Iterator[Question]:
    for finding in FINDINGS:
        s = f"the {finding}"
        for p, q, fp, fq in DENSITIES:
            yield Question(f"Is the {finding} {p} or {q}?", [p, *fp], [q, *fq], s, "attribute")
        for p, q in CHARACTERS:
            fp, fq = [p, p.capitalize(), p.upper()], [q, q.capitalize(), f"{q}-appearing"]
            yield Question(f"Is the {finding} {p} or {q}?", fp, fq, s, "attribute")
            for organ in SOLID_ORGANS[::3]:
                yield Question(f"Does the {finding} in the {organ} look {q} or {p}?", fq, fp,
                               s, "attribute")  # fmt: skip
    for p, q in STAINS:
        for tissue in ("this slide", "this smear", "the specimen", "this section"):
            fp, fq = [p, p.lower(), f"{p} stain"], [q, q.lower(), f"{q} staining"]
            yield Question(f"Is {tissue} {p} or {q}?", fp, fq, tissue, "attribute")


def _compare_questions() -> Iterator[Question]:
    organs = SOLID_ORGANS
    for i, x in enumerate(organs):
        for y in organs[i + 1 :]:
            for word in ("bigger", "smaller", "larger"):
                fx, fy = [x, x.capitalize(), f"the {x}", f"The {x}."], [y, f"the {y}", y.upper()]
                text = f"Which is {word} in this image, {x} or {y}?"
                yield Question(text, fx, fy, word, "compare")


def _odd_questions() -> Iterator[Question]:
    for finding in FINDINGS:
        for organ in PAIRED_ORGANS[:8]:
            plural = organ + "s"
            yield Question(f"Is the {finding} in the left, right, or both {plural}?",
                           ["left", "Left"], ["right", "Right"], f"the {finding}", "three",
                           ["both", "bilateral"])  # fmt: skip
        yield Question(f"Is there a {finding} or not?", ["yes", "Yes"], ["no", "No"],
                       f"a {finding}", "yesno")  # fmt: skip
        yield Question(f"Is there evidence of a {finding} or an effusion?", ["yes", "Yes"],
                       ["no", "No"], f"a {finding}", "yesno")  # fmt: skip


def build_questions(rng: random.Random, count: int = N_QUESTIONS) -> list[Question]:
    """Pick ``count`` distinct questions: ~95% two-option, ~5% three-option or yes/no."""
    main: dict[str, Question] = {}
    for gen in (_side_questions, _pair_questions, _attribute_questions, _compare_questions):
        for q in gen():
            main.setdefault(q.text, q)
    odd = {q.text: q for q in _odd_questions()}
    n_odd = count // 20
    picked = rng.sample(list(main.values()), count - n_odd) + rng.sample(list(odd.values()), n_odd)
    rng.shuffle(picked)
    return picked


def _sentence(q: Question, x: str, y: str, rng: random.Random) -> str:
    s, cap = q.subject, q.subject[:1].upper() + q.subject[1:]
    if q.frame == "compare":
        word = s
        return rng.choice(
            [
                f"The {x} is {word}.",
                f"{x.capitalize()} appears {word} than the {y}.",
                f"In this image the {x} is {word} than the {y}.",
                f"{x.capitalize()}.",
            ]
        )
    if q.frame == "side":
        return rng.choice(
            [f"{cap} is in the {x}.", f"It is located on the {x}.", f"The {x} is affected.",
             f"{cap} is seen in the {x} region.", f"{x.capitalize()}."]
        )  # fmt: skip
    if q.frame == "modality":
        return rng.choice(
            [f"This is {_an(x)} image.", f"The image was acquired with {x}.",
             f"It looks like {x}.", f"{x}"]
        )  # fmt: skip
    return rng.choice(
        [f"{cap} is {x}.", f"{cap} appears {x}.", f"The answer is {x}.", f"It is {x}.",
         f"{x.capitalize()}, consistent with the findings."]
    )  # fmt: skip


def _negation(q: Question, x: str, y: str, rng: random.Random) -> str:
    if q.frame in ("side", "three", "compare"):
        return rng.choice(
            [f"Not the {y}, the {x}.", f"There is nothing on the {y}; {x}.",
             f"The {y} is not it. {x}.", f"{x}, not the {y}."]
        )  # fmt: skip
    return rng.choice(
        [f"It is not {y}; it is {x}.", f"No, not {y}. {x}.", f"{x}, not {y}.",
         f"Not {y}. The answer is {x}."]
    )  # fmt: skip


def _chain_of_thought(q: Question, x: str, y: str, rng: random.Random) -> str:
    steps = [
        "Let me look at the image carefully.",
        f"The question asks: {q.text}",
        f"First, consider whether it could be {y}.",
        f"The features do not support {y}.",
        f"The appearance of {q.subject} fits {x} better.",
    ]
    body = " ".join(steps[: rng.randint(2, 5)])
    ending = rng.choice(
        [f"Final answer: {x}", f"Final Answer: **{x}**", f"Therefore, the answer is {x}.",
         f"So the answer is: {x}"]
    )  # fmt: skip
    return f"{body}\n{ending}"


def _answer_pair(q: Question, label: str, rng: random.Random) -> tuple[str, str]:
    """Surface forms (chosen, other) for a label A or B."""
    if label == "A":
        return rng.choice(q.a), q.b[0]
    return rng.choice(q.b), q.a[0]


def _pred(q: Question, gt_label: str, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.70:
        label = gt_label if gt_label in ("A", "B") else rng.choice("AB")
    elif r < 0.88:
        label = {"A": "B", "B": "A"}.get(gt_label, "A")
    elif r < 0.93 and (q.both or q.none):
        options = [f for f in (q.both, q.none) if f]
        return rng.choice(rng.choice(options))
    elif r < 0.96:
        return rng.choice(HEDGES).format(a=q.a[0], b=q.b[0], x=rng.choice([q.a[0], q.b[0]]))
    else:
        return rng.choice(JUNK)
    x, y = _answer_pair(q, label, rng)
    style = rng.random()
    if style < 0.35:
        return x
    if style < 0.65:
        return _sentence(q, x, y, rng)
    if style < 0.78:
        return _negation(q, x, y, rng)
    return _chain_of_thought(q, x, y, rng)


def _gt(q: Question, rng: random.Random) -> tuple[str, str]:
    r = rng.random()
    if q.both and r < 0.05:
        return "both", rng.choice(q.both)
    if q.none and r < 0.09:
        return "none", rng.choice(q.none)
    label = "A" if rng.random() < 0.5 else "B"
    forms = q.a if label == "A" else q.b
    return label, rng.choice(forms[:3]) if rng.random() < 0.8 else rng.choice(forms)


def generate(rows: int, seed: int = 0, *, distinct: bool = False) -> Iterator[dict[str, Any]]:
    """Yield ``rows`` workload rows (id, question, gt, pred), deterministic for a seed.

    ``distinct``: every pred carries a row-specific detail, so no two preds are equal (what
    verbose models produce; defeats the per-answer memo entirely)."""
    rng = random.Random(seed)
    questions = build_questions(rng)
    for i in range(rows):
        q = questions[rng.randrange(len(questions))]
        gt_label, gt = _gt(q, rng)
        pred = _pred(q, gt_label, rng)
        if rng.random() < 0.18 or distinct:  # plus ~7% naturally unique preds: ~25% in all
            pred += rng.choice(DETAILS).format(i=i + 100_000, mm=rng.randint(3, 90))
        yield {"id": f"w{i:07d}", "question": q.text, "gt": gt, "pred": pred}


def _dumper() -> Callable[[dict[str, Any]], bytes]:
    try:
        import orjson
    except ImportError:
        return lambda row: (json.dumps(row, ensure_ascii=False) + "\n").encode()
    option = orjson.OPT_APPEND_NEWLINE
    return lambda row: orjson.dumps(row, option=option)


def write_workload(path: Path, rows: int, seed: int = 0, *, distinct: bool = False) -> None:
    """Write the workload to ``path`` (parent folders created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = _dumper()
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb", buffering=1 << 20) as out:
        for row in generate(rows, seed, distinct=distinct):
            out.write(dump(row))
    tmp.replace(path)  # a half-written workload never looks complete


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--distinct", action="store_true", help="every pred unique")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    write_workload(args.output, args.rows, args.seed, distinct=args.distinct)
    took = time.perf_counter() - start
    size = args.output.stat().st_size / 1e6
    print(f"wrote {args.rows:,} rows ({size:.1f} MB) to {args.output} in {took:.1f} s",
          file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
