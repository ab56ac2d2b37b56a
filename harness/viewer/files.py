"""Read records and write their pages: ``match.jsonl`` gets ``match.html`` beside it.

The only I/O of the viewer. A page is rewritten only when it is missing or older than its record, so
publishing a leaderboard after every league round costs one page per new match.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from harness.arena.record import read_checked
from harness.lifeline import cores

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


DRAWER_BYTES = 256 * 1024  # stale records' bytes per extra drawer process (~0.6-2 s of drawing; one starts in ~0.3 s)


def ensure_pages(records: Mapping[str, str | Path | None], jobs: int | None = None) -> dict[str, Path]:
    """The page of every readable record (``match_id -> record path``), written where missing or older than
    its record; records that cannot be read get no page (and no link).

    Issue 18: when the stale records hold over twice :data:`DRAWER_BYTES` (a tournament's end draws a page per
    match), up to ``jobs`` processes (default: one per core) draw them, each page as :func:`write_page` does."""
    pages: dict[str, Path] = {}
    stale: list[tuple[str, str]] = []
    size = 0
    for match_id, record in records.items():
        if not record:
            continue
        page = page_path(record)
        try:
            st = Path(record).stat()
            if not page.exists() or page.stat().st_mtime < st.st_mtime:
                stale.append((match_id, str(record)))
                size += st.st_size
        except OSError:
            continue
        pages[match_id] = page
    for i in _draw_all([record for _, record in stale], min(jobs or cores(), size // DRAWER_BYTES)):
        pages.pop(stale[i][0], None)
    return pages


def draw(record: str) -> bool:
    """Write one record's page beside it; False when the record cannot be read."""
    try:
        write_page(record)
    except (OSError, ValueError):
        return False
    return True


def _draw_all(records: list[str], drawers: int) -> list[int]:
    """Draw the pages of ``records``; returns the indexes of those that could not be drawn.

    With more than one drawer (:mod:`harness.viewer.drawer`), drawer ``k`` of ``n`` takes records ``k``,
    ``k + n``, ...; what a drawer did not answer (it could not start, or died) is drawn here."""
    n = min(drawers, len(records))
    done: list[bool | None] = [None] * len(records)
    if n > 1:
        root = str(Path(__file__).resolve().parents[2])  # the drawers import this harness, wherever they start
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        procs = []
        for k in range(n):
            try:
                procs.append(subprocess.Popen([sys.executable, "-m", "harness.viewer.drawer", f"--parent={os.getpid()}"],
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env))
            except OSError:
                break
        for k, p in enumerate(procs):
            assert p.stdin is not None
            with contextlib.suppress(OSError), p.stdin:  # a drawer that died: its records are drawn below
                p.stdin.write("".join(f"{r}\n" for r in records[k::len(procs)]))
        for k, p in enumerate(procs):
            assert p.stdout is not None
            with p.stdout:
                answers = p.stdout.read().split()
            p.wait()
            for i, answer in zip(range(k, len(records), len(procs)), answers):
                done[i] = answer == "1"
    return [i for i, ok in enumerate(done) if not (draw(records[i]) if ok is None else ok)]


def links(pages: Mapping[str, Path], base: Path | str) -> dict[str, str]:
    """Each page as a link relative to the folder ``base`` (a page beside the leaderboard is ``name.html``),
    so the results folder can be moved as a whole.

    >>> links({"m": Path("/r/records/t/m.html")}, "/r")
    {'m': 'records/t/m.html'}
    """
    root = os.path.abspath(base)
    return {m: quote(Path(os.path.relpath(os.path.abspath(p), root)).as_posix()) for m, p in pages.items()}
