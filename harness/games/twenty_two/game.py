"""Twenty-Two behind the game interface (:class:`harness.games.base.Game`), RULES-SPEC sections 4, 7.4.

>>> m = GAME.start(5, GAME.rules({"players": 3}))
>>> GAME.players(GAME.rules({"players": 3})), GAME.teams(GAME.rules({"players": 3})), GAME.deal(m).deal_no
(3, (0, 1, 2), 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.base import DealEnd, DealStart, Outcome
from harness.games.tools import play_out, read_deck

from .cards import parse_deck
from .engine import State, apply, deal, legal_actions, perft, summary
from .match import Match, match_apply, match_to_act, ranks, start_match
from .observe import Observation, observe
from .options import Rules


class TwentyTwo:
    """Twenty-Two for 2-8 players (the rules option ``players``)."""

    id = "twenty_two"
    title = "Twenty-Two"

    def rules(self, values: Mapping[str, Any] = {}) -> Rules:
        return Rules.from_mapping(values)

    def rules_map(self, rules: Rules) -> dict[str, str]:
        return rules.to_map()

    def rules_changes(self, rules: Rules) -> list[str]:
        return rules.changes()

    def players(self, rules: Rules) -> int:
        return rules.players

    def teams(self, rules: Rules) -> tuple[int, ...]:
        return tuple(range(rules.players))

    def start(self, seed: int, rules: Rules) -> Match:
        return start_match(seed, rules)

    def to_act(self, m: Match) -> int | None:
        return match_to_act(m)

    def legal(self, m: Match) -> tuple[str, ...]:
        return () if m.over else tuple(legal_actions(m.state))

    def apply(self, m: Match, action: str) -> Match:
        return match_apply(m, action)

    def observe(self, m: Match, player: int) -> Observation:
        return observe(m, player)

    def deal(self, m: Match) -> DealStart:
        s = m.state
        return DealStart(m.deal_no, m.dealer, m.seats,
                         {"dealer": m.dealer, "seats": list(m.seats), "hand": s.size, "deck": " ".join(s.deck)})

    def deals_done(self, m: Match) -> int:
        return len(m.results)

    def deal_end(self, m: Match) -> DealEnd:
        r = m.results[-1]
        points = tuple(r.penalty if p in r.losers else 0 for p in range(len(m.totals)))
        record = {"losers": list(r.losers), "revealed": list(r.revealed), "penalty": r.penalty,
                  "eliminated": list(r.eliminated), "totals": list(r.totals)}
        return DealEnd(r.deal_no, points, r.totals, r.deck, record)

    def scores(self, m: Match) -> tuple[int, ...]:
        return m.totals

    def outcome(self, m: Match) -> Outcome | None:
        if not m.over:
            return None
        return Outcome(ranks(m), m.totals, self.teams(m.rules))

    # -- the rules tools (section 7.4): one deal from a written deck -----------------------

    def position(self, deck: str, actions: Sequence[str], rules: Rules) -> State:
        """The deal of ``deck`` (top first) for ``rules.players`` seats, ``rules.hand`` cards each at
        most, after ``actions``; ValueError names the bad token in one line."""
        state = read_deck(lambda: deal(parse_deck(deck, rules.decks), rules.players, rules.hand, rules))
        return play_out(state, actions, apply)

    def summary(self, state: State) -> dict[str, object]:
        return summary(state)

    def perft(self, state: State, depth: int) -> int:
        return perft(state, depth)


GAME = TwentyTwo()

__all__ = ["GAME", "TwentyTwo"]
