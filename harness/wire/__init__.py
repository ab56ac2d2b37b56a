"""The wire protocol: generated protobuf/gRPC code (see :mod:`.generate`), cards and actions and the
Sixty-Six family's messages (:mod:`.convert`), each game's codec (:mod:`.codecs`) and the
game-free notices (:mod:`.notices`)."""
