"""Generate the Python protobuf and gRPC code from ``proto/`` (the only way it is generated).

Run ``python -m harness.wire.generate`` after editing a ``.proto`` file, and commit the result.
The generator is grpcio-tools, pinned in the ``dev`` extra, so the output is reproducible and
``tests/test_proto_fresh.py`` can tell when the committed code is stale.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROTO_ROOT = REPO / "proto"
PROTOS = ("arena/v1/arena.proto", "arena/v1/league.proto")
OUT = Path(__file__).resolve().parent
FILES = tuple(f"{Path(p).stem}{suffix}" for p in PROTOS for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py"))


def generate(out: Path = OUT) -> list[Path]:
    """Run protoc on every file in ``PROTOS``; write three modules per file into ``out``."""
    from grpc_tools import protoc  # dev extra only: importing it at module level would need it at run time

    include = Path(protoc.__file__).resolve().parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{include}",
            f"--python_out={tmp}", f"--pyi_out={tmp}", f"--grpc_python_out={tmp}", *PROTOS,
        ]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {', '.join(PROTOS)}")
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in FILES:
            src = Path(tmp) / "arena" / "v1" / name
            text = _relative_imports(src.read_text())
            dst = out / name
            dst.write_text(text)
            written.append(dst)
    return written


def _relative_imports(text: str) -> str:
    """Make ``from arena.v1 import arena_pb2`` (or ``league_pb2``) package-relative, so the code lives under harness.wire."""
    return re.sub(r"^from arena\.v1 import ", "from . import ", text, flags=re.M)


def main() -> int:
    for path in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
