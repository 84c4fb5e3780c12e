"""HTML, CSS, inline SVG and a little JS for the self-contained report (no network at all)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from .. import __version__

# Rows listed in a report's searchable table at most (the page stays light in a browser).
LISTING_LIMIT = 5_000

COLORS = {
    "rule": "#2e7d32",
    "llm": "#1565c0",
    "unresolved": "#e0a100",
    "error": "#c62828",
    "score": "#3f51b5",
    "none": "#9e9e9e",
}

CSS = """
:root{--fg:#1d2330;--muted:#5f6b7a;--line:#dde3ea;--bg:#f6f8fa;--card:#fff;--accent:#3f51b5}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
 color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}
.sub{color:var(--muted);margin:0 0 18px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .v{font-size:22px;font-weight:600}.card .k{color:var(--muted);font-size:12px}
.card .n{color:var(--muted);font-size:11px}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:18px}
.panel{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.panel h3{margin:0 0 8px;font-size:14px}
table{border-collapse:collapse}
.heat td,.heat th{border:1px solid var(--line);padding:6px 10px;text-align:center;min-width:54px}
.heat th{background:#eef1f5;font-weight:600}.heat td small{display:block;opacity:.7}
.heat td.ok{outline:2px solid #2e7d32;outline-offset:-3px}
.rates{width:100%}.rates td{padding:3px 8px;border-bottom:1px solid var(--line)}
.bar{height:10px;background:#e8ebf0;border-radius:5px;min-width:60px;overflow:hidden}
.bar i{display:block;height:100%;background:var(--accent)}
.legend span{display:inline-block;margin-right:14px}
.legend b{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}
.note{color:var(--muted);font-size:12px}
.tools{display:flex;gap:10px;align-items:center;margin:8px 0;flex-wrap:wrap}
.tools input{flex:1;min-width:240px;padding:7px 10px;border:1px solid var(--line);border-radius:6px}
.tools select{padding:6px;border:1px solid var(--line);border-radius:6px}
.list{width:100%;background:var(--card);border:1px solid var(--line)}
.list th{position:sticky;top:0;background:#eef1f5;text-align:left}
.list td,.list th{padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
.list td{max-width:320px;overflow-wrap:anywhere}
.list td:nth-child(2){max-width:180px;word-break:break-all}
.badge{display:inline-block;padding:1px 7px;border-radius:9px;color:#fff;font-size:11px;
 white-space:nowrap}
details pre{white-space:pre-wrap;font-size:12px;margin:4px 0}
footer{color:var(--muted);font-size:12px;margin-top:30px}
"""

# Filters the listing by text and kind; `#q=...&kind=...` in the URL pre-fills the filter.
JS = """
(function () {
  var q = document.getElementById("q");
  var kind = document.getElementById("kind");
  var shown = document.getElementById("shown");
  var table = document.getElementById("list");
  if (!q || !kind || !table) { return; }
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
  function apply() {
    var t = q.value.trim().toLowerCase();
    var k = kind.value;
    var n = 0;
    rows.forEach(function (r, i) {
      var ok = (!k || r.getAttribute("data-kind") === k) && (!t || texts[i].indexOf(t) >= 0);
      r.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = String(n);
  }
  var params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  if (params.has("q")) { q.value = params.get("q"); }
  if (params.has("kind")) { kind.value = params.get("kind"); }
  q.addEventListener("input", apply);
  kind.addEventListener("change", apply);
  apply();
})();
"""


def esc(value: object) -> str:
    """HTML-escaped text (quotes too, so it is safe in attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def short(value: object, limit: int = 400) -> str:
    """Escaped text cut to ``limit`` characters."""
    text = "" if value is None else str(value)
    return esc(text if len(text) <= limit else text[: limit - 1] + "…")


def number(value: object) -> float | None:
    """A JSON number as a float; None for anything else (booleans included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def fmt(value: object) -> str:
    """A score for display: ``1``, ``0.5``, or ``null``."""
    n = number(value)
    return "null" if n is None else f"{n:g}"


def pct(part: float, whole: float) -> str:
    """A percentage, or n/a."""
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def page(title: str, subtitle: str, sections: Sequence[str]) -> str:
    """The whole HTML document."""
    body = "\n".join(sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body><main>"
        f'<h1>{esc(title)}</h1><p class="sub">{subtitle}</p>\n{body}\n'
        f"<footer>vqagrade {esc(__version__)} · self-contained report, no network access"
        f"</footer></main><script>{JS}</script></body></html>\n"
    )


def cards(items: Sequence[tuple[str, str, str]]) -> str:
    """Headline figures: (label, value, note) each."""
    out = [
        f'<div class="card"><div class="k">{esc(k)}</div><div class="v">{esc(v)}</div>'
        f'<div class="n">{esc(n)}</div></div>'
        for k, v, n in items
    ]
    return f'<div class="cards">{"".join(out)}</div>'


def panel(title: str, content: str) -> str:
    """A titled box."""
    return f'<div class="panel"><h3>{esc(title)}</h3>{content}</div>'


def bar_chart(bars: Sequence[tuple[str, int, str]], *, label: str) -> str:
    """A vertical bar chart as inline SVG: (category, count, colour) per bar."""
    width, height, pad, base = 420, 220, 28, 190
    top = max((c for _, c, _ in bars), default=0) or 1
    step = (width - 2 * pad) / max(len(bars), 1)
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{esc(label)}" xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{pad}" y1="{base}" x2="{width - pad}" y2="{base}" stroke="#b0b8c4"/>',
    ]
    for i, (name, count, color) in enumerate(bars):
        h = (base - 24) * count / top
        x = pad + i * step + step * 0.15
        w = step * 0.7
        cx = x + w / 2
        parts.append(
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'fill="{color}" rx="2"><title>{esc(name)}: {count}</title></rect>'
            f'<text x="{cx:.1f}" y="{base - h - 5:.1f}" font-size="11" '
            f'text-anchor="middle">{count}</text>'
            f'<text x="{cx:.1f}" y="{base + 16}" font-size="12" text-anchor="middle">'
            f"{esc(name)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def stacked_bar(parts: Sequence[tuple[str, int, str]]) -> str:
    """One horizontal bar split by share, as inline SVG, with a legend."""
    total = sum(c for _, c, _ in parts)
    svg = [
        '<svg viewBox="0 0 400 26" width="100%" role="img" aria-label="breakdown" '
        'xmlns="http://www.w3.org/2000/svg"><rect width="400" height="26" fill="#eef1f5" rx="4"/>'
    ]
    x = 0.0
    for name, count, color in parts:
        if not total or not count:
            continue
        w = 400 * count / total
        svg.append(
            f'<rect x="{x:.2f}" width="{w:.2f}" height="26" fill="{color}">'
            f"<title>{esc(name)}: {count} ({pct(count, total)})</title></rect>"
        )
        x += w
    svg.append("</svg>")
    legend = "".join(
        f'<span><b style="background:{color}"></b>{esc(name)} {count} ({pct(count, total)})</span>'
        for name, count, color in parts
    )
    return "".join(svg) + f'<p class="legend">{legend}</p>'


def heatmap(
    rows: Sequence[str],
    cols: Sequence[str],
    cells: Mapping[str, Mapping[str, int]],
    *,
    corner: str,
    notes: Mapping[tuple[str, str], str] | None = None,
    ok: set[tuple[str, str]] | None = None,
) -> str:
    """A count table shaded by count; ``notes`` adds small text, ``ok`` outlines cells."""
    top = max((cells.get(r, {}).get(c, 0) for r in rows for c in cols), default=0) or 1
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    out = [f'<table class="heat"><tr><th>{esc(corner)}</th>{head}</tr>']
    for r in rows:
        tds = []
        for c in cols:
            n = cells.get(r, {}).get(c, 0)
            alpha = 0.08 + 0.8 * n / top if n else 0
            fg = "#fff" if alpha > 0.55 else "inherit"
            cls = ' class="ok"' if ok and (r, c) in ok else ""
            note = (notes or {}).get((r, c))
            small = f"<small>{esc(note)}</small>" if note is not None else ""
            tds.append(
                f'<td{cls} style="background:rgba(63,81,181,{alpha:.2f});color:{fg}">'
                f"{n}{small}</td>"
            )
        out.append(f"<tr><th>{esc(r)}</th>{''.join(tds)}</tr>")
    out.append("</table>")
    return "".join(out)


def rate_bars(items: Sequence[tuple[str, int, int]]) -> str:
    """Agreement per group: (name, agreeing rows, rows) as a table with inline bars."""
    if not items:
        return '<p class="note">nothing to show</p>'
    out = ['<table class="rates">']
    for name, agree, n in items:
        share = agree / n if n else 0.0
        out.append(
            f"<tr><td>{esc(name)}</td><td>{agree}/{n}</td><td>{pct(agree, n)}</td>"
            f'<td style="width:40%"><div class="bar"><i style="width:{100 * share:.1f}%"></i>'
            "</div></td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def listing(
    columns: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
    kinds: Sequence[str],
    *,
    total: int,
) -> str:
    """The searchable table: (kind, cells as HTML) per row; the JS filters it."""
    options = '<option value="">all kinds</option>' + "".join(
        f'<option value="{esc(k)}">{esc(k)}</option>' for k in kinds
    )
    more = f" (the first {len(rows)} of {total} are listed)" if total > len(rows) else ""
    tools = (
        '<div class="tools"><input id="q" type="search" placeholder="filter: any text, id, '
        f'reason…" aria-label="filter"><select id="kind" aria-label="kind">{options}</select>'
        f'<span class="note"><span id="shown">{len(rows)}</span> shown{esc(more)}</span></div>'
    )
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join(
        f'<tr data-kind="{esc(kind)}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        for kind, cells in rows
    )
    table = f'<table class="list" id="list"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
    return tools + table + "</table>"


def badge(text: str, color: str) -> str:
    """A small coloured label."""
    return f'<span class="badge" style="background:{color}">{esc(text)}</span>'
