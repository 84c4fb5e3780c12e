"""Report panels about how much of a run was decided: coverage and the two means with their
intervals, the figures per group (``--group-by``) and why rows are undecided."""

from __future__ import annotations

from collections.abc import Sequence

from . import charts as ch
from .stats import CI_NOTE, Figures, Interval
from .summary import Summary

__all__ = ["figure_cards", "groups_panel", "hbar_chart", "interval_chart", "reasons_panel"]

_ROW_HEIGHT = 22


def figure_cards(s: Summary) -> list[tuple[str, str, str]]:
    """Cards: rows, decided, coverage, mean over decided rows, strict mean (with intervals)."""
    f = s.figures

    def note(ci: Interval | None, extra: str) -> str:
        return (f"95% CI {ci.render(3)}; " if ci is not None else "") + extra

    def value(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.4f}"

    return [
        ("rows", str(f.rows), ""),
        ("decided", str(f.decided), "by the rules or the judge"),
        ("coverage", value(f.coverage), note(f.coverage_ci, "Wilson")),
        (
            "mean score",
            value(f.mean),
            note(f.mean_ci, f"over {f.decided} decided rows, out of {s.full_marks:g}"),
        ),
        ("strict mean", value(f.strict_mean), note(f.strict_mean_ci, "undecided rows count 0")),
    ]


def interval_chart(
    items: Sequence[tuple[str, float | None, Interval | None]], *, label: str, high: float = 1.0
) -> str:
    """Horizontal bars with their 95% interval as a whisker, one per item, as inline SVG."""
    width, left, right = 560, 170, 60
    span = width - left - right
    height = _ROW_HEIGHT * len(items) + 28
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{ch.esc(label)}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (name, value, ci) in enumerate(items):
        y = 6 + i * _ROW_HEIGHT
        parts.append(
            f'<text x="{left - 8}" y="{y + 13}" font-size="12" text-anchor="end">'
            f"{ch.short(name, 28)}</text>"
        )
        if value is None:
            parts.append(f'<text x="{left}" y="{y + 13}" font-size="11">n/a</text>')
            continue
        w = span * value / high
        parts.append(
            f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="14" fill="{ch.COLORS["score"]}"'
            f' rx="2"><title>{ch.esc(name)}: {value:.4f}</title></rect>'
        )
        if ci is not None:
            lo, hi = left + span * ci.low / high, left + span * ci.high / high
            parts.append(
                f'<line x1="{lo:.1f}" y1="{y + 9}" x2="{hi:.1f}" y2="{y + 9}" stroke="#1d2330"/>'
                f'<line x1="{lo:.1f}" y1="{y + 4}" x2="{lo:.1f}" y2="{y + 14}" stroke="#1d2330"/>'
                f'<line x1="{hi:.1f}" y1="{y + 4}" x2="{hi:.1f}" y2="{y + 14}" stroke="#1d2330"/>'
            )
        parts.append(f'<text x="{left + span + 6}" y="{y + 13}" font-size="11">{value:.3f}</text>')
    base = 6 + len(items) * _ROW_HEIGHT + 14
    parts.append(
        f'<text x="{left}" y="{base}" font-size="10" fill="#5f6b7a">0</text>'
        f'<text x="{left + span}" y="{base}" font-size="10" fill="#5f6b7a" '
        f'text-anchor="end">{high:g}</text></svg>'
    )
    return "".join(parts)


def hbar_chart(items: Sequence[tuple[str, int]], *, label: str, color: str) -> str:
    """Horizontal bars of counts with long labels (reason kinds), as inline SVG."""
    width, left = 560, 300
    span = width - left - 50
    top = max((n for _, n in items), default=0) or 1
    height = _ROW_HEIGHT * len(items) + 8
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{ch.esc(label)}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (name, n) in enumerate(items):
        y = 4 + i * _ROW_HEIGHT
        w = span * n / top
        parts.append(
            f'<text x="{left - 8}" y="{y + 13}" font-size="11" text-anchor="end">'
            f"{ch.short(name, 48)}<title>{ch.esc(name)}</title></text>"
            f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="14" fill="{color}" rx="2">'
            f"<title>{ch.esc(name)}: {n}</title></rect>"
            f'<text x="{left + w + 5:.1f}" y="{y + 13}" font-size="11">{n}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _figures_row(name: str, f: Figures) -> str:
    cov, mean, strict = f.cells()
    return (
        f"<tr><td>{ch.esc(name)}</td><td>{f.rows}</td><td>{f.decided}</td>"
        f"<td>{ch.esc(cov)}</td><td>{ch.esc(mean)}</td><td>{ch.esc(strict)}</td></tr>"
    )


def groups_panel(s: Summary) -> str:
    """The per-group table and chart of mean with interval (empty without ``by``)."""
    if not s.by:
        return ""
    groups = sorted(s.groups.items())
    head = (
        f'<table class="heat groups"><tr><th>{ch.esc(", ".join(s.by))}</th><th>rows</th>'
        "<th>decided</th><th>coverage</th><th>mean (decided)</th><th>strict mean</th></tr>"
    )
    rows = [_figures_row(k, g.figures) for k, g in groups]
    rows.append(_figures_row("all rows", s.figures))
    high = s.full_marks
    means = interval_chart(
        [(k, g.figures.mean, g.figures.mean_ci) for k, g in groups],
        label="mean by group",
        high=high,
    )
    strict = interval_chart(
        [(k, g.figures.strict_mean, g.figures.strict_mean_ci) for k, g in groups],
        label="strict mean by group",
        high=high,
    )
    return f"<h2>By {ch.esc(', '.join(s.by))}</h2>" + ch.panel(
        "Figures per group",
        head + "".join(rows) + "</table>"
        f"<h3>mean over decided rows</h3>{means}<h3>strict mean</h3>{strict}"
        f'<p class="note">{CI_NOTE}</p>',
    )


def reasons_panel(s: Summary, limit: int = 15) -> str:
    """Why rows are undecided: a chart and a table of reason kinds."""
    reasons = list(s.reasons.items())
    if not reasons:
        return ch.panel("Why rows are undecided", '<p class="note">every row was decided</p>')
    shown = reasons[:limit]
    if len(reasons) > limit:
        shown.append((f"({len(reasons) - limit} other kinds)", sum(n for _, n in reasons[limit:])))
    chart = hbar_chart(shown, label="undecided rows by reason", color=ch.COLORS["unresolved"])
    table = ['<table class="heat reasons"><tr><th>reason</th><th>rows</th></tr>']
    table += [f"<tr><td>{ch.esc(k)}</td><td>{n}</td></tr>" for k, n in shown]
    table.append("</table>")
    return ch.panel("Why rows are undecided", chart + "".join(table))
