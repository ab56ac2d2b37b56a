"""The tests' shared setup: the project root on ``sys.path``, and the ``needs`` mark (:mod:`tools`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tools  # noqa: E402 - after the root is on sys.path: it imports the harness


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs(tool): the test needs an outside tool (see tests/tools.py)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test whose tool is missing; under CI, where .ci/run installs every tool, fail it instead."""
    for mark in item.iter_markers("needs"):
        why = tools.missing(mark.args[0])
        if why is not None:
            if os.environ.get("CI"):
                pytest.fail(f"{mark.args[0]} is required in CI (.ci/run installs it): {why}", pytrace=False)
            pytest.skip(why)
