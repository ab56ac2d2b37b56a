"""The leaderboard as a Markdown document."""

from __future__ import annotations

from typing import Any

from harness.leaderboard import Board, adaptive, columns, game_title, pct, plural, rules_text

ALIGN = {"left": ":--", "center": ":-:", "right": "--:"}


def render(board: Board) -> str:
    """Standings, crosstable and the facts needed to reproduce them, as Markdown."""
    s = board.standings
    lines = [f"# {board.title}", ""]
    lines += [_facts(board), ""]
    cols = columns(board)
    lines += ["| " + " | ".join(c.title for c in cols) + " |",
              "|" + "|".join(ALIGN[c.justify] for c in cols) + "|"]
    lines += ["| " + " | ".join(c.doc_text(board, r) for c in cols) + " |" for r in s.rows]
    names = s.order
    lines += ["", "## Head to head", "",
              "Row entrant's win rate against the column entrant, with its 95% Wilson interval.", "",
              "| | " + " | ".join(names) + " |", "|:--|" + ":-:|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            c = s.cross.get((a, b))
            if a == b or c is None or c.rate is None:
                cells.append("·")
            else:
                lo, hi = c.interval
                cells.append(f"{pct(c.rate)} ({pct(lo)}–{pct(hi)}, n={c.games})")
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    if s.partners:
        lines += ["", "## With each partner", "",
                  "How often the row entrant's team finished first with the column entrant as partner.", "",
                  "| | " + " | ".join(names) + " |", "|:--|" + ":-:|" * len(names)]
        for a in names:
            cells = []
            for b in names:
                c = s.partners.get((a, b))
                cells.append("·" if c is None or c.rate is None else f"{pct(c.rate)} (n={c.games})")
            lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    lines += adaptive.markdown(board)  # issue 17
    model = s.model
    lines += [
        "", "## How this table is computed", "",
        f"TrueSkill with μ₀ = {model.mu:g}, σ₀ = {model.sigma:.4g}, β = {model.beta:.4g}, τ = {model.tau:.4g}, "
        f"draw probability {model.draw_probability:g}; each match updates both entrants, folded in schedule "
        "order. Sorted by μ − 3σ. *P(above next)* = Φ((μ₁ − μ₂)/√(σ₁² + σ₂²)), the probability that the "
        "entrant's skill is truly above the next one's. A duplicate pair is two matches on the same decks with "
        "the seats swapped: won = both won, split = one each. Failures count forfeits by cause; error also counts "
        "the errors a bot's SDK reported (its act() raised) while the match went on.",
        "",
    ]
    return "\n".join(lines)


def _facts(board: Board) -> str:
    m: dict[str, Any] = board.meta
    parts = [f"game: {game_title(board)}"]
    if "recorded" in m and "scheduled" in m:
        parts.append(f"{m['recorded']} of {plural(m['scheduled'], 'match', 'matches')}")
    if "rounds" in m:
        parts.append(plural(m["rounds"], "duplicate round robin"))
    if "seed" in m:
        parts.append(f"seed {m['seed']}")
    if "time" in m:
        parts.append(f"{m['time']['move']:g} s per move, {m['time']['bank']:g} s bank")
    parts.append(rules_text(board))
    return " · ".join(parts)
