"""The ``needs`` mark (tests/tools.py, the hook in conftest.py): a test whose tool is missing is skipped,
saying why, and under CI, where .ci/run installs every tool, it fails instead of passing as a skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tools

HERE = Path(__file__).resolve().parent
PROBE = '''
import pytest

import tools

tools.CHECKS["gadget"] = lambda: "gadget is not installed"
tools.CHECKS["tool"] = lambda: None


@pytest.mark.needs("gadget")
def test_with_the_gadget():
    pass


@pytest.mark.needs("tool")
def test_with_the_tool():
    pass
'''


def _run(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"PYTHONPATH": str(HERE)}
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "conftest", "-p", "no:cacheprovider",
                           "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path / "test_probe.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ci", [False, True], ids=["locally", "in-ci"])
def test_a_missing_tool_skips_locally_and_fails_in_ci(tmp_path: Path, ci: bool) -> None:
    r = _run(tmp_path, ci)
    if ci:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "gadget is required in CI (.ci/run installs it): gadget is not installed" in r.stdout, r.stdout
        assert "1 passed, 1 error" in r.stdout, r.stdout
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "SKIPPED [1]" in r.stdout and "gadget is not installed" in r.stdout, r.stdout
        assert "1 passed, 1 skipped" in r.stdout, r.stdout


def test_an_unknown_tool_is_named() -> None:
    with pytest.raises(KeyError, match="unknown tool 'chromim'"):
        tools.missing("chromim")
