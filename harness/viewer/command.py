"""Body of ``arena view RECORD [--out FILE] [--seat N]`` (argparse is wired in harness/cli.py)."""

from __future__ import annotations

from argparse import Namespace
import sys
from pathlib import Path

from harness.arena.record import read_checked

from .files import page_path, write_page


def _usage(message: str) -> int:
    """Bad input: one line on stderr, exit status 2."""
    print(f"arena: {message}", file=sys.stderr)
    return 2


def cmd_view(args: Namespace) -> int:
    """Write the match page of a record; exit 0, or 2 with one line for a record that cannot be read."""
    record = Path(args.record)
    try:
        lines, damage = read_checked(record)
    except OSError as e:
        return _usage(f"cannot read {record}: {e.strerror or e}")
    if not lines or lines[0].get("type") != "header":
        return _usage(f"{record}: not a match record (no header line{'; ' + damage if damage else ''})")
    players = lines[0].get("players") or []
    seat = getattr(args, "seat", None)
    if seat is not None and not 0 <= seat < len(players):
        return _usage(f"--seat {seat}: the match has players 0 to {len(players) - 1}")
    out = Path(args.out) if getattr(args, "out", None) else page_path(record)
    try:
        path = write_page(record, out, seat)
    except (OSError, ValueError) as e:
        return _usage(f"cannot write {out}: {getattr(e, 'strerror', None) or e}")
    print(f"match page: {path}")
    if damage:
        print(f"arena: {record}: {damage}; the page shows the match up to there", file=sys.stderr)
    return 0
