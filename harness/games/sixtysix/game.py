"""Classic Sixty-Six behind the game interface (:class:`harness.games.base.Game`).

:class:`SixtySixFamily` serves every two-player game of the family that differs from classic
Sixty-Six only in its pack and its default rules: classic Sixty-Six here, Schnapsen in
:mod:`harness.games.schnapsen`.

>>> m = GAME.start(7, GAME.rules())
>>> GAME.to_act(m) in (0, 1), GAME.deal(m).deal_no, GAME.outcome(m) is None
(True, 1, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.games.base import DealEnd, DealStart, IllegalAction, Outcome
from harness.games.options import changed_options, option_texts
from harness.games.tools import play_out, read_deck

from .cards import CARD_INDEX, CARD_STR, CLASSIC, Pack, deck_str, parse_deck
from .engine import MARRY, State, apply, deal, legal_actions, perft, summary
from .match import Match, match_apply, player_of, seat_of, start_match
from .observe import Observation, observe
from .options import Rules

TEAMS = (0, 1)
WORDS = {"exchange", "close", "claim", "draw", "pass", "finish", *MARRY}  # the non-card actions (66-1.18)
ACTIONS = frozenset((*CARD_INDEX, *WORDS))  # every action of the family


@dataclass(frozen=True)
class SixtySixFamily:
    """A two-player game of the Sixty-Six family: a pack and the defaults its rules start from."""

    id: str
    title: str
    pack: Pack
    preset: Mapping[str, Any] = field(default_factory=dict)  # options that differ from classic Sixty-Six

    def rules(self, values: Mapping[str, Any] = {}) -> Rules:
        return Rules.from_mapping({**self.preset, **values})

    def rules_map(self, rules: Rules) -> dict[str, str]:
        return option_texts(rules.to_dict())

    def rules_changes(self, rules: Rules) -> list[str]:
        return changed_options(self.rules_map(rules), self.rules_map(self.rules()))

    def players(self, rules: Rules) -> int:
        return 2

    def teams(self, rules: Rules) -> tuple[int, ...]:
        return TEAMS

    def start(self, seed: int, rules: Rules) -> Match:
        return start_match(seed, rules, pack=self.pack)

    def to_act(self, m: Match) -> int | None:
        return None if m.winner is not None else player_of(m, m.state.to_act)

    def legal(self, m: Match) -> tuple[str, ...]:
        return () if m.winner is not None else tuple(sorted(legal_actions(m.state)))

    def turn(self, m: Match) -> tuple[int, Observation, tuple[str, ...]] | None:
        """The player to act, its observation and the legal actions in one step (the observation
        already holds them), or None once over: the match loop's fast path."""
        if m.winner is not None:
            return None
        seat = m.state.to_act
        obs = observe(m.state, seat)
        return player_of(m, seat), obs, obs.legal

    def apply(self, m: Match, action: str) -> Match:
        return match_apply(m, action)

    def observe(self, m: Match, player: int) -> Observation:
        return observe(m.state, seat_of(m, player))

    def deal(self, m: Match) -> DealStart:
        return DealStart(m.deal_no, m.dealer, (1 - m.dealer, m.dealer),
                         {"dealer": m.dealer, "deck": deck_str(m.state.deck)})

    def deals_done(self, m: Match) -> int:
        return len(m.results)

    def deal_end(self, m: Match) -> DealEnd:
        r = m.results[-1]
        points = tuple(r.game_points if r.winner == p else 0 for p in (0, 1))
        record = {"winner": r.winner, "game_points": r.game_points, "row": r.row, "reason": r.reason,
                  "scores": list(m.scores)}
        return DealEnd(r.deal_no, points, m.scores, tuple(CARD_STR[c] for c in r.deck), record)

    def scores(self, m: Match) -> tuple[int, ...]:
        return m.scores

    # -- the rules tools (RULES-SPEC section 7): one deal from a written deck --------------------

    def position(self, deck: str, actions: Sequence[str], rules: Rules) -> State:
        """The deal of ``deck`` (the pack's cards, top first) after ``actions``; ValueError names the
        bad token in one line."""
        cards = read_deck(lambda: parse_deck(deck, self.pack))  # 66-4.2 (24 cards) or SCH-2 (20 cards)
        return play_out(deal(cards, rules), actions, apply, ACTIONS)

    def summary(self, state: State) -> dict[str, object]:
        """The JSON object of ``arena rules run`` (section 7)."""
        return summary(state)

    def perft(self, state: State, depth: int) -> int:
        """Action sequences of length ``depth`` from ``state`` (an ended deal is one leaf)."""
        return perft(state, depth)

    def outcome(self, m: Match) -> Outcome | None:
        if m.winner is None:
            return None
        return Outcome((0, 1) if m.winner == 0 else (1, 0), m.scores, TEAMS)


GAME = SixtySixFamily("sixtysix", "Sixty-Six", CLASSIC)

__all__ = ["GAME", "IllegalAction", "SixtySixFamily"]
