"""Apply resource limits, then run the bot:
``python -I -S launch.py [--as=N] [--nofile=N] [--parent=PID [--end-group=1]] -- ARGV...``.

Run as a separate interpreter (no harness imports) so that nothing runs between fork and exec
in the multi-threaded arena. Soft and hard limits are set equal, so the bot cannot raise them.

Without ``--parent`` the launcher execs the command. With ``--parent`` (the arena always passes it)
it stays as a small supervisor in the bot's process group: when the arena (PID) dies, even by
SIGKILL, the kernel signals the supervisor, which SIGKILLs the whole group (bubblewrap, its
namespace init and the bot) and then itself; if the arena died already, nothing starts. Otherwise it
waits for the command and ends as the command did (the same exit status, or death by the same
signal). ``PR_SET_PDEATHSIG`` alone is not enough: bubblewrap sets it in its namespace init only
after cloning it, so an arena killed in between left that init behind (issue 11).

With ``--end-group=1`` (the arena passes it for sandboxed bots) the supervisor also SIGKILLs whatever
the command left in the group when it ends. A bubblewrap killed (SIGTERM to the group: the arena
stopping a bot that is still starting) between cloning its namespace init and releasing it leaves
that init waiting forever, deaf to SIGTERM as a namespace's init is; without this its end depended on
the arena living through its grace period. Unsandboxed bots are left alone: what they leave behind
is for the arena to see (``arena check-bot`` reports it as a stray) and kill.
"""

import os
import resource
import signal
import sys

LIMITS = {"--as": resource.RLIMIT_AS, "--nofile": resource.RLIMIT_NOFILE}
PR_SET_PDEATHSIG = 1
ORPHANED = signal.SIGUSR1  # what the kernel sends the supervisor when the arena dies


def _kill_group(*_: object) -> None:
    os.killpg(os.getpgrp(), signal.SIGKILL)  # the supervisor is in the group: it dies too


def die_with(parent: int) -> bool:
    """Kill this process group when the parent dies; False if the parent is gone already."""
    import ctypes

    signal.signal(ORPHANED, _kill_group)
    prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)
    if prctl is None or prctl(PR_SET_PDEATHSIG, ORPHANED, 0, 0, 0) != 0:
        return True  # not Linux: only the arena's own cleanup applies
    return os.getppid() == parent


def _group_left(pgid: int, me: int) -> list[int]:
    """Live processes of group ``pgid`` other than ``me`` (zombies are dead: their parents reap them)."""
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == pgid:
            left.append(int(entry))
    return left


def _kill_rest() -> None:
    """SIGKILL what the command left in this group (a few passes: a member may fork meanwhile)."""
    me, pgid = os.getpid(), os.getpgrp()
    if pgid != me or not os.path.isdir("/proc"):
        return  # not a group of its own (the arena always makes one): nothing is only the bot's
    for _ in range(20):
        left = _group_left(pgid, me)
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def supervise(argv: list[str], end_group: bool = False) -> int:
    """Run ``argv`` as a child and end as it ended (with ``end_group``, after killing what it left in
    the group); 127 if it cannot be executed."""
    for caught in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(caught, lambda *_: None)  # the group gets them too; outlive the command (reset by exec)
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            print(f"launch: cannot run '{argv[0]}': {e.strerror}", file=sys.stderr)
        os._exit(127)
    _, status = os.waitpid(pid, 0)
    if end_group:
        _kill_rest()
    if os.WIFSIGNALED(status):  # die of the same signal
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status)


def main(args: list[str]) -> int:
    """Set the limits named in ``args`` and run the command after ``--``; 127 if that fails."""
    try:
        cut = args.index("--")
    except ValueError:
        print("launch: usage: launch.py [--as=N] [--nofile=N] [--parent=PID [--end-group=1]] -- COMMAND...",
              file=sys.stderr)
        return 2
    argv = args[cut + 1:]
    supervised = end_group = False
    try:
        for opt in args[:cut]:
            name, _, value = opt.partition("=")
            n = int(value)
            if name == "--parent":
                if not die_with(n):
                    return 125  # the arena is gone: start nothing
                supervised = True
                continue
            if name == "--end-group":
                end_group = bool(n)
                continue
            _, hard = resource.getrlimit(LIMITS[name])
            if hard != resource.RLIM_INFINITY:
                n = min(n, hard)
            resource.setrlimit(LIMITS[name], (n, n))
    except (KeyError, ValueError, OSError) as e:
        print(f"launch: cannot set limit '{opt}': {e}", file=sys.stderr)
        return 2
    if not argv:
        print("launch: no command", file=sys.stderr)
        return 2
    if supervised:
        return supervise(argv, end_group)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        print(f"launch: cannot run '{argv[0]}': {e.strerror}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
