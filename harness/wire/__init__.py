"""The wire protocol: generated protobuf/gRPC code (see :mod:`.generate`) and :mod:`.convert`."""
