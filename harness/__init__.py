"""Sixty-Six Arena: a tournament runner and bot-competition harness for Sixty-Six."""

import os

__version__ = "0.1.0"

# gRPC reads this once, when it is first imported: set before any harness module imports grpc. The
# arena's event loop (harness.eventloop: uvloop) starts bots with fork(), and gRPC's fork handlers would
# run at every launch (pausing its threads, or logging that it cannot); nothing in the harness forks while
# using gRPC. An explicit setting in the environment wins.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
