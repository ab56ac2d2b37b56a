"""The arena's notices to a bot (MatchStart, DealStart, DealEnd, MatchEnd) as serialized
ArenaMessages, for any game: only a deal's detail is the game's (through its codec).

>>> msg = pb.ArenaMessage.FromString(match_end("m", (1, 0), (3, 7), (0, 1), pb.TERMINATION_NORMAL, ""))
>>> list(msg.match_end.ranks), list(msg.match_end.game_score), list(msg.match_end.teams)
([1, 0], [3, 7], [0, 1])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.games.base import DealEnd, DealStart

from . import arena_pb2 as pb
from .codecs import Codec
from .convert import cards_to_pb


def match_start(match_id: str, game: str, player: int, players: Sequence[str], teams: Sequence[int],
                rules: Mapping[str, str], move_ms: int, bank_ms: int) -> bytes:
    """The MatchStart for ``player``: the game, every player's name and team, the rules and the clock."""
    return pb.ArenaMessage(match_start=pb.MatchStart(
        match_id=match_id, game=game, player=player, players=players, rules=rules,
        clock=pb.Clock(move_ms=move_ms, bank_ms=bank_ms), teams=teams)).SerializeToString()


def deal_start(match_id: str, deal: DealStart, player: int, scores: Sequence[int]) -> bytes:
    """The DealStart for ``player``: its deal seat, the dealer, who sits where, the scores before the deal."""
    return pb.ArenaMessage(deal_start=pb.DealStart(
        match_id=match_id, deal_no=deal.deal_no, dealer=deal.dealer,
        seat=deal.seats.index(player) if player in deal.seats else 0,  # Twenty-Two: an eliminated player has no seat
        game_score=scores, seats=deal.seats)).SerializeToString()


def deal_end(match_id: str, end: DealEnd, codec: Codec) -> bytes:
    """The DealEnd (the same for every player): points won, the revealed deck, the scores after
    the deal and the game's detail."""
    msg = pb.ArenaMessage()
    d = msg.deal_end
    d.match_id = match_id
    d.deal_no = end.deal_no
    d.deck.extend(cards_to_pb(end.deck))
    d.game_score.extend(end.scores)
    d.points.extend(end.points)
    codec.fill_deal_end(d, end)
    return msg.SerializeToString()


def match_end(match_id: str, ranks: Sequence[int] | None, scores: Sequence[int], teams: Sequence[int],
              termination: int, detail: str) -> bytes:
    """The MatchEnd: the ranking (empty when the match has no result), scores and teams by player."""
    return pb.ArenaMessage(match_end=pb.MatchEnd(
        match_id=match_id, ranks=ranks or (), game_score=scores, termination=pb.Termination.Name(termination),
        detail=detail, teams=teams)).SerializeToString()
