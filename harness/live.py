"""The one factory of rich ``Live`` displays.

Only the ``arena`` command line shows live views; its command bodies (match, tournament) take
their display from here, so that no package imports ``harness.cli`` and no other module builds a
``Live`` of its own.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console, RenderableType
from rich.live import Live


def live_display(get_renderable: Callable[[], RenderableType], console: Console, refresh_per_second: float = 4,
                 transient: bool = False) -> Live:
    """A ``Live`` view redrawn from ``get_renderable`` (not started: use it as a context manager)."""
    return Live(get_renderable=get_renderable, console=console, refresh_per_second=refresh_per_second,
                transient=transient)
