"""Match pages: one self-contained HTML page per match record (``arena view``), linked from the leaderboards.

:mod:`harness.viewer.model` turns a record into steps (pure), :mod:`harness.viewer.page` draws them (pure);
:mod:`harness.viewer.files` reads records and writes pages next to them.
"""
