"""The scoring-run page of the HTML report (see `vqagrade.report`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import charts as ch
from .panels import figure_cards, groups_panel, reasons_panel
from .summary import Summary

__all__ = ["score_report_html"]

_LABELS = ("A", "B", "both", "none", "-")
_TRUTH = {
    ("A", "A"): "1", ("A", "B"): "0", ("A", "both"): "0.5", ("A", "none"): "0.5",
    ("B", "A"): "0", ("B", "B"): "1", ("B", "both"): "0.5", ("B", "none"): "0.5",
    ("both", "A"): "0.5", ("both", "B"): "0.5", ("both", "both"): "1", ("both", "none"): "0",
    ("none", "A"): "0.5", ("none", "B"): "0.5", ("none", "both"): "0", ("none", "none"): "1",
}  # fmt: skip
_METHODS = ("rule", "llm", "unresolved", "error")
_KIND_COLORS = {
    "unresolved": ch.COLORS["unresolved"],
    "error": ch.COLORS["error"],
    "wrong": "#6a1b9a",
    "partial": "#8d6e63",
}


@dataclass
class _Judge:
    rows: int = 0
    cached: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_seen: bool = False
    models: Counter[str] = field(default_factory=Counter)

    def add(self, row: Mapping[str, Any]) -> None:
        if row.get("judge_model") is None:
            return
        self.rows += 1
        self.cached += row.get("judge_cached") is True
        self.errors += row.get("method") == "error"
        self.models[f"{row.get('judge_model')} / {row.get('judge_prompt') or '?'}"] += 1
        for key in ("judge_prompt_tokens", "judge_completion_tokens"):
            n = row.get(key)
            if isinstance(n, int) and not isinstance(n, bool):
                self.tokens_seen = True
                if key == "judge_prompt_tokens":
                    self.prompt_tokens += n
                else:
                    self.completion_tokens += n


@dataclass
class _ScoreData:
    summary: Summary = field(default_factory=Summary)
    scores: Counter[float] = field(default_factory=Counter)
    judge: _Judge = field(default_factory=_Judge)
    listed: list[tuple[str, Sequence[str]]] = field(default_factory=list)
    listed_total: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


def _row_kind(row: Mapping[str, Any], full: float) -> str | None:
    method = row.get("method")
    if method in ("unresolved", "error"):
        return str(method)
    score = ch.number(row.get("score"))
    if score is None:
        return "error" if method not in _METHODS else None
    if score <= 0:
        return "wrong"
    return "partial" if score < full else None


def _score_cells(row: Mapping[str, Any], kind: str, fields: Sequence[str]) -> list[str]:
    id_f, q_f, gt_f, pred_f = fields
    ident = row.get(id_f)
    if ident is None:
        ident = f"line {row.get('line')}" if row.get("line") is not None else ""
    labels = f"{row.get('gt_label') or '-'} → {row.get('pred_label') or '-'}"
    reason = ch.short(row.get("reason"), 600)
    if row.get("judge_raw") is not None:
        reason += f"<details><summary>judge reply</summary><pre>{ch.short(row['judge_raw'], 2000)}"
        reason += "</pre></details>"
    if row.get("raw") is not None:
        reason += f"<details><summary>raw input</summary><pre>{ch.short(row['raw'], 2000)}</pre>"
        reason += "</details>"
    return [
        ch.badge(kind, _KIND_COLORS.get(kind, "#607d8b")),
        ch.short(ident, 120),
        ch.short(row.get(q_f)),
        ch.short(row.get(gt_f)),
        ch.short(row.get(pred_f)),
        ch.esc(ch.fmt(row.get("score"))),
        ch.esc(row.get("method")),
        ch.esc(labels),
        reason,
    ]


def _collect(
    rows: Iterable[Mapping[str, Any]],
    full: float | None,
    fields: Sequence[str],
    by: Sequence[str] = (),
) -> tuple[_ScoreData, float]:
    data = _ScoreData(summary=Summary(by=by))
    # Full marks (1 or 5) may only be known at the end, so the listing is gathered for both
    # and one is kept: memory stays bounded by the listing limit, whatever the input size.
    fulls = (full, full) if full is not None else (1.0, 5.0)
    kinds: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    held: tuple[list[tuple[str, Mapping[str, Any]]], ...] = ([], [])
    for row in rows:
        data.summary.add(dict(row))
        score = ch.number(row.get("score"))
        if score is not None and row.get("method") in ("rule", "llm"):
            data.scores[score] += 1
        data.judge.add(row)
        for i, marks in enumerate(fulls):
            kind = _row_kind(row, marks)
            if kind is not None:
                kinds[i][kind] += 1
                if len(held[i]) < ch.LISTING_LIMIT:
                    held[i].append((kind, row))
    data.summary.finish()
    if full is None:
        full = 5.0 if any(s > 1 for s in data.scores) else 1.0
    pick = fulls.index(full)
    data.kinds = kinds[pick]
    data.listed_total = sum(kinds[pick].values())
    data.listed = [(kind, _score_cells(row, kind, fields)) for kind, row in held[pick]]
    return data, full


def score_report_html(
    rows: Iterable[Mapping[str, Any]],
    *,
    title: str = "vqagrade report",
    source: str = "",
    full_marks: float | None = None,
    fields: Sequence[str] = ("id", "question", "gt", "pred"),
    by: Sequence[str] = (),
) -> str:
    """The HTML report of `vqagrade score` output rows.

    Args:
        rows: output rows (score, method, gt_label, pred_label, reason, judge fields...).
        title: the page title.
        source: where the rows came from (shown under the title).
        full_marks: 1 (two-option) or 5 (open-ended); default: 5 if any score exceeds 1.
        fields: the id, question, gt and pred field names.
        by: fields (dotted paths) to report figures per group of (``--group-by``).
    """
    data, full = _collect(rows, full_marks, fields, by)
    s = data.summary
    methods = {m: s.methods.get(m, 0) for m in _METHODS}
    judge = data.judge
    head = ch.cards(
        [
            *figure_cards(s),
            ("decided by rules", ch.pct(methods["rule"], s.rows), f"{methods['rule']} rows"),
            ("decided by the judge", str(methods["llm"]), ch.pct(methods["llm"], s.rows)),
            ("unresolved", str(methods["unresolved"]), ch.pct(methods["unresolved"], s.rows)),
            ("errors", str(methods["error"]), ch.pct(methods["error"], s.rows)),
            ("full marks", str(sum(c for v, c in data.scores.items() if v >= full)), ""),
        ]
    )
    bins = [float(i) for i in range(6)] if full > 1 else [0.0, 0.5, 1.0]
    extra = sorted(v for v in data.scores if v not in bins)
    bars = [(f"{v:g}", data.scores.get(v, 0), ch.COLORS["score"]) for v in [*bins, *extra]]
    bars.append(("no score", methods["unresolved"] + methods["error"], ch.COLORS["none"]))
    hist = ch.bar_chart(bars, label="score histogram")
    breakdown = ch.stacked_bar([(m, methods[m], ch.COLORS[m]) for m in _METHODS])
    if any(g != "-" or p != "-" for g, ps in s.table.items() for p in ps):
        heat = ch.heatmap(
            _LABELS, _LABELS, s.table, corner="gt \\ pred", notes=_TRUTH,
            ok={(a, a) for a in _LABELS[:4]},
        )  # fmt: skip
        heat += (
            '<p class="note">small figures: the truth-table score of the cell; '
            "- : not labelled (the rules abstained, or the row is unresolved or an error)</p>"
        )
    else:
        heat = '<p class="note">no labels (open-ended task, or nothing labelled)</p>'
    heat += _yes_no_heat(s.table)
    if judge.rows:
        tokens = (
            f"{judge.prompt_tokens} prompt + {judge.completion_tokens} completion tokens"
            if judge.tokens_seen
            else "tokens: not recorded in the rows (see the run's stderr summary)"
        )
        models = ", ".join(f"{m} ({n})" for m, n in judge.models.most_common())
        cost = (
            f"<p>{judge.rows} rows judged: {judge.rows - judge.cached} answered fresh, "
            f"{judge.cached} from the cache, {judge.errors} judge errors.</p>"
            f'<p>{ch.esc(tokens)}</p><p class="note">model / prompt: {ch.esc(models)}</p>'
        )
    else:
        cost = '<p class="note">no row went to an LLM judge</p>'
    kinds = [k for k in ("unresolved", "error", "wrong", "partial") if data.kinds[k]]
    counts = ", ".join(f"{k} {data.kinds[k]}" for k in kinds) or "none"
    table = ch.listing(
        ["kind", "id", "question", "gt", "pred", "score", "method", "labels", "reason"],
        data.listed,
        kinds,
        total=data.listed_total,
    )
    sections = [
        head,
        '<div class="grid2">',
        ch.panel("Score histogram", hist),
        ch.panel("Method breakdown", breakdown),
        ch.panel("gt × pred labels", heat),
        ch.panel("Judge cost", cost),
        ch.panel("By question kind", _kinds_table(s.kinds)),
        reasons_panel(s),
        "</div>",
        groups_panel(s),
        f'<h2>Rows to look at</h2><p class="note">{ch.esc(counts)}</p>',
        table,
    ]
    sub = f"scoring run · {ch.esc(source)}" if source else "scoring run"
    return ch.page(title, sub, sections)


_YES_NO = ("yes", "no", "-")


def _yes_no_heat(table: Mapping[str, Mapping[str, int]]) -> str:
    """The gt x pred table of yes/no rows (empty when there are none)."""
    if not any(k in table for k in ("yes", "no")):
        return ""
    notes = {("yes", "yes"): "1", ("yes", "no"): "0", ("no", "yes"): "0", ("no", "no"): "1"}
    ok = {("yes", "yes"), ("no", "no")}
    return "<h3>yes/no questions</h3>" + ch.heatmap(
        _YES_NO, _YES_NO, table, corner="gt \\ pred", notes=notes, ok=ok
    )


def _kinds_table(kinds: Mapping[str, Mapping[str, float | int | None]]) -> str:
    """Rows, decided rows and mean score per question kind."""
    out = ['<table class="heat"><tr><th>kind</th><th>rows</th><th>decided</th><th>mean</th></tr>']
    for k, c in sorted(kinds.items()):
        mean = "n/a" if c["mean"] is None else f"{c['mean']:.4f}"
        out.append(
            f"<tr><td>{ch.esc(k)}</td><td>{c['rows']}</td><td>{c['decided']}</td>"
            f"<td>{mean}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)
