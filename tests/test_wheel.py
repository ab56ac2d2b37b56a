"""``make wheel`` (issue 14, item 5): an installable wheel of the SDK and the harness for bot authors
on other machines. Built with pip exactly as the Makefile does; its contents are checked, and a copy
installed into an empty directory imports and runs ``harness.sdk`` from there, outside the repo."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_wheel_builds_an_installable_sdk(tmp_path: Path) -> None:
    target = re.search(r"^wheel:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert target, "the Makefile has no wheel target"
    assert "pip wheel" in target.group(1)
    src = tmp_path / "src"  # a copy, so that setuptools' build/ is not left in the work tree
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "harness", src / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(src)],
                   check=True, capture_output=True, timeout=600, cwd=tmp_path)
    wheels = list(dist.glob("sixtysix_arena-*-py3-none-any.whl"))
    assert len(wheels) == 1, list(dist.iterdir())
    with zipfile.ZipFile(wheels[0]) as z:
        names = set(z.namelist())
        for needed in ("harness/sdk/__init__.py", "harness/sdk/client.py", "harness/wire/arena_pb2.py",
                       "harness/wire/codecs.py", "harness/games/registry.py", "harness/arena/launch.py"):
            assert needed in names, needed
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for dep in ("grpcio", "protobuf", "psutil"):
        assert re.search(rf"^Requires-Dist: {dep}\b", meta, re.M), dep

    # Installed into an empty directory: the SDK comes from there (no site, so not the repo's editable
    # install), with the dependencies of this interpreter's site-packages.
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                    str(wheels[0])], check=True, capture_output=True, timeout=600)
    deps = sysconfig.get_paths()["purelib"]
    code = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
            "import harness.sdk, harness\n"
            "from harness.sdk.client import fallback\n"
            "print(harness.__file__); print(fallback(['claim', 'draw']))\n")
    got = subprocess.run([sys.executable, "-S", "-c", code, str(site), deps], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    where, answer = got.stdout.split()
    assert Path(where).is_relative_to(site) and answer == "draw"
    bot = subprocess.run([sys.executable, "-S", "-c", code.replace("print(harness.__file__)", "pass").replace(
        "print(fallback(['claim', 'draw']))", "raise SystemExit(harness.sdk.run(object(), []))"), str(site), deps],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert bot.returncode == 2 and "no arena address" in bot.stderr  # the SDK's own one-line usage error
