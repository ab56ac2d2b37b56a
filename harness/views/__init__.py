"""Pure deal and table views of the games outside the Sixty-Six family (that family's view is
:mod:`harness.render`, which dispatches here): data in, rich renderables out, no printing."""
