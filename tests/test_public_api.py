"""The public surface: every exported name resolves, and nothing else leaks."""

import vqagrade


def test_every_exported_name_resolves() -> None:
    for name in vqagrade.__all__:
        assert getattr(vqagrade, name) is not None, name


def test_all_matches_the_lazy_export_table() -> None:
    assert sorted(vqagrade.__all__) == sorted(vqagrade._EXPORTS)


def test_unknown_names_raise() -> None:
    try:
        vqagrade.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("unknown attribute did not raise")


def test_grade_round_trip() -> None:
    g = vqagrade.grade("Is the lesion in the left or right kidney?", "left", "Left kidney.")
    assert (g.score, g.method, g.gt_label, g.pred_label) == (
        1.0,
        vqagrade.Method.RULE,
        vqagrade.Label.A,
        vqagrade.Label.A,
    )
    assert g.options == ("left kidney", "right kidney")
