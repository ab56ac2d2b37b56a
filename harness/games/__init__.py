"""Pure game rules. Nothing under this package does I/O, threads, clocks or gRPC."""
