from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_NORMAL: _ClassVar[Termination]
    TERMINATION_TIMEOUT: _ClassVar[Termination]
    TERMINATION_ILLEGAL: _ClassVar[Termination]
    TERMINATION_INVALID: _ClassVar[Termination]
    TERMINATION_CRASH: _ClassVar[Termination]
    TERMINATION_DISCONNECT: _ClassVar[Termination]
    TERMINATION_NO_HELLO: _ClassVar[Termination]
    TERMINATION_INTERRUPTED: _ClassVar[Termination]
    TERMINATION_ERROR: _ClassVar[Termination]

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_NINE: _ClassVar[Rank]
    RANK_JACK: _ClassVar[Rank]
    RANK_QUEEN: _ClassVar[Rank]
    RANK_KING: _ClassVar[Rank]
    RANK_TEN: _ClassVar[Rank]
    RANK_ACE: _ClassVar[Rank]
    RANK_TWO: _ClassVar[Rank]
    RANK_THREE: _ClassVar[Rank]
    RANK_FOUR: _ClassVar[Rank]
    RANK_FIVE: _ClassVar[Rank]
    RANK_SIX: _ClassVar[Rank]
    RANK_SEVEN: _ClassVar[Rank]
    RANK_EIGHT: _ClassVar[Rank]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_PLAY: _ClassVar[ActionKind]
    ACTION_KIND_MARRY: _ClassVar[ActionKind]
    ACTION_KIND_EXCHANGE: _ClassVar[ActionKind]
    ACTION_KIND_CLOSE: _ClassVar[ActionKind]
    ACTION_KIND_CLAIM: _ClassVar[ActionKind]
    ACTION_KIND_DRAW: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]
    ACTION_KIND_FINISH: _ClassVar[ActionKind]

class Point(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POINT_UNSPECIFIED: _ClassVar[Point]
    POINT_LEAD: _ClassVar[Point]
    POINT_DRAW: _ClassVar[Point]
    POINT_CLOSE_RESPONSE: _ClassVar[Point]
    POINT_FOLLOW: _ClassVar[Point]
    POINT_END: _ClassVar[Point]
    POINT_OVER: _ClassVar[Point]

class TalonState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TALON_STATE_UNSPECIFIED: _ClassVar[TalonState]
    TALON_STATE_OPEN: _ClassVar[TalonState]
    TALON_STATE_CLOSED: _ClassVar[TalonState]
    TALON_STATE_EXHAUSTED: _ClassVar[TalonState]

class ThreeHandedPoint(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    THREE_HANDED_POINT_UNSPECIFIED: _ClassVar[ThreeHandedPoint]
    THREE_HANDED_POINT_TRUMP: _ClassVar[ThreeHandedPoint]
    THREE_HANDED_POINT_LEAD: _ClassVar[ThreeHandedPoint]
    THREE_HANDED_POINT_FOLLOW: _ClassVar[ThreeHandedPoint]
    THREE_HANDED_POINT_END: _ClassVar[ThreeHandedPoint]
    THREE_HANDED_POINT_OVER: _ClassVar[ThreeHandedPoint]
TERMINATION_UNSPECIFIED: Termination
TERMINATION_NORMAL: Termination
TERMINATION_TIMEOUT: Termination
TERMINATION_ILLEGAL: Termination
TERMINATION_INVALID: Termination
TERMINATION_CRASH: Termination
TERMINATION_DISCONNECT: Termination
TERMINATION_NO_HELLO: Termination
TERMINATION_INTERRUPTED: Termination
TERMINATION_ERROR: Termination
SUIT_UNSPECIFIED: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
SUIT_HEARTS: Suit
SUIT_SPADES: Suit
RANK_UNSPECIFIED: Rank
RANK_NINE: Rank
RANK_JACK: Rank
RANK_QUEEN: Rank
RANK_KING: Rank
RANK_TEN: Rank
RANK_ACE: Rank
RANK_TWO: Rank
RANK_THREE: Rank
RANK_FOUR: Rank
RANK_FIVE: Rank
RANK_SIX: Rank
RANK_SEVEN: Rank
RANK_EIGHT: Rank
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_PLAY: ActionKind
ACTION_KIND_MARRY: ActionKind
ACTION_KIND_EXCHANGE: ActionKind
ACTION_KIND_CLOSE: ActionKind
ACTION_KIND_CLAIM: ActionKind
ACTION_KIND_DRAW: ActionKind
ACTION_KIND_PASS: ActionKind
ACTION_KIND_FINISH: ActionKind
POINT_UNSPECIFIED: Point
POINT_LEAD: Point
POINT_DRAW: Point
POINT_CLOSE_RESPONSE: Point
POINT_FOLLOW: Point
POINT_END: Point
POINT_OVER: Point
TALON_STATE_UNSPECIFIED: TalonState
TALON_STATE_OPEN: TalonState
TALON_STATE_CLOSED: TalonState
TALON_STATE_EXHAUSTED: TalonState
THREE_HANDED_POINT_UNSPECIFIED: ThreeHandedPoint
THREE_HANDED_POINT_TRUMP: ThreeHandedPoint
THREE_HANDED_POINT_LEAD: ThreeHandedPoint
THREE_HANDED_POINT_FOLLOW: ThreeHandedPoint
THREE_HANDED_POINT_END: ThreeHandedPoint
THREE_HANDED_POINT_OVER: ThreeHandedPoint

class BotMessage(_message.Message):
    __slots__ = ("hello", "reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    reply: Reply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., reply: _Optional[_Union[Reply, _Mapping]] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "request", "match_start", "deal_start", "deal_end", "match_end", "goodbye")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    DEAL_START_FIELD_NUMBER: _ClassVar[int]
    DEAL_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    request: DecisionRequest
    match_start: MatchStart
    deal_start: DealStart
    deal_end: DealEnd
    match_end: MatchEnd
    goodbye: Goodbye
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., deal_start: _Optional[_Union[DealStart, _Mapping]] = ..., deal_end: _Optional[_Union[DealEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("name", "version", "protocol_version", "games", "max_concurrent", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: int
    games: _containers.RepeatedScalarFieldContainer[str]
    max_concurrent: int
    token: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., games: _Optional[_Iterable[str]] = ..., max_concurrent: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "protocol_version", "arena_version")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    ARENA_VERSION_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    protocol_version: int
    arena_version: str
    def __init__(self, session_id: _Optional[str] = ..., protocol_version: _Optional[int] = ..., arena_version: _Optional[str] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("move_ms", "bank_ms")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "match_id", "deal_no", "decision_no", "clock", "legal", "sixtysix", "schnapsen", "three_handed", "twenty_two", "four_handed")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    DECISION_NO_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    SIXTYSIX_FIELD_NUMBER: _ClassVar[int]
    SCHNAPSEN_FIELD_NUMBER: _ClassVar[int]
    THREE_HANDED_FIELD_NUMBER: _ClassVar[int]
    TWENTY_TWO_FIELD_NUMBER: _ClassVar[int]
    FOUR_HANDED_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    match_id: str
    deal_no: int
    decision_no: int
    clock: Clock
    legal: _containers.RepeatedCompositeFieldContainer[Action]
    sixtysix: SixtySixObservation
    schnapsen: SixtySixObservation
    three_handed: ThreeHandedObservation
    twenty_two: TwentyTwoObservation
    four_handed: FourHandedObservation
    def __init__(self, request_id: _Optional[int] = ..., match_id: _Optional[str] = ..., deal_no: _Optional[int] = ..., decision_no: _Optional[int] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., legal: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., sixtysix: _Optional[_Union[SixtySixObservation, _Mapping]] = ..., schnapsen: _Optional[_Union[SixtySixObservation, _Mapping]] = ..., three_handed: _Optional[_Union[ThreeHandedObservation, _Mapping]] = ..., twenty_two: _Optional[_Union[TwentyTwoObservation, _Mapping]] = ..., four_handed: _Optional[_Union[FourHandedObservation, _Mapping]] = ...) -> None: ...

class Reply(_message.Message):
    __slots__ = ("request_id", "action", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action: Action
    error: str
    def __init__(self, request_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., error: _Optional[str] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "player", "players", "rules", "clock", "teams")
    class RulesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    player: int
    players: _containers.RepeatedScalarFieldContainer[str]
    rules: _containers.ScalarMap[str, str]
    clock: Clock
    teams: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., player: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., rules: _Optional[_Mapping[str, str]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., teams: _Optional[_Iterable[int]] = ...) -> None: ...

class DealStart(_message.Message):
    __slots__ = ("match_id", "deal_no", "dealer", "seat", "game_score", "seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_SCORE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    deal_no: int
    dealer: int
    seat: int
    game_score: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., deal_no: _Optional[int] = ..., dealer: _Optional[int] = ..., seat: _Optional[int] = ..., game_score: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[int]] = ...) -> None: ...

class DealEnd(_message.Message):
    __slots__ = ("match_id", "deal_no", "deck", "game_score", "points", "sixtysix", "schnapsen", "three_handed", "twenty_two", "four_handed")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    GAME_SCORE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SIXTYSIX_FIELD_NUMBER: _ClassVar[int]
    SCHNAPSEN_FIELD_NUMBER: _ClassVar[int]
    THREE_HANDED_FIELD_NUMBER: _ClassVar[int]
    TWENTY_TWO_FIELD_NUMBER: _ClassVar[int]
    FOUR_HANDED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    deal_no: int
    deck: _containers.RepeatedCompositeFieldContainer[Card]
    game_score: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    sixtysix: SixtySixDealDetail
    schnapsen: SixtySixDealDetail
    three_handed: ThreeHandedDealDetail
    twenty_two: TwentyTwoDealDetail
    four_handed: FourHandedDealDetail
    def __init__(self, match_id: _Optional[str] = ..., deal_no: _Optional[int] = ..., deck: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., game_score: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., sixtysix: _Optional[_Union[SixtySixDealDetail, _Mapping]] = ..., schnapsen: _Optional[_Union[SixtySixDealDetail, _Mapping]] = ..., three_handed: _Optional[_Union[ThreeHandedDealDetail, _Mapping]] = ..., twenty_two: _Optional[_Union[TwentyTwoDealDetail, _Mapping]] = ..., four_handed: _Optional[_Union[FourHandedDealDetail, _Mapping]] = ...) -> None: ...

class SixtySixDealDetail(_message.Message):
    __slots__ = ("tie", "winner", "game_points", "row", "reason")
    TIE_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    GAME_POINTS_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tie: bool
    winner: int
    game_points: int
    row: int
    reason: str
    def __init__(self, tie: _Optional[bool] = ..., winner: _Optional[int] = ..., game_points: _Optional[int] = ..., row: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "game_score", "termination", "detail", "ranks", "teams")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_SCORE_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game_score: _containers.RepeatedScalarFieldContainer[int]
    termination: Termination
    detail: str
    ranks: _containers.RepeatedScalarFieldContainer[int]
    teams: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., game_score: _Optional[_Iterable[int]] = ..., termination: _Optional[_Union[Termination, str]] = ..., detail: _Optional[str] = ..., ranks: _Optional[_Iterable[int]] = ..., teams: _Optional[_Iterable[int]] = ...) -> None: ...

class Card(_message.Message):
    __slots__ = ("suit", "rank", "text")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    rank: Rank
    text: str
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ..., rank: _Optional[_Union[Rank, str]] = ..., text: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "card", "suit", "text")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    card: Card
    suit: Suit
    text: str
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., suit: _Optional[_Union[Suit, str]] = ..., text: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seat", "action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: Action
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class SixtySixObservation(_message.Message):
    __slots__ = ("seat", "to_act", "point", "hand", "trump_suit", "trump_card", "talon_size", "talon_state", "closed", "closed_by", "leader", "trick", "history", "trick_winners", "tricks", "points", "marriages", "opponent_known", "last_drawn", "game_score")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    POINT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_CARD_FIELD_NUMBER: _ClassVar[int]
    TALON_SIZE_FIELD_NUMBER: _ClassVar[int]
    TALON_STATE_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    CLOSED_BY_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    TRICK_WINNERS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    MARRIAGES_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_KNOWN_FIELD_NUMBER: _ClassVar[int]
    LAST_DRAWN_FIELD_NUMBER: _ClassVar[int]
    GAME_SCORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    point: Point
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    trump_suit: Suit
    trump_card: Card
    talon_size: int
    talon_state: TalonState
    closed: bool
    closed_by: int
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[Card]
    history: _containers.RepeatedCompositeFieldContainer[Event]
    trick_winners: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    marriages: _containers.RepeatedScalarFieldContainer[int]
    opponent_known: _containers.RepeatedCompositeFieldContainer[Card]
    last_drawn: Card
    game_score: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., point: _Optional[_Union[Point, str]] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., trump_suit: _Optional[_Union[Suit, str]] = ..., trump_card: _Optional[_Union[Card, _Mapping]] = ..., talon_size: _Optional[int] = ..., talon_state: _Optional[_Union[TalonState, str]] = ..., closed: _Optional[bool] = ..., closed_by: _Optional[int] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., trick_winners: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., marriages: _Optional[_Iterable[int]] = ..., opponent_known: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., last_drawn: _Optional[_Union[Card, _Mapping]] = ..., game_score: _Optional[_Iterable[int]] = ...) -> None: ...

class FourHandedObservation(_message.Message):
    __slots__ = ("seat", "to_act", "point", "hand", "trump_suit", "trump_card", "leader", "trick", "history", "points", "tricks", "game_score", "team")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    POINT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_CARD_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    GAME_SCORE_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    point: Point
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    trump_suit: Suit
    trump_card: Card
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[Event]
    history: _containers.RepeatedCompositeFieldContainer[Event]
    points: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedScalarFieldContainer[int]
    game_score: _containers.RepeatedScalarFieldContainer[int]
    team: int
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., point: _Optional[_Union[Point, str]] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., trump_suit: _Optional[_Union[Suit, str]] = ..., trump_card: _Optional[_Union[Card, _Mapping]] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., points: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[int]] = ..., game_score: _Optional[_Iterable[int]] = ..., team: _Optional[int] = ...) -> None: ...

class FourHandedDealDetail(_message.Message):
    __slots__ = ("tie", "winner", "game_points", "carried", "points", "tricks", "reason")
    TIE_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    GAME_POINTS_FIELD_NUMBER: _ClassVar[int]
    CARRIED_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tie: bool
    winner: int
    game_points: int
    carried: int
    points: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, tie: _Optional[bool] = ..., winner: _Optional[int] = ..., game_points: _Optional[int] = ..., carried: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...

class ThreeHandedObservation(_message.Message):
    __slots__ = ("seat", "to_act", "point", "hand", "trump", "trump_card", "leader", "trick", "history", "points", "tricks", "marriages", "game_score")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    POINT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    TRUMP_CARD_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    MARRIAGES_FIELD_NUMBER: _ClassVar[int]
    GAME_SCORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    point: ThreeHandedPoint
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    trump: Suit
    trump_card: Card
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[Event]
    history: _containers.RepeatedCompositeFieldContainer[Event]
    points: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedScalarFieldContainer[int]
    marriages: _containers.RepeatedScalarFieldContainer[int]
    game_score: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., point: _Optional[_Union[ThreeHandedPoint, str]] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., trump: _Optional[_Union[Suit, str]] = ..., trump_card: _Optional[_Union[Card, _Mapping]] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., points: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[int]] = ..., marriages: _Optional[_Iterable[int]] = ..., game_score: _Optional[_Iterable[int]] = ...) -> None: ...

class ThreeHandedDealDetail(_message.Message):
    __slots__ = ("claimed", "winner", "game_points", "trump", "reason")
    CLAIMED_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    GAME_POINTS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    claimed: bool
    winner: int
    game_points: int
    trump: str
    reason: str
    def __init__(self, claimed: _Optional[bool] = ..., winner: _Optional[int] = ..., game_points: _Optional[int] = ..., trump: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class TwentyTwoObservation(_message.Message):
    __slots__ = ("seat", "to_act", "point", "hand", "leader", "trick", "bar", "tricks", "stock", "hand_sizes", "discards", "seats", "totals", "kept", "eliminated")
    class Point(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        POINT22_UNSPECIFIED: _ClassVar[TwentyTwoObservation.Point]
        POINT22_EXCHANGE: _ClassVar[TwentyTwoObservation.Point]
        POINT22_LEAD: _ClassVar[TwentyTwoObservation.Point]
        POINT22_FOLLOW: _ClassVar[TwentyTwoObservation.Point]
        POINT22_OVER: _ClassVar[TwentyTwoObservation.Point]
    POINT22_UNSPECIFIED: TwentyTwoObservation.Point
    POINT22_EXCHANGE: TwentyTwoObservation.Point
    POINT22_LEAD: TwentyTwoObservation.Point
    POINT22_FOLLOW: TwentyTwoObservation.Point
    POINT22_OVER: TwentyTwoObservation.Point
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    POINT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    BAR_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    STOCK_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    point: TwentyTwoObservation.Point
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[TwentyTwoPlay]
    bar: _containers.RepeatedScalarFieldContainer[Rank]
    tricks: _containers.RepeatedCompositeFieldContainer[TwentyTwoTrick]
    stock: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    discards: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    kept: _containers.RepeatedCompositeFieldContainer[TwentyTwoCards]
    eliminated: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., point: _Optional[_Union[TwentyTwoObservation.Point, str]] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[TwentyTwoPlay, _Mapping]]] = ..., bar: _Optional[_Iterable[_Union[Rank, str]]] = ..., tricks: _Optional[_Iterable[_Union[TwentyTwoTrick, _Mapping]]] = ..., stock: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., discards: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., kept: _Optional[_Iterable[_Union[TwentyTwoCards, _Mapping]]] = ..., eliminated: _Optional[_Iterable[int]] = ...) -> None: ...

class TwentyTwoPlay(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class TwentyTwoTrick(_message.Message):
    __slots__ = ("leader", "plays", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[TwentyTwoPlay]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[TwentyTwoPlay, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class TwentyTwoCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class TwentyTwoDealDetail(_message.Message):
    __slots__ = ("losers", "revealed", "penalty", "eliminated")
    LOSERS_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    losers: _containers.RepeatedScalarFieldContainer[int]
    revealed: _containers.RepeatedCompositeFieldContainer[Card]
    penalty: int
    eliminated: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, losers: _Optional[_Iterable[int]] = ..., revealed: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., penalty: _Optional[int] = ..., eliminated: _Optional[_Iterable[int]] = ...) -> None: ...
