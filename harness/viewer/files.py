"""Read records and write their pages: ``match.jsonl`` gets ``match.html`` beside it.

The only I/O of the viewer. A page is rewritten only when it is missing or older than its record, so
publishing a leaderboard after every league round costs one page per new match.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from harness.arena.record import read_checked

from .page import render

SUFFIX = ".html"


def page_path(record: Path | str) -> Path:
    """Where the page of ``record`` goes: beside it, ``.jsonl`` replaced by ``.html``.

    >>> page_path("results/records/a-vs-b-s1.jsonl").as_posix()
    'results/records/a-vs-b-s1.html'
    """
    p = Path(record)
    return p.with_suffix(SUFFIX) if p.suffix == ".jsonl" else p.with_name(p.name + SUFFIX)


def write_page(record: Path | str, out: Path | str | None = None, seat: int | None = None) -> Path:
    """Write the page of ``record`` to ``out`` (default: beside the record), atomically; returns its path.
    OSError when the record cannot be read; ValueError when it has no header line."""
    lines, _ = read_checked(record)  # a damaged tail is drawn as far as it reads; the page says where it stops
    if not lines or lines[0].get("type") != "header":
        raise ValueError(f"{record}: not a match record (no header line)")
    target = Path(out) if out is not None else page_path(record)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(render(lines, seat), encoding="utf-8")
    tmp.replace(target)
    return target


def ensure_pages(records: Mapping[str, str | Path | None]) -> dict[str, Path]:
    """The page of every readable record (``match_id -> record path``), written where missing or older than
    its record; records that cannot be read get no page (and no link)."""
    pages: dict[str, Path] = {}
    for match_id, record in records.items():
        if not record:
            continue
        page = page_path(record)
        try:
            if not page.exists() or page.stat().st_mtime < Path(record).stat().st_mtime:
                write_page(record, page)
        except (OSError, ValueError):
            continue
        pages[match_id] = page
    return pages


def links(pages: Mapping[str, Path], base: Path | str) -> dict[str, str]:
    """Each page as a link relative to the folder ``base`` (a page beside the leaderboard is ``name.html``),
    so the results folder can be moved as a whole.

    >>> links({"m": Path("/r/records/t/m.html")}, "/r")
    {'m': 'records/t/m.html'}
    """
    root = os.path.abspath(base)
    return {m: quote(Path(os.path.relpath(os.path.abspath(p), root)).as_posix()) for m, p in pages.items()}
