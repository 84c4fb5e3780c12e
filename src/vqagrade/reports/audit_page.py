"""The judge-audit page of the HTML report (see `vqagrade.report`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import charts as ch

if TYPE_CHECKING:
    from .audit import AuditResult

__all__ = ["audit_report_html"]


def _gap(d: Mapping[str, Any]) -> str:
    return f"Δ {abs(ch.number(d.get('diff')) or 0):g}"


def _trace_text(t: Any) -> str:
    if not isinstance(t, Mapping):
        return "not labelled"
    lines = [f"{t.get('label') or 'abstain'}  [{t.get('rule')}] {t.get('reason')}"]
    lines.append(f"read: {t.get('focus')!r}")
    for m in t.get("mentions") or []:
        neg = f" negated by {m.get('negation')!r}" if m.get("negated") else ""
        lines.append(f"mention: option {m.get('option')} {m.get('span')!r} ({m.get('via')}){neg}")
    lines += [f"cue: {c}" for c in t.get("cues") or []]
    return "\n".join(lines)


def _audit_cells(d: Mapping[str, Any]) -> list[str]:
    trace = (
        f"<details><summary>trace</summary><pre>gt: {ch.esc(_trace_text(d.get('gt_trace')))}"
        f"\npred: {ch.esc(_trace_text(d.get('pred_trace')))}"
        f"\njudge field: {ch.short(d.get('judge_raw'), 1000)}</pre></details>"
    )
    return [
        ch.badge(_gap(d), ch.COLORS["error"]),
        ch.short(d.get("id") if d.get("id") is not None else f"line {d.get('line')}", 120),
        ch.short(d.get("question")),
        ch.short(d.get("gt")),
        ch.short(d.get("pred")),
        ch.esc(ch.fmt(d.get("rules_score"))),
        ch.esc(ch.fmt(d.get("judge_score"))),
        ch.esc(f"{d.get('gt_label') or '-'} → {d.get('pred_label') or '-'}"),
        ch.esc(d.get("rule")),
        ch.short(d.get("reason"), 600) + trace,
    ]


def audit_report_html(
    disagreements: Sequence[Mapping[str, Any]],
    result: AuditResult | None = None,
    *,
    title: str = "vqagrade judge audit",
    source: str = "",
) -> str:
    """The HTML report of an audit: full figures with ``result``, else the file alone.

    Args:
        disagreements: the disagreement rows (``vqagrade audit -o``), most suspicious first.
        result: the whole audit, when the input was audited (adds agreement and kappas).
        title: the page title.
        source: where the rows came from (shown under the title).
    """
    from .audit import SCALE

    keys = [f"{v:g}" for v in SCALE]
    listed = [(_gap(d), _audit_cells(d)) for d in disagreements]
    kinds = sorted({kind for kind, _ in listed}, reverse=True)
    table = ch.listing(
        ["Δ", "id", "question", "gt", "pred", "rules", "judge", "labels", "rule", "reason"],
        listed[: ch.LISTING_LIMIT],
        kinds,
        total=len(listed),
    )
    sections: list[str] = []
    diag = {(k, k) for k in keys}
    if result is not None:
        st = result.stats

        def k(x: float | None) -> str:
            return "undefined" if x is None else f"{x:.3f}"

        sections.append(
            ch.cards(
                [
                    ("rows", str(st.rows), ""),
                    ("compared", str(st.compared), "rules decided, judge score valid"),
                    ("agreement", ch.pct(st.agree, st.compared), f"{st.agree}/{st.compared}"),
                    ("Cohen's kappa", k(st.kappa), "unweighted"),
                    (
                        "weighted kappa",
                        k(st.kappa_quadratic),
                        f"quadratic; linear {k(st.kappa_linear)}",
                    ),
                    ("disagreements", str(st.disagreements), ""),
                    ("impossible judge scores", str(st.invalid_judge), "not 0 / 0.5 / 1"),
                    ("rules abstain", str(st.rules_abstain), f"error rows {st.error_rows}"),
                ]
            )
        )
        confusion = ch.heatmap(keys, keys, st.confusion, corner="rules \\ judge", ok=diag)
        by_rule = ch.rate_bars([(n, b["agree"], b["n"]) for n, b in st.by_rule.items()])
        by_gt = ch.rate_bars([(n, b["agree"], b["n"]) for n, b in st.by_gt_label.items()])
        invalid = "".join(
            f"<tr><td>{ch.esc(kind)}</td><td>{n}</td></tr>"
            for kind, n in sorted(st.invalid_by_kind.items())
        )
        examples = "".join(
            f"<li>{ch.short(e.id if e.id is not None else f'line {e.line}', 80)}: "
            f"{ch.short(repr(e.value), 120)} ({ch.esc(e.kind)})</li>"
            for e in st.invalid_examples[:20]
        )
        bad = (
            f'<table class="rates">{invalid}</table><ul>{examples}</ul>'
            if invalid
            else '<p class="note">every judge score is 0, 0.5 or 1</p>'
        )
        sections += [
            '<div class="grid2">',
            ch.panel("Confusion matrix (rows: rules, columns: judge)", confusion),
            ch.panel("Agreement by the rule that labelled the prediction", by_rule),
            ch.panel("Agreement by gt label", by_gt),
            ch.panel("Impossible judge scores", bad),
            "</div>",
        ]
    else:
        cells: dict[str, dict[str, int]] = {}
        rules: Counter[str] = Counter()
        for d in disagreements:
            r, j = ch.fmt(d.get("rules_score")), ch.fmt(d.get("judge_score"))
            cells.setdefault(r, {})[j] = cells.get(r, {}).get(j, 0) + 1
            rules[str(d.get("rule"))] += 1
        sections += [
            ch.cards([("disagreements", str(len(disagreements)), "from the file alone")]),
            '<p class="note">Agreement and kappa need the audited input: '
            "<code>vqagrade report --audit IN --judge-field FIELD</code>.</p>",
            '<div class="grid2">',
            ch.panel(
                "Disagreements (rows: rules, columns: judge)",
                ch.heatmap(keys, keys, cells, corner="rules \\ judge"),
            ),
            ch.panel(
                "Disagreements by rule",
                ch.bar_chart(
                    [(n, c, ch.COLORS["error"]) for n, c in rules.most_common(8)],
                    label="by rule",
                ),
            ),
            "</div>",
        ]
    sections += ["<h2>Disagreements, most suspicious first</h2>", table]
    sub = f"judge audit · {ch.esc(source)}" if source else "judge audit"
    return ch.page(title, sub, sections)
