"""Each game's wire codec: its case of the request's ``observation`` oneof and of ``DealEnd.detail``.

The arena and the SDK reach a game's messages only through :func:`codec`. Sixty-Six and Schnapsen
share one message (Schnapsen's fields are Sixty-Six's exactly), each in its own oneof case.

>>> codec("schnapsen").game, codec("sixtysix").case
('schnapsen', 'sixtysix')
>>> codec("chess")
Traceback (most recent call last):
...
ValueError: no wire codec for game 'chess' (games: sixtysix, schnapsen, three_handed, four_handed, twenty_two)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from harness.games import registry
from harness.games.base import DealEnd
from harness.games.sixtysix.observe import Observation
from harness.games.sixtysix.options import Rules

from . import arena_pb2 as pb
from . import four_handed
from . import twenty_two
from . import three_handed
from .convert import CASES, WireError, encode_request, request_from_pb


class Codec(Protocol):
    """How one game's observations and deal details travel."""

    game: str  # the registry id

    def encode_request(self, match_id: str, deal_no: int, decision_no: int, obs: Any, legal: Sequence[str],
                       move_ms: int, bank_ms: int) -> bytes:
        """The serialized DecisionRequest without its request id (see :func:`convert.wrap_request`)."""
        ...

    def decode_request(self, req: pb.DecisionRequest, rules: Any, cls: Any = None, **extra: Any) -> Any:
        """The observation ``req`` carries (as ``cls``, with ``extra`` fields); WireError when it
        does not carry this game's case or does not decode."""
        ...

    def rules(self, values: Mapping[str, str]) -> Any:
        """The game's rules from a MatchStart's ``rules`` map; WireError names a bad option."""
        ...

    def fill_deal_end(self, msg: pb.DealEnd, end: DealEnd) -> None:
        """Write this game's case of ``DealEnd.detail`` from ``end.record``."""
        ...


class SixtySixCodec:
    """A game of the Sixty-Six family: the SixtySixObservation and SixtySixDealDetail in oneof ``case``."""

    __slots__ = ("case", "game")

    def __init__(self, case: str) -> None:
        if case not in CASES:
            raise ValueError(f"no observation case {case!r}")
        self.case = case
        self.game = case

    def encode_request(self, match_id: str, deal_no: int, decision_no: int, obs: Observation, legal: Sequence[str],
                       move_ms: int, bank_ms: int) -> bytes:
        return encode_request(match_id, deal_no, decision_no, obs, move_ms, bank_ms, legal, self.case)

    def decode_request(self, req: pb.DecisionRequest, rules: Rules, cls: Any = None, **extra: Any) -> Observation:
        return request_from_pb(req, rules, Observation if cls is None else cls, case=self.case, **extra)

    def rules(self, values: Mapping[str, str]) -> Rules:
        try:
            rules: Rules = registry.get(self.game).rules(dict(values))
        except ValueError as e:
            raise WireError(str(e)) from None
        return rules

    def fill_deal_end(self, msg: pb.DealEnd, end: DealEnd) -> None:
        r = end.record
        d = getattr(msg, self.case)
        d.SetInParent()
        winner = r["winner"]
        d.tie = winner is None
        d.winner = winner or 0
        d.game_points = r["game_points"]
        d.row = r["row"]
        d.reason = r["reason"]

    def __repr__(self) -> str:
        return f"SixtySixCodec({self.case!r})"


_CODECS: dict[str, Codec] = {"sixtysix": SixtySixCodec("sixtysix"), "schnapsen": SixtySixCodec("schnapsen")}
_CODECS["three_handed"] = three_handed.CODEC
_CODECS["four_handed"] = four_handed.CODEC
_CODECS["twenty_two"] = twenty_two.CODEC


def codec(game_id: str) -> Codec:
    """The wire codec of ``game_id``; ValueError names an unknown game."""
    c = _CODECS.get(game_id)
    if c is None:
        raise ValueError(f"no wire codec for game {game_id!r} (games: {', '.join(_CODECS)})")
    return c
