"""The real labelled development data (skipped when ../shared is absent)."""

from pathlib import Path

import pytest

from vqagrade.reports.accuracy import read_labelled, run_bench

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "labeled" / "real_dev.jsonl"

pytestmark = pytest.mark.shared


@pytest.mark.skipif(not DEV.exists(), reason="../shared/data is not present")
def test_no_wrong_decision_and_high_coverage_on_real_dev() -> None:
    result = run_bench(read_labelled(str(DEV)))
    wrong = [d for d in result.details if d.kind == "wrong"]
    assert wrong == []
    assert result.coverage >= 0.90
