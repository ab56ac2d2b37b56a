"""The arena: gRPC server, bot processes, time control, the match loop and match records."""

from .entrant import Entrant
from .limits import Limits
from .match import play_match
from .result import Cause, Clock, Fault, MatchResult
from .server import Arena, Session

__all__ = ["Arena", "Cause", "Clock", "Entrant", "Fault", "Limits", "MatchResult", "Session", "play_match"]
