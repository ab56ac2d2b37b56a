"""The league's leaderboard: a :class:`harness.leaderboard.Board` from the store, and its protobuf form."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from harness.arena.result import Cause
from harness.games import registry
from harness.leaderboard import Board
from harness.rating import Model, Played, standings
from harness.wire import league_pb2 as lpb

from .store import EntrantRow, Store, now


def league_board(store: Store, *, title: str, provisional_below: int, model: Model = Model(),
                 extra_meta: dict[str, Any] | None = None) -> Board:
    """Every entrant version (retired ones too) rated on every finished match; interrupted matches
    are kept in the store but not rated."""
    rows = store.entrants()
    by_id = {r.id: r for r in rows}
    played: list[Played] = []
    interrupted = 0
    records: dict[str, str] = {}  # issue 16: each match's record, for its page
    for m in store.matches():
        if m.get("record"):
            records[m["match_id"]] = m["record"]
        if m["cause"] == str(Cause.INTERRUPTED):
            interrupted += 1
            continue
        played.append(Played(m["seq"], m["match_id"], m["pair_id"], tuple(by_id[e].label for e in m["players"]),
                             None if m["ranks"] is None else tuple(m["ranks"]), tuple(m["scores"]), m["cause"],
                             m["offender"], tuple(m["teams"]), tuple(m.get("errors") or ())))
    st = standings(model, [r.label for r in rows], played)
    info = store.league
    game = registry.get(info.game)
    meta = {
        "league": title,
        "game": info.game,
        "game_title": game.title,
        "rules": info.rules,
        "rule_changes": game.rules_changes(game.rules(info.rules)),
        "created": store.meta("created"),
        "updated": now(),
        "league_rounds": store.rounds(),
        "recorded": len(played),
        "interrupted": interrupted,
        "provisional_below": provisional_below,
        "schedule": "league rounds: fewest matches first, then the most uncertain pairs; "
                    "each pairing plays one seed twice, seats swapped",
        "entrants": [{"name": r.label, "owner": r.owner, "version": r.version, "operator": r.operator,
                      "created": r.created, "retired": r.retired} for r in rows],
        **(extra_meta or {}),
    }
    provisional = frozenset(r.name for r in st.rows if r.played < provisional_below)
    return Board(title, st, meta, tuple(played), provisional, records=records)


def to_pb(board: Board, entrants: Collection[EntrantRow], connected: Collection[str],
          include_retired: bool = False) -> lpb.Leaderboard:
    """The protobuf leaderboard; retired entrants only when asked for."""
    by_label = {e.label: e for e in entrants}
    out = lpb.Leaderboard(title=board.title, rounds=board.meta.get("league_rounds", 0),
                          matches=board.standings.matches, provisional_below=board.meta.get("provisional_below", 0),
                          updated=board.meta.get("updated", ""))
    for r in board.standings.rows:
        e = by_label.get(r.name)
        retired = e is not None and e.retired is not None
        if retired and not include_retired:
            continue
        row = out.rows.add(
            rank=r.rank, entrant=r.name, owner=e.owner if e else "", name=e.name if e else r.name,
            version=e.version if e else 0, mu=r.mu, sigma=r.sigma, conservative=r.score, played=r.played,
            wins=r.wins, points_for=r.points_for, points_against=r.points_against, pairs_won=r.pairs_won,
            pairs_split=r.pairs_split, pairs_lost=r.pairs_lost, provisional=r.name in board.provisional,
            connected=r.name in connected, retired=retired, operator=bool(e and e.operator))
        row.failures.update(r.failures)
        if r.p_above is not None:
            row.p_above_next = r.p_above
    return out
