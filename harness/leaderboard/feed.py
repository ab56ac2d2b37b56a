"""The leaderboard as JSON: the standings plus everything needed to recompute them.

``document(board)`` holds the tournament's seeds, rules and time control, the rating
parameters and every match outcome; :func:`recompute` rebuilds the standings from it alone.
"""

from __future__ import annotations

import json
from typing import Any

from harness.leaderboard import Board, game_id, game_title, pct, row_data
from harness.rating import Model, Played, Standings, standings

FORMAT = "sixtysix-arena/leaderboard"
VERSION = 1


def document(board: Board) -> dict[str, Any]:
    s = board.standings
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": board.title,
        "game": game_id(board),
        "game_title": game_title(board),
        "rule_changes": list(board.meta.get("rule_changes") or []),
        "tournament": board.meta,
        "percentages": "texts (*_text, text) as every renderer shows them: one decimal; 100% and 0% only when "
                       "exact and counted, else >99.9% and <0.1%",
        "rating": {k: getattr(s.model, k) for k in ("mu", "sigma", "beta", "tau", "draw_probability")}
        | {"system": "TrueSkill (trueskill package)", "sort": "mu - 3*sigma",
           "p_above_next": "Phi((mu1-mu2)/sqrt(sigma1^2+sigma2^2))", "fold_order": "seq"},
        "standings": [row_data(board, r) for r in s.rows],
        "crosstable": [
            {"row": a, "col": b, "wins": c.wins, "games": c.games, "rate": c.rate,
             "wilson95": list(c.interval)}
            | ({} if c.rate is None else {"text": f"{pct(c.rate)} ({pct(c.interval[0])}–{pct(c.interval[1])})"})
            for (a, b), c in sorted(s.cross.items())
        ],
        "history": {n: [list(h) for h in hist] for n, hist in s.history.items()},
        "matches": [
            {"seq": p.seq, "match_id": p.match_id, "pair_id": p.pair_id, "players": list(p.players),
             "ranks": None if p.ranks is None else list(p.ranks), "scores": list(p.scores),
             "cause": p.cause, "offender": p.offender} | ({} if p.teams is None else {"teams": list(p.teams)})
            | ({"errors": list(p.errors)} if any(p.errors) else {})
            | ({"page": board.pages[p.match_id]} if p.match_id in board.pages else {})  # issue 16
            for p in sorted(board.played, key=lambda p: p.seq)
        ],
    }


def render(board: Board) -> str:
    return json.dumps(document(board), indent=1, ensure_ascii=False) + "\n"


def recompute(doc: dict[str, Any]) -> Standings:
    """The standings from a leaderboard document alone."""
    r = doc["rating"]
    model = Model(r["mu"], r["sigma"], r["beta"], r["tau"], r["draw_probability"])
    played = [
        Played(m["seq"], m["match_id"], m["pair_id"], tuple(m["players"]),
               None if m["ranks"] is None else tuple(m["ranks"]), tuple(m["scores"]), m["cause"], m["offender"],
               teams=None if m.get("teams") is None else tuple(m["teams"]), errors=tuple(m.get("errors") or ()))
        for m in doc["matches"]
    ]
    return standings(model, [row["name"] for row in doc["tournament"]["entrants"]], played)
