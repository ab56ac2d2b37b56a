from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterRequest(_message.Message):
    __slots__ = ("name", "owner", "owner_secret")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNER_SECRET_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    owner_secret: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., owner_secret: _Optional[str] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("entrant", "version", "token", "owner_secret")
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    OWNER_SECRET_FIELD_NUMBER: _ClassVar[int]
    entrant: str
    version: int
    token: str
    owner_secret: str
    def __init__(self, entrant: _Optional[str] = ..., version: _Optional[int] = ..., token: _Optional[str] = ..., owner_secret: _Optional[str] = ...) -> None: ...

class RetireRequest(_message.Message):
    __slots__ = ("owner", "name", "token", "owner_secret")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    OWNER_SECRET_FIELD_NUMBER: _ClassVar[int]
    owner: str
    name: str
    token: str
    owner_secret: str
    def __init__(self, owner: _Optional[str] = ..., name: _Optional[str] = ..., token: _Optional[str] = ..., owner_secret: _Optional[str] = ...) -> None: ...

class RetireResponse(_message.Message):
    __slots__ = ("entrant",)
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    entrant: str
    def __init__(self, entrant: _Optional[str] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("include_retired",)
    INCLUDE_RETIRED_FIELD_NUMBER: _ClassVar[int]
    include_retired: bool
    def __init__(self, include_retired: _Optional[bool] = ...) -> None: ...

class WatchLeaderboardRequest(_message.Message):
    __slots__ = ("include_retired",)
    INCLUDE_RETIRED_FIELD_NUMBER: _ClassVar[int]
    include_retired: bool
    def __init__(self, include_retired: _Optional[bool] = ...) -> None: ...

class LeaderboardRow(_message.Message):
    __slots__ = ("rank", "entrant", "owner", "name", "version", "mu", "sigma", "conservative", "played", "wins", "points_for", "points_against", "pairs_won", "pairs_split", "pairs_lost", "failures", "provisional", "connected", "retired", "operator", "p_above_next")
    class FailuresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    RANK_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    CONSERVATIVE_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FOR_FIELD_NUMBER: _ClassVar[int]
    POINTS_AGAINST_FIELD_NUMBER: _ClassVar[int]
    PAIRS_WON_FIELD_NUMBER: _ClassVar[int]
    PAIRS_SPLIT_FIELD_NUMBER: _ClassVar[int]
    PAIRS_LOST_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    P_ABOVE_NEXT_FIELD_NUMBER: _ClassVar[int]
    rank: int
    entrant: str
    owner: str
    name: str
    version: int
    mu: float
    sigma: float
    conservative: float
    played: int
    wins: int
    points_for: int
    points_against: int
    pairs_won: int
    pairs_split: int
    pairs_lost: int
    failures: _containers.ScalarMap[str, int]
    provisional: bool
    connected: bool
    retired: bool
    operator: bool
    p_above_next: float
    def __init__(self, rank: _Optional[int] = ..., entrant: _Optional[str] = ..., owner: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., conservative: _Optional[float] = ..., played: _Optional[int] = ..., wins: _Optional[int] = ..., points_for: _Optional[int] = ..., points_against: _Optional[int] = ..., pairs_won: _Optional[int] = ..., pairs_split: _Optional[int] = ..., pairs_lost: _Optional[int] = ..., failures: _Optional[_Mapping[str, int]] = ..., provisional: _Optional[bool] = ..., connected: _Optional[bool] = ..., retired: _Optional[bool] = ..., operator: _Optional[bool] = ..., p_above_next: _Optional[float] = ...) -> None: ...

class Leaderboard(_message.Message):
    __slots__ = ("title", "rounds", "matches", "provisional_below", "updated", "rows")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_BELOW_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    title: str
    rounds: int
    matches: int
    provisional_below: int
    updated: str
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    def __init__(self, title: _Optional[str] = ..., rounds: _Optional[int] = ..., matches: _Optional[int] = ..., provisional_below: _Optional[int] = ..., updated: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ...) -> None: ...
