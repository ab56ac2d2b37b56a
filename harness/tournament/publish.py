"""Build a leaderboard :class:`Board` from the store and check the records it points to
(:mod:`harness.leaderboard.files` writes the files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.arena.record import NO_END, read_checked
from harness.games import registry
from harness.names import valid_name
from harness.leaderboard import Board
from harness.rating import Model, Played, standings
from harness.tournament.store import Store, Tournament


def directory(out: str | Path, t: Tournament) -> Path:
    """Where tournament ``t``'s leaderboards go: ``out/<its name>/`` (issue 14: one directory per
    tournament, so no tournament overwrites another's pages; a name is used once per database).
    A name from before the name rule that cannot be a directory gives ``out/tournament-<id>/``."""
    return Path(out) / (t.name if valid_name(t.name) else f"tournament-{t.id}")


def played_of(row: dict[str, Any]) -> Played:
    """A stored match (as :meth:`Store.matches` gives it: per-player lists) as the rating sees it."""
    ranks = row["ranks"]
    return Played(row["seq"], row["match_id"], row["pair_id"], tuple(row["players"]),
                  None if ranks is None else tuple(ranks), tuple(row["scores"]), row["cause"], row["offender"],
                  tuple(row["teams"]), tuple(row.get("errors") or ()))


def board(store: Store, t: Tournament, model: Model = Model()) -> Board:
    """The leaderboard of tournament ``t`` as it stands in the store."""
    cfg = t.config
    names = [e[0] for e in cfg["entrants"]]
    rows = store.matches(t.id)
    played = [played_of(r) for r in rows]
    restarts = store.restarts(t.id)
    game = registry.get(t.game)
    meta = {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "game_title": game.title,
        # A drawn secret is never published (it would predict every deal to come); the seeds of
        # finished matches are, and say nothing about the others (issue 11).
        **({"seed": cfg["seed"]} if cfg.get("seed_set", True) else {}),
        "rounds": cfg["rounds"],
        "match_seeds": {r["match_id"]: r["seed"] for r in rows},
        "schedule": ("round robin of pairs, both seatings (circle method)"
                     if game.players(game.rules(cfg["rules"])) == 2 else "tables in every seat rotation")
        + "; " + cfg.get("legs", "each unit's legs play the round's seed"),
        "time": cfg["time"],
        "rules": cfg["rules"],
        "rule_changes": game.rules_changes(game.rules(cfg["rules"])),
        "entrants": [{"name": n, "command": c, "restarts": restarts.get(n, 0)} for n, c in cfg["entrants"]],
        "scheduled": t.scheduled,
        "recorded": len(played),
        "voided": store.voided_count(t.id),
        "created": t.created,
        "finished": t.finished,
    }
    adaptive_schedule = cfg.get("schedule") == "adaptive"
    if adaptive_schedule:  # issue 17: rated without skill drift (harness.tournament.adaptive.MODEL)
        from harness.tournament import adaptive

        model = adaptive.MODEL
    table = standings(model, names, played)
    if adaptive_schedule:  # issue 17: how it ended, and how sure each neighbour pair is
        f = adaptive.field_of(cfg, game.players(game.rules(cfg["rules"])))
        meta.pop("rounds", None)
        meta["schedule"] = ("adaptive: full round robins first, then the neighbour pairs whose order is in doubt; "
                            + cfg.get("legs", ""))
        meta["adaptive"] = adaptive.summary(f, adaptive.settings_of(cfg), played, table.order, t.finished is not None,
                                            model)
    return Board(f"{t.name} · leaderboard", table, meta, tuple(played),
                 records={r["match_id"]: r["record"] for r in rows if r.get("record")})  # issue 16: match pages


def record_problems(rows: list[dict[str, Any]]) -> list[str]:
    """One line per match row whose JSON-lines record is missing, unreadable, damaged or cut short.

    A cheap check (every line parses, the end line is there), not a replay: ``arena replay FILE``
    re-deals a record and verifies every action. The ratings come from the database rows, so a
    damaged record does not change the leaderboard; it only loses that match's replay.
    """
    problems = []
    for row in rows:
        path = row.get("record")
        if not path:
            continue
        try:
            lines, damage = read_checked(path)
        except OSError as e:
            problems.append(f"{path}: record of match {row['match_id']} cannot be read: {e.strerror or e}")
            continue
        if damage is None and not any(d.get("type") == "end" for d in lines):
            damage = f"{NO_END}: the record is truncated"
        if damage is not None:
            problems.append(f"{path}: record of match {row['match_id']} is damaged: {damage}")
    return problems
