"""Sixty-Six Arena: a tournament runner and bot-competition harness for Sixty-Six."""

import os

__version__ = "0.1.0"

# gRPC reads both settings once, when it is first imported: they are set before any harness module
# imports grpc. An explicit setting in the environment wins (GRPC_EXPERIMENTS= , empty, gives gRPC's
# own defaults).
#
# The arena's event loop (harness.eventloop: uvloop) starts bots with fork(), and gRPC's fork handlers
# would run at every launch (pausing its threads, or logging that it cannot); nothing in the harness
# forks while using gRPC.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
# Issue 18: servers (the arena, the league) and channels (the SDK, the test bots) do their socket I/O on
# the thread that polls gRPC's completion queue, instead of handing every message through the
# EventEngine's own threads. On two cores this cut the server's CPU per bare ping-pong by about 35% and a
# Python client's by about 25% (benchmarks/bench_match.py, run with GRPC_EXPERIMENTS= and without). These
# are switches of gRPC's own (two of its experiments, on by default in the gRPC we require); nothing on the wire changes.
os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_listener,-event_engine_client")
