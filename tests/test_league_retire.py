"""Issue 14 item 4: `arena league retire` as the README shows it, against a real `arena league serve`
process over gRPC on loopback: the token identifies the entrant, so `--owner` is not needed."""

from __future__ import annotations

from pathlib import Path

from test_league import League, Proc, cli, procs  # noqa: F401 - procs is a fixture


def test_retire_with_the_token_alone_needs_no_owner(tmp_path: Path, procs: list[Proc]) -> None:  # noqa: F811
    lg = League(tmp_path, every=5.0)
    procs.append(lg.proc)
    # registered under an owner that is not the user name, as `register --owner me` does
    reg = cli("register", "--league", lg.address, "--name", "mybot", "--owner", "me")
    assert reg.returncode == 0, reg.stderr
    token = next(ln.split(": ", 1)[1] for ln in reg.stdout.splitlines() if ln.startswith("token: "))
    other = lg.register("otherbot", owner="someone")

    # a wrong name for a good token is refused in one line, and nothing is retired
    wrong = cli("retire", "--league", lg.address, "--name", "otherbot", "--token", token)
    assert wrong.returncode == 1 and wrong.stderr.count("\n") == 1
    assert "belongs to me/mybot@1" in wrong.stderr
    # an unknown token is refused too
    bad = cli("retire", "--league", lg.address, "--name", "mybot", "--token", "not-a-token")
    assert bad.returncode == 1 and "unknown token" in bad.stderr and bad.stderr.count("\n") == 1
    assert not lg.row("me/mybot@1").retired

    # the README's line: --name and --token, no --owner
    out = cli("retire", "--league", lg.address, "--name", "mybot", "--token", token)
    assert out.returncode == 0, out.stderr
    assert "retired me/mybot@1" in out.stdout
    assert lg.row("me/mybot@1").retired
    assert not lg.row("someone/otherbot@1").retired

    # the token alone is enough as well
    alone = cli("retire", "--league", lg.address, "--token", other.token)
    assert alone.returncode == 0 and "retired someone/otherbot@1" in alone.stdout, alone.stderr

    # the owner's secret still needs the name (and the owner): one line, exit 2
    no_name = cli("retire", "--league", lg.address, "--owner-secret", reg.stdout)
    assert no_name.returncode == 2 and no_name.stderr == "arena: give --name with --owner-secret\n"
    assert lg.stop() == 0
