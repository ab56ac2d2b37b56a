"""A page drawer (issue 18): ``python -m harness.viewer.drawer --parent=PID``.

It reads record paths on stdin, one a line, until EOF; then draws each record's page beside it
(:func:`harness.viewer.files.draw`) and answers one line per path on stdout, in order: ``1`` drawn,
``0`` the record cannot be read. It dies with its parent. :func:`harness.viewer.files.ensure_pages`
starts one per core when a tournament's end leaves many pages to draw.
"""

from __future__ import annotations

import sys

from harness.lifeline import die_with_parent, parent_of

from .files import draw


def main(argv: list[str]) -> int:
    die_with_parent(parent_of(argv))
    sys.stdout.write("".join("1\n" if draw(r) else "0\n" for r in sys.stdin.read().splitlines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
