"""Secrets, their keyed hashes, name checks and per-peer rate limits.

Tokens and owner secrets are 32 random bytes, shown once. The league stores only
HMAC-SHA256(key, secret), with the key in a file of its own next to the database (mode 0600),
so a copy of the database alone does not let anyone check guesses.

>>> h = Hasher(b"k" * 32)
>>> h.hash("abc") == h.hash("abc") != h.hash("abd")
True
>>> name_problem("random-bot_2"), name_problem("..")
(None, "'..' is not a name (letters, digits, _ . + -, a letter or digit first, no '..', at most 40)")
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from harness.names import RULE, valid_name



def new_secret() -> str:
    """32 random bytes, URL-safe, never starting with '-' (which a command line would take for an option).

    >>> all(not new_secret().startswith("-") for _ in range(200))
    True
    """
    return "s" + secrets.token_urlsafe(32)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be an entrant or owner name, or None (the one rule: :mod:`harness.names`)."""
    if not valid_name(name):
        return f"{name[:60]!r} is not a name ({RULE})"
    return None


class Hasher:
    """Keyed hashes of secrets."""

    def __init__(self, key: bytes) -> None:
        self.key = key

    @classmethod
    def for_db(cls, db: str | Path) -> Hasher:
        """The key in ``<db>.key``, created (0600) on first use."""
        path = Path(f"{db}.key")
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
        return cls(path.read_bytes())

    def hash(self, secret: str) -> str:
        return hmac.new(self.key, secret.encode("utf-8", "replace"), hashlib.sha256).hexdigest()

    def matches(self, secret: str, stored: str | None) -> bool:
        return stored is not None and hmac.compare_digest(self.hash(secret), stored)


def peer_host(peer: str) -> str:
    """The host part of a gRPC peer string, the key for rate limits.

    >>> peer_host("ipv4:127.0.0.1:53122"), peer_host("ipv6:[::1]:4000"), peer_host("unix:/tmp/s")
    ('127.0.0.1', '::1', 'unix')
    """
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return kind or "unknown"


class RateLimit:
    """Token buckets keyed by peer host: ``burst`` at once, refilled at ``per_minute``.

    >>> r = RateLimit(per_minute=60, burst=2, clock=lambda: 0.0)
    >>> [r.allow("h") for _ in range(3)], r.allow("other")
    ([True, True, False], True)
    """

    MAX_KEYS = 10_000

    def __init__(self, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # host -> (tokens, at)

    def allow(self, key: str) -> bool:
        t = self.clock()
        tokens, at = self._buckets.pop(key, (self.burst, t))
        tokens = min(self.burst, tokens + (t - at) * self.rate)
        ok = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if ok else tokens, t)  # re-inserted last: the dict is LRU-ordered
        if len(self._buckets) > self.MAX_KEYS:
            del self._buckets[next(iter(self._buckets))]
        return ok
