"""Cards, actions and the Sixty-Six family's observation and requests as protobuf messages.

Cards and actions go out structured (suit, rank, kind) with their notation alongside for logs;
an action no kind describes (another game's, e.g. ``trump:next`` or ``7H+7S``) goes out as text
alone. On the way in, the structure wins and ``text`` is read only when the kind is unspecified:
any printable text of at most 64 characters is taken as the action, so that the arena's
membership check decides (ILLEGAL), while an empty, unprintable or longer text does not decode.
Anything malformed raises :class:`WireError` with a one-line reason.

>>> action_from_pb(action_to_pb("marry:H"))
'marry:H'
>>> action_from_pb(pb.Action(text="TH")), action_from_pb(pb.Action(text="trump:next"))
('TH', 'trump:next')
>>> action_from_pb(pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=pb.SUIT_SPADES, rank=pb.RANK_SEVEN)))
'7S'
>>> action_from_pb(pb.Action(kind=pb.ACTION_KIND_PLAY))
Traceback (most recent call last):
...
harness.wire.convert.WireError: a PLAY action has no card
>>> action_from_pb(pb.Action(text="TH\\n"))
Traceback (most recent call last):
...
harness.wire.convert.WireError: 'TH\\n' is not an action
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, CLASSIC, RANKS, SCHNAPSEN, SUITS
from harness.games.sixtysix.observe import Observation
from harness.games.sixtysix.options import Rules

from . import arena_pb2 as pb

PROTOCOL_VERSION = 2
GAME = "sixtysix"  # what a bot plays when it does not say
TEXT_MAX = 64  # the longest action text that decodes
CASES = {"sixtysix": 10, "schnapsen": 11}  # the Sixty-Six family's observation cases (field numbers)
PACKS = {"sixtysix": CLASSIC.name, "schnapsen": SCHNAPSEN.name}  # the pack each case's observation is dealt from


class WireError(ValueError):
    """A message that does not decode to something the engine understands."""


# Enum values by notation letter; the engine's order (C D H S, 9 J Q K T A) is the enums' order,
# and ranks 2..8 (for later games) follow as 7..13.
RANK_LETTERS = RANKS + "2345678"
_SUIT_PB = dict(zip(SUITS, (pb.SUIT_CLUBS, pb.SUIT_DIAMONDS, pb.SUIT_HEARTS, pb.SUIT_SPADES)))
_RANK_PB = dict(zip(RANK_LETTERS, (pb.RANK_NINE, pb.RANK_JACK, pb.RANK_QUEEN, pb.RANK_KING, pb.RANK_TEN, pb.RANK_ACE,
                                   pb.RANK_TWO, pb.RANK_THREE, pb.RANK_FOUR, pb.RANK_FIVE, pb.RANK_SIX, pb.RANK_SEVEN,
                                   pb.RANK_EIGHT)))
_CARD_PB = {r + s: (_SUIT_PB[s], _RANK_PB[r]) for s in SUITS for r in RANK_LETTERS}  # every card of any game
_CARD66 = {_CARD_PB[c]: c for c in CARD_STR}  # (suit, rank) -> card of the Sixty-Six family
_SIMPLE = {
    "exchange": pb.ACTION_KIND_EXCHANGE,
    "close": pb.ACTION_KIND_CLOSE,
    "claim": pb.ACTION_KIND_CLAIM,
    "draw": pb.ACTION_KIND_DRAW,
    "pass": pb.ACTION_KIND_PASS,
    "finish": pb.ACTION_KIND_FINISH,
}
_SIMPLE_TEXT = {v: k for k, v in _SIMPLE.items()}
_PLAY = pb.ACTION_KIND_PLAY
_POINT_PB = {"L": pb.POINT_LEAD, "D": pb.POINT_DRAW, "R": pb.POINT_CLOSE_RESPONSE, "F": pb.POINT_FOLLOW,
             "E": pb.POINT_END, "over": pb.POINT_OVER}
_POINT_TEXT = {v: k for k, v in _POINT_PB.items()}
_TALON_PB = {"open": pb.TALON_STATE_OPEN, "closed": pb.TALON_STATE_CLOSED, "exhausted": pb.TALON_STATE_EXHAUSTED}
_TALON_TEXT = {v: k for k, v in _TALON_PB.items()}
VOCABULARY = frozenset((*CARD_STR, *(f"marry:{s}" for s in SUITS), *_SIMPLE))  # every Sixty-Six family action


# -- cards and actions ---------------------------------------------------------------------


def _card_enums(card: str) -> tuple[pb.Suit, pb.Rank]:
    try:
        return _CARD_PB[card]
    except KeyError:
        raise WireError(f"{card!r} is not a card") from None


def fill_card(msg: pb.Card, card: str) -> pb.Card:
    """Write the card named ``card`` (any game's, ranks 2..A) into ``msg`` (a field of a message being built)."""
    msg.suit, msg.rank = _card_enums(card)
    msg.text = card
    return msg


def card_to_pb(card: str) -> pb.Card:
    suit, rank = _card_enums(card)
    return pb.Card(suit=suit, rank=rank, text=card)


def cards_to_pb(cards: Iterable[str]) -> list[pb.Card]:
    """Card messages for card notations (e.g. a revealed deck, top first)."""
    return [card_to_pb(c) for c in cards]


def card_from_pb(msg: pb.Card) -> str:
    """The notation of a structured card of any game; WireError on an unset or unknown suit or rank.

    >>> card_from_pb(pb.Card(suit=pb.SUIT_HEARTS, rank=pb.RANK_TWO)), card_from_pb(pb.Card(suit=1, rank=5))
    ('2H', 'TC')
    """
    if not 1 <= msg.rank <= len(RANK_LETTERS):
        raise WireError(f"card has a bad rank value {msg.rank}")
    if not 1 <= msg.suit <= 4:
        raise WireError(f"card has a bad suit value {msg.suit}")
    return RANK_LETTERS[msg.rank - 1] + SUITS[msg.suit - 1]


def card66_from_pb(msg: pb.Card) -> str:
    """A card of the Sixty-Six family (9 J Q K T A): one lookup; WireError otherwise."""
    try:
        return _CARD66[msg.suit, msg.rank]
    except KeyError:
        if not 1 <= msg.suit <= 4:
            raise WireError(f"card has a bad suit value {msg.suit}") from None
        raise WireError(f"card has a bad rank value {msg.rank}") from None


def _suit_from_pb(value: int) -> str:
    if not 1 <= value <= 4:
        raise WireError(f"bad suit value {value}")
    return SUITS[value - 1]


def fill_action(msg: pb.Action, action: str) -> pb.Action:
    """Write the action ``action`` (notation) into ``msg``: structured when a kind describes it,
    else as text alone; WireError when it is no action text at all (see :func:`_action_from_text`)."""
    if action in _CARD_PB:
        msg.kind = pb.ACTION_KIND_PLAY
        fill_card(msg.card, action)
    elif action.startswith("marry:") and action[6:] in _SUIT_PB:
        msg.kind = pb.ACTION_KIND_MARRY
        msg.suit = _SUIT_PB[action[6:]]
    elif action in _SIMPLE:
        msg.kind = _SIMPLE[action]
    else:
        action = _action_from_text(action)
    msg.text = action
    return msg


def action_to_pb(action: str) -> pb.Action:
    return fill_action(pb.Action(), action)


def action_from_pb(msg: pb.Action) -> str:
    """The notation of an action; WireError names what is wrong with a malformed one."""
    kind = msg.kind
    if kind == pb.ACTION_KIND_UNSPECIFIED:
        return _action_from_text(msg.text)
    if kind == pb.ACTION_KIND_PLAY:
        if not msg.HasField("card"):
            raise WireError("a PLAY action has no card")
        return card_from_pb(msg.card)
    if kind == pb.ACTION_KIND_MARRY:
        if msg.suit == pb.SUIT_UNSPECIFIED:
            raise WireError("a MARRY action has no suit")
        return "marry:" + _suit_from_pb(msg.suit)
    if kind in _SIMPLE_TEXT:
        return _SIMPLE_TEXT[kind]
    raise WireError(f"bad action kind value {kind}")


def _action_from_text(text: str) -> str:
    """``text`` as an action: any printable text of 1..TEXT_MAX characters (the game decides
    whether it is legal). WireError when it is empty, unprintable or too long."""
    if not text:
        raise WireError("the action has no kind and no text")
    if not text.isprintable():
        shown = repr(text[:40]) + ("..." if len(text) > 40 else "")
        raise WireError(f"{shown} is not an action")
    if len(text) > TEXT_MAX:
        raise WireError(f"the action text has {len(text)} characters (at most {TEXT_MAX})")
    return text


def actions_from_pb(msgs: Iterable[pb.Action]) -> tuple[str, ...]:
    return tuple(action_from_pb(m) for m in msgs)


def deck_to_pb(deck: Iterable[int]) -> list[pb.Card]:
    """A dealt deck of the Sixty-Six family (card ints, top first) as Card messages."""
    return [card_to_pb(CARD_STR[c]) for c in deck]


def deck_from_pb(cards: Iterable[pb.Card]) -> tuple[int, ...]:
    return tuple(CARD_INDEX[card66_from_pb(c)] for c in cards)


# -- rules ---------------------------------------------------------------------------------


def rules_to_map(rules: Rules) -> dict[str, str]:
    """Every rule option as name -> value text (``true``/``false`` for booleans)."""
    return {k: (("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in rules.to_dict().items()}


def rules_from_map(values: Mapping[str, str]) -> Rules:
    try:
        return Rules.from_mapping(dict(values))
    except ValueError as e:
        raise WireError(str(e)) from None


# -- observations --------------------------------------------------------------------------


def observation_to_pb(obs: Observation) -> pb.SixtySixObservation:
    """Exactly the fields of ``obs`` (legal actions and rules travel elsewhere)."""
    m = pb.SixtySixObservation(
        seat=obs.seat,
        point=_POINT_PB[obs.point],
        trump_suit=_SUIT_PB[obs.trump_suit],
        talon_size=obs.talon_size,
        talon_state=_TALON_PB[obs.talon_state],
        closed=obs.closed_by is not None,
        leader=obs.leader,
        trick_winners=obs.trick_winners,
        tricks=obs.tricks,
        points=obs.points,
        marriages=obs.marriages,
        game_score=obs.game_score,
    )
    if obs.to_act is not None:
        m.to_act = obs.to_act
    if obs.closed_by is not None:
        m.closed_by = obs.closed_by
    if obs.trump_card is not None:
        fill_card(m.trump_card, obs.trump_card)
    if obs.last_drawn is not None:
        fill_card(m.last_drawn, obs.last_drawn)
    for c in obs.hand:
        fill_card(m.hand.add(), c)
    for c in obs.trick:
        fill_card(m.trick.add(), c)
    for c in obs.opponent_known:
        fill_card(m.opponent_known.add(), c)
    for seat, a in obs.history:
        fill_action(m.history.add(seat=seat).action, a)
    return m


def observation_from_pb(
    m: pb.SixtySixObservation, rules: Rules = Rules(), legal: Sequence[str] = (),
    cls: type[Observation] = Observation, **extra: Any,
) -> Observation:
    """The Observation encoded in ``m``; ``rules`` and ``legal`` come from the match and the request.

    ``cls`` may be a subclass of Observation (the SDK's); ``extra`` fills its own fields.
    """
    try:
        point = _POINT_TEXT[m.point]
        talon_state = _TALON_TEXT[m.talon_state]
    except KeyError:
        raise WireError(f"bad point {m.point} or talon state {m.talon_state}") from None
    return cls(
        seat=_seat(m.seat),
        to_act=_seat(m.to_act) if m.HasField("to_act") else None,
        point=point,
        hand=tuple(card66_from_pb(c) for c in m.hand),
        trump_suit=_suit_from_pb(m.trump_suit),
        trump_card=card66_from_pb(m.trump_card) if m.HasField("trump_card") else None,
        talon_size=m.talon_size,
        talon_state=talon_state,
        closed_by=_seat(m.closed_by) if m.HasField("closed_by") else None,
        leader=_seat(m.leader),
        trick=tuple(card66_from_pb(c) for c in m.trick),
        history=tuple((_seat(e.seat), action66_from_pb(e.action)) for e in m.history),
        trick_winners=tuple(_seat(w) for w in m.trick_winners),
        tricks=_pair(m.tricks, "tricks"),
        points=_pair(m.points, "points"),
        marriages=_pair(m.marriages, "marriages"),
        opponent_known=tuple(card66_from_pb(c) for c in m.opponent_known),
        last_drawn=card66_from_pb(m.last_drawn) if m.HasField("last_drawn") else None,
        game_score=_pair(m.game_score, "game_score"),
        legal=tuple(legal),
        rules=rules,
        **extra,
    )


def action66_from_pb(msg: pb.Action) -> str:
    """An action of the Sixty-Six family; WireError for anything else.

    Played cards and the simple kinds are looked up at once (most of a request's actions: its
    history and legal list); anything else goes through :func:`action_from_pb`'s checks."""
    kind = msg.kind
    if kind == _PLAY:
        card = msg.card  # unset: suit and rank 0, which no card has
        a = _CARD66.get((card.suit, card.rank))
        if a is not None:
            return a
    elif kind in _SIMPLE_TEXT:
        return _SIMPLE_TEXT[kind]
    a = action_from_pb(msg)
    if a not in VOCABULARY:
        raise WireError(f"'{a}' is not a Sixty-Six action")
    return a


def _seat(v: int) -> int:
    if v > 1:
        raise WireError(f"bad seat {v}")
    return v


def _pair(values: Sequence[int], name: str) -> tuple[int, int]:
    if len(values) != 2:
        raise WireError(f"{name} has {len(values)} values, expected 2")
    return (values[0], values[1])


# -- requests ------------------------------------------------------------------------------


def request_to_pb(
    request_id: int, match_id: str, deal_no: int, decision_no: int, obs: Observation, move_ms: int, bank_ms: int,
    legal: Sequence[str] | None = None, case: str = GAME,
) -> pb.DecisionRequest:
    """A DecisionRequest: the seat's observation (in the oneof ``case``: ``sixtysix`` or ``schnapsen``),
    the legal actions (default ``obs.legal``), the clock."""
    req = pb.DecisionRequest(
        request_id=request_id, match_id=match_id, deal_no=deal_no, decision_no=decision_no,
        clock=pb.Clock(move_ms=move_ms, bank_ms=bank_ms),
    )
    if case not in CASES:
        raise WireError(f"no observation case {case!r}")
    getattr(req, case).CopyFrom(observation_to_pb(obs))
    for a in obs.legal if legal is None else legal:
        fill_action(req.legal.add(), a)
    return req


# -- fast request encoding -----------------------------------------------------------------
#
# The match loop sends one DecisionRequest per decision. Building it field by field through the
# protobuf runtime costs more than the rest of the arena's work together, so the bytes are put
# together here from pre-encoded pieces (every card, action and history entry is one of a few
# dozen values). The result is byte-for-byte what protobuf itself produces (fields in number
# order, proto3 defaults omitted, packed repeated integers); tests hold it to that.


def varint(n: int) -> bytes:
    """Protobuf base-128 varint of a non-negative int.

    >>> varint(1), varint(300)
    (b'\\x01', b'\\xac\\x02')
    """
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = [varint(i) for i in range(256)]
_TAG = [varint(f << 3) for f in range(64)]  # the key of a varint field, by field number
_LEN_TAG = [varint(f << 3 | 2) for f in range(64)]  # the key of a length-delimited field
_UINT = [[b""] + [_TAG[f] + _SMALL[v] for v in range(1, 256)] for f in range(32)]  # small varint fields, whole


def uint_field(field: int, value: int) -> bytes:
    """A varint field; empty for 0 (proto3 omits defaults).

    >>> uint_field(1, 0), uint_field(3, 2), uint_field(2, 300), uint_field(17, 5)
    (b'', b'\\x18\\x02', b'\\x10\\xac\\x02', b'\\x88\\x01\\x05')
    """
    if value < 256 and field < 32:
        return _UINT[field][value]
    return _TAG[field] + varint(value)


def len_field(field: int, body: bytes) -> bytes:
    """A length-delimited field (string, bytes, message, packed repeated)."""
    n = len(body)
    return _LEN_TAG[field] + (_SMALL[n] if n < 128 else varint(n)) + body


def packed_field(field: int, values: Sequence[int]) -> bytes:
    """A packed repeated varint field; empty when there are no values.

    >>> packed_field(16, (66, 0)), packed_field(14, ()), packed_field(20, (200, 1))
    (b'\\x82\\x01\\x02B\\x00', b'', b'\\xa2\\x01\\x03\\xc8\\x01\\x01')
    """
    if not values:
        return b""
    if max(values) < 128:  # every value is a one-byte varint: the bytes themselves
        return len_field(field, bytes(values))
    return len_field(field, b"".join(_SMALL[v] if v < 128 else varint(v) for v in values))


_CARD_BODY = {c: card_to_pb(c).SerializeToString() for c in CARD_STR}
_ACTION_BODY = {a: action_to_pb(a).SerializeToString() for a in VOCABULARY}
_CARD_FIELD = {f: {c: len_field(f, b) for c, b in _CARD_BODY.items()} for f in (4, 6, 12, 18, 19)}
_LEGAL_FIELD = {a: len_field(6, b) for a, b in _ACTION_BODY.items()}
_HISTORY_FIELD = {(seat, a): len_field(13, uint_field(1, seat) + len_field(2, b))
                  for seat in (0, 1) for a, b in _ACTION_BODY.items()}


def _obs_body(obs: Observation) -> bytes:
    hand, trick, known = _CARD_FIELD[4], _CARD_FIELD[12], _CARD_FIELD[18]
    parts = [
        uint_field(1, obs.seat),
        b"" if obs.to_act is None else b"\x10" + _SMALL[obs.to_act],
        uint_field(3, _POINT_PB[obs.point]),
        *[hand[c] for c in obs.hand],
        uint_field(5, _SUIT_PB[obs.trump_suit]),
        b"" if obs.trump_card is None else _CARD_FIELD[6][obs.trump_card],
        uint_field(7, obs.talon_size),
        uint_field(8, _TALON_PB[obs.talon_state]),
        b"" if obs.closed_by is None else b"\x48\x01\x50" + _SMALL[obs.closed_by],
        uint_field(11, obs.leader),
        *[trick[c] for c in obs.trick],
        *[_HISTORY_FIELD[e] for e in obs.history],
        packed_field(14, obs.trick_winners),
        packed_field(15, obs.tricks),
        packed_field(16, obs.points),
        packed_field(17, obs.marriages),
        *[known[c] for c in obs.opponent_known],
        b"" if obs.last_drawn is None else _CARD_FIELD[19][obs.last_drawn],
        packed_field(20, obs.game_score),
    ]
    return b"".join(parts)


def encode_request(match_id: str, deal_no: int, decision_no: int, obs: Observation, move_ms: int, bank_ms: int,
                   legal: Sequence[str] | None = None, case: str = GAME) -> bytes:
    """The serialized DecisionRequest without its request id: the same bytes as
    ``request_to_pb(0, ..., case=case).SerializeToString()``, several times faster. :func:`wrap_request` adds the id."""
    return envelope(match_id, deal_no, decision_no, obs.legal if legal is None else legal, move_ms, bank_ms,
                    CASES[case], _obs_body(obs))


def envelope(match_id: str, deal_no: int, decision_no: int, legal: Sequence[str], move_ms: int, bank_ms: int,
             case_field: int, observation: bytes) -> bytes:
    """A serialized DecisionRequest (no request id) around the serialized ``observation`` in the oneof
    field ``case_field``: fields in number order, as protobuf writes them (any game's actions)."""
    legal_field = _LEGAL_FIELD
    return b"".join((
        len_field(2, match_id.encode()) if match_id else b"",
        uint_field(3, deal_no),
        uint_field(4, decision_no),
        len_field(5, uint_field(1, move_ms) + uint_field(2, bank_ms)),
        *[legal_field.get(a) or _legal(a) for a in legal],
        len_field(case_field, observation),
    ))


def _legal(action: str) -> bytes:
    """One ``legal`` entry of a request (field 6), remembered (a game has a few dozen actions)."""
    data = len_field(6, action_to_pb(action).SerializeToString())
    if len(_LEGAL_FIELD) < 4096:
        _LEGAL_FIELD[action] = data
    return data


def wrap_request(request_id: int, body: bytes) -> bytes:
    """An ArenaMessage carrying the DecisionRequest ``body`` (from :func:`encode_request`) with ``request_id`` set."""
    return len_field(2, uint_field(1, request_id) + body)


def request_from_pb(req: pb.DecisionRequest, rules: Rules = Rules(), cls: type[Observation] = Observation, *,
                    case: str = GAME, **extra: Any) -> Observation:
    """The Observation a request carries in the oneof ``case``, with its legal actions filled in."""
    which = req.WhichOneof("observation")
    if which != case:
        raise WireError(f"the request carries no {case} observation ({which})")
    legal = tuple(action66_from_pb(a) for a in req.legal)
    return observation_from_pb(getattr(req, case), rules, legal, cls, pack=PACKS[case], **extra)


def hello(name: str, version: str = "", token: str = "", max_concurrent: int = 1,
          games: Sequence[str] = (GAME,), **extra: Any) -> pb.BotMessage:
    """The first message of a bot: this protocol version and the games it plays."""
    return pb.BotMessage(hello=pb.Hello(
        name=name, version=version, protocol_version=PROTOCOL_VERSION, games=list(games),
        max_concurrent=max_concurrent, token=token, **extra,
    ))


def reply(request_id: int, action: str) -> pb.BotMessage:
    msg = pb.BotMessage(reply=pb.Reply(request_id=request_id))
    fill_action(msg.reply.action, action)
    return msg
