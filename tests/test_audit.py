"""Auditing an LLM judge: planted disagreements, kappa by hand, impossible judge scores."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vqagrade.cli import app
from vqagrade.grader import Grader
from vqagrade.io.rows import InputRow
from vqagrade.records import FieldMap
from vqagrade.reports.audit import (
    SCALE,
    audit_rows,
    cohen_kappa,
    fail_under_agreement,
    read_judge_score,
)

EXAMPLE = Path(__file__).parents[1] / "examples" / "audit_sample.jsonl"
Q = "Is the lesion in the left or right kidney?"
# A pred whose rules score against gt "left" is 0, 0.5 and 1.
PRED_FOR = {0.0: "right", 0.5: "both kidneys", 1.0: "The left kidney."}
runner = CliRunner()


def _row(i: int, rules: float, judge: Any) -> dict[str, Any]:
    return {"id": f"r{i}", "question": Q, "gt": "left", "pred": PRED_FOR[rules], "judge": judge}


def _rows_for(matrix: list[list[int]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for i, r in enumerate(SCALE):
        for j, jv in enumerate(SCALE):
            rows += [_row(len(rows), r, jv) for _ in range(matrix[i][j])]
    return rows


# Worked by hand (n = 20; rules in rows, judge in columns):
#   row sums 8, 5, 7; column sums 7, 6, 7; p_o = 15/20
#   unweighted: p_e = (8*7 + 5*6 + 7*7)/400 = 135/400; kappa = (0.75 - 0.3375)/0.6625 = 33/53
#   linear |i-j|/2: observed 2.5/20, expected 185/400; kappa = 1 - 0.125/0.4625 = 27/37
#   quadratic ((i-j)/2)^2: observed 1.25/20, expected 145/400; kappa = 1 - 0.0625/0.3625 = 24/29
HAND = [[6, 2, 0], [1, 3, 1], [0, 1, 6]]


def test_kappas_match_the_hand_computation() -> None:
    result = audit_rows(_rows_for(HAND), "judge")
    st = result.stats
    assert st.compared == 20 and st.agree == 15 and st.disagreements == 5
    assert st.agreement == pytest.approx(0.75, abs=1e-12)
    assert st.kappa is not None and abs(st.kappa - 33 / 53) < 1e-9
    assert st.kappa_linear is not None and abs(st.kappa_linear - 27 / 37) < 1e-9
    assert st.kappa_quadratic is not None and abs(st.kappa_quadratic - 24 / 29) < 1e-9
    assert st.confusion == {
        "0": {"0": 6, "0.5": 2, "1": 0},
        "0.5": {"0": 1, "0.5": 3, "1": 1},
        "1": {"0": 0, "0.5": 1, "1": 6},
    }


def _kappa_from_pairs(pairs: list[tuple[int, int]], power: int | None) -> Fraction:
    """Weighted kappa straight from its definition over rated pairs, in exact fractions."""
    n = len(pairs)

    def w(a: int, b: int) -> Fraction:
        if power is None:
            return Fraction(int(a != b))
        return Fraction(abs(a - b), 2) ** power

    observed = sum(w(a, b) for a, b in pairs) / n
    expected = sum(w(a, b) for a, _ in pairs for _, b in pairs) / (n * n)
    return 1 - observed / expected


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(("weights", "power"), [(None, None), ("linear", 1), ("quadratic", 2)])
def test_cohen_kappa_agrees_with_its_definition(
    seed: int, weights: str | None, power: int | None
) -> None:
    rng = random.Random(seed)
    pairs = [(rng.randrange(3), rng.randrange(3)) for _ in range(rng.randrange(5, 60))]
    matrix = [[0] * 3 for _ in range(3)]
    for a, b in pairs:
        matrix[a][b] += 1
    got = cohen_kappa(matrix, weights)
    assert got is not None and abs(got - float(_kappa_from_pairs(pairs, power))) < 1e-9


def test_kappa_is_undefined_when_everything_is_one_category() -> None:
    assert cohen_kappa([[0, 0, 0], [0, 0, 0], [0, 0, 9]]) is None
    assert cohen_kappa([[0] * 3] * 3) is None
    with pytest.raises(ValueError, match="unknown weights"):
        cohen_kappa([[1, 0], [0, 1]], "cubic")


def test_planted_disagreements_are_found_exactly() -> None:
    rng = random.Random(7)
    rows = [_row(i, s, s) for i, s in enumerate(rng.choice(SCALE) for _ in range(300))]
    planted = set(rng.sample(range(300), 23))
    for i in planted:
        rows[i]["judge"] = rng.choice([v for v in SCALE if v != rows[i]["judge"]])
    result = audit_rows(rows, "judge")
    assert {d["id"] for d in result.disagreements} == {f"r{i}" for i in planted}
    assert result.stats.disagreements == 23 and result.stats.compared == 300


def test_the_example_file_has_its_seven_planted_disagreements() -> None:
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    result = audit_rows(rows, "judge")
    ids = {d["id"] for d in result.disagreements}
    assert ids == {"au-04", "au-08", "au-11", "au-16", "au-26", "au-29", "au-34"}


def test_most_suspicious_first() -> None:
    rows = [_row(0, 1.0, 0.5), _row(1, 0.5, 1), _row(2, 1.0, 0), _row(3, 0.0, 1), _row(4, 0.0, 0.5)]
    order = [d["id"] for d in audit_rows(rows, "judge").disagreements]
    # |diff| 1 first, a judge more generous than the rules before a harsher one; then order.
    assert order == ["r3", "r2", "r1", "r4", "r0"]


def test_disagreements_carry_the_rule_trace() -> None:
    (d,) = audit_rows([_row(0, 0.0, 1)], "judge").disagreements
    assert (d["rules_score"], d["judge_score"], d["diff"]) == (0.0, 1.0, 1.0)
    assert (d["gt_label"], d["pred_label"], d["rule"]) == ("A", "B", "mention")
    assert d["pred_trace"]["mentions"][0]["span"] == "right"
    assert d["options"] == ["left kidney", "right kidney"] and d["line"] == 1
    json.dumps(d)  # JSON-ready


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(1, (1.0, None), id="int-1"),
        pytest.param(0, (0.0, None), id="int-0"),
        pytest.param(0.5, (0.5, None), id="float-half"),
        pytest.param("1", (1.0, None), id="str-1"),
        pytest.param(" 0.5 ", (0.5, None), id="str-half"),
        pytest.param("{ score: 0.5 }", (0.5, None), id="gpt-reply"),
        pytest.param("{ mistralscore: 1 }", (1.0, None), id="mistral-reply"),
        pytest.param('{"score": "0"}', (0.0, None), id="json-reply"),
        pytest.param("I give it 1 star", (1.0, None), id="stars"),
        pytest.param({"score": 0.5}, (0.5, None), id="object"),
        pytest.param(None, (None, "missing"), id="none"),
        pytest.param("", (None, "empty"), id="empty"),
        pytest.param("   ", (None, "empty"), id="blank"),
        pytest.param("great", (None, "unparseable"), id="text"),
        pytest.param({"verdict": "good"}, (None, "unparseable"), id="object-no-score"),
        pytest.param(7, (None, "out_of_scale"), id="seven"),
        pytest.param("7", (None, "out_of_scale"), id="str-seven"),
        pytest.param(0.7, (None, "out_of_scale"), id="point-seven"),
        pytest.param(2, (None, "out_of_scale"), id="two"),
        pytest.param(-1, (None, "out_of_scale"), id="minus-one"),
        pytest.param("{ score: 2 }", (None, "out_of_scale"), id="reply-two"),
        pytest.param(math.nan, (None, "nan"), id="nan"),
        pytest.param("NaN", (None, "nan"), id="str-nan"),
        pytest.param(math.inf, (None, "nan"), id="inf"),
        pytest.param(True, (None, "wrong_type"), id="bool"),
        pytest.param([1], (None, "wrong_type"), id="list"),
    ],
)
def test_read_judge_score(value: Any, expected: tuple[float | None, str | None]) -> None:
    assert read_judge_score(value) == expected


def test_bad_judge_values_are_counted_never_compared() -> None:
    bad: list[Any] = ["", "great", 7, math.nan, "NaN", 0.7, None, [0], True]
    rows = [_row(i, 1.0, v) for i, v in enumerate(bad)] + [_row(99, 1.0, 1)]
    del rows[6]["judge"]  # missing altogether
    st = audit_rows(rows, "judge").stats
    assert st.invalid_judge == len(bad) and st.compared == 1 and st.disagreements == 0
    assert st.invalid_by_kind == {
        "empty": 1, "unparseable": 1, "out_of_scale": 2, "nan": 2, "missing": 1, "wrong_type": 2,
    }  # fmt: skip
    assert [e.id for e in st.invalid_examples] == [f"r{i}" for i in range(len(bad))]
    json.loads(st.model_dump_json())  # NaN never reaches the JSON
    assert "impossible judge scores by kind" in st.render()


def test_rows_the_rules_cannot_settle_or_read_are_counted_apart() -> None:
    rows: list[Any] = [
        {"question": Q, "gt": "left", "pred": "I cannot tell.", "judge": 1},
        {"question": "What organ?", "gt": "liver", "pred": "liver", "judge": 1},
        {"question": Q, "gt": "left", "judge": 1},
        InputRow(4, None, "invalid JSON", "{x"),
        InputRow(5, _row(5, 1.0, 0)),
    ]
    result = audit_rows(rows, "judge")
    st = result.stats
    assert (st.rows, st.rules_abstain, st.error_rows, st.compared) == (5, 2, 2, 1)
    assert result.disagreements[0]["line"] == 5


def test_a_nan_literal_line_is_read_not_lost() -> None:
    raw = json.dumps({"question": Q, "gt": "left", "pred": "left"})[:-1] + ', "judge": NaN}'
    st = audit_rows([InputRow(1, None, "invalid JSON", raw)], "judge").stats
    assert st.invalid_by_kind == {"nan": 1} and st.error_rows == 0


def test_explicit_options_and_remapped_fields() -> None:
    grader = Grader(fields=FieldMap(question="q", gt="answer", pred="output"))
    row = {
        "q": "Which one?",
        "answer": "T1",
        "output": "T2",
        "option_a": "T1",
        "option_b": "T2",
        "j": 1,
    }
    (d,) = audit_rows([row], "j", grader).disagreements
    assert d["options"] == ["T1", "T2"] and d["question"] == "Which one?" and d["gt"] == "T1"


def test_fail_under_agreement_message() -> None:
    st = audit_rows(_rows_for(HAND), "judge").stats
    assert fail_under_agreement(st, 0.75) is None
    msg = fail_under_agreement(st, 0.8)
    assert msg is not None and "0.7500 (15/20)" in msg and "\n" not in msg
    empty = audit_rows([], "judge").stats
    assert "no row could be compared" in (fail_under_agreement(empty, 0.1) or "")


# -- command line ---------------------------------------------------------------------------


def _write(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_cli_json_stats_and_disagreements_file(tmp_path: Path) -> None:
    src = _write(tmp_path, _rows_for(HAND))
    out = tmp_path / "dis.jsonl"
    res = runner.invoke(
        app, ["audit", str(src), "--judge-field", "judge", "-o", str(out), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    stats = json.loads(res.stdout)
    assert stats["disagreements"] == 5 and abs(stats["kappa"] - 33 / 53) < 1e-9
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 5 and all(x["kind"] == "disagreement" for x in lines)


def test_cli_text_output_names_the_weighting(tmp_path: Path) -> None:
    res = runner.invoke(app, ["audit", str(EXAMPLE), "--judge-field", "judge"])
    assert res.exit_code == 0, res.output
    assert "weighted kappa: linear" in res.stdout and "quadratic" in res.stdout
    assert "7 disagreements" in res.stdout
    assert "impossible judge scores 7" in res.stdout


def test_cli_fail_under_agreement(tmp_path: Path) -> None:
    src = _write(tmp_path, _rows_for(HAND))
    ok = runner.invoke(
        app, ["audit", str(src), "--judge-field", "judge", "--fail-under-agreement", "0.7"]
    )
    assert ok.exit_code == 0
    bad = runner.invoke(
        app, ["audit", str(src), "--judge-field", "judge", "--fail-under-agreement", "0.9"]
    )
    assert bad.exit_code == 1
    assert bad.stderr.strip().splitlines() == [
        "vqagrade: agreement 0.7500 (15/20) is below --fail-under-agreement 0.9"
    ]


def test_cli_remapped_fields_and_csv_with_bad_judge_cells(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(
        "uid,q,answer,output,llm\n"
        f'1,"{Q}",left,left,1\n'
        f'2,"{Q}",left,right,1\n'
        f'3,"{Q}",left,left,\n'
        f'4,"{Q}",left,left,NaN\n'
        f'5,"{Q}",left,left,great\n'
        f'6,"{Q}",left,left,7\n'
    )
    args = [
        "audit",
        str(src),
        "--judge-field",
        "llm",
        "--question-field",
        "q",
        "--gt-field",
        "answer",
    ]
    args += ["--pred-field", "output", "--id-field", "uid", "--format", "json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    assert (st["compared"], st["disagreements"], st["invalid_judge"]) == (2, 1, 4)
    assert st["invalid_by_kind"] == {"empty": 1, "nan": 1, "unparseable": 1, "out_of_scale": 1}


def test_cli_missing_input_is_one_line(tmp_path: Path) -> None:
    res = runner.invoke(app, ["audit", str(tmp_path / "nope.jsonl"), "--judge-field", "j"])
    assert res.exit_code == 2 and res.stderr.startswith("vqagrade: ")
