"""The outside tools some tests need, found once per run.

A test says what it needs with ``@pytest.mark.needs("tmux")`` (or a module's ``pytestmark``); the hook in
``conftest.py`` skips it where the tool is missing and fails it under ``CI``, where ``.ci/run`` installs
every one, so that a tool that failed to install never passes as a quiet skip.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from pathlib import Path

from harness.arena import sandbox

ROOT = Path(__file__).resolve().parent.parent
NODE_BOT = ROOT / "sample_bots" / "node"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TMUX = shutil.which("tmux")
NODE = shutil.which("node")
NODE_PACKAGES = ("grpc-js", "proto-loader")


def _chromium() -> str | None:
    return None if CHROMIUM else "chromium is not installed"


def _tmux() -> str | None:
    return None if TMUX else "tmux is not installed"


def _node() -> str | None:
    return None if NODE else "node is not installed"


def _node_bot() -> str | None:
    missing = [p for p in NODE_PACKAGES if not (NODE_BOT / "node_modules" / "@grpc" / p).is_dir()]
    if NODE is None or missing:
        return _node() or f"the Node bot's packages are missing (@grpc/{', @grpc/'.join(missing)}; `make node`)"
    return None


def _sandbox() -> str | None:
    path, why = sandbox.probe()
    return None if path else f"no sandbox here: {why}"


CHECKS: dict[str, Callable[[], str | None]] = {
    "chromium": _chromium, "tmux": _tmux, "node": _node, "node-bot": _node_bot, "sandbox": _sandbox,
}


@functools.cache
def missing(tool: str) -> str | None:
    """Why ``tool`` cannot be used here, or None when it can. KeyError names an unknown tool.

    >>> missing("no such tool")
    Traceback (most recent call last):
    ...
    KeyError: "unknown tool 'no such tool' (known: chromium, tmux, node, node-bot, sandbox)"
    """
    if tool not in CHECKS:
        raise KeyError(f"unknown tool {tool!r} (known: {', '.join(CHECKS)})")
    return CHECKS[tool]()
