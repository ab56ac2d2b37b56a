"""Apply resource limits, then exec the bot:
``python -I -S launch.py [--as=N] [--nofile=N] [--parent=PID] -- ARGV...``.

Run as a separate interpreter (no harness imports) so that nothing runs between fork and exec
in the multi-threaded arena. Soft and hard limits are set equal, so the bot cannot raise them.
With ``--parent`` (Linux; the sandbox uses it) the launched process is SIGKILLed when the arena dies,
and does not start at all if the arena (PID) died already: otherwise an arena killed while a bot
was starting would leave that bot behind.
"""

import os
import resource
import sys

LIMITS = {"--as": resource.RLIMIT_AS, "--nofile": resource.RLIMIT_NOFILE}
PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> bool:
    """SIGKILL this process (kept across exec) when its parent dies; False if it is gone already."""
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return True  # not Linux: only the arena's own cleanup applies
    return os.getppid() == parent


def main(args: list[str]) -> int:
    """Set the limits named in ``args`` and exec the command after ``--``; 127 if that fails."""
    try:
        cut = args.index("--")
    except ValueError:
        print("launch: usage: launch.py [--as=N] [--nofile=N] -- COMMAND...", file=sys.stderr)
        return 2
    argv = args[cut + 1:]
    try:
        for opt in args[:cut]:
            name, _, value = opt.partition("=")
            n = int(value)
            if name == "--parent":
                if not die_with(n):
                    return 125  # the arena is gone: start nothing
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
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        print(f"launch: cannot run '{argv[0]}': {e.strerror}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
