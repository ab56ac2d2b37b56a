"""Write the leaderboard files: leaderboard.{md,json,html}, each replaced atomically, and the page of
every match the board has a record of (written beside the record when missing or stale)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from harness.leaderboard import Board, feed, markdown, page

FILES = ("leaderboard.md", "leaderboard.json", "leaderboard.html")


def write(board: Board, out: str | Path) -> list[Path]:
    """Write the three leaderboard files into ``out`` (created if missing); returns their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if board.records:  # issue 16: each match's page beside its record, linked relative to this folder
        from harness.viewer.files import ensure_pages, links

        board = dataclasses.replace(board, pages=links(ensure_pages(board.records), out))
    paths = []
    for name, text in zip(FILES, (markdown.render(board), feed.render(board), page.render(board))):
        path = out / name
        tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths.append(path)
    return paths
