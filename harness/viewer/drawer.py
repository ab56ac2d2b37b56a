"""A page drawer (issue 18): ``python -m harness.viewer.drawer --parent=PID``.

It reads record paths on stdin, one a line, until EOF; then draws each record's page beside it
(:func:`harness.viewer.files.write_page`) and answers one line per path on stdout, in order: ``1`` drawn,
``0`` the record cannot be read. It dies with its parent. :func:`harness.viewer.files.ensure_pages`
starts one per core when a tournament's end leaves many pages to draw.
"""

from __future__ import annotations

import os
import sys

from harness.lifeline import die_with_parent

from .files import write_page


def main(argv: list[str]) -> int:
    parent = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--parent=")), os.getppid())
    die_with_parent(parent)
    records = sys.stdin.read().splitlines()
    answers = []
    for record in records:
        try:
            write_page(record)
        except (OSError, ValueError):
            answers.append("0")
        else:
            answers.append("1")
    sys.stdout.write("".join(f"{a}\n" for a in answers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
