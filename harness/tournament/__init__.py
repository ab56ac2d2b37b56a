"""Tournaments: the schedule, the config, the results store, the runner and the commands."""
