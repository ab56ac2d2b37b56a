"""Deal books: a file of match seeds to play in order, so that a set of hard deals can be replayed
against every new version of a bot (``--deals FILE`` of ``arena match``, ``arena duel`` and
``arena tournament``).

A book is plain text, one entry per line::

    # hard deals for the endgame code
    4242                     a seed
    918273645 lost-on-close  a seed and a label (the rest of the line, up to 80 characters)

Blank lines and lines starting with ``#`` are skipped; `` #`` starts a comment after an entry. An
entry is a *match seed*, as every record's header shows it (``"seed": ...``): a match deals many
times and the seed fixes every one of its deals (for each player, whoever deals, so both legs of a
duplicate pair get the same cards from it). A deck is not an entry: one deck fixes only one deal of
a match, and the game interface starts a match from a seed only. A record's entry is named in its
header (``"book": {"file", "entry", "line", "label"}``); records played without a book have no such
field.

>>> b = parse("# hard\\n42\\n7 close-early # lost twice\\n", "hard.txt")
>>> [(e.no, e.line, e.seed, e.label) for e in b.entries]
[(1, 2, 42, ''), (2, 3, 7, 'close-early')]
>>> b.entries[1].header(b)
{'file': 'hard.txt', 'entry': 2, 'line': 3, 'label': 'close-early'}
>>> try:
...     parse("42\\n9C TC JC\\n", "b.txt")
... except BookError as e:
...     print(e)
deal book 'b.txt', line 2: '9C' is not a seed: a book lists match seeds (a record's header gives its seed), not decks
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.tournament.schedule import Pairing

MAX_SEED = 2**63 - 1  # seeds are stored as SQLite integers
MAX_LABEL = 80
MAX_ENTRIES = 100_000
CARD = re.compile(r"(?:[9JQKTA78]|10)[CDHS]", re.IGNORECASE)
LABEL = re.compile(r"[^\x00-\x1f\x7f]*")


class BookError(ValueError):
    """A deal book that cannot be used; the message is one line naming the file and the line."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a book: its number (1-based, in file order), its line, the seed and a label."""

    no: int
    line: int
    seed: int
    label: str = ""

    def header(self, book: Book) -> dict[str, Any]:
        """The record header's ``book`` field for a match of this entry."""
        return {"file": book.name, "entry": self.no, "line": self.line, **({"label": self.label} if self.label else {})}


@dataclass(frozen=True, slots=True)
class Book:
    """A loaded deal book: its name (the path as given) and its entries in order."""

    name: str
    entries: tuple[Entry, ...]

    def __len__(self) -> int:
        return len(self.entries)

    def entry(self, k: int) -> Entry:
        """The entry for the ``k``-th unit of play (0-based), cycling when there are more units."""
        return self.entries[k % len(self.entries)]

    def digest(self) -> str:
        """A short fingerprint of the seeds in order (what a resumed tournament must find again)."""
        text = " ".join(str(e.seed) for e in self.entries)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def identity(self) -> dict[str, Any]:
        """What a resumed tournament must find again: the seeds in order, wherever the file now lies."""
        return {"entries": len(self.entries), "digest": self.digest()}

    def to_dict(self) -> dict[str, Any]:
        """For summaries: the file as given, and :meth:`identity`."""
        return {"file": self.name, **self.identity()}


def load(path: str | Path) -> Book:
    """Read a book; BookError names the file and what is wrong in one line."""
    name = str(path)
    where = f"deal book '{_show(name, 200)}'"
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise BookError(f"{where} not found") from None
    except IsADirectoryError:
        raise BookError(f"{where} is a directory") from None
    except OSError as e:
        raise BookError(f"cannot read {where}: {e.strerror or e}") from None
    except ValueError:  # a NUL character in the path
        raise BookError(f"{where}: not a usable path") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise BookError(f"{where}, line {line}: not UTF-8 text") from None
    return parse(text, name)


def parse(text: str, name: str) -> Book:
    """The book in ``text`` (named ``name`` in messages and records); BookError on a bad line."""
    where = f"deal book '{_show(name, 200)}'"
    entries: list[Entry] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        body = re.split(r"\s#", body, maxsplit=1)[0].strip()
        word, label = (body.split(None, 1) + [""])[:2]
        label = label.strip()
        at = f"{where}, line {line_no}"
        if not word.isdigit() or not word.isascii():
            if CARD.fullmatch(word):
                raise BookError(f"{at}: {_show(word)!r} is not a seed: a book lists match seeds (a record's header "
                                "gives its seed), not decks")
            raise BookError(f"{at}: {_show(word)!r} is not a seed (a whole number from 0 to {MAX_SEED})")
        if len(word) > 19 or int(word) > MAX_SEED:
            raise BookError(f"{at}: seed {_show(word)} is above {MAX_SEED}")
        if len(label) > MAX_LABEL or not LABEL.fullmatch(label):
            raise BookError(f"{at}: the label must be printable and at most {MAX_LABEL} characters")
        entries.append(Entry(len(entries) + 1, line_no, int(word), label))
        if len(entries) > MAX_ENTRIES:
            raise BookError(f"{at}: more than {MAX_ENTRIES} entries")
    if not entries:
        raise BookError(f"{where} has no entries (one seed per line; # starts a comment)")
    return Book(name, tuple(entries))


def _show(text: str, width: int = 60) -> str:
    """A user's text for a message: one line, control characters escaped, at most ``width``."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= width else text[: width - 1] + "…"


def unit_entries(pairings: Iterable[Pairing], book: Book) -> dict[str, Entry]:
    """The book entry of each unit (duplicate pair or table, ``pair_id``) of a schedule: units take the
    entries in schedule order, starting again from the first when the schedule has more units."""
    out: dict[str, Entry] = {}
    for p in pairings:
        if p.pair_id not in out:
            out[p.pair_id] = book.entry(len(out))
    return out


def book_seeded(pairings: Iterable[Pairing], book: Book) -> list[Pairing]:
    """The schedule with every leg of each unit on the seed of its book entry (:func:`unit_entries`).

    >>> from harness.tournament.schedule import round_robin
    >>> b = parse("5\\n6\\n", "b")
    >>> [(p.match_id, p.seed) for p in book_seeded(round_robin(["A", "B", "C"], 1, 0), b)][:6]
    [('001-01-01-a', 5), ('001-01-01-b', 5), ('001-02-01-a', 6), ('001-02-01-b', 6), ('001-03-01-a', 5), ('001-03-01-b', 5)]
    """
    made = list(pairings)
    entries = unit_entries(made, book)
    return [replace(p, seed=entries[p.pair_id].seed) for p in made]
