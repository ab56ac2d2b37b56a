"""The committed generated code is exactly what the pinned generator makes from proto/."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

from harness.wire import generate

pytest.importorskip("grpc_tools", reason="grpcio-tools comes with the dev extra")


def test_generator_version_is_the_pinned_one() -> None:
    pyproject = (generate.REPO / "pyproject.toml").read_text()
    pinned = re.search(r'"grpcio-tools==([^"]+)"', pyproject)
    assert pinned, "pyproject.toml must pin grpcio-tools exactly in the dev extra"
    assert importlib.metadata.version("grpcio-tools") == pinned.group(1)


def test_committed_code_is_fresh(tmp_path: Path) -> None:
    generate.generate(tmp_path)
    for name in generate.FILES:
        committed = (generate.OUT / name).read_bytes()
        fresh = (tmp_path / name).read_bytes()
        assert committed == fresh, f"harness/wire/{name} is stale: run `python -m harness.wire.generate`"


def test_every_proto_file_is_generated() -> None:
    protos = sorted(p.relative_to(generate.PROTO_ROOT).as_posix() for p in generate.PROTO_ROOT.rglob("*.proto"))
    assert sorted(generate.PROTOS) == protos
    for stem in ("arena", "league"):
        assert {f"{stem}_pb2.py", f"{stem}_pb2.pyi", f"{stem}_pb2_grpc.py"} <= set(generate.FILES)
