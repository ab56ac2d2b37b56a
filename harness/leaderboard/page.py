"""The leaderboard as one self-contained HTML page: inline CSS and SVG, no scripts, no requests.

The page has the ranked table, the head-to-head crosstable as a heat map, and a chart of each
entrant's μ ± σ over the matches it played.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from harness.leaderboard import Board, Column, adaptive, columns, game_title, moment, p_above_text, pct, plural, rules_text
from harness.rating import CAUSE_COLUMN, Played, Row

PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5",
           "#9c6b4e", "#9498a0")
LOW, HIGH = (214, 96, 77), (33, 113, 181)  # heat map ends: losing (red), winning (blue)
LEAGUE_REFRESH_S = 30  # how often a league page reloads itself when the board does not say
MAX_POINTS = 300  # chart points per entrant; longer histories are thinned evenly

CSS = """
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--muted:#667085;--line:#e4e7ec;--accent:#4269d0;
--good:#1f7a4d;--bad:#b42318;--chip:#f2f4f7}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#171b22;--ink:#e6e8ec;--muted:#98a2b3;
--line:#2a303a;--accent:#7aa2ff;--good:#5fd39a;--bad:#ff8a7a;--chip:#222833}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-font-smoothing:antialiased}
main{max-width:1120px;margin:0 auto;padding:32px 20px 56px}
header h1{margin:0 0 4px;font-size:28px;letter-spacing:-.02em}
header p{margin:0;color:var(--muted)}
.facts{display:flex;flex-wrap:wrap;gap:8px;margin:14px 0 0;padding:0;list-style:none}
.facts li{background:var(--chip);border-radius:999px;padding:3px 12px;font-size:13px;color:var(--muted)}
.facts b{color:var(--ink);font-weight:600}
section{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:20px 22px;
margin-top:22px;box-shadow:0 1px 2px rgba(16,24,40,.05)}
h2{font-size:17px;margin:0 0 4px}
.sub{color:var(--muted);font-size:13px;margin:0 0 14px}
.wrap{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th{font-size:12.5px;letter-spacing:.01em;color:var(--muted);font-weight:600;
text-align:right;padding:8px;border-bottom:1px solid var(--line);white-space:nowrap}
td{padding:10px 8px;text-align:right;border-bottom:1px solid var(--line);white-space:nowrap}
tr:last-child td{border-bottom:0}
th.l,td.l{text-align:left}
td.rank{font-weight:700;color:var(--muted);width:2.5em}
tr.top td.rank{color:var(--accent)}
.name{font-weight:600}
td.who{white-space:normal;min-width:9em;max-width:22em}
.name,.legend li,table.heat th{overflow-wrap:anywhere}
table.heat th{white-space:normal;max-width:14em}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:8px;vertical-align:baseline}
.score{font-weight:700;font-size:16px}
.range{position:relative;width:110px;height:8px;background:var(--chip);border-radius:4px;display:inline-block;
vertical-align:middle}
.range i{position:absolute;top:0;height:8px;border-radius:4px;opacity:.85}
.range b{position:absolute;top:-3px;width:2px;height:14px;background:var(--ink)}
.pairs span{display:inline-block;min-width:1.6em;text-align:center;border-radius:6px;padding:0 4px;
margin-left:2px;font-size:13px}
.w{background:rgba(31,122,77,.14);color:var(--good)}.s{background:var(--chip);color:var(--muted)}
.lo{background:rgba(180,35,24,.12);color:var(--bad)}
.fail{color:var(--bad);font-size:13px}.none{color:var(--muted)}
.conf{font-weight:600}
table.heat td,table.heat th{text-align:center}
table.heat th.l{text-align:left}
table.heat tbody th{color:var(--ink);font-size:14px}
table.heat td{padding:8px 6px;border:2px solid var(--card);border-radius:8px;min-width:92px}
table.heat td.self{background:var(--chip);color:var(--muted)}
.cell-rate{font-weight:700;display:block;font-size:15px}
.cell-ci{font-size:11px;opacity:.85;display:block}
.matches{display:block;font-size:11px;margin-top:3px;line-height:1.9}
a.match{display:inline-block;min-width:1.5em;padding:0 3px;margin:0 1px;border-radius:4px;text-align:center;
color:inherit;background:rgba(127,127,127,.18);text-decoration:none;font-weight:600}
a.match:hover{outline:1px solid currentColor}
a.match.fail{color:var(--bad)}
span.fail .matches{display:inline}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:10px 0 0;padding:0;list-style:none;font-size:13px}
svg{width:100%;height:auto;display:block}
svg text{fill:var(--muted);font-size:12px;font-family:inherit}
svg .grid{stroke:var(--line);stroke-width:1}
svg .axis{stroke:var(--muted);stroke-width:1}
footer{color:var(--muted);font-size:13px;margin-top:26px;line-height:1.6}
footer code{background:var(--chip);padding:1px 5px;border-radius:4px}
@media (max-width:720px){.opt{display:none}main{padding:20px 12px 40px}header h1{font-size:23px}
section{padding:16px 12px}}
"""


def render(board: Board) -> str:
    """The whole page as a string."""
    colors = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(board.standings.order)}
    title = escape(board.title)
    every = refresh_s(board)
    return "".join([
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"refresh\" content=\"{every}\">" if every else "",
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        "<meta name=\"color-scheme\" content=\"light dark\">",
        f"<title>{title}</title><style>{CSS}</style></head><body><main>",
        _header(board),
        _ranking(board, colors),
        adaptive.html(board),  # issue 17
        _heatmap(board),
        _partners(board),
        _chart(board, colors),
        _footer(board),
        "</main></body></html>\n",
    ])


def _header(board: Board) -> str:
    m = board.meta
    facts = [f"game: <b>{escape(game_title(board))}</b>"]
    if "recorded" in m and "scheduled" in m:
        facts.append(f"<b>{m['recorded']}</b> of {plural(m['scheduled'], 'match', 'matches')}")
    if "rounds" in m:
        facts.append(f"<b>{m['rounds']}</b> duplicate round robin{'s' if m['rounds'] != 1 else ''}")
    if "seed" in m:
        facts.append(f"seed <b>{escape(str(m['seed']))}</b>")
    if "time" in m:
        facts.append(f"<b>{m['time']['move']:g} s</b> per move · {m['time']['bank']:g} s bank")
    facts.append(escape(rules_text(board)))
    every = refresh_s(board)
    if m.get("finished"):
        status = f"final · finished {moment(m['finished'])}"
    elif m.get("updated"):  # a league: rewritten after every round
        status = f"updated {moment(m['updated'])}"
    else:
        status = "in progress" + (f" · started {moment(m['created'])}" if m.get("created") else "")
    if every:
        status += f" · this page reloads itself every {every} s"
    sub = f"Sixty-Six Arena · {escape(status)}"
    items = "".join(f"<li>{f}</li>" for f in facts)
    return f"<header><h1>{escape(board.title)}</h1><p>{sub}</p><ul class=\"facts\">{items}</ul></header>"


def refresh_s(board: Board) -> int | None:
    """Seconds between reloads of a page that keeps changing (a league's), None for a finished one."""
    m = board.meta
    if m.get("finished"):
        return None
    if m.get("refresh_s"):
        return max(1, round(float(m["refresh_s"])))
    return LEAGUE_REFRESH_S if "league" in m else None


# The page's own markup for a column: header attributes and header text, and the cell. A column
# without an entry is shown as its label and plain text.
Cell = Callable[[Board, Row, dict[str, str], tuple[float, float]], str]


def _range(b: Board, r: Row, colors: dict[str, str], lo_hi: tuple[float, float]) -> str:
    """σ as a bar: μ ± 3σ on the common scale of every entrant, with μ marked."""
    lo, span = lo_hi[0], (lo_hi[1] - lo_hi[0]) or 1.0
    left, width, mid = (100 * (r.mu - 3 * r.sigma - lo) / span, 100 * 6 * r.sigma / span, 100 * (r.mu - lo) / span)
    return (f"<td class=\"opt l\" title=\"μ ± 3σ\"><span class=\"range\"><i style=\"left:{left:.1f}%;"
            f"width:{width:.1f}%;background:{colors[r.name]}\"></i><b style=\"left:{mid:.1f}%\"></b></span></td>")


def _failures(b: Board, r: Row, colors: dict[str, str], lo_hi: tuple[float, float]) -> str:
    linked = failed_matches(b, r.name)
    fails = ", ".join(f"{escape(k)} {v}" + _links(b, linked.get(k, []), "fail") for k, v in r.failures.items() if v)
    shown = f"<span class=fail>{fails}</span>" if fails else "<span class=none>none</span>"
    return f"<td class=\"l opt\">{shown}</td>"


def failed_matches(board: Board, name: str) -> dict[str, list[Played]]:
    """The matches behind each failure count of entrant ``name``, by failure column (issue 16)."""
    out: dict[str, list[Played]] = {}
    for p in sorted(board.played, key=lambda p: p.seq):
        if p.offender is not None and p.cause in CAUSE_COLUMN and p.players[p.offender] == name:
            out.setdefault(CAUSE_COLUMN[p.cause], []).append(p)
        if any(n and p.players[s] == name for s, n in enumerate(p.errors)):
            out.setdefault("error", []).append(p)
    return out


def matches_between(board: Board, a: str, b: str) -> list[Played]:
    """The matches where ``a`` and ``b`` played on opposite sides, in schedule order."""
    def opposed(p: Played) -> bool:
        teams = p.teams if p.teams is not None else tuple(range(len(p.players)))
        return a in p.players and b in p.players and teams[p.players.index(a)] != teams[p.players.index(b)]
    return [p for p in sorted(board.played, key=lambda p: p.seq) if opposed(p)]


MAX_INLINE_LINKS = 8  # more links than this fold into a <details>


def _links(board: Board, matches: list[Played], cls: str = "", mark: Callable[[Played], str] | None = None) -> str:
    """Links to the pages of ``matches`` (those that have one), numbered in order: "" when none has a page."""
    items = [f"<a class=\"match {cls}\" href=\"{escape(board.pages[p.match_id])}\" title=\"match "
             f"{escape(p.match_id)}{'' if p.cause == 'normal' else ' · ' + escape(p.cause)}\">"
             f"{escape(mark(p)) if mark else k}</a>"
             for k, p in enumerate(matches, 1) if p.match_id in board.pages]
    if not items:
        return ""
    if len(items) <= MAX_INLINE_LINKS:
        return f" <span class=\"matches\">{''.join(items)}</span>"
    return (f" <details class=\"matches\"><summary>{plural(len(items), 'match', 'matches')}</summary>"
            f"{''.join(items)}</details>")


HEAD: dict[str, tuple[str, str]] = {
    "entrant": (' class="l"', "Entrant"),
    "conservative": (' title="conservative rating"', "μ − 3σ"),
    "mu": (' class="opt"', "μ ± σ"),
    "sigma": (' class="opt l"', "Skill range"),
    "points": (' class="opt"', "Game pts"),
    "pairs": (' class="opt"', "Pairs W S L"),
    "failures": (' class="l opt"', "Failures"),
    "p_above_next": (' title="P(truly above the next)"', "Above next"),
}
CELLS: dict[str, Cell] = {
    "rank": lambda b, r, colors, lo_hi: f"<td class=\"rank\">{r.rank}</td>",
    "entrant": lambda b, r, colors, lo_hi: (
        f"<td class=\"l who\"><span class=\"dot\" style=\"background:{colors[r.name]}\"></span>"
        f"<span class=\"name\">{escape(r.name)}</span>"
        f"{' <span class=none>provisional</span>' if r.name in b.provisional else ''}</td>"),
    "conservative": lambda b, r, colors, lo_hi: f"<td class=\"score\">{r.score:.2f}</td>",
    "mu": lambda b, r, colors, lo_hi: f"<td class=\"opt\">{r.mu:.2f} <span class=\"none\">± {r.sigma:.2f}</span></td>",
    "sigma": _range,
    "points": lambda b, r, colors, lo_hi: f"<td class=\"opt\">{r.points_for} : {r.points_against}</td>",
    "pairs": lambda b, r, colors, lo_hi: (
        f"<td class=\"pairs opt\"><span class=\"w\" title=\"won\">{r.pairs_won}</span>"
        f"<span class=\"s\" title=\"split\">{r.pairs_split}</span>"
        f"<span class=\"lo\" title=\"lost\">{r.pairs_lost}</span></td>"),
    "failures": _failures,
    "p_above_next": lambda b, r, colors, lo_hi: (
        f"<td class=\"conf\">{'' if r.p_above is None else p_above_text(r)}</td>"),
}


def _head(c: Column) -> str:
    attrs, text = HEAD.get(c.key, ("", escape(c.label)))
    return f"<th{attrs}>{text}</th>"


def _cell(c: Column, b: Board, r: Row, colors: dict[str, str], lo_hi: tuple[float, float]) -> str:
    markup = CELLS.get(c.key)
    return markup(b, r, colors, lo_hi) if markup else f"<td>{escape(c.text(b, r))}</td>"


def _ranking(board: Board, colors: dict[str, str]) -> str:
    rows = board.standings.rows
    lo_hi = (min((r.mu - 3 * r.sigma for r in rows), default=0.0), max((r.mu + 3 * r.sigma for r in rows), default=1.0))
    body = [
        f"<tr class=\"{'top' if r.rank == 1 else ''}\" data-rank=\"{r.rank}\" data-name=\"{escape(r.name)}\">"
        + "".join(_cell(c, board, r, colors, lo_hi) for c in columns(board)) + "</tr>"
        for r in rows
    ]
    head = "<tr>" + "".join(_head(c) for c in columns(board)) + "</tr>"
    return (
        "<section id=\"ranking\"><h2>Standings</h2><p class=\"sub\">Sorted by the conservative rating μ − 3σ. "
        "<i>Above next</i> is the probability that the entrant's skill is truly above the next one's.</p>"
        f"<div class=\"wrap\"><table id=\"standings\"><thead>{head}</thead><tbody>{''.join(body)}</tbody>"
        "</table></div></section>"
    )


def heat_color(rate: float) -> str:
    """Background for a win rate: red below one half, blue above, clear at one half.

    >>> heat_color(0.5)
    'rgba(33,113,181,0.00)'
    """
    end = HIGH if rate >= 0.5 else LOW
    alpha = min(1.0, abs(rate - 0.5) * 2) * 0.85
    return f"rgba({end[0]},{end[1]},{end[2]},{alpha:.2f})"


def _partners(board: Board) -> str:
    """For rotating partnerships: how often each entrant's team finished first with each partner."""
    if not board.standings.partners:
        return ""
    names = board.standings.order
    head = "<tr><th class=\"l\">with</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"
    rows = []
    for a in names:
        cells = [f"<th class=\"l name\">{escape(a)}</th>"]
        for b in names:
            c = board.standings.partners.get((a, b))
            cells.append("<td class=\"self\">—</td>" if c is None or c.rate is None else
                         f"<td>{escape(pct(c.rate))}<small> ({c.games})</small></td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return ("<section id=\"partners\"><h2>With each partner</h2><p class=\"sub\">How often the row entrant's "
            "team finished first with the column entrant as partner.</p><div class=\"wrap\"><table>"
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></div></section>")


def _outcome(a: str, b: str) -> Callable[[Played], str]:
    """A match as the row entrant ``a`` ended it against ``b``: W (placed above), L (below) or = (tie, or no
    result)."""
    def mark(p: Played) -> str:
        if p.ranks is None:
            return "="
        ra, rb = p.ranks[p.players.index(a)], p.ranks[p.players.index(b)]
        return "W" if ra < rb else "L" if ra > rb else "="
    return mark


def _heatmap(board: Board) -> str:
    names = board.standings.order
    head = "<tr><th class=\"l\">vs</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"
    rows = []
    for a in names:
        cells = [f"<th class=\"l name\">{escape(a)}</th>"]
        for b in names:
            c = board.standings.cross.get((a, b))
            if a == b:
                cells.append("<td class=\"self\">—</td>")
            elif c is None or c.rate is None:
                cells.append("<td class=\"self\" data-games=\"0\">no games</td>")
            else:
                lo, hi = c.interval
                ink = "#fff" if abs(c.rate - 0.5) > 0.3 else "inherit"
                cells.append(
                    f"<td data-row=\"{escape(a)}\" data-col=\"{escape(b)}\" data-rate=\"{c.rate:.4f}\" "
                    f"style=\"background:{heat_color(c.rate)};color:{ink}\" "
                    f"title=\"{escape(a)} won {c.wins} of {c.games} against {escape(b)}\">"
                    f"<span class=\"cell-rate\">{pct(c.rate)}</span>"
                    f"<span class=\"cell-ci\">{pct(lo)}–{pct(hi)} · n={c.games}</span>"
                    f"{_links(board, matches_between(board, a, b), mark=_outcome(a, b))}</td>"
                )
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        "<section id=\"head-to-head\"><h2>Head to head</h2><p class=\"sub\">Row entrant's win rate against "
        "the column entrant, with its 95% Wilson interval. Blue: the row wins more often; red: less."
        f"{' Each W (won), L (lost) or = opens that match, decision by decision.' if board.pages else ''}</p>"
        f"<div class=\"wrap\"><table class=\"heat\" id=\"crosstable\"><thead>{head}</thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _thin(points: list[tuple[int, float, float]]) -> list[tuple[int, float, float]]:
    if len(points) <= MAX_POINTS:
        return points
    step = (len(points) - 1) / (MAX_POINTS - 1)
    return [points[round(i * step)] for i in range(MAX_POINTS)]


def _ticks(lo: float, hi: float, want: int = 5) -> list[float]:
    raw = (hi - lo) / want or 1.0
    mag = 10 ** math.floor(math.log10(raw))
    step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    start = step * math.ceil(lo / step)
    out, v = [], start
    while v <= hi + 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def _chart(board: Board, colors: dict[str, str]) -> str:
    hist = {n: _thin(board.standings.history.get(n, [])) for n in board.standings.order}
    pts = [p for h in hist.values() for p in h]
    if not pts:
        return ""
    w, h, left, right, top, bottom = 960, 360, 52, 16, 14, 40
    xmax = max(p[0] for p in pts) or 1
    ylo = min(p[1] - p[2] for p in pts)
    yhi = max(p[1] + p[2] for p in pts)
    pad = (yhi - ylo) * 0.05 or 1.0
    ylo, yhi = ylo - pad, yhi + pad

    def x(v: float) -> float:
        return left + (w - left - right) * v / xmax

    def y(v: float) -> float:
        return top + (h - top - bottom) * (yhi - v) / (yhi - ylo)

    parts = [f"<svg id=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"mu plus or minus sigma "
             "over matches played\">"]
    for t in _ticks(ylo, yhi):
        parts.append(f"<line class=\"grid\" x1=\"{left}\" x2=\"{w - right}\" y1=\"{y(t):.1f}\" y2=\"{y(t):.1f}\"/>"
                     f"<text x=\"{left - 8}\" y=\"{y(t) + 4:.1f}\" text-anchor=\"end\">{t:g}</text>")
    for t in _ticks(0, xmax, 8):
        if t == int(t):
            parts.append(f"<text x=\"{x(t):.1f}\" y=\"{h - bottom + 18}\" text-anchor=\"middle\">{int(t)}</text>")
    parts.append(f"<line class=\"axis\" x1=\"{left}\" x2=\"{w - right}\" y1=\"{h - bottom}\" y2=\"{h - bottom}\"/>"
                 f"<text x=\"{(left + w - right) / 2:.0f}\" y=\"{h - 4}\" text-anchor=\"middle\">matches played</text>"
                 f"<text x=\"14\" y=\"{top + (h - top - bottom) / 2:.0f}\" text-anchor=\"middle\" "
                 f"transform=\"rotate(-90 14 {top + (h - top - bottom) / 2:.0f})\">μ</text>")
    for n in reversed(board.standings.order):
        hs = hist[n]
        if not hs:
            continue
        upper = " ".join(f"{x(m):.1f},{y(mu + s):.1f}" for m, mu, s in hs)
        lower = " ".join(f"{x(m):.1f},{y(mu - s):.1f}" for m, mu, s in reversed(hs))
        line = " ".join(f"{'M' if i == 0 else 'L'}{x(m):.1f},{y(mu):.1f}" for i, (m, mu, _) in enumerate(hs))
        last = hs[-1]
        parts.append(
            f"<g class=\"series\" data-entrant=\"{escape(n)}\"><title>{escape(n)}: μ {last[1]:.2f} ± {last[2]:.2f} "
            f"after {plural(last[0], 'match', 'matches')}</title>"
            f"<polygon points=\"{upper} {lower}\" fill=\"{colors[n]}\" fill-opacity=\"0.16\"/>"
            f"<path d=\"{line}\" fill=\"none\" stroke=\"{colors[n]}\" stroke-width=\"2.2\" "
            "stroke-linejoin=\"round\" stroke-linecap=\"round\"/>"
            f"<circle cx=\"{x(last[0]):.1f}\" cy=\"{y(last[1]):.1f}\" r=\"3.5\" fill=\"{colors[n]}\"/></g>"
        )
    parts.append("</svg>")
    legend = "".join(
        f"<li><span class=\"dot\" style=\"background:{colors[n]}\"></span>{escape(n)}</li>"
        for n in board.standings.order
    )
    return (
        "<section id=\"history\"><h2>Rating over time</h2><p class=\"sub\">Each entrant's μ (line) and "
        f"μ ± σ (band) after each of its matches.</p>{''.join(parts)}<ul class=\"legend\">{legend}</ul></section>"
    )


def _footer(board: Board) -> str:
    model = board.standings.model
    m = board.meta
    seed_text = (" The seed of every finished match is in <code>leaderboard.json</code>."
                 if m.get("match_seeds") else "")
    return (
        "<footer>TrueSkill with μ₀ = "
        f"{model.mu:g}, σ₀ = {model.sigma:.4g}, β = {model.beta:.4g}, τ = {model.tau:.4g}, draw probability "
        f"{model.draw_probability:g}. Each match updates both entrants; matches are folded in schedule order, "
        "so the table does not depend on which match finished first. Above next = Φ((μ₁ − μ₂)/√(σ₁² + σ₂²)). "
        "A duplicate pair is two matches on the same decks with the seats swapped (won = both, split = one "
        f"each). Failures count forfeits by cause; <i>error</i> also counts the errors a bot's SDK "
        f"reported (its act() raised) while the match went on.{seed_text} The file <code>leaderboard.json</code> next to "
        "this page holds every match outcome and parameter needed to recompute it.</footer>"
    )
