"""The one rule for names that become file names, ids and labels: entrants, remote bots,
tournaments, league entrants and owners (issue 11: ``remote:../../x`` must not reach a path).

>>> [valid_name(n) for n in ("greedy-2", "a.b_c+d", "..", "../x", "a..b", "-x", "a b", "x" * 41)]
[True, True, False, False, False, False, False, False]
"""

from __future__ import annotations

import re

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}")
RULE = "letters, digits, _ . + -, a letter or digit first, no '..', at most 40"


def valid_name(name: object) -> bool:
    """Whether ``name`` may name an entrant, a bot, a tournament or an owner."""
    return isinstance(name, str) and NAME.fullmatch(name) is not None and ".." not in name
